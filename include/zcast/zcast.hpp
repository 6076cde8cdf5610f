/** @file zcast.hpp
 * @brief Header-only C++17 layer over the C API: RAII handles, lambdas, wait sets (docs/CPP.md).
 *
 * Ownership is in the types: a zcast::loan is move-only and zcast::publisher::publish consumes it;
 * a zcast::message is a counted reference like std::shared_ptr (copies share the message, the last
 * one releases it). Errors that mean "something is wrong" (bad name, type mismatch, corrupted
 * segment, out of memory) throw zcast::error; outcomes that are part of normal flow (nothing to
 * take, no free slot, a full queue, a timeout) are return values (std::optional, bool). The thread
 * rules of the C handles apply unchanged (zcast.h).
 */
#ifndef ZCAST_ZCAST_HPP
#define ZCAST_ZCAST_HPP

#include <zcast/executor.h>
/* The C headers' inline helpers use C casts: keep a user's -Wold-style-cast (and clang's) quiet. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#include <zcast/typed_service.h>
#pragma GCC diagnostic pop

#include <atomic>
#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <future>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

/** The C++ layer. */
namespace zcast
{

/** A failed call: code() is the ZCAST_E* value, what() the library's detailed message. */
class error : public std::runtime_error
{
public:
	/** Builds the error from a ZCAST_E* code and the calling thread's zcast_last_error(). */
	explicit error(int code)
	    : std::runtime_error(std::string(zcast_strerror(code)) + ": " + zcast_last_error()),
	      code_(code)
	{
	}
	/** An error the C++ layer found itself (a bound exceeded...): `detail` says what and why. */
	error(int code, const std::string &detail)
	    : std::runtime_error(std::string(zcast_strerror(code)) + ": " + detail), code_(code)
	{
	}
	/** The ZCAST_E* code. */
	int code() const noexcept
	{
		return code_;
	}

private:
	int code_;
};

namespace detail
{
/** Throws zcast::error for a negative result, returns it otherwise. */
inline int check(int r)
{
	if (r < 0)
		throw error(r);
	return r;
}
/** A duration as the C API's nanoseconds; a negative duration means "forever". */
template <class Rep, class Period> int64_t ns(std::chrono::duration<Rep, Period> d)
{
	return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
}
/** Owns one C handle and closes it with Close: move-only, like std::unique_ptr. */
template <class T, auto Close> class handle
{
public:
	handle() = default;
	handle(handle &&o) noexcept : h_(std::exchange(o.h_, nullptr))
	{
	}
	/* Swaps: the handle held before is closed when `o` is destroyed. */
	handle &operator=(handle &&o) noexcept
	{
		std::swap(h_, o.h_);
		return *this;
	}
	handle(const handle &) = delete;
	handle &operator=(const handle &) = delete;
	~handle()
	{
		if (h_)
			Close(h_);
	}
	/** The C handle, still owned by this object (for calls the C++ layer does not wrap). */
	T *get() const noexcept
	{
		return h_;
	}

protected:
	T *h_ = nullptr;
};
} // namespace detail

/** Publisher options with the library's defaults (zcast_pub_opts_init). */
inline zcast_pub_opts pub_options()
{
	zcast_pub_opts o;
	zcast_pub_opts_init(&o);
	return o;
}
/** Subscriber options with the library's defaults (zcast_sub_opts_init). */
inline zcast_sub_opts sub_options()
{
	zcast_sub_opts o;
	zcast_sub_opts_init(&o);
	return o;
}

/** Payloads start 64-byte aligned; a type viewed in place must not ask for more, nor hold pointers.
 */
template <class T>
constexpr bool payload_type_ok = std::is_trivially_copyable_v<T> && alignof(T) <= 64;

/** A slot being written: move-only. Publish it with publisher::publish; destroying an unpublished
 * loan returns the slot to the pool. */
class loan
{
public:
	loan() = default;
	/** Takes ownership of a C loan (one reference). */
	explicit loan(zcast_msg *m) noexcept : m_(m)
	{
	}
	/** Moves the loan; `o` becomes empty. */
	loan(loan &&o) noexcept : m_(std::exchange(o.m_, nullptr))
	{
	}
	/** Drops the loan held (if any) and takes `o`'s; `o` becomes empty. */
	loan &operator=(loan &&o) noexcept
	{
		if (this != &o) {
			reset();
			m_ = std::exchange(o.m_, nullptr);
		}
		return *this;
	}
	loan(const loan &) = delete;
	loan &operator=(const loan &) = delete;
	~loan()
	{
		reset();
	}

