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
# WHAT=detector (the default) trains detectors; WHAT=classifier one classifier member.
# Detector: the scenes are the pair model's six families (vision.train.PAIR_SCENES, with their options and
# shares; one family and a seed 500+k per process k), rendered for RENDER_SECONDS (100) or up to SCENES
# (30000) on every core, plus the shipped detector's 200 validation scenes; the font decks and photographs
# two of the families draw on travel in .gpu/extras.tar (vision.artpack extras). DET_RUNS lists the runs
# trained side by side on them, each NAME:IMGSZ:START:LR, START a width (a network from scratch; 0.25 is
# the shipped detector's, 0.1875 pico's) or weights to start from (.gpu/init.pt: the shipped detector rebuilt by
# vision.det_from_onnx at its width and input size), LR "auto" (ultralytics' choice) or a rate. They train until DEADLINE seconds after
# this script started (560) less what the last epoch and the copying need, MINUTES at most. FAMILY_EXTRA
# adds vision.synth options to every family (e.g. "--webcam 0.5"), and in a classifier run to the scenes its
# crops are cut from (validation ones too); FAMILY_COUNTS gives some families other counts, so more or fewer
# processes (e.g. "tight=5000").
# Classifier: SCENES (2000) scenes of seed SCENE_SEED (7) whose crops the shipped detector cuts, CROPS rendered
# training crops (60000, seeds CROP_SEED (11) and up, one a process) and 2000 held-out ones (validation: 200 scenes
# of seed 7 and crops of seed 12, the same in every run; a run on new data changes the two seeds), MEMBER of the
# shipped classifier to start from (2), LR (0.0005), trained for MINUTES (6); CROP_EXTRA adds vision.crops options
# to the training crops (e.g. "--webcam 0.5").
# Both: BATCH (64 images, 512 crops), DEVICE (0), JOBS (all cores).
# On a CPU, for a check of the whole path: OUT=/tmp/burst DEVICE=cpu RENDER_SECONDS=20 MINUTES=1 BATCH=8
# DET_RUNS="a:416:0.1875:auto b:448:.gpu/init.pt:0.0004" EXTRAS_ROOT=/tmp/extras (this machine has the
# fonts and pictures where vision.synth looks; unpacked at / they would replace its pictures with smaller copies).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT to the folder the results go to}"
WHAT=${WHAT:-detector}
case "$WHAT" in
    detector) SCENES=${SCENES:-30000} BATCH=${BATCH:-64} ;;
    classifier) SCENES=${SCENES:-2000} BATCH=${BATCH:-512} ;;
    *) echo "WHAT must be detector or classifier, not '$WHAT'" >&2; exit 2 ;;
esac
MINUTES=${MINUTES:-6} VAL=${VAL:-200} RENDER_SECONDS=${RENDER_SECONDS:-100} DEADLINE=${DEADLINE:-560}
DET_RUNS=${DET_RUNS:-"burst:416:0.1875:auto"} FAMILY_EXTRA=${FAMILY_EXTRA:-} FAMILY_COUNTS=${FAMILY_COUNTS:-} CROP_EXTRA=${CROP_EXTRA:-}
DEVICE=${DEVICE:-0} JOBS=${JOBS:-$(nproc)}
CROPS=${CROPS:-60000} MEMBER=${MEMBER:-2} LR=${LR:-0.0005} SCENE_SEED=${SCENE_SEED:-7} CROP_SEED=${CROP_SEED:-11}
WORK=${WORK:-/tmp/cards-burst} PYTHON=${PYTHON:-python3} EXTRAS_ROOT=${EXTRAS_ROOT:-/}
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

synth=("$PYTHON" -m vision.synth --art-cache "$WORK/art" --cache-only --out "$WORK/det")
per=$(( (SCENES + JOBS - 1) / JOBS ))
pids=() val_extra=""  # a detector's validation scenes stay plain, so its mAP compares across runs
if [ "$WHAT" = detector ]; then
    [ -f .gpu/extras.tar ] || { stage "no .gpu/extras.tar: run scripts/gpu_prepare.sh first"; exit 1; }
    mkdir -p "$EXTRAS_ROOT" && tar -xf .gpu/extras.tar -C "$EXTRAS_ROOT"
    stage "fonts and pictures unpacked ($(tar -tf .gpu/extras.tar | wc -l) files); /dev/shm: $(df -h /dev/shm | tail -1)"
    stage "rendering the six families' scenes${FAMILY_EXTRA:+ ($FAMILY_EXTRA)}${FAMILY_COUNTS:+ (counts $FAMILY_COUNTS)} for ${RENDER_SECONDS}s (at most $SCENES) and $VAL validation scenes on $JOBS processes"
    counts=()
    for c in $FAMILY_COUNTS; do counts+=(--count "$c"); done
    mapfile -t families < <("$PYTHON" -m vision.train families --processes "$JOBS" "${counts[@]}")
    [ "${#families[@]}" -eq "$JOBS" ] || { stage "vision.train families gave no family list"; exit 1; }
    for k in $(seq 0 $(( JOBS - 1 ))); do
        # shellcheck disable=SC2086
        timeout "$RENDER_SECONDS" "${synth[@]}" --count "$per" --start $(( k * per )) --seed $(( 500 + k )) \
            ${families[$k]} $FAMILY_EXTRA 2>>"$WORK/synth.err" >/dev/null & pids+=($!)
    done
