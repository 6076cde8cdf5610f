// The C++ typed layer (include/zcast/typed.hpp and the views zcast-msggen emits): typed loans
// written member by member with their declared defaults, publish, typed messages read in place
// (zero copy), bounds errors naming the member, a type-hash mismatch naming both hashes, a corrupt
// message refused, slots back in the pool when loans and messages are destroyed, moved loans with
// their own bounds, wait sets and executor callbacks with typed messages, and a second process.
// Built with -Wall -Wextra -Werror -Wold-style-cast and more, with no pragma around the headers.
#include <zcast/zcast.hpp>

#include <geometry_msgs/msg/Quaternion.h>
#include <geometry_msgs/msg/Vector3.h>
#include <std_msgs/msg/String.h>
#include <zcast_test/msg/Corner.h>
#include <zcast_test/msg/Defaults.h>
#include <zcast_test/msg/Fixed.h>
#include <zcast_test/msg/Nested.h>

#include "../zt_cpp.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using Quaternion = geometry_msgs_msg_Quaternion;
using Corner = zcast_test_msg_Corner;

// Runs `f`, which must throw zcast::error `code` whose what() holds every one of `words`.
template <class F> static void expect_error(int code, std::vector<std::string> words, F f)
{
	try {
		f();
	} catch (const zcast::error &e) {
		if (e.code() != code) {
			std::fprintf(stderr, "error %d (%s), wanted %d\n", e.code(), e.what(),
				     code);
			std::exit(1);
		}
		for (const std::string &w : words)
			if (!std::strstr(e.what(), w.c_str())) {
				std::fprintf(stderr, "'%s' does not name '%s'\n", e.what(),
					     w.c_str());
				std::exit(1);
			}
		return;
	}
	std::fprintf(stderr, "no zcast::error %d thrown\n", code);
	std::exit(1);
}

static zcast_topic_stat topic_stat(const char *topic)
{
	zcast_topic_stat st;
	CHECK(zcast_topic_stat_get(nullptr, topic, &st) == 0);
	return st;
}

static bool inside(const void *p, const zcast::message &m)
{
	auto *b = static_cast<const uint8_t *>(m.data());
	auto *q = static_cast<const uint8_t *>(p);
	return q >= b && q < b + m.size();
}

static zcast_pub_opts small_pool(uint32_t slots)
{
	auto o = zcast::pub_options();
	o.slot_count = slots;
	return o;
}

static void fixed_type_defaults_publish_take()
{
	static_assert(!zcast::has_bounds_v<Quaternion>, "Quaternion is fixed-size");
	zcast::typed_publisher<Quaternion> pub("/q");
	zcast::typed_subscriber<Quaternion> sub("/q");
	CHECK(pub.matched() == 1 && sub.matched() == 1);
	zcast::typed_loan<Quaternion> l = pub.loan();
	CHECK(l->x() == 0.0 && l->w() == 1.0); // the declared default: float64 w 1
	l->x() = 0.5;
	l->z() = -2;
	CHECK(l->x() == 0.5);
	CHECK(pub.publish(std::move(l)));
	CHECK(!l);
	auto m = sub.receive(5s);
	CHECK(m);
	CHECK((*m)->x() == 0.5 && (*m)->y() == 0.0 && (*m)->z() == -2.0 && (*m)->w() == 1.0);
	CHECK(!sub.take());

	zcast::typed_publisher<zcast_test_msg_Fixed> fp("/fixed"); // nested Vector3, no bounds
	zcast::typed_subscriber<zcast_test_msg_Fixed> fs("/fixed");
	auto f = fp.loan();
	f->a() = 7;
	f->b() = 1.25;
	f->c() = 65535;
	f->v().y() = 3.5;
	CHECK(fp.publish(std::move(f)));
	auto g = fs.receive(5s);
	CHECK(g && (*g)->a() == 7 && (*g)->b() == 1.25 && (*g)->c() == 65535);
	CHECK((*g)->v().x() == 0.0 && (*g)->v().y() == 3.5);
}

static zcast_test_msg_Corner_bounds corner_bounds()
{
	zcast_test_msg_Corner_bounds b;
	std::memset(&b, 0, sizeof b);
	b.values = 16;
	b.name = 32;
	b.short_name = 8;
	b.few = 4;
	b.names.count = 3;
	b.names.length = 10;
	b.tags = 5;
	b.vecs = 4;
	b.pfs.count = 3;
	b.pfs.elem.name = 12;
	b.switches = 8;
	return b;
}

