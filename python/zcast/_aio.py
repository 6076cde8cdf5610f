"""asyncio integration: `async for msg in sub` waits on the subscriber's pollable descriptor.

zcast_sub_fd's contract: when the descriptor is readable, take until nothing is left (that
re-arms it). So the loop takes everything queued before it waits again.
"""
import asyncio


async def messages(sub):
    """Yields every message of `sub`; waits on the event loop (never blocks it) in between."""
    loop = asyncio.get_running_loop()
    fd = sub.fileno()
    while True:
        msg = sub.take()
        if msg is not None:
            yield msg
            continue
        ready = loop.create_future()
        loop.add_reader(fd, _set_ready, ready)
        try:
            await ready
        finally:
            loop.remove_reader(fd)


def _set_ready(fut):
    if not fut.done():
        fut.set_result(None)


async def receive(sub, timeout=None):
    """The next message of `sub`, awaited on the event loop; None after `timeout` seconds."""
    it = messages(sub)
    try:
        return await asyncio.wait_for(it.__anext__(), timeout)
    except asyncio.TimeoutError:
        return None
    finally:
        await it.aclose()
