"""What a shipped model file says of the network it was exported from (vision.onnx_weights): what
vision.det_from_onnx needs to rebuild the shipped detector at its own width and input size."""

from __future__ import annotations

from vision.onnx_weights import input_size, stored_weights, stored_width
from vision.reader import DET_MODEL


def test_the_shipped_detector_is_read_as_the_wide_network_at_480():
    assert stored_width(DET_MODEL) == 0.25  # 16 channels out of the first convolution, not pico's 12
    assert input_size(DET_MODEL) == 480


def test_the_width_comes_from_the_first_convolution_de_quantised():
    graph, value = stored_weights(DET_MODEL)
    first = next(n for n in graph.node if n.op_type == "Conv")
    assert value(first.input[1]).shape == (16, 3, 3, 3)