// Writes every kind of member of zcast_test/Corner; read_corner checks them.
static void write_corner(const zcast_test_msg_Corner_Writer &w, int seed)
{
	const auto *l = &w;
	l->small() = static_cast<uint8_t>(seed);
	l->after_uint8().sec() = seed * 10;
	l->after_uint8().nanosec() = 999;
	l->values() = {1.5, 2.5, 3.5};
	l->flag() = true;
	l->name() = "corner-" + std::to_string(seed);
	l->short_name() = "eight888";
	zcast::span<int16_t> t = l->triple();
	t[0] = -1, t[1] = 2, t[2] = -3;
	auto few = l->few();
	few.resize(2);
	few[0] = 40, few[1] = 41;
	l->names() = {"a", "", "three"};
	l->tags()[1] = "tag";
	l->raw() = 0xab;
	l->vecs().resize(2);
	l->vecs()[1].z() = 9.0;
	l->pfs().resize(1);
	l->pfs()[0].name() = "intensity";
	l->pfs()[0].count() = 3;
	l->big() = INT64_MIN;
	l->f() = 0.25f;
	l->switches() = {1, 0, 1};
}

// `whole`: the message the reader is in (its values are read there, in place).
static void read_corner(const zcast_test_msg_Corner_Reader &r, int seed,
			const zcast::message &whole)
{
	const auto *m = &r;
	CHECK(m->small() == seed && m->after_uint8().sec() == seed * 10);
	CHECK(m->after_uint8().nanosec() == 999);
	zcast::span<const double> v = m->values();
	CHECK(v.size() == 3 && v[0] == 1.5 && v[2] == 3.5);
	CHECK(inside(v.data(), whole)); // in place: zero copy
	CHECK(m->flag() && m->name() == "corner-" + std::to_string(seed));
	CHECK(inside(m->name().data(), whole));
	CHECK(m->short_name() == "eight888");
	CHECK(m->triple().size() == 3 && m->triple()[0] == -1 && m->triple()[2] == -3);
	CHECK(m->few().size() == 2 && m->few()[1] == 41);
	std::vector<std::string> names;
	for (std::string_view s : m->names())
		names.emplace_back(s);
	CHECK(names == (std::vector<std::string>{"a", "", "three"}));
	CHECK(m->tags().size() == 2 && m->tags()[0].empty() && m->tags()[1] == "tag");
	CHECK(m->raw() == 0xab);
	CHECK(m->vecs().size() == 2 && m->vecs()[0].z() == 0.0 && m->vecs()[1].z() == 9.0);
	CHECK(m->pfs().size() == 1 && m->pfs()[0].name() == "intensity");
	CHECK(m->pfs()[0].count() == 3);
	CHECK(m->big() == INT64_MIN && m->f() == 0.25f);
	CHECK(m->switches().size() == 3 && m->switches()[0] == 1 && m->switches()[1] == 0);
}

static void variable_type_strings_and_sequences()
{
	zcast::typed_publisher<Corner> pub("/corner", corner_bounds());
	zcast::typed_subscriber<Corner> sub("/corner");
	auto l = pub.loan();
	CHECK(l->name().capacity() == 32 && l->values().capacity() == 16);
	CHECK(l->names().size() == 0 && l->tags().size() == 2); // a sequence starts empty
	write_corner(*l, 5);
	CHECK(std::string_view(l->name()) == "corner-5"); // read back from the loan
	CHECK(pub.publish(std::move(l)));
	auto m = sub.receive(5s);
	CHECK(m);
	read_corner(**m, 5, m->untyped());
	CHECK(m->untyped().size() < ZCAST_TYPED_PREFIX + pub.max_size()); // compacted

	// The plain struct's copy path reaches the same typed subscriber.
	zcast_test_msg_Corner plain;
	zcast_test_msg_Corner_init(&plain);
	plain.name = zcast_cdr_str{"copied", 6};
	CHECK(pub.publish_copy(plain));
	auto c = sub.receive(5s);
	CHECK(c && (*c)->name() == "copied" && (*c)->values().empty());

	zcast_sub_stat st = sub.stat();
	CHECK(st.held == 2);
}

