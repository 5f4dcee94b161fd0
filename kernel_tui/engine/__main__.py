"""Entry point of the engine child process.

The protocol stream is the process's original stdout, and requests arrive on its original stdin. Before
anything else runs (torch's imports, scenario code, C extensions that write to fd 1), both are moved to
private descriptors: fd 1 is pointed at stderr, so nothing a scenario prints can reach the protocol, and
fd 0 at /dev/null, so nothing a scenario reads (or closes) is a request.

A crash (a segfault in a scenario's C code, in torch or in a compile) leaves every thread's frames on stderr,
where the front end reads them: see ``crash_stacks``.

The engine must not outlive the front end that started it, however that front end ends (SIGKILL, a
closed terminal, a killed tmux session): see ``lifeline``.
"""

import os
import sys

# Started as ``python -c`` (see kernel_tui.transport.boot.engine_command) the first entry of sys.path is the
# current folder: a learner's random.py or copy.py there would be imported by torch in place of the
# standard library's. ``python -m`` puts it there too. PYTHONPATH entries are kept.
FIRST_PATH_ENTRIES = ("", ".")


def forget_the_current_folder() -> None:
    from_env = set(filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep)))
    if sys.path and (sys.path[0] in FIRST_PATH_ENTRIES or sys.path[0] == os.getcwd()) and sys.path[0] not in from_env:
        del sys.path[0]


def main() -> None:
    from kernel_tui.engine.serve import crash_stacks

    # Before anything can crash (torch's imports, a scenario's C code): every crash leaves its frames on stderr.
    crash_stacks.enable()
    crash_stacks.after_torch_loads()
    forget_the_current_folder()
    protocol_fd = os.dup(1)
    requests_fd = os.dup(0)
    for fd in (protocol_fd, requests_fd):
        os.set_inheritable(fd, False)
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    sys.stdin = os.fdopen(0, "r", closefd=False)
    protocol_stream = os.fdopen(protocol_fd, "w", buffering=1)
    requests = os.fdopen(requests_fd, "r", encoding="utf-8", errors="replace")
    os.environ.setdefault("KINETO_LOG_LEVEL", "5")
    # A CUDA build of torch on a machine without CUDA warns at import that it found no CUDA runtime:
    # not the learner's news, and it would head every run's output.
    import logging

    logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)

    from kernel_tui.engine.serve import lifeline

    lifeline.hold()
    lifeline.keep_from_children(protocol_fd, requests_fd)

    from kernel_tui.engine.serve.server import serve

    serve(sys.argv[1:], protocol_stream, requests)


if __name__ == "__main__":
    main()
