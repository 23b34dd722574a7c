#!/usr/bin/env bash
# Set up (first time only) and run Cheat Referee in the browser at http://localhost:8501.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup.sh app
address="${CHEAT_REFEREE_ADDRESS:-127.0.0.1}"
port="${CHEAT_REFEREE_PORT:-8501}"
# the port and address checked as the server will bind them, each failure said in words (a port left in TIME_WAIT by
# a referee just stopped is free)
if ! .venv/bin/python - "$address" "$port" "$0" <<'PY'
import errno, socket, sys
address, port, me = sys.argv[1:]
if not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
    sys.exit(f"CHEAT_REFEREE_PORT must be a port number from 1 to 65535, not {port!r}.")
try:
    family, kind, proto, _, where = socket.getaddrinfo(address, int(port), type=socket.SOCK_STREAM)[0]
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(where)
except socket.gaierror:
    sys.exit(f"CHEAT_REFEREE_ADDRESS {address!r} is no address of this computer: leave it unset (this computer only), "
             "or set it to 0.0.0.0 (every network it is on).")
except OSError as error:
    if error.errno == errno.EADDRINUSE:
        sys.exit(f"Port {port} is taken: the referee may already be running (open http://localhost:{port}), or another "
                 f"program uses it. To start one more referee, choose another port: CHEAT_REFEREE_PORT="
                 f"{int(port) % 65535 + 1} {me}")
    if error.errno == errno.EACCES:
        sys.exit(f"Port {port} may be used by the system's administrator only: choose a port from 1024 up, for "
                 f"example CHEAT_REFEREE_PORT=8501 {me}")
    if error.errno == errno.EADDRNOTAVAIL:
        sys.exit(f"CHEAT_REFEREE_ADDRESS {address!r} is no address of this computer: leave it unset (this computer "
                 "only), or set it to 0.0.0.0 (every network it is on).")
    sys.exit(f"Cannot listen on {address} port {port}: {(error.strerror or str(error)).lower()}.")
PY
then
    exit 1
fi
scheme=http
case " $* " in *--server.sslCertFile*) scheme=https ;; esac
echo "Cheat Referee: open $scheme://localhost:$port (Ctrl+C here stops it)"
if [ "$address" = 0.0.0.0 ]; then  # the addresses a phone or tablet on the same network opens
    .venv/bin/python - "$scheme" "$port" <<'PY'
import socket, subprocess, sys
scheme, port = sys.argv[1:]
try:  # every address (Linux); elsewhere (macOS, busybox) the one of the way out
    found = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=5).stdout.split()
except (OSError, subprocess.SubprocessError):
    found = []
if not found:
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:  # sends nothing: it only picks a route
            probe.connect(("192.0.2.1", 9))
            found = [probe.getsockname()[0]]
    except OSError:
        pass
found = [ip for ip in found if ":" not in ip and not ip.startswith("127.")]
for ip in found:
    print(f"  on this network: {scheme}://{ip}:{port}")
if not found:
    print(f"  on this network: {scheme}://THIS-COMPUTER'S-ADDRESS:{port} (its network settings show the address)")
PY
fi
exec .venv/bin/streamlit run app.py --server.address "$address" \
    --server.port "$port" --server.headless true --browser.gatherUsageStats false --client.toolbarMode minimal "$@"
