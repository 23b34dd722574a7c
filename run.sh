#!/usr/bin/env bash
# Set up (first time only) and run Cheat Referee in the browser at http://localhost:8501.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup.sh app
exec .venv/bin/streamlit run app.py --server.address "${CHEAT_REFEREE_ADDRESS:-127.0.0.1}" \
    --server.port "${CHEAT_REFEREE_PORT:-8501}" --server.headless true --browser.gatherUsageStats false --client.toolbarMode minimal "$@"
