"""Typed correctness seen from Python (issue 25): loans start at the declared defaults, a bad
encapsulation id and bytes after a valid message are Corrupt (as docs/PYTHON.md promises), and the
error names the member path."""
import os
import struct

import pytest

import zcast


def raw_publish(topic, payload):
    """Publishes payload as it is through an untyped publisher (it matches any typed topic)."""
    pub = zcast.Publisher(topic, slot_count=2)
    m = pub.loan(len(payload))
    memoryview(m)[:] = payload
    pub.publish(m)
    return pub


def string_msg(text):
    """std_msgs/String in a zcast slot: 4 reserved bytes, CDR_LE, the string."""
    b = text.encode() + b"\0"
    return bytes([0, 0, 0, 0, 0, 1, 0, 0]) + struct.pack("<I", len(b)) + b


def test_quaternion_loan_starts_at_its_defaults():
    with zcast.Publisher("/pq", type="geometry_msgs/Quaternion") as pub, \
            zcast.Subscriber("/pq", type="geometry_msgs/Quaternion") as sub:
        q = pub.loan_typed()
        assert (q.x, q.y, q.z, q.w) == (0.0, 0.0, 0.0, 1.0)
        pub.publish(q)
        got = sub.take()
        assert (got.x, got.y, got.z, got.w) == (0.0, 0.0, 0.0, 1.0)


def test_nested_defaults_in_a_loan():
    with zcast.Publisher("/pimu", type="sensor_msgs/Imu", bounds={"header": {"frame_id": 8}}) as pub:
        imu = pub.loan_typed()
        assert imu.orientation.w == 1.0 and imu.orientation.x == 0.0
        imu.release()


def test_bad_encapsulation_is_corrupt():
    with zcast.Subscriber("/pbe", type="std_msgs/String") as sub:
        msg = bytearray(string_msg("hi"))
        msg[5] = 0  # CDR_BE
        pub = raw_publish("/pbe", bytes(msg))
        with pytest.raises(zcast.Corrupt, match="encapsulation"):
            sub.take()
        pub.close()


def test_bytes_after_the_message_are_corrupt():
    with zcast.Subscriber("/ptail", type="std_msgs/String", queue_depth=4) as sub:
        pub = raw_publish("/ptail", string_msg("hi") + b"\x55")
        with pytest.raises(zcast.Corrupt, match="padding"):
            sub.take()
        pub.close()
        pub = raw_publish("/ptail", string_msg("hi"))
        assert sub.take().data == "hi"
        pub.close()


def test_error_names_the_member_path():
    with zcast.Subscriber("/pimu2", type="sensor_msgs/Imu") as sub:
        # stamp, an empty frame_id, then 4 bytes of orientation.x (8 are needed)
        cdr = struct.pack("<iiI", 1, 2, 1) + b"\0" + b"\0" * 3 + b"\0" * 4
        pub = raw_publish("/pimu2", bytes([0, 0, 0, 0, 0, 1, 0, 0]) + cdr)
        with pytest.raises(zcast.Corrupt, match=r"member orientation\.x:"):
            sub.take()
        pub.close()


def test_type_library_found_on_the_search_path():
    """A user's type without load_types(): found in a type library on $ZCAST_TYPE_PATH (the test
    types library exports zcast_types like the ones zcast_add_type_library builds)."""
    os.environ["ZCAST_TYPE_PATH"] = os.path.dirname(os.environ["ZT_PY_TYPES"])
    with zcast.Publisher("/pfixed", type="zcast_test/Fixed") as pub, \
            zcast.Subscriber("/pfixed", type="zcast_test/msg/Fixed") as sub:
        m = pub.loan_typed()
        m.a, m.b = 7, 2.5
        pub.publish(m)
        got = sub.take()
        assert (got.a, got.b) == (7, 2.5)
