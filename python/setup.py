"""Builds zcast._zcast for pip: the extension (src/) with the zcast C library compiled in.

The C library and the message definitions are those of the surrounding zcast source tree (../src,
../include, ../msg); the type headers are generated at build time by ../tools/zcast-msggen, which
needs Debian's python3-rosidl and python3-empy (run with /usr/bin/python3).
"""
import glob
import os
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tools", "msggen"))
import shipped_types  # noqa: E402  (tools/msggen/shipped_types.py)
MSGGEN_PYTHON = os.environ.get("ZCAST_MSGGEN_PYTHON", "/usr/bin/python3")


class BuildExt(build_ext):
    def run(self):
        if not os.path.isdir(os.path.join(ROOT, "src")):
            raise SystemExit("zcast's python/ builds inside a zcast source tree (../src missing)")
        gen = os.path.abspath(os.path.join(self.build_temp, "zcast_msgs"))
        msg = os.path.join(ROOT, "msg")
        names = ["%s/%s" % t for t in shipped_types.shipped_types(msg)]
        names += ["%s/srv/%s" % t for t in shipped_types.shipped_services(msg)]
        subprocess.check_call([MSGGEN_PYTHON, os.path.join(ROOT, "tools", "zcast-msggen"),
                               "-I", msg, "-o", gen] + names)
        shipped_types.write(msg, os.path.join(gen, "zcast_shipped_types.h"))
        for ext in self.extensions:
            ext.include_dirs.append(gen)
            # The library's sources, outside this directory: added here, not to setup() (whose
            # file lists must be relative to setup.py).
            ext.sources += sorted(glob.glob(os.path.join(ROOT, "src", "*", "*.c")))
            # zcast.Bag reads recordings with the tool's MCAP reader (tools/bag).
            ext.sources += sorted(glob.glob(os.path.join(ROOT, "tools", "bag", "*.c")))
        super().run()


extension = Extension(
    "zcast._zcast",
    sources=sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, "src", "*.c"))),
    include_dirs=[os.path.join(ROOT, "include")]
    + [os.path.join(ROOT, "src", layer) for layer in ("os", "proto", "core", "wait", "exec", "typed")]
    + [os.path.join(ROOT, "tools", "bag")],
    define_macros=[("_GNU_SOURCE", None)],
    extra_compile_args=["-std=c11", "-fvisibility=hidden", "-O2"],
    libraries=["pthread", "dl", "zstd", "lz4", "z"],  # libzstd-dev, liblz4-dev, zlib1g-dev
)

setup(ext_modules=[extension], cmdclass={"build_ext": BuildExt})
