"""The int8 models compute the same on every CPU (vision.int8): the reader's sessions agree with the
model's exact integer arithmetic, whether or not this machine's onnxruntime saturates int8 products."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, numpy_helper

from vision import int8
from vision.onnx_weights import stored_weights
from vision.reader import CLS_MODEL, DET_MODEL, crops_tensor, letterbox, load_image, session, square_crop

DATA = Path(__file__).resolve().parent / "data"


def exact(model: bytes | Path) -> ort.InferenceSession:
    """The model run node by node, unfused: each int8 product done in float, as the arithmetic defines it."""
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(model if isinstance(model, bytes) else str(model), so,
                                providers=["CPUExecutionProvider"])


def test_the_probe_reads_sixteen_when_computed_exactly():
    y = exact(int8.probe_model()).run(None, {"x": np.ones((1, 16, 4, 4), np.float32)})[0]
    assert np.allclose(y, 16.0, atol=0.2)


def test_converted_probe_does_not_saturate_on_this_machine():
    sess = ort.InferenceSession(int8.without_saturation(int8.probe_model()), providers=["CPUExecutionProvider"])
    assert np.allclose(sess.run(None, {"x": np.ones((1, 16, 4, 4), np.float32)})[0], 16.0, atol=0.2)


def test_without_saturation_keeps_every_weight_and_leaves_no_int8_weight(tmp_path):
    converted = tmp_path / "det.onnx"
    converted.write_bytes(int8.without_saturation(DET_MODEL.read_bytes()))
    (_, before), (after_graph, after) = stored_weights(DET_MODEL), stored_weights(converted)
    inits = {i.name: i for i in after_graph.initializer}
    made_by = {o: n for n in after_graph.node for o in n.output}
    convs = [n for n in after_graph.node if n.op_type == "Conv" and n.input[1] in made_by]
    assert len(convs) > 50
    for node in convs:
        assert np.array_equal(before(node.input[1]), after(node.input[1])), node.name
        assert inits[made_by[node.input[1]].input[0]].data_type == TensorProto.UINT8, node.name


def test_without_saturation_refuses_an_asymmetric_int8_weight():
    model = onnx.load_from_string(int8.probe_model())
    for init in model.graph.initializer:
        if init.name == "w_zero":
            init.CopyFrom(numpy_helper.from_array(np.full(16, 3, np.int8), "w_zero"))
    with pytest.raises(ValueError, match="w_q"):
        int8.without_saturation(model.SerializeToString())


@pytest.fixture(scope="module")
def images():
    return [load_image(p) for p in sorted(DATA.glob("*.jpg"))]


def test_the_readers_detector_computes_the_exact_int8_scores(images):
    """On a machine whose onnxruntime saturates (x86 without VNNI) the shipped file alone is off by up to
    0.5 in a box's score; the reader's session must agree with the exact arithmetic."""
    reader_session, reference = session(DET_MODEL), exact(DET_MODEL)
    size = reference.get_inputs()[0].shape[2]  # the square the detector was exported for
    for img in images:
        x = letterbox(img, size)[0]
        got, want = (s.run(None, {"images": x})[0][0, 4] for s in (reader_session, reference))
        assert np.abs(got - want).max() < 0.1


def test_the_readers_classifier_computes_the_exact_int8_probabilities(images):
    rng = np.random.default_rng(0)
    crops = []
    for img in images:
        h, w = img.shape[:2]
        for _ in range(8):
            cx, cy, side = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(15, 60)
            crops.append(square_crop(img, [cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2], size=64))
    x = crops_tensor(crops)
    reader_session, reference = session(CLS_MODEL), exact(CLS_MODEL)
    name = reference.get_inputs()[0].name
    got, want = (s.run(None, {name: x})[0] for s in (reader_session, reference))
    assert np.abs(got - want).max() < 0.1
    assert (got.argmax(1) == want.argmax(1)).all()
