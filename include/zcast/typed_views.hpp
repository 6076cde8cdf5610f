/** @file typed_views.hpp
 * @brief The member views of typed loans and messages (docs/CPP.md "Typed messages"): proxies that
 * write a loan's members in place, values and spans that read a message's in place, and the bases
 * of the views zcast-msggen generates per type. Included by typed.hpp.
 */
/* zcast.hpp first, outside the guard: it includes typed.hpp, which includes this file. */
#include <zcast/zcast.hpp>

#ifndef ZCAST_TYPED_VIEWS_HPP
#define ZCAST_TYPED_VIEWS_HPP

/* The C headers' inline helpers use C casts: keep a user's -Wold-style-cast (and clang's) quiet. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#include <zcast/typed.h>
#pragma GCC diagnostic pop

#include <algorithm>
#include <array>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>

namespace zcast
{

/** What a generated header says about its message type `T` (the plain C struct, e.g.
 * `geometry_msgs_msg_Quaternion`): `writer` and `reader` (the member views of a loan and of a
 * received message), `bounds` (the C bounds struct, or zcast::no_bounds for a fixed-size type),
 * `n_flat` (member slots of the views) and `type()` (the introspection table). Specialized by the
 * generated header only. */
template <class T> struct msg_traits;

/** The bounds of a fixed-size type (no strings, no sequences): there are none to give. */
struct no_bounds {
};

/** True when message type `T` has strings or sequences, so its publishers take bounds. */
template <class T>
constexpr bool has_bounds_v = !std::is_same_v<typename msg_traits<T>::bounds, no_bounds>;

/** A contiguous run of values in a slot (C++17 has no std::span): the values of an array or
 * sequence member, in place. */
template <class T> class span
{
public:
	/** An empty span. */
	constexpr span() noexcept = default;
	/** `size` values at `data`. */
	constexpr span(T *data, size_t size) noexcept : data_(data), size_(size)
	{
	}
	/** The first value. */
	constexpr T *data() const noexcept
	{
		return data_;
	}
	/** Number of values. */
	constexpr size_t size() const noexcept
	{
		return size_;
	}
	/** True when there is no value. */
	constexpr bool empty() const noexcept
	{
		return size_ == 0;
	}
	/** Value `i` (unchecked, as std::span). */
	constexpr T &operator[](size_t i) const noexcept
	{
		return data_[i];
	}
	/** Start of the values. */
	constexpr T *begin() const noexcept
	{
		return data_;
	}
	/** End of the values. */
	constexpr T *end() const noexcept
	{
		return data_ + size_;
	}

private:
	T *data_ = nullptr;
	size_t size_ = 0;
};

namespace detail
{
/** Payload bytes viewed as values of T (the slot keeps every value naturally aligned). */
template <class T, class B> T *cast(B *p) noexcept
{
	using V = std::conditional_t<std::is_const_v<B>, const void, void>;
	return static_cast<T *>(static_cast<V *>(p));
}
/** The error for a length or count above its bound: names the member. */
inline error bound_error(const char *member, size_t n, uint32_t cap)
{
	return error(ZCAST_EINVAL, std::string(member) + ": " + std::to_string(n) +
				       " is above its bound " + std::to_string(cap));
}
/** The writer the C string and count setters take (they only use its base). */
inline zcast_cdr_writer raw_writer(uint8_t *base) noexcept
{
	zcast_cdr_writer w{base, nullptr, 0};
	return w;
}
/** Walks a list by index (range-for over strings and messages of a view). */
template <class L> class index_iterator
{
public:
	/** Position `i` of `l`. */
	index_iterator(const L *l, size_t i) noexcept : l_(l), i_(i)
	{
	}
	/** The element here. */
	auto operator*() const
	{
		return (*l_)[i_];
	}
	/** The next position. */
	index_iterator &operator++() noexcept
	{
		++i_;
		return *this;
	}
	/** Same position. */
	bool operator==(const index_iterator &o) const noexcept
	{
		return i_ == o.i_;
	}
	/** Another position. */
	bool operator!=(const index_iterator &o) const noexcept
	{
		return i_ != o.i_;
	}

private:
	const L *l_;
	size_t i_;
};
} // namespace detail

