"""Python -> Python in one process: loans, publish, take, wait, iteration, policies, history,
wait sets, errors with the library's messages, and the GIL released while waiting."""
import threading
import time

import numpy as np
import pytest

import zcast
from conftest import zt_fill, zt_verify, location


def test_roundtrip_checksums_and_zero_copy():
    with zcast.Publisher("/rt", slot_size=4096, slot_count=4) as pub, \
            zcast.Subscriber("/rt", queue_depth=8) as sub:
        for seq in range(1, 6):
            m = pub.loan(1000 + seq)
            with memoryview(m) as mv:
                zt_fill(mv, seq, 3)
            where = location(m)
            pub.publish(m)
            got = sub.take()
            assert got is not None and not got.is_loan
            assert zt_verify(memoryview(got)) == (seq, 3)
            assert location(got) == where  # the same bytes of the same pool file
            assert got.info().sequence == seq
            got.release()
        assert sub.take() is None


def test_received_message_is_read_only():
    with zcast.Publisher("/ro") as pub, zcast.Subscriber("/ro") as sub:
        pub.publish(pub.loan(16))
        msg = sub.take()
        assert memoryview(msg).readonly
        with pytest.raises(TypeError):
            memoryview(msg)[0:1] = b"x"
        arr = np.frombuffer(msg, dtype=np.uint8)
        assert not arr.flags.writeable
        with pytest.raises(ValueError):
            arr[0] = 1


def test_wait_timeout_and_receive():
    with zcast.Publisher("/w") as pub, zcast.Subscriber("/w") as sub:
        assert sub.wait(0.01) is False
        assert sub.receive(timeout=0.01) is None
        pub.publish(pub.loan(8))
        assert sub.wait(1.0) is True
        assert sub.receive(timeout=1.0).size == 8


def test_gil_is_released_while_waiting():
    """A thread waits (5 s timeout) while this thread publishes: the publish can only run if the
    wait released the GIL, and the wait then ends with True, long before its timeout."""
    with zcast.Publisher("/gil") as pub, zcast.Subscriber("/gil") as sub:
        result = {}
        started = threading.Event()

        def waiter():
            started.set()
            result["woken"] = sub.wait(5.0)
        t = threading.Thread(target=waiter)
        t.start()
        started.wait()
        pub.publish(pub.loan(8))
        result["published"] = True  # reached while the waiter still waits
        t.join()
        assert result == {"woken": True, "published": True}
        # and close refuses to race a waiting thread, never crashes
        t = threading.Thread(target=sub.wait, args=(0.5,))
        sub.take().release()
        t.start()
        time.sleep(0.05)
        with pytest.raises(zcast.Busy):
            sub.close()
        t.join()


def test_iteration():
    with zcast.Publisher("/it") as pub, zcast.Subscriber("/it") as sub:
        for i in range(3):
            m = pub.loan(4)
            memoryview(m)[:] = bytes([i]) * 4
            pub.publish(m)
        got = []
        for msg in sub:
            got.append(bytes(msg))
            if len(got) == 3:
                break
        assert got == [bytes([i]) * 4 for i in range(3)]


def test_full_queue_raises_queue_full_and_publish_waits():
    with zcast.Publisher("/full", slot_count=8) as pub, \
            zcast.Subscriber("/full", queue_depth=2) as sub:
        pub.publish(pub.loan(1))
        pub.publish(pub.loan(1))
        m = pub.loan(1)
        with pytest.raises(zcast.QueueFull) as e:
            pub.publish(m)
        assert e.value.code == -3 and "queue" in str(e.value).lower() or str(e.value)
        assert m.alive  # the loan stays with us
        with pytest.raises(zcast.Timeout):
            pub.publish(m, timeout=0.05)
        sub.take().release()
        pub.publish(m, timeout=1.0)
        assert not m.alive


def test_no_slot_and_loan_timeout():
    with zcast.Publisher("/slots", slot_size=64, slot_count=2) as pub:
        a, b = pub.loan(8), pub.loan(8)
        with pytest.raises(zcast.NoSlot):
            pub.loan(8)
        with pytest.raises(zcast.Timeout):
            pub.loan(8, timeout=0.05)
        a.release()  # an unpublished loan goes back to the pool
        c = pub.loan(8)
        assert c.alive and b.alive
        with pytest.raises(zcast.InvalidArgument):
            pub.loan(65)


def test_drop_old_and_history():
    with zcast.Publisher("/h", history_depth=4, slot_count=16) as pub:
        for i in range(6):
            m = pub.loan(1)
            memoryview(m)[0] = i
            pub.publish(m)
        with zcast.Subscriber("/h", history=3, queue_depth=4) as late:
            assert [bytes(late.take())[0] for _ in range(3)] == [3, 4, 5]
        with zcast.Subscriber("/h", policy=zcast.DROP_OLD, queue_depth=2) as s:
            for i in range(5):
                m = pub.loan(1)
                memoryview(m)[0] = 10 + i
                pub.publish(m)  # never refused: the subscriber drops its oldest
            assert [bytes(s.take())[0] for _ in range(2)] == [13, 14]
            assert s.stat()["dropped"] == 3


