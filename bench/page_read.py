"""What a page's run spends reading its sitting from the database, as the sitting grows: the whole sitting read and
replayed (a page's first run, and every run before the fifty-third session), against a run that reads on from the
sitting as the page last drew it (``Referee.read``), with nothing new and with one event another window recorded.

    .venv/bin/python bench/page_read.py [--events 1000 5000 20000] [--runs 7]

No target: a figure to compare changes by. Each sitting is built by ``bench/replay_speed.py``'s generator (legal
events under varied house rules) and imported into a database in a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant import Rules  # noqa: E402
from assistant.referee import Referee  # noqa: E402
from assistant.storage import SqliteStore  # noqa: E402
from bench.replay_speed import build_sitting  # noqa: E402
from tests.assistant.randomgame import legal_events  # noqa: E402


def timed(make, runs: int) -> float:
    """The median seconds of ``make()`` over ``runs`` runs."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        make()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def next_event(referee: Referee):
    """A legal event for the sitting as it stands: what another window might record next."""
    state = referee.state
    names = state.game.players if state.game is not None else ("Alice", "Ben", "Cara", "Dev", "Eve")
    rules = state.game.rules if state.game is not None else Rules()
    return legal_events(state, lambda n: 0, names, rules, undo_ok=False)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, nargs="+", default=[1000, 5000, 20000])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}, "
          f"{len(os.sched_getaffinity(0))} cores, load average {os.getloadavg()[0]:.1f}")
    print(f"{'events':>8} {'whole read':>11} {'read on':>9} {'read on, 1 new':>15}   (ms, medians of {args.runs})")
    with tempfile.TemporaryDirectory() as folder:
        for n in args.events:
            path = Path(folder) / f"s{n}.sqlite3"
            referee = Referee.import_transcript(SqliteStore(path), "bench", build_sitting(n, seed=1).splitlines())
            sid = referee.sitting_id
            shown = Referee(SqliteStore(path), sid)
            whole = timed(lambda: Referee(SqliteStore(path), sid), args.runs)
            on = timed(lambda: Referee.read(SqliteStore(path), sid, shown), args.runs)
            referee.record(next_event(referee))  # another window's event: this page's run reads on to it
            one = timed(lambda: Referee.read(SqliteStore(path), sid, shown), args.runs)
            print(f"{len(shown.sitting.log):>8,} {whole * 1000:>11.1f} {on * 1000:>9.1f} {one * 1000:>15.1f}")


if __name__ == "__main__":
    main()
