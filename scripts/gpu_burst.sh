#!/usr/bin/env bash
# One budgeted detector run on a lent GPU machine (the device tool's `run`), from the repository root,
# with the folder .gpu that scripts/gpu_prepare.sh made carried along. That machine has torch and
# OpenCV but no ultralytics, no card art and no registry, and a session gets about 15 minutes of it,
# 10 a command: so this unpacks the art, renders the scenes on every core, trains for MINUTES and
# leaves the weights in $OUT, each stage timed in $OUT/burst.log. The int8 export, the benches and the
# decision to ship are made back on the CPU machine (models/README.md, "A detector trained on a lent GPU").
#
#   run(command="OUT=$OUT MINUTES=6 bash scripts/gpu_burst.sh", carry=[".gpu"], timeout_s=590)
#
# Settings (environment): MINUTES of training (6), SCENES training scenes (8000; every STRETCH_EVERY-th
# slice of them resized as a squeezed 16:9 frame is, 4), VAL validation scenes (200: the shipped
# detector's validation set), IMGSZ (416), WIDTH of a network from scratch (0.1875: the shipped pico),
# INIT weights to start from instead (.gpu/init.pt if there), BATCH (64), DEVICE (0), JOBS (all cores).
# On a CPU, for a check of the whole path: OUT=/tmp/burst DEVICE=cpu SCENES=48 VAL=16 MINUTES=1 BATCH=8.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT to the folder the results go to}"
MINUTES=${MINUTES:-6} SCENES=${SCENES:-8000} VAL=${VAL:-200} IMGSZ=${IMGSZ:-416} WIDTH=${WIDTH:-0.1875}
BATCH=${BATCH:-64} DEVICE=${DEVICE:-0} JOBS=${JOBS:-$(nproc)} STRETCH_EVERY=${STRETCH_EVERY:-4}
WORK=${WORK:-/tmp/cards-burst} PYTHON=${PYTHON:-python3}
INIT=${INIT:-}
[ -z "$INIT" ] && [ -f .gpu/init.pt ] && INIT=.gpu/init.pt
mkdir -p "$OUT" "$WORK"
log="$OUT/burst.log"
t0=$(date +%s)
stage() { echo "[burst $(( $(date +%s) - t0 ))s] $*" | tee -a "$log" >&2; }

stage "installing the carried wheels"
if ! "$PYTHON" -c "import ultralytics" 2>/dev/null; then
    ls .gpu/whl/*.whl >/dev/null 2>&1 || { stage "no wheels in .gpu/whl: run scripts/gpu_prepare.sh first"; exit 1; }
    "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$WORK/site" .gpu/whl/*.whl
    export PYTHONPATH="$WORK/site${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" YOLO_OFFLINE=1 PYTHONUNBUFFERED=1

stage "unpacking the card art"
"$PYTHON" -m vision.artpack unpack --pack .gpu/art.tar --art "$WORK/art" 2>&1 | tee -a "$log"

stage "rendering $SCENES training and $VAL validation scenes on $JOBS processes"
per=$(( (SCENES + JOBS - 1) / JOBS ))
gen() { "$PYTHON" -m vision.synth --art-cache "$WORK/art" --cache-only --out "$WORK/det" "$@" 2>>"$WORK/synth.err" >/dev/null; }
pids=()
for k in $(seq 0 $(( JOBS - 1 ))); do
    stretch=1
    [ $(( k % STRETCH_EVERY )) -eq $(( STRETCH_EVERY - 1 )) ] && stretch=1.8
    gen --count "$per" --start $(( k * per )) --seed 7 --stretch "$stretch" & pids+=($!)
done
vper=$(( (VAL + JOBS - 1) / JOBS ))
for k in $(seq 0 $(( JOBS - 1 ))); do
    [ $(( k * vper )) -lt "$VAL" ] || break
    n=$(( VAL - k * vper < vper ? VAL - k * vper : vper ))
    gen --count "$n" --start $(( k * vper )) --seed 7 --split val & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || { tail -5 "$WORK/synth.err" | tee -a "$log"; stage "scene rendering failed"; exit 1; }; done
stage "scenes: $(ls "$WORK/det/images/train" | wc -l) training, $(ls "$WORK/det/images/val" | wc -l) validation"

stage "training the detector for $MINUTES minutes on device $DEVICE (imgsz $IMGSZ, ${INIT:-width $WIDTH from scratch})"
hours=$("$PYTHON" -c "print($MINUTES / 60)")
workers=$(( JOBS > 2 ? JOBS - 2 : 0 ))
set +e
"$PYTHON" -m vision.train det --data "$WORK/det" --runs "$WORK/runs" --name burst --hours "$hours" --epochs 400 \
    --imgsz "$IMGSZ" --width "$WIDTH" --device "$DEVICE" --batch "$BATCH" --workers "$workers" --cache ram \
    ${INIT:+--init "$INIT"} > "$OUT/train.log" 2>&1
code=$?
set -e
tail -3 "$OUT/train.log" | tee -a "$log"
stage "training exit $code"
for f in best.pt last.pt; do
    [ -f "$WORK/runs/burst/weights/$f" ] && cp "$WORK/runs/burst/weights/$f" "$OUT/$f"
done
for f in results.csv args.yaml; do
    [ -f "$WORK/runs/burst/$f" ] && cp "$WORK/runs/burst/$f" "$OUT/$f"
done
stage "done: $(ls "$OUT" | tr '\n' ' ')"
exit "$code"