/* ---- writing a loan: proxies into the slot ---- */

/** A primitive member of a loan: assign to write it in place, convert to read it back. A bool is
 * stored as one byte (0 or 1). Copying the proxy copies the reference, assigning one proxy to
 * another copies the value (as std::vector<bool>::reference). */
template <class T> class scalar_ref
{
public:
	/** The member whose value is at `p`. */
	explicit scalar_ref(uint8_t *p) noexcept : p_(p)
	{
	}
	/** Another reference to the same member. */
	scalar_ref(const scalar_ref &) noexcept = default;
	/** Writes `v`. */
	scalar_ref &operator=(T v) noexcept
	{
		if constexpr (std::is_same_v<T, bool>)
			*p_ = static_cast<uint8_t>(v);
		else
			std::memcpy(p_, &v, sizeof v);
		return *this;
	}
	/** Writes the value of another member. */
	scalar_ref &operator=(const scalar_ref &o) noexcept
	{
		return *this = static_cast<T>(o);
	}
	/** The value written so far (or the member's default). */
	operator T() const noexcept
	{
		if constexpr (std::is_same_v<T, bool>) {
			return *p_ != 0;
		} else {
			T v;
			std::memcpy(&v, p_, sizeof v);
			return v;
		}
	}

private:
	uint8_t *p_;
};

/** A string member of a loan, with room for capacity() bytes (its bound): assign a
 * std::string_view (a std::string, a literal), or write buffer() and then resize(). A string
 * longer than the bound throws zcast::error (ZCAST_EINVAL, naming the member) and writes nothing.
 */
class string_ref
{
public:
	/** The string whose length prefix is at `base + off`, bound `cap`; `member` names it in
	 * errors. */
	string_ref(uint8_t *base, uint32_t off, uint32_t cap, const char *member) noexcept
	    : base_(base), off_(off), cap_(cap), member_(member)
	{
	}
	/** Another reference to the same member. */
	string_ref(const string_ref &) noexcept = default;
	/** Writes `s` (its bytes; a NUL is added). */
	string_ref &operator=(std::string_view s)
	{
		assign(s.data(), s.size());
		return *this;
	}
	/** Writes the value of another string member. */
	string_ref &operator=(const string_ref &o)
	{
		return *this = static_cast<std::string_view>(o);
	}
	/** Writes `n` bytes at `s`. */
	void assign(const char *s, size_t n)
	{
		if (n > cap_)
			throw detail::bound_error(member_, n, cap_);
		std::memmove(buffer(), s, n);
		resize(n);
	}
	/** Room for capacity() bytes, in the slot: write the string there, then resize(). */
	char *buffer() const noexcept
	{
		return detail::cast<char>(base_ + off_ + 4);
	}
	/** Sets the length of what buffer() holds (at most capacity()). */
	void resize(size_t n)
	{
		if (n > cap_)
			throw detail::bound_error(member_, n, cap_);
		zcast_cdr_writer w = detail::raw_writer(base_);
		zcast_cdr_set_strlen(&w, off_, cap_, static_cast<uint32_t>(n));
	}
	/** Bytes written (without the NUL). */
	size_t size() const noexcept
	{
		uint32_t with_nul;
		std::memcpy(&with_nul, base_ + off_, 4);
		return with_nul == 0 ? 0 : std::min<size_t>(with_nul - 1, cap_);
	}
	/** The most bytes this loan's string takes (its bound). */
	uint32_t capacity() const noexcept
	{
		return cap_;
	}
	/** The string written so far (or the member's default). */
	operator std::string_view() const noexcept
	{
		return std::string_view(buffer(), size());
	}

private:
	uint8_t *base_;
	uint32_t off_, cap_;
	const char *member_;
};

/** A sequence of primitives in a loan (`T[]`, `T[<=N]`), room for capacity() values (its bound):
 * resize() and write the values in place (data(), [], begin/end), or assign a whole run. A bool
 * sequence has uint8_t values. A count above the bound throws zcast::error (ZCAST_EINVAL). */
