// The C++ layer (include/zcast/zcast.hpp): ownership in the types (move-only loans, publish
// consumes, counted messages that release on destruction), errors as exceptions vs. outcomes as
// values, wait sets, lambdas on the executor (and their exceptions). Compiled with -std=c++17 -Wall
// -Wextra -Werror.
#include <zcast/zcast.hpp>

#include "zt_cpp.h"

#include <dirent.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <type_traits>

using namespace std::chrono_literals;

static std::string domain;

static zcast_pub_opts pub_opts(uint32_t slots = 8)
{
	auto o = zcast::pub_options();
	o.type_name = "test/Blob";
	o.slot_size = 256;
	o.slot_count = slots;
	return o;
}

static zcast_sub_opts sub_opts(uint32_t depth = 16)
{
	auto o = zcast::sub_options();
	o.type_name = "test/Blob";
	o.queue_depth = depth;
	return o;
}

static zcast::loan loan_text(zcast::publisher &pub, const char *text)
{
	auto l = pub.try_loan(64);
	CHECK(l);
	std::snprintf(static_cast<char *>(l->data()), 64, "%s", text);
	return std::move(*l);
}

static const char *text(const zcast::message &m)
{
	return static_cast<const char *>(m.data());
}

static void ownership_is_in_the_types()
{
	static_assert(!std::is_copy_constructible_v<zcast::loan>, "a loan has one owner");
	static_assert(std::is_nothrow_move_constructible_v<zcast::loan>, "loans move");
	static_assert(std::is_copy_constructible_v<zcast::message>, "messages are shared");
	static_assert(!std::is_copy_constructible_v<zcast::publisher>, "handles are unique");
	static_assert(!std::is_copy_constructible_v<zcast::subscriber>, "handles are unique");
	static_assert(zcast::payload_type_ok<double> && !zcast::payload_type_ok<std::string>,
		      "only trivially copyable payloads are viewed in place");
}

static void publish_consumes_and_messages_release_on_destruction()
{
	zcast::publisher pub("/cpp/own", pub_opts());
	zcast::subscriber sub("/cpp/own", sub_opts());
	CHECK(pub.matched() == 1 && sub.matched() == 1);
	auto l = loan_text(pub, "one");
	CHECK(pub.publish(std::move(l)));
	CHECK(!l); // consumed
	CHECK(sub.wait(1s));
	{
		auto m = sub.take();
		CHECK(m && std::strcmp(text(*m), "one") == 0 && m->info().sequence == 1);
		zcast::message copy = *m; // a second reference, same message
		CHECK(copy.data() == m->data());
		CHECK(sub.stat().held == 1);
		m.reset();
		CHECK(sub.stat().held == 1); // the copy still holds it
		CHECK(std::strcmp(text(copy), "one") == 0);
	}
	CHECK(sub.stat().held == 0); // the last reference released the hold
	CHECK(!sub.take());	     // nothing queued: a value, not an exception
	CHECK(!sub.wait(1ms));
}

static void a_refused_publish_leaves_the_loan_with_the_caller()
{
	zcast::publisher pub("/cpp/full", pub_opts());
	zcast::subscriber sub("/cpp/full", sub_opts(1)); // FULL policy, room for one
	CHECK(pub.publish(loan_text(pub, "first")));
	auto l = loan_text(pub, "second");
	CHECK(!pub.publish(std::move(l))); // queue full: refused...
	CHECK(l && std::strcmp(static_cast<const char *>(l.data()), "second") == 0); // ...loan kept
	CHECK(!pub.publish(std::move(l), 5ms)); // also when waiting
	CHECK(sub.take());
	CHECK(pub.publish(std::move(l)));
	CHECK(!l);
	auto m = sub.take();
	CHECK(m && std::strcmp(text(*m), "second") == 0);
	CHECK(sub.stat().rejected >= 2); // each refusal is counted (a waiting publish may retry)
}

static void dropping_a_loan_returns_its_slot()
{
	zcast::publisher pub("/cpp/slots", pub_opts(2));
	auto a = pub.try_loan(16), b = pub.try_loan(16);
	CHECK(a && b);
	CHECK(!pub.try_loan(16));      // pool exhausted: std::nullopt
	CHECK(!pub.try_loan(16, 5ms)); // also after waiting
	a.reset();		       // ~loan: the slot goes back
	CHECK(pub.try_loan(16));
	zcast::loan moved = std::move(*b);
	CHECK(!*b && moved);
}

