"""A Publisher shared by threads. publish(msg, timeout=None) waits for queue room (before: it did
not wait at all, QueueFull at once, as with timeout=0); matched waits for a publish in progress."""
import threading
import time

import zcast


def asleep(tid):
    """Is thread `tid` of this process asleep on a futex (a lock, or a wait)?"""
    with open("/proc/self/task/%d/wchan" % tid) as f:
        return "futex" in f.read()


def settled(tid, done):
    """Waits until thread `tid` is asleep at three checks in a row, each after a sleep of this
    thread (the GIL free, so not waiting for the GIL), or until done() says it returned."""
    seen = 0
    while seen < 3 and not done():
        time.sleep(0.001)
        seen = seen + 1 if asleep(tid) else 0


def full_queue(topic):
    """A subscriber whose FULL queue of 1 is full, and a publisher."""
    sub = zcast.Subscriber(topic, queue_depth=1)
    pub = zcast.Publisher(topic, slot_size=64, slot_count=4)
    pub.publish(pub.loan(8))
    return sub, pub


def publishing(pub, order):
    """A thread publishing into the full queue with timeout=None; returns it and its native id."""
    tid = []

    def run():
        tid.append(threading.get_native_id())
        try:
            pub.publish(pub.loan(8), timeout=None)
            order.append("publish")
        except zcast.Error as e:
            order.append(e)

    t = threading.Thread(target=run, daemon=True)  # a failed test does not hang at exit
    t.start()
    while not tid:
        time.sleep(0.001)
    return t, tid[0]


def test_publish_without_timeout_waits_for_room():
    sub, pub = full_queue("/py/pub_forever")
    order = []
    t, tid = publishing(pub, order)
    settled(tid, lambda: order)
    assert order == [], "publish(timeout=None) did not wait: %r" % order
    assert sub.take() is not None  # room: the publish goes through
    t.join(30)
    assert order == ["publish"]
    assert sub.take() is not None
    pub.close()
    sub.close()


def test_matched_waits_for_the_publish_holding_the_publisher():
    """matched goes into the C publisher as every other call does: under the publisher's lock (one
    thread at a time, the C contract), the GIL released while it waits for the lock and while it
    counts (a liveness probe per subscriber record). Before, it ran at once beside another thread's
    publish, without the lock, the GIL held."""
    sub, pub = full_queue("/py/pub_matched")
    order = []
    t1, _ = publishing(pub, order)
    while sub.stat()["rejected"] < 1:  # refused once: inside the publish, under its lock
        time.sleep(0.001)
    tid = []

    def matcher():
        tid.append(threading.get_native_id())
        order.append(("matched", pub.matched))

    t2 = threading.Thread(target=matcher, daemon=True)
    t2.start()
    while not tid:
        time.sleep(0.001)
    settled(tid[0], lambda: order)  # waiting for the publisher's lock: this thread runs on
    assert order == [], "matched ran beside another thread's publish: %r" % order
    assert sub.take() is not None  # room: the publish ends, then matched runs
    t1.join(30)
    t2.join(30)
    assert order == ["publish", ("matched", 1)]
    pub.close()
    try:
        pub.matched
        raise AssertionError("matched of a closed publisher")
    except zcast.Stale:
        pass
    sub.close()