template <class T> class sequence_ref
{
public:
	/** The sequence whose count is at `base + off`, bound `cap`; `member` names it in errors.
	 */
	sequence_ref(uint8_t *base, uint32_t off, uint32_t cap, const char *member) noexcept
	    : base_(base), off_(off), cap_(cap), member_(member)
	{
	}
	/** Another reference to the same member. */
	sequence_ref(const sequence_ref &) noexcept = default;
	/** Writes the values of another sequence member. */
	sequence_ref &operator=(const sequence_ref &o)
	{
		assign(o.data(), o.size());
		return *this;
	}
	/** Writes `v`'s values and sets the count. */
	sequence_ref &operator=(std::initializer_list<T> v)
	{
		assign(v.begin(), v.size());
		return *this;
	}
	/** Writes the values of a span and sets the count. */
	sequence_ref &operator=(span<const T> v)
	{
		assign(v.data(), v.size());
		return *this;
	}
	/** Copies `n` values at `v` and sets the count to `n`. */
	void assign(const T *v, size_t n)
	{
		resize(n);
		if (n)
			std::memmove(data(), v, n * sizeof(T));
	}
	/** Sets the count (at most capacity()); the values are whatever data() holds. */
	void resize(size_t n)
	{
		if (n > cap_)
			throw detail::bound_error(member_, n, cap_);
		zcast_cdr_writer w = detail::raw_writer(base_);
		zcast_cdr_set_count(&w, off_, cap_, static_cast<uint32_t>(n));
	}
	/** Room for capacity() values, naturally aligned, in the slot. */
	T *data() const noexcept
	{
		return detail::cast<T>(base_ + zcast_cdr_align_(off_ + 4, sizeof(T)));
	}
	/** The count. */
	size_t size() const noexcept
	{
		uint32_t n;
		std::memcpy(&n, base_ + off_, 4);
		return std::min(n, cap_);
	}
	/** The most values this loan's sequence takes (its bound). */
	uint32_t capacity() const noexcept
	{
		return cap_;
	}
	/** Value `i` (below size(); unchecked, as std::vector). */
	T &operator[](size_t i) const noexcept
	{
		return data()[i];
	}
	/** Start of the values. */
	T *begin() const noexcept
	{
		return data();
	}
	/** End of the values (size() of them). */
	T *end() const noexcept
	{
		return data() + size();
	}

private:
	uint8_t *base_;
	uint32_t off_, cap_;
	const char *member_;
};

/** An array (`string[N]`) or sequence (`string[]`, `string[<=N]`) of strings in a loan: element
 * `i` is a zcast::string_ref of the loan's string bound. A sequence is resize()d (an array always
 * has its N), or assigned from a list. An index or count beyond the room throws zcast::error. */
class strings_ref
{
public:
	/** The strings of the member at `base + off` (its count first when `sequence`), room for
	 * `cap` strings of `bound` bytes; `member` names it in errors. */
	strings_ref(uint8_t *base, uint32_t off, uint32_t cap, uint32_t bound, bool sequence,
		    const char *member) noexcept
	    : base_(base), off_(off), cap_(cap), bound_(bound), seq_(sequence), member_(member)
	{
	}
	/** Writes each string of `v` (a sequence gets their count; an array its first ones). */
	strings_ref &operator=(std::initializer_list<std::string_view> v)
	{
		if (seq_)
			resize(v.size());
		else if (v.size() > cap_)
			throw detail::bound_error(member_, v.size(), cap_);
		size_t i = 0;
		for (std::string_view s : v)
			(*this)[i++] = s;
		return *this;
	}
	/** String `i` (below capacity()). */
	string_ref operator[](size_t i) const
	{
		if (i >= cap_)
			throw detail::bound_error(member_, i + 1, cap_);
		uint32_t first = seq_ ? off_ + 4 : off_;
		return string_ref(base_,
				  zcast_cdr_string_slot(first, bound_, static_cast<uint32_t>(i)),
				  bound_, member_);
	}
	/** Sets the count of a sequence (at most capacity()); for an array, `n` must be its N. */
	void resize(size_t n)
	{
		if (n > cap_ || (!seq_ && n != cap_))
			throw detail::bound_error(member_, n, seq_ ? cap_ : 0);
		if (seq_) {
			zcast_cdr_writer w = detail::raw_writer(base_);
			zcast_cdr_set_count(&w, off_, cap_, static_cast<uint32_t>(n));
		}
	}
	/** The count of a sequence, N for an array. */
	size_t size() const noexcept
	{
		if (!seq_)
			return cap_;
		uint32_t n;
		std::memcpy(&n, base_ + off_, 4);
		return std::min(n, cap_);
	}
	/** Room in strings (an array's N, a sequence's bound). */
	uint32_t capacity() const noexcept
	{
		return cap_;
	}

private:
	uint8_t *base_;
	uint32_t off_, cap_, bound_;
	bool seq_;
	const char *member_;
};

