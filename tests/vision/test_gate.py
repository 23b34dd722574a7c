"""The reader's gate (``vision.gate``): its features, its fit, its ONNX form, and how the reader follows it."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.cards import Rank
from vision import gate
from vision.reader import GATE_MODEL, CardReader, Detections, session

from .conftest import merging_reader


def _indices(rows) -> Detections:
    """Index-level detections from (x0, y0, x1, y1, rank, probability of that rank, detector score) rows."""
    n = len(rows)
    ranks = list(Rank)
    probs = np.full((n, len(Rank)), 0.0, np.float32)
    for i, r in enumerate(rows):
        probs[i] = (1 - r[5]) / (len(Rank) - 1)
        probs[i, ranks.index(Rank(r[4]))] = r[5]
    return Detections("index", np.array([r[:4] for r in rows], np.float32), np.array([r[6] for r in rows], np.float32),
                      [Rank(r[4]) for r in rows], [None] * n, probs, np.full(n, -1), image_size=(640, 480))


def _constant_gate(p_right: float):
    """A gate session that gives every reading the probability ``p_right`` (all weights zero)."""
    k = len(gate.FEATURES)
    bias = float(np.log(p_right / (1 - p_right)))
    return session(gate.to_onnx(gate.Fitted(np.zeros(k), np.ones(k), np.zeros(k), bias)), threads=1)


def _merger(gate_session) -> CardReader:
    return merging_reader(gate=gate_session, pair_doubt=0.02, pair_sure=None)


ONE_KING = [(100, 100, 120, 130, "K", 0.99, 0.9), (200, 210, 220, 240, "K", 0.99, 0.8)]


def test_the_features_describe_the_reading():
    """Two sure kings' corners a card apart: one card, both corners paired, nothing else possible."""
    r = _merger(None)
    cards = r.merge(_indices(ONE_KING))
    x = dict(zip(gate.FEATURES, cards.evidence))
    assert cards.count == 1 and x["log_cards"] == pytest.approx(np.log(2))
    assert x["log_indices"] == pytest.approx(np.log(3))
    assert x["alone_share"] == 0.0  # both corners paired
    assert x["lowest_log_prob"] == pytest.approx(0.0, abs=1e-3)  # two 0.99 readings combined: sure
    assert x["lowest_detection"] == pytest.approx(0.8)
    assert x["weak_indices"] == 0.0 and x["pairings_disagree"] == 0.0
    assert x["lowest_one_card"] == 1.0  # no pair model asked
    assert x["smallest_index"] == pytest.approx(20 / 480)
    assert x["highest_none"] == 0.0  # no classifier read these: no NONE probability
    assert x["suit_splits"] == 0.0 and x["edge_lone"] == 0.0
    assert cards.p_right is None  # no gate


def test_two_lone_corners_split_only_by_their_suits_are_counted():
    """One card's two corners whose suits the camera read apart stay two cards under the hard suit rule; the gate
    is told, so that it can doubt the count. Two cards of one rank that do pair are no such split."""
    det = _indices(ONE_KING)
    det.suit = ["S", "C"]
    x = dict(zip(gate.FEATURES, _merger(None).merge(det).evidence))
    assert x["suit_splits"] == 1.0 and x["alone_share"] == 1.0


def test_an_abstention_names_the_split_suits_and_the_edge():
    """When the gate abstains, what it saw and no hand rule names is given as a reason, so the table knows why."""
    det = _indices(ONE_KING + [(630, 200, 640, 230, "7", 0.9, 0.9)])
    det.suit = ["S", "C", None]
    cards = _merger(_constant_gate(0.3)).merge(det)
    assert cards.abstain
    assert any("kept apart only by their suits" in why for why in cards.reasons)
    assert any("picture's edge" in why for why in cards.reasons)
    assert _merger(_constant_gate(0.8)).merge(det).reasons == []  # answered: no doubts listed


