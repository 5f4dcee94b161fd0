"""What a crashed engine's last words say: the frames of ``faulthandler``'s dump and of torch's native one.

An engine enables ``faulthandler`` for every thread and torch's fatal-signal handler (``engine.serve.crash_stacks``).
On a crash, faulthandler writes ``Fatal Python error: Segmentation fault``, then each thread's Python frames
innermost first (the crashing one headed ``Current thread``), then the extension modules; torch then writes each
thread's native frames (``SIGSEGV(11), PID: 12, Thread 12:``, ``frame #3: ...``), the crashing thread's being the
one whose frames include its own handler. A compiling engine's dump is 60 and more lines; what matters is at its
head (the crashing thread's innermost frames), so it is read whole here and shown as the few lines that say where.
Text only: the front end reads it from the engine's stderr, and nothing here touches torch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

FATAL = re.compile(r"^Fatal Python error: (?P<what>.*)$")
THREAD = re.compile(r"^(?P<current>Current thread|Thread) (?P<id>0x[0-9a-fA-F]+)\b.*\(most recent call first\):\s*$")
PYTHON_FRAME = re.compile(r'^\s+File "(?P<file>.*)", line (?P<line>\d+) in (?P<function>.*?)\s*$')
NATIVE_THREAD = re.compile(r"^(?P<signal>SIG[A-Z0-9]+)\(\d+\), PID: \d+, Thread (?P<id>\d+):")
NATIVE_FRAME = re.compile(r"^\s*frame #\d+: ")
NATIVE_HANDLER = re.compile(r"fatalSignalHandler|\bgsignal\b|\braise\b|pthread_kill")
"""Frames of the handlers themselves and of the re-raise between them: the crash is two frames below the last
(the next is the kernel's signal trampoline)."""
DUMP_START = re.compile(f"{FATAL.pattern}|{NATIVE_THREAD.pattern}")
"""The first line of a crash dump, whichever handler writes first."""

INNERMOST_KEPT = 12
"""The crashing thread's innermost frames shown, of each kind; the dump itself is longer."""
OTHER_THREADS_KEPT = 3
"""Each other thread's innermost Python frames shown: what it was doing, not how it got there."""


@dataclass(frozen=True)
class Frame:
    """One Python frame of the dump."""

    file: str
    line: int
    function: str

    def where(self) -> str:
        return f"{Path(self.file).name}:{self.line} in {self.function}"


@dataclass(frozen=True)
class CrashDump:
    """A crash as the dump tells it; every sequence of frames innermost first."""

    fatal: str
    """faulthandler's words for it (``Segmentation fault``), or torch's signal name ('' if neither said)."""
    frames: tuple[Frame, ...]
    """The crashing thread's Python frames."""
    native: tuple[str, ...]
    """The crashing thread's native frames below the signal handlers, as torch printed them."""
    others: tuple[tuple[str, tuple[Frame, ...]], ...]
    """Every other thread: its id and its Python frames."""

    def frame_in(self, scenario: str | Path) -> Frame | None:
        """The innermost frame of the crashing thread in the file ``scenario`` (the scenario's own line)."""
        wanted = _same_file_key(scenario)
        return next((frame for frame in self.frames if _same_file_key(frame.file) == wanted), None)

    def crashing_frame(self) -> str:
        """The innermost frame there is, native if torch printed one, in a line."""
        if self.native:
            return _native_words(self.native[0])
        return self.frames[0].where() if self.frames else ""

    def details(self) -> str:
        """The lines that say where: the crashing thread's innermost frames, Python's and native, then what each
        other thread was doing."""
        lines = [f"Fatal Python error: {self.fatal}" if self.fatal else "The engine crashed", ""]
        lines.append("The crashing thread, innermost frame first:")
        innermost = self.frames[:INNERMOST_KEPT]
        lines += [f'  File "{frame.file}", line {frame.line} in {frame.function}' for frame in innermost]
        if len(self.frames) > INNERMOST_KEPT:
            lines.append(f"  ... {len(self.frames) - INNERMOST_KEPT} outer frames more")
        if not self.frames:
            lines.append("  (no Python frame)")
        if self.native:
            lines += ["", "Its native frames, innermost first (torch's handler):"]
            lines += [f"  {_native_words(frame)}" for frame in self.native[:INNERMOST_KEPT]]
            if len(self.native) > INNERMOST_KEPT:
                lines.append(f"  ... {len(self.native) - INNERMOST_KEPT} outer native frames more")
        for thread, frames in self.others:
            lines += ["", f"Thread {thread}:"]
            lines += [f"  {frame.where()}" for frame in frames[:OTHER_THREADS_KEPT]] or ["  (no Python frame)"]
        return "\n".join(lines) + "\n"


def parse(text: str) -> CrashDump | None:
    """The crash dump in ``text`` (an engine's stderr from the dump's first line on); None if there is none."""
    lines = text.splitlines()
    start = next((index for index, line in enumerate(lines) if DUMP_START.match(line)), None)
    if start is None:
        return None
    fatal = ""
    current: tuple[Frame, ...] = ()
    others: list[tuple[str, tuple[Frame, ...]]] = []
    native: tuple[str, ...] = ()
    thread: tuple[str, bool, list[Frame]] | None = None
    native_blocks: list[list[str]] = []
    signal_name = ""

    def close_thread() -> None:
        nonlocal current, thread
        if thread is not None:
            name, is_current, frames = thread
            if is_current:
                current = tuple(frames)
            else:
                others.append((name, tuple(frames)))
        thread = None

    for line in lines[start:]:
        if (fatal_line := FATAL.match(line)) is not None:
            fatal = fatal or fatal_line["what"].strip()
        elif (thread_line := THREAD.match(line)) is not None:
            close_thread()
            thread = (thread_line["id"], thread_line["current"] == "Current thread", [])
        elif (frame_line := PYTHON_FRAME.match(line)) is not None and thread is not None:
            thread[2].append(Frame(frame_line["file"], int(frame_line["line"]), frame_line["function"]))
        elif (native_thread := NATIVE_THREAD.match(line)) is not None:
            close_thread()
            signal_name = signal_name or native_thread["signal"]
            native_blocks.append([])
            # The header line carries the first frame after its colon.
            rest = line[native_thread.end() :].strip()
            if rest:
                native_blocks[-1].append(rest)
        elif native_blocks and NATIVE_FRAME.match(line):
            native_blocks[-1].append(line.strip())
        elif not line.strip() or line.startswith("Extension modules:"):
            close_thread()
    close_thread()
    crashing = next((block for block in native_blocks if any("fatalSignalHandler" in f for f in block)), None)
    if crashing is not None:
        native = tuple(_below_the_handlers(crashing))
    return CrashDump(fatal or signal_name, current, native, tuple(others))


def _below_the_handlers(frames: list[str]) -> list[str]:
    handlers = [index for index, frame in enumerate(frames) if NATIVE_HANDLER.search(frame)]
    return frames[handlers[-1] + 2 :] if handlers else frames


def _native_words(frame: str) -> str:
    """``frame #3: name + 0x18 (0x7f.. in /path/libc.so.6)`` as ``name + 0x18 in libc.so.6``."""
    text = re.sub(r"^frame #\d+:\s*", "", frame)
    found = re.match(r"^(?P<name>.*?) \((?P<address>0x[0-9a-fA-F]+) in (?P<library>.*)\)$", text)
    if found is None:
        return text
    return f"{found['name']} in {Path(found['library']).name}"


def _same_file_key(path: str | Path) -> str:
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError):
        return str(path)
