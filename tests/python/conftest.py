"""Shared fixtures of the Python binding's tests: a unique zcast domain per test (removed with its
/dev/shm files afterwards), the C peer (peer.c) and checksummed frames like tests/harness.h's."""
import itertools
import os
import re
import subprocess
import sys

import pytest

import zcast

PEER = os.environ.get("ZT_PY_PEER")
_count = itertools.count()


def shm_files(domain):
    prefix = "zcast.%s." % domain
    return [f for f in os.listdir("/dev/shm") if f.startswith(prefix)]


@pytest.fixture(autouse=True)
def domain(request, monkeypatch):
    """Every test gets its own domain (also in $ZCAST_DOMAIN for the processes it starts)."""
    name = re.sub(r"[^A-Za-z0-9]", "", request.node.name)[:10]
    dom = "py%s-%d-%d" % (name, os.getpid(), next(_count))
    monkeypatch.setenv("ZCAST_DOMAIN", dom)
    yield dom
    import gc
    gc.collect()
    for f in shm_files(dom):
        try:
            os.unlink(os.path.join("/dev/shm", f))
        except FileNotFoundError:
            pass


def spawn(args, **kw):
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def peer(*args):
    """Starts the C peer (tests/python/peer.c)."""
    if not PEER:
        pytest.skip("ZT_PY_PEER not set (run through ctest)")
    return spawn([PEER] + [str(a) for a in args])


def python(script, *args):
    """Starts a Python process running `script` with this one's environment."""
    return spawn([sys.executable, "-c", script] + [str(a) for a in args])


def read_line(proc, want):
    """The next line of proc's stdout that starts with `want` (fails if the process ends)."""
    for line in proc.stdout:
        if line.startswith(want):
            return line.split()
    out, err = proc.communicate(timeout=30)
    raise AssertionError("peer ended without %r (rc %s): %s" % (want, proc.returncode, err))


def finish(proc):
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, "rc %s\nstdout: %s\nstderr: %s" % (proc.returncode, out, err)
    return out


# ---- checksummed frames, byte-compatible with tests/harness.h (zt_fill / zt_verify) ----
M64 = (1 << 64) - 1


def zt_sum(data, seed):
    h = seed ^ 0x9E3779B97F4A7C15
    n8 = len(data) // 8 * 8
    for (w,) in __import__("struct").iter_unpack("<Q", bytes(data[:n8])):
        h = ((h ^ w) * 0x100000001B3) & M64
    for b in bytes(data[n8:]):
        h = ((h ^ b) * 0x100000001B3) & M64
    return h


def zt_fill(buf, seq, pub):
    """Fills a writable buffer of n >= 32 bytes as zt_fill does."""
    import struct
    n = len(buf)
    body = bytes((seq * 31 + i * 7 + pub) & 0xFF for i in range(32, n))
    buf[32:n] = body
    buf[0:32] = struct.pack("<QQQQ", seq, pub, n, zt_sum(body, seq ^ ((pub << 32) & M64)))


def zt_verify(buf):
    """(seq, pub) of an intact frame, else None."""
    import struct
    if len(buf) < 32:
        return None
    seq, pub, n, s = struct.unpack("<QQQQ", bytes(buf[:32]))
    if n != len(buf) or s != zt_sum(buf[32:], seq ^ ((pub << 32) & M64)):
        return None
    return seq, pub


def location(msg):
    i = msg.info()
    return (i.pool_dev, i.pool_ino, i.pool_offset)


__all__ = ["zcast"]