def test_counts_out_of_range_are_refused():
    # uint32 options were parsed with "I", which wraps: history=2**32 + 1 became history 1 and
    # queue_depth=2**32 + 5 a depth of 5, silently.
    for kw in (dict(history=2**32 + 1), dict(history=-1), dict(queue_depth=2**32 + 5),
               dict(max_held=-1), dict(history="3")):
        with pytest.raises(ValueError, match="0..4294967295"):
            zcast.Subscriber("/range", **kw)
    for kw in (dict(slot_count=2**32 + 2), dict(history_depth=-1), dict(max_queue_depth=-1)):
        with pytest.raises(ValueError, match="0..4294967295"):
            zcast.Publisher("/range", **kw)
    with pytest.raises(zcast.InvalidArgument, match="history 5 exceeds queue_depth 4"):
        zcast.Subscriber("/range", history=5, queue_depth=4)
    # spin_ns was parsed with "K": -1 became a spin of 2**64 - 1 ns
    for bad in (-1, 2**64, "5"):
        with pytest.raises(ValueError, match="0..18446744073709551615"):
            zcast.Subscriber("/range", spin_ns=bad)


def test_waitset_timer_period_out_of_range():
    # 1e30 s used to wrap to a negative period ("timer period -9223372036854775808 ns").
    ws = zcast.WaitSet()
    for period in (0, -1, 1e-12, 1e30, float("nan"), 2**70):
        with pytest.raises(zcast.InvalidArgument, match=r"1e-9 \.\. 9e9 seconds"):
            ws.add_timer(period)


def test_waitset_with_guard_and_timer():
    with zcast.Publisher("/a") as pa, zcast.Subscriber("/a") as sa, zcast.Subscriber("/b") as sb:
        ws = zcast.WaitSet()
        g = zcast.Guard()
        ws.add(sa)
        ws.add(sb)
        ws.add(g)
        assert ws.wait(0.01) == []
        pa.publish(pa.loan(1))
        assert ws.wait(1.0) == [sa]
        sa.take().release()
        threading.Timer(0.05, g.trigger).start()
        assert ws.wait(5.0) == [g]
        with pytest.raises(zcast.Busy):
            sb.close()  # attached: C requires it to stay open
        tid = ws.add_timer(0.01)
        assert ws.wait(5.0) == [tid]
        ws.remove(tid)
        del ws
        sb.close()


def test_errors_carry_the_library_message():
    with zcast.Publisher("/typed", type="std_msgs/String", bounds={"data": 8}):
        with pytest.raises(zcast.TypeMismatch) as e:
            zcast.Subscriber("/typed", type="std_msgs/Int32")
        assert "std_msgs/msg/String" in str(e.value) and "std_msgs/msg/Int32" in str(e.value)
        assert isinstance(e.value, zcast.Error) and e.value.code == -6
    with pytest.raises(zcast.InvalidArgument) as e:
        zcast.Publisher("no-slash")
    assert "no-slash" in str(e.value)
    with pytest.raises(ValueError):  # InvalidArgument is a ValueError as well
        zcast.Subscriber("/x", domain="bad domain!")
    with zcast.Subscriber("/lim", max_subscribers=2) as a, zcast.Subscriber("/lim") as b:
        with pytest.raises(zcast.LimitExceeded):
            zcast.Subscriber("/lim")
        assert a.matched == 0 and b.queued == 0
    with pytest.raises(zcast.NoSuchTopic):
        zcast.topic_stat("/nothing")


def test_closed_handles_raise():
    pub = zcast.Publisher("/c")
    sub = zcast.Subscriber("/c")
    pub.close()
    sub.close()
    with pytest.raises(zcast.Stale):
        pub.loan(1)
    with pytest.raises(zcast.Stale):
        sub.take()
    pub.close()  # closing twice is harmless
    assert pub.closed and sub.closed


def test_balance_rr_group_shares_messages():
    with zcast.Publisher("/rr") as pub, \
            zcast.Subscriber("/rr", policy=zcast.BALANCE_RR, group="g") as w1, \
            zcast.Subscriber("/rr", policy=zcast.BALANCE_RR, group="g") as w2:
        for _ in range(4):
            pub.publish(pub.loan(1))
        assert w1.queued + w2.queued == 4 and w1.queued == 2


def test_waits_without_timeout_outlast_the_signal_slices():
    """Forever waits are cut in 100 ms slices (so Ctrl-C works); they must not end at a slice."""
    with zcast.Publisher("/forever") as pub, zcast.Subscriber("/forever") as sub:
        threading.Timer(0.35, lambda: pub.publish(pub.loan(3))).start()
        assert sub.wait() is True
        threading.Timer(0.35, lambda: pub.publish(pub.loan(4))).start()
        sub.take().release()
        msg = sub.receive()
        assert msg is not None and msg.size == 4
        msg.release()
        ws = zcast.WaitSet()
        ws.add(sub)
        threading.Timer(0.35, lambda: pub.publish(pub.loan(5))).start()
        assert ws.wait() == [sub]
        del ws  # detaches the subscriber, which can then be closed
