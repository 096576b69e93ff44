"""The suite's network guard refuses what leaves the machine and lets loopback through."""

from __future__ import annotations

import asyncio
import socket

import network_guard
import pytest


def test_a_remote_connection_is_refused_and_recorded() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        with pytest.raises(ConnectionRefusedError, match="offline"):
            sock.connect(("192.0.2.1", 443))
    assert network_guard.REFUSED == ["('192.0.2.1', 443) (AF_INET)"]
    network_guard.REFUSED.clear()  # this test expected it


def test_loopback_and_asyncio_are_allowed() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.create_connection(server.getsockname()):
            pass
    assert asyncio.run(asyncio.sleep(0, result=7)) == 7
    assert network_guard.is_local(socket.AF_INET6, ("::1", 80, 0, 0))
    assert not network_guard.is_local(socket.AF_INET, ("example.com", 80))
