"""Two readers compared scene by scene on the same synthetic sets: is the difference in cost more than chance?

    python bench/bench_reader_synth.py --data SET --split val --limit N --thresholds 0.1 --outcomes A.jsonl
    python bench/bench_reader_synth.py --data SET --split val --limit N --thresholds 0.1 --outcomes B.jsonl \
        --det-model ... --gate-model ...
    python bench/compare_readers.py A.jsonl B.jsonl [--rounds 10000] [--seed 0] [--level 0.9]

Why: candidates are decided by the cost summed over fresh sets (2 x confidently wrong + abstained), and the same
reader costs a few percent more or less on another draw of the same recipe, so a difference of a few units says
little by itself. Both readers read the very same scenes, so the difference is measured scene by scene; the scenes
are resampled with replacement (a paired bootstrap) to give an interval for the summed difference and the share of
resamples in which B costs less. ``--level`` widens the interval where a candidate has been looked at before (a
later look at the same question must clear a higher bar, or looking until it passes would ship noise).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class Comparison:
    """B's summed cost minus A's over the scenes both read, with a paired-bootstrap interval at ``level``."""

    scenes: int
    cost_a: int
    cost_b: int
    low: float
    high: float
    b_cheaper: float  # share of resamples in which B's summed cost is lower than A's
    level: float = 0.9  # the share of resamples the interval [low, high] holds (two-sided)

    @property
    def difference(self) -> int:
        return self.cost_b - self.cost_a


def cost(outcome: dict) -> int:
    """A scene's cost: 2 when the reader answered wrongly, 1 when it abstained, 0 when it answered right."""
    return 2 * int(outcome["wrong"]) + int(outcome["abstain"])


def read_outcomes(path: Path) -> dict[tuple[str, str], dict]:
    """The per-scene outcomes written by ``bench_reader_synth.py --outcomes``, keyed by (set, scene)."""
    rows = {}
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            key = (row["set"], row["scene"])
            row = {"wrong": bool(row["wrong"]), "abstain": bool(row["abstain"])}
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise ValueError(f"{path}, line {n}: not a scene outcome ({e})") from None
        if key in rows:
            raise ValueError(f"{path}, line {n}: scene {key[1]} of {key[0]} appears twice")
        rows[key] = row
    return rows


def compare(a: dict, b: dict, rounds: int = 10000, seed: int = 0, level: float = 0.9) -> Comparison:
    """Pair the scenes both readers read; the bootstrap resamples scenes, each keeping both readers' outcomes."""
    if not 0 < level < 1:
        raise ValueError(f"the interval's level must lie between 0 and 1, not {level}")
    if set(a) != set(b):
        only = sorted(set(a) ^ set(b))[:3]
        raise ValueError(f"the two readers did not read the same scenes (e.g. {only}): compare like with like")
    if not a:
        raise ValueError("no scenes to compare")
    keys = sorted(a)
    ca = np.array([cost(a[k]) for k in keys])
    cb = np.array([cost(b[k]) for k in keys])
    d = cb - ca
    rng = np.random.default_rng(seed)
    sums = np.array([d[rng.integers(0, len(d), len(d))].sum() for _ in range(rounds)])
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(sums, [tail, 100 - tail])
    return Comparison(len(keys), int(ca.sum()), int(cb.sum()), float(low), float(high), float((sums < 0).mean()), level)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a", type=Path, help="the outcomes of the reader compared against (the shipped one)")
    ap.add_argument("b", type=Path, help="the outcomes of the candidate")
    ap.add_argument("--rounds", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--level", type=float, default=0.9,
                    help="the interval's two-sided level (0.9; higher for a later look at the same candidate)")
    args = ap.parse_args(argv)
    try:
        c = compare(read_outcomes(args.a), read_outcomes(args.b), args.rounds, args.seed, args.level)
    except (OSError, ValueError) as e:
        print(f"compare_readers: {e}", file=sys.stderr)
        return 2
    print(f"{c.scenes} scenes read by both; cost (2 x confidently wrong + abstained): A {c.cost_a}, B {c.cost_b}")
    print(f"B - A = {c.difference:+d}; {c.level:.0%} paired-bootstrap interval {c.low:+.0f} to {c.high:+.0f}; "
          f"B costs less in {c.b_cheaper:.1%} of {args.rounds} resamples")
    return 0


if __name__ == "__main__":
    sys.exit(main())
