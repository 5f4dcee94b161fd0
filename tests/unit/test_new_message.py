"""A run message declared in ``transport/protocol.py`` alone reaches the client's reader, the run's record and
whoever reads it by its type, with nothing else changed (issue 36: a protocol message in three files).

``Remark`` stands for the next message: registered the way ``protocol.py`` declares one (its wire name, its
reader, a member of ``RunMessage``), and by nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from pathlib import Path
from typing import Any

import pytest
from support.ui_support import ADD_RELU
from test_client import stand_in

from kernel_tui.transport import client as client_module
from kernel_tui.transport import protocol
from kernel_tui.transport.client import EngineClient
from kernel_tui.transport.protocol import Done, Partial, RunMessage, StageStartedMessage
from kernel_tui.transport.run_record import RunRecord, fold


@dataclass(frozen=True)
class Remark:
    run_id: int
    text: str


@pytest.fixture
def declared(monkeypatch: pytest.MonkeyPatch) -> None:
    """``Remark`` declared as ``protocol.py`` would declare it."""
    monkeypatch.setitem(protocol.WIRE_TYPES, Remark, "remark")
    monkeypatch.setitem(protocol._READERS, "remark", lambda wire: Remark(wire.integer("run_id"), wire.text("text")))
    monkeypatch.setattr(client_module, "RunMessage", RunMessage | Remark)


@pytest.mark.usefixtures("declared")
def test_the_record_keeps_a_message_it_has_no_fold_for_readable_by_its_type() -> None:
    remarks = [Remark(5, "first"), Remark(5, "second")]
    messages: list[Any] = [StageStartedMessage(5, "load", "x.py"), remarks[0], Remark(4, "another run's"), remarks[1]]
    record = reduce(fold, messages, RunRecord(5, ADD_RELU, sweep=False))
    assert record.latest(Remark) == Remark(5, "second") and record.every(Remark) == (remarks[0], remarks[1])
    assert record.stage == "load", "the folds that aggregate are kept"
    assert record.latest(Partial) is None and record.every(Done) == (), "a folded kind is not kept twice"
    on_the_wire: Any = Remark(5, "x")
    decoded: object = protocol.decode(protocol.encode(on_the_wire))
    assert decoded == Remark(5, "x")


@pytest.mark.usefixtures("declared")
def test_the_client_passes_a_new_message_on_to_its_run(tmp_path: Path) -> None:
    """The client's reader once had a handler per type, and dropped any message added after it."""
    body = """
    sys.stdout.write(json.dumps({"type": "remark", "protocol": 2, "run_id": request.run_id, "text": "hi"}) + "\\n")
    send(done(request))
    """
    with EngineClient(command=stand_in(tmp_path, body)) as client:
        messages: list[Any] = list(client.run("x.py", timeout=30, run_id=3))
    assert messages[0] == Remark(3, "hi") and isinstance(messages[1], Done)
    record = reduce(fold, messages, RunRecord(3, Path("x.py"), sweep=False))
    assert record.latest(Remark) == Remark(3, "hi") and record.done
