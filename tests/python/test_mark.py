"""Publish marks from Python: Message.set_mark(mark) on a loan, Publisher.last_mark (the C calls
zcast_msg_set_mark and zcast_pub_last_mark). The topic keeps the newest mark of a publish that
reached somebody; only a loan takes a mark, and a mark is 32 bits."""
import pytest

import zcast


def publish_marked(pub, mark):
    m = pub.loan(8)
    if mark:
        m.set_mark(mark)
    pub.publish(m)


def test_the_topic_keeps_the_newest_mark_that_reached_somebody():
    with zcast.Publisher("/mark/kept", slot_size=64, slot_count=8) as pub:
        assert pub.last_mark == 0
        publish_marked(pub, 5)  # nobody listens: the message went nowhere
        assert pub.last_mark == 0
        with zcast.Subscriber("/mark/kept", queue_depth=8):
            publish_marked(pub, 7)
            assert pub.last_mark == 7
            publish_marked(pub, 0)  # unmarked: the mark stays
            assert pub.last_mark == 7
            publish_marked(pub, 0xFFFFFFFF)
            with zcast.Publisher("/mark/kept") as other:
                assert other.last_mark == 0xFFFFFFFF  # one mark per topic, whoever asks


def test_the_history_is_somebody():
    with zcast.Publisher("/mark/hist", history_depth=2) as pub:
        publish_marked(pub, 11)
        assert pub.last_mark == 11


def test_only_a_loan_takes_a_32_bit_mark():
    with zcast.Publisher("/mark/loan") as pub, zcast.Subscriber("/mark/loan") as sub:
        m = pub.loan(8)
        with pytest.raises(zcast.InvalidArgument):
            m.set_mark(1 << 32)
        with pytest.raises(OverflowError):
            m.set_mark(-1)
        m.set_mark(3)
        pub.publish(m)
        with pytest.raises(zcast.Stale):
            m.set_mark(4)  # published: the handle is spent
        got = sub.take()
        with pytest.raises(zcast.InvalidArgument):
            got.set_mark(4)  # received, not a loan
        got.release()
        assert pub.last_mark == 3


def test_a_closed_publisher_has_no_mark_to_read():
    pub = zcast.Publisher("/mark/closed")
    pub.close()
    with pytest.raises(zcast.Stale):
        pub.last_mark