	/** False once published, moved from or reset. */
	explicit operator bool() const noexcept
	{
		return m_ != nullptr;
	}
	/** The payload, in shared memory: write it in place. */
	void *data() const noexcept
	{
		return zcast_msg_data(m_);
	}
	/** The payload viewed as a T constructed in place (trivially copyable, alignment at most
	 * 64). */
	template <class T> T *as() const
	{
		static_assert(payload_type_ok<T>,
			      "payload types must be trivially copyable, alignment <= 64");
		if (capacity() < sizeof(T))
			throw error(ZCAST_EINVAL);
		return static_cast<T *>(data());
	}
	/** The size that will be published. */
	size_t size() const noexcept
	{
		return zcast_msg_size(m_);
	}
	/** The slot's capacity. */
	size_t capacity() const noexcept
	{
		return zcast_msg_capacity(m_);
	}
	/** Sets the size that will be published (at most capacity()). */
	void resize(size_t n)
	{
		detail::check(zcast_msg_resize(m_, n));
	}
	/** A mark the publish leaves in the topic (publisher::last_mark), 0 for none (the
	 * default). */
	void set_mark(uint32_t mark)
	{
		detail::check(zcast_msg_set_mark(m_, mark));
	}
	/** Drops the loan now (the slot returns to the pool). */
	void reset() noexcept
	{
		if (m_)
			zcast_msg_drop(std::exchange(m_, nullptr));
	}
	/** The C handle, still owned by this object. */
	zcast_msg *get() const noexcept
	{
		return m_;
	}
	/** Gives up ownership of the C handle (the caller then publishes or drops it). */
	zcast_msg *release() noexcept
	{
		return std::exchange(m_, nullptr);
	}

private:
	zcast_msg *m_ = nullptr;
};

/** A received message: a counted, read-only reference. Copies share the message (zcast_msg_ref);
 * the last one destroyed ends this process's hold, and the slot is freed once nobody holds it. */
class message
{
public:
	message() = default;
	/** Takes ownership of one reference of a C message. */
	explicit message(zcast_msg *m) noexcept : m_(m)
	{
	}
	/** A new reference to a message borrowed from elsewhere (an executor callback's argument).
	 */
	static message share(zcast_msg *m) noexcept
	{
		return message(zcast_msg_ref(m));
	}
	/** Another reference to the same message (no shared memory is touched). */
	message(const message &o) noexcept : m_(o.m_ ? zcast_msg_ref(o.m_) : nullptr)
	{
	}
	/** Moves the reference; `o` becomes empty. */
	message(message &&o) noexcept : m_(std::exchange(o.m_, nullptr))
	{
	}
	/** Copy or move assignment; the reference held before is dropped. */
	message &operator=(message o) noexcept
	{
		std::swap(m_, o.m_);
		return *this;
	}
	~message()
	{
		if (m_)
			zcast_msg_drop(m_);
	}

	/** False for an empty (default-constructed or moved-from) message. */
	explicit operator bool() const noexcept
	{
		return m_ != nullptr;
	}
	/** The payload, in shared memory, mapped read-only. */
	const void *data() const noexcept
	{
		return zcast_msg_data(m_);
	}
	/** The payload viewed as a const T; throws zcast::error (ZCAST_EINVAL) if the message is
	 * smaller. */
	template <class T> const T *as() const
	{
		static_assert(payload_type_ok<T>,
			      "payload types must be trivially copyable, alignment <= 64");
		if (size() < sizeof(T))
			throw error(ZCAST_EINVAL);
		return static_cast<const T *>(data());
	}
	/** Published size in bytes. */
	size_t size() const noexcept
	{
		return zcast_msg_size(m_);
	}
	/** Sequence number, publish time, publisher and location (zcast_msg_info_get). */
	zcast_msg_info info() const
	{
		zcast_msg_info i;
		detail::check(zcast_msg_info_get(m_, &i));
		return i;
	}
	/** The C handle, still owned by this object. */
	zcast_msg *get() const noexcept
	{
		return m_;
	}

private:
	zcast_msg *m_ = nullptr;
};

/** A publisher of one topic: move-only, the destructor leaves the topic; get() gives the C
 * handle. One thread at a time. */
class publisher : public detail::handle<zcast_pub, zcast_pub_close>
{
public:
	/** Joins `topic` as a publisher; throws zcast::error (invalid name, type mismatch,
	 * limits...). */
	explicit publisher(const std::string &topic, const zcast_pub_opts &opts = pub_options())
	{
		detail::check(zcast_pub_open(topic.c_str(), &opts, &h_));
	}
	/** A slot of at least `size` bytes, or std::nullopt when none is free within `timeout`
	 * (default: do not wait). Throws for other errors (e.g. size above the slot size). */
	template <class Rep = int64_t, class Period = std::nano>
	std::optional<loan> try_loan(size_t size, std::chrono::duration<Rep, Period> timeout = {})
	{
		zcast_msg *m;
		int64_t t = detail::ns(timeout);
		int r = t == 0 ? zcast_loan(h_, size, &m) : zcast_loan_wait(h_, size, t, &m);
		if (r == ZCAST_ENOSLOT || r == ZCAST_ETIMEDOUT)
			return std::nullopt;
		detail::check(r);
		return loan(m);
	}

