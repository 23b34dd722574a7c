"""vision.ensemble: classifiers trained apart, joined into one ONNX file that reads as their mean."""

from __future__ import annotations

import ast

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from vision.ensemble import join, main, members_of, take_member
from vision.reader import CLS_MODEL

NAMES = {0: "AS", 1: "KH", 2: "NONE"}


def _classifier(path, seed: int, names=NAMES, classes: int = 3):
    """A tiny stand-in classifier: softmax of a fixed random linear map of the crop's mean colour, with the
    shipped classifier's input and output names and its class names in the metadata."""
    w = np.random.default_rng(seed).normal(size=(3, classes)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("ReduceMean", ["images"], ["colour"], axes=[2, 3], keepdims=0),
         helper.make_node("MatMul", ["colour", "w"], ["logits"]),
         helper.make_node("Softmax", ["logits"], ["output0"], axis=1)],
        "member", [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 3, 8, 8])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, ["batch", classes])],
        initializer=[numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    helper.set_model_props(model, {"names": str(names), "description": f"member {seed}"})
    onnx.save(model, str(path))
    return path


def _run(path, x):
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"images": x})[0]


def test_the_joined_model_reads_the_mean_of_its_members(tmp_path):
    members = [_classifier(tmp_path / f"m{k}.onnx", k) for k in range(3)]
    join(members, tmp_path / "ens.onnx")
    x = np.random.default_rng(9).random((5, 3, 8, 8), np.float32)
    mean = np.mean([_run(m, x) for m in members], axis=0)
    got = _run(tmp_path / "ens.onnx", x)
    assert np.allclose(got, mean, atol=1e-6)
    assert np.allclose(got.sum(1), 1, atol=1e-5)  # still probabilities, as the reader's thresholds expect
    meta = {p.key: p.value for p in onnx.load(str(tmp_path / "ens.onnx")).metadata_props}
    assert ast.literal_eval(meta["names"]) == NAMES
    assert meta["ensemble"] == "m0.onnx, m1.onnx, m2.onnx"


def test_weights_make_a_weighted_mean_at_one_copy_of_each_member(tmp_path):
    """A member counted twice (--weights 1,1,2) reads as the four-member mean with it given twice, and each member
    is still taken out as it was."""
    members = [_classifier(tmp_path / f"m{k}.onnx", k) for k in range(3)]
    join(members, tmp_path / "w.onnx", [1, 1, 2])
    join(members + [members[2]], tmp_path / "twice.onnx")
    x = np.random.default_rng(5).random((6, 3, 8, 8), np.float32)
    runs = [_run(m, x) for m in members]
    got = _run(tmp_path / "w.onnx", x)
    assert np.allclose(got, (runs[0] + runs[1] + 2 * runs[2]) / 4, atol=1e-6)
    assert np.allclose(got, _run(tmp_path / "twice.onnx", x), atol=1e-6)
    assert not np.allclose(got, np.mean(runs, axis=0), atol=1e-3)  # the weights did something
    meta = {p.key: p.value for p in onnx.load(str(tmp_path / "w.onnx")).metadata_props}
    assert meta["weights"] == "0.25, 0.25, 0.5" and meta["ensemble"] == "m0.onnx, m1.onnx, m2.onnx"
    take_member(tmp_path / "w.onnx", 2, tmp_path / "taken.onnx")
    assert np.array_equal(_run(tmp_path / "taken.onnx", x), runs[2])
    assert "weights" not in {p.key for p in onnx.load(str(tmp_path / "taken.onnx")).metadata_props}
    for bad in ([1, 2], [1, 0, 1], [1, -1, 2], [1, 1, float("inf")]):
        with pytest.raises(SystemExit, match="one positive number per member"):
            join(members, tmp_path / "bad.onnx", bad)
    with pytest.raises(SystemExit, match="--weights is for joining"):
        main(["--member", "0", "--weights", "1,2", "--out", str(tmp_path / "bad.onnx"), str(tmp_path / "w.onnx")])
    assert not (tmp_path / "bad.onnx").exists()


def test_members_with_other_classes_are_refused(tmp_path):
    a = _classifier(tmp_path / "a.onnx", 0)
    b = _classifier(tmp_path / "b.onnx", 1, names={0: "AS", 1: "QH", 2: "NONE"})
    with pytest.raises(SystemExit, match="b.onnx: its class names differ"):
        join([a, b], tmp_path / "ens.onnx")
    c = _classifier(tmp_path / "c.onnx", 2, classes=4)  # same names, one more output column
    with pytest.raises(SystemExit, match="c.onnx: its input or output shape differs"):
        join([a, c], tmp_path / "ens.onnx")
    with pytest.raises(SystemExit, match="at least two"):
        join([a], tmp_path / "ens.onnx")
    (tmp_path / "broken.onnx").write_bytes(b"not a model")
    with pytest.raises(SystemExit, match="broken.onnx: not a readable ONNX model"):
        join([a, tmp_path / "broken.onnx"], tmp_path / "ens.onnx")
    assert not (tmp_path / "ens.onnx").exists()


def test_a_member_taken_out_reads_as_it_did_before_the_join(tmp_path):
    """A later session with no training runs starts from a member of the shipped file (train_cls --init)."""
    members = [_classifier(tmp_path / f"m{k}.onnx", k) for k in range(3)]
    join(members, tmp_path / "ens.onnx")
    assert members_of(tmp_path / "ens.onnx") == ["m0.onnx", "m1.onnx", "m2.onnx"]
    assert members_of(members[0]) == []
    x = np.random.default_rng(3).random((4, 3, 8, 8), np.float32)
    for k, original in enumerate(members):
        take_member(tmp_path / "ens.onnx", k, tmp_path / f"taken{k}.onnx")
        assert np.array_equal(_run(tmp_path / f"taken{k}.onnx", x), _run(original, x))
        meta = {p.key: p.value for p in onnx.load(str(tmp_path / f"taken{k}.onnx")).metadata_props}
        assert "ensemble" not in meta and ast.literal_eval(meta["names"]) == NAMES
    with pytest.raises(SystemExit, match=r"no member 3; its members are 0 \(m0.onnx\), 1 \(m1.onnx\), 2 \(m2.onnx\)"):
        take_member(tmp_path / "ens.onnx", 3, tmp_path / "x.onnx")
    with pytest.raises(SystemExit, match="not an ensemble"):
        take_member(members[0], 0, tmp_path / "x.onnx")
    assert not (tmp_path / "x.onnx").exists()


def test_the_shipped_classifier_is_the_weighted_mean_of_four_schedules():
    """The model card's claim about the shipped file: four members, the newest with half the vote, averaged softmaxes."""
    meta = ort.InferenceSession(str(CLS_MODEL), providers=["CPUExecutionProvider"]).get_modelmeta().custom_metadata_map
    assert len(meta["ensemble"].split(", ")) == 4
    assert [round(float(w), 3) for w in meta["weights"].split(", ")] == [0.167, 0.167, 0.167, 0.5]
    x = np.random.default_rng(0).random((4, 3, 64, 64), np.float32)
    assert np.allclose(_run(CLS_MODEL, x).sum(1), 1, atol=1e-4)
