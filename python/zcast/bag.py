"""Reading recordings for analysis (docs/PYTHON.md, "Recordings"): the messages of a `zcast record`
directory (its numbered pieces in order) or of one .mcap file, each with its topic and times and as a
zcast.Message: typed channels through the same member views as received messages (numpy arrays),
raw ones as bytes (memoryview / numpy.frombuffer). Nothing is published.

The files are read by zcast's own MCAP reader (tools/bag, in the extension): zstd and lz4 chunks,
every record checked, bad input (also a file cut shorter while it is read) raised as
zcast.Corrupt("file: offset: what"); a failure of the system (a missing file, a read error) as the
OSError of its errno (FileNotFoundError, ...)."""
import os
import re

from ._zcast import MsgType, BagFile

__all__ = ["Bag", "BagMessage", "BagFile"]


class BagMessage:
    """One recorded message: topic, message (zcast.Message, read-only), log_time_ns,
    publish_time_ns, sequence, type_name ('' for raw topics) and encoding ('cdr' or 'zcast.raw')."""

    __slots__ = ("topic", "message", "log_time_ns", "publish_time_ns", "sequence", "type_name",
                 "encoding")

    def __init__(self, topic, message, log_time_ns, publish_time_ns, sequence, type_name, encoding):
        self.topic = topic
        self.message = message
        self.log_time_ns = log_time_ns
        self.publish_time_ns = publish_time_ns
        self.sequence = sequence
        self.type_name = type_name
        self.encoding = encoding

    def __repr__(self):
        return "<BagMessage %s %s t=%d #%d>" % (self.topic, self.type_name or self.encoding,
                                                self.log_time_ns, self.sequence)


def _piece_number(name):
    """rosbag2's piece number: the digits after the last '_' of NAME_N.mcap (-1 if none)."""
    m = re.search(r"_(\d+)\.mcap$", name)
    return int(m.group(1)) if m else -1


def pieces(path):
    """The files of a recording: a file as is, or a directory's *.mcap in their numbered order.
    A path that is not there raises FileNotFoundError now, not when the messages are read."""
    if not os.path.isdir(path):
        os.stat(path)  # OSError of its errno (FileNotFoundError, PermissionError, ...)
        return [path]
    names = [n for n in os.listdir(path) if n.endswith(".mcap")]
    if not names:
        raise FileNotFoundError("%s: no .mcap files in this directory" % path)
    names.sort(key=lambda n: (_piece_number(n), n))
    return [os.path.join(path, n) for n in names]


def _channel_type(ch):
    """The MsgType of a cdr channel whose type zcast knows with the recorded RIHS01 hash (shipped
    or from a type library), else None: its messages stay raw CDR bytes."""
    if ch["message_encoding"] != "cdr":
        return None
    meta = ch["metadata"]
    name = meta.get("zcast.type_name") or ch["schema_name"]
    try:
        t = MsgType(name) if name else None
    except ValueError:  # zcast.InvalidArgument: not known here, its messages stay raw bytes
        return None
    want = meta.get("topic_type_hash")
    return t if not want or want == t.hash else None


def _patterns(topics):
    """topics as `zcast play --topics` takes them: names or shell globs, in a list or one
    comma-separated string (None: every topic)."""
    if topics is None:
        return None
    pats = topics.split(",") if isinstance(topics, str) else [str(p) for p in topics]
    if "" in pats:
        raise ValueError("topics: %r names no topic (want NAME_OR_GLOB[,...])" % (topics,))
    return pats


class Bag:
    """Bag(path, topics=None): iterate a recording's messages in file order, piece after piece.

    path: a `zcast record` directory or one .mcap file. topics: the topics to keep (None: all),
    names or shell globs matched as `zcast play --topics` matches them, in a list or one
    comma-separated string. Iterating yields BagMessage; `topics()` summarizes what the recording
    holds."""

    def __init__(self, path, topics=None):
        self.path = path
        self.files = pieces(path)
        self._want = _patterns(topics)

    def _wanted(self, topic):
        return self._want is None or any(BagFile.topic_matches(p, topic) for p in self._want)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def topics(self):
        """{topic: {'type': name or '', 'encoding': ..., 'messages': n, 'typed': bool}} over all
        pieces (typed: its messages come with member views here)."""
        out = {}
        for path in self.files:
            with BagFile(path) as f:
                for ch in f.channels:
                    t = out.setdefault(ch["topic"], {
                        "type": ch["metadata"].get("zcast.type_name") or ch["schema_name"] or "",
                        "encoding": ch["message_encoding"], "messages": 0,
                        "typed": _channel_type(ch) is not None})
                    t["messages"] += ch["messages"]
        return out

    def __iter__(self):
        for path in self.files:
            with BagFile(path) as f:
                chans = {}
                for ch in f.channels:
                    wanted = self._wanted(ch["topic"])
                    t = _channel_type(ch) if wanted else None
                    if t is not None:
                        f.set_type(ch["id"], t)
                    chans[ch["id"]] = (wanted, ch["topic"], t.name if t else (
                        ch["metadata"].get("zcast.type_name") or ch["schema_name"] or ""),
                        ch["message_encoding"])
                for cid, seq, log_t, pub_t, msg in f:
                    wanted, topic, type_name, enc = chans[cid]
                    if not wanted:
                        continue
                    yield BagMessage(topic, msg, log_t, pub_t, seq, type_name, enc)
