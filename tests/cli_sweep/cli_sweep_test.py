#!/usr/bin/python3
"""Every zcast command and option fed bad values (issue 25, "Tests"): a missing value, a non-number,
negative, zero, too large, empty, an unknown type, malformed YAML values, an unknown or mistyped
member, a missing file, a directory where a file is wanted, an unknown verb. For each case: the exit
status given (2 for a bad command line, 1 for a file that cannot be used, 3 for no such topic or
service), exactly one line on stderr that names the argument or file first ("zcast CMD: ARG: what"),
nothing on stdout, no signal and no sanitizer report, and nothing created or published in the
domain (no topic segment appears). Usage: cli_sweep_test.py ZCAST TYPE_LIB_DIR"""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

ZCAST, TYPES = sys.argv[1], sys.argv[2]
DOMAIN = f"tsweep-{os.getpid()}"
TMP = tempfile.mkdtemp(prefix="zcast-sweep-")
ENV = dict(os.environ, ZCAST_DOMAIN=DOMAIN, ZCAST_TYPE_PATH=TYPES,
           ASAN_OPTIONS="detect_leaks=1:exitcode=99", UBSAN_OPTIONS="halt_on_error=1:exitcode=98")
MISSING = f"{TMP}/missing"
NOT_MCAP = f"{TMP}/not.mcap"
EMPTY_DIR = f"{TMP}/empty"
DEAD_BELL = f"/dev/shm/zcast-bell.{2**22 + os.getpid()}.1"  # above any pid_max
HUGE = "99999999999999999999"

# The bad values of a numeric option (strtoll and strtod each meet their own).
def numbers(lo_bad, whole):
    return (["x", "", HUGE, "1.5"] if whole else ["1.5x", "", "nan", "inf", "1e999"]) + lo_bad

# (argv, exit status, regex the one stderr line must match after "zcast CMD: ")
CASES = []
def case(rc, pattern, *argv):
    CASES.append((list(argv), rc, pattern))

def bad_number(cmd, opt, pre=(), post=(), lo_bad=("-1",), whole=True, quick=False):
    """quick: one value of each kind only, for an option parsed by code already swept."""
    vals = numbers(list(lo_bad), whole)
    for v in (vals[:1] + list(lo_bad[:1]) if quick else vals):
        case(2, rf"{re.escape(opt)}: '{re.escape(v)}' is not a {'whole ' if whole else ''}number "
             r"from \S+ to \S+", cmd, *pre, f"{opt}={v}", *post)
    case(2, rf"'{re.escape(opt)}' needs a value", cmd, *pre, *post, opt)

# ---- the tool itself ----
case(2, r"unknown command 'frobnicate'", "frobnicate")
case(2, r"unknown option '--bogus'", "--bogus", "list")
case(2, r"option '-d' needs a value", "-d")
case(2, r"invalid domain name 'a.b'", "-d", "a.b", "list")
case(2, r"invalid domain name ''", "-d", "", "list")

T = "/sweep/t"
commands = {  # every command, with arguments that make it valid apart from what is tested
    "list": [], "info": [T], "echo": [T], "hz": [T], "bw": [T], "delay": [T], "pub": [T, "hi"],
    "top": [], "gc": [T], "rm": [T], "doctor": [], "record": ["-o", f"{TMP}/rec"],
    "play": [NOT_MCAP], "bag": ["info", NOT_MCAP], "interface": ["list"],
    "service": ["list"],
}
for cmd, args in commands.items():
    case(2, r"unknown option '--bogus'", cmd, *args, "--bogus")
    case(2, r"'-d' needs a value", cmd, *args, "-d")
    case(2, r"invalid domain name 'bad\.domain'", cmd, "-d", "bad.domain", *args)
case(2, r"unknown option '-Z'", "list", "-Z")
case(2, r"invalid domain name ''", "info", "--domain=", T)
case(2, r"option '--help' takes no value", "echo", "--help=1", T)

# ---- topic names ----
for name in ["/a//b", "/a b", "/" + "x" * 300, "/a/", "/1a"]:
    case(2, r"TOPIC: invalid topic name '", "info", name)
for cmd in ["info", "echo", "hz", "bw", "delay", "gc", "rm"]:  # one check for all: cli_args.c
    for name in ["nosuch", ""]:
        case(2, r"TOPIC: invalid topic name '", cmd, name)
