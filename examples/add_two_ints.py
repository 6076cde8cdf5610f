#!/usr/bin/python3
"""A zcast service in Python (docs/PYTHON.md "Services"): example_interfaces/AddTwoInts on
/example/add_two_ints.

    add_two_ints.py serve [N]   answer N requests (default: until Ctrl-C)
    add_two_ints.py A B         call it twice: blocking, then awaited with asyncio

Start the server first, or the call waits up to its timeout for one to come."""
import asyncio
import sys

import zcast

SERVICE, TYPE = "/example/add_two_ints", "example_interfaces/srv/AddTwoInts"


def serve(count):
    with zcast.Server(SERVICE, TYPE) as srv:
        print("serving", SERVICE, flush=True)
        served = 0
        while count == 0 or served < count:
            if srv.serve(lambda req: {"sum": req.a + req.b}, timeout=1.0):
                served += 1
        print(f"served {served} requests")


async def call_async(cli, a, b):
    resp = await cli.acall({"a": a, "b": b}, timeout=5.0)
    try:
        return resp.sum
    finally:
        resp.release()


def call(a, b):
    with zcast.Client(SERVICE, TYPE) as cli:
        resp = cli.call({"a": a, "b": b}, timeout=5.0)
        print(f"{a} + {b} = {resp.sum}")
        resp.release()
        print(f"awaited: {b} + {a} = {asyncio.run(call_async(cli, b, a))}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        serve(int(sys.argv[2]) if len(sys.argv) > 2 else 0)
    elif len(sys.argv) == 3:
        call(int(sys.argv[1]), int(sys.argv[2]))
    else:
        sys.exit(__doc__)