	/** Publishes `l`. On success the loan is consumed (`l` becomes empty) and true is returned.
	 * When a FULL queue (or every member of a worker group) has no room within `timeout`
	 * (default: do not wait), false is returned and `l` still holds the loan, unchanged: retry
	 * or drop it. Throws for other errors (then `l` also keeps the loan). */
	template <class Rep = int64_t, class Period = std::nano>
	bool publish(loan &&l, std::chrono::duration<Rep, Period> timeout = {})
	{
		if (!l)
			throw error(ZCAST_ESTALE);
		int64_t t = detail::ns(timeout);
		int r = t == 0 ? zcast_publish(h_, l.get()) : zcast_publish_wait(h_, l.get(), t);
		if (r == ZCAST_EAGAIN || r == ZCAST_ETIMEDOUT)
			return false;
		detail::check(r);
		l.release(); /* the topic owns it now */
		return true;
	}

	/** Active subscribers of the topic (zcast_pub_matched). */
	int matched() const
	{
		return detail::check(zcast_pub_matched(h_));
	}
	/** The member id (never reused within the topic). */
	uint64_t id() const noexcept
	{
		return zcast_pub_id(h_);
	}
	/** The mark of the topic's newest marked publish that reached a subscriber or the history
	 * (0: none), a dead publisher's included (zcast_pub_last_mark: takes the topic lock). */
	uint32_t last_mark() const
	{
		uint32_t mark = 0;
		detail::check(zcast_pub_last_mark(h_, &mark));
		return mark;
	}
};

/** A subscriber of one topic (RAII: the destructor leaves the topic; messages still held stay
 * valid). */
class subscriber : public detail::handle<zcast_sub, zcast_sub_close>
{
public:
	/** Joins `topic` as a subscriber; throws zcast::error on failure. */
	explicit subscriber(const std::string &topic, const zcast_sub_opts &opts = sub_options())
	{
		detail::check(zcast_sub_open(topic.c_str(), &opts, &h_));
	}

	/** The next queued message, or std::nullopt when nothing is queued (or max_held are held).
	 */
	std::optional<message> take()
	{
		zcast_msg *m;
		int r = zcast_take(h_, &m);
		if (r == ZCAST_EAGAIN || r == ZCAST_ELIMIT)
			return std::nullopt;
		detail::check(r);
		return message(m);
	}
	/** Waits until a message is queued: true, or false after `timeout` (negative: forever). */
	template <class Rep, class Period> bool wait(std::chrono::duration<Rep, Period> timeout)
	{
		int r = zcast_wait(h_, detail::ns(timeout));
		if (r == ZCAST_ETIMEDOUT)
			return false;
		detail::check(r);
		return true;
	}
	/** Messages queued now. */
	int queued() const
	{
		return detail::check(zcast_sub_queued(h_));
	}
	/** Counters: delivered, dropped, rejected, queued, held. */
	zcast_sub_stat stat() const
	{
		zcast_sub_stat st;
		detail::check(zcast_sub_stat_get(h_, &st));
		return st;
	}
	/** Active publishers of the topic (zcast_sub_matched). */
	int matched() const
	{
		return detail::check(zcast_sub_matched(h_));
	}
	/** A descriptor readable while messages are queued, owned by the subscriber (zcast_sub_fd).
	 */
	int fd() const
	{
		int fd;
		detail::check(zcast_sub_fd(h_, &fd));
		return fd;
	}
	/** The member id. */
	uint64_t id() const noexcept
	{
		return zcast_sub_id(h_);
	}
};

/** A trigger that wakes the wait sets it is attached to; trigger() is async-signal-safe.
 * Remove it from every wait set (or destroy those) before the guard is destroyed. */
class guard : public detail::handle<zcast_guard, zcast_guard_destroy>
{
public:
	/** Creates the guard; throws zcast::error on failure. */
	guard()
	{
		detail::check(zcast_guard_create(&h_));
	}
	/** Marks the guard pending and wakes its sleeping wait sets. */
	void trigger() noexcept
	{
		zcast_guard_trigger(h_);
	}
};

/** Waits for many subscribers, guards and timers in one call (waitset.h). One thread at a time;
 * attached objects are borrowed and must outlive the wait set or be removed first. */
class waitset : public detail::handle<zcast_waitset, zcast_waitset_destroy>
{
public:
	/** Creates an empty wait set; throws zcast::error on failure. */
	waitset()
	{
		detail::check(zcast_waitset_create(&h_));
	}

