"""Typed messages through the generated introspection tables: sensor_msgs/Image from C read in
Python and sent back to C (checked by the C reader views), nested messages, arrays and sequences
of primitives, strings and messages (zcast_test types loaded with zcast.load_types), bounds and
their errors."""
import os

import numpy as np
import pytest

import zcast
from conftest import finish, location, peer, read_line

W, H, N = 32, 8, 5
IMAGE_BOUNDS = {"header": {"frame_id": 16}, "encoding": 8, "data": W * H * 3}


def pixels(i):
    return ((np.arange(W * H * 3, dtype=np.uint32) * 7 + i) & 0xFF).astype(np.uint8)


def test_image_from_c_read_in_python_and_back():
    back = peer("image-sub", "/img_back", N)
    read_line(back, "ready")
    with zcast.Subscriber("/img", type="sensor_msgs/Image", queue_depth=8) as sub, \
            zcast.Publisher("/img_back", type="sensor_msgs/Image", bounds=IMAGE_BOUNDS) as pub:
        src = peer("image-pub", "/img", N, W, H)
        seen = {}
        for i in range(1, N + 1):
            img = sub.receive(timeout=20)
            assert img.header.stamp.sec == i and img.header.stamp.nanosec == i * 1000
            assert img.header.frame_id == "cam%d" % i and img.encoding == "rgb8"
            assert (img.width, img.height, img.step) == (W, H, 3 * W)
            data = img.data
            assert data.dtype == np.uint8 and data.shape == (W * H * 3,)
            assert not data.flags.writeable
            assert (data == pixels(i)).all()
            seen[i] = location(img)
            # back to C: a loan at exact bounds (nothing moves at publish), filled in place
            out = pub.loan_typed({"header": {"frame_id": len(img.header.frame_id)},
                                  "encoding": 4, "data": data.size}, timeout=20)
            out.header = {"stamp": {"sec": i, "nanosec": i * 1000}, "frame_id": "cam%d" % i}
            out.encoding = "rgb8"
            out.width, out.height, out.step = W, H, 3 * W
            px = out.set_len("data", data.size)
            assert px.flags.writeable
            px.reshape(H, W, 3)[:] = data.reshape(H, W, 3)
            del px, data
            img.release()
            pub.publish(out, timeout=20)
        sent = finish(src)
        assert "ok %d" % N in finish(back)
    want = {int(f[1]): tuple(map(int, f[2:5])) for f in
            (line.split() for line in sent.splitlines()) if f and f[0] == "loc"}
    assert seen == want  # read in place: the C publisher's pool, same offsets


def test_image_in_python_only_and_numpy_export_rule():
    with zcast.Publisher("/im", type="sensor_msgs/Image", bounds=IMAGE_BOUNDS) as pub, \
            zcast.Subscriber("/im", type="sensor_msgs/Image") as sub:
        img = pub.loan_typed()
        img.data = pixels(3)
        arr = img.data
        with pytest.raises(zcast.BufferExported):
            pub.publish(img)
        del arr
        img.header.frame_id = "f"
        pub.publish(img)
        with pytest.raises(zcast.Stale):
            img.width
        got = sub.take()
        assert (got.data == pixels(3)).all() and got.header.frame_id == "f"
        assert got.msg_type == zcast.MsgType("sensor_msgs/msg/Image")
        with pytest.raises(zcast.InvalidArgument):
            got.width = 1  # received messages are read-only


@pytest.fixture(scope="module")
def test_types():
    lib = os.environ.get("ZT_PY_TYPES")
    if not lib:
        pytest.skip("ZT_PY_TYPES not set (run through ctest)")
    names = zcast.load_types(lib)
    assert "zcast_test/msg/Corner" in names
    return names


CORNER_BOUNDS = {"values": 4, "name": 16, "few": 4, "names": (3, 6), "tags": 5, "vecs": 2,
                 "pfs": (3, {"name": 4}), "switches": 3}


def fill_corner(c, k):
    c.small = 200 + k
    c.after_uint8 = {"sec": -k, "nanosec": k}
    c.values = [0.5 * k, -1.0]
    c.flag = True
    c.letter = 65 + k
    c.name = "corner%d" % k
    c.short_name = "eightchr"
    c.triple = [1, -2, 3]
    c.few = [k, k + 1, k + 2]
    c.names = ["a", "bb", "ccc%d" % k]
    c.tags = ["t1", "t2"]
    c.raw = 255
    c.vecs = [{"x": 1.0, "y": 2.0, "z": float(k)}]
    c.pfs = [{"name": "x", "offset": 0, "datatype": 7, "count": 1},
             {"name": "y", "offset": 4, "datatype": 7, "count": 1}]
    c.big = -(1 << 62)
    c.f = 1.5
    c.switches = [True, False, True]


