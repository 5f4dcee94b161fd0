"""``held_alone``: one holder at a time, a bounded wait for another, and a lock that ends with its holder."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

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


# Links planted in kernel-tui's folders (a shared machine's /tmp, a cache another user can write): a write through
# one changed the file it points at.


def test_an_atomic_write_replaces_a_link_at_its_name_and_leaves_what_it_pointed_at(tmp_path: Path) -> None:
    from kernel_tui.model.storage.atomic_write import write_atomic

    victim = tmp_path / "victim"
    victim.write_text("mine")
    target = tmp_path / "cache" / "warmup.json"
    target.parent.mkdir()
    target.symlink_to(victim)
    # Where the part was written before: a name that held only the writer's process id, as easy to plant.
    (target.parent / f".warmup.json.{os.getpid()}.partial").symlink_to(victim)
    write_atomic(target, "{}")
    assert victim.read_text() == "mine"
    assert not target.is_symlink() and target.read_text() == "{}"


def test_a_lock_is_never_taken_through_a_link(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    lock = tmp_path / "bandwidth.lock"
    lock.symlink_to(elsewhere)
    with held_alone(lock, wait_s=0.1) as held:
        assert not held, "the block runs unlocked rather than through the link"
    assert not elsewhere.exists()


def test_the_warm_up_record_replaces_a_link_at_its_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kernel_tui.engine.serve import warmup

    victim = tmp_path / "victim"
    victim.write_text("mine")
    monkeypatch.setenv("KERNEL_TUI_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / warmup.RECORD).symlink_to(victim)
    warmup._remember(cold=False, seconds=1.5)
    assert victim.read_text() == "mine"
    assert warmup.estimate_s(cold=False) == 1.5