// Variable-size messages inside messages: a single one, a fixed array and a bounded sequence of
// zcast_test/Corner, each at other bounds, so that every element has its own layout.
static void messages_in_messages()
{
	zcast_test_msg_Nested_bounds b;
	b.corner = corner_bounds();
	b.pair = corner_bounds();
	b.pair.name = 10, b.pair.values = 5;
	b.some.count = 2;
	b.some.elem = corner_bounds();
	b.some.elem.names.length = 7;
	zcast::typed_publisher<zcast_test_msg_Nested> pub("/nested", b);
	zcast::typed_subscriber<zcast_test_msg_Nested> sub("/nested");
	auto l = pub.loan();
	l->head() = 1;
	write_corner(l->corner(), 10);
	write_corner(l->pair()[0], 20);
	write_corner(l->pair()[1], 21);
	CHECK(l->pair()[1].name().capacity() == 10 && l->some()[1].name().capacity() == 32);
	l->some().resize(2);
	write_corner(l->some()[0], 30);
	write_corner(l->some()[1], 31);
	l->stamps()[2].nanosec() = 5;
	l->tail() = 0xee;
	CHECK(pub.publish(std::move(l)));
	auto m = sub.receive(5s);
	CHECK(m);
	const zcast::message &whole = m->untyped();
	CHECK((*m)->head() == 1 && (*m)->tail() == 0xee);
	read_corner((*m)->corner(), 10, whole);
	CHECK((*m)->pair().size() == 2 && (*m)->some().size() == 2);
	read_corner((*m)->pair()[0], 20, whole);
	read_corner((*m)->pair()[1], 21, whole);
	int seed = 30;
	for (const auto &c : (*m)->some())
		read_corner(c, seed++, whole);
	CHECK((*m)->stamps()[2].nanosec() == 5 && (*m)->stamps()[1].nanosec() == 0);
}

static void std_string_roundtrip()
{
	std_msgs_msg_String_bounds b;
	b.data = 64;
	zcast::typed_publisher<std_msgs_msg_String> pub("/chatter", b);
	zcast::typed_subscriber<std_msgs_msg_String> sub("/chatter");
	auto l = pub.loan();
	std::string text = "hello from C++";
	l->data() = text;
	CHECK(pub.publish(std::move(l)));
	auto m = sub.receive(5s);
	CHECK(m && (*m)->data() == text);
}

static void declared_defaults_in_loans_and_views()
{
	zcast_test_msg_Defaults_bounds b;
	std::memset(&b, 0, sizeof b);
	b.name = 8, b.tag = 4, b.seq = 4, b.names = 4, b.more.count = 4, b.more.length = 4;
	zcast::typed_publisher<zcast_test_msg_Defaults> pub("/defaults", b);
	zcast::typed_subscriber<zcast_test_msg_Defaults> sub("/defaults");
	auto l = pub.loan();
	CHECK(l->a() == -5 && l->d() == 2.5 && l->flag() && l->q().w() == 1.0);
	CHECK(std::string_view(l->name()) == "hi" && l->seq().size() == 2 && l->seq()[1] == 8);
	CHECK(l->qs()[1].w() == 1.0);
	CHECK(pub.publish(std::move(l))); // nothing written: every member at its default
	auto m = sub.receive(5s);
	CHECK(m);
	const auto &d = **m;
	CHECK(d.a() == -5 && d.f() == 0.1f && d.d() == 2.5 && d.flag());
	CHECK(d.big() == INT64_MIN && d.huge() == UINT64_MAX);
	CHECK(d.arr()[0] == 1 && d.arr()[2] == 3);
	CHECK(d.name() == "hi" && d.tag() == "abcd");
	CHECK(d.seq().size() == 2 && d.seq()[0] == 7);
	CHECK(d.names()[0] == "x" && d.names()[1] == "yz");
	CHECK(d.more().size() == 2 && d.more()[0] == "a,b" && d.more()[1] == "c");
	CHECK(d.plain() == 0 && d.q().w() == 1.0 && d.q().x() == 0.0);
	CHECK(d.qs().size() == 2 && d.qs()[0].w() == 1.0 && d.qs()[1].w() == 1.0);
}

static void type_hash_mismatch_names_both_hashes()
{
	zcast::typed_publisher<Quaternion> pub("/mismatch");
	std::vector<std::string> both = {geometry_msgs_msg_Quaternion_TYPE_HASH_STR,
					 geometry_msgs_msg_Vector3_TYPE_HASH_STR};
	expect_error(ZCAST_ETYPE, both,
		     [] { zcast::typed_subscriber<geometry_msgs_msg_Vector3> s("/mismatch"); });
	expect_error(ZCAST_ETYPE, both,
		     [] { zcast::typed_publisher<geometry_msgs_msg_Vector3> p("/mismatch"); });
}

