"""zcast.Bag: a recording read in Python without replaying it (docs/PYTHON.md, "Recordings").
A typed sensor_msgs/Image topic and a raw topic are published here and recorded by `zcast record`
(the CLI, $ZT_ZCAST) into split lz4 files; every message comes back in order per topic, the Image
with its members and a numpy array of its pixels, the raw one as its bytes. Also: a zstd file on
its own, topic selection, and bad files raising zcast.Corrupt naming file and offset.
Registered by tests/record2.cmake (it needs the CLI)."""
import os
import signal
import subprocess
import time

import numpy as np
import pytest

import zcast

ZCAST = os.environ.get("ZT_ZCAST")
W, H, N = 40, 30, 60
IMAGE_BOUNDS = {"header": {"frame_id": 16}, "encoding": 8, "data": W * H * 3}


def pixels(i):
    return np.random.default_rng(i).integers(0, 256, W * H * 3, dtype=np.uint8)  # incompressible


def raw_bytes(i):
    return bytes((i * 31 + k) & 0xFF for k in range(100 + i))


def record(out, *args):
    """Publishes N Images on /bag/image and N raw messages on /bag/raw while `zcast record`
    records /bag/* losslessly into `out`; returns when the recorder has exited."""
    if not ZCAST:
        pytest.skip("ZT_ZCAST not set (run through ctest)")
    with zcast.Publisher("/bag/image", type="sensor_msgs/Image", bounds=IMAGE_BOUNDS) as img_pub, \
            zcast.Publisher("/bag/raw", slot_size=512, slot_count=8) as raw_pub:
        # a queue of 1 (lossless): the recorder takes each message before the next is published,
        # so it looks at the file's size (and splits) between any two messages
        rec = subprocess.Popen([ZCAST, "record", "-q", "--lossless", "--queue", "1", "-o", out] +
                               list(args) +
                               ["/bag/*"], stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while (img_pub.matched < 1 or raw_pub.matched < 1) and time.monotonic() < deadline:
            assert rec.poll() is None, rec.stderr.read()
            time.sleep(0.02)
        assert img_pub.matched == 1 and raw_pub.matched == 1, "the recorder did not subscribe"
        for i in range(1, N + 1):
            m = img_pub.loan_typed(timeout=20)
            m.header = {"stamp": {"sec": i, "nanosec": i * 1000}, "frame_id": "cam%d" % i}
            m.encoding = "rgb8"
            m.width, m.height, m.step = W, H, 3 * W
            m.data = pixels(i)
            img_pub.publish(m, timeout=20)
            r = raw_pub.loan(len(raw_bytes(i)), timeout=20)
            memoryview(r)[:] = raw_bytes(i)
            raw_pub.publish(r, timeout=20)
        rec.send_signal(signal.SIGINT)  # it records what is queued, then closes its file
        _, err = rec.communicate(timeout=60)
        assert rec.returncode == 0, err


def check_messages(bag):
    seen = {"/bag/image": [], "/bag/raw": []}
    for m in bag:
        seen[m.topic].append(m)
        if m.topic == "/bag/image":
            i = len(seen[m.topic])
            assert m.encoding == "cdr" and m.type_name == "sensor_msgs/msg/Image"
            msg = m.message
            assert msg.msg_type == zcast.MsgType("sensor_msgs/Image")
            assert (msg.header.stamp.sec, msg.header.stamp.nanosec) == (i, i * 1000)
            assert msg.header.frame_id == "cam%d" % i and msg.encoding == "rgb8"
            assert (msg.width, msg.height, msg.step) == (W, H, 3 * W)
            data = msg.data
            assert isinstance(data, np.ndarray) and data.dtype == np.uint8
            assert not data.flags.writeable and (data == pixels(i)).all()
            assert msg.to_dict()["width"] == W
        else:
            i = len(seen[m.topic])
            assert m.encoding == "zcast.raw" and m.type_name == "" and m.message.msg_type is None
            assert bytes(memoryview(m.message)) == raw_bytes(i)
            assert (np.frombuffer(m.message, dtype=np.uint8) == np.frombuffer(raw_bytes(i),
                                                                             np.uint8)).all()
    for topic, msgs in seen.items():
        assert len(msgs) == N, topic
        assert [m.sequence for m in msgs] == list(range(1, N + 1)), topic
        assert all(a.publish_time_ns <= b.publish_time_ns for a, b in zip(msgs, msgs[1:])), topic
    return seen


def test_split_recording_typed_and_raw(tmp_path):
    out = str(tmp_path / "rec")
    record(out, "--compression", "lz4", "--chunk-size", "8192", "--max-bytes", "40000")
    bag = zcast.Bag(out)
    assert len(bag.files) >= 4, bag.files  # split: the pieces are read in their numbered order
    assert [os.path.basename(f) for f in bag.files] == ["rec_%d.mcap" % k
                                                        for k in range(len(bag.files))]
    seen = check_messages(bag)
    assert bag.topics() == {
        "/bag/image": {"type": "sensor_msgs/msg/Image", "encoding": "cdr", "messages": N,
                       "typed": True},
        "/bag/raw": {"type": "", "encoding": "zcast.raw", "messages": N, "typed": False}}
    # a message outlives its file and the Bag: it owns a copy of its bytes
    first = seen["/bag/image"][0].message
    del bag, seen
    assert first.width == W and (first.data == pixels(1)).all()
    with pytest.raises(zcast.InvalidArgument):
        first.info()  # no pool: a recorded message


def test_one_zstd_file_and_topic_selection(tmp_path):
    out = str(tmp_path / "z")
    record(out, "--compression", "zstd")
    path = os.path.join(out, "z_0.mcap")
    assert zcast.Bag(path).files == [path]
    check_messages(zcast.Bag(path))
    raw = [m for m in zcast.Bag(out, topics=["/bag/raw"])]
    assert [m.topic for m in raw] == ["/bag/raw"] * N
    with zcast.BagFile(path) as f:
        assert f.summary["compression"] == "zstd" and f.summary["messages"] == 2 * N
        assert not f.summary["truncated"]
        img = [c for c in f.channels if c["topic"] == "/bag/image"][0]
        assert img["schema_encoding"] == "ros2msg" and b"MSG: std_msgs/Header" in img["schema"]
        assert img["metadata"]["topic_type_hash"] == zcast.MsgType("sensor_msgs/Image").hash


def test_bad_files_raise_naming_file_and_offset(tmp_path):
    out = str(tmp_path / "b")
    record(out, "--compression", "none")
    good = open(os.path.join(out, "b_0.mcap"), "rb").read()
    foreign = tmp_path / "foreign.mcap"
    foreign.write_bytes(b"not an MCAP file at all, just text\n" * 4)
    with pytest.raises(zcast.Corrupt, match=str(foreign)):
        list(zcast.Bag(str(foreign)))
    # a byte of an Image's pixels flipped inside the data section: the chunk's CRC notices
    bad = bytearray(good)
    at = bad.find(bytes(pixels(5)[:64]))
    assert at > 0
    bad[at + 10] ^= 0xFF
    corrupt = tmp_path / "corrupt.mcap"
    corrupt.write_bytes(bytes(bad))
    with pytest.raises(zcast.Corrupt, match=r"corrupt\.mcap: \d+: "):
        list(zcast.Bag(str(corrupt)))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError):
        zcast.Bag(str(empty))
