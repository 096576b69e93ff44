"""The integration suite runs offline, for real: every test fails that opens a connection to
anything but this machine (a ``socket.connect`` guard: loopback addresses and Unix sockets,
such as asyncio's own socketpair, are allowed). scripts/test-integrations.sh also sets the
frameworks' offline switches and gives no API keys; they are set here as well, so a single
file run by hand is offline too."""

from __future__ import annotations

import ipaddress
import os
import socket
from typing import Any, Iterator, List

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("DSP_CACHEDIR", os.path.join(os.environ.get("TMPDIR", "/tmp"), "earlyexit-integrations-dspy-cache"))
for name in [n for n in os.environ if n.endswith("_API_KEY")]:
    del os.environ[name]

#: Connections refused by the guard since the last test began (a framework may swallow the error).
REFUSED: List[str] = []
_connect = socket.socket.connect
_connect_ex = socket.socket.connect_ex


def is_local(family: int, address: Any) -> bool:
    """Whether ``address`` (of a socket of ``family``) stays on this machine."""
    if family == getattr(socket, "AF_UNIX", object()):
        return True
    host = address[0] if isinstance(address, tuple) and address else address
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def _refuse(sock: socket.socket, address: Any) -> OSError:
    where = f"{address!r} ({socket.AddressFamily(sock.family).name})"
    REFUSED.append(where)
    return ConnectionRefusedError(f"the integration suite is offline: connection to {where} refused")


def guarded_connect(self: socket.socket, address: Any) -> None:
    if not is_local(self.family, address):
        raise _refuse(self, address)
    return _connect(self, address)


def guarded_connect_ex(self: socket.socket, address: Any) -> int:
    if not is_local(self.family, address):
        raise _refuse(self, address)
    return _connect_ex(self, address)


socket.socket.connect = guarded_connect  # type: ignore[method-assign]
socket.socket.connect_ex = guarded_connect_ex  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def offline() -> Iterator[None]:
    """Fails the test when anything tried the network, even if the error was caught."""
    REFUSED.clear()
    yield
    if REFUSED:
        pytest.fail("tried to reach the network: " + ", ".join(REFUSED))
