"""Where the escape scenarios write the process ids they started (``ESCAPE_PIDS``), with each start time, so that
a test can tell the same process from a later one given the same id."""

import os
import tempfile


def record(name: str, pid: int) -> None:
    folder = os.environ.get("ESCAPE_PIDS") or tempfile.gettempdir()
    for _ in range(200):  # the child may not have its /proc entry filled in yet
        try:
            with open(f"/proc/{pid}/stat") as stat:
                start = stat.read().rsplit(")", 1)[1].split()[19]
            break
        except (OSError, IndexError):
            import time

            time.sleep(0.01)
    else:
        start = "?"
    with open(os.path.join(folder, f"{name}.pids"), "a") as out:
        out.write(f"{pid} {start}\n")
