"""The versioned JSON-lines protocol between a front end (CLI or app) and the engine child process.

One JSON object per line, each with ``type`` and ``protocol`` (the version): a line of another version is
refused as a whole, whatever it says. The engine writes on its protocol stream (its original stdout, which it
moves away from fd 1 before any user code runs); the front end writes requests on the engine's stdin.

Every message is a frozen dataclass below; ``encode`` writes one as a line, ``decode`` reads a line back
into one (or raises ProtocolError), and ``dispatch`` calls the handler for a message's type. Nothing else
reads or writes the wire format.

Engine -> front end:
    Hello       once, when ready: the device, torch, and the warm-up compile the engine started (if any)
    Warmup      that compile ended; state: done or failed
    StageStartedMessage  a stage of a run began; the sweep's says how many points will follow (``total``);
                on the wire still ``progress`` (renaming it there takes a new protocol version and new recordings)
    Partial     a report with what is known so far (eager first)
    SweepPointMessage  one point of the sweep (a ``report.SweepPoint``), as soon as it is measured
    Done        the final report; the engine ends after it (one scenario per engine)
Front end -> engine:
    RunRequest  measure one scenario; ``variants``: {NAME: {torch.compile arguments}}, added to or
                overriding the file's VARIANTS (``--variant``); the run's settings travel here too (the
                preview's ``arch``, ``remeasure_ceiling``, ``timed``), never in the engine's environment, which a
                transport over ssh would not carry
    Quit        end
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal, TypeVar, cast, get_args

from kernel_tui.model.names.safe_text import safe_text
from kernel_tui.model.report.report import ScenarioReport, SweepPoint
from kernel_tui.model.report.report_schema import checked, checked_report

PROTOCOL_VERSION = 2
"""Fields added to a message with a default (RunRequest's ``arch``, ``remeasure_ceiling``, ``timed``) keep the version:
a line without them reads with the default, which is what a front end that predates them meant."""

Stage = Literal["load", "inputs", "eager", "compile", "profile", "timing", "sweep"]
"""A stage of a run, in the order a run passes them (``StageStartedMessage``): the engine announces them, the front ends
show them."""
STAGE_ORDER: tuple[Stage, ...] = get_args(Stage)
WarmupState = Literal["done", "failed"]
WARMUP_STATES: tuple[WarmupState, ...] = get_args(WarmupState)
Device = Literal["cpu", "cuda", "cuda-preview"]
"""What an engine runs on (``Hello``): a device, or the CUDA preview, which generates a GPU's code on any machine."""
DEVICES: tuple[Device, ...] = get_args(Device)
Arch = Literal[80, 90, 100]
"""The GPU architectures the CUDA preview generates code for: sm_80 (A100), sm_90 (H100/H200), sm_100 (B200)."""
ARCHES: tuple[Arch, ...] = get_args(Arch)
DEFAULT_ARCH: Arch = 90


class ProtocolError(ValueError):
    """A line on the protocol stream that is not a message of this version."""


class VersionMismatch(ProtocolError):
    """A message of another protocol version: the other side is another kernel-tui, and nothing it sends
    can be trusted to mean what this one reads."""


# -- engine -> front end ---------------------------------------------------------------------------


@dataclass(frozen=True)
class WarmupPlan:
    """The warm-up compile an engine started right after its hello (``--warm-up``)."""

    cold: bool
    """Whether Inductor's cache was empty: a cold warm-up takes much longer."""
    estimate_s: float


@dataclass(frozen=True)
class Hello:
    pid: int
    device: str
    """One of ``DEVICES``; typed as text while ``kernel-tui view`` makes a hello from a saved report's device."""
    device_name: str
    torch_version: str
    threads: int
    warmup: WarmupPlan | None = None


@dataclass(frozen=True)
class Warmup:
    state: WarmupState
    seconds: float
    cold: bool | None = None
    message: str | None = None
    """Why it failed."""


@dataclass(frozen=True)
class StageStartedMessage:
    """A stage of a run began: the app's ``StageStarted``, and ``stage_started`` wherever it is handled."""

    run_id: int
    stage: Stage
    detail: str
    total: int | None = None
    """How many steps the stage takes when it has several: the sweep's number of sizes."""


@dataclass(frozen=True)
class Partial:
    run_id: int
    report: ScenarioReport


@dataclass(frozen=True)
class SweepPointMessage:
    """One point of the sweep, measured: the message that carries a ``report.SweepPoint``."""

    run_id: int
    point: SweepPoint


@dataclass(frozen=True)
class Done:
    run_id: int
    report: ScenarioReport


# -- front end -> engine ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RunRequest:
    run_id: int
    path: str
    size: int | None = None
    """Elements for the kernel tables; None: the scenario's own SIZE."""
    sizes: tuple[int, ...] | None = None
    """The sweep's sizes; None: the scenario's own SIZES."""
    sweep: bool = True
    trace_dir: str | None = None
    variants: dict[str, dict[str, Any]] | None = None
    """Compile variants by name, each a set of torch.compile keyword arguments; None: the file's own."""
    arch: Arch | None = None
    """The GPU architecture a preview generates code for; None: the engine's own (``--arch``, else sm_90)."""
    remeasure_ceiling: bool = False
    """Measure the device's ceilings again before using them, whatever the cache holds (``--remeasure-ceiling``);
    once per engine."""
    timed: bool = True
    """Time eager against compiled (and the size sweep); False (``--no-time``): kernels, bytes and memory only."""


@dataclass(frozen=True)
class Quit:
    pass


RunMessage = StageStartedMessage | Partial | SweepPointMessage | Done
EngineMessage = Hello | Warmup | RunMessage
Request = RunRequest | Quit
Message = EngineMessage | Request

WIRE_TYPES: dict[type, str] = {
    Hello: "hello",
    Warmup: "warmup",
    StageStartedMessage: "progress",  # the wire keeps the name it had, which every recording holds
    Partial: "partial",
    SweepPointMessage: "sweep_point",
    Done: "done",
    RunRequest: "run",
    Quit: "quit",
}


def encode(message: Message) -> str:
    """``message`` as one line of the protocol stream."""
    fields_on_wire = {field.name: _to_wire(getattr(message, field.name)) for field in fields(message)}
    line = {"type": WIRE_TYPES[type(message)], "protocol": PROTOCOL_VERSION, **fields_on_wire}
    # Times can be NaN (a mode that did not run); Python's json reads back what it writes.
    return json.dumps(line, allow_nan=True) + "\n"


def _to_wire(value: Any) -> Any:
    if isinstance(value, ScenarioReport):
        return value.to_dict()
    if isinstance(value, (SweepPoint, WarmupPlan)):
        return asdict(value)
    if isinstance(value, tuple):
        return list(value)
    return value


def decode(line: str) -> Message:
    """The message on one line of the protocol stream; ProtocolError for anything else."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        raise ProtocolError(f"not JSON: {line[:200]!r}") from error
    return decode_object(data)


def decode_object(data: Any) -> Message:
    """The message a parsed line (or a recorded one) holds; ProtocolError for anything else."""
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise ProtocolError(f"not a message: {str(data)[:200]!r}")
    if data.get("protocol") != PROTOCOL_VERSION:
        raise VersionMismatch(
            f"a {data['type']!r} message of protocol version {data.get('protocol')!r}, "
            f"not {PROTOCOL_VERSION}: the engine and the front end come from different kernel-tui versions"
        )
    reader = _READERS.get(data["type"])
    if reader is None:
        raise ProtocolError(f"unknown message type {data['type']!r}")
    fields_read = _Fields(data)
    try:
        return reader(fields_read)
    except (AttributeError, KeyError, TypeError, ValueError) as error:  # what a report's from_dict raises
        raise ProtocolError(f"a malformed {data['type']!r} message ({error}): {str(data)[:200]!r}") from error


Choice = TypeVar("Choice")


class _Fields:
    """A wire object's fields, each checked for its type as it is read."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def _get(self, name: str, kinds: type | tuple[type, ...], optional: bool) -> Any:
        """The field's value; an optional field may be null or left out. The typed readers below cast what it
        returns to the type ``kinds`` names: the isinstance check here is what makes that cast true."""
        if name not in self._data and not optional:
            raise KeyError(f"no {name!r}")
        value = self._data.get(name)
        if value is None and optional:
            return None
        # bool is an int to isinstance, never to the protocol.
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in _as_tuple(kinds)):
            raise TypeError(f"{name!r} is {value!r}")
        return value

    def integer(self, name: str) -> int:
        return cast("int", self._get(name, int, optional=False))

    def optional_integer(self, name: str) -> int | None:
        return cast("int | None", self._get(name, int, optional=True))

    def number(self, name: str) -> float:
        value = self._get(name, (int, float), optional=False)
        if not math.isfinite(value):
            raise ValueError(f"{name!r} is {value!r}")
        return float(value)

    # The engine runs a stranger's code: what it says is shown as text, never as a terminal's escape.
    def text(self, name: str) -> str:
        return safe_text(self._get(name, str, optional=False))

    def optional_text(self, name: str) -> str | None:
        value = self._get(name, str, optional=True)
        return safe_text(value) if value is not None else None

    # A path is a name to open, not text to show: its shown form (``⟨U+202E⟩`` for the character) names no file.
    def path(self, name: str) -> str:
        return cast("str", self._get(name, str, optional=False))

    def optional_path(self, name: str) -> str | None:
        return cast("str | None", self._get(name, str, optional=True))

    def choice(self, name: str, allowed: tuple[Choice, ...]) -> Choice:
        """One of ``allowed`` (a Literal type's values), whatever else the field holds refused."""
        value = self._data.get(name)
        if name not in self._data:
            raise KeyError(f"no {name!r}")
        return self._one_of(name, value, allowed)

    def optional_choice(self, name: str, allowed: tuple[Choice, ...]) -> Choice | None:
        value = self._data.get(name)
        return None if value is None else self._one_of(name, value, allowed)

    @staticmethod
    def _one_of(name: str, value: Any, allowed: tuple[Choice, ...]) -> Choice:
        for choice in allowed:
            # 90 is not True, nor is True 1, on the protocol.
            if value == choice and type(value) is type(choice):
                return choice
        raise ValueError(f"{name!r} is {value!r}, not one of {', '.join(map(repr, allowed))}")

    def flag(self, name: str) -> bool:
        return cast("bool", self._get(name, bool, optional=False))

    def optional_flag(self, name: str) -> bool | None:
        return cast("bool | None", self._get(name, bool, optional=True))

    def mapping(self, name: str) -> dict[str, Any]:
        return cast("dict[str, Any]", self._get(name, dict, optional=False))

    def optional_mapping(self, name: str) -> dict[str, Any] | None:
        return cast("dict[str, Any] | None", self._get(name, dict, optional=True))

    def integers(self, name: str) -> tuple[int, ...] | None:
        values = self._get(name, list, optional=True)
        if values is None:
            return None
        if not all(isinstance(value, int) and not isinstance(value, bool) for value in values):
            raise TypeError(f"{name!r} is {values!r}")
        return tuple(values)

    def report(self) -> ScenarioReport:
        # NaN is a time that was not measured, on the wire; a results file (``results_file``) refuses it.
        return ScenarioReport.from_dict(checked_report(self.mapping("report"), finite=False))