for name in ["nosuch", "/a//b", ""]:
    case(2, r"TOPIC: invalid topic name '", "pub", name, "hi")
for cmd in ["info", "rm"]:
    case(3, r"no topic /sweep/none", cmd, "/sweep/none")
case(3, r"no topic /sweep/none", "gc", "/sweep/none")  # and no doorbell sweep (a dead one below)
case(3, r"no topic /sweep/none", "gc", "/sweep/none", "--json")

# ---- list ----
bad_number("list", "--window", lo_bad=["-1", "61"], whole=False)
case(2, r"--type: '' is not pkg/msg/Name or pkg/Name", "list", "--type=")
case(2, r"--type: 'String' is not pkg/msg/Name or pkg/Name", "list", "-t", "String")
case(2, r"unexpected argument 'x'", "list", "x")

# ---- echo, hz, bw, delay ----
bad_number("echo", "--count", post=[T], lo_bad=["-1", "1000000001"])
bad_number("echo", "--history", post=[T], lo_bad=["-1", "4097"])
bad_number("echo", "--bytes", post=[T])
bad_number("echo", "--timeout", post=[T], whole=False)
case(2, r"--field: empty member path", "echo", T, "--field=")
case(2, r"--csv: not with --json, --hex or --field", "echo", T, "--csv", "--json")
case(2, r"--field: prints text only", "echo", T, "--field", "a", "--hex")
case(2, r"option '--once' takes no value", "echo", T, "--once=3")
for cmd in ["hz", "bw", "delay"]:  # one parser (cmd_measure.c): all values for hz
    quick = cmd != "hz"
    bad_number(cmd, "--window", post=[T], lo_bad=["0", "-1"], quick=quick)
    bad_number(cmd, "--interval", post=[T], lo_bad=["0", "-1"], whole=False, quick=quick)
    bad_number(cmd, "--count", post=[T], lo_bad=["-1"], quick=quick)
    bad_number(cmd, "--timeout", post=[T], lo_bad=["-1"], whole=False, quick=quick)
    case(2, r"unexpected argument '/x'", cmd, T, "/x")

# ---- pub ----
bad_number("pub", "--rate", post=[T, "hi"], whole=False)
bad_number("pub", "--count", post=[T, "hi"])
bad_number("pub", "--times", post=[T, "hi"], lo_bad=["0", "-1"])
bad_number("pub", "--wait-matching", post=[T, "hi"])
bad_number("pub", "--timeout", post=[T, "hi"], whole=False)
bad_number("pub", "--history", post=[T, "hi"], lo_bad=["-1", "4097"])
case(2, r"give either TEXT or --file FILE", "pub", T)
case(2, r"give either TEXT or --file FILE", "pub", T, "hi", "--file", MISSING)
case(1, rf"--file: {re.escape(MISSING)}: cannot open: No such file or directory", "pub", T, "--file", MISSING)
case(1, rf"--file: {re.escape(TMP)}: cannot read: Is a directory", "pub", T, "--file", TMP)
case(1, r"--file: : cannot open: No such file or directory", "pub", T, "--file=")
case(2, r"TYPE: nopkg/msg/Missing is not a type", "pub", T, "nopkg/msg/Missing", "{}")
I32 = "std_msgs/msg/Int32"
for values, what in [
        ("{data: x}", r"member data: 'x' is not a int32"),
        ("{data: 99999999999}", r"member data: '99999999999' is not a int32"),
        ("{data: " + HUGE + "}", r"member data: '" + HUGE + "' is not a int32"),
        ("{nope: 1}", r"member nope: std_msgs/msg/Int32 has no such member"),
        ("{data: [1, 2]}", r"member data: a int32, not a sequence"),
        ("{data: {a: 1}}", r"member data: a int32, not a map"),
        ("{data: 1", r"'}' is missing at the end"),
        ("{data: 1}}", r"."),
        ("{data: 1, data: 2}", r"member data: given twice"),
        ("[1, 2]", r"."),
        ("{", r"."),
        ("{:}", r"."),
        ("{data: 'x}", r"."),
]:
    case(2, r"VALUES: " + what, "pub", T, I32, values)