	/** Attaches a subscriber (ready while messages are queued); returns the entry id. */
	int add(subscriber &s, void *user = nullptr)
	{
		int id;
		detail::check(zcast_waitset_add_sub(h_, s.get(), user, &id));
		return id;
	}
	/** Attaches a guard (ready once per trigger); returns the entry id. */
	int add(guard &g, void *user = nullptr)
	{
		int id;
		detail::check(zcast_waitset_add_guard(h_, g.get(), user, &id));
		return id;
	}
	/** Adds a periodic timer (never early; missed expiries are reported once); returns the id.
	 */
	template <class Rep, class Period>
	int add_timer(std::chrono::duration<Rep, Period> period, void *user = nullptr)
	{
		int id;
		detail::check(zcast_waitset_add_timer(h_, detail::ns(period), user, &id));
		return id;
	}
	/** Detaches an entry. */
	void remove(int id)
	{
		detail::check(zcast_waitset_remove(h_, id));
	}
	/** Disables or re-enables an entry. */
	void enable(int id, bool on)
	{
		detail::check(zcast_waitset_enable(h_, id, on));
	}
	/** Ready entries (at most `max`), or an empty vector after `timeout` (negative: forever).
	 */
	template <class Rep, class Period>
	std::vector<zcast_ws_event> wait(std::chrono::duration<Rep, Period> timeout, int max = 16)
	{
		std::vector<zcast_ws_event> ev(static_cast<size_t>(max));
		int n = zcast_waitset_wait(h_, detail::ns(timeout), ev.data(), max);
		if (n == ZCAST_ETIMEDOUT)
			n = 0;
		ev.resize(static_cast<size_t>(detail::check(n)));
		return ev;
	}
};

template <class T> class typed_subscriber; /* typed.hpp */
class server; /* below */
class client;

/** Callbacks (any callable: lambdas, std::function) per subscription, timer, publisher room and
 * graph change, run by one thread or a pool (executor.h). An exception thrown by a callback stops
 * the executor and is rethrown by spin(); the callbacks of one entry never run concurrently.
 * Entries may be added and removed while it spins, from any thread and from callbacks; after a
 * remove returns no callback of the entry runs (unless it is called from that callback). */
class executor
{
public:
	/** Creates an executor with `threads` callback threads (0 or 1: the thread that spins). */
	explicit executor(uint32_t threads = 1)
	{
		zcast_executor_opts o;
		zcast_executor_opts_init(&o);
		o.threads = threads;
		detail::check(zcast_executor_create(&o, &e_));
	}
	executor(const executor &) = delete;
	executor &operator=(const executor &) = delete;
	~executor()
	{
		zcast_executor_destroy(e_);
	}

