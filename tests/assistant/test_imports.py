"""The rules core stands alone: the app and the camera build on it, never the other way round."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Every module of the core imported in a fresh interpreter, then the top-level packages it brought in that are not
#: Python's own (names starting with "_" are the interpreter's and the installer's hooks, such as an editable install's
#: finder).
IMPORTED = """
import importlib, pkgutil, sys
import assistant
for module in pkgutil.iter_modules(assistant.__path__):
    if module.name != "__main__":
        importlib.import_module("assistant." + module.name)
print(sorted({name.split(".")[0] for name in sys.modules if not name.startswith("_")}
             - set(sys.stdlib_module_names) - {"assistant"}))
"""


def test_the_rules_core_imports_only_pythons_own_library():
    """The core (rules, state, verdicts, match table, storage) imports nothing from the app's screens (``ui``), the card
    reader (``vision``), Streamlit, OpenCV or any other installed package: logic moved out of app.py into the core must
    not bring the app with it, and the replay command runs on a bare Python."""
    imported = subprocess.run([sys.executable, "-c", IMPORTED], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == "[]", imported.stdout
