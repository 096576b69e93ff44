"""The integration suite's network guard (installed by conftest.py): ``socket.connect`` and
``connect_ex`` refuse any address beyond loopback and Unix sockets, and record the refusal
(a framework may catch the error; the suite fails the test anyway)."""

from __future__ import annotations

import ipaddress
import socket
from typing import Any, List

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
