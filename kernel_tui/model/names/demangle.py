"""Mangled (Itanium C++ ABI) kernel names read as C++: the C++ runtime's own demangler through ctypes, else an
outline (``ns::kernel<FirstClassArgument>``) read off the name by hand.

ROCm traces, and names the profiler's own demangler gave up on, arrive mangled (``_ZN…``); ``names.short_name``
shortens what comes back. No torch: the UI process shortens names too.
"""

from __future__ import annotations

import functools
import re

# typing's flag without importing typing: this module stays as light to import as the test of its imports asks.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import ctypes

# Real kernel names stay under about 2,000 characters; anything far longer is not worth a C call.
_MANGLED_MAX = 4096
_MANGLED = re.compile(r"^_Z[\w.$]+$", re.ASCII)
_DIGITS = re.compile(r"\d{1,5}")  # a longer run is no length of a real name
_SUBSTITUTION = re.compile(r"S(?:[0-9A-Z]*_|[tabsiod])")
_BUILTIN_CODES = set("vwbcahstijlmxynofdegz")
_EXTENDED_CODE = re.compile(r"D(?:F\d+[_b]?|[a-zA-Z])")


def demangle(name: str) -> str:
    """A mangled (Itanium C++ ABI) name as C++, or as much of it as can be read; the name itself otherwise."""
    if len(name) > _MANGLED_MAX or not _MANGLED.match(name):
        return name
    return _demangled(name)


@functools.lru_cache(maxsize=4096)
def _demangled(name: str) -> str:
    # Cached: a trace repeats each kernel thousands of times, and the C call is the costly part.
    return _cxa_demangle(name) or _mangled_outline(name) or name


@functools.lru_cache(maxsize=1)
def _demangler() -> tuple[ctypes._NamedFuncPointer, ctypes._NamedFuncPointer] | None:  # typeshed: a CDLL attribute
    """``__cxa_demangle`` from the C++ runtime (loaded wherever torch runs) and the ``free`` for its result."""
    import ctypes  # here: the explorer imports this module before its first frame, and demangles only after

    try:
        free = ctypes.CDLL(None).free
    except (OSError, AttributeError):  # no C library to free with (Windows): never demangle
        return None
    free.argtypes = [ctypes.c_void_p]
    free.restype = None
    # None first: a process that already has a C++ runtime loaded should use that one.
    for library in (None, "libstdc++.so.6", "libc++abi.so.1", "libc++abi.dylib"):
        try:
            runtime_demangle = ctypes.CDLL(library).__cxa_demangle
        except (OSError, AttributeError):  # not loadable here, or no demangler in it
            continue
        runtime_demangle.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
        runtime_demangle.restype = ctypes.c_void_p
        return runtime_demangle, free
    return None


def _cxa_demangle(name: str) -> str:
    """The runtime's demangling of ``name``, or "" when there is no runtime or it rejects the name."""
    found = _demangler()
    if found is None:
        return ""
    import ctypes

    runtime_demangle, free = found
    status = ctypes.c_int(-1)
    pointer = runtime_demangle(name.encode("ascii"), None, None, ctypes.byref(status))
    if not pointer:
        return ""
    try:
        return ctypes.string_at(pointer).decode("utf-8", "replace") if status.value == 0 else ""
    finally:
        free(pointer)


def _mangled_outline(name: str) -> str:
    """``ns::kernel<FirstClassArgument>`` read off a mangled name that the runtime could not demangle.

    Demanglers lag the compilers (``DF16b``, std::bfloat16_t, needs GCC 13; Clang 17 mangles constrained
    template parameters as ``Tn``), but the kernel's qualified name at the front is plain length-prefixed text.
    """
    pos = 2
    if name.startswith("L", pos):  # internal linkage
        pos += 1
    if name.startswith("N", pos):
        parts, pos = _nested_name(name, pos + 1)
    else:
        part, pos = _source_name(name, pos)
        parts = [part] if part else []
    parts = [part for part in parts if not part.startswith("_GLOBAL__N")]  # anonymous namespaces
    if not parts:
        return ""
    outline = "::".join(parts)
    if name.startswith("I", pos) and (argument := _first_class_argument(name, pos + 1)):
        outline += f"<{argument}>"
    return outline


def _source_name(name: str, pos: int) -> tuple[str, int]:
    """The ``<length><identifier>`` at ``pos``, and the position after it; ("", pos) if there is none."""
    match = _DIGITS.match(name, pos)
    if not match:
        return "", pos
    end = match.end() + int(match.group())
    if end > len(name):
        return "", pos
    return name[match.end() : end], end


def _nested_name(name: str, pos: int) -> tuple[list[str], int]:
    """The identifiers of an ``N…`` nested name up to its template arguments (``I``) or its end (``E``)."""
    parts: list[str] = []
    while pos < len(name):
        char = name[pos]
        if char.isdigit():
            part, pos = _source_name(name, pos)
            if not part:
                break
            parts.append(part)
        elif char == "S" and (match := _SUBSTITUTION.match(name, pos)):
            # A back-reference to an earlier namespace: ``St`` is std; the numbered ones need a full demangler.
            if match.group() == "St":
                parts.append("std")
            pos = match.end()
        elif char in "KVrRO" and not parts:  # qualifiers of a member function
            pos += 1
        else:
            break
    return parts, pos


def _first_class_argument(name: str, pos: int) -> str:
    """The last identifier of the first class-type template argument after ``pos``, skipping numbers and builtins."""
    for _ in range(64):
        if pos >= len(name):
            return ""
        char = name[pos]
        if char.isdigit():
            return _source_name(name, pos)[0]
        if char == "N":
            parts, _ = _nested_name(name, pos + 1)
            return parts[-1] if parts else ""
        if char == "L" and not name.startswith("L_Z", pos):  # a literal: <type><value>E
            pos += 1
            if name.startswith("N", pos):
                _, pos = _nested_name(name, pos + 1)
            elif name[pos : pos + 1].isdigit():
                _, pos = _source_name(name, pos)
            end = name.find("E", pos + 1)
            if end < 0:
                return ""
            pos = end + 1
        elif char in _BUILTIN_CODES or char in "PRKVOJ":
            pos += 1
        elif match := _EXTENDED_CODE.match(name, pos):
            pos = match.end()
        else:  # a back-reference, a template parameter, an expression: too far for a quick read
            return ""
    return ""
