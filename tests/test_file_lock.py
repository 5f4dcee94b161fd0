"""``held_alone``: one holder at a time, a bounded wait for another, and a lock that ends with its holder."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from kernel_tui.model.storage.file_lock import held_alone


def test_a_second_holder_waits_for_the_first_and_no_longer_than_it_was_told(tmp_path: Path) -> None:
    lock = tmp_path / "a.lock"
    with held_alone(lock, wait_s=1.0) as first:
        assert first
        started = time.monotonic()
        with held_alone(lock, wait_s=0.3) as second:
            waited = time.monotonic() - started
            assert not second  # the block still runs, unlocked
        assert 0.3 <= waited < 5.0
    with held_alone(lock, wait_s=0.0) as after:
        assert after


def test_a_holder_that_is_killed_lets_the_lock_go(tmp_path: Path) -> None:
    lock = tmp_path / "b.lock"
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # the holder: takes the lock, says so, and waits to be killed; never back into pytest
        try:
            os.close(read_end)
            with held_alone(lock, wait_s=1.0) as held:
                os.write(write_end, b"1" if held else b"0")
                time.sleep(60)
        finally:
            os._exit(0)
    os.close(write_end)
    try:
        assert os.read(read_end, 1) == b"1"
        with held_alone(lock, wait_s=0.2) as held:
            assert not held  # the holder lives
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
        with held_alone(lock, wait_s=5.0) as held:
            assert held
    finally:
        os.close(read_end)
        try:
            os.kill(child, signal.SIGKILL)
            os.waitpid(child, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


def test_where_no_lock_can_be_taken_the_block_runs_unlocked(tmp_path: Path) -> None:
    blocked = tmp_path / "a file, not a folder"
    blocked.write_text("")
    ran = []
    with held_alone(blocked / "c.lock", wait_s=1.0) as held:
        ran.append(held)
    assert ran == [False]