def corner_dict(k):
    return {"small": 200 + k, "after_uint8": {"sec": -k, "nanosec": k}, "values": [0.5 * k, -1.0],
            "flag": True, "letter": 65 + k, "name": "corner%d" % k, "short_name": "eightchr",
            "triple": [1, -2, 3], "few": [k, k + 1, k + 2], "names": ["a", "bb", "ccc%d" % k],
            "tags": ["t1", "t2"], "raw": 255, "vecs": [{"x": 1.0, "y": 2.0, "z": float(k)}],
            "pfs": [{"name": "x", "offset": 0, "datatype": 7, "count": 1},
                    {"name": "y", "offset": 4, "datatype": 7, "count": 1}],
            "big": -(1 << 62), "f": 1.5, "switches": [True, False, True]}


def as_lists(d):
    if isinstance(d, dict):
        return {k: as_lists(v) for k, v in d.items()}
    if isinstance(d, list):
        return [as_lists(v) for v in d]
    if isinstance(d, np.ndarray):
        return d.tolist()
    return d


def test_nested_sequences_strings_and_messages(test_types):
    bounds = {"corner": CORNER_BOUNDS, "pair": CORNER_BOUNDS, "some": (2, CORNER_BOUNDS)}
    with zcast.Publisher("/nested", type="zcast_test/Nested", bounds=bounds) as pub, \
            zcast.Subscriber("/nested", type="zcast_test/msg/Nested") as sub:
        for shorter in (False, True):  # at the bounds, and shorter (compaction moves members)
            n = pub.loan_typed()
            n.head, n.tail = 1, 2
            fill_corner(n.corner, 0)
            for k, c in enumerate(n.pair):
                fill_corner(c, k + 1)
            some = n.set_len("some", 1 if shorter else 2)
            for k, c in enumerate(some):
                fill_corner(c, k + 3)
            n.stamps = [{"sec": s, "nanosec": 0} for s in (7, 8, 9)]
            if shorter:
                n.corner.name = ""
                n.corner.values = []
            pub.publish(n)
            got = as_lists(sub.take().to_dict())
            corner = corner_dict(0)
            if shorter:
                corner.update(name="", values=[])
            assert got == {"head": 1, "corner": corner, "pair": [corner_dict(1), corner_dict(2)],
                           "some": [corner_dict(3 + k) for k in range(1 if shorter else 2)],
                           "stamps": [{"sec": s, "nanosec": 0} for s in (7, 8, 9)],
                           "tail": 2}


def test_dtypes_of_members(test_types):
    with zcast.Publisher("/dt", type="zcast_test/Corner", bounds=CORNER_BOUNDS) as pub, \
            zcast.Subscriber("/dt", type="zcast_test/Corner") as sub:
        c = pub.loan_typed()
        fill_corner(c, 1)
        pub.publish(c)
        r = sub.take()
        assert r.values.dtype == np.float64 and r.triple.dtype == np.int16
        assert r.few.dtype == np.uint32 and r.switches.dtype == np.bool_
        assert r.values.ctypes.data % 8 == 0  # in place and naturally aligned
        assert isinstance(r.name, str) and isinstance(r.pfs[0].name, str)


def test_bounds_and_value_errors(test_types):
    with pytest.raises(zcast.InvalidArgument, match="unknown message type"):
        zcast.Publisher("/e", type="nope/Nothing")
    with pytest.raises(zcast.InvalidArgument, match="data is unbounded"):
        zcast.Publisher("/e", type="sensor_msgs/Image", bounds={"header": {"frame_id": 4},
                                                                "encoding": 4})
    with pytest.raises(zcast.InvalidArgument, match="no member 'dta'"):
        zcast.Publisher("/e", type="sensor_msgs/Image", bounds=dict(IMAGE_BOUNDS, dta=1))
    with pytest.raises(zcast.InvalidArgument, match="short_name"):
        zcast.Publisher("/e", type="zcast_test/Corner", bounds=dict(CORNER_BOUNDS, short_name=9))
    with zcast.Publisher("/e", type="sensor_msgs/Image", bounds=IMAGE_BOUNDS) as pub:
        with pytest.raises(zcast.InvalidArgument):
            pub.loan_typed(dict(IMAGE_BOUNDS, data=W * H * 3 + 1))  # above the publisher's
        with pytest.raises(zcast.InvalidArgument):
            pub.loan(10)  # typed publishers loan typed
        img = pub.loan_typed()
        with pytest.raises(zcast.InvalidArgument, match="frame_id"):
            img.header.frame_id = "x" * 17
        with pytest.raises(zcast.InvalidArgument, match="data"):
            img.data = np.zeros(W * H * 3 + 1, np.uint8)
        with pytest.raises(zcast.InvalidArgument):
            img.set_len("data", W * H * 3 + 1)
        with pytest.raises(OverflowError):
            img.width = -1
        with pytest.raises(OverflowError):
            img.is_bigendian = 256
        with pytest.raises(TypeError):
            img.width = 1.5
        with pytest.raises(AttributeError):
            img.nothing = 1
        img.release()


