"""Receiving inside `with`: receive() gives None on a timeout (no context manager then), and
next_message() raises zcast.Timeout, a TimeoutError, so `with sub.next_message(t) as m:` is safe."""
import time

import pytest

import zcast


def test_next_message_times_out_with_timeout_error():
    with zcast.Subscriber("/nm") as sub:
        assert sub.receive(timeout=0.01) is None
        t0 = time.monotonic()
        with pytest.raises(zcast.Timeout) as e:
            with sub.next_message(timeout=0.05):
                pytest.fail("the body must not run on a timeout")
        assert isinstance(e.value, TimeoutError)
        assert time.monotonic() - t0 >= 0.04


def test_next_message_in_with_releases_the_hold():
    with zcast.Publisher("/nm2", slot_size=64, slot_count=2) as pub, \
            zcast.Subscriber("/nm2", queue_depth=4) as sub:
        for i in range(6):  # more than the pool: each hold must end with its block
            m = pub.loan(8)
            memoryview(m)[0:1] = bytes([i])
            pub.publish(m)
            with sub.next_message(timeout=5.0) as got:
                assert bytes(memoryview(got))[0] == i
        assert sub.take() is None


def test_next_message_rejects_bad_timeout():
    with zcast.Subscriber("/nm3") as sub:
        with pytest.raises((TypeError, ValueError, zcast.Error)):
            sub.next_message(timeout="soon")
