"""Services with values: zcast.Client and zcast.Server (native in _zcast) plus calls that take and
give member values (dicts, nested dicts for nested messages), a blocking `call` and an awaitable
`acall` (asyncio, on the client's pollable descriptor). docs/PYTHON.md "Services"."""
import asyncio

from . import _zcast


def _fill(view, values):
    """Writes values (a dict; nested dicts for nested messages) into a typed loan or view."""
    for name, value in (values or {}).items():
        if isinstance(value, dict):
            _fill(getattr(view, name), value)
        else:
            setattr(view, name, value)


class Client(_zcast.Client):
    """Client(service, type, bounds=None, domain=None, slot_count=0): `type` is a .srv type
    ("std_srvs/srv/SetBool" or "std_srvs/SetBool"); `bounds` sizes the request slots."""

    def request(self, values=None, bounds=None):
        """A request loan with `values` written (members not given keep their defaults)."""
        msg = self.loan(bounds)
        try:
            _fill(msg, values)
        except BaseException:
            msg.release()
            raise
        return msg

    def call(self, request=None, timeout=None):
        """Sends a request (a loan, or values for one) and returns the response (a read-only
        typed message: release it when done). Raises zcast.ServerGone, zcast.Refused, zcast.NoServer,
        zcast.Timeout. Calls sent before and still pending keep their outcomes for take()."""
        if not isinstance(request, _zcast.Message):
            request = self.request(request)
        return self._call(request, timeout)

    async def acall(self, request=None, timeout=None):
        """As call, awaited on the event loop (never blocks it): the response, or raises
        zcast.ServerGone, zcast.Refused, zcast.NoServer (no server now) or asyncio.TimeoutError."""
        if not isinstance(request, _zcast.Message):
            request = self.request(request)
        seq = self.send(request)
        return await asyncio.wait_for(self._outcome(seq), timeout)

    def _take_for(self, seq):
        """take(), where another call's refusal is skipped like another call's response."""
        while True:
            try:
                return self.take()
            except _zcast.Refused as e:
                if e.seq == seq:
                    raise

    async def _outcome(self, seq):
        loop = asyncio.get_running_loop()
        fd = self.fileno()
        while True:
            got = self._take_for(seq)  # take until None: that re-arms the descriptor
            while got is not None:
                s, resp = got
                if s == seq:
                    if resp is None:
                        raise _zcast.ServerGone(f"the server of call {seq} is gone")
                    return resp
                if resp is not None:
                    resp.release()  # another call's: the blocking API cannot have one pending
                got = self._take_for(seq)
            ready = loop.create_future()
            loop.add_reader(fd, lambda: ready.done() or ready.set_result(None))
            try:
                await ready
            finally:
                loop.remove_reader(fd)


class Server(_zcast.Server):
    """Server(service, type, bounds=None, domain=None, queue_depth=0): `bounds` sizes the response
    slots."""

    def reply(self, request, values=None, bounds=None):
        """Answers `request` with a response of `values` (defaults for members not given)."""
        msg = self.loan(request, bounds)
        try:
            _fill(msg, values)
        except BaseException:
            msg.release()
            raise
        self.send(msg)

    def serve(self, handler, timeout=None):
        """Waits up to timeout seconds (None: forever) for a request, answers it with
        handler(request) (values, or None for the defaults) and releases it. True when one was
        served, False after the timeout."""
        if not self.wait(timeout):
            return False
        req = self.take()
        if req is None:
            return False
        try:
            self.reply(req, handler(req))
        finally:
            req.release()
        return True
