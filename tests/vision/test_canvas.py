"""The detector moved to a canvas the shape of the frame (vision.canvas) finds the indices it finds on the square."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.canvas import anchor_grid, on_canvas, placement
from vision.reader import CLS_MODEL, DET_MODEL, box_iou, decode_boxes, letterbox, load_image, model_bytes, session

DATA = Path(__file__).resolve().parent / "data"


def test_placement_keeps_the_square_unless_asked_to_fit():
    at = placement(480, 640, 416)
    assert (at.rows, at.columns, at.top, at.left, at.height, at.width) == (416, 416, 52, 0, 312, 416)


@pytest.mark.parametrize("height, width, rows, columns, top, left", [
    (480, 640, 352, 416, 20, 0),    # 4:3 webcam: 312 rows of picture at the square's offset 52 = 20 mod 32
    (1080, 1920, 288, 416, 27, 0),  # 16:9: 234 rows at 91 = 27 mod 32
    (504, 378, 416, 352, 0, 20),    # a portrait photo: the columns shrink instead
    (640, 640, 416, 416, 0, 0),     # a square photo: the square
])
def test_fitted_canvas_is_the_smallest_that_keeps_the_picture_on_the_squares_grid(height, width, rows, columns, top, left):
    at = placement(height, width, 416, fit=True)
    assert (at.rows, at.columns, at.top, at.left) == (rows, columns, top, left)
    square = placement(height, width, 416)
    assert (at.top - square.top) % 32 == 0 and (at.left - square.left) % 32 == 0
    assert at.top + at.height <= at.rows and at.left + at.width <= at.columns


def test_anchor_grid_counts_one_point_per_cell_of_each_level():
    points, strides = anchor_grid(352, 416)
    assert points.shape == (1, 2, 44 * 52 + 22 * 26 + 11 * 13)
    assert strides.shape == (1, points.shape[2])
    assert set(np.unique(strides)) == {8.0, 16.0, 32.0}


def _boxes(frame_path: Path, fit: bool):
    img = load_image(frame_path)
    prepared = model_bytes(DET_MODEL)
    size = session(prepared).get_inputs()[0].shape[2]  # the square the detector was exported for
    x, r, left, top = letterbox(img, size, fit)
    sess = session(on_canvas(prepared, *x.shape[2:]) if fit else prepared)
    out = sess.run(None, {sess.get_inputs()[0].name: x})[0][0]
    assert out.shape[1] == anchor_grid(*x.shape[2:])[0].shape[2]
    xyxy, scores = decode_boxes(out, 0.3)
    return (xyxy - [left, top, left, top]) / r, scores


@pytest.mark.parametrize("name", ["synth_01.jpg", "synth_20.jpg", "synth_03.jpg"])
def test_fitted_detector_finds_the_indices_the_square_finds(name):
    square, square_scores = _boxes(DATA / name, fit=False)
    fitted, fitted_scores = _boxes(DATA / name, fit=True)
    assert len(square) > 0
    assert len(fitted) == len(square)
    iou = box_iou(square, fitted)
    assert (iou.max(1) > 0.8).all() and (iou.max(0) > 0.8).all()
    assert np.abs(np.sort(square_scores) - np.sort(fitted_scores)).max() < 0.1


def test_a_canvas_off_the_stride_or_a_model_without_anchors_is_refused():
    det = DET_MODEL.read_bytes()
    with pytest.raises(ValueError, match="multiples of 32"):
        on_canvas(det, 300, 416)
    with pytest.raises(ValueError, match="anchor grid"):
        on_canvas(CLS_MODEL.read_bytes(), 64, 64)
