"""Replay speed: builds a sitting of 100,000 legal events (plays, calls, passes, fours, undos,
new games and winners under varied house rules), then replays its transcript and prints events
per second (median of several runs). Target: at least 50,000 events per second.

    .venv/bin/python bench/replay_speed.py [--events 100000] [--runs 5]
    .venv/bin/python bench/replay_speed.py --long 250000

``--long N`` instead times ``python -m assistant replay --json`` (one run each, in a process of its own, with its
peak memory) on two transcripts that grow what a state holds: one two-player game of N one-card plays each called
(2N + 1 lines), and N one-tap winners.
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import tempfile
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant import CountRule, NewGame, Order, Rules, Sitting, TableKind  # noqa: E402
from assistant.sitting import replay, write_transcript  # noqa: E402
from tests.assistant.randomgame import legal_events  # noqa: E402


def build_sitting(events: int, seed: int) -> str:
    """A transcript of ``events`` legal events; the game's rules change at every new game."""
    rng = random.Random(seed)
    sitting = Sitting()
    names = ("Alice", "Ben", "Cara", "Dev", "Eve")
    rules = Rules()
    while len(sitting.log) < events:
        game = sitting.state.game
        if game is None or game.over:
            rules = Rules(
                decks=rng.choice([1, 2]), jokers=rng.random() < 0.3, max_cards=rng.choice([4, 4, None]),
                order=rng.choice(list(Order)), passing=rng.random() < 0.3, count_rule=rng.choice(list(CountRule)),
                four_of_a_kind=rng.random() < 0.3, table=rng.choice(list(TableKind)),
            )
            sitting.apply(NewGame(names, rules=rules))
            continue
        menu = legal_events(sitting.state, rng.randrange, names, rules, sitting.can_undo and rng.random() < 0.05)
        sitting.apply(menu[rng.randrange(len(menu))])
    out = io.StringIO()
    write_transcript(sitting.log, out)
    return out.getvalue()


def long_transcripts(n: int) -> dict[str, Iterator[dict]]:
    """The two long transcripts, as events made one at a time: held whole, they would raise this process's peak
    memory, which Linux carries over into the replay's process (ru_maxrss survives exec)."""
    ranks = "A 2 3 4 5 6 7 8 9 10 J Q K".split()

    def calls() -> Iterator[dict]:
        yield {"event": "new_game", "players": ["Alice", "Ben"]}
        for i in range(n):
            player, caller = ("Alice", "Ben") if i % 2 == 0 else ("Ben", "Alice")
            yield {"event": "play", "player": player, "count": 1}
            yield {"event": "call", "caller": caller, "revealed": [ranks[i % 13]]}

    winners = ({"event": "winner", "player": "Alice", "players": ["Alice", "Ben"]} for _ in range(n))
    return {f"one game of {n:,} called plays": calls(), f"{n:,} one-tap winners": winners}


#: The command line's replay, reporting its own peak memory (kilobytes) on its last line of stderr.
MEASURED = ("import resource, runpy, sys\n"
            "sys.argv = ['assistant', 'replay', '--json', sys.argv[1]]\n"
            "try:\n    runpy.run_module('assistant', run_name='__main__')\n"
            "finally:\n    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n")


def bench_long(n: int) -> None:
    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as folder:
        for name, events in long_transcripts(n).items():
            path = Path(folder) / "sitting.jsonl"
            with path.open("w") as out:
                lines = sum(out.write(json.dumps(e) + "\n") > 0 for e in events)
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", MEASURED, str(path)], cwd=root, capture_output=True, text=True)
            seconds = time.perf_counter() - start
            *said, peak = done.stderr.strip().splitlines() or ["0"]
            result = "ok" if done.returncode == 0 else f"exit {done.returncode}: {' '.join(said)[-200:]}"
            print(f"{name} ({lines:,} lines): {seconds:.2f} s, peak memory {int(peak) / 1024:.0f} MB, {result}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--long", type=int, default=0, help="time the two long transcripts of N (see above) instead")
    args = parser.parse_args()
    if args.long:
        bench_long(args.long)
        return
    lines = build_sitting(args.events, seed=1).splitlines()
    timings, cpu = [], []
    for _ in range(args.runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        sitting = replay(lines)
        timings.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    median = statistics.median(timings)
    games = len(sitting.state.table.rows)
    print(f"machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}, "
          f"{len(__import__('os').sched_getaffinity(0))} cores")
    print(f"sitting: {len(lines):,} events, {games} finished games")
    print(f"replay (parse + rules), median of {args.runs}: {median:.3f} s = {len(lines) / median:,.0f} events/s "
          f"(min {len(lines) / max(timings):,.0f}, max {len(lines) / min(timings):,.0f})")
    print(f"CPU time of this process, median: {statistics.median(cpu):.3f} s = {len(lines) / statistics.median(cpu):,.0f} "
          f"events per CPU-second (wall time is slower when other work shares the cores; load average "
          f"{__import__('os').getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
