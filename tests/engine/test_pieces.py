"""Long messages travel in pieces and come back equal; replies decode in steps to the same records.

The oracle for the round trip is the message itself (what was sent is what is read),
and for the stepped decoding :func:`jaxviz.model.from_plain` (one call). The data is a
real reply: an example traced by JAX in this process, cut into many small pieces.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from jaxviz.engine import protocol
from jaxviz.model import Reply, from_plain, to_plain
from jaxviz.model.codec import STEP_VALUES, SchemaMismatch, from_plain_steps
from jaxviz.views.incremental import run_to_end
from tests.helpers.device_cases import traced

TOKEN = "a" * 32


def _stream(parts: list[dict]) -> io.BytesIO:
    return io.BytesIO(b"".join(protocol.encode({**p, "token": TOKEN}) for p in parts))


def _read(parts: list[dict]) -> dict:
    message = protocol.receive_signed(_stream(parts), TOKEN)
    assert message is not None
    return {k: v for k, v in message.items() if k != "token"}


@pytest.fixture(scope="module")
def reply_plain() -> dict:
    result = traced("data_parallel", "pmap")  # a jaxpr and a storyboard, from JAX
    return to_plain(Reply(id=4, ok=True, result=result))


def test_a_real_reply_cut_into_small_pieces_is_read_whole(reply_plain):
    message = {"op": protocol.REPLY, "id": 4, "reply": reply_plain}
    parts = protocol.split(message, limit=1024)
    assert len(parts) > 10 and all(p["op"] == protocol.PIECE for p in parts[:-1])
    assert any(p["refs"] for p in parts[:-1])  # pieces that refer to earlier pieces
    assert _read(parts) == message
    assert from_plain(_read(parts)["reply"]).result.variants[0].jaxpr_text == \
        reply_plain["record"]["result"]["variants"][0]["jaxpr_text"]


def test_a_short_message_is_one_line_as_it_was():
    message = {"op": protocol.PROGRESS, "id": 1, "record": {"x": list(range(10))}}
    assert protocol.split(message) == [message]
    assert _read(protocol.split(message)) == message


def test_data_that_looks_like_a_reference_is_left_alone():
    message = {"op": protocol.REPLY, "id": 2, "reply": {
        "mimic": {"__pieces__": [0]}, "also": [{"__pieces__": [0, 1]}], "long": list(range(3000)),
        "nested": [[str(i) * 40 for i in range(200)] for _ in range(3)], "empty": []}}
    parts = protocol.split(message, limit=512)
    assert len(parts) > 3
    assert _read(parts) == message


def test_pieces_that_do_not_fit_their_message_are_refused():
    message = {"op": protocol.REPLY, "id": 3, "reply": list(range(4000))}
    parts = protocol.split(message, limit=1024)
    with pytest.raises(protocol.ProtocolError, match="pieces"):
        _read(parts[1:])  # the first piece lost
    shuffled = [parts[0], {**parts[-1], "refs": [["reply", "nowhere"]]}]
    with pytest.raises(protocol.ProtocolError):
        _read(parts[:-1] + shuffled[1:])
    assert protocol.receive_signed(_stream(parts[:-1]), TOKEN) is None  # cut off: nothing


def test_an_unsigned_piece_is_a_forgery():
    parts = protocol.split({"op": protocol.REPLY, "id": 3, "reply": list(range(4000))},
                           limit=1024)
    lines = [protocol.encode({**p, "token": TOKEN}) for p in parts]
    lines[1] = protocol.encode(parts[1])
    with pytest.raises(protocol.ForgedMessage):
        protocol.receive_signed(io.BytesIO(b"".join(lines)), TOKEN)


def test_a_child_writes_a_long_message_in_pieces(reply_plain):
    """The engine's own channel (child.Channel.send) cuts it; the parent's reader joins it."""
    script = "from jaxviz.engine.child import Channel\nch = Channel()\nch.send(ch.receive())\n"
    message = {"op": protocol.REPLY, "id": 9, "reply": reply_plain, "more": [reply_plain] * 12}
    assert len(json.dumps(message)) > protocol.PIECE_CHARS
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120,
                         input=protocol.hello(TOKEN) + protocol.encode(message))
    assert out.returncode == 0, out.stderr.decode()
    lines = out.stdout.splitlines()
    assert len(lines) > 2 and max(map(len, lines)) < len(json.dumps(message)) / 2
    got = protocol.receive_signed(io.BytesIO(out.stdout), TOKEN)
    assert {k: v for k, v in got.items() if k != "token"} == message


def _stepped(steps) -> tuple[object, int]:
    """What ``steps`` returns, and how many steps it took to."""
    count = 0
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value, count
        count += 1


def _values(data) -> int:
    """The items of every dict and list in ``data``."""
    if isinstance(data, dict):
        return len(data) + sum(_values(v) for v in data.values())
    if isinstance(data, list):
        return len(data) + sum(_values(v) for v in data)
    return 0


def test_a_nested_programs_reply_is_decoded_in_a_few_steps_of_one_pass():
    """data_parallel's pmap holds a shard_map holding a jaxpr: parts nested ten deep, each
    just over STEP_VALUES values. Its reply is decoded in as many steps as its values
    fill (a step of each thousand), into what it would be at once, each record made once
    (not counted apart first, nor tried whole and made again part by part)."""
    from jaxviz.model import codec

    reply_plain = to_plain(Reply(id=4, ok=True, result=[traced("data_parallel", "pmap")] * 3))
    made: list[int] = [0]
    real = codec._make_record

    def counted(*args):
        made[0] += 1
        return real(*args)

    whole = from_plain(reply_plain)
    codec._make_record = counted
    try:
        steps, per_step = from_plain_steps(reply_plain), []
        while True:
            made[0] = 0
            try:
                next(steps)
            except StopIteration as done:
                stepped = done.value
                break
            per_step.append(made[0])
    finally:
        codec._make_record = real
    values = _values(reply_plain["record"])
    assert stepped == whole
    assert values > 3 * STEP_VALUES
    assert len(per_step) <= values // STEP_VALUES + 1, (len(per_step), values)
    assert sum(per_step) + made[0] == _records(reply_plain["record"])  # each made once


def test_a_long_list_of_numbers_is_decoded_a_thousand_values_a_step():
    """A list of plain values (a long literal, recorded values) is cut into steps too:
    not one step of all of it."""
    from jaxviz.model.codec import SCHEMA_VERSION

    numbers = list(range(20 * STEP_VALUES))
    decoded, count = _stepped(from_plain_steps({"schema": SCHEMA_VERSION, "record": numbers}))
    assert decoded == numbers
    assert 19 <= count <= 21


def _records(data) -> int:
    """The records (tagged dicts) in ``data``."""
    if isinstance(data, dict):
        return ("__type__" in data) + sum(_records(v) for v in data.values())
    if isinstance(data, list):
        return sum(_records(v) for v in data)
    return 0


def test_a_reply_decoded_in_steps_is_the_one_decoded_at_once():
    results = [traced("data_parallel", "pmap"), traced("batched_matmul", "vmap")] * 30
    reply_plain = to_plain(Reply(id=4, ok=True, result=results))
    stepped, count = _stepped(from_plain_steps(reply_plain))
    whole = from_plain(reply_plain)
    assert stepped == whole
    # steps of about STEP_VALUES values each, however the values nest: one pass
    values = _values(reply_plain["record"])
    assert values // STEP_VALUES - 1 <= count <= values // STEP_VALUES + 1, (count, values)
    with pytest.raises(SchemaMismatch, match="unknown record type"):
        run_to_end(from_plain_steps({**reply_plain, "record": {
            "__type__": "Reply", "id": 1, "ok": True, "result": [{"__type__": "NoSuch"}] * 40}}))
