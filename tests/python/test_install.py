"""`pip install` of python/ into a venv made by Debian's python3 -m venv: offline, with Debian's
setuptools and wheel (--system-site-packages --no-build-isolation, docs/PYTHON.md). The installed
module works on its own: a typed and an untyped round trip run in the venv's interpreter."""
import os
import shutil
import subprocess
import sys

import pytest

SOURCE = os.environ.get("ZT_SOURCE_DIR")

CHECK = r"""
import sys, numpy as np, zcast
assert zcast.__file__.startswith(sys.prefix), zcast.__file__
with zcast.Publisher("/inst") as pub, zcast.Subscriber("/inst") as sub:
    m = pub.loan(5)
    memoryview(m)[:] = b"hello"
    pub.publish(m)
    assert bytes(sub.take()) == b"hello"
b = {"header": {"frame_id": 4}, "encoding": 4, "data": 6}
with zcast.Publisher("/img", type="sensor_msgs/Image", bounds=b) as pub, \
        zcast.Subscriber("/img", type="sensor_msgs/Image") as sub:
    img = pub.loan_typed()
    img.width = 2
    img.data = np.arange(6, dtype=np.uint8)
    pub.publish(img)
    got = sub.take()
    assert got.width == 2 and got.data.tolist() == list(range(6))
print("installed zcast works")
"""


def test_pip_install_into_venv(tmp_path):
    if not SOURCE:
        pytest.skip("ZT_SOURCE_DIR not set (run through ctest)")
    # A copy of what the package builds from, so the build leaves nothing in the source tree.
    tree = tmp_path / "zcast"
    for d in ("src", "include", "msg", "tools"):
        shutil.copytree(os.path.join(SOURCE, d), tree / d)
    shutil.copytree(os.path.join(SOURCE, "python"), tree / "python",
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_PRELOAD", "PYTHONPATH", "ASAN_OPTIONS")}  # a plain user's shell
    venv = tmp_path / "venv"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(venv)],
                   check=True, env=env)
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation",
                          "--no-index", str(tree / "python")], env=env, capture_output=True,
                         text=True)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    run = subprocess.run([str(venv / "bin" / "python"), "-c", CHECK], env=env,
                         capture_output=True, text=True, cwd=str(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "installed zcast works" in run.stdout
    assert sys.executable != str(venv / "bin" / "python")
