"""A FastMCP server (FastMCP from PyPI, pinned in requirements.txt beside
this file) over Streamable HTTP, answering with SSE, for the tests of
nexus's MCP client (internal/nexus/mcpsrc):

    .venv/bin/python fastmcp_server.py PORT [handshake]    # PORT 0 picks a free one

FastMCP serves both eras of the protocol: the stateless 2026-07-28, which a
client that probes with `server/discover` gets, and the revisions reached
through `initialize`, with sessions. With `handshake` it answers that probe
-32601 (method not found), as a server from before 2026-07-28 does, so the
client falls back to `initialize` and gets a session, which a restart of
the server forgets.

It listens on 127.0.0.1 only and prints `fastmcp: listening on
http://127.0.0.1:PORT/mcp` on stderr once it does. The tools cover the
result shapes a client must read: text, structured content, a list, a
tool's error, and a sleep whose start and cancellation it reports on
stderr (`sleep started NAME`, `sleep cancelled NAME`).
"""

import asyncio
import socket
import sys

import mcp_types
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

mcp = FastMCP("fastmcp-test")


@mcp.tool(output_schema=None)
async def echo(message: str) -> str:
    """The message, as text."""
    return "echo: " + message


class Weather(BaseModel):
    city: str
    celsius: float
    conditions: str


@mcp.tool
async def weather(city: str) -> Weather:
    """A fixed forecast for the city, as structured content."""
    return Weather(city=city, celsius=21.5, conditions="sunny")


@mcp.tool
async def squares(n: int) -> list[int]:
    """The squares of 1..n."""
    return [i * i for i in range(1, n + 1)]


@mcp.tool
async def fail(reason: str) -> str:
    """Always fails, with the reason."""
    raise ToolError("failed on purpose: " + reason)


@mcp.tool(output_schema=None)
async def sleep(name: str, seconds: float) -> str:
    """Sleeps, saying on stderr when it starts and when it is cancelled."""
    print(f"sleep started {name}", file=sys.stderr, flush=True)
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        print(f"sleep cancelled {name}", file=sys.stderr, flush=True)
        raise
    return "slept " + name


async def no_discover(ctx, params) -> None:
    raise MCPError(mcp_types.METHOD_NOT_FOUND, "Method not found: server/discover")


def main() -> None:
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["handshake"]):
        sys.exit("usage: fastmcp_server.py PORT [handshake]")
    if sys.argv[2:] == ["handshake"]:
        mcp._mcp_server.add_request_handler("server/discover", mcp_types.RequestParams, no_discover)
    # Bound here, so that port 0 works, the port can be printed before
    # uvicorn takes the socket, and a restarted server gets the same port.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", int(sys.argv[1])))
    sock.listen(64)
    port = sock.getsockname()[1]
    print(f"fastmcp: listening on http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
    mcp.run(
        transport="http",
        host="127.0.0.1",
        port=port,
        path="/mcp",
        sockets=[sock],
        json_response=False,  # SSE, FastMCP's default
        stateless_http=False,  # sessions (in handshake mode), which a restart forgets
        show_banner=False,
        log_level="warning",
        uvicorn_config={"access_log": False},
    )


if __name__ == "__main__":
    main()
