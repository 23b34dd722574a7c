"""The latency benchmark's arithmetic (tests/e2e/harness.py: measure), on made-up traces."""

from __future__ import annotations

from tests.e2e.harness import measure


def frames(start: float, counts: list[int], step: float = 1 / 15) -> list[dict]:
    return [{"kind": "frame", "t": start + i * step, "cards": n, "read_ms": 40.0} for i, n in enumerate(counts)]


def test_latency_runs_from_the_first_frame_with_the_cards_to_the_verdict_in_the_page():
    events = [{"kind": "arm", "t": 100.0}] + frames(100.05, [0, 0, 0, 2, 2, 2, 2])
    appeared = events[4]["t"]
    events.append({"kind": "verdict_recorded", "t": appeared + 0.5})
    # idle frames (read between calls) and frames before the arm do not count
    events.insert(0, {"kind": "frame", "t": 99.0, "cards": 2})
    events.append({"kind": "frame", "t": appeared - 0.01, "cards": 2, "idle": True})
    trial = measure(events, {"t": appeared + 0.7, "text": "Lie: Sam picks up 2 cards"})
    assert trial["ok"]
    assert abs(trial["latency_s"] - 0.7) < 1e-3
    assert abs(trial["server_s"] - 0.5) < 1e-3
    assert trial["read_ms"] == [40.0] * 4


def test_a_trial_whose_cards_were_already_in_view_is_discarded():
    events = [{"kind": "arm", "t": 100.0}] + frames(100.05, [2, 2, 2, 2])
    trial = measure(events, {"t": 100.5, "text": "Lie: Sam picks up 2 cards"})
    assert not trial["ok"] and "already in view" in trial["why"]


def test_the_last_call_before_the_verdict_is_the_one_measured():
    events = [{"kind": "arm", "t": 90.0}] + frames(90.05, [0, 2]) + [{"kind": "arm", "t": 100.0}] + frames(100.05, [0, 0, 2, 2])
    trial = measure(events, {"t": 101.0, "text": "x"})
    assert trial["ok"] and abs(trial["latency_s"] - (101.0 - (100.05 + 2 / 15))) < 1e-3
