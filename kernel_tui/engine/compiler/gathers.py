"""Which pointers a generated kernel touches only at indices it loaded: the tables of its gathers and scatters.

An embedding compiled by Inductor is one kernel that loads the token ids, then the table's rows at those ids
(``tl.load(in_ptr1 + (x0 + 64*tmp0))`` in Triton, ``in_ptr1 + static_cast<int64_t>(x2 + 64L*tmp0)`` in C++); its
backward stores at them (``tl.atomic_add(out_ptr0 + (x0 + 64*tmp8), ...)``, ``atomic_add_vec(out_ptr0, tmp25,
...)``). Such a kernel is handed the whole table but moves only the rows it picks. Inductor tells the two kinds of
access apart by one rule (``torch._inductor.dependencies.is_indirect``): an index holding a ``tmp`` variable, a
value the kernel computed, is indirect. Its generated code keeps that rule visible, so a pointer is a gather's
table when every access to it is indexed through a ``tmp`` that comes, however transformed (wrapped for negative
ids, clamped, converted), from a load of another pointer: the index tensor. What it moves is then one slice per
index: as many elements as the index is multiplied by (a row of 64 for ``64*tmp0``; one for the class
``nll_loss`` picks), never more than the whole tensor.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

POINTER = re.compile(r"\b(?:in_out_ptr|in_ptr|out_ptr)\d+\b")
"""A generated kernel's pointer parameter, named by its role (``in_ptr0``, ``out_ptr1``, ``in_out_ptr0``)."""
TMP = re.compile(r"\btmp\d+\b")
SIGNATURE = re.compile(r"def \w+\(.*?\):|void\s+kernel\(.*?\)", re.S)
"""A Triton kernel's ``def`` line or a C++ kernel's ``void kernel(...)``: what comes after it is its body."""
_DEFINITION = re.compile(r"^\s*(?:auto\s+)?(tmp\d+)\s*=(?!=)(.*)$", re.S)
_ALIAS = re.compile(r"^\s*auto\s+(\w+)\s*=\s*(\w+)\s*$")
_ATOMIC = re.compile(r"atomic_add\w*(?:<[^>]*>)?\(\s*$")
_STRIDE = re.compile(r"(\d+)L?\s*\*\s*\(?\s*(tmp\d+)\b")
_OPEN, _CLOSE = "([{", ")]}"


@dataclass(frozen=True)
class Gather:
    """How a kernel reaches one pointer: only at indices loaded from ``index`` pointers, ``slice`` elements each."""

    index: frozenset[str]
    slice: int

    def elements(self, indices: int, table: int) -> int:
        """Elements moved for ``indices`` index values in a table of ``table`` elements: at most the table."""
        return min(table, indices * self.slice)


def gathered_pointers(code: str | None) -> dict[str, Gather]:
    """The kernel's parameters it reaches only through loaded indices, each with how (none without the code)."""
    if not code:
        return {}
    match = SIGNATURE.search(code)
    body = code[match.end() :] if match else code
    statements = _statements(body, cpp=match is not None and match.group(0).startswith("void"))
    aliases: dict[str, str] = {}
    # C++ kernels define tmp0, tmp1, ... afresh in each loop: an index means the definition last written.
    definitions: dict[str, str] = {}
    accesses: dict[str, list[Gather | None]] = {}
    for statement in statements:
        alias = _ALIAS.match(statement)
        if alias and POINTER.fullmatch(alias.group(2)):
            aliases[alias.group(1)] = alias.group(2)
            continue
        for pointer, index in _accesses(statement):
            gather = _indirect(index, definitions, aliases)
            accesses.setdefault(aliases.get(pointer, pointer), []).append(gather)
        defined = _DEFINITION.match(statement)
        if defined:
            definitions[defined.group(1)] = defined.group(2)
    gathers = {}
    for pointer, found in accesses.items():
        if found and all(gather is not None for gather in found):
            kept = [gather for gather in found if gather is not None]
            gathers[pointer] = Gather(frozenset().union(*(g.index for g in kept)), max(g.slice for g in kept))
    return gathers


def _statements(body: str, cpp: bool) -> list[str]:
    """The body split into statements: in C++ at ``;`` and at a block's braces (a lambda's, ``[&] { ... }``,
    hold statements of their own), in Triton at line ends (a call's parentheses may span lines)."""
    statements: list[str] = []
    opened: list[str] = []
    start = 0
    for position, char in enumerate(body):
        if char == "{" and cpp and not opened and not body[:position].rstrip().endswith("]"):
            statements.append(body[start:position])  # a loop's or block's opening brace
            start = position + 1
        elif char == "}" and cpp and not opened:
            statements.append(body[start:position])
            start = position + 1
        elif char in _OPEN:
            opened.append(char)
        elif char in _CLOSE:
            if opened:
                opened.pop()
        elif not opened and (char == ";" if cpp else char == "\n"):
            statements.append(body[start:position])
            start = position + 1
    statements.append(body[start:])
    return [statement for statement in statements if statement.strip()]


def _accesses(statement: str) -> list[tuple[str, str | None]]:
    """Each pointer the statement names, with the index it is reached at; None where it is used otherwise
    (handed to a function), which counts as a full access."""
    found: list[tuple[str, str | None]] = []
    for match in POINTER.finditer(statement):
        if match.start() > 0 and statement[match.start() - 1] in "'\"":
            continue  # a name in Triton's metadata, not an access
        rest = statement[match.end() :]
        stripped = rest.lstrip()
        if stripped.startswith("["):
            found.append((match.group(0), _balanced(stripped, 1)))
        elif stripped.startswith("+"):
            found.append((match.group(0), _balanced(stripped, 1, stop=",")))
        elif _ATOMIC.search(statement[: match.start()].rstrip("& ")) and stripped.startswith(","):
            found.append((match.group(0), _balanced(stripped, 1, stop=",")))
        else:
            found.append((match.group(0), None))
    return found


def _balanced(text: str, start: int, stop: str = "") -> str:
    """``text`` from ``start`` to the bracket that closes the one before it, or to ``stop`` at depth 0."""
    depth = 0
    for position in range(start, len(text)):
        char = text[position]
        if char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            if depth == 0:
                return text[start:position]
            depth -= 1
        elif depth == 0 and char in stop:
            return text[start:position]
    return text[start:]


def _indirect(index: str | None, definitions: dict[str, str], aliases: dict[str, str]) -> Gather | None:
    """The gather an index expression makes, or None where it is direct (no ``tmp`` that a load feeds)."""
    if index is None:
        return None
    pointers: set[str] = set()
    strides = [int(m.group(1)) for m in _STRIDE.finditer(index)]
    seen: set[str] = set()
    todo = TMP.findall(index)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        text = definitions.get(name, "")
        loads = POINTER.findall(text)
        pointers.update(aliases.get(pointer, pointer) for pointer in loads)
        if not loads:  # an index computed from the loaded one: the stride it is multiplied by
            strides.extend(int(m.group(1)) for m in _STRIDE.finditer(text))
        todo.extend(TMP.findall(text))
    if not pointers:
        return None
    return Gather(frozenset(pointers), max(strides, default=1))
