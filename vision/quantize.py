"""Quantise the reader's models to 8-bit integers (training venv only; the app just loads the result).

Why: the reader must take at most 50 ms per 640x480 frame on two CPU cores, and the float detector
alone takes about 40 of them. onnxruntime runs int8 convolutions with the CPU's VNNI instructions at a
fraction of that cost (a CPU without them would saturate the products of these uint8 x int8 files:
the reader loads them through ``vision.int8`` there, at some cost in speed). Static quantisation needs
the range of every activation, measured here on synthetic training data (never on realdev) fed exactly
as the reader feeds it: letterboxed scenes (:func:`vision.reader.letterbox`) for the detector, index
crops (:func:`vision.reader.crops_tensor`) for the classifier. The detection
head's last convolutions and its box decoding stay in float: they turn activations into pixel
coordinates and scores, where rounding costs boxes.

Called by ``python -m vision.train export`` and ``python -m vision.train_cls --export``, which export the
float model first.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.reader import crops_tensor, letterbox, load_image

#: Detector nodes left in float: the head's output convolutions (boxes cv2.*.2, scores cv3.*.2) and
#: everything after them (distribution focal loss decoding, anchors, concatenation).
DETECTOR_FLOAT_HEAD = ("/model.22/cv2.0/cv2.0.2/", "/model.22/cv2.1/cv2.1.2/", "/model.22/cv2.2/cv2.2.2/",
                       "/model.22/cv3.0/cv3.0.2/", "/model.22/cv3.1/cv3.1.2/", "/model.22/cv3.2/cv3.2.2/",
                       "/model.22/dfl/", "/model.22/Concat", "/model.22/Reshape", "/model.22/Sigmoid",
                       "/model.22/Slice", "/model.22/Sub", "/model.22/Add", "/model.22/Div", "/model.22/Mul")
#: Classifier nodes left in float: the last layer and the softmax, where the probabilities the reader
#: thresholds are made.
CLASSIFIER_FLOAT_HEAD = ("/net/_fc/", "/Softmax")


def _sample(files: list[Path], count: int, seed: int, missing: str) -> list[Path]:
    """``count`` of ``files`` drawn at random (fixed seed), in folder order; ``missing`` says what to run
    when there are none."""
    if not files:
        raise SystemExit(missing)
    pick = np.random.default_rng(seed).choice(len(files), size=min(count, len(files)), replace=False)
    return [files[i] for i in sorted(pick)]


def detector_frames(scenes: Path, count: int, size: int, seed: int = 0) -> list[np.ndarray]:
    """``count`` detector inputs from the synthetic training scenes, drawn at random (fixed seed)."""
    folder = scenes / "images" / "train"
    files = _sample(sorted(folder.glob("*.jpg")), count, seed,
                    f"no training scenes in {folder} (run python -m vision.synth first)")
    return [letterbox(load_image(f), size)[0] for f in files]


def classifier_batches(crops: Path, count: int, batch: int = 32, seed: int = 0) -> list[np.ndarray]:
    """``count`` training crops (``vision.crops`` and ``vision.mine`` output, every class) in batches, as
    the reader feeds them: Nx3xSxS RGB in 0..1."""
    files = _sample(sorted(crops.glob("*/*.png")), count, seed,
                    f"no training crops in {crops} (run python -m vision.crops first)")
    x = crops_tensor(np.stack([load_image(f) for f in files]))
    return [np.ascontiguousarray(x[i:i + batch]) for i in range(0, len(x), batch)]


def quantize(float_model: Path, batches: list[np.ndarray], out: Path, keep_float: tuple[str, ...]) -> None:
    """Write ``out``: ``float_model`` with int8 weights and activations (ranges from ``batches``), except the
    nodes whose names start with one of ``keep_float``; the metadata (class names) is kept."""
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    model = onnx.load(str(float_model))
    name = model.graph.input[0].name

    class Batches(CalibrationDataReader):
        def __init__(self):
            self.it = iter(batches)

        def get_next(self):
            x = next(self.it, None)
            return None if x is None else {name: x}

    prepared = out.with_suffix(".prep.onnx")
    quant_pre_process(str(float_model), str(prepared))
    floats = [n.name for n in onnx.load(str(prepared)).graph.node if n.name.startswith(keep_float)]
    quantize_static(str(prepared), str(out), Batches(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, nodes_to_exclude=floats)
    prepared.unlink()
    q = onnx.load(str(out))
    del q.metadata_props[:]
    q.metadata_props.extend(model.metadata_props)
    onnx.save(q, str(out))
    print(f"{float_model} -> {out}: int8, {sum(len(b) for b in batches)} calibration inputs, "
          f"{len(floats)} nodes kept in float")


def quantize_detector(float_model: Path, scenes: Path, out: Path, count: int) -> None:
    import onnx

    size = int(onnx.load(str(float_model)).graph.input[0].type.tensor_type.shape.dim[2].dim_value)
    quantize(float_model, detector_frames(scenes, count, size), out, DETECTOR_FLOAT_HEAD)


def quantize_classifier(float_model: Path, crops: Path, out: Path, count: int = 1024) -> None:
    quantize(float_model, classifier_batches(crops, count), out, CLASSIFIER_FLOAT_HEAD)
