# Sourced by run.sh and test.sh: create .venv and install the project into it when its dependencies changed.
# $1 is "app" or "test"; the test setup also installs Debian's Chromium for the browser tests
# when it can (as root), and says so when it cannot. Every failure says what to do, in words.
want="${1:-app}"
python="${PYTHON:-python3}"
stamp=".venv/.installed-$want"

# What the install of $1 (app or test) depends on: the project's metadata (not the file's date, which a checkout or a
# pull changes without changing a dependency), and which extra.
wanted_install() {
    .venv/bin/python - "$1" <<'PY'
import hashlib, sys, tomllib
meta = tomllib.load(open("pyproject.toml", "rb"))
print(hashlib.sha256(repr((meta.get("project"), meta.get("build-system"), sys.argv[1])).encode()).hexdigest())
PY
}

# Whether the install of $1 in .venv is the one the project wants now.
installed() {
    [ -f ".venv/.installed-$1" ] && [ "$(cat ".venv/.installed-$1")" = "$(wanted_install "$1")" ]
}

# Whether the referee itself is in .venv, as the install of $want or of the tests (which installs all the app needs
# too): ./run.sh after ./test.sh, offline, went to the internet for the app's install and did not start.
app_installed_once() {
    [ -f "$stamp" ] || { [ "$want" = app ] && [ -f .venv/.installed-test ]; }
}

# Whether the Python named by $1 runs and is 3.11 or newer.
new_enough() {
    "$1" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null
}

if [ ! -x .venv/bin/python ] || ! new_enough .venv/bin/python; then
    if ! command -v "$python" >/dev/null 2>&1; then
        echo "Cheat Referee needs Python 3.11 or newer, and '$python' was not found. Install Python 3.11 or newer" >&2
        echo "(for example: apt-get install python3 python3-venv), or name one: PYTHON=/path/to/python3.12 $0" >&2
        exit 1
    fi
    if ! new_enough "$python"; then
        echo "Cheat Referee needs Python 3.11 or newer; '$python' is $("$python" --version 2>&1)." >&2
        echo "Install a newer Python, or name one: PYTHON=/path/to/python3.12 $0" >&2
        exit 1
    fi
    echo "Setting up .venv (first run only; about a minute) ..."
    rm -rf .venv
    if ! "$python" -m venv .venv; then
        echo "Could not create .venv here ($(pwd)): the folder must be writable, and Python's venv module" >&2
        echo "installed (apt-get install python3-venv)." >&2
        exit 1
    fi
fi
if ! installed "$want" && ! { [ "$want" = app ] && installed test; }; then
    extra=""
    [ "$want" = test ] && extra="[test]"
    echo "Installing the packages into .venv ..."
    if .venv/bin/python -m pip install --disable-pip-version-check -q -e ".$extra"; then
        wanted_install "$want" > "$stamp"
    elif app_installed_once; then
        echo "Could not update the packages (offline?): going on with those already in .venv." >&2
    else
        echo "Could not install the packages into .venv (see pip's message above): connect to the internet" >&2
        echo "for the first run, then run $0 again; it resumes where it stopped." >&2
        exit 1
    fi
fi
if [ ! -x .venv/bin/streamlit ] || ! .venv/bin/python -c 'import importlib.util as u, sys
sys.exit(not all(u.find_spec(m) for m in ("streamlit", "assistant", "onnxruntime")))' 2>/dev/null; then
    echo "The setup in .venv is damaged (streamlit, onnxruntime or the project is missing): delete the .venv folder" >&2
    echo "and run $0 again to set it up afresh." >&2
    exit 1
fi
if [ "$want" = test ] && ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "Installing Debian's chromium for the browser tests ..."
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
            || echo "Could not install chromium: the browser tests will be skipped." >&2
    else
        echo "chromium is not installed: the browser tests will be skipped (apt-get install chromium)." >&2
    fi
fi
