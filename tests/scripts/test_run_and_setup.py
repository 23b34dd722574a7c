"""./run.sh and the setup it shares with ./test.sh (scripts/setup.sh), run in a copy whose .venv runs this Python:
pip there fails, as offline, and streamlit only says how it was started."""

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


@pytest.fixture
def copy(tmp_path) -> Path:
    """run.sh, scripts/setup.sh and pyproject.toml, with a .venv whose python is this one (pip in it works only where
    PIP_WORKS is set, and says it ran) and whose streamlit prints its arguments; chromium is "installed"."""
    for name in ("run.sh", "scripts/setup.sh", "pyproject.toml"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, tmp_path / name)
    bin_ = tmp_path / ".venv" / "bin"
    bin_.mkdir(parents=True)
    _script(bin_ / "python", f"""#!/bin/sh
if [ "$1" = -m ] && [ "$2" = pip ]; then
    echo "pip ran" >> "{tmp_path}/pip.log"
    [ -n "$PIP_WORKS" ] && exit 0
    echo "ERROR: No matching distribution found for setuptools>=77" >&2
    exit 1
fi
exec {sys.executable} "$@"
""")
    _script(bin_ / "streamlit", "#!/bin/sh\necho \"streamlit $*\"\n")
    tools = tmp_path / "tools"
    tools.mkdir()
    _script(tools / "chromium", "#!/bin/sh\n")
    return tmp_path


def run(copy: Path, command: str, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PATH": f"{copy / 'tools'}:{os.environ['PATH']}", **env}
    environment.pop("PIP_WORKS", None)
    environment.update(env)
    return subprocess.run(["bash", "-c", command], cwd=copy, env=environment, capture_output=True, text=True,
                          timeout=120)


def test_the_referee_starts_offline_after_the_tests_set_the_folder_up(copy):
    """./test.sh installs all the referee needs too: ./run.sh after it, offline, went to the internet for an install
    of its own ("No matching distribution found for setuptools>=77") and did not start."""
    tests_setup = run(copy, "source scripts/setup.sh test", PIP_WORKS="1")
    assert tests_setup.returncode == 0, tests_setup.stderr
    assert (copy / ".venv/.installed-test").exists() and not (copy / ".venv/.installed-app").exists()
    (copy / "pip.log").unlink()
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    started = run(copy, "./run.sh", CHEAT_REFEREE_PORT=str(port))
    assert not (copy / "pip.log").exists(), started.stdout + started.stderr
    assert started.returncode == 0 and "streamlit run app.py" in started.stdout, started.stderr


def test_the_referee_offline_without_any_install_says_to_connect_once(copy):
    started = run(copy, "./run.sh")
    assert started.returncode == 1 and "streamlit run" not in started.stdout
    assert "connect to the internet\nfor the first run" in started.stderr


@pytest.mark.parametrize("settings, said", [
    ({"CHEAT_REFEREE_PORT": "abc"}, "CHEAT_REFEREE_PORT must be a port number from 1 to 65535, not 'abc'."),
    ({"CHEAT_REFEREE_PORT": "99999"}, "CHEAT_REFEREE_PORT must be a port number from 1 to 65535, not '99999'."),
    ({"CHEAT_REFEREE_ADDRESS": "nonsense"}, "CHEAT_REFEREE_ADDRESS 'nonsense' is no address of this computer"),
    ({"CHEAT_REFEREE_ADDRESS": "192.0.2.7"}, "CHEAT_REFEREE_ADDRESS '192.0.2.7' is no address of this computer"),
], ids=["port not a number", "port too high", "address no name", "address elsewhere"])
def test_a_port_or_address_the_server_cannot_use_is_said_as_it_is(copy, settings, said):
    """A port that was not a number was said to be "taken" (then bash failed on the suggested next port), and so was
    an address that is not this computer's."""
    (copy / ".venv/.installed-app").write_text("")  # an install of another version: pip, which fails, is tried
    started = run(copy, "./run.sh", **settings)
    assert started.returncode == 1 and "streamlit run" not in started.stdout, started.stdout
    assert said in started.stderr and "taken" not in started.stderr and "unbound" not in started.stderr, started.stderr


def test_a_port_in_use_is_said_to_be_taken_with_the_next_one_to_try(copy):
    (copy / ".venv/.installed-app").write_text("")
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        started = run(copy, "./run.sh", CHEAT_REFEREE_PORT=str(port))
    assert started.returncode == 1 and "streamlit run" not in started.stdout
    assert f"Port {port} is taken" in started.stderr and f"CHEAT_REFEREE_PORT={port + 1} ./run.sh" in started.stderr


def test_a_referee_open_to_the_network_says_its_addresses_and_passes_a_certificate_to_streamlit(copy):
    """With CHEAT_REFEREE_ADDRESS=0.0.0.0 the only address said was http://localhost, which a phone cannot open; a
    phone's browser needs HTTPS for the camera, given to streamlit as options after ./run.sh."""
    (copy / ".venv/.installed-app").write_text("")
    _script(copy / "tools" / "hostname", "#!/bin/sh\necho 192.0.2.44 fd00::44\n")
    with socket.socket() as free:
        free.bind(("0.0.0.0", 0))
        port = free.getsockname()[1]
    started = run(copy, "./run.sh --server.sslCertFile cert.pem --server.sslKeyFile key.pem",
                  CHEAT_REFEREE_ADDRESS="0.0.0.0", CHEAT_REFEREE_PORT=str(port))
    assert started.returncode == 0, started.stderr
    assert f"open https://localhost:{port}" in started.stdout
    assert f"on this network: https://192.0.2.44:{port}" in started.stdout and "fd00" not in started.stdout
    assert "--server.address 0.0.0.0" in started.stdout
    assert started.stdout.rstrip().endswith("--server.sslCertFile cert.pem --server.sslKeyFile key.pem")


def test_without_hostname_i_a_referee_open_to_the_network_still_says_an_address(copy):
    """macOS and busybox have no `hostname -I`: only http://localhost was said there."""
    (copy / ".venv/.installed-app").write_text("")
    _script(copy / "tools" / "hostname", "#!/bin/sh\nexit 1\n")
    with socket.socket() as free:
        free.bind(("0.0.0.0", 0))
        port = free.getsockname()[1]
    started = run(copy, "./run.sh", CHEAT_REFEREE_ADDRESS="0.0.0.0", CHEAT_REFEREE_PORT=str(port))
    assert started.returncode == 0, started.stderr
    assert "  on this network: http://" in started.stdout and f":{port}" in started.stdout.splitlines()[1], started.stdout