else
    val_extra=$FAMILY_EXTRA
    stage "rendering $SCENES scenes of seed $SCENE_SEED${FAMILY_EXTRA:+ ($FAMILY_EXTRA)} and $VAL validation scenes on $JOBS processes"
    for k in $(seq 0 $(( JOBS - 1 ))); do
        # shellcheck disable=SC2086
        "${synth[@]}" --count "$per" --start $(( k * per )) --seed "$SCENE_SEED" $FAMILY_EXTRA 2>>"$WORK/synth.err" >/dev/null & pids+=($!)
    done
fi
# shellcheck disable=SC2086
"${synth[@]}" --count "$VAL" --seed 7 --split val $val_extra 2>>"$WORK/synth.err" >/dev/null & pids+=($!)
for p in "${pids[@]}"; do  # 124: a detector slice stopped by the clock, as planned
    wait "$p" || [ $? -eq 124 ] || { tail -5 "$WORK/synth.err" | tee -a "$log"; stage "scene rendering failed"; exit 1; }
done
# a process stopped by the clock may leave its last scene half written: the meta file comes last
for img in "$WORK"/det/images/train/*.jpg; do
    stem=$(basename "$img" .jpg)
    [ -f "$WORK/det/meta/train/$stem.json" ] || rm -f "$img" "$WORK/det/labels/train/$stem.txt"
done
stage "scenes: $(ls "$WORK/det/images/train" | wc -l) training, $(ls "$WORK/det/images/val" | wc -l) validation"

keep() {  # keep DEST FILE...: copy those of the files that exist into DEST
    local dest=$1
    shift
    mkdir -p "$dest"
    for f in "$@"; do [ -f "$f" ] && cp "$f" "$dest/"; done; return 0
}

train_detector() {
    local runs=($DET_RUNS) spec name imgsz start lr left hours workers pids=() code=0 k
    workers=$(( (JOBS - ${#runs[@]}) / ${#runs[@]} ))
    [ "$workers" -lt 1 ] && workers=1
    left=$(( DEADLINE - ($(date +%s) - t0) ))
    hours=$("$PYTHON" -c "print(max(min($MINUTES * 60, $left - 75), 30) / 3600)")
    ( while sleep 60; do nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader 2>/dev/null \
        | sed "s/^/[burst $(( $(date +%s) - t0 ))s] gpu: /" >> "$log"; done ) >/dev/null 2>&1 &
    local watch=$!
    for spec in "${runs[@]}"; do
        IFS=: read -r name imgsz start lr <<< "$spec"
        local how=(--width "$start")
        [ -f "$start" ] && how=(--init "$start")
        [ "$lr" != auto ] && how+=(--lr "$lr")
        stage "training $name for $hours h on device $DEVICE: imgsz $imgsz, ${how[*]}, $workers loader processes"
        timeout --signal=INT --kill-after=15 $(( left - 20 )) \
            "$PYTHON" -m vision.train det --data "$WORK/det" --runs "$WORK/runs" --name "$name" --hours "$hours" \
            --epochs 400 --imgsz "$imgsz" "${how[@]}" --device "$DEVICE" --batch "$BATCH" --workers "$workers" \
            --cache ram > "$WORK/$name.log" 2>&1 &
        pids+=($!)
    done
    for k in "${!runs[@]}"; do
        IFS=: read -r name _ <<< "${runs[$k]}"
        wait "${pids[$k]}" || { code=$?; stage "$name exit $code"; }
        keep "$OUT/$name" "$WORK/runs/$name/weights/best.pt" "$WORK/runs/$name/results.csv"
        cp "$WORK/$name.log" "$OUT/$name/train.log"
        tail -2 "$OUT/$name/train.log" | tee -a "$log"
    done
    kill "$watch" 2>/dev/null
    return $code
}

train_classifier() {
    local cls="$WORK/cls" per=$(( (CROPS + JOBS - 1) / JOBS )) pids=() p
    stage "rendering $CROPS training crops${CROP_EXTRA:+ ($CROP_EXTRA)} and 2000 held-out ones on $JOBS processes"
    crops() { "$PYTHON" -m vision.crops --art-cache "$WORK/art" --cache-only --out "$cls" "$@" 2>>"$WORK/crops.err" >/dev/null; }
    # shellcheck disable=SC2086
    for k in $(seq 0 $(( JOBS - 1 ))); do crops --count "$per" --seed $(( CROP_SEED + k )) --prefix "c${k}_" $CROP_EXTRA & pids+=($!); done
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
    keep "$OUT" "$WORK/runs/cls-burst/best.pt" "$WORK/runs/cls-burst/results.jsonl"
    return $code
}

set +e
"train_$WHAT"
code=$?
set -e
[ -f "$OUT/train.log" ] && tail -3 "$OUT/train.log" | tee -a "$log"
stage "$WHAT exit $code"
stage "done: $(ls "$OUT" | tr '\n' ' ')"
exit "$code"
