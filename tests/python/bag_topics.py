"""zcast.Bag(topics=...) takes the patterns `zcast play --topics` takes: names or shell globs, in a
list or one comma-separated string, matched as the CLI matches them (POSIX fnmatch: "[^a]" is a
negation there, as it is not for Python's fnmatch). Three topics published by the CLI, recorded by
it. Registered by tests/record-leftovers.cmake (it needs the CLI)."""
import os
import subprocess
import time

import pytest

import zcast
from conftest import shm_files

ZCAST = os.environ.get("ZT_ZCAST")
TOPICS = ["/g/a", "/g/b", "/h/c"]


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    if not ZCAST:
        pytest.skip("ZT_ZCAST not set (run through ctest)")
    out = str(tmp_path_factory.mktemp("globs") / "rec")
    dom = "pyglob-%d" % os.getpid()  # the module's (conftest's domains are per test)
    env = dict(os.environ, ZCAST_DOMAIN=dom)
    pubs = [subprocess.Popen([ZCAST, "pub", t, "hello", "--rate", "100", "--history", "20"],
                             stdout=subprocess.DEVNULL, env=env) for t in TOPICS]
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            listed = subprocess.run([ZCAST, "list"], capture_output=True, text=True, env=env).stdout
            if all(t in listed for t in TOPICS):
                break
            time.sleep(0.05)
        subprocess.run([ZCAST, "record", "-q", "-o", out, "--duration", "0.5"], check=True,
                       timeout=60, env=env)
    finally:
        for p in pubs:
            p.kill()
            p.wait()
        for f in shm_files(dom):
            os.unlink(os.path.join("/dev/shm", f))
    assert set(zcast.Bag(out).topics()) == set(TOPICS)
    return out


def kept(path, topics):
    return sorted({m.topic for m in zcast.Bag(path, topics=topics)})


@pytest.mark.parametrize("topics, want", [
    (["/g/*"], ["/g/a", "/g/b"]),
    ("/g/a,/h/*", ["/g/a", "/h/c"]),
    (["/?/[bc]"], ["/g/b", "/h/c"]),
    (["/g/[^a]"], ["/g/b"]),     # POSIX negation (Python's fnmatch: '^' or 'a', /g/a)
    (["/g/[!a]"], ["/g/b"]),
    (["/g/\\a"], ["/g/a"]),      # an escaped character (Python's fnmatch: a literal '\')
    (["/h/c"], ["/h/c"]),
    (["/x/*"], []),
    ([], []),
    (None, TOPICS),
])
def test_patterns_as_the_cli(recording, topics, want):
    assert kept(recording, topics) == want


def test_empty_pattern_refused(recording):
    for bad in ("", "/g/a,", ",/g/a", "/g/a,,/h/c", ["/g/a", ""]):
        with pytest.raises(ValueError):
            zcast.Bag(recording, topics=bad)


def test_same_as_zcast_play(recording):
    """zcast play --topics PATTERN publishes the topics zcast.Bag keeps with it."""
    pat = "/g/[^a],/h/*"
    rec = recording + "-replay"
    r = subprocess.Popen([ZCAST, "record", "-q", "--lossless", "-o", rec])
    try:
        subprocess.run([ZCAST, "play", "-q", "--wait-for-subscribers", "1", "--topics", pat,
                        recording], check=True, timeout=60)
    finally:
        r.send_signal(2)
        r.wait(timeout=60)
    assert sorted(zcast.Bag(rec).topics()) == kept(recording, pat) == ["/g/b", "/h/c"]
