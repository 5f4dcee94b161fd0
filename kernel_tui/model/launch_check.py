"""A kernel's launch read as measured data: every field a count that can be, and the fields consistent with each
other, else the report is refused naming the field (``eager.kernels.0.launch.threads``).

A crafted results file showed a negative grid, a block of zero threads, occupancy past 100% and threads that did
not multiply out, all as if measured.
"""

from __future__ import annotations

import math
from typing import Any

from kernel_tui.model.launch import WARP_SIZE

AT_LEAST_ONE = ("warps",)
NOT_NEGATIVE = ("registers_per_thread", "shared_memory", "elements", "threads")


def check_launch(fields: dict[str, Any], where: str) -> None:
    """Raise ``SchemaError`` at the first field of ``fields`` (a launch's checked JSON) that no launch can have."""
    from kernel_tui.model.report_schema import SchemaError

    for name in ("grid", "block"):
        dims = fields.get(name)
        if dims is not None and any(dim < 1 for dim in dims):
            raise SchemaError(f"{where}.{name}", f"is {list(dims)}: each dimension is at least 1")
    for name in AT_LEAST_ONE:
        if (value := fields.get(name)) is not None and value < 1:
            raise SchemaError(f"{where}.{name}", f"is {value}: a block has at least one warp")
    for name in NOT_NEGATIVE:
        if (value := fields.get(name)) is not None and value < 0:
            raise SchemaError(f"{where}.{name}", f"is {value}, a negative count")
    occupancy = fields.get("occupancy_pct")
    if occupancy is not None and not 0 <= occupancy <= 100:
        raise SchemaError(f"{where}.occupancy_pct", f"is {occupancy}: a share is between 0 and 100")
    grid, block, threads, warps = (fields.get(name) for name in ("grid", "block", "threads", "warps"))
    if grid is not None and block is not None and threads is not None and threads != math.prod(grid) * math.prod(block):
        raise SchemaError(
            f"{where}.threads", f"is {threads}, not grid × block ({math.prod(grid)} × {math.prod(block)})"
        )
    if block is not None and warps is not None and warps != -(-math.prod(block) // WARP_SIZE):
        raise SchemaError(f"{where}.warps", f"is {warps}, not the block's {math.prod(block)} threads in warps of 32")