	/** Calls `fn(const zcast::message &)` for each message of `s` (borrowed: keep `s` alive
	 * while the executor exists). Copy the message to keep it after the callback returns. */
	template <class F> void add(subscriber &s, F fn)
	{
		entry &e = new_entry(s.get());
		e.on_msg = std::move(fn);
		checked_add(e, zcast_executor_add_sub(e_, s.get(), &on_message, &e, 0));
	}
	/** Calls `fn(const zcast::typed_message<T> &)` for each message of a typed subscriber
	 * (typed.hpp), validated first: a message that is not a valid T stops the executor with the
	 * zcast::error that spin() rethrows. */
	template <class T, class F> void add(typed_subscriber<T> &s, F fn);
	/** Stops the callbacks of `s`; then `s` may be closed. */
	void remove(subscriber &s)
	{
		detail::check(zcast_executor_remove_sub(e_, s.get()));
		retire(s.get());
	}
	/** Calls `fn()` every `period` (never early). */
	template <class Rep, class Period, class F>
	void add_timer(std::chrono::duration<Rep, Period> period, F fn)
	{
		entry &e = new_entry(nullptr);
		e.on_tick = std::move(fn);
		checked_add(e, zcast_executor_add_timer(e_, detail::ns(period), &on_timer, &e));
	}
	/** A timer with a handle: calls `fn(missed)` on each expiry (`missed`: expiries passed
	 * without a call of their own). Control it with zcast_timer_cancel / reset / set_period and
	 * remove it with remove(timer). */
	template <class Rep, class Period, class F>
	zcast_timer *add_timer(std::chrono::duration<Rep, Period> period, F fn, bool oneshot)
	{
		entry &e = new_entry(nullptr);
		e.on_expiry = std::move(fn);
		zcast_timer *t = nullptr;
		checked_add(e, zcast_executor_add_timer2(e_, detail::ns(period),
							 oneshot ? unsigned{ZCAST_TIMER_ONESHOT} : 0u,
							 &on_expiry, &e, &t));
		std::lock_guard<std::mutex> lk(mu_);
		e.key = t;
		return t;
	}
	/** Removes and frees a timer of add_timer(period, fn, oneshot). */
	void remove(zcast_timer *t)
	{
		detail::check(zcast_timer_remove(t));
		retire(t);
	}
	/** Calls `fn()` once per want_room(p) when a publish of `p` would find room again. */
	template <class F> void add_room(publisher &p, F fn)
	{
		entry &e = new_entry(p.get());
		e.on_tick = std::move(fn);
		checked_add(e, zcast_executor_add_room(e_, p.get(), &on_room, &e));
	}
	/** After a publish or loan of `p` was refused: asks for one add_room callback. */
	void want_room(publisher &p)
	{
		detail::check(zcast_executor_want_room(e_, p.get()));
	}
	/** Stops the room callbacks of `p`. */
	void remove_room(publisher &p)
	{
		detail::check(zcast_executor_remove_room(e_, p.get()));
		retire(p.get());
	}
	/** Calls `fn()` once per want_room(s) when a response loan, response send or failure of `s`
	 * refused for room would get further (zcast_executor_add_server_room): retry them there. */
	template <class F> void add_room(server &s, F fn);
	/** After a response (or failure) of `s` was refused for room: asks for one callback. */
	void want_room(server &s);
	/** Stops the room callbacks of `s`. */
	void remove_room(server &s);
	/** Calls `fn()` once per want_room(c) when a request loan or send of `c` refused for room
	 * would find it (zcast_executor_add_client_room). */
	template <class F> void add_room(client &c, F fn);
	/** After a request loan or send of `c` was refused for room: asks for one callback. */
	void want_room(client &c);
	/** Stops the room callbacks of `c`. */
	void remove_room(client &c);
	/** Calls `fn(const zcast_graph_event &)` when the count of matched subscribers changes. */
	template <class F> void add_graph(publisher &p, F fn)
	{
		entry &e = new_entry(p.get());
		e.on_graph = std::move(fn);
		checked_add(e, zcast_executor_add_pub_graph(e_, p.get(), &on_graph, &e));
	}
	/** Calls `fn(const zcast_graph_event &)` when the count of matched publishers changes. */
	template <class F> void add_graph(subscriber &s, F fn)
	{
		entry &e = new_entry(s.get());
		e.on_graph = std::move(fn);
		checked_add(e, zcast_executor_add_sub_graph(e_, s.get(), &on_graph, &e));
	}
	/** Stops the graph callbacks of a publisher or subscriber. */
	template <class H> void remove_graph(H &h)
	{
		detail::check(zcast_executor_remove_graph(e_, h.get()));
		retire(h.get());
	}
	/** Waits up to `timeout` for something ready, runs it; false if nothing became ready. */
	template <class Rep, class Period> bool spin_once(std::chrono::duration<Rep, Period> timeout)
	{
		int r = zcast_executor_spin_once(e_, detail::ns(timeout));
		if (r != ZCAST_ETIMEDOUT)
			detail::check(r);
		rethrow();
		return r > 0;
	}
	/** Runs callbacks until `deadline` (steady_clock: CLOCK_MONOTONIC) or stop(). */
	void spin_until(std::chrono::steady_clock::time_point deadline)
	{
		int r = zcast_executor_spin_until(
		    e_, std::chrono::duration_cast<std::chrono::nanoseconds>(
			    deadline.time_since_epoch())
			    .count());
		if (r != ZCAST_ETIMEDOUT)
			detail::check(r);
		rethrow();
	}
	/** Runs callbacks until stop(); rethrows the first exception a callback threw. */
	void spin()
	{
		detail::check(zcast_executor_spin(e_));
		rethrow();
	}
	/** Asks spin() to return; callable from callbacks, other threads and signal handlers. */
	void stop() noexcept
	{
		zcast_executor_stop(e_);
	}
	/** Clears a stop request so that spin() can run again. */
	void reset()
	{
		detail::check(zcast_executor_reset(e_));
	}
	/** SIGINT and SIGTERM stop this executor until it is destroyed. */
	void stop_on_signals()
	{
		detail::check(zcast_executor_stop_on_signals(e_));
	}
	/** The C handle, still owned by this object. */
	zcast_executor *get() const noexcept
	{
		return e_;
	}

private:
	struct entry {
		executor *self = nullptr;
		const void *key = nullptr; /* the handle remove() names */
		std::function<void(const message &)> on_msg;
		std::function<void()> on_tick; /* timers (old form) and room */
		std::function<void(uint64_t)> on_expiry;
		std::function<void(const zcast_graph_event &)> on_graph;
		std::atomic<int> running{0}; /* callbacks of this entry inside call() */
	};
	entry &new_entry(const void *key)
	{
		std::lock_guard<std::mutex> lk(mu_);
		entry &e = entries_.emplace_back();
		e.self = this;
		e.key = key;
		return e;
	}
	/** A failed add: the entry was never given to C. */
	void checked_add(entry &e, int r)
	{
		if (r < 0) {
			std::lock_guard<std::mutex> lk(mu_);
			entries_.remove_if([&](const entry &x) { return &x == &e; });
		}
		detail::check(r);
	}
	/** After the C remove returned, no callback of the entry runs — except one that is running
	 * still: the one that called remove, or one in another thread that waits in a remove of the
	 * caller's entry (executor.h). Such an entry is kept (never called again) until the executor
	 * is destroyed. */
	void retire(const void *key)
	{
		std::lock_guard<std::mutex> lk(mu_);
		for (auto it = entries_.begin(); it != entries_.end();) {
			auto next = std::next(it);
			if (it->key == key && (&*it == current_ || it->running.load() > 0))
				retired_.splice(retired_.end(), entries_, it);
			else if (it->key == key)
				entries_.erase(it);
			it = next;
		}
	}
	/** The entry whose callback this thread runs. */
	static inline thread_local const entry *current_ = nullptr;
	/** Runs a callback with current_ set, and turns an exception into a stop. */
	template <class G> static void call(entry *e, G &&g) noexcept
	{
		const entry *outer = std::exchange(current_, e);
		e->running.fetch_add(1);
		try {
			g();
		} catch (...) {
			e->self->fail();
		}
		current_ = outer;
		e->running.fetch_sub(1); /* the last touch: a retire may free e after it */
	}
	void rethrow()
	{
		std::exception_ptr ex;
		{
			std::lock_guard<std::mutex> lk(mu_);
			ex = std::exchange(failure_, nullptr);
		}
		if (ex) {
			zcast_executor_reset(e_);
			std::rethrow_exception(ex);
		}
	}
	/** Exceptions must not cross the C library's frames: keep the first one, stop, rethrow in
	 * spin. */
	void fail() noexcept
	{
		std::lock_guard<std::mutex> lk(mu_);
		if (!failure_)
			failure_ = std::current_exception();
		zcast_executor_stop(e_);
	}
	static void on_message(zcast_sub *, zcast_msg *m, void *ctx) noexcept
	{
		auto *e = static_cast<entry *>(ctx);
		call(e, [&] { e->on_msg(message::share(m)); });
	}
	static void on_timer(void *ctx) noexcept
	{
		auto *e = static_cast<entry *>(ctx);
		call(e, [&] { e->on_tick(); });
	}
	static void on_expiry(zcast_timer *, uint64_t missed, void *ctx) noexcept
	{
		auto *e = static_cast<entry *>(ctx);
		call(e, [&] { e->on_expiry(missed); });
	}
	static void on_room(zcast_pub *, void *ctx) noexcept
	{
		on_timer(ctx);
	}
	static void on_server_room(zcast_server *, void *ctx) noexcept
	{
		on_timer(ctx);
	}
	static void on_client_room(zcast_client *, void *ctx) noexcept
	{
		on_timer(ctx);
	}
	static void on_graph(const zcast_graph_event *ev, void *ctx) noexcept
	{
		auto *e = static_cast<entry *>(ctx);
		call(e, [&] { e->on_graph(*ev); });
	}