def test_msgtype_introspection():
    t = zcast.MsgType("sensor_msgs/Image")
    assert t.name == "sensor_msgs/msg/Image"
    assert t.hash.startswith("RIHS01_d31d41a9a4c4bc8e")
    names = [f[0] for f in t.fields]
    assert names == ["header", "height", "width", "encoding", "is_bigendian", "step", "data"]
    assert t.fields[6][1:3] == ("uint8", "sequence")
    assert t.fields[0][5] == zcast.MsgType("std_msgs/Header")
    assert "sensor_msgs/msg/PointCloud2" in zcast.types()


def test_pointcloud_sequence_of_messages():
    bounds = {"header": {"frame_id": 8}, "fields": (4, {"name": 9}), "data": 64}
    with zcast.Publisher("/pc", type="sensor_msgs/PointCloud2", bounds=bounds) as pub, \
            zcast.Subscriber("/pc", type="sensor_msgs/PointCloud2") as sub:
        pc = pub.loan_typed()
        pc.fields = [{"name": n, "offset": 4 * k, "datatype": 7, "count": 1}
                     for k, n in enumerate("xyz")]
        pc.point_step, pc.width, pc.height = 12, 4, 1
        pc.data = np.arange(12, dtype=np.float32).view(np.uint8)
        pc.is_dense = True
        pub.publish(pc)
        r = sub.take()
        assert [f.name for f in r.fields] == ["x", "y", "z"]
        assert [f.offset for f in r.fields] == [0, 4, 8]
        assert (r.data.view(np.float32) == np.arange(12)).all() and r.is_dense is True


def test_malformed_message_is_refused_and_released():
    """An untyped member (it matches any type) publishes bytes that are no valid Image: take
    raises Corrupt (naming the type), never reads outside the message, and drops it."""
    with zcast.Subscriber("/bad", type="sensor_msgs/Image") as sub, \
            zcast.Publisher("/bad", slot_count=2) as raw:
        m = raw.loan(16)
        memoryview(m)[:] = bytes([0, 0, 0, 0, 0, 1, 0, 0]) + b"\xff" * 8  # header, then garbage
        raw.publish(m)
        with pytest.raises(zcast.Corrupt, match="sensor_msgs/msg/Image"):
            sub.take()
        assert zcast.topic_stat("/bad")["slots_free"] == 2


def test_raw_member_bytes_without_copy():
    with zcast.Publisher("/raw", type="sensor_msgs/Image", bounds=IMAGE_BOUNDS) as pub, \
            zcast.Subscriber("/raw", type="sensor_msgs/Image") as sub:
        img = pub.loan_typed()
        img.header.frame_id = "frame"
        with img.header.raw("frame_id") as b:
            b[0:1] = b"F"  # in place; the length stays
        img.data = bytes(range(6))
        with img.raw("data") as d:
            assert bytes(d) == bytes(range(6))
        with pytest.raises(zcast.InvalidArgument):
            img.raw("width")
        pub.publish(img)
        got = sub.take()
        with got.header.raw("frame_id") as b:
            assert bytes(b) == b"Frame" and b.readonly
        assert got.header.frame_id == "Frame"
        with got.raw("data") as d:
            assert d.readonly and bytes(d) == bytes(range(6))


def test_publish_retry_after_queue_full_sends_the_compacted_loan():
    with zcast.Publisher("/retry", type="std_msgs/String", bounds={"data": 32}) as pub, \
            zcast.Subscriber("/retry", type="std_msgs/String", queue_depth=1) as sub:
        first = pub.loan_typed()
        first.data = "one"
        pub.publish(first)
        m = pub.loan_typed()
        m.data = "two"  # shorter than its bound: publish moves bytes
        with pytest.raises(zcast.QueueFull):
            pub.publish(m)
        with pytest.raises(zcast.Stale, match="compacted"):
            m.data  # members moved: no stale offsets are used
        assert sub.take().data == "one"
        pub.publish(m)  # published as compacted, not compacted twice
        assert sub.take().data == "two"


def test_fixed_size_types_need_no_bounds(test_types):
    with zcast.Publisher("/fx", type="zcast_test/Fixed") as pub, \
            zcast.Subscriber("/fx", type="zcast_test/Fixed") as sub:
        m = pub.loan_typed()
        m.a, m.b, m.c = 255, -2.5, 65535
        m.v = {"x": 1.0, "y": -1.0, "z": 0.25}
        pub.publish(m)
        assert sub.take().to_dict() == {"a": 255, "b": -2.5, "c": 65535,
                                        "v": {"x": 1.0, "y": -1.0, "z": 0.25}}