def _as_tuple(kinds: type | tuple[type, ...]) -> tuple[type, ...]:
    return kinds if isinstance(kinds, tuple) else (kinds,)


def _read_hello(wire: _Fields) -> Hello:
    plan = wire.optional_mapping("warmup")
    warmup = None
    if plan is not None:
        plan_fields = _Fields(plan)
        warmup = WarmupPlan(cold=plan_fields.flag("cold"), estimate_s=plan_fields.number("estimate_s"))
    return Hello(
        pid=wire.integer("pid"),
        device=wire.choice("device", DEVICES),
        device_name=wire.text("device_name"),
        torch_version=wire.text("torch_version"),
        threads=wire.integer("threads"),
        warmup=warmup,
    )


def _read_warmup(wire: _Fields) -> Warmup:
    state = wire.choice("state", WARMUP_STATES)
    return Warmup(state, wire.number("seconds"), wire.optional_flag("cold"), wire.optional_text("message"))


def _read_stage_started(wire: _Fields) -> StageStartedMessage:
    stage = wire.choice("stage", STAGE_ORDER)
    return StageStartedMessage(wire.integer("run_id"), stage, wire.text("detail"), wire.optional_integer("total"))


def _read_sweep_point(wire: _Fields) -> SweepPointMessage:
    return SweepPointMessage(
        wire.integer("run_id"),
        SweepPoint(**checked(SweepPoint, wire.mapping("point"), finite=False, where="point")),
    )


