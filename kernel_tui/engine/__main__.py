"""Entry point of the engine child process.

The protocol stream is the process's original stdout. Before anything else runs (torch's imports,
scenario code, C extensions that write to fd 1), that stream is moved to a private descriptor and fd 1
is pointed at stderr, so nothing a scenario prints can reach the protocol.
"""

import os
import sys


def main() -> None:
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    protocol_stream = os.fdopen(protocol_fd, "w", buffering=1)
    os.environ.setdefault("KINETO_LOG_LEVEL", "5")

    from kernel_tui.engine.server import serve

    serve(sys.argv[1:], protocol_stream)


if __name__ == "__main__":
    main()
