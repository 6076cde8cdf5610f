"""Across processes and languages, with checksums (tests/harness.h's frames) and the zero-copy
proof: publisher and subscriber report the same pool file (device, inode) and offset for every
message, so its bytes were written once and read in place."""
import pytest

import zcast
from conftest import finish, location, peer, python, read_line, zt_fill, zt_verify

COUNT = 20
SIZE = 4096


def locations(lines):
    """{seq: (dev, ino, offset)} from a peer's `loc SEQ DEV INO OFF` lines."""
    out = {}
    for line in lines.splitlines():
        f = line.split()
        if f and f[0] == "loc":
            out[int(f[1])] = tuple(int(x) for x in f[2:5])
    return out


def test_c_to_python():
    with zcast.Subscriber("/c2py", queue_depth=8) as sub:
        p = peer("pub", "/c2py", COUNT, SIZE)
        got = {}
        for seq in range(1, COUNT + 1):
            msg = sub.receive(timeout=20)
            assert msg is not None
            assert zt_verify(memoryview(msg)) == (seq, 7)
            got[seq] = location(msg)
            msg.release()
        sent = locations(finish(p))
        assert got == sent


def test_python_to_c():
    p = peer("sub", "/py2c", COUNT)
    read_line(p, "ready")
    sent = {}
    with zcast.Publisher("/py2c", slot_size=SIZE, slot_count=8) as pub:
        for seq in range(1, COUNT + 1):
            m = pub.loan(SIZE, timeout=20)
            with memoryview(m) as mv:
                zt_fill(mv, seq, 7)
            sent[seq] = location(m)
            pub.publish(m, timeout=20)
        out = finish(p)
    assert "ok %d" % COUNT in out
    assert locations(out) == sent


PY_PUBLISHER = """
import sys, zcast
sys.path.insert(0, sys.argv[1])
from conftest import zt_fill, location
n, size = int(sys.argv[2]), int(sys.argv[3])
with zcast.Publisher("/py2py", slot_size=size, slot_count=8) as pub:
    while pub.matched < 1:
        import time; time.sleep(0.001)
    for seq in range(1, n + 1):
        m = pub.loan(size, timeout=20)
        with memoryview(m) as mv:
            zt_fill(mv, seq, 5)
        print("loc", seq, *location(m), flush=True)
        pub.publish(m, timeout=20)
"""


def test_python_to_python_across_processes():
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    with zcast.Subscriber("/py2py", queue_depth=4) as sub:
        p = python(PY_PUBLISHER, here, COUNT, SIZE)
        got = {}
        for seq in range(1, COUNT + 1):
            with sub.receive(timeout=20) as msg:
                assert zt_verify(memoryview(msg)) == (seq, 5)
                got[seq] = location(msg)
        assert got == locations(finish(p))