	zcast_executor *e_ = nullptr;
	std::list<entry> entries_; /* stable addresses: the C side keeps pointers to them */
	std::list<entry> retired_; /* removed while a callback of theirs ran: freed with us */
	std::mutex mu_;
	std::exception_ptr failure_;
};

/* ---- services (docs/SERVICES.md; typed: docs/TYPED.md "Services") ---- */

/** Service options with the library's defaults (zcast_service_opts_init). */
inline zcast_service_opts service_options()
{
	zcast_service_opts o;
	zcast_service_opts_init(&o);
	return o;
}

/** The payload of a request or response (after the service header). */
inline void *service_data(const loan &l) noexcept
{
	return zcast_service_data(l.get());
}
/** The payload of a received request or response (read-only, in place). */
inline const void *service_data(const message &m) noexcept
{
	return zcast_service_data(m.get());
}

/** A server of a service: move-only, the destructor stops serving (calls it still had fail with
 * ZCAST_ESRVGONE). Requests are messages (payload: service_data). Its members may be called from
 * several threads at once (a pool of workers: service.h); not the destructor or a move. */
class server : public detail::handle<zcast_server, zcast_server_close>
{
public:
	/** Serves `service` (any start order); throws zcast::error (e.g. ZCAST_ETYPE naming both hashes). */
	explicit server(const std::string &service, const zcast_service_opts &o = service_options())
	{
		detail::check(zcast_server_open(service.c_str(), &o, &h_));
	}
	/** A server of a .srv type whose response slots fit a response at `bounds` (the generated
	 * pkg_srv_Name_SERVICE and pkg_srv_Name_Response_bounds; nullptr for types without). */
	server(const std::string &service, const zcast_service_type &type, const void *bounds,
	       const zcast_service_opts &o = service_options())
	    : type_(&type)
	{
		detail::check(zcast_typed_server_open(service.c_str(), &type, bounds, &o, &h_));
	}
	/** A queued request, or std::nullopt. */
	std::optional<message> take()
	{
		zcast_msg *m;
		if (detail::check(zcast_request_take(h_, &m)) == ZCAST_EAGAIN)
			return std::nullopt;
		return message(m);
	}
	/** Waits for a request: false after `timeout` (negative: forever). */
	template <class Rep, class Period> bool wait(std::chrono::duration<Rep, Period> timeout)
	{
		int r = zcast_server_wait(h_, detail::ns(timeout));
		return r == ZCAST_ETIMEDOUT ? false : (detail::check(r), true);
	}
	/** A response of `size` payload bytes for the client of `req`. */
	loan loan_response(const message &req, size_t size)
	{
		zcast_msg *m;
		detail::check(zcast_response_loan(h_, req.get(), size, &m));
		return loan(m);
	}
	/** A typed response (the server's type) laid out at `bounds`; W: pkg_srv_Name_Response_writer.
	 */
	template <class W> loan loan_response(const message &req, const void *bounds, W &w)
	{
		zcast_msg *m;
		detail::check(zcast_typed_response_loan(h_, req.get(), typed()->response, bounds, &m,
							&w.w, w.off, w.cap));
		return loan(m);
	}
	/** Sends a response to the client that asked; false (the loan kept) when its queue is full. */
	bool respond(loan &l)
	{
		int r = zcast_response_send(h_, l.get());
		if (r == ZCAST_EAGAIN)
			return false;
		detail::check(r);
		l.release();
		return true;
	}
	/** A typed response: compacted once, then sent as respond(l). */
	template <class W> bool respond(loan &l, W &w)
	{
		detail::check(zcast_typed_service_finish(typed()->response, l.get(), &w.w));
		return respond(l);
	}
	/** The call's sequence number of a request this server took. */
	uint64_t seq(const message &req) const noexcept
	{
		return zcast_request_seq(h_, req.get());
	}

private:
	const zcast_service_type *typed() const
	{
		if (!type_)
			throw error(ZCAST_EINVAL);
		return type_;
	}
	const zcast_service_type *type_ = nullptr;
};

/** A client of a service: move-only, the destructor forgets pending calls. Outcomes come as
 * futures or callbacks, settled by process() (or call() for one blocking call). One thread at a
 * time. */
class client : public detail::handle<zcast_client, zcast_client_close>
{
public:
	/** Receives one outcome: the response, or an empty message and err ZCAST_ESRVGONE or
	 * ZCAST_EREFUSED. */
	using callback = std::function<void(message response, int err)>;