template <class T> class writer_frame;

/** An array or sequence of messages of type `T` in a loan: element `i` is a writer of `T`
 * (zcast::msg_traits<T>::writer) laid out in place. A sequence is resize()d; an index or count
 * beyond the room throws zcast::error. */
template <class T> class messages_ref
{
public:
	/** The elements of the member at `off` of `w`'s loan (its count first when `sequence`),
	 * room for `cap`; `w.bounds` are the element's bounds; `member` names it in errors. */
	messages_ref(const zcast_cdr_writer &w, uint32_t off, uint32_t cap, bool sequence,
		     const char *member) noexcept
	    : w_(w), off_(off), cap_(cap), seq_(sequence), member_(member)
	{
	}
	/** Element `i` (below capacity()). */
	writer_frame<T> operator[](size_t i) const
	{
		if (i >= cap_)
			throw detail::bound_error(member_, i + 1, cap_);
		return writer_frame<T>(w_, seq_ ? off_ + 4 : off_, static_cast<uint32_t>(i));
	}
	/** Sets the count of a sequence (at most capacity()); for an array, `n` must be its N. */
	void resize(size_t n)
	{
		if (n > cap_ || (!seq_ && n != cap_))
			throw detail::bound_error(member_, n, seq_ ? cap_ : 0);
		if (seq_)
			zcast_cdr_set_count(&w_, off_, cap_, static_cast<uint32_t>(n));
	}
	/** The count of a sequence, N for an array. */
	size_t size() const noexcept
	{
		if (!seq_)
			return cap_;
		uint32_t n;
		std::memcpy(&n, w_.base + off_, 4);
		return std::min(n, cap_);
	}
	/** Room in elements (an array's N, a sequence's bound). */
	uint32_t capacity() const noexcept
	{
		return cap_;
	}

private:
	zcast_cdr_writer w_;
	uint32_t off_, cap_;
	bool seq_;
	const char *member_;
};

/* ---- reading a message: values in place ---- */

template <class T> class reader_frame;

/** An array or sequence of strings of a received message: element `i` is a std::string_view into
 * the slot (validated when it is read). */
class string_list
{
public:
	/** `count` strings from offset `first` of the validated message `r`. */
	string_list(const zcast_cdr_reader &r, uint32_t first, uint32_t count) noexcept
	    : r_(r), first_(first), count_(count)
	{
	}
	/** Number of strings. */
	size_t size() const noexcept
	{
		return count_;
	}
	/** String `i`; throws zcast::error for an index at or past size(). */
	std::string_view operator[](size_t i) const
	{
		const char *s;
		uint32_t n;
		detail::check(zcast_cdr_string_element(&r_, first_, count_,
						       static_cast<uint32_t>(i), &s, &n));
		return std::string_view(s, n);
	}
	/** Iteration from the first string. */
	detail::index_iterator<string_list> begin() const noexcept
	{
		return {this, 0};
	}
	/** Iteration end. */
	detail::index_iterator<string_list> end() const noexcept
	{
		return {this, count_};
	}

private:
	zcast_cdr_reader r_;
	uint32_t first_, count_;
};

