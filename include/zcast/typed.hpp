/** @file typed.hpp
 * @brief Typed topics in C++: typed publishers with RAII loans written member by member in place,
 * typed subscribers whose messages are read in place (docs/CPP.md "Typed messages").
 *
 * A generated header (`zcast-msggen`, docs/TYPED.md) compiled as C++17 includes this file and
 * specializes zcast::msg_traits for its type: `zcast::typed_publisher<sensor_msgs_msg_Image>`,
 * `zcast::typed_subscriber<sensor_msgs_msg_Image>`. A loan's members are reached by name,
 * `loan->header().frame_id() = "cam0"`, a message's the same way, `msg->width()`. Nothing is
 * copied and nothing is allocated: the views are offsets into the slot, computed once per loan
 * (its layout) or per message (its validation).
 */
#ifndef ZCAST_TYPED_HPP
#define ZCAST_TYPED_HPP

#include <zcast/zcast.hpp>
#include <zcast/typed_views.hpp>

#include <optional>
#include <string>

namespace zcast
{

/* ---- typed loans, messages, publishers and subscribers ---- */

/** A typed message being written in its slot: move-only; publish it with
 * typed_publisher::publish, destroying it unpublished returns the slot. Members are reached through
 * `->` (msg_traits<T>::writer), each starting at its declared default. Views taken from a loan
 * (strings, sequences, nested messages) point into it: they are invalid once it is published,
 * moved or destroyed. */
template <class T> class typed_loan
{
public:
	/** The member view (generated pkg_msg_Name_Writer). */
	using writer = typename msg_traits<T>::writer;

	/** No loan. */
	typed_loan() = default;
	/** Moves the loan; `o` becomes empty. */
	typed_loan(typed_loan &&o) noexcept
	{
		take(o);
	}
	/** Drops the loan held (if any) and takes `o`'s. */
	typed_loan &operator=(typed_loan &&o) noexcept
	{
		if (this != &o)
			take(o);
		return *this;
	}
	/** False once published, moved from or reset. */
	explicit operator bool() const noexcept
	{
		return static_cast<bool>(l_);
	}
	/** The members: `loan->width() = 640`. */
	const writer *operator->() const noexcept
	{
		return &w_;
	}
	/** The members. */
	const writer &operator*() const noexcept
	{
		return w_;
	}
	/** Drops the loan now (the slot returns to the pool). */
	void reset() noexcept
	{
		l_.reset();
	}
	/** The untyped loan (its C handle: get()). */
	const zcast::loan &untyped() const noexcept
	{
		return l_;
	}

private:
	template <class> friend class typed_publisher;
	void take(typed_loan &o) noexcept
	{
		l_ = std::move(o.l_);
		b_ = o.b_;
		own_bounds_ = o.own_bounds_;
		w_ = o.w_;
		if (own_bounds_)
			w_.w_.bounds = bounds_ptr();
		o.b_ = {}; /* nothing may keep using the moved-from copy */
		o.own_bounds_ = false;
		o.w_ = writer_frame<T>();
	}
	const uint32_t *bounds_ptr() const noexcept
	{
		return detail::cast<const uint32_t>(&b_);
	}
	zcast_cdr_writer &cw() noexcept
	{
		return w_.w_;
	}
	/** Loans a slot of `h` laid out at `bounds` (nullptr: the publisher's). */
	int open(zcast_typed_pub *h, const typename msg_traits<T>::bounds *bounds, int64_t timeout)
	{
		if (bounds) {
			b_ = *bounds;
			own_bounds_ = true;
		}
		zcast_msg *m;
		int r = zcast_typed_loan_wait(h, bounds ? bounds_ptr() : nullptr, timeout, &m,
					      &cw(), w_.own_off_.data(), w_.own_n_.data());
		if (r == 0)
			l_ = zcast::loan(m);
		return r;
	}
	zcast::loan l_;
	typename msg_traits<T>::bounds b_{}; /* per-loan bounds, kept while the loan lives */
	bool own_bounds_ = false;
	writer_frame<T> w_;
};

/** A received typed message, validated once when taken and read in place through `->`
 * (msg_traits<T>::reader): scalars by value, strings as std::string_view, arrays and sequences
 * of primitives as zcast::span. A counted reference like zcast::message: copies share it, the last
 * one destroyed releases the slot. Views taken from it are valid while it lives. */
template <class T> class typed_message
{
public:
	/** The member view (generated pkg_msg_Name_Reader). */
	using reader = typename msg_traits<T>::reader;

	/** No message. */
	typed_message() = default;
	/** Validates `m` as a T (an executor callback's message, say); throws zcast::error
	 * (ZCAST_ECORRUPT naming the member) if it is not one. */
	explicit typed_message(message m) : m_(std::move(m))
	{
		detail::check(zcast_typed_read(&msg_traits<T>::type(), m_.get(), &r_.r_,
					       r_.own_off_.data(), r_.own_n_.data()));
	}
	/** Another reference to the same message. */
	typed_message(const typed_message &) = default;
	/** Moves the reference; `o` becomes empty. */
	typed_message(typed_message &&o) noexcept = default;
	/** Copy assignment; the reference held before is dropped. */
	typed_message &operator=(const typed_message &) = default;
	/** Move assignment; the reference held before is dropped. */
	typed_message &operator=(typed_message &&) noexcept = default;
	/** False for an empty message. */
	explicit operator bool() const noexcept
	{
		return static_cast<bool>(m_);
	}
	/** The members: `msg->width()`. */
	const reader *operator->() const noexcept
	{
		return &r_;
	}
	/** The members. */
	const reader &operator*() const noexcept
	{
		return r_;
	}
	/** Sequence number, publish time, publisher and location. */
	zcast_msg_info info() const
	{
		return m_.info();
	}
	/** The untyped message (the payload holds 4 reserved bytes, the CDR header, the CDR). */
	const message &untyped() const noexcept
	{
		return m_;
	}

private:
	message m_;
	reader_frame<T> r_;
};

/** A publisher of message type `T` (a generated C struct, e.g. `sensor_msgs_msg_Image`):
 * move-only; the topic carries T's name and RIHS01 hash. Types with strings or sequences take
 * bounds (the most bytes per string, elements per sequence) that size the slots. One thread at a
 * time. */
template <class T>
class typed_publisher : public detail::handle<zcast_typed_pub, zcast_typed_pub_close>
{
public:
	/** The C bounds struct (pkg_msg_Name_bounds), zcast::no_bounds for a fixed-size type. */
	using bounds_type = typename msg_traits<T>::bounds;

