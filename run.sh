#!/usr/bin/env bash
# Set up (first time only) and run Cheat Referee in the browser at http://localhost:8501.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup.sh app
address="${CHEAT_REFEREE_ADDRESS:-127.0.0.1}"
port="${CHEAT_REFEREE_PORT:-8501}"
if ! .venv/bin/python -c 'import socket, sys
with socket.socket() as s:  # as the server will: a port left in TIME_WAIT by a referee just stopped is free
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((sys.argv[1], int(sys.argv[2])))' "$address" "$port" 2>/dev/null; then
    echo "Port $port is taken: the referee may already be running (open http://localhost:$port), or another" >&2
    echo "program uses it. To start one more referee, choose another port: CHEAT_REFEREE_PORT=$((port + 1)) $0" >&2
    exit 1
fi
echo "Cheat Referee: open http://localhost:$port (Ctrl+C here stops it)"
exec .venv/bin/streamlit run app.py --server.address "$address" \
    --server.port "$port" --server.headless true --browser.gatherUsageStats false --client.toolbarMode minimal "$@"
