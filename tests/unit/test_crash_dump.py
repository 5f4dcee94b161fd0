"""A crashed engine's dump, read: recorded dumps of torch 2.14.1 (faulthandler's frames, then torch's native ones,
and the other order), and the error a death with one becomes, with the stage its run's record names."""

from __future__ import annotations

from pathlib import Path

from support.locations import DATA

from kernel_tui.model.death.crash_dump import parse
from kernel_tui.model.report.report import SweepPoint
from kernel_tui.transport.engine_died import EngineDied
from kernel_tui.transport.protocol import Hello, StageStartedMessage, SweepPointMessage, WarmupPlan
from kernel_tui.transport.run_record import RunRecord, crash_stage, fold
from kernel_tui.transport.stderr_kept import STDERR_TAIL_LINES, StderrKept

DUMPS = DATA / "crash_dumps"
COMPILE = (DUMPS / "compile_torch_2_14.txt").read_text()
"""An engine's: fn segfaulted in its compiled call (tests/engine/test_crash_report.py's scenario, at /tmp/ft/sc)."""
NATIVE_FIRST = (DUMPS / "native_first_torch_2_14.txt").read_text()
"""A script's, torch's handler installed after faulthandler: the native frames come first."""
SCENARIO = "/tmp/ft/sc/crash_compiling.py"


def test_the_crashing_threads_frames_are_read_innermost_first() -> None:
    dump = parse("the scenario said something\n" + COMPILE)
    assert dump is not None and dump.fatal == "Segmentation fault"
    assert dump.frames[0].function == "string_at" and dump.frames[0].file.endswith("ctypes/__init__.py")
    frame = dump.frame_in(SCENARIO)
    assert frame is not None and (frame.line, frame.function) == (11, "fn")
    assert [thread for thread, _ in dump.others] == ["0x00007f27e10546c0", "0x00007f27f61ff6c0"]
    assert dump.others[0][1][0].where() == "lifeline.py:144 in read"


def test_the_native_frames_start_below_the_handlers_whichever_wrote_first() -> None:
    for text in (COMPILE, NATIVE_FIRST):
        dump = parse(text)
        assert dump is not None
        # ctypes' string_at read address 0 inside libc: the frame below the signal trampoline, then ctypes.
        assert dump.native[0].startswith("frame #") and "0x167ad8" in dump.native[0]
        assert "_ctypes" in dump.native[1]
        assert dump.crashing_frame() == "<unknown function> + 0x167ad8 in libc.so.6"
    native_first = parse(NATIVE_FIRST)
    assert native_first is not None and native_first.frame_in("/tmp/ft/crash.py") is not None


def test_the_details_keep_the_innermost_frames_and_drop_what_a_tail_kept() -> None:
    dump = parse(COMPILE)
    assert dump is not None
    details = dump.details()
    assert details.index('ctypes/__init__.py", line 519 in string_at') < details.index(f'"{SCENARIO}", line 11 in fn')
    assert "libc.so.6" in details and "Extension modules" not in details and "libkineto" not in details
    assert len(details.splitlines()) < 60


def test_no_dump_in_text_that_has_none() -> None:
    assert parse('Traceback (most recent call last):\n  File "a.py", line 3 in fn\nValueError\n') is None


def test_the_dump_is_kept_whole_though_it_is_longer_than_the_tail() -> None:
    kept = StderrKept()
    assert not kept.append("before\n")
    lines = COMPILE.splitlines(keepends=True)
    began = [kept.append(line) for line in lines]
    assert began.index(True) == 0 and began.count(True) == 1, "the dump begins once, at its first line"
    assert len(lines) > STDERR_TAIL_LINES and kept.dump() == COMPILE
    assert kept.before_dump() == "before\n" and "Current thread" not in kept.tail()


def record_of(*messages: object) -> RunRecord:
    record = RunRecord(1, Path(SCENARIO), sweep=True)
    for message in messages:
        record = fold(record, message)  # type: ignore[arg-type]
    return record


def test_the_stage_is_the_last_one_announced_in_the_words_of_a_crash() -> None:
    assert crash_stage(record_of()) == ""
    assert crash_stage(record_of(StageStartedMessage(1, "eager", "warm-up and profile"))) == "eager profile"
    assert crash_stage(record_of(StageStartedMessage(1, "profile", "compiled kernels"))) == "compiled profile"
    swept = record_of(
        StageStartedMessage(1, "sweep", "8 sizes", total=8), SweepPointMessage(1, SweepPoint(1024, 3.0, 2.0))
    )
    assert crash_stage(swept) == "sweep point 2 of 8"


def test_a_crash_names_the_scenarios_line_the_stage_and_keeps_the_frames() -> None:
    kept = StderrKept()
    for line in ("the scenario's last print\n", *COMPILE.splitlines(keepends=True)):
        kept.append(line)
    hello = Hello(1, "cpu", "a CPU", "2.14.1", 2)
    record = record_of(StageStartedMessage(1, "compile", "torch.compile, first call"))
    error = EngineDied.of(-11, kept, hello, None).error(SCENARIO, record)
    assert (error.stage, error.file, error.line) == ("engine", SCENARIO, 11)
    assert error.message == "the engine was killed by SIGSEGV in the compile, in fn"
    assert error.short_line() == "crash_compiling.py:11: engine: the engine was killed by SIGSEGV in the compile, in fn"
    assert "stage: compile\nlast step announced: compile: torch.compile, first call" in error.details
    assert "crashing frame: <unknown function> + 0x167ad8 in libc.so.6" in error.details
    assert "line 519 in string_at" in error.details and "the scenario's last print" in error.details


def test_a_death_in_the_warm_up_is_named_so() -> None:
    warming = Hello(1, "cpu", "a CPU", "2.14.1", 2, warmup=WarmupPlan(cold=True, estimate_s=9.0))
    kept = StderrKept()
    death = EngineDied.of(-11, kept, warming, None)
    assert death.stage(record_of()) == "warm-up"
    assert death.error(SCENARIO, record_of()).message == "the engine was killed by SIGSEGV in the warm-up"
    assert EngineDied.of(-11, kept, Hello(1, "cpu", "a CPU", "2.14.1", 2), None).stage(record_of()) == ""


def test_a_death_the_front_end_chose_names_no_stage() -> None:
    stopped = EngineDied(None, "", "no result within 5 s: the engine was stopped")
    assert stopped.error(SCENARIO, record_of(StageStartedMessage(1, "eager", ""))).message == stopped.reason
