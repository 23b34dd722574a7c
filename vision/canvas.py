"""The detector run on a canvas the shape of the frame, not a square: the same model, less work.

The detector is exported for a square input (416 x 416 until the twenty-fourth session, 480 x 480 since; the
figures below are the 416 detector's). A 640 x 480 webcam frame scaled to fit it fills 416 x 312, and the other
104 rows are grey padding that the detector convolves like any picture. A
YOLOv8 network is convolutional down to its head, so the same weights run on any canvas whose sides are
multiples of its largest stride (32); ultralytics' own ``predict`` letterboxes to such a "minimum
rectangle". :func:`placement` keeps the picture where it sits on the square's grid of cells (modulo 32),
which makes a 4:3 frame's canvas 416 x 352 (the detector's run 17.1 -> 14.6 ms on a 2-core AMD EPYC) and a
16:9 frame's 416 x 288.

What is tied to the square in the exported file is the head's bookkeeping: the input's dimensions, the
anchor grid (one point per cell at strides 8, 16 and 32), each anchor's stride, and the anchor count in
two reshapes. :func:`on_canvas` rewrites those for another canvas and touches no weight and no
quantisation scale. It first rebuilds the square's grid and checks that it equals the file's, so that a
detector laid out otherwise is refused rather than silently misread. The cells near the padding see
less grey than on the square, and the network's wide view carries that a little further: the scores
move by up to 0.016 in the median synthetic spread scene, much as they do when the picture moves on the square.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: The strides of a YOLOv8 head's three levels.
STRIDES = (8, 16, 32)


@dataclass(frozen=True)
class Placement:
    """Where an image goes on the detector's input: scaled by ``scale`` to ``height`` x ``width``, its top
    left corner at (``top``, ``left``) of a ``rows`` x ``columns`` canvas of grey."""

    scale: float
    height: int
    width: int
    rows: int
    columns: int
    top: int
    left: int


def placement(height: int, width: int, size: int, fit: bool = False, stride: int = STRIDES[-1]) -> Placement:
    """An image of ``height`` x ``width`` scaled so that its longer side is ``size`` and centred on the ``size``
    square, as in training; with ``fit``, the smallest canvas in multiples of ``stride`` that holds it instead,
    the picture at the offset it has on the square modulo ``stride``.

    Why the offset is kept: the network's cells lie on grids of 8, 16 and 32 pixels, and a picture moved by
    a part of a cell is read a little differently. Centred on the fitted canvas instead (4 rows of padding
    for a 4:3 frame, not 52), the synthetic held-out scenes read about as differently as the square with the
    picture moved 16 px, and the spreads a little worse; kept at the square's phase, within a scene or two
    of the square on every set (models/HISTORY.md, eleventh session)."""
    r = min(size / height, size / width)
    h, w = int(round(height * r)), int(round(width * r))
    top, left = (size - h) // 2, (size - w) // 2
    if not fit:
        return Placement(r, h, w, size, size, top, left)
    top, left = top % stride, left % stride
    return Placement(r, h, w, -(-(top + h) // stride) * stride, -(-(left + w) // stride) * stride, top, left)


def anchor_grid(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """The anchor points (1, 2, N: each cell's centre in its level's cells) and strides (1, N) of a YOLOv8
    head on a ``rows`` x ``cols`` input, in the order the export lays them out (level by level, row-major)."""
    points, strides = [], []
    for s in STRIDES:
        ys, xs = np.meshgrid(np.arange(rows // s, dtype=np.float32) + 0.5,
                             np.arange(cols // s, dtype=np.float32) + 0.5, indexing="ij")
        points.append(np.stack([xs.ravel(), ys.ravel()]))
        strides.append(np.full(xs.size, s, np.float32))
    return np.concatenate(points, 1)[None], np.concatenate(strides)[None]


def on_canvas(model_bytes: bytes, rows: int, cols: int) -> bytes:
    """The square YOLOv8 detector ``model_bytes`` rewritten to take a 1 x 3 x ``rows`` x ``cols`` input.
    Raises ValueError when the file is not a square detector with the anchor layout of :func:`anchor_grid`,
    or when a side is not a multiple of the largest stride."""
    import onnx
    from onnx import numpy_helper

    if rows % STRIDES[-1] or cols % STRIDES[-1] or rows <= 0 or cols <= 0:
        raise ValueError(f"a detector canvas of {rows} x {cols}: both sides must be positive multiples of {STRIDES[-1]}")
    model = onnx.load_from_string(model_bytes)
    graph = model.graph
    dims = graph.input[0].type.tensor_type.shape.dim
    size = dims[2].dim_value
    if len(dims) != 4 or size <= 0 or dims[3].dim_value != size:
        raise ValueError("not a detector with a fixed square input; cannot move it to another canvas")
    old_points, old_strides = anchor_grid(size, size)
    new_points, new_strides = anchor_grid(rows, cols)
    n_old, n_new = old_points.shape[2], new_points.shape[2]
    found = set()
    for init in graph.initializer:
        x = numpy_helper.to_array(init)
        if x.dtype == np.float32 and x.shape == old_points.shape and np.array_equal(x, old_points):
            init.CopyFrom(numpy_helper.from_array(new_points, init.name))
            found.add("points")
        elif x.dtype == np.float32 and x.shape == old_strides.shape and np.array_equal(x, old_strides):
            init.CopyFrom(numpy_helper.from_array(new_strides, init.name))
            found.add("strides")
        elif x.dtype == np.int64 and x.ndim == 1 and n_old in x:
            init.CopyFrom(numpy_helper.from_array(np.where(x == n_old, n_new, x).astype(np.int64), init.name))
        elif n_old in x.shape:
            raise ValueError(f"{init.name} has {n_old} entries but is not the anchor grid this detector was checked for")
    if found != {"points", "strides"}:
        raise ValueError(f"no YOLOv8 anchor grid for a {size} x {size} input in this model; cannot move it to another canvas")
    dims[2].dim_value, dims[3].dim_value = rows, cols
    for out in graph.output:
        for d in out.type.tensor_type.shape.dim:
            if d.dim_value == n_old:
                d.dim_value = n_new
    del graph.value_info[:]  # shapes inferred for the square; onnxruntime infers them again
    return model.SerializeToString()
