"""The detector's box decoding rewritten for speed (vision.box_decoding) gives the shipped file's outputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

from vision.box_decoding import softmax_on_last_axis
from vision.reader import CLS_MODEL, DET_MODEL, letterbox, load_image

DATA = Path(__file__).resolve().parent / "data"


def _plain(model: bytes) -> ort.InferenceSession:
    so = ort.SessionOptions()
    so.log_severity_level = 3
    return ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])


def test_rewritten_detector_gives_the_same_boxes_and_scores_on_a_scene():
    original = DET_MODEL.read_bytes()
    plain = _plain(original)
    frame = letterbox(load_image(DATA / "synth_20.jpg"), plain.get_inputs()[0].shape[2])[0]
    before = plain.run(None, {"images": frame})[0]
    after = _plain(softmax_on_last_axis(original)).run(None, {"images": frame})[0]
    assert after.shape == before.shape
    assert np.abs(after - before).max() < 1e-3  # pixels at the detector's input: the same boxes


def test_rewrite_removes_the_softmax_over_the_bins_axis():
    model = onnx.load_from_string(softmax_on_last_axis(DET_MODEL.read_bytes()))
    axes = [next((a.i for a in n.attribute if a.name == "axis"), -1) for n in model.graph.node if n.op_type == "Softmax"]
    assert axes == [-1]
    onnx.checker.check_model(model)


def test_a_model_without_box_distributions_is_left_as_it_is():
    original = CLS_MODEL.read_bytes()
    assert softmax_on_last_axis(original) is original
