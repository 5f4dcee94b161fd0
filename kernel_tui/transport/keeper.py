"""The keeper every engine runs below: a child subreaper that ends what the engine's scenario left, then exits as
the engine did.

A child a scenario starts with ``clone(CLONE_PARENT)`` is its engine's sibling, the child of the engine's parent:
with the front end for that parent it was nobody's to end, and it outlived ``kernel-tui run`` (issue 58). So the
engine's parent is always a keeper of its own. An engine forked from the fork server is forked below one there
(``engine.fork_server``); an engine the front end execs (``KERNEL_TUI_FORK_SERVER=0``, another import
environment, no fork server) is exec'd below one started as ``python -m kernel_tui.transport.keeper FD COMMAND``
(``command``), which forks, execs ``COMMAND`` in the child and writes the child's pid on ``FD``. Either way the
keeper's life is ``keep``: a daemon that leaves the engine's session lands on the engine (a subreaper too,
``engine.serve.lifeline``) or, once the engine is gone, on the keeper; the engine names the keeper's other children
in its report and ends them; and when the engine ends the keeper ends everything still below it and only then
exits, with the engine's status, so that the exit the front end hears means nothing the scenario started runs.

A keeper ends, and ends everything below it, when its parent (the fork server, or the front end) ends. It imports
nothing of torch's: an exec'd keeper costs an interpreter's start.
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import signal
import sys
import time
from typing import NoReturn

from kernel_tui.transport import proctree
from kernel_tui.transport.boot import python_command

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
POLL_S = 0.01
END_S = 10.0
"""How long a keeper goes on ending what its engine left (a scenario that forks as fast as it is killed)."""
EXEC_FAILED = 127


def available() -> bool:
    """Whether an engine can be started below a keeper here: one needs ``fork``."""
    return hasattr(os, "fork")


def command(engine: list[str], tell: int) -> list[str]:
    """The command that starts ``engine`` below a keeper, which writes the engine's pid on descriptor ``tell``."""
    return python_command("kernel_tui.transport.keeper", str(tell), *engine)


def set_subreaper() -> None:
    """Become the child subreaper of everything below this process (Linux): an orphan below it is its, not init's."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def set_parent_death_signal(sig: int) -> bool:
    """Be sent ``sig`` when the parent ends (Linux); False where that cannot be asked for. The kernel sends it too
    when the parent's *thread* that started this process ends, so a handler checks that the parent changed."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    except (OSError, AttributeError):
        return False
    return True


def keep(engine: int, parent: int) -> NoReturn:
    """The keeper's life, in the child subreaper that forked ``engine``: reap all below until ``engine`` ends, end
    what is left, and end as the engine did. When ``parent`` ends (the parent-death signal) it ends all below it
    first."""

    def ended(signum: int, frame: object) -> None:
        # The parent-death signal also comes when the thread that started this keeper ends (a front end starts
        # spares on threads of their own), the parent itself alive: the kernel has reparented before it signals.
        if signum == signal.SIGHUP and os.getppid() == parent:
            return
        end_all()
        os._exit(1)

    faulthandler.disable()  # the fork server's, inherited: the keeper re-raises its engine's fatal signal below
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C in the terminal is the engine's to handle
    signal.signal(signal.SIGHUP, ended)
    signal.signal(signal.SIGTERM, ended)
    set_parent_death_signal(signal.SIGHUP)
    if os.getppid() != parent:  # it ended before the signal was asked for
        end_all()
        os._exit(1)
    status = 0
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        if pid == engine:
            break
    end_all()
    code = os.waitstatus_to_exitcode(status)
    if code < 0:  # ended by a signal: ended by the same one, which the front end reports (SIGKILL, SIGSEGV...)
        with contextlib.suppress(OSError, ValueError):
            signal.signal(-code, signal.SIG_DFL)  # SIGKILL has no handler to reset
        os.kill(os.getpid(), -code)
    os._exit(code & 0xFF)


def end_all() -> None:
    """End everything below this process, and reap it, until none is left or ``END_S`` has passed."""
    deadline = time.monotonic() + END_S
    while time.monotonic() < deadline:
        proctree.kill(proctree.descendants(os.getpid()))
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            return  # none left below this keeper
        time.sleep(POLL_S)  # one not dead yet, or an orphan adopted since the look: looked at again


def engine_environment(keeper: int) -> None:
    """In the engine, just forked: its keeper is its parent, which its lifeline watches (``proctree.PARENT_ENV``)
    and whose other children are what the scenario started as the engine's siblings (``proctree.KEEPER_ENV``)."""
    os.environ[proctree.PARENT_ENV] = str(keeper)
    os.environ[proctree.KEEPER_ENV] = str(keeper)


def main() -> NoReturn:
    """``python -m kernel_tui.transport.keeper FD COMMAND...``: ``COMMAND`` exec'd below this keeper."""
    tell, engine_argv = int(sys.argv[1]), sys.argv[2:]
    parent = os.getppid()
    expected = os.environ.get(proctree.PARENT_ENV, "")
    if expected.isdigit() and int(expected) != parent:
        os._exit(1)  # the front end was gone before its keeper started: so is the engine's reader
    set_subreaper()
    engine = os.fork()
    if engine == 0:
        try:
            os.close(tell)
            os.setsid()  # a process group of its own, which the front end ends as the engine's
            engine_environment(os.getppid())
            os.execv(engine_argv[0], engine_argv)
        except OSError as error:
            with contextlib.suppress(OSError):
                os.write(2, f"kernel-tui: the engine could not be started: {error}\n".encode())
        os._exit(EXEC_FAILED)
    with contextlib.suppress(OSError):
        os.write(tell, str(engine).encode())
    os.close(tell)
    # The engine's request stream and protocol channel are the engine's alone; stderr stays, for a failure here.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(null, fd)
    os.close(null)
    keep(engine, parent)


if __name__ == "__main__":
    main()
