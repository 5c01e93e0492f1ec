"""The engine client against real engine processes: devices, output, order, faults."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from jaxviz.engine import EngineClient, EngineError
from jaxviz.model import TraceResult
from jaxviz.model.engine import DevicesRequest, EngineInfo
from tests.helpers.engine import READY_S, Events, trace, wait_for_file

# Not in the fast tier: real engine processes.
pytestmark = pytest.mark.slow


def ok_reply(client: EngineClient) -> EngineInfo:
    reply = client.submit(DevicesRequest()).result(READY_S)
    assert reply.ok, reply.error
    return reply.result


def _callbacks_done(client: EngineClient) -> None:
    """Wait until the callback thread has run everything queued so far (it runs in order)."""
    done = threading.Event()
    client.submit(DevicesRequest(), lambda _reply: done.set())
    assert done.wait(READY_S)


def test_device_count_follows_restarts():
    events = Events()
    c = EngineClient(devices=4, on_event=events, standby=False)
    try:
        c.start()
        assert len(c.wait_ready(READY_S).devices) == 4
        assert [d.id for d in ok_reply(c).devices] == [0, 1, 2, 3]
        c.restart(devices=8)
        info = c.wait_ready(READY_S)
        assert len(info.devices) == 8 and info.simulated and info.jax_version
        assert "8 simulated CPU devices" in events.wait_for("ready", count=2).message
        assert events.kinds()[:4] == ["starting", "ready", "restarting", "ready"]
        reply = c.submit(trace("return x * 2", variants=("pmap",))).result(READY_S)
        assert reply.ok, reply.error
        result = reply.result
        assert isinstance(result, TraceResult) and len(result.devices) == 8
        text = result.variant("pmap").jaxpr_text
        assert "f32[8,3]" in text and "Mesh('i': 8" in text, text
    finally:
        c.stop()
    events.wait_for("stopped")


def test_ready_info_describes_the_engine(client):
    info = client.info
    assert info is not None and info.pid > 0 and info.platform == "cpu"
    assert info.jax_version and info.jaxlib_version and info.start_seconds > 0
    assert {d.process_index for d in info.devices} == {0}


def test_the_storyboard_comes_back_from_the_engine(client):
    req = trace("return jax.lax.psum(x, 'i') / 4", args="f32[]", variants=("pmap",),
                want=("jaxpr", "story"))
    req.batched_args, req.axis_name = "jnp.arange(4.)", "i"
    reply = client.submit(req).result(READY_S)
    assert reply.ok and reply.result.variants[0].error is None
    sb = reply.result.variants[0].storyboard
    assert sb.devices == [0, 1, 2, 3] and sb.processes == [0, 0, 0, 0]
    (psum,) = sb.collectives
    assert psum.collective.kind == "all-reduce" and psum.collective.groups == [[0, 1, 2, 3]]
    assert psum.collective.origin == "jaxpr" and psum.primitives == ["psum"]


def test_print_output_comes_back_with_the_result(client):
    body = ("print('to stdout')\nprint('to stderr', file=sys.stderr)\n"
            "os.write(1, b'raw fd 1\\n')\nreturn x + 1")
    reply = client.submit(trace(body)).result(READY_S)
    assert reply.ok and reply.result.variants[0].error is None
    assert reply.stdout == "to stdout\nraw fd 1\n"
    assert reply.stderr == "to stderr\n"
    # The next request starts with empty output.
    assert client.submit(trace("return x")).result(READY_S).stdout == ""


def test_print_output_comes_back_on_failure(client):
    reply = client.submit(trace("print('before the error')\nraise ValueError('bad')")).result(
        READY_S)
    assert reply.ok and reply.stdout == "before the error\n"
    error = reply.result.variants[0].error
    assert error.message == "ValueError: bad" and error.line == 6
    # Past the core (SystemExit is not an Exception): the reply itself fails.
    reply = client.submit(trace("return x", header="print('loading')\nsys.exit(3)")).result(
        READY_S)
    assert not reply.ok and reply.error.message.startswith("SystemExit")
    assert reply.stdout == "loading\n"


def test_fifty_requests_come_back_in_order(client):
    order = []
    handles = []
    for i in range(50):
        record = trace(f"return x * {i}") if i % 10 == 0 else DevicesRequest()
        handles.append(client.submit(record, order.append))
    replies = [h.result(READY_S) for h in handles]
    ids = [h.id for h in handles]
    assert ids == sorted(ids) and len(set(ids)) == 50
    assert [r.id for r in replies] == ids and all(r.ok for r in replies)
    assert "mul a 10.0" in replies[10].result.variants[0].jaxpr_text
    deadline = time.monotonic() + READY_S
    while len(order) < 50 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [r.id for r in order] == ids


def test_timeout_restarts_the_engine(client, events):
    events.clear()
    pid = client.info.pid
    # One line: the loop's two instructions both belong to it, so the stack
    # sampled at any moment names the same line.
    # How soon the reply comes is measured by benchmarks/bench_engine_limits.py.
    reply = client.submit(trace("while True: pass"), timeout=2).result(READY_S)
    assert not reply.ok and reply.error.kind == "timeout"
    assert reply.error.message.startswith("timed out after 2 s while tracing `f`")
    # The engine wrote where it was stuck before it was killed: kept in the error's
    # details (for --debug), not passed off as something the code printed.
    assert reply.error.line == 5 and reply.error.source_line.strip() == "while True: pass"
    assert "(most recent call first)" in reply.error.details
    assert "(most recent call first)" not in reply.stderr
    assert ok_reply(client).pid != pid
    assert "restarting" in events.kinds()


def test_abort_is_a_crash_naming_the_signal(client, events):
    events.clear()
    pid = client.info.pid
    queued = client.submit(DevicesRequest())  # behind the crash: must not be lost
    body = "print('about to abort', flush=True)\nos.abort()"
    crashing = client.submit(trace(body))
    reply = crashing.result(READY_S)
    assert not reply.ok and reply.error.kind == "crash"
    assert reply.error.message == "engine crashed: SIGABRT while tracing `f`"
    assert reply.stdout == "about to abort\n"
    assert "Fatal Python error: Aborted" not in reply.stderr  # the dump is not output
    assert "Fatal Python error: Aborted" in reply.error.details
    assert reply.error.line == 6 and reply.error.source_line.strip() == "os.abort()"
    assert events.wait_for("crashed").message == reply.error.message
    # queued was submitted first, so it ran before the crash; the next one runs after.
    assert queued.result(READY_S).ok
    after = client.submit(DevicesRequest())
    assert after.result(READY_S).ok and after.result().result.pid != pid


def test_requests_queued_behind_a_crash_are_not_lost(client):
    crashing = client.submit(trace("os.abort()"))
    behind = [client.submit(trace(f"return x * {i}")) for i in range(3)]
    assert crashing.result(READY_S).error.kind == "crash"
    for i, handle in enumerate(behind):
        reply = handle.result(READY_S)
        assert reply.ok and f"mul a {i}.0" in reply.result.variants[0].jaxpr_text


def test_sigkill_from_outside_is_detected_and_replaced(client, events, tmp_path):
    events.clear()
    marker = tmp_path / "running"
    handle = client.submit(trace(f"open({str(marker)!r}, 'w').close()\nwhile True:\n    pass"))
    wait_for_file(marker)
    pid = client.info.pid
    os.kill(pid, signal.SIGKILL)
    reply = handle.result(READY_S)
    assert not reply.ok and reply.error.kind == "crash"
    assert reply.error.message.startswith("engine crashed: SIGKILL")
    assert reply.error.message.endswith("while tracing `f`")
    events.wait_for("crashed")
    assert ok_reply(client).pid not in (0, pid)


def test_request_sent_to_an_engine_that_died_before_starting_it_is_retried(client):
    pid = client.info.pid
    os.kill(pid, signal.SIGSTOP)  # it can no longer read its requests
    try:
        handle = client.submit(DevicesRequest())
        deadline = time.monotonic() + READY_S
        while client._inflight is None:  # white box: wait until it was sent
            assert time.monotonic() < deadline, "the request was never sent"
            time.sleep(0.01)
    finally:
        os.kill(pid, signal.SIGKILL)
    reply = handle.result(READY_S)
    assert reply.ok, reply.error
    assert reply.result.pid != pid


def test_cancel_running_request_is_prompt_and_engine_stays_usable(client, tmp_path):
    marker = tmp_path / "running"
    running = client.submit(trace(f"open({str(marker)!r}, 'w').close()\nwhile True:\n    pass"))
    queued = client.submit(DevicesRequest())
    wait_for_file(marker)
    running.cancel()  # how promptly: benchmarks/bench_engine_limits.py
    reply = running.result(READY_S)
    assert reply.error.kind == "cancelled" and "while tracing `f`" in reply.error.message
    assert queued.result(READY_S).ok
    assert ok_reply(client).pid > 0


def test_cancel_queued_request_drops_it(client, events, tmp_path):
    marker = tmp_path / "running"
    running = client.submit(trace(f"open({str(marker)!r}, 'w').close()\ntime.sleep(60)"))
    queued = client.submit(DevicesRequest())
    wait_for_file(marker)
    pid = client.info.pid
    client.cancel(queued.id)
    reply = queued.result(READY_S)
    assert reply.error.kind == "cancelled" and reply.error.message == "cancelled before it started"
    assert not running.done() and client.info.pid == pid  # the engine was left alone
    running.cancel()
    assert running.result(READY_S).error.kind == "cancelled"
    # Cancelling a request that already ended changes nothing: its reply stays, the
    # engine that replaced the cancelled one keeps running, no event is emitted.
    pid = ok_reply(client).pid
    _callbacks_done(client)  # the restart's events have been delivered
    events.clear()
    client.cancel(queued.id)
    client.cancel(running.id)
    assert queued.result(0).error.message == "cancelled before it started"
    assert running.result(0).error.kind == "cancelled"
    assert ok_reply(client).pid == pid
    _callbacks_done(client)
    assert events.kinds() == []


def test_engine_of_another_schema_version_is_refused(monkeypatch):
    import jaxviz.engine.client as client_module

    monkeypatch.setattr(client_module, "SCHEMA_VERSION", client_module.SCHEMA_VERSION + 1)
    events = Events()
    c = EngineClient(devices=1, on_event=events, standby=False)
    try:
        handle = c.submit(DevicesRequest())
        with pytest.raises(EngineError) as caught:
            c.wait_ready(READY_S)
        message = str(caught.value)
        assert caught.value.info.kind == "engine"
        assert message.startswith("refused the engine")
        assert f"speaks record schema {client_module.SCHEMA_VERSION - 1}" in message
        reply = handle.result(READY_S)
        assert not reply.ok and reply.error.message == message
        assert events.wait_for("crashed").message == message
    finally:
        c.stop()


def test_engine_that_cannot_start_says_why(tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'ImportError: no jax here' >&2\nexit 3\n")
    fake.chmod(0o755)
    c = EngineClient(devices=2, python=str(fake), standby=False)
    try:
        with pytest.raises(EngineError) as caught:
            c.wait_ready(READY_S)
        assert caught.value.info.kind == "crash"
        assert str(caught.value) == ("the engine could not start: it ended with exit code 3: "
                                     "ImportError: no jax here")
    finally:
        c.stop()


def test_bad_arguments_are_refused_before_anything_starts():
    with pytest.raises(ValueError, match="device count"):
        EngineClient(devices=0)
    with pytest.raises(ValueError, match="timeout"):
        EngineClient(timeout=0)
    c = EngineClient(devices=1, standby=False)
    with pytest.raises(TypeError, match="cannot encode"):
        c.submit(object())
    c.stop()
