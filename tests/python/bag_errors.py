"""zcast.Bag / zcast.BagFile errors (docs/PYTHON.md, "Recordings"): a failure of the system raises
the OSError of its errno (a missing file: FileNotFoundError), bad content zcast.Corrupt naming file
and offset; a file cut shorter by another process while it is read raises zcast.Corrupt ("cut while
being read"), it does not kill the interpreter (SIGBUS). The recordings are written by
tests/record/play_shrink_peer ($ZT_SHRINK_PEER). Registered by tests/record-read.cmake."""
import os
import re
import signal
import subprocess
import sys

import pytest

import zcast

PEER = os.environ.get("ZT_SHRINK_PEER")


def test_missing_file_is_file_not_found(tmp_path):
    missing = str(tmp_path / "missing.mcap")
    with pytest.raises(FileNotFoundError) as e:
        zcast.Bag(missing)
    assert e.value.filename == missing
    with pytest.raises(FileNotFoundError) as e:
        zcast.BagFile(missing)
    assert missing in str(e.value)
    assert not isinstance(e.value, zcast.Corrupt)


def test_directory_as_file_is_os_error(tmp_path):
    with pytest.raises(OSError) as e:
        zcast.BagFile(str(tmp_path))
    assert not isinstance(e.value, zcast.Corrupt)


def test_bad_content_stays_corrupt(tmp_path):
    foreign = tmp_path / "foreign.mcap"
    foreign.write_bytes(b"not a recording at all" * 10)
    with pytest.raises(zcast.Corrupt, match=r"foreign\.mcap: 0: not an MCAP file"):
        zcast.BagFile(str(foreign))
    with pytest.raises(zcast.Corrupt):
        list(zcast.Bag(str(foreign)))


# Run in a child interpreter: a SIGBUS there is a failed assertion here, not a lost test run.
READER = r"""
import os, sys, zcast
path = sys.argv[1]
n = 0
try:
    with zcast.BagFile(path) as f:
        for _, seq, _, _, msg in f:
            assert seq == n and len(memoryview(msg)) == 16384
            n += 1
            if n == 2:
                os.truncate(path, 4096)
except zcast.Corrupt as e:
    print("Corrupt after %d: %s" % (n, e))
    sys.exit(3)
print("read %d" % n)
"""


@pytest.mark.parametrize("comp", ["none", "zstd"])
def test_cut_while_reading(tmp_path, comp):
    if not PEER:
        pytest.skip("ZT_SHRINK_PEER not set (run through ctest)")
    path = str(tmp_path / ("%s.mcap" % comp))
    subprocess.run([PEER, "write", path, comp], check=True)
    r = subprocess.run([sys.executable, "-c", READER, path], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode != -signal.SIGBUS, "killed by SIGBUS: " + r.stderr
    assert r.returncode == 3, (r.returncode, r.stdout, r.stderr)
    # cut after message 2: uncompressed, message 3 is past the cut; zstd, the chunk in memory
    # (messages 0 to 3) still reads, the next one is past it
    assert re.match(r"Corrupt after [2-4]: %s: [0-9]+: " % re.escape(path), r.stdout), r.stdout
    assert "cut while being read" in r.stdout, r.stdout
