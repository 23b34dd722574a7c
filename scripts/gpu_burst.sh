#!/usr/bin/env bash
# One budgeted training run on a lent GPU machine (the device tool's `run`), from the repository root,
# with the folder .gpu that scripts/gpu_prepare.sh made carried along. That machine has torch and
# OpenCV but no ultralytics, no card art and no registry, and a session gets about 15 minutes of it,
# 10 a command: so this unpacks the art, renders its data on every core, trains for MINUTES and leaves
# the weights in $OUT, each stage timed in $OUT/burst.log. The int8 export, the benches and the decision
# to ship are made back on the CPU machine (models/README.md, "A detector trained on a lent GPU").
#
#   run(command="OUT=$OUT MINUTES=6 bash scripts/gpu_burst.sh", carry=[".gpu"], timeout_s=590)
#
# WHAT=detector (the default) trains the detector; WHAT=classifier one classifier member.
# Settings (environment): MINUTES of training (6), SCENES training scenes (8000 for the detector, every
# STRETCH_EVERY-th slice of them resized as a squeezed 16:9 frame is, 4; 2000 for the classifier, whose
# crops the shipped detector cuts from them), VAL validation scenes (200: the shipped detector's
# validation set), BATCH (64; 512 crops for the classifier), DEVICE (0), JOBS (all cores).
# Detector: IMGSZ (416), WIDTH of a network from scratch (0.1875: the shipped pico), INIT weights to start
# from instead (.gpu/init.pt if there). Classifier: CROPS rendered training crops (60000, with 2000
# held-out ones), MEMBER of the shipped classifier to start from (2), LR (0.0005).
# On a CPU, for a check of the whole path: OUT=/tmp/burst DEVICE=cpu SCENES=48 VAL=16 MINUTES=1 BATCH=8.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT to the folder the results go to}"
WHAT=${WHAT:-detector}
case "$WHAT" in
    detector) SCENES=${SCENES:-8000} BATCH=${BATCH:-64} ;;
    classifier) SCENES=${SCENES:-2000} BATCH=${BATCH:-512} ;;
    *) echo "WHAT must be detector or classifier, not '$WHAT'" >&2; exit 2 ;;
esac
MINUTES=${MINUTES:-6} VAL=${VAL:-200} IMGSZ=${IMGSZ:-416} WIDTH=${WIDTH:-0.1875}
DEVICE=${DEVICE:-0} JOBS=${JOBS:-$(nproc)} STRETCH_EVERY=${STRETCH_EVERY:-4}
CROPS=${CROPS:-60000} MEMBER=${MEMBER:-2} LR=${LR:-0.0005}
WORK=${WORK:-/tmp/cards-burst} PYTHON=${PYTHON:-python3}
INIT=${INIT:-}
[ -z "$INIT" ] && [ -f .gpu/init.pt ] && INIT=.gpu/init.pt
mkdir -p "$OUT" "$WORK"
log="$OUT/burst.log"
t0=$(date +%s)
stage() { echo "[burst $(( $(date +%s) - t0 ))s] $*" | tee -a "$log" >&2; }

if ! "$PYTHON" -c "import ultralytics" 2>/dev/null; then
    stage "installing the carried wheels"
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
gen --count "$VAL" --seed 7 --split val & pids+=($!)  # one process: done before the training slices
for p in "${pids[@]}"; do wait "$p" || { tail -5 "$WORK/synth.err" | tee -a "$log"; stage "scene rendering failed"; exit 1; }; done
stage "scenes: $(ls "$WORK/det/images/train" | wc -l) training, $(ls "$WORK/det/images/val" | wc -l) validation"

keep() {  # copy those of these files that exist into $OUT
    for f in "$@"; do [ -f "$f" ] && cp "$f" "$OUT/"; done; return 0
}

train_detector() {
    local hours workers=$(( JOBS > 2 ? JOBS - 2 : 0 ))
    hours=$("$PYTHON" -c "print($MINUTES / 60)")
    stage "training the detector for $MINUTES minutes on device $DEVICE (imgsz $IMGSZ, ${INIT:-width $WIDTH from scratch})"
    "$PYTHON" -m vision.train det --data "$WORK/det" --runs "$WORK/runs" --name burst --hours "$hours" --epochs 400 \
        --imgsz "$IMGSZ" --width "$WIDTH" --device "$DEVICE" --batch "$BATCH" --workers "$workers" --cache ram \
        ${INIT:+--init "$INIT"} > "$OUT/train.log" 2>&1
    local code=$?
    keep "$WORK/runs/burst/weights/best.pt" "$WORK/runs/burst/weights/last.pt" "$WORK/runs/burst/results.csv" \
        "$WORK/runs/burst/args.yaml"
    return $code
}

train_classifier() {
    local cls="$WORK/cls" per=$(( (CROPS + JOBS - 1) / JOBS )) pids=() p
    stage "rendering $CROPS training crops and 2000 held-out ones on $JOBS processes"
    crops() { "$PYTHON" -m vision.crops --art-cache "$WORK/art" --cache-only --out "$cls" "$@" 2>>"$WORK/crops.err" >/dev/null; }
    for k in $(seq 0 $(( JOBS - 1 ))); do crops --count "$per" --seed $(( 11 + k )) --prefix "c${k}_" & pids+=($!); done
    crops --count 2000 --seed 12 --split val & pids+=($!)
    for p in "${pids[@]}"; do wait "$p" || { tail -5 "$WORK/crops.err" | tee -a "$log"; return 1; }; done
    stage "cutting crops from the scenes with the shipped detector"
    "$PYTHON" -m vision.mine --scenes "$WORK/det" --out "$cls" --split val >/dev/null 2>>"$log" &&
        "$PYTHON" -m vision.mine --scenes "$WORK/det" --out "$cls" --split train >/dev/null 2>>"$log" || return 1
    "$PYTHON" -m vision.ensemble --member "$MEMBER" --out "$WORK/member.onnx" models/index-cls.onnx >>"$log" 2>&1 || return 1
    stage "training classifier member $MEMBER for $MINUTES minutes on device $DEVICE"
    local dev=$DEVICE
    [[ "$dev" =~ ^[0-9]+$ ]] && dev="cuda:$dev"
    "$PYTHON" -m vision.train_cls --data "$cls" --out "$WORK/runs/cls-burst" --init "$WORK/member.onnx" --lr "$LR" \
        --epochs 400 --fit --samples "$CROPS" --minutes "$MINUTES" --device "$dev" --batch "$BATCH" > "$OUT/train.log" 2>&1
    local code=$?
    keep "$WORK/runs/cls-burst/best.pt" "$WORK/runs/cls-burst/results.jsonl"
    return $code
}

set +e
"train_$WHAT"
code=$?
set -e
tail -3 "$OUT/train.log" 2>/dev/null | tee -a "$log"
stage "$WHAT exit $code"
stage "done: $(ls "$OUT" | tr '\n' ' ')"
exit "$code"