static void errors_throw_with_code_and_message()
{
	try {
		zcast::publisher bad("no/leading/slash", pub_opts());
		FAIL("an invalid name must throw");
	} catch (const zcast::error &e) {
		CHECK(e.code() == ZCAST_EINVAL);
	}
	zcast::publisher pub("/cpp/typed", pub_opts());
	auto other = sub_opts();
	other.type_name = "test/Other";
	try {
		zcast::subscriber wrong("/cpp/typed", other);
		FAIL("a type mismatch must throw");
	} catch (const zcast::error &e) {
		CHECK(e.code() == ZCAST_ETYPE);
		CHECK(std::strstr(e.what(), "test/Other") && std::strstr(e.what(), "test/Blob"));
	}
	try {
		(void)pub.try_loan(1 << 20); // larger than the slots
		FAIL("an oversized loan must throw");
	} catch (const zcast::error &e) {
		CHECK(e.code() == ZCAST_EINVAL);
	}
	zcast::subscriber sub("/cpp/typed", sub_opts());
	auto l = pub.try_loan(2);
	CHECK(l);
	l->resize(2);
	CHECK(pub.publish(std::move(*l)));
	auto m = sub.take();
	CHECK(m);
	try {
		(void)m->as<double>(); // 2 bytes are no double
		FAIL("a view larger than the message must throw");
	} catch (const zcast::error &e) {
		CHECK(e.code() == ZCAST_EINVAL);
	}
}

static void waitset_reports_subscribers_guards_and_timers()
{
	zcast::publisher pa("/cpp/ws/a", pub_opts()), pb("/cpp/ws/b", pub_opts());
	zcast::subscriber sa("/cpp/ws/a", sub_opts()), sb("/cpp/ws/b", sub_opts());
	zcast::guard g;
	zcast::waitset ws;
	int ida = ws.add(sa), idb = ws.add(sb), idg = ws.add(g);
	CHECK(ws.wait(0ns).empty());
	CHECK(pb.publish(loan_text(pb, "b")));
	auto ev = ws.wait(1s);
	CHECK(ev.size() == 1 && ev[0].id == idb && ev[0].kind == ZCAST_WS_SUB);
	CHECK(sb.take() && ws.wait(0ns).empty()); // level-triggered: taken, no longer ready
	g.trigger();
	ev = ws.wait(1s);
	CHECK(ev.size() == 1 && ev[0].id == idg && ev[0].kind == ZCAST_WS_GUARD);
	ws.enable(ida, false);
	CHECK(pa.publish(loan_text(pa, "a")));
	CHECK(ws.wait(0ns).empty()); // disabled entries are not reported
	ws.enable(ida, true);
	ev = ws.wait(0ns);
	CHECK(ev.size() == 1 && ev[0].id == ida);
	ws.remove(ida);
	int idt = ws.add_timer(1ms);
	ev = ws.wait(1s);
	CHECK(ev.size() == 1 && ev[0].id == idt && ev[0].kind == ZCAST_WS_TIMER);
}

static void executor_runs_lambdas_and_rethrows_their_exceptions()
{
	zcast::publisher pub("/cpp/exec", pub_opts());
	zcast::subscriber sub("/cpp/exec", sub_opts());
	for (int i = 0; i < 5; i++)
		CHECK(pub.publish(loan_text(pub, std::to_string(i).c_str())));
	zcast::executor ex(2);
	std::string seen; // callbacks of one subscription never overlap: no lock needed
	zcast::message kept;
	ex.add(sub, [&](const zcast::message &m) {
		seen += text(m);
		if (seen.size() == 1)
			kept = m; // keeps the message beyond the callback
		if (seen.size() == 5)
			ex.stop();
	});
	ex.spin();
	CHECK(seen == "01234");
	CHECK(kept && std::strcmp(text(kept), "0") == 0 && sub.stat().held == 1);
	kept = zcast::message();
	CHECK(sub.stat().held == 0);

	std::atomic<int> ticks{0};
	ex.reset();
	ex.add_timer(1ms, [&] {
		if (++ticks == 3)
			throw std::runtime_error("from a timer");
	});
	try {
		ex.spin();
		FAIL("the callback's exception must reach spin");
	} catch (const std::runtime_error &e) {
		CHECK(std::strcmp(e.what(), "from a timer") == 0 && ticks == 3);
	}
}

