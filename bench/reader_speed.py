"""Speed of the card reader: median milliseconds per 640x480 frame, end to end (decode excluded,
model load excluded), onnxruntime on the CPU with 2 threads.

    python bench/reader_speed.py [--frames N] [--realdev DIR]

Frames: real photographs from ../shared/realdev resized to 640x480 when present (the first N), else
synthetic frames rendered by the committed test images (tests/vision/data) resized to 640x480.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402

from vision import int8, picture_file  # noqa: E402
from vision.reader import CLS_MODEL, DET_MODEL, GATE_MODEL, PAIR_MODEL, CardReader  # noqa: E402


def cpu_name() -> str:
    """The CPU's model name where the system says it (Linux), for the figures' record."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--realdev", type=Path, default=ROOT.parent / "shared" / "realdev")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--det-model", type=Path, default=DET_MODEL, help="another detector to compare (default: the shipped one)")
    ap.add_argument("--cls-model", type=Path, default=CLS_MODEL, help="another classifier to compare (default: the shipped one)")
    ap.add_argument("--gate-model", default=str(GATE_MODEL), help="another gate to compare, or \"none\"")
    ap.add_argument("--pair-model", default=str(PAIR_MODEL),
                    help="another pair model to compare, or \"none\" to pair by rank and distance alone")
    a = ap.parse_args(argv)
    paths = []
    if (a.realdev / "labels.jsonl").exists():
        rows = [json.loads(x) for x in (a.realdev / "labels.jsonl").read_text().splitlines() if x.strip()]
        paths = [a.realdev / r["image"] for r in rows[:: max(1, len(rows) // a.frames)]][: a.frames]
        source = f"{len(paths)} realdev photos"
    else:
        paths = sorted((ROOT / "tests" / "vision" / "data").glob("*.jpg"))
        source = f"{len(paths)} synthetic test images"
    if not paths:
        print("no frames found", file=sys.stderr)
        return 2
    frames = [cv2.resize(picture_file.read(p), (640, 480)) for p in paths]
    t = time.perf_counter()
    reader = CardReader(det_model=a.det_model, cls_model=a.cls_model, threads=a.threads,
                        pair_model=None if a.pair_model == "none" else Path(a.pair_model),
                        gate_model=None if a.gate_model == "none" else Path(a.gate_model))
    load_ms = (time.perf_counter() - t) * 1000
    for f in frames[:3]:
        reader.read(f)  # warm-up
    times, stages, crops = [], {"detect": [], "classify": [], "merge": []}, []
    while len(times) < max(a.frames, 30):
        for f in frames:
            t = time.perf_counter()
            reader.read(f)
            times.append((time.perf_counter() - t) * 1000)
            t0 = time.perf_counter()
            d = reader.detect(f)
            t1 = time.perf_counter()
            c = reader.classify(f, d)
            t2 = time.perf_counter()
            reader.merge(c, f)
            t3 = time.perf_counter()
            stages["detect"].append((t1 - t0) * 1000)
            stages["classify"].append((t2 - t1) * 1000)
            stages["merge"].append((t3 - t2) * 1000)
            crops.append(len(d))
    times.sort()
    print(f"card reader speed, 640x480 frames from {source}, {len(times)} reads, {a.threads} onnxruntime threads")
    print(f"machine: {cpu_name()}, {platform.machine()} {os.cpu_count()} cores, python {platform.python_version()}")
    # the same files cost far more where int8 products would saturate (x86 without VNNI, vision.int8)
    print("int8 products: " + ("would saturate here (no VNNI): weights run as uint8, exact and slower"
                               if int8.saturates() else "exact as shipped (VNNI or no saturation)"))
    print(f"median {statistics.median(times):.1f} ms   p90 {times[int(0.9 * len(times))]:.1f} ms   "
          f"min {times[0]:.1f} ms   (model load {load_ms:.0f} ms, excluded)")
    print("stage medians: " + ", ".join(f"{k} {statistics.median(v):.1f} ms" for k, v in stages.items())
          + f"; median {statistics.median(crops):.0f} index crops per frame")
    print("load average now (other work on the machine inflates these):", os.getloadavg())
    return 0


if __name__ == "__main__":
    sys.exit(main())