/** An array or sequence of messages of type `T` in a received message: element `i` is a reader of
 * `T` (zcast::msg_traits<T>::reader), validated when it is reached. */
template <class T> class message_list
{
public:
	/** `count` elements from offset `first` of the validated message `r`. */
	message_list(const zcast_cdr_reader &r, uint32_t first, uint32_t count) noexcept
	    : r_(r), first_(first), count_(count)
	{
	}
	/** Number of elements. */
	size_t size() const noexcept
	{
		return count_;
	}
	/** Element `i`; throws zcast::error for an index at or past size(). */
	reader_frame<T> operator[](size_t i) const
	{
		return reader_frame<T>(r_, first_, count_, static_cast<uint32_t>(i));
	}
	/** Iteration from the first element. */
	detail::index_iterator<message_list> begin() const noexcept
	{
		return {this, 0};
	}
	/** Iteration end. */
	detail::index_iterator<message_list> end() const noexcept
	{
		return {this, count_};
	}

private:
	zcast_cdr_reader r_;
	uint32_t first_, count_;
};

namespace detail
{
/** The base of every generated writer (pkg_msg_Name_Writer): where the loan's members are. Its
 * helpers end in `_`, which no .msg member name does. */
class writer_base
{
public:
	/** The members of a loan laid out by `w` at offsets `off` with room `cap` (flat slots). */
	writer_base(const zcast_cdr_writer &w, const uint32_t *off, const uint32_t *cap) noexcept
	    : w_(w), off_(off), cap_(cap)
	{
	}

protected:
	template <class T> scalar_ref<T> scalar_(uint32_t k) const noexcept
	{
		return scalar_ref<T>(w_.base + off_[k]);
	}
	string_ref string_(uint32_t k, const char *member) const noexcept
	{
		return string_ref(w_.base, off_[k], cap_[k], member);
	}
	template <class T> span<T> array_(uint32_t k) const noexcept
	{
		return span<T>(cast<T>(w_.base + off_[k]), cap_[k]);
	}
	template <class T> sequence_ref<T> sequence_(uint32_t k, const char *member) const noexcept
	{
		return sequence_ref<T>(w_.base, off_[k], cap_[k], member);
	}
	/** `b`: the member's first bounds entry (a sequence's count, then the string bound). */
	strings_ref strings_(uint32_t k, uint32_t b, bool seq, const char *member) const noexcept
	{
		return strings_ref(w_.base, off_[k], cap_[k], w_.bounds[b + seq], seq, member);
	}
	template <class T>
	messages_ref<T> messages_(uint32_t k, uint32_t b, bool seq,
				  const char *member) const noexcept
	{
		return messages_ref<T>(at_bounds(has_bounds_v<T> ? b + seq : 0), off_[k], cap_[k],
				       seq, member);
	}
	/** A single nested message: its slots are this writer's from `k`, its bounds from `b`. */
	template <class W> W nested_(uint32_t k, uint32_t b) const noexcept
	{
		return W(at_bounds(b), off_ + k, cap_ + k);
	}
	zcast_cdr_writer at_bounds(uint32_t b) const noexcept
	{
		zcast_cdr_writer w = w_;
		if (w.bounds)
			w.bounds += b;
		return w;
	}
	zcast_cdr_writer w_;
	const uint32_t *off_, *cap_;
};

/** The base of every generated reader (pkg_msg_Name_Reader): where the validated message's
 * members are. */
class reader_base
{
public:
	/** The members of the validated message `r` at offsets `off` with lengths `len`. */
	reader_base(const zcast_cdr_reader &r, const uint32_t *off, const uint32_t *len) noexcept
	    : r_(r), off_(off), len_(len)
	{
	}

protected:
	/** Bools are read as bytes: another process may rewrite them. */
	template <class T> T scalar_(uint32_t k) const noexcept
	{
		if constexpr (std::is_same_v<T, bool>) {
			return r_.base[off_[k]] != 0;
		} else {
			T v;
			std::memcpy(&v, r_.base + off_[k], sizeof v);
			return v;
		}
	}
	std::string_view string_(uint32_t k) const noexcept
	{
		return std::string_view(cast<const char>(r_.base + off_[k]), len_[k]);
	}
	template <class T> span<const T> values_(uint32_t k) const noexcept
	{
		return span<const T>(cast<const T>(r_.base + off_[k]), len_[k]);
	}
	string_list strings_(uint32_t k) const noexcept
	{
		return string_list(r_, off_[k], len_[k]);
	}
	template <class T> message_list<T> messages_(uint32_t k) const noexcept
	{
		return message_list<T>(r_, off_[k], len_[k]);
	}
	template <class R> R nested_(uint32_t k) const noexcept
	{
		return R(r_, off_ + k, len_ + k);
	}
	zcast_cdr_reader r_;
	const uint32_t *off_, *len_;
};
} // namespace detail