S = "zcast_test/msg/Nested"
for values in ["{inner: 3}", "{inner: {nope: 1}}", "{inner: [1]}"]:
    case(2, r"VALUES: .", "pub", T, S, values)
for v in ["{data: [300]}", "{data: [-1]}", "{data: [1.5]}", "{data: ['']}", "{data: [1, x]}"]:
    case(2, r"VALUES: member data\[\d\]: '.*' is not a uint8", "pub", T, "std_msgs/msg/UInt8MultiArray", v)
case(2, r"VALUES: member data: 'maybe' is not a bool", "pub", T, "std_msgs/msg/Bool", "{data: maybe}")
case(2, r"VALUES: member data: '1e999' is not a float64", "pub", T, "std_msgs/msg/Float64", "{data: 1e999}")
for v in ["1x", "-1e999", "..inf", ".infx", "-.nan"]:
    case(2, rf"VALUES: member data: '{re.escape(v)}' is not a float64", "pub", T, "std_msgs/msg/Float64", f"{{data: {v}}}")
case(2, r"VALUES: member r: '1e39' is not a float32", "pub", T, "std_msgs/msg/ColorRGBA", "{r: 1e39}")

# ---- top ----
bad_number("top", "--interval", lo_bad=["0", "-1", "3601"], whole=False)
bad_number("top", "--iterations", lo_bad=["-1"])

# ---- gc, rm, doctor, info ----
case(2, r"give a TOPIC or --all", "gc")
case(2, r"give a TOPIC or --all", "gc", T, "--all")
case(2, r"unexpected argument '/y'", "rm", T, "/y")
case(2, r"unexpected argument '/y'", "info", T, "/y")
case(2, r"unexpected argument 'x'", "doctor", "x")
case(2, r"missing argument: TOPIC", "info")
case(2, r"missing argument: TOPIC", "rm")
case(2, r"option '--all' takes no value", "gc", "--all=yes")

# ---- record ----
R = ["-o", f"{TMP}/rec"]
bad_number("record", "--max-bytes", pre=R)
bad_number("record", "--max-duration", pre=R, whole=False)
bad_number("record", "--duration", pre=R, whole=False)
bad_number("record", "--queue", pre=R, lo_bad=["0", "-1", "1048577"])
bad_number("record", "--chunk-size", pre=R, lo_bad=["0", "4095", "-1"])
for v in ["gzip", "", "ZSTD"]:
    case(2, rf"--compression: '{v}' is not zstd, lz4 or none", "record", *R, f"--compression={v}")
case(2, r"TOPIC_PATTERN: 'camera' does not start with '/'", "record", *R, "camera")
case(2, r"TOPIC_PATTERN: '' does not start with '/'", "record", *R, "")
case(1, rf"--output: {re.escape(NOT_MCAP)}: cannot create: Not a directory", "record", "-o", NOT_MCAP, "--duration", "0.1")
case(1, rf"--output: {re.escape(MISSING)}/x: cannot create: No such file or directory", "record", "-o", f"{MISSING}/x", "--duration", "0.1")
case(1, r"--output: : cannot create: No such file or directory", "record", "-o", "", "--duration", "0.1")

# ---- play ----
P = [f"{TMP}/good"]  # a recording made below: valid, so only the option is wrong
bad_number("play", "--rate", pre=P, lo_bad=["0", "-1"], whole=False)
bad_number("play", "--start-offset", pre=P, whole=False)
bad_number("play", "--wait-for-subscribers", pre=P, lo_bad=["-1", "1025"])
bad_number("play", "--slots", pre=P, lo_bad=["0", "1", "4097"])
bad_number("play", "--slots", pre=P + ["--topics", "/none"], lo_bad=["0"])
for v in ["x", "", "nan", "inf", "1e999", "-1", "1000001", "auto1", "Auto"]:
    case(2, rf"--spin-us: '{re.escape(v)}' is not auto or microseconds from 0 to 1000000", "play",
         *P, f"--spin-us={v}")
case(2, r"'--spin-us' needs a value", "play", *P, "--spin-us")
for v in ["/a", "/a:=", ":=/b", "/a:=b", "/a:=/b//c", ""]:
    case(2, rf"--remap: '{re.escape(v)}' is not FROM:=TO", "play", *P, f"--remap={v}")
