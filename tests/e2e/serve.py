"""Test-only server launcher: Streamlit with aioice gathering 127.0.0.1 as its only host address.

aioice leaves 127.0.0.1 out of its candidates and has no option for it; inside the test's own
network namespace (``unshare -n``, only ``lo`` up) nothing else exists, so the WebRTC pair stays
strictly on loopback. Never used by ``run.sh``. With ``E2E_LINK_AS_SHIPPED=1`` aioice is left as run.sh has it
(the check that the page says this computer is on no network).

    python tests/e2e/serve.py PORT [streamlit options...]
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import aioice.ice


def _loopback_only(use_ipv4: bool = True, use_ipv6: bool = True) -> list[str]:
    return ["127.0.0.1"] if use_ipv4 else []


if os.environ.get("E2E_LINK_AS_SHIPPED") != "1":  # set: aioice as run.sh has it (the "offline" check)
    aioice.ice.get_host_addresses = _loopback_only

if __name__ == "__main__":
    from streamlit.web import cli

    app = Path(__file__).resolve().parents[2] / "app.py"
    port = sys.argv[1]
    sys.argv = ["streamlit", "run", str(app), "--server.address", "127.0.0.1", "--server.port", port,
                "--server.headless", "true", "--browser.gatherUsageStats", "false",
                "--client.toolbarMode", "minimal", *sys.argv[2:]]  # run.sh's page: no developer menu
    sys.exit(cli.main())
