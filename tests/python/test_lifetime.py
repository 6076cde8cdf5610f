"""Buffer lifetime: exported buffers are counted, a message with one alive is never published
(and a memoryview released before publish raises afterwards), received messages stay valid after
their subscriber closed, the hold goes with the last reference (GC included) or at the end of a
`with`, and a killed Python process's held messages come back to the pool."""
import gc
import os
import signal
import time

import numpy as np
import pytest

import zcast
from conftest import python, read_line, zt_fill, zt_verify


def eventually(cond, seconds=10):
    deadline = time.monotonic() + seconds
    while not cond():
        assert time.monotonic() < deadline, "condition not reached in %s s" % seconds
        time.sleep(0.01)


def free_slots(topic):
    st = zcast.topic_stat(topic)
    return st["slots_free"], st["slots_total"]


def test_memoryview_kept_across_publish():
    with zcast.Publisher("/mv", slot_size=256, slot_count=2) as pub, \
            zcast.Subscriber("/mv") as sub:
        m = pub.loan(64)
        mv = memoryview(m)
        part = mv[8:16]  # derived views hold the same export
        mv[0] = 1
        assert m.exports == 1
        with pytest.raises(zcast.BufferExported):
            pub.publish(m)
        assert sub.take() is None and m.alive  # nothing went out, the loan is still ours
        mv.release()
        assert m.exports == 1  # `part` still holds the export
        with pytest.raises(zcast.BufferExported):
            pub.publish(m)
        part.release()
        assert m.exports == 0
        pub.publish(m)
        for access in (lambda: mv[0], lambda: mv.__setitem__(0, 2), lambda: part[0]):
            with pytest.raises(ValueError):  # released views raise, never touch the slot
                access()
        for access in (lambda: memoryview(m), lambda: np.frombuffer(m, np.uint8),
                       lambda: bytes(m), lambda: m.size, lambda: m.info()):
            with pytest.raises(zcast.Stale):
                access()
        with pytest.raises(zcast.Stale):
            pub.publish(m)
        assert bytes(sub.take())[0] == 1


def test_numpy_array_blocks_publish_until_deleted():
    with zcast.Publisher("/np", slot_size=1024) as pub, zcast.Subscriber("/np") as sub:
        m = pub.loan(1024)
        a = np.frombuffer(m, dtype=np.uint32)
        a[:] = np.arange(256, dtype=np.uint32)
        b = a[10:20]  # a view of the view: one more owner of the same export
        del a
        with pytest.raises(zcast.BufferExported) as e:
            pub.publish(m)
        assert "1 buffer" in str(e.value)
        del b
        pub.publish(m)
        got = np.frombuffer(sub.take(), dtype=np.uint32)
        assert (got == np.arange(256)).all()


def test_message_outlives_its_subscriber():
    with zcast.Publisher("/keep", slot_size=4096, slot_count=2) as pub:
        sub = zcast.Subscriber("/keep")
        m = pub.loan(4096)
        with memoryview(m) as mv:
            zt_fill(mv, 1, 9)
        pub.publish(m)
        held = sub.take()
        sub.close()
        del sub
        assert zt_verify(memoryview(held)) == (1, 9)  # still mapped, still intact
        assert free_slots("/keep") == (1, 2)
        held.release()
        eventually(lambda: free_slots("/keep") == (2, 2))


def test_unreleased_messages_are_collected():
    with zcast.Publisher("/gc", slot_count=4) as pub, zcast.Subscriber("/gc") as sub:
        for _ in range(3):
            pub.publish(pub.loan(8))
        cycle = [sub.take() for _ in range(3)]
        cycle.append(cycle)  # only the cyclic GC can free these
        assert free_slots("/gc") == (1, 4)
        del cycle
        gc.collect()
        eventually(lambda: free_slots("/gc") == (4, 4))
        loans = [pub.loan(8) for _ in range(4)]  # every slot is loanable again
        del loans  # unpublished loans go back too
        assert free_slots("/gc") == (4, 4)


def test_with_releases_at_once_unless_a_buffer_is_alive():
    with zcast.Publisher("/with", slot_count=2) as pub, zcast.Subscriber("/with") as sub:
        pub.publish(pub.loan(8))
        with sub.take() as msg:
            assert msg.size == 8
        assert not msg.alive
        assert free_slots("/with") == (2, 2)
        with pytest.raises(zcast.Stale):
            msg.info()
        m = pub.loan(8)
        memoryview(m)[:] = b"abcdefgh"
        pub.publish(m)
        with sub.take() as msg:
            arr = np.frombuffer(msg, np.uint8)
        assert not msg.alive
        assert bytes(arr) == b"abcdefgh"  # the array keeps the hold: still the same bytes
        assert free_slots("/with") == (1, 2)
        del arr
        assert free_slots("/with") == (2, 2)


def test_loan_released_with_live_buffer_is_not_reused():
    with zcast.Publisher("/loan", slot_count=1) as pub:
        m = pub.loan(8)
        mv = memoryview(m)
        m.release()  # deferred: mv still points into the slot
        with pytest.raises(zcast.NoSlot):
            pub.loan(8)  # so the slot cannot be handed out under it
        mv[0] = 7
        mv.release()
        pub.loan(8).release()


HOLDER = """
import sys, time, zcast
sub = zcast.Subscriber("/killed", queue_depth=8)
print("ready", flush=True)
held = [sub.receive(timeout=20) for _ in range(3)]
assert all(m is not None for m in held)
print("held", flush=True)
time.sleep(60)
"""


def test_killed_python_process_slots_are_reclaimed():
    with zcast.Publisher("/killed", slot_count=4) as pub:
        child = python(HOLDER)
        read_line(child, "ready")
        eventually(lambda: pub.matched == 1)
        for _ in range(3):
            pub.publish(pub.loan(8))
        read_line(child, "held")
        assert free_slots("/killed") == (1, 4)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        eventually(lambda: free_slots("/killed") == (4, 4))  # the death watcher reclaimed them
        loans = [pub.loan(8) for _ in range(4)]
        assert len(loans) == 4
