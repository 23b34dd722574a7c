"""What both command lines (``python -m assistant``, ``python -m vision read``) do around their work, written once:
a reader that stops early (``| head -1``) ends the output quietly, as other tools' output does, and output that
cannot be written (a full disk, no standard output at all) and Ctrl-C are said in a line, not a traceback."""

from __future__ import annotations

import io
import json
import os
import sys
from typing import Callable


def run(main: Callable[[], int], prefix: str = "") -> int:
    """``main``'s exit status, or the status of what stopped it; ``prefix`` starts each line said here ("error: ")."""
    if sys.stdout is None:  # closed: every answer would be lost, with exit status 0
        print(f"{prefix}the standard output is closed: there is nowhere to write the answer", file=sys.stderr)
        return 2
    try:
        status = main()
        sys.stdout.flush()  # a pipe is written at exit when Python buffers it: its error must come here, not later
        return status
    except BrokenPipeError:
        quiet_stdout()
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except OSError as error:  # reading errors are said where they happen: this is the output
        quiet_stdout()
        print(f"{prefix}cannot write the output: {error.strerror}", file=sys.stderr)
        return 1


def shown(text: str) -> str:
    """A message for the terminal, what a terminal would act on (a control code, a right-to-left mark, half a
    character of a file name that is not UTF-8) written as an escape: a file named with ESC [2J cleared the screen."""
    return "".join(c if c.isprintable() else json.dumps(c)[1:-1] for c in text)


def write(text: str) -> None:
    """``text`` to the standard output in pieces no larger than its buffer: a reader that stopped early (``| head``)
    is then met as an error. Written whole, 1.6 MB of an export went out 64 KB into a pipe whose reader had gone, the
    rest was dropped without an error, and the export said it had worked (exit 0)."""
    piece = io.DEFAULT_BUFFER_SIZE // 4  # characters of up to 4 bytes in UTF-8
    for start in range(0, len(text), piece):
        sys.stdout.write(text[start:start + piece])


def quiet_stdout() -> None:
    """Python flushes stdout again at exit: what is left in it goes nowhere, instead of raising there."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
