"""zcast: zero-copy publish/subscribe between processes on one Linux host.

The native module zcast._zcast (C, over libzcast) does the work; this package re-exports it and
adds the asyncio helper and services with values (Client, Server). Guide: docs/PYTHON.md.
"""
from ._zcast import *  # noqa: F401,F403
from ._aio import receive as areceive  # noqa: F401
from .bag import Bag, BagFile, BagMessage  # noqa: F401
from ._service import Client, Server  # noqa: F401