def _read_run_request(wire: _Fields) -> RunRequest:
    return RunRequest(
        run_id=wire.integer("run_id"),
        path=wire.path("path"),
        size=wire.optional_integer("size"),
        sizes=wire.integers("sizes"),
        sweep=wire.flag("sweep"),
        trace_dir=wire.optional_path("trace_dir"),
        variants=_variants(wire.optional_mapping("variants")),
        arch=wire.optional_choice("arch", ARCHES),
        remeasure_ceiling=wire.optional_flag("remeasure_ceiling") or False,
        timed=wire.optional_flag("timed") is not False,
    )


def _variants(value: dict[str, Any] | None) -> dict[str, dict[str, Any]] | None:
    if value is not None and not all(isinstance(options, dict) for options in value.values()):
        raise TypeError(f"'variants' is {value!r}")
    return value


_READERS: dict[str, Callable[[_Fields], Message]] = {
    "hello": _read_hello,
    "warmup": _read_warmup,
    "progress": _read_stage_started,
    "partial": lambda wire: Partial(wire.integer("run_id"), wire.report()),
    "sweep_point": _read_sweep_point,
    # A Done of protocol 2's older engines may say ``restart``: every engine ends after its run now, so it is not read.
    "done": lambda wire: Done(wire.integer("run_id"), wire.report()),
    "run": _read_run_request,
    "quit": lambda wire: Quit(),
}


