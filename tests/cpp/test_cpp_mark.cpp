// Publish marks in C++ (include/zcast/zcast.hpp): loan::set_mark and publisher::last_mark wrap
// zcast_msg_set_mark and zcast_pub_last_mark. The topic keeps the newest mark of a publish that
// reached somebody; a mark is a loan's, so setting one on anything else throws.
#include <zcast/zcast.hpp>

#include "../zt_cpp.h"

#include <utility>

static zcast_pub_opts pub_opts()
{
	auto o = zcast::pub_options();
	o.slot_size = 64;
	o.slot_count = 8;
	return o;
}

static bool publish_marked(zcast::publisher &pub, uint32_t mark)
{
	auto l = pub.try_loan(8);
	CHECK(l);
	if (mark)
		l->set_mark(mark);
	return pub.publish(std::move(*l));
}

static void the_topic_keeps_the_newest_mark_that_reached_somebody()
{
	zcast::publisher pub("/cppmark/kept", pub_opts());
	CHECK(pub.last_mark() == 0); // nothing marked yet
	CHECK(publish_marked(pub, 5)); // nobody listens: the message went nowhere
	CHECK(pub.last_mark() == 0);
	zcast::subscriber sub("/cppmark/kept", zcast::sub_options());
	CHECK(publish_marked(pub, 7));
	CHECK(pub.last_mark() == 7);
	CHECK(publish_marked(pub, 0)); // unmarked: the mark stays
	CHECK(pub.last_mark() == 7);
	CHECK(publish_marked(pub, 9));
	zcast::publisher other("/cppmark/kept", pub_opts());
	CHECK(other.last_mark() == 9); // one mark per topic, whoever asks
}

static void only_a_loan_takes_a_mark()
{
	zcast::publisher pub("/cppmark/loan", pub_opts());
	zcast::subscriber sub("/cppmark/loan", zcast::sub_options());
	auto l = pub.try_loan(8);
	CHECK(l);
	zcast::loan moved = std::move(*l);
	try {
		l->set_mark(1); // moved from: no message
		FAIL("set_mark on an empty loan must throw");
	} catch (const zcast::error &e) {
		CHECK(e.code() == ZCAST_EINVAL);
	}
	moved.set_mark(3);
	CHECK(pub.publish(std::move(moved)));
	CHECK(pub.last_mark() == 3);
	auto m = sub.take();
	CHECK(m);
	try { // a received message is not a loan (the C call refuses it)
		zcast::loan not_a_loan(zcast_msg_ref(m->get()));
		not_a_loan.set_mark(4);
		FAIL("set_mark on a received message must throw");
	} catch (const zcast::error &e) {
		CHECK(e.code() == ZCAST_EINVAL);
	}
	CHECK(pub.last_mark() == 3);
}

static void a_moved_from_publisher_throws()
{
	zcast::publisher pub("/cppmark/moved", pub_opts());
	zcast::publisher owner = std::move(pub);
	try {
		(void)pub.last_mark();
		FAIL("last_mark of a moved-from publisher must throw");
	} catch (const zcast::error &e) {
		CHECK(e.code() == ZCAST_EINVAL);
	}
	CHECK(owner.last_mark() == 0);
}

int main()
{
	std::string domain = zt_cpp_domain("tcppmark");
	alarm(60); // watchdog: a hang fails the test
	the_topic_keeps_the_newest_mark_that_reached_somebody();
	only_a_loan_takes_a_mark();
	a_moved_from_publisher_throws();
	zt_cpp_remove_segments(domain);
	std::printf("cpp_mark: ok\n");
	return 0;
}
