"""The integration suite runs offline, for real: every test fails that opens a connection to
anything but this machine (a ``socket.connect`` guard: loopback addresses and Unix sockets,
such as asyncio's own socketpair, are allowed). scripts/test-integrations.sh also sets the
frameworks' offline switches and gives no API keys; they are set here as well, so a single
file run by hand is offline too."""

from __future__ import annotations

import os
from typing import Iterator

import network_guard
import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("DSP_CACHEDIR", os.path.join(os.environ.get("TMPDIR", "/tmp"), "earlyexit-integrations-dspy-cache"))
for name in [n for n in os.environ if n.endswith("_API_KEY")]:
    del os.environ[name]


@pytest.fixture(autouse=True)
def offline() -> Iterator[None]:
    """Fails the test when anything tried the network, even if the error was caught."""
    network_guard.REFUSED.clear()
    yield
    if network_guard.REFUSED:
        pytest.fail("tried to reach the network: " + ", ".join(network_guard.REFUSED))