	/** A client of `service` (any start order); throws zcast::error. */
	explicit client(const std::string &service, const zcast_service_opts &o = service_options())
	{
		detail::check(zcast_client_open(service.c_str(), &o, &h_));
	}
	/** A client of a .srv type whose request slots fit a request at `bounds`. */
	client(const std::string &service, const zcast_service_type &type, const void *bounds,
	       const zcast_service_opts &o = service_options())
	    : type_(&type)
	{
		detail::check(zcast_typed_client_open(service.c_str(), &type, bounds, &o, &h_));
	}
	/** A request of `size` payload bytes (write it at service_data). */
	loan loan_request(size_t size)
	{
		zcast_msg *m;
		detail::check(zcast_request_loan(h_, size, &m));
		return loan(m);
	}
	/** A typed request laid out at `bounds`; W: pkg_srv_Name_Request_writer. */
	template <class W> loan loan_request(const void *bounds, W &w)
	{
		zcast_msg *m;
		detail::check(zcast_typed_request_loan(h_, typed()->request, bounds, &m, &w.w, w.off,
						       w.cap));
		return loan(m);
	}
	/** Compacts a typed request (once) before one of the sends below. */
	template <class W> void finish(loan &l, W &w)
	{
		detail::check(zcast_typed_service_finish(typed()->request, l.get(), &w.w));
	}
	/** Sends and waits for the response; throws zcast::error (ZCAST_ESRVGONE, ZCAST_EREFUSED,
	 * ZCAST_ENOSERVER, ZCAST_ETIMEDOUT...). The loan is consumed whatever the outcome. */
	template <class Rep, class Period>
	message call(loan &l, std::chrono::duration<Rep, Period> timeout)
	{
		zcast_msg *resp;
		int r = zcast_client_call(h_, l.release(), detail::ns(timeout), &resp);
		detail::check(r);
		return message(resp);
	}
	/** Sends; `cb` runs from process() with the outcome. Returns the call's sequence number. */
	uint64_t send(loan &l, callback cb)
	{
		uint64_t seq;
		detail::check(zcast_request_send(h_, l.get(), &seq));
		l.release();
		pending_.emplace_back(seq, std::move(cb));
		return seq;
	}
	/** Sends; the future gets the response, or a zcast::error (ZCAST_ESRVGONE, ZCAST_EREFUSED)
	 * from process(). */
	std::future<message> send(loan &l)
	{
		auto p = std::make_shared<std::promise<message>>();
		std::future<message> f = p->get_future();
		send(l, [p](message m, int err) {
			if (err)
				p->set_exception(std::make_exception_ptr(error(err)));
			else
				p->set_value(std::move(m));
		});
		return f;
	}
	/** Waits up to `timeout` for outcomes and settles every one that is ready (futures,
	 * callbacks). Returns how many were settled. */
	template <class Rep, class Period> int process(std::chrono::duration<Rep, Period> timeout)
	{
		int r = zcast_client_wait(h_, detail::ns(timeout)), n = 0;
		if (r == ZCAST_ETIMEDOUT)
			return 0;
		detail::check(r);
		zcast_msg *resp;
		uint64_t seq;
		while ((r = zcast_response_take(h_, &resp, &seq)) == 0 || r == ZCAST_ESRVGONE ||
		       r == ZCAST_EREFUSED) {
			n += settle(seq, resp ? message(resp) : message(), r);
		}
		if (r != ZCAST_EAGAIN)
			detail::check(r);
		return n;
	}
	/** Calls sent and not settled yet. */
	int pending() const noexcept
	{
		return zcast_client_pending(h_);
	}

private:
	const zcast_service_type *typed() const
	{
		if (!type_)
			throw error(ZCAST_EINVAL);
		return type_;
	}
	int settle(uint64_t seq, message m, int err)
	{
		for (auto it = pending_.begin(); it != pending_.end(); ++it)
			if (it->first == seq) {
				callback cb = std::move(it->second);
				pending_.erase(it);
				cb(std::move(m), err);
				return 1;
			}
		return 0; /* a call() outcome, or one forgotten */
	}
	const zcast_service_type *type_ = nullptr;
	std::list<std::pair<uint64_t, callback>> pending_;
};

template <class F> void executor::add_room(server &s, F fn)
{
	entry &e = new_entry(s.get());
	e.on_tick = std::move(fn);
	checked_add(e, zcast_executor_add_server_room(e_, s.get(), &on_server_room, &e));
}
inline void executor::want_room(server &s)
{
	detail::check(zcast_executor_want_server_room(e_, s.get()));
}
inline void executor::remove_room(server &s)
{
	detail::check(zcast_executor_remove_server_room(e_, s.get()));
	retire(s.get());
}
template <class F> void executor::add_room(client &c, F fn)
{
	entry &e = new_entry(c.get());
	e.on_tick = std::move(fn);
	checked_add(e, zcast_executor_add_client_room(e_, c.get(), &on_client_room, &e));
}
inline void executor::want_room(client &c)
{
	detail::check(zcast_executor_want_client_room(e_, c.get()));
}
inline void executor::remove_room(client &c)
{
	detail::check(zcast_executor_remove_client_room(e_, c.get()));
	retire(c.get());
}

} // namespace zcast

#include <zcast/typed.hpp> // typed publishers, loans, subscribers and messages
#endif