	/** Joins `topic_name` with a fixed-size type; throws zcast::error (ZCAST_ETYPE naming both
	 * hashes when the topic has another type). */
	template <class U = T, std::enable_if_t<!has_bounds_v<U>, int> = 0>
	explicit typed_publisher(const std::string &topic_name,
				 const zcast_pub_opts &o = pub_options())
	{
		detail::check(zcast_typed_pub_open(topic_name.c_str(), &msg_traits<T>::type(),
						   nullptr, &o, &h_));
	}
	/** Joins `topic_name`; slots fit a message at `bounds` (copied). Throws zcast::error (a
	 * bound above the definition's, ZCAST_ETYPE naming both hashes...). */
	template <class U = T, std::enable_if_t<has_bounds_v<U>, int> = 0>
	typed_publisher(const std::string &topic_name, const bounds_type &bounds,
			const zcast_pub_opts &o = pub_options())
	{
		detail::check(zcast_typed_pub_open(topic_name.c_str(), &msg_traits<T>::type(),
						   &bounds, &o, &h_));
	}

	/** A loan laid out at the publisher's bounds, every member at its declared default; or
	 * std::nullopt when no slot is free within `timeout` (default: do not wait; negative:
	 * forever). Throws for other errors. */
	template <class Rep = int64_t, class Period = std::nano>
	std::optional<typed_loan<T>> try_loan(std::chrono::duration<Rep, Period> timeout = {})
	{
		return loan_at(nullptr, detail::ns(timeout));
	}
	/** A loan laid out at tighter `bounds` (each at most the publisher's: this frame's size
	 * saves moving memory at publish), or std::nullopt when no slot is free within `timeout`.
	 */
	template <class Rep = int64_t, class Period = std::nano, class U = T,
		  std::enable_if_t<has_bounds_v<U>, int> = 0>
	std::optional<typed_loan<T>> try_loan(const bounds_type &bounds,
					      std::chrono::duration<Rep, Period> timeout = {})
	{
		return loan_at(&bounds, detail::ns(timeout));
	}
	/** As try_loan(timeout), but no free slot throws zcast::error (ZCAST_ENOSLOT). */
	template <class Rep = int64_t, class Period = std::nano>
	typed_loan<T> loan(std::chrono::duration<Rep, Period> timeout = {})
	{
		return required(loan_at(nullptr, detail::ns(timeout)));
	}
	/** As try_loan(bounds, timeout), but no free slot throws zcast::error (ZCAST_ENOSLOT). */
	template <class Rep = int64_t, class Period = std::nano, class U = T,
		  std::enable_if_t<has_bounds_v<U>, int> = 0>
	typed_loan<T> loan(const bounds_type &bounds,
			   std::chrono::duration<Rep, Period> timeout = {})
	{
		return required(loan_at(&bounds, detail::ns(timeout)));
	}

