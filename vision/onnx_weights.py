"""The weights stored in an exported model (ONNX), as float32 arrays: how a shipped model is rebuilt as a
network to train further (``vision.train_cls.net_from_onnx``, ``vision.det_from_onnx``). Training venv only.

An exported graph stores each weight either as it is, as float16 behind a Cast (``train_cls.half_weights``),
or as int8 behind a DequantizeLinear (``vision.quantize``); :func:`stored_weights` undoes either.
"""

from __future__ import annotations

from pathlib import Path
import numpy as np


def stored_weights(path: Path):
    """The ONNX graph of ``path`` and a function giving the float32 value of any tensor name that is a
    stored weight (directly, cast from float16, or de-quantised from int8)."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    made_by = {out: node for node in graph.node for out in node.output}

    def value(name: str) -> np.ndarray:
        if name in inits:
            return inits[name].astype(np.float32)
        node = made_by[name]
        if node.op_type == "Cast":  # float16-stored weights
            return value(node.input[0])
        if node.op_type != "DequantizeLinear":
            raise ValueError(f"{path}: weight {name} comes from a {node.op_type} node, not a stored tensor")
        q = inits[node.input[0]].astype(np.float32)
        scale = inits[node.input[1]].astype(np.float32)
        zero = inits[node.input[2]].astype(np.float32) if len(node.input) > 2 else np.zeros_like(scale)
        axis = next((a.i for a in node.attribute if a.name == "axis"), 1) if q.ndim > 1 else 0
        shape = [1] * q.ndim
        shape[axis] = -1
        shape = shape if scale.size > 1 else []  # per channel, or one scale for the tensor
        return (q - zero.reshape(shape)) * scale.reshape(shape)

    return graph, value
