"""asyncio: `async for` over a subscriber waits on its pollable descriptor without blocking the
event loop; zcast.areceive() with a timeout."""
import asyncio
import threading

import zcast


def publish_later(pub, n, delay=0.02):
    def run():
        import time
        for i in range(n):
            time.sleep(delay)
            m = pub.loan(4)
            memoryview(m)[:] = i.to_bytes(4, "little")
            pub.publish(m, timeout=5)
    t = threading.Thread(target=run)
    t.start()
    return t


def test_async_for_receives_while_the_loop_runs_other_tasks():
    async def main(pub, sub):
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.001)
        tick_task = asyncio.create_task(ticker())
        t = publish_later(pub, 5)
        got = []
        async for msg in sub:
            got.append(int.from_bytes(bytes(msg), "little"))
            msg.release()
            if len(got) == 5:
                break
        tick_task.cancel()
        t.join()
        return got, ticks

    with zcast.Publisher("/aio") as pub, zcast.Subscriber("/aio") as sub:
        got, ticks = asyncio.run(main(pub, sub))
    assert got == [0, 1, 2, 3, 4]
    assert ticks > 5  # the loop kept running between messages: nothing blocked it


def test_areceive_timeout_and_message():
    async def main(pub, sub):
        assert await zcast.areceive(sub, timeout=0.05) is None
        t = publish_later(pub, 1)
        msg = await zcast.areceive(sub, timeout=10)
        t.join()
        return bytes(msg)

    with zcast.Publisher("/aio2") as pub, zcast.Subscriber("/aio2") as sub:
        assert asyncio.run(main(pub, sub)) == (0).to_bytes(4, "little")


def test_two_subscribers_in_one_loop():
    async def drain(sub, n):
        out = []
        async for msg in sub:
            out.append(bytes(msg))
            if len(out) == n:
                return out

    async def main(pa, pb, sa, sb):
        ta, tb = publish_later(pa, 3), publish_later(pb, 3)
        a, b = await asyncio.gather(drain(sa, 3), drain(sb, 3))
        ta.join()
        tb.join()
        return a, b

    with zcast.Publisher("/x") as pa, zcast.Publisher("/y") as pb, \
            zcast.Subscriber("/x") as sa, zcast.Subscriber("/y") as sb:
        a, b = asyncio.run(main(pa, pb, sa, sb))
    assert len(a) == 3 and len(b) == 3
