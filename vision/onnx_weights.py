"""The weights stored in an exported model (ONNX), as float32 arrays, and the batch norms the export folded
away: how a shipped model is rebuilt as a network to train further (``vision.train_cls.net_from_onnx``,
``vision.det_from_onnx``). :func:`stored_weights` needs only numpy and onnx (the tests check
``vision.int8``'s conversion with it); :func:`unfold_batch_norms`, torch.

An exported graph stores each weight either as it is, as float16 behind a Cast (``train_cls.half_weights``),
or as int8 behind a DequantizeLinear (``vision.quantize``); :func:`stored_weights` undoes either. Each batch
norm was folded into its convolution; :func:`unfold_batch_norms` gives it back.
"""

from __future__ import annotations

from pathlib import Path
import numpy as np


def stored_width(path: Path) -> float:
    """The width of the YOLOv8 detector in ``path`` (``vision.train.detector_yaml``): its first convolution has
    64 x width output channels (12 for pico, 16 for the wide detectors)."""
    graph, value = stored_weights(path)
    first = next(n for n in graph.node if n.op_type == "Conv" and n.input[1].startswith("model.0.conv.weight"))
    return value(first.input[1]).shape[0] / 64


def input_size(path: Path) -> int | None:
    """The side of the square ``path`` reads (480 for the detectors since the twenty-fourth session, 416 before),
    or None where the file leaves it open."""
    import onnx

    dims = onnx.load(str(path)).graph.input[0].type.tensor_type.shape.dim
    return dims[2].dim_value or None


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


def unfold_batch_norms(net, layers, calibration, source: Path) -> None:
    """Give each (convolution, batch norm) of ``layers`` its folded weights and bias (the last two items)
    back, and the batch norm the per-channel mean and variance of its convolution's output on
    ``calibration`` (what ``net`` is called on, in eval mode), with the scale and shift that undo them. In
    eval mode ``net`` then computes what the exported file computes, and in train mode, where a batch norm
    uses the batch's own statistics, nearly so. A weight of another shape than its layer's is refused,
    naming ``source``."""
    import torch

    stats: dict = {}
    hooks = [conv.register_forward_hook(lambda mod, _inp, out: stats.__setitem__(mod, out)) for conv, *_ in layers]
    try:
        with torch.no_grad():
            for conv, bn, w, b in layers:
                if tuple(conv.weight.shape) != w.shape:
                    raise ValueError(f"{source}: a convolution of shape {w.shape} where the network has "
                                     f"{tuple(conv.weight.shape)}")
                conv.weight.copy_(torch.from_numpy(w))
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0)
                bn.weight.fill_(float(np.sqrt(1 + bn.eps)))
                bn.bias.copy_(torch.from_numpy(b))
            net(calibration)  # eval: each batch norm passes its input through (plus the bias)
            for conv, bn, _, _ in layers:
                out = stats[conv]
                mean, var = out.mean((0, 2, 3)), out.var((0, 2, 3), unbiased=False)
                bn.running_mean.copy_(mean)
                bn.running_var.copy_(var)
                bn.bias.add_(mean)
                bn.weight.copy_(torch.sqrt(var + bn.eps))
    finally:
        for hook in hooks:
            hook.remove()
