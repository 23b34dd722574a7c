"""The whole tree read by a checker, ruff with pyflakes' rules: what no test may reach.

A rename left ``who = who(...)`` in one function of the rules core, where Python then took ``who`` for a local name
in all of it: three of its messages ("the game is over", "called already", "stands uncalled")
raised UnboundLocalError, and ``replay`` and ``import`` ended in a traceback. The checker names such a line (F823) before
any game reaches it; it also names undefined and unused names."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_no_name_is_used_before_it_is_bound_undefined_or_unused():
    checked = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr
