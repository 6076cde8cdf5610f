"""sub.loaned(timeout) (issue 25): the `with` form of receive(). receive() keeps returning None
after its timeout; loaned() raises zcast.Timeout (a TimeoutError) there, where
`with sub.receive(t) as m:` used to fail with a TypeError about None."""
import pytest

import zcast


def test_loaned_gives_a_message_for_with():
    with zcast.Publisher("/loaned", slot_size=64, slot_count=4) as pub, \
            zcast.Subscriber("/loaned", queue_depth=4) as sub:
        m = pub.loan(5)
        memoryview(m)[:] = b"hello"
        pub.publish(m)
        with sub.loaned(timeout=5.0) as got:
            assert bytes(got) == b"hello"
        assert not got.alive  # released at the end of the block


def test_loaned_raises_timeout_and_receive_returns_none():
    with zcast.Publisher("/loaned_t", slot_size=64, slot_count=4), \
            zcast.Subscriber("/loaned_t", queue_depth=4) as sub:
        assert sub.receive(timeout=0.01) is None
        with pytest.raises(zcast.Timeout, match="within the timeout"):
            with sub.loaned(timeout=0.01):
                pass
        with pytest.raises(TimeoutError):
            sub.loaned(0)