static void bounds_errors_name_the_member()
{
	auto b = corner_bounds();
	zcast::typed_publisher<Corner> pub("/bounds", b);
	auto l = pub.loan();
	l->name() = "kept";
	expect_error(ZCAST_EINVAL, {"zcast_test/msg/Corner: member name", "33", "32"},
		     [&] { l->name() = std::string(33, 'x'); });
	CHECK(std::string_view(l->name()) == "kept"); // nothing written
	expect_error(ZCAST_EINVAL, {"member few", "5", "4"}, [&] { l->few().resize(5); });
	expect_error(ZCAST_EINVAL, {"member values"},
		     [&] { l->values() = zcast::span<const double>(nullptr, 17); });
	expect_error(ZCAST_EINVAL, {"member names"}, [&] { l->names()[3] = "x"; });
	expect_error(ZCAST_EINVAL, {"member names"}, [&] { l->names()[0] = "elevenchars"; });
	expect_error(ZCAST_EINVAL, {"member tags"}, [&] { l->tags().resize(1); });
	expect_error(ZCAST_EINVAL, {"member pfs"}, [&] { l->pfs()[3]; });
	expect_error(ZCAST_EINVAL, {"member name"}, [&] { l->pfs()[0].name() = "thirteen char"; });
	CHECK(pub.publish(std::move(l))); // still publishable

	auto wide = b;
	wide.short_name = 9; // the definition says string<=8
	expect_error(ZCAST_EINVAL, {"short_name"},
		     [&] { zcast::typed_publisher<Corner> p("/bounds2", wide); });
	wide = b;
	wide.name = 33; // a loan may only be tighter than its publisher
	expect_error(ZCAST_EINVAL, {"above the publisher's"}, [&] { pub.loan(wide); });
}

// A loan with its own bounds keeps them when moved (the writer points at the loan's copy).
static void moved_loans_keep_their_bounds()
{
	zcast::typed_publisher<Corner> pub("/moved", corner_bounds());
	zcast::typed_subscriber<Corner> sub("/moved");
	auto tight = corner_bounds();
	tight.names.count = 1, tight.names.length = 3, tight.values = 2;
	std::optional<zcast::typed_loan<Corner>> o = pub.try_loan(tight);
	CHECK(o);
	zcast::typed_loan<Corner> l = std::move(*o);
	CHECK(!*o && l);
	zcast::typed_loan<Corner> l2;
	l2 = std::move(l);
	CHECK(l2->values().capacity() == 2);
	l2->names() = {"abc"};
	l2->values() = {4.0, 5.0};
	l2->name() = "moved";
	CHECK(pub.publish(std::move(l2)));
	auto m = sub.receive(5s);
	CHECK(m && (*m)->names().size() == 1 && (*m)->names()[0] == "abc");
	CHECK((*m)->values().size() == 2 && (*m)->values()[1] == 5.0 && (*m)->name() == "moved");
}

static void slots_return_when_loans_and_messages_go()
{
	zcast::typed_publisher<Quaternion> pub("/raii", small_pool(4));
	zcast::typed_subscriber<Quaternion> sub("/raii");
	uint64_t total = topic_stat("/raii").slots_total;
	CHECK(topic_stat("/raii").slots_free == total);
	{
		auto l = pub.loan();
		CHECK(topic_stat("/raii").slots_loaned == 1);
	}
	CHECK(topic_stat("/raii").slots_loaned == 0 && topic_stat("/raii").slots_free == total);
	{
		std::vector<zcast::typed_loan<Quaternion>> all;
		for (uint64_t i = 0; i < total; i++)
			all.push_back(pub.loan());
		CHECK(!pub.try_loan()); // the pool is empty: a value...
		expect_error(ZCAST_ENOSLOT, {}, [&] { pub.loan(); }); // ...or an exception
	}
	CHECK(topic_stat("/raii").slots_free == total);
	auto l = pub.loan();
	l->x() = 1;
	CHECK(pub.publish(std::move(l)));
	{
		auto m = sub.receive(5s);
		CHECK(m && sub.stat().held == 1);
		zcast::typed_message<Quaternion> copy = *m; // shares the message
		m.reset();
		CHECK(sub.stat().held == 1 && copy->x() == 1.0);
		CHECK(topic_stat("/raii").slots_free == total - 1);
	}
	CHECK(sub.stat().held == 0);			// the last view released the hold...
	CHECK(topic_stat("/raii").slots_free == total); // ...and the slot
}

// A loan waits for a slot: every slot is held by received messages until another thread drops them.
static void a_loan_waits_for_a_slot()
{
	zcast::typed_publisher<Quaternion> pub("/waitslot", small_pool(2));
	zcast::typed_subscriber<Quaternion> sub("/waitslot");
	uint64_t total = topic_stat("/waitslot").slots_total;
	std::vector<zcast::typed_message<Quaternion>> held;
	for (uint64_t i = 0; i < total; i++) {
		CHECK(pub.publish(pub.loan()));
		auto m = sub.take();
		CHECK(m);
		held.push_back(std::move(*m));
	}
	CHECK(!pub.try_loan(1ms)); // nothing frees a slot within the timeout: a value...
	expect_error(ZCAST_ENOSLOT, {}, [&] { pub.loan(1ms); }); // ...or an exception
	std::thread release([&] {
		std::this_thread::sleep_for(20ms);
		held.clear();
	});
	auto l = pub.try_loan(10s); // woken by the release
	release.join();
	CHECK(l && (*l)->w() == 1.0);
}

