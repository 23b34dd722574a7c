# Sourced by run.sh and test.sh: create .venv and install the project into it when it changed.
# $1 is "app" or "test"; the test setup also installs Debian's Chromium for the browser tests
# when it can (as root), and says so when it cannot.
want="${1:-app}"
python="${PYTHON:-python3}"
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "Cheat Referee needs Python 3.11 or newer; '$python' is $("$python" --version 2>&1)." >&2
    exit 1
fi
if [ ! -x .venv/bin/python ]; then
    echo "Setting up .venv (first run only) ..."
    "$python" -m venv .venv
fi
stamp=".venv/.installed-$want"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    extra=""
    [ "$want" = test ] && extra="[test]"
    .venv/bin/python -m pip install --disable-pip-version-check -q -e ".$extra"
    touch "$stamp"
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
