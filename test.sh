#!/usr/bin/env bash
# Set up (first time only) and run every test: rules, storage, card reader and the app in a real browser.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup.sh test
exec .venv/bin/python -m pytest "$@"