	/** Compacts `l` in place (once) and publishes its exact size. On success the loan is
	 * consumed and true is returned; when a FULL queue has no room within `timeout` (default:
	 * do not wait), false, and `l` keeps the loan for a retry. A count or length written past
	 * its bound through raw pointers throws zcast::error (ZCAST_EINVAL; drop the loan). */
	template <class Rep = int64_t, class Period = std::nano>
	bool publish(typed_loan<T> &&l, std::chrono::duration<Rep, Period> timeout = {})
	{
		if (!l)
			throw error(ZCAST_ESTALE);
		int r = zcast_typed_publish(h_, l.l_.get(), &l.cw());
		int64_t t = detail::ns(timeout);
		if ((r == ZCAST_EAGAIN) &&
		    t != 0) /* compacted now: the untyped wait publishes it */
			r = zcast_publish_wait(untyped(), l.l_.get(), t);
		if (r == ZCAST_EAGAIN || r == ZCAST_ETIMEDOUT)
			return false;
		detail::check(r);
		l.l_.release(); /* the topic owns it now */
		return true;
	}
	/** The copy path: serializes the plain struct `msg` into a slot and publishes it. False
	 * when no slot is free or a FULL queue refused it; throws for other errors. */
	bool publish_copy(const T &msg)
	{
		int r = zcast_typed_publish_copy(h_, &msg);
		if (r == ZCAST_EAGAIN || r == ZCAST_ENOSLOT)
			return false;
		detail::check(r);
		return true;
	}
	/** Active subscribers of the topic. */
	int matched() const
	{
		return detail::check(zcast_pub_matched(untyped()));
	}
	/** Worst-case CDR size at the publisher's bounds. */
	size_t max_size() const noexcept
	{
		return zcast_typed_pub_max_size(h_);
	}
	/** The untyped C publisher underneath (zcast_pub_stat-like calls, executor room and graph
	 * entries through the C API). */
	zcast_pub *untyped() const noexcept
	{
		return zcast_typed_pub_handle(h_);
	}

private:
	std::optional<typed_loan<T>> loan_at(const bounds_type *bounds, int64_t timeout)
	{
		typed_loan<T> l;
		int r = l.open(h_, bounds, timeout);
		if (r == ZCAST_ENOSLOT || r == ZCAST_ETIMEDOUT)
			return std::nullopt;
		detail::check(r);
		return std::optional<typed_loan<T>>(std::move(l));
	}
	static typed_loan<T> required(std::optional<typed_loan<T>> l)
	{
		if (!l)
			throw error(ZCAST_ENOSLOT);
		return std::move(*l);
	}
};

/** A subscriber of message type `T`: opens the topic with T's name and RIHS01 hash (another type
 * throws zcast::error ZCAST_ETYPE naming both hashes) and hands out validated typed messages. It
 * is a zcast::subscriber: wait sets take it as one, and executor::add gives its callback typed
 * messages. */
template <class T> class typed_subscriber : public subscriber
{
public:
	/** Joins `topic_name` as a subscriber of T (the options' type name and hash are T's). */
	explicit typed_subscriber(const std::string &topic_name,
				  const zcast_sub_opts &o = sub_options())
	    : subscriber(topic_name, typed(o))
	{
	}
	/** The next queued message, validated, or std::nullopt when nothing is queued. A message
	 * that is not a valid T is released and throws zcast::error (ZCAST_ECORRUPT, naming the
	 * member). */
	std::optional<typed_message<T>> take()
	{
		std::optional<message> m = subscriber::take();
		if (!m)
			return std::nullopt;
		return typed_message<T>(std::move(*m));
	}
	/** Waits up to `timeout` (negative: forever) for a message and takes it; std::nullopt when
	 * none came. */
	template <class Rep, class Period>
	std::optional<typed_message<T>> receive(std::chrono::duration<Rep, Period> timeout)
	{
		auto deadline = std::chrono::steady_clock::now() + timeout;
		bool forever = timeout < timeout.zero();
		for (;;) {
			if (auto m = take())
				return m;
			auto left = deadline - std::chrono::steady_clock::now();
			if (!forever && left <= left.zero())
				return std::nullopt;
			wait(forever ? std::chrono::steady_clock::duration(-1) : left);
		}
	}

private:
	static zcast_sub_opts typed(zcast_sub_opts o) noexcept
	{
		zcast_typed_sub_opts(&o, &msg_traits<T>::type());
		return o;
	}
};

template <class T, class F> void executor::add(typed_subscriber<T> &s, F fn)
{
	add(static_cast<subscriber &>(s),
	    [fn = std::move(fn)](const message &m) mutable { fn(typed_message<T>(m)); });
}

} // namespace zcast
#endif