namespace detail
{
/** The member offsets and capacities (or lengths) a frame owns: a base, so that they exist
 * before the view that points at them. Names end in `_`: no .msg member's does. */
template <uint32_t N> struct slots {
	std::array<uint32_t, N> own_off_{}, own_n_{};
};
} // namespace detail

/** A writer of `T` that owns its member offsets: a loan's, or an element of an array or
 * sequence of messages. Use it as msg_traits<T>::writer (`e.x() = 1`). */
template <class T>
class writer_frame : private detail::slots<msg_traits<T>::n_flat>, public msg_traits<T>::writer
{
	using W = typename msg_traits<T>::writer;
	using S = detail::slots<msg_traits<T>::n_flat>;

public:
	/** Empty: no loan. */
	writer_frame() noexcept : W(zcast_cdr_writer{}, S::own_off_.data(), S::own_n_.data())
	{
	}
	/** Element `i` of an array or sequence of T whose first element is at `first` of `w`'s
	 * loan (`w.bounds`: the element's bounds). */
	writer_frame(const zcast_cdr_writer &w, uint32_t first, uint32_t i) noexcept
	    : W(w, S::own_off_.data(), S::own_n_.data())
	{
		zcast_cdr_writer_element(&w, &msg_traits<T>::type(), w.bounds, first, i,
					 S::own_off_.data(), S::own_n_.data());
	}
	/** The same members. */
	writer_frame(const writer_frame &o) noexcept
	    : S(o), W(o.w_, S::own_off_.data(), S::own_n_.data())
	{
	}
	/** Views the same members as `o`. */
	writer_frame &operator=(const writer_frame &o) noexcept
	{
		S::operator=(o);
		this->w_ = o.w_;
		return *this;
	}

private:
	template <class> friend class typed_loan;
};

/** A reader of `T` that owns its member offsets: a message's, or an element of an array or
 * sequence of messages. Use it as msg_traits<T>::reader (`e.x()`). */
template <class T>
class reader_frame : private detail::slots<msg_traits<T>::n_flat>, public msg_traits<T>::reader
{
	using R = typename msg_traits<T>::reader;
	using S = detail::slots<msg_traits<T>::n_flat>;

public:
	/** Empty: no message. */
	reader_frame() noexcept : R(zcast_cdr_reader{}, S::own_off_.data(), S::own_n_.data())
	{
	}
	/** Element `i` of `count` elements from `first` of the validated `r` (validated here;
	 * throws zcast::error). */
	reader_frame(const zcast_cdr_reader &r, uint32_t first, uint32_t count, uint32_t i)
	    : R(r, S::own_off_.data(), S::own_n_.data())
	{
		detail::check(zcast_cdr_element(&r, &msg_traits<T>::type(), first, count, i,
						&this->r_, S::own_off_.data(), S::own_n_.data()));
	}
	/** The same members. */
	reader_frame(const reader_frame &o) noexcept
	    : S(o), R(o.r_, S::own_off_.data(), S::own_n_.data())
	{
	}
	/** Views the same members as `o`. */
	reader_frame &operator=(const reader_frame &o) noexcept
	{
		S::operator=(o);
		this->r_ = o.r_;
		return *this;
	}

private:
	template <class> friend class typed_message;
};

} // namespace zcast
#endif
