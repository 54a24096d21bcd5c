"""The go-plugin side of a pool: what hashicorp/go-plugin's client expects
from a plugin process, spoken without Go.

* The nexus sets NEXUS_POOL_COOKIE (go-plugin's magic cookie) and
  PLUGIN_PROTOCOL_VERSIONS; a pool started any other way refuses to run.
* The pool listens on a Unix socket in PLUGIN_UNIX_SOCKET_DIR, a private
  folder the nexus made for it.
* Its first stdout line is the handshake ``1|1|unix|<socket>|grpc``: core
  protocol 1, app protocol 1, network, address, protocol.
* It serves grpc.health.v1.Health/Check and plugin.GRPCController/Shutdown.
  go-plugin also opens plugin.GRPCBroker and plugin.GRPCStdio streams; they
  are left unimplemented, which go-plugin accepts silently.

Standard output belongs to the nexus: the pool moves its own stdout onto
stderr before any user code runs, keeping a private copy of the real stdout
only to write the handshake.
"""

from __future__ import annotations

import os
import sys
import threading

from . import server, wire

# Must match the nexus's handshake (proto/handshake.go): go-plugin's magic cookie,
# which only tells "started by the nexus" from "run by hand".
COOKIE_KEY = "NEXUS_POOL_COOKIE"
COOKIE_VALUE = "9b1d4c1e-nexus-pool"

CORE_PROTOCOL_VERSION = 1
APP_PROTOCOL_VERSION = 1

# How long the pool lives after answering Shutdown: long enough for the
# reply to leave the socket, short enough that the nexus need not wait.
_EXIT_DELAY = 0.005

# How often the pool checks that the nexus that started it still runs. On
# Linux the kernel kills a pool whose nexus dies; on macOS and elsewhere
# this check ends it, within this many seconds.
_PARENT_CHECK = 1.0


def check_started_by_nexus() -> None:
    """Exits with a message when the pool was not started by the nexus, or
    by a nexus speaking another protocol version."""
    if os.environ.get(COOKIE_KEY) != COOKIE_VALUE:
        sys.stderr.write(
            "This is a nexus pool. It is started by the program that was built "
            "with it (nexus run), not by hand.\n"
        )
        sys.exit(1)
    versions = os.environ.get("PLUGIN_PROTOCOL_VERSIONS", str(APP_PROTOCOL_VERSION))
    if str(APP_PROTOCOL_VERSION) not in versions.split(","):
        sys.stderr.write(
            f"This pool speaks protocol {APP_PROTOCOL_VERSION}, but the nexus "
            f"asks for {versions}: rebuild the program with `nexus make`.\n"
        )
        sys.exit(1)


def claim_stdout() -> int:
    """Points fd 1 and sys.stdout at stderr, so nothing the pool or user code
    prints reaches the nexus's stdout, and returns a private descriptor of
    the real stdout for the handshake."""
    sys.stdout.flush()
    handshake = os.dup(1)  # not inherited by child processes
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return handshake


# A socket folder the pool made itself, removed when it exits.
_own_folder = ""


def socket_path() -> str:
    """Where to listen: in the private folder go-plugin made for this pool
    (inside the nexus's), or else in a private folder of our own."""
    global _own_folder
    folder = os.environ.get("PLUGIN_UNIX_SOCKET_DIR")
    if not folder:
        import tempfile

        folder = _own_folder = tempfile.mkdtemp(prefix="nexus-pool-")
    return os.path.join(folder, "pool.sock")


def handshake(fd: int, socket: str) -> None:
    """Tells go-plugin where to connect, then lets go of the real stdout."""
    line = (
        f"{CORE_PROTOCOL_VERSION}|{APP_PROTOCOL_VERSION}|unix|{socket}|grpc\n"
    )
    os.write(fd, line.encode())
    os.close(fd)


def methods(socket: str) -> dict[str, server.Method]:
    """go-plugin's methods the pool serves, by full name."""

    def check(request: bytes) -> bytes:
        service = wire.decode_health_request(request)
        if service not in ("", "plugin"):
            raise server.Abort(server.NOT_FOUND, f"unknown service {service!r}")
        return wire.encode_health_response(wire.SERVING)

    def shutdown(_: bytes) -> bytes:
        threading.Thread(target=_exit_soon, args=(socket,), daemon=True).start()
        return wire.EMPTY  # plugin.Empty

    return {
        "/grpc.health.v1.Health/Check": check,
        "/plugin.GRPCController/Shutdown": shutdown,
    }


def watch_parent(socket: str) -> None:
    """Ends the pool once the nexus that started it is gone, which shows as
    a change of the pool's parent (to init, launchd or a subreaper). Had it
    died before the pool started watching, the handshake's write fails."""
    parent = os.getppid()

    def watch() -> None:
        import time

        while os.getppid() == parent:
            time.sleep(_PARENT_CHECK)
        _exit(socket, 1)

    threading.Thread(target=watch, name="nexus-parent", daemon=True).start()


def _exit_soon(socket: str) -> None:
    import time

    time.sleep(_EXIT_DELAY)
    _exit(socket, 0)


def _exit(socket: str, status: int) -> None:
    for stream in (sys.stderr, sys.__stderr__):
        try:
            stream.flush()
        except Exception:
            pass
    try:
        os.unlink(socket)
        if _own_folder:
            os.rmdir(_own_folder)
    except OSError:
        pass
    os._exit(status)