Result = TypeVar("Result")


def dispatch(
    message: Message,
    *,
    hello: Callable[[Hello], Result] | None = None,
    warmup: Callable[[Warmup], Result] | None = None,
    stage_started: Callable[[StageStartedMessage], Result] | None = None,
    partial: Callable[[Partial], Result] | None = None,
    sweep_point: Callable[[SweepPointMessage], Result] | None = None,
    done: Callable[[Done], Result] | None = None,
    run: Callable[[RunRequest], Result] | None = None,
    quit: Callable[[Quit], Result] | None = None,  # named after the message, like the others
) -> Result | None:
    """Call the handler for ``message``'s type and return what it returns; None for a type left unhandled, or
    declared (``WIRE_TYPES``) with no handler here yet."""
    match message:
        case Hello():
            return hello(message) if hello else None
        case Warmup():
            return warmup(message) if warmup else None
        case StageStartedMessage():
            return stage_started(message) if stage_started else None
        case Partial():
            return partial(message) if partial else None
        case SweepPointMessage():
            return sweep_point(message) if sweep_point else None
        case Done():
            return done(message) if done else None
        case RunRequest():
            return run(message) if run else None
        case Quit():
            return quit(message) if quit else None
    if type(message) in WIRE_TYPES:
        return None  # a message declared with no handler here: whoever reads it by its type (``RunRecord``)
    raise TypeError(f"not a protocol message: {message!r}")
