#!/usr/bin/env python3
"""Prints the build targets that the tests a stage runs need, from CMake's file API (codemodel), the
generated CTestTestfile.cmake files and `ctest --show-only` (which names the selected tests; before the
build it leaves out the command of a test whose program does not exist yet): a target is needed
when a test's command, arguments or properties (its environment) name its artifact or the directory
it is built in. Prints "all" when that cannot be worked out, so a stage
never runs a test whose program it did not build.
Usage: stage_targets.py BUILD_DIR [ctest selection args...]   (the build dir must be configured
with the query file .cmake/api/v1/query/codemodel-v2 in place)"""
import json
import os
import re
import shlex
import subprocess
import sys


def codemodel(build):
    reply = os.path.join(build, ".cmake", "api", "v1", "reply")
    index = max(f for f in os.listdir(reply) if f.startswith("index-"))
    with open(os.path.join(reply, index)) as f:
        ref = next(o for o in json.load(f)["objects"] if o["kind"] == "codemodel")
    with open(os.path.join(reply, ref["jsonFile"])) as f:
        model = json.load(f)
    targets = {}  # artifact path (absolute) -> target name
    for cfg in model["configurations"][:1]:
        for t in cfg["targets"]:
            with open(os.path.join(reply, t["jsonFile"])) as f:
                tj = json.load(f)
            for a in tj.get("artifacts", []):
                targets[os.path.normpath(os.path.join(build, a["path"]))] = tj["name"]
    return targets


def test_lines(build):
    """name -> the words of its add_test and set_tests_properties lines, from every CTestTestfile."""
    lines = {}
    for root, _, files in os.walk(build):
        if "CTestTestfile.cmake" not in files:
            continue
        with open(os.path.join(root, "CTestTestfile.cmake")) as f:
            for line in f:
                m = re.match(r"(add_test|set_tests_properties)\((\S+) (.*)\)$", line.strip())
                if m:
                    name = re.sub(r"^\[=*\[|\]=*\]$", "", m.group(2))
                    lines.setdefault(name, []).extend(shlex.split(m.group(3)))
    return lines


def words(test_words):
    for w in test_words:
        for part in re.split(r"[;:=]", w):
            yield part


def main():
    build = os.path.abspath(sys.argv[1])
    try:
        artifacts = codemodel(build)
        out = subprocess.run(["ctest", "--show-only=json-v1", *sys.argv[2:]], cwd=build,
                             check=True, capture_output=True, text=True).stdout
        names = [t["name"] for t in json.loads(out)["tests"]]
        lines = test_lines(build)
    except (OSError, ValueError, KeyError, StopIteration, subprocess.CalledProcessError):
        print("all")
        return
    need = set()
    for name in names:
        if name not in lines:
            print("all")
            return
        for w in words(lines[name]):
            p = os.path.normpath(w)
            if not p.startswith(build + os.sep):
                continue
            if p in artifacts:
                need.add(artifacts[p])
            else:  # a directory (examples, the Python module): whatever is built there
                hits = {n for a, n in artifacts.items() if a.startswith(p + os.sep)}
                if not hits:
                    print("all")
                    return
                need |= hits
    print(" ".join(sorted(need)) if need else "all")


if __name__ == "__main__":
    main()