def test_a_lone_index_at_the_pictures_edge_is_counted():
    """A card cut by the frame shows one index at the edge (or the edge shows something that is no card)."""
    cards = _merger(None).merge(_indices(ONE_KING + [(630, 200, 640, 230, "7", 0.9, 0.9)]))
    x = dict(zip(gate.FEATURES, cards.evidence))
    assert cards.count == 2 and x["edge_lone"] == 1.0


def test_the_classifiers_doubt_that_a_box_is_an_index_is_read():
    det = _indices(ONE_KING)
    det.none_prob = np.array([0.05, 0.3], np.float32)
    x = dict(zip(gate.FEATURES, _merger(None).merge(det).evidence))
    assert x["highest_none"] == pytest.approx(0.3)


def test_a_card_with_one_corner_seen_shows_as_alone_and_weak():
    cards = _merger(None).merge(_indices([(100, 100, 120, 130, "5", 0.6, 0.2)]))
    x = dict(zip(gate.FEATURES, cards.evidence))
    assert x["alone_share"] == 1.0 and x["weak_indices"] == 1.0
    assert x["lowest_log_prob"] == pytest.approx(np.log(0.6), abs=1e-3)
    assert x["second_log_prob"] == 0.0  # one card only


def test_the_gate_decides_and_the_doubts_become_its_reasons():
    """With a gate, a reading it finds more likely wrong than right abstains, naming its doubts; one it finds
    likely right is answered even where a hand rule alone would have abstained (an unsure five)."""
    unsure_five = _indices([(100, 100, 120, 130, "5", 0.55, 0.9)])
    assert _merger(None).merge(unsure_five).abstain  # the hand rule: 0.55 is under the rank bar
    sure = _merger(_constant_gate(0.8)).merge(unsure_five)
    assert not sure.abstain and sure.reasons == [] and sure.p_right == pytest.approx(0.8, abs=1e-5)
    doubtful = _merger(_constant_gate(0.3)).merge(unsure_five)
    assert doubtful.abstain
    assert doubtful.reasons[0].startswith("the reading is more likely wrong than right (30% likely right)")
    assert any("not read confidently" in why for why in doubtful.reasons[1:])
    # rounded down: a reading just under even odds does not say "50% likely right"
    assert _merger(_constant_gate(0.497)).merge(unsure_five).reasons[0].endswith("(49% likely right)")
    sure_king = _merger(_constant_gate(0.3)).merge(_indices(ONE_KING))
    assert sure_king.abstain and len(sure_king.reasons) == 1  # the gate alone: no hand-rule doubt to name


def test_no_index_abstains_without_asking_the_gate():
    cards = _merger(_constant_gate(0.99)).merge(Detections.empty("index", (640, 480)))
    assert cards.abstain and cards.reasons == ["no card index found"] and cards.evidence is None


