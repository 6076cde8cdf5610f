"""Services from Python (audit-svc): close() of a zcast.Client or zcast.Server while another thread
is inside its call() or wait() (both run without the GIL) raises zcast.Busy, as a Subscriber's
does, instead of freeing the C handle under that thread; once the thread is out, close works.
Before, close freed it at once and the other thread went on using freed memory."""
import threading

import zcast

TYPE = "example_interfaces/srv/AddTwoInts"


def busy_while_used(end, use):
    """`use` runs again and again in a thread; close is tried meanwhile. Returns the Busy count."""
    stop = threading.Event()
    inside = threading.Event()

    def worker():
        while not stop.is_set():
            inside.set()
            use()

    t = threading.Thread(target=worker)
    t.start()
    assert inside.wait(10)
    busy = 0
    closed = False
    for _ in range(20):
        try:
            end.close()
            closed = True
            break
        except zcast.Busy:
            busy += 1
    stop.set()
    t.join(30)
    assert not t.is_alive()
    if not closed:
        end.close()  # nobody uses it now
    return busy


def test_client_close_refused_while_waiting():
    cli = zcast.Client("/py/busy_cw", TYPE)
    assert busy_while_used(cli, lambda: cli.wait(0.05)) > 0
    try:  # closed now: a further use says so
        cli.wait(0)
        raise AssertionError("wait on a closed client")
    except zcast.Stale:
        pass


def test_client_close_refused_while_calling():
    cli = zcast.Client("/py/busy_cc", TYPE)

    def call():
        try:
            cli.call({"a": 1, "b": 2}, timeout=0.05)  # no server: waits for one
        except (zcast.Timeout, zcast.NoServer):
            pass

    assert busy_while_used(cli, call) > 0


def test_server_close_refused_while_waiting():
    srv = zcast.Server("/py/busy_sw", TYPE)
    assert busy_while_used(srv, lambda: srv.wait(0.05)) > 0