// Container-style use: entries added and removed between turns, a timer with a handle, room again.
static void executor_adds_removes_and_reports_room()
{
	zcast::publisher pub("/cpp/room", pub_opts());
	zcast::subscriber sub("/cpp/room", sub_opts(2));
	zcast::executor ex;
	int got = 0, rooms = 0;
	uint64_t missed = 0;
	ex.add(sub, [&](const zcast::message &m) {
		CHECK(zcast_msg_sequence(m.get()) > 0);
		got++;
	});
	CHECK(pub.publish(loan_text(pub, "a")));
	CHECK(ex.spin_once(1s) && got == 1);
	ex.remove(sub);
	CHECK(pub.publish(loan_text(pub, "b")));
	CHECK(!ex.spin_once(10ms) && got == 1);

	ex.add_room(pub, [&] { rooms++; });
	CHECK(pub.publish(loan_text(pub, "x")));
	auto l = loan_text(pub, "c");
	CHECK(!pub.publish(std::move(l))); // depth 2: full
	ex.want_room(pub);
	CHECK(!ex.spin_once(0ms) && rooms == 0);
	CHECK(sub.take());
	CHECK(ex.spin_once(1s) && rooms == 1);
	CHECK(pub.publish(std::move(l)));
	ex.remove_room(pub);

	// A lambda that removes its own subscription: called once, kept alive until it returned.
	zcast::publisher pub2("/cpp/self", pub_opts());
	zcast::subscriber sub2("/cpp/self", sub_opts());
	int self_calls = 0;
	ex.add(sub2, [&](const zcast::message &) {
		self_calls++;
		ex.remove(sub2);
	});
	CHECK(pub2.publish(loan_text(pub2, "1")) && pub2.publish(loan_text(pub2, "2")));
	CHECK(ex.spin_once(1s) && self_calls == 1);
	CHECK(!ex.spin_once(10ms) && self_calls == 1);

	zcast_timer *t = ex.add_timer(1ms, [&](uint64_t m) { missed += m; }, true);
	CHECK(ex.spin_once(1s));
	CHECK(zcast_timer_until_next(t) == ZCAST_EAGAIN); // one-shot: fired
	ex.remove(t);
}

// Two timers of a pool whose callbacks run at once and remove each other: both removes return (the
// C library returns early from the second, as from a callback's own entry), and the wrapper keeps
// the lambda of the one still running alive (ASan would see it freed under its feet).
static void executor_pool_callbacks_remove_each_other()
{
	zcast::executor ex(2);
	std::atomic<int> inside{0}, done{0};
	zcast_timer *t[2] = {nullptr, nullptr};
	std::atomic<bool> ready{false};
	for (int i = 0; i < 2; i++) {
		t[i] = ex.add_timer(1ms, [&, i](uint64_t) {
			while (!ready.load())
				std::this_thread::yield();
			inside++;
			while (inside.load() < 2)
				std::this_thread::sleep_for(1ms);
			std::string keep(64, 'x'); // a capture-using body that runs past the remove
			ex.remove(t[1 - i]);
			CHECK(keep.size() == 64 && i >= 0);
			done++;
		}, true);
	}
	// Both due before the first turn, so that one turn hands both to the pool: a turn that finds
	// only one due (a slow thread under TSan) would leave it waiting for the other for ever.
	while (zcast_timer_until_next(t[0]) > 0 || zcast_timer_until_next(t[1]) > 0)
		std::this_thread::sleep_for(1ms);
	ready = true;
	while (done.load() < 2)
		ex.spin_once(1s);
}

int main()
{
	domain = zt_cpp_domain("tcpp");
	alarm(120); // watchdog: a hang fails the test
	ownership_is_in_the_types();
	publish_consumes_and_messages_release_on_destruction();
	a_refused_publish_leaves_the_loan_with_the_caller();
	dropping_a_loan_returns_its_slot();
	errors_throw_with_code_and_message();
	waitset_reports_subscribers_guards_and_timers();
	executor_runs_lambdas_and_rethrows_their_exceptions();
	executor_adds_removes_and_reports_room();
	executor_pool_callbacks_remove_each_other();
	zt_cpp_remove_segments(domain);
	std::printf("cpp: ok\n");
	return 0;
}