def test_the_fit_learns_which_way_a_feature_points_and_is_deterministic():
    """Readings whose lowest card probability is high are right more often: the fitted weight is positive,
    the probability rises with it, and the same data give the same gate."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, len(gate.FEATURES)))
    right = rng.random(400) < 1 / (1 + np.exp(-2 * x[:, 3]))
    fitted = gate.fit(x, right)
    assert fitted.weights[3] > 1.0
    assert np.abs(np.delete(fitted.weights, 3)).max() < 0.5
    low, high = x.copy()[:1], x.copy()[:1]
    low[0, 3], high[0, 3] = -2.0, 2.0
    assert fitted.probability(high)[0] > 0.8 > 0.2 > fitted.probability(low)[0]
    again = gate.fit(x, right)
    assert np.array_equal(again.weights, fitted.weights) and again.bias == fitted.bias


def test_the_onnx_gate_computes_what_the_fit_says():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(300, len(gate.FEATURES)))
    fitted = gate.fit(x, rng.random(300) < 1 / (1 + np.exp(-x[:, 0] + x[:, 5])))
    sess = session(gate.to_onnx(fitted), threads=1)
    gate.check_features(sess)
    got = sess.run(None, {"features": x.astype(np.float32)})[0][:, 0]
    assert np.allclose(got, fitted.probability(x), atol=1e-5)


def test_bad_training_data_is_refused_with_the_reason():
    x = np.zeros((10, len(gate.FEATURES)))
    with pytest.raises(ValueError, match="same label"):
        gate.fit(x, np.ones(10, bool))
    with pytest.raises(ValueError, match="features a row"):
        gate.fit(np.zeros((10, 3)), np.r_[np.ones(5, bool), np.zeros(5, bool)])


def test_a_gate_fitted_to_other_features_is_refused():
    import onnx

    k = len(gate.FEATURES)
    model = onnx.load_from_string(gate.to_onnx(gate.Fitted(np.zeros(k), np.ones(k), np.zeros(k), 0.0)))
    for prop in model.metadata_props:
        if prop.key == "features":
            prop.value = "something,else"
    with pytest.raises(ValueError, match="fitted to the features 'something,else'"):
        gate.check_features(session(model.SerializeToString(), threads=1))


def test_the_shipped_gate_is_the_reader_s_and_reads_its_features():
    """The shipped file names this reader's features and answers in 0..1 for a reading's evidence."""
    sess = session(GATE_MODEL.read_bytes(), threads=1)
    gate.check_features(sess)
    evidence = _merger(None).merge(_indices(ONE_KING)).evidence
    p = float(sess.run(None, {"features": evidence[None]})[0][0, 0])
    assert 0.0 < p < 1.0


def test_the_gate_is_fitted_to_the_reader_as_it_will_run(two_scenes):
    """``vision.train_gate`` reads its scenes with the candidate's settings: at a detection threshold no index
    reaches, no scene has a reading to learn from; at the reader's own, both do, each index at or above it."""
    from vision import train_gate
    from vision.reader import DET_THRESHOLD, MODELS_DIR

    x, right = train_gate.evidence([two_scenes], MODELS_DIR)
    assert len(x) == len(right) == 2
    assert (x[:, gate.FEATURES.index("lowest_detection")] >= DET_THRESHOLD).all()
    none, _ = train_gate.evidence([two_scenes], MODELS_DIR, settings={"det_threshold": 0.9999})
    assert len(none) == 0


def test_the_gate_file_names_only_the_settings_it_was_fitted_to_apart_from_the_readers(two_scenes, tmp_path):
    """A gate fitted for a candidate says which of the reader's settings it was read with (its notes), and only
    those given: "none" is the rule without a bar, a bar outside 0..1 is refused before any scene is read."""
    import onnx

    from vision import train_gate

    out = tmp_path / "gate.onnx"
    assert train_gate.main([str(two_scenes), "--out", str(out), "--pair-min-suit", "none", "--pair-sure", "0.9"]) == 0
    notes = {p.key: p.value for p in onnx.load(str(out)).metadata_props}
    assert (notes["pair_min_suit"], notes["pair_sure"]) == ("None", "0.9")
    assert "veto" not in notes and "det_threshold" not in notes
    with pytest.raises(SystemExit):
        train_gate.main([str(two_scenes), "--out", str(tmp_path / "bad.onnx"), "--pair-min-suit", "1.5"])
    assert not (tmp_path / "bad.onnx").exists()


def test_a_bar_is_a_probability_or_none():
    from argparse import ArgumentTypeError

    from vision.reader import bar_or_none

    assert (bar_or_none("none"), bar_or_none(" None "), bar_or_none("0.1"), bar_or_none("1")) == (None, None, 0.1, 1.0)
    for bad in ("1.5", "-0.1", "often"):
        with pytest.raises(ArgumentTypeError, match="0 and 1|from 0 to 1"):
            bar_or_none(bad)
