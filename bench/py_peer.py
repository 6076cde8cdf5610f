#!/usr/bin/python3
"""The Python side of the Python benchmark: bench/py_peer.c's protocol, through the zcast module.

    py_peer.py send|recv raw|image DATA ACK SIZE COUNT

Acked one-way latency: the sender stamps time.monotonic_ns() (CLOCK_MONOTONIC), loans, writes the
stamp and publishes; the receiver takes, computes now - stamp, releases the message and publishes
a 64 B ack; the sender waits for it before the next message. Only the stamp is written and read
(transport mode); for images the receiver also reads the last pixel through the zero-copy numpy
view, as the C side does. Both sides print where each message lived (pool dev, ino, offset).
"""
import struct
import sys
import time

import zcast

STAMP = struct.Struct("<q")
WAIT_S = 30  # a peer that died is noticed, never waited for forever


def image_bounds(size):
    return {"header": {"frame_id": 8}, "encoding": 5, "data": size}


def sender(image, data, ack, size, count):
    kw = {"type": "sensor_msgs/Image", "bounds": image_bounds(size)} if image else {}
    pub = zcast.Publisher(data, slot_size=size, slot_count=8, **kw)
    acks = zcast.Subscriber(ack)
    while pub.matched < 1 or acks.matched < 1:
        time.sleep(0.001)
    locs = []
    now = time.monotonic_ns
    for _ in range(count):
        t0 = now()
        if image:
            m = pub.loan_typed(timeout=None)
            stamp = m.header.stamp
            stamp.sec, stamp.nanosec = divmod(t0, 1000000000)
            m.header.frame_id = "camera00"
            m.encoding = "mono8"
            m.width, m.height, m.step = 1000, size // 1000, 1000
            m.set_len("data", size)
            del stamp
        else:
            m = pub.loan(size, timeout=None)
            STAMP.pack_into(m, 0, t0)
        i = m.info()
        locs.append((i.pool_dev, i.pool_ino, i.pool_offset))
        pub.publish(m, timeout=None)
        ack_msg = acks.receive(timeout=WAIT_S)
        if ack_msg is None:
            sys.exit("py_peer: no ack in %d s" % WAIT_S)
        ack_msg.release()
    out = sys.stdout
    for k, (d, n, o) in enumerate(locs):
        out.write("loc %d %d %d %d\n" % (k, d, n, o))
    acks.close()
    pub.close()


def receiver(image, data, ack, count):
    sub = zcast.Subscriber(data, type="sensor_msgs/Image" if image else None)
    acks = zcast.Publisher(ack)
    print("ready", flush=True)
    lat, locs = [], []
    now = time.monotonic_ns
    sink = 0
    for _ in range(count):
        m = sub.receive(timeout=WAIT_S)
        t = now()
        if m is None:
            sys.exit("py_peer: no message in %d s" % WAIT_S)
        if image:
            s = m.header.stamp
            stamp = s.sec * 1000000000 + s.nanosec
            px = m.data
            sink ^= int(px[-1]) if px.size else 0
            del px, s
        else:
            (stamp,) = STAMP.unpack_from(m, 0)
        lat.append(t - stamp)
        i = m.info()
        locs.append((i.pool_dev, i.pool_ino, i.pool_offset))
        m.release()
        acks.publish(acks.loan(64, timeout=None), timeout=None)
    out = sys.stdout
    for k, (x, (d, n, o)) in enumerate(zip(lat, locs)):
        out.write("lat %d\nloc %d %d %d %d\n" % (x, k, d, n, o))
    acks.close()
    sub.close()


def main():
    if len(sys.argv) != 7 or sys.argv[2] not in ("raw", "image"):
        sys.exit("usage: py_peer.py send|recv raw|image DATA ACK SIZE COUNT")
    role, kind, data, ack, size, count = sys.argv[1:]
    if role == "send":
        sender(kind == "image", data, ack, int(size), int(count))
    else:
        receiver(kind == "image", data, ack, int(count))


if __name__ == "__main__":
    main()
