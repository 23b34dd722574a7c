"""The reader's gate: how likely a reading is right, and so whether the reader answers or abstains.

Why: the reader used to abstain by three hand-set rules, each with a bar chosen for the models of its day: a
card whose rank probability is under a bar, indices that could pair into cards in more than one way, and a
pair the pair model calls two cards. Models retrained on corrected labels read more scenes right but are
sure of themselves in other places, so the old bars made them confidently wrong more often. One logistic
regression over what the reader already computes for a scene, fitted on synthetic scenes of held-out deck
designs that no other step trains or chooses on, sorts right readings from wrong ones for the models it is
fitted to (models/HISTORY.md, twenty-first session). The hand rules stay as the reader's *doubts*: they are
given as the reasons when the gate abstains.

The gate ships as a tiny ONNX graph (``models/index-gate.onnx``: standardise, weigh, sigmoid), run by
onnxruntime like the other models; its metadata names the features in order. ``python -m vision.train_gate``
fits it (``vision/train_gate.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: The scene's features, in the order the gate's input takes them. Why each: more indices mean a fuller
#: reading and more cards more chances to miss one; the card probabilities and detector scores say how
#: sure each step was; the pairing features say whether the count could be read another way.
FEATURES = (
    "log_indices",          # log(1 + indices kept)
    "log_cards",            # log(1 + cards read)
    "alone_share",          # share of indices with no partner (a card with one corner seen)
    "lowest_log_prob",      # the lowest card's log rank probability (its indices' readings combined)
    "second_log_prob",      # the second lowest (0 with one card)
    "mean_log_prob",        # the mean over the cards
    "lowest_detection",     # the lowest detector score among the indices
    "weak_indices",         # indices with a detector score under WEAK
    "pairings_disagree",    # 1 when another pairing gives another count or other ranks
    "lowest_one_card",      # the pair model's lowest "one card" probability over the pairs made (1: none)
    "strongest_unmade",     # the highest same-rank probability among the possible pairs not made (0: none)
    "smallest_index",       # the smallest index box side over the picture's shorter side
    "highest_none",         # the highest NONE probability among the indices kept (0: no classifier NONE class)
    "suit_splits",          # two lone indices of one rank within reach that only the suit rule kept apart
                            # (one card's two corners counted as two cards?)
    "edge_lone",            # cards of one index at the picture's edge (a card cut by the frame, or no card)
)
#: An index box within this share of the picture's shorter side from an edge is "at the edge" (``edge_lone``).
EDGE = 0.01
#: A detector score under this makes an index "weak" (the ``weak_indices`` feature).
WEAK = 0.3
#: The reader answers when the gate's probability that its reading is right is at least this. Fixed, not
#: tuned: with a confident error counted twice as bad as an abstention, answering lowers the expected cost
#: exactly when the reading is more likely right than not.
ANSWER_AT = 0.5


@dataclass(frozen=True)
class Pairing:
    """How the reader merged indices into cards, and what it saw while doing so (``CardReader._pair``)."""

    card: np.ndarray              # each index's card number
    cards: int                    # the number of cards
    disagree: bool                # another pairing would give another count or other ranks
    one_card: dict                # the pair model's "one card" probability of each pair made, by (i, j)
    strongest_unmade: float       # the highest same-rank probability among possible pairs not made
    split_by_suit: tuple = ()     # the pairs (i, j) that rank and distance allow and the suit rule forbids

    @property
    def alone(self) -> np.ndarray:
        """Which indices make a card on their own (the card's other corner unseen)."""
        return np.bincount(self.card, minlength=self.cards)[self.card] == 1

    @property
    def suit_splits(self) -> int:
        """Pairs forbidden by the suit rule whose two indices were both left alone: one card's two corners,
        perhaps, counted as two cards."""
        alone = self.alone
        return sum(1 for i, j in self.split_by_suit if alone[i] and alone[j])

    @property
    def pairs_made(self) -> int:
        return int(sum(1 for c in range(self.cards) if (self.card == c).sum() == 2))


def scene_features(xyxy: np.ndarray, detection: np.ndarray, card_probs: np.ndarray, pairing: Pairing,
                   picture: tuple[int, int], none_prob: np.ndarray | None = None) -> np.ndarray:
    """The gate's input for one scene: ``xyxy`` and ``detection`` the kept indices' boxes and detector scores,
    ``card_probs`` (cards, ranks) each card's joint rank probabilities, ``pairing`` the merge, ``picture``
    (width, height), ``none_prob`` each index's NONE probability (None: the classifier has no such class).
    At least one index."""
    n = len(xyxy)
    if n == 0:
        raise ValueError("scene_features needs at least one index (a picture with none abstains without the gate)")
    logp = np.sort(np.log(np.clip(card_probs.max(1), 1e-6, 1.0)))
    sides = np.minimum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1])
    return np.array([
        np.log1p(n),
        np.log1p(len(card_probs)),
        (n - 2 * pairing.pairs_made) / n,
        logp[0],
        logp[1] if len(logp) > 1 else 0.0,
        logp.mean(),
        float(detection.min()),
        float((detection < WEAK).sum()),
        float(pairing.disagree),
        min(pairing.one_card.values()) if pairing.one_card else 1.0,
        pairing.strongest_unmade,
        float(sides.min()) / max(min(picture), 1),  # a picture of unknown size (0, 0): the side in pixels
        float(none_prob.max()) if none_prob is not None else 0.0,
        float(pairing.suit_splits),
        float(_at_edge(xyxy, picture)[pairing.alone].sum()),
    ], np.float32)


