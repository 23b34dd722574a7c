"""The shipped int8 models computed exactly on every CPU, not only on those with VNNI instructions.

The models are quantised with uint8 activations and int8 weights (``vision.quantize``). On an x86 CPU
with VNNI, onnxruntime multiplies them with ``vpdpbusd``, which sums into 32 bits. On one with AVX2 (or
AVX-512) but no VNNI it uses ``vpmaddubsw``, which adds each pair of products into a signed 16-bit
integer and saturates there: 255 x 127 twice is 64,770, far past 32,767. Card photos hit that at
once (white paper is 255 in the detector's first layer, and the classifier's ReLU6 activations sit at
their ceiling), so the same files read realdev with card F1 0.910 and exact rate 0.736 on an AVX2 machine
against 0.923 and 0.795 computed exactly (onnxruntime's quantisation guide names the saturation and the
U8U8 format as its cure).

The cure is lossless: an int8 weight ``q`` with zero point 0 is the uint8 weight ``q + 128`` with zero point
128, the same real number, and onnxruntime multiplies uint8 by uint8 without the 16-bit pair sums. It is
slower, so the reader applies it only where :func:`saturates` finds that this machine's onnxruntime
saturates; elsewhere the shipped file runs as it is.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

#: Operators whose int8 weights onnxruntime fuses into a u8 x s8 integer product.
WEIGHTED_OPS = ("Conv", "MatMul", "Gemm")


def probe_model() -> bytes:
    """A one-convolution int8 model (QDQ, as ``vision.quantize`` writes them) whose exact output is known:
    an input of ones (uint8 255) through a 1x1 convolution of 16 channels with every weight 127 (int8)
    gives 16.0 in every output; a machine that saturates pair sums at 16 bits gives about half that."""
    from onnx import TensorProto, helper, numpy_helper

    c = 16
    inits = [
        numpy_helper.from_array(np.array(1 / 255, np.float32), "x_scale"),
        numpy_helper.from_array(np.array(0, np.uint8), "x_zero"),
        numpy_helper.from_array(np.full((c, c, 1, 1), 127, np.int8), "w_q"),
        numpy_helper.from_array(np.full(c, 1 / 127, np.float32), "w_scale"),
        numpy_helper.from_array(np.zeros(c, np.int8), "w_zero"),
        numpy_helper.from_array(np.array(32 / 255, np.float32), "y_scale"),
        numpy_helper.from_array(np.array(0, np.uint8), "y_zero"),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero"], ["x_q"]),
        helper.make_node("DequantizeLinear", ["x_q", "x_scale", "x_zero"], ["x_dq"]),
        helper.make_node("DequantizeLinear", ["w_q", "w_scale", "w_zero"], ["w"], axis=0),
        helper.make_node("Conv", ["x_dq", "w"], ["y_f"]),
        helper.make_node("QuantizeLinear", ["y_f", "y_scale", "y_zero"], ["y_q"]),
        helper.make_node("DequantizeLinear", ["y_q", "y_scale", "y_zero"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "saturation-probe",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, 4, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, c, 4, 4])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    return model.SerializeToString()


@lru_cache(maxsize=1)
def saturates() -> bool:
    """Whether this machine's onnxruntime adds int8 products in saturating 16-bit pairs (x86 without VNNI),
    measured once by running :func:`probe_model`."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.log_severity_level = 3
    sess = ort.InferenceSession(probe_model(), so, providers=["CPUExecutionProvider"])
    y = sess.run(None, {"x": np.ones((1, 16, 4, 4), np.float32)})[0]
    return not np.allclose(y, 16.0, atol=0.2)


def without_saturation(model_bytes: bytes) -> bytes:
    """The same model with every int8 weight of a convolution or matrix product stored as uint8 with zero
    point 128: the same real weights (``q * s == (q + 128 - 128) * s``), multiplied without the 16-bit pair
    sums that saturate. Biases (int32) and activations are untouched."""
    import onnx
    from onnx import TensorProto, numpy_helper

    model = onnx.load_from_string(model_bytes)
    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    made_by = {out: node for node in graph.node for out in node.output}
    done: set[str] = set()
    for node in graph.node:
        if node.op_type not in WEIGHTED_OPS or len(node.input) < 2:
            continue
        dq = made_by.get(node.input[1])
        if dq is None or dq.op_type != "DequantizeLinear" or len(dq.input) < 3 or dq.input[0] in done:
            continue
        q, zero = inits.get(dq.input[0]), inits.get(dq.input[2])
        if q is None or zero is None or q.data_type != TensorProto.INT8:
            continue
        z = numpy_helper.to_array(zero)
        if z.any():
            raise ValueError(f"weight {q.name} has a non-zero int8 zero point; only symmetric weights are converted")
        q.CopyFrom(numpy_helper.from_array((numpy_helper.to_array(q).astype(np.int16) + 128).astype(np.uint8), q.name))
        zero.CopyFrom(numpy_helper.from_array(np.full(z.shape, 128, np.uint8), zero.name))
        done.add(q.name)
    return model.SerializeToString()