static void a_corrupt_message_is_refused_and_released()
{
	zcast::typed_subscriber<Quaternion> sub("/corrupt");
	auto o = zcast::pub_options(); // untyped, but claims the type: writes 8 bytes of CDR only
	o.type_name = geometry_msgs_msg_Quaternion_TYPE_NAME;
	std::memcpy(o.type_hash, geometry_msgs_msg_Quaternion_TYPE_HASH, ZCAST_TYPE_HASH_SIZE);
	zcast::publisher raw("/corrupt", o);
	auto l = raw.try_loan(16);
	CHECK(l);
	std::memset(l->data(), 0, 16);
	static_cast<uint8_t *>(l->data())[5] = 1; // CDR_LE
	CHECK(raw.publish(std::move(*l)));
	CHECK(sub.wait(5s));
	expect_error(ZCAST_ECORRUPT, {"geometry_msgs/msg/Quaternion"}, [&] { sub.take(); });
	CHECK(sub.stat().held == 0);
}

static void a_full_queue_leaves_the_loan_with_the_caller()
{
	auto so = zcast::sub_options();
	so.queue_depth = 1;
	so.policy = ZCAST_POLICY_FULL;
	zcast::typed_subscriber<Quaternion> sub("/full", so);
	zcast::typed_publisher<Quaternion> pub("/full");
	CHECK(pub.publish(pub.loan()));
	auto l = pub.loan();
	l->y() = 7;
	CHECK(!pub.publish(std::move(l)));
	CHECK(!pub.publish(std::move(l), 2ms) && l); // kept, compacted once, still publishable
	CHECK(sub.take());
	CHECK(pub.publish(std::move(l)) && !l);
	auto m = sub.take();
	CHECK(m && (*m)->y() == 7.0);
}

static void waitsets_and_executors_take_typed_subscribers()
{
	zcast::typed_publisher<Quaternion> pub("/exec");
	zcast::typed_subscriber<Quaternion> sub("/exec");
	zcast::waitset ws;
	int id = ws.add(sub);
	auto l = pub.loan();
	l->z() = 3;
	CHECK(pub.publish(std::move(l)));
	auto ev = ws.wait(5s);
	CHECK(ev.size() == 1 && ev[0].id == id);
	ws.remove(id);

	zcast::executor ex;
	double got = 0;
	ex.add(sub, [&](const zcast::typed_message<Quaternion> &m) {
		got = m->z();
		ex.stop();
	});
	ex.spin();
	CHECK(got == 3.0);
	ex.remove(sub);
}

// A second process publishes Corner messages; this one reads them in place.
static void another_process_publishes()
{
	zcast::typed_subscriber<Corner> sub("/fork");
	pid_t child = fork();
	CHECK(child >= 0);
	if (child == 0) {
		zcast::typed_publisher<Corner> pub("/fork", corner_bounds());
		for (int i = 1; i <= 3; i++) {
			auto l = pub.loan();
			write_corner(*l, i);
			if (!pub.publish(std::move(l)))
				_exit(2);
		}
		_exit(0);
	}
	int status;
	CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	for (int i = 1; i <= 3; i++) {
		auto m = sub.receive(5s);
		CHECK(m);
		read_corner(**m, i, m->untyped());
		CHECK(m->info().publisher_id != sub.id());
	}
}

int main()
{
	std::string domain = zt_cpp_domain("tcppt");
	alarm(120); // watchdog: a hang fails the test
	fixed_type_defaults_publish_take();
	variable_type_strings_and_sequences();
	messages_in_messages();
	std_string_roundtrip();
	declared_defaults_in_loans_and_views();
	type_hash_mismatch_names_both_hashes();
	bounds_errors_name_the_member();
	moved_loans_keep_their_bounds();
	slots_return_when_loans_and_messages_go();
	a_loan_waits_for_a_slot();
	a_corrupt_message_is_refused_and_released();
	a_full_queue_leaves_the_loan_with_the_caller();
	waitsets_and_executors_take_typed_subscribers();
	another_process_publishes();
	zt_cpp_remove_segments(domain);
	std::printf("cpp_typed: ok\n");
	return 0;
}