def _at_edge(xyxy: np.ndarray, picture: tuple[int, int]) -> np.ndarray:
    """Which boxes lie within ``EDGE`` of the picture's shorter side from one of its edges (none when the
    picture's size is unknown)."""
    w, h = picture
    if not (w and h):
        return np.zeros(len(xyxy), bool)
    m = EDGE * min(w, h)
    return (xyxy[:, 0] <= m) | (xyxy[:, 1] <= m) | (xyxy[:, 2] >= w - m) | (xyxy[:, 3] >= h - m)


@dataclass(frozen=True)
class Fitted:
    """A fitted gate: the features' means and spreads, and the weights on the standardised features."""

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float

    def probability(self, x: np.ndarray) -> np.ndarray:
        """P(reading right) for feature rows ``x`` (N, len(FEATURES)), in numpy (the ONNX graph computes the same)."""
        z = (np.asarray(x, np.float64) - self.mean) / self.scale @ self.weights + self.bias
        return 1.0 / (1.0 + np.exp(-z))


def fit(x: np.ndarray, right: np.ndarray, penalty: float = 1.0, steps: int = 50) -> Fitted:
    """Logistic regression of ``right`` (N,) on ``x`` (N, len(FEATURES)) by Newton's method, with an L2
    ``penalty`` on the standardised weights (not the bias). Deterministic: the same scenes give the same gate."""
    x = np.asarray(x, np.float64)
    y = np.asarray(right, np.float64)
    if x.ndim != 2 or x.shape[1] != len(FEATURES) or len(x) != len(y):
        raise ValueError(f"expected {len(FEATURES)} features a row and one label a row, got {x.shape} and {y.shape}")
    if y.min() == y.max():
        raise ValueError("every scene has the same label: a gate needs readings both right and wrong")
    mean, scale = x.mean(0), x.std(0) + 1e-9
    z = np.c_[np.ones(len(x)), (x - mean) / scale]
    w = np.zeros(z.shape[1])
    pen = np.r_[0.0, np.full(z.shape[1] - 1, penalty)]
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-z @ w))
        step = np.linalg.solve((z * (p * (1 - p))[:, None]).T @ z + np.diag(pen), z.T @ (p - y) + pen * w)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return Fitted(mean, scale, w[1:], float(w[0]))


def to_onnx(gate: Fitted, notes: dict[str, str] | None = None) -> bytes:
    """The gate as an ONNX graph: input ``features`` (N, len(FEATURES)) float32, output ``p_right`` (N, 1).
    Its metadata names the features in order, so that a reader can refuse a gate made for other features."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    k = len(FEATURES)
    inits = [numpy_helper.from_array(np.asarray(gate.mean, np.float32).reshape(1, k), "mean"),
             numpy_helper.from_array(np.asarray(gate.scale, np.float32).reshape(1, k), "scale"),
             numpy_helper.from_array(np.asarray(gate.weights, np.float32).reshape(k, 1), "weights"),
             numpy_helper.from_array(np.array([[gate.bias]], np.float32), "bias")]
    nodes = [helper.make_node("Sub", ["features", "mean"], ["centred"]),
             helper.make_node("Div", ["centred", "scale"], ["standard"]),
             helper.make_node("MatMul", ["standard", "weights"], ["weighed"]),
             helper.make_node("Add", ["weighed", "bias"], ["logit"]),
             helper.make_node("Sigmoid", ["logit"], ["p_right"])]
    graph = helper.make_graph(nodes, "reading_gate",
                              [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["N", k])],
                              [helper.make_tensor_value_info("p_right", TensorProto.FLOAT, ["N", 1])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="vision.train_gate")
    model.ir_version = 8
    meta = {"features": ",".join(FEATURES), "answer_at": str(ANSWER_AT), **(notes or {})}
    for key, value in meta.items():
        model.metadata_props.add(key=key, value=value)
    onnx.checker.check_model(model)
    return model.SerializeToString()


def check_features(session) -> None:
    """Refuse a gate file fitted to other features than :data:`FEATURES` (say which)."""
    names = session.get_modelmeta().custom_metadata_map.get("features", "")
    if tuple(names.split(",")) != FEATURES:
        raise ValueError(f"the gate model was fitted to the features {names or '(none named)'!r}, "
                         f"this reader computes {','.join(FEATURES)!r}: refit it with python -m vision.train_gate")