for v in ["", ",", "/a,,/b"]:
    case(2, rf"--topics: '{v}' names no topic", "play", *P, f"--topics={v}")
case(1, rf"{re.escape(MISSING)}: No such file or directory", "play", MISSING)
case(1, rf"{re.escape(EMPTY_DIR)}: no \.mcap files in this directory", "play", EMPTY_DIR)
case(1, rf"{re.escape(NOT_MCAP)}: ", "play", NOT_MCAP)
case(1, rf"{re.escape(TMP)}/empty.mcap: ", "play", f"{TMP}/empty.mcap")
case(2, r"missing argument: RECORDING", "play")

# ---- bag ----
case(1, rf"{re.escape(MISSING)}: No such file or directory", "bag", "info", MISSING)
case(1, rf"{re.escape(EMPTY_DIR)}: no \.mcap files in this directory", "bag", "info", EMPTY_DIR)
case(1, rf"{re.escape(NOT_MCAP)}: ", "bag", "info", NOT_MCAP)
case(1, rf"{re.escape(TMP)}/empty.mcap: ", "bag", "info", f"{TMP}/empty.mcap")
case(1, rf"{re.escape(MISSING)}: ", "bag", "reindex", MISSING)
case(1, rf"{re.escape(EMPTY_DIR)}: ", "bag", "reindex", EMPTY_DIR)
case(1, rf"{re.escape(NOT_MCAP)}: ", "bag", "reindex", NOT_MCAP)
for v in ["gzip", ""]:
    case(2, rf"--compression: '{v}' is not zstd, lz4 or none", "bag", "reindex", NOT_MCAP, f"--compression={v}")
case(2, r"verb: 'frob' is neither info nor reindex", "bag", "frob", "x")
case(2, r"missing argument", "bag", "info")
case(2, r"info: takes one RECORDING", "bag", "info", "a", "b")

# ---- interface ----
case(2, r"verb: 'frob' is neither list nor show", "interface", "frob")
case(2, r"type: .*nopkg/msg/Missing", "interface", "show", "nopkg/msg/Missing")
case(2, r"type: .*", "interface", "show", "")
case(2, r"type: .*", "interface", "show", "std_msgs")
case(2, r"list: takes no argument", "interface", "list", "x")
case(2, r"show: needs TYPE", "interface", "show")

# ---- service ----
bad_number("service", "--timeout", pre=["call", "/s", "std_srvs/srv/SetBool", "{}"], whole=False)
case(2, r"'frob': expected list, info or call", "service", "frob")
case(2, r"list takes no arguments", "service", "list", "x")
case(2, r"info NAME: one service name", "service", "info")
case(2, r"NAME: 'bad name' is not a valid service name", "service", "info", "bad name")
case(2, r"NAME: '' is not a valid service name", "service", "info", "")
case(3, r"no service /sweep/none", "service", "info", "/sweep/none")
case(2, r"NAME and TYPE are required", "service", "call", "/s")
case(2, r"NAME: 'x' is not a valid service name", "service", "call", "x", "std_srvs/srv/SetBool")
case(2, r"TYPE: nopkg/srv/X is not a service type", "service", "call", "/s", "nopkg/srv/X")
case(2, r"TYPE: std_msgs/msg/Int32 is not a service type", "service", "call", "/s", "std_msgs/msg/Int32")
for values in ["{data: maybe}", "{nope: 1}", "{data: true", "[1]"]:
    case(2, r"VALUES: .", "service", "call", "/s", "std_srvs/srv/SetBool", values)

# ---- environment ----
ENV_CASES = [
    ({"ZCAST_DOMAIN": "bad.domain"}, ["list"], 2, r"ZCAST_DOMAIN: invalid domain name 'bad\.domain'"),
    ({"ZCAST_DOMAIN": "x" * 33}, ["info", T], 2, r"ZCAST_DOMAIN: invalid domain name 'x+'"),
    # type libraries that are no libraries, or no directory: skipped, the search path named
    ({"ZCAST_TYPE_PATH": f"{TMP}/badlib"}, ["pub", T, "nopkg/msg/X", "{}"], 2,
     rf"TYPE: nopkg/msg/X is not a type .*in no type library on {re.escape(TMP)}/badlib"),
    ({"ZCAST_TYPE_PATH": f"{MISSING}:{NOT_MCAP}"}, ["interface", "show", "nopkg/X"], 2,
     rf"type: .*nopkg/X.*{re.escape(MISSING)}"),
]


