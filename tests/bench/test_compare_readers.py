"""The paired comparison of two readers' scene outcomes (bench/compare_readers.py), and the outcomes option of
bench/bench_reader_synth.py that feeds it."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


compare_readers = _load("compare_readers")


def outcomes(*costs: int, set_: str = "general-x") -> dict:
    """Scenes with the given costs: 0 right, 1 abstained, 2 confidently wrong."""
    return {(set_, f"{k:06d}"): {"wrong": c == 2, "abstain": c == 1} for k, c in enumerate(costs)}


def test_cost_weighs_a_confident_error_twice_an_abstention():
    assert [compare_readers.cost({"wrong": w, "abstain": a}) for w, a in ((False, False), (False, True), (True, False))] \
        == [0, 1, 2]


def test_the_same_outcomes_differ_by_nothing():
    a = outcomes(0, 1, 2, 0, 1)
    c = compare_readers.compare(a, dict(a), rounds=500)
    assert (c.cost_a, c.cost_b, c.difference, c.low, c.high, c.b_cheaper) == (4, 4, 0, 0.0, 0.0, 0.0)


def test_a_candidate_better_on_every_scene_is_cheaper_in_every_resample():
    c = compare_readers.compare(outcomes(*[2] * 40), outcomes(*[1] * 40), rounds=500)
    assert c.difference == -40 and c.high < 0 and c.b_cheaper == 1.0


def test_one_scene_of_many_is_not_told_from_chance():
    """A single scene's gain among many even trades: the interval spans zero."""
    a = outcomes(*([0, 2] * 100 + [1]))
    b = outcomes(*([2, 0] * 100 + [0]))
    c = compare_readers.compare(a, b, rounds=2000)
    assert c.difference == -1 and c.low < 0 < c.high and 0.2 < c.b_cheaper < 0.8


def test_readers_that_read_other_scenes_are_not_compared():
    with pytest.raises(ValueError, match="not read the same scenes"):
        compare_readers.compare(outcomes(0, 1), outcomes(0, 1, set_="tight-x"))


def test_a_malformed_or_repeated_line_is_named(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"set": "s", "scene": "000000", "wrong": false, "abstain": true}\n{"set": "s"}\n')
    with pytest.raises(ValueError, match="line 2: not a scene outcome"):
        compare_readers.read_outcomes(bad)
    twice = tmp_path / "twice.jsonl"
    line = json.dumps({"set": "s", "scene": "000000", "wrong": False, "abstain": False})
    twice.write_text(f"{line}\n{line}\n")
    with pytest.raises(ValueError, match="appears twice"):
        compare_readers.read_outcomes(twice)


def test_the_command_reports_the_difference_and_refuses_bad_files(tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("".join(json.dumps({"set": "s", "scene": str(k), "wrong": True, "abstain": False}) + "\n" for k in range(5)))
    b.write_text("".join(json.dumps({"set": "s", "scene": str(k), "wrong": False, "abstain": True}) + "\n" for k in range(5)))
    assert compare_readers.main([str(a), str(b), "--rounds", "200"]) == 0
    assert "A 10, B 5" in capsys.readouterr().out
    assert compare_readers.main([str(a), str(tmp_path / "missing.jsonl")]) == 2
    assert "missing.jsonl" in capsys.readouterr().err


def test_outcomes_need_one_setting_of_each_swept_option(tmp_path, capsys):
    bench = _load("bench_reader_synth")
    with pytest.raises(SystemExit):
        bench.main(["--data", str(tmp_path), "--thresholds", "0.1,0.2", "--outcomes", str(tmp_path / "o.jsonl")])
    assert "give one value to --thresholds" in capsys.readouterr().err


def test_outcomes_keep_the_gates_features_of_each_read_scene(two_scenes, tmp_path):
    """A gate can be studied on a bench's readings without reading the scenes again: each outcome line carries the
    scene's gate features, as many as the gate takes, where the reader kept an index."""
    from vision import gate

    bench = _load("bench_reader_synth")
    out = tmp_path / "o.jsonl"
    bench.main(["--data", str(two_scenes), "--thresholds", "0.1", "--outcomes", str(out)])
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["scene"] for r in rows] == ["000000", "000001"]
    assert all(len(r["evidence"]) == len(gate.FEATURES) for r in rows)


def test_outcomes_say_which_ranks_were_read_and_which_were_there(two_scenes, tmp_path):
    """Whether a reader misses cards, adds them or misreads ranks is read off the outcome lines: each carries the
    ranks read and the labelled ones as counts, and is exact exactly when the two agree."""
    from vision.train_gate import truth_of

    bench = _load("bench_reader_synth")
    out = tmp_path / "o.jsonl"
    bench.main(["--data", str(two_scenes), "--thresholds", "0.1", "--outcomes", str(out)])
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    metas = sorted((two_scenes / "meta" / "val").glob("*.json"))
    assert [r["truth"] for r in rows] == [dict(truth_of(json.loads(m.read_text()))) for m in metas]
    assert all(r["exact"] == (r["read"] == r["truth"]) for r in rows)
    assert any(r["read"] for r in rows)


def test_a_higher_level_widens_the_interval_around_the_same_difference(tmp_path, capsys):
    """A later look at a candidate asks for a wider interval: the same resamples, cut further out, and the level
    is said in the report."""
    a = outcomes(*([0, 2, 1] * 60))
    b = outcomes(*([0, 1, 1] * 55 + [2, 2, 1] * 5))
    narrow = compare_readers.compare(a, b, rounds=2000, level=0.9)
    wide = compare_readers.compare(a, b, rounds=2000, level=0.98)
    assert narrow.difference == wide.difference and narrow.b_cheaper == wide.b_cheaper
    assert wide.low < narrow.low and narrow.high < wide.high
    with pytest.raises(ValueError, match="between 0 and 1"):
        compare_readers.compare(a, b, level=98)
    pa, pb = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path, rows in ((pa, a), (pb, b)):
        path.write_text("".join(json.dumps({"set": s, "scene": k, **o}) + "\n" for (s, k), o in rows.items()))
    assert compare_readers.main([str(pa), str(pb), "--rounds", "200", "--level", "0.98"]) == 0
    assert "98% paired-bootstrap interval" in capsys.readouterr().out
