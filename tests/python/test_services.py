"""Services from Python (docs/PYTHON.md "Services"): zcast.Client / zcast.Server of .srv types,
a blocking call and an awaited call against a server in another process, defaults and strings in
requests and responses, a server of another service type refused with both hashes, a server
killed with a call taken (zcast.ServerGone), no server (zcast.NoServer / zcast.Timeout)."""
import asyncio
import os
import subprocess
import sys
import threading

import pytest

import zcast

SERVER = r'''
import sys, time, zcast
srv = zcast.Server(sys.argv[1], "example_interfaces/srv/AddTwoInts")
print("ready", flush=True)
mode = sys.argv[2]
while True:
    if mode == "hang":  # takes one request and never answers it
        if srv.wait(10):
            req = srv.take()
            print("taken", flush=True)
            time.sleep(60)
    elif not srv.serve(lambda r: {"sum": r.a + r.b}, 10):
        break
'''


def start_server(name, mode="add"):
    p = subprocess.Popen([sys.executable, "-c", SERVER, name, mode], stdout=subprocess.PIPE,
                         text=True, env=os.environ)
    assert p.stdout.readline().strip() == "ready"
    return p


def stop(p):
    p.kill()
    p.wait()


def test_call_and_acall_across_processes():
    p = start_server("/py/add")
    try:
        with zcast.Client("/py/add", "example_interfaces/AddTwoInts") as cli:
            assert cli.service_type == "example_interfaces/srv/AddTwoInts"
            for a in range(5):
                r = cli.call({"a": a, "b": 40}, timeout=10)
                assert r.sum == a + 40
                r.release()
            r = cli.call(timeout=10)  # defaults: 0 + 0
            assert r.to_dict() == {"sum": 0}
            r.release()

            async def many():
                rs = [await cli.acall({"a": i, "b": -i * 2}, timeout=10) for i in range(5)]
                out = [r.sum for r in rs]
                for r in rs:
                    r.release()
                return out
            assert asyncio.run(many()) == [-i for i in range(5)]
            assert cli.pending == 0
    finally:
        stop(p)


def test_strings_and_defaults_in_place():
    with zcast.Server("/py/sb", "std_srvs/SetBool", bounds={"message": 16}) as srv, \
            zcast.Client("/py/sb", "std_srvs/srv/SetBool") as cli:
        seen = []

        def handler(req):
            seen.append(req.data)
            return {"success": not req.data, "message": "was on" if req.data else "was off"}
        t = threading.Thread(target=lambda: [srv.serve(handler, 10) for _ in range(2)])
        t.start()
        r = cli.call({"data": True}, timeout=10)
        assert (r.success, r.message) == (False, "was on")
        r.release()
        req = cli.request()  # the declared default: data false
        assert req.data is False
        r = cli.call(req, timeout=10)
        assert (r.success, r.message) == (True, "was off")
        r.release()
        t.join()
        assert seen == [True, False]
        with pytest.raises(zcast.Stale):
            req.data = True  # sent: it belongs to the library now


def test_other_service_type_refused_with_both_hashes():
    with zcast.Server("/py/mix", "std_srvs/SetBool", bounds={"message": 8}):
        with pytest.raises(zcast.TypeMismatch) as e:
            zcast.Client("/py/mix", "std_srvs/Trigger")
        assert "RIHS01_abe9e4bb6b41b40e6789712c00ec8871923e089af3f667a79992a428cff2da0a" in str(e.value)
        assert "RIHS01_eeff2cd6fa5ad9d27cdf4dec64818317839b62f212a91e6b5304b634b2062c5f" in str(e.value)
    with pytest.raises(zcast.InvalidArgument):
        zcast.Client("/py/mix", "nopkg/srv/Missing")


def test_server_killed_with_call_taken():
    p = start_server("/py/hang", "hang")
    try:
        with zcast.Client("/py/hang", "example_interfaces/AddTwoInts") as cli:
            seq = cli.send(cli.request({"a": 1}))
            assert p.stdout.readline().strip() == "taken"
            p.kill()
            p.wait()
            assert cli.wait(30)
            got = cli.take()
            assert got == (seq, None)  # the call failed: its server is gone

            async def gone():
                return await cli.acall({"a": 2}, timeout=30)
            with pytest.raises(zcast.NoServer):
                asyncio.run(gone())
            with pytest.raises(zcast.Timeout):
                cli.call({"a": 3}, timeout=0.2)  # waits for a first server, none comes
    finally:
        stop(p)