def shm_files(domain=DOMAIN):
    return sorted(f for f in os.listdir("/dev/shm") if f.startswith(f"zcast.{domain}."))


def remove(files):
    for f in files:
        os.unlink(f"/dev/shm/{f}")


def run(argv, env):
    """The finished process, or None when it was still running after 10 s (it took the bad value)."""
    try:
        return subprocess.run([ZCAST] + argv, env=env, capture_output=True, text=True,
                              errors="replace", timeout=10, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None


def check(i, argv, rc, pattern, env):
    """Case i, in a domain of its own: what it leaves there is its own (cases run in parallel)."""
    domain = f"{DOMAIN}-{i}"
    env = dict(env, ZCAST_DOMAIN=env["ZCAST_DOMAIN"].replace(DOMAIN, domain))
    p = run(argv, env)
    if p is None:
        remove(shm_files(domain))
        return f"zcast {' '.join(map(repr, argv))}: still running after 10 s"
    # A command's own parser names it; the tool's (options before the command) does not.
    prefix = f"zcast {argv[0]}: " if argv and argv[0] in commands else "zcast: "
    problems = []
    if p.returncode < 0:
        problems.append(f"killed by signal {-p.returncode}")
    elif p.returncode != rc:
        problems.append(f"exit status {p.returncode}, want {rc}")
    if "Sanitizer" in p.stderr or "runtime error" in p.stderr:
        problems.append("sanitizer report")
    lines = p.stderr.splitlines()
    if len(lines) != 1:
        problems.append(f"{len(lines)} lines on stderr, want 1")
    elif not (lines[0].startswith(prefix) and re.search(pattern, lines[0][len(prefix):]) and
              re.match(r"^\S.*", lines[0][len(prefix):])):
        problems.append(f"stderr does not match {prefix!r} + {pattern!r}")
    if p.stdout:
        problems.append("output on stdout")
    left = shm_files(domain)
    if left:
        problems.append(f"left in /dev/shm: {left}")
        remove(left)
    if problems:
        return f"zcast {' '.join(map(repr, argv))}: {'; '.join(problems)}\n  stderr: {p.stderr!r}"
    return None


def make_fixtures():
    os.mkdir(EMPTY_DIR)
    with open(NOT_MCAP, "wb") as f:
        f.write(b"this is not an MCAP file\n" * 10)
    open(f"{TMP}/empty.mcap", "wb").close()
    # A doorbell file of a wait set whose process is gone: `gc TOPIC` with a bad TOPIC must not
    # sweep it (nor print that it did). Any other gc may remove it meanwhile.
    with open(DEAD_BELL, "wb") as f:
        f.write(b"\0" * 64)
    os.mkdir(f"{TMP}/badlib")
    with open(f"{TMP}/badlib/libbad_types.so", "wb") as f:
        f.write(b"not an ELF file")
    # A valid recording of one topic, for the play cases whose only fault is an option.
    rec = subprocess.Popen([ZCAST, "record", "-q", "-o", f"{TMP}/good", "--duration", "3"], env=ENV,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run([ZCAST, "pub", "/sweep/rec", "hi", "--wait-matching", "1", "--times", "3",
                    "--rate", "0"], env=ENV, check=True, stdout=subprocess.DEVNULL, timeout=20)
    rec.send_signal(2)
    rec.wait(timeout=20)
    remove(shm_files())


def main():
    failures = []
    try:
        make_fixtures()
        todo = [(argv, rc, pattern, ENV) for argv, rc, pattern in CASES]
        todo += [(argv, rc, pattern, dict(ENV, **extra)) for extra, argv, rc, pattern in ENV_CASES]
        # A few at a time: each is a short process start, mostly waiting for a core.
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            results = pool.map(lambda c: check(*c), ((i,) + t for i, t in enumerate(todo)))
            failures = [f for f in results if f]
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
        remove(shm_files())
        if os.path.exists(DEAD_BELL):
            os.unlink(DEAD_BELL)
    for f in failures:
        print("FAIL:", f)
    print(f"cli_sweep: {len(todo) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
