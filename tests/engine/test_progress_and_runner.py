"""Progress streaming through the engine, and the command line's runner on top of it."""

from __future__ import annotations

import functools
import threading

import pytest

from jaxviz.cli import runner
from jaxviz.engine import EngineClient, EngineError
from jaxviz.model import TraceResult
from tests.helpers.counting import Counted, CountRequest, make_python
from tests.helpers.engine import READY_S, trace

# Not in the fast tier: real engine processes.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def counting_python(tmp_path_factory) -> str:
    return make_python(tmp_path_factory.mktemp("counting"))


def test_progress_arrives_in_order_before_the_reply(counting_python):
    seen: list[str] = []
    delivered = threading.Event()
    c = EngineClient(devices=2, python=counting_python, standby=False)
    try:
        def on_reply(reply):
            seen.append(f"reply {reply.result.i}")
            delivered.set()

        handle = c.submit(CountRequest(5), on_reply,
                          on_progress=lambda rec: seen.append(f"progress {rec.i}"))
        assert handle.result(READY_S).ok
        assert delivered.wait(READY_S)
        assert seen == [f"progress {i}" for i in range(5)] + ["reply 5"]
    finally:
        c.stop()


@pytest.fixture
def engine_runner(monkeypatch, counting_python):
    """The CLI runner, with its engine able to count; stopped afterwards."""
    monkeypatch.setattr(runner, "EngineClient",
                        functools.partial(EngineClient, python=counting_python))
    monkeypatch.setattr(runner, "_client", None)
    yield runner
    if runner._client is not None:
        runner._client.stop()


def test_run_request_streams_progress_and_returns_the_result(engine_runner):
    got: list[int] = []
    result = engine_runner.run_request(CountRequest(3, delay_s=0.01), 2, 30.0,
                                       on_progress=lambda rec: got.append(rec.i))
    assert result == Counted(3)
    assert got == [0, 1, 2]  # all delivered before run_request returned


def test_run_request_raises_engine_error_on_timeout(engine_runner):
    with pytest.raises(EngineError) as caught:
        engine_runner.run_request(CountRequest(100, delay_s=0.1), 2, 1.0)
    assert caught.value.info.kind == "timeout"
    assert str(caught.value).startswith("timed out after 1 s while handling a CountRequest")


def test_run_trace_reports_engine_failures_as_result_error(engine_runner):
    result = engine_runner.run_trace(trace("print('hi', flush=True)\nos.abort()"), 2, 30.0)
    assert isinstance(result, TraceResult) and result.function == "f"
    assert result.error.kind == "crash" and "SIGABRT" in result.error.message
    assert result.stdout == "hi\n"
    ok = engine_runner.run_trace(trace("print('fine')\nreturn x"), 2, 30.0)
    assert ok.error is None and ok.stdout == "fine\n"
    assert ok.variants[0].jaxpr_text.startswith("{ lambda ; a:f32[3]")


def test_runner_restarts_the_engine_for_another_device_count(engine_runner):
    assert len(engine_runner.run_trace(trace("return x"), 2, 30.0).devices) == 2
    assert len(engine_runner.run_trace(trace("return x"), 3, 30.0).devices) == 3
