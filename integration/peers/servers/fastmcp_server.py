"""The peer benchmark's MCP server made with FastMCP (from PyPI), serving the
three benchmark tools over stdio or Streamable HTTP (integration/peers
drives it, from the private venv it installs FastMCP into):

    python fastmcp_server.py stdio
    python fastmcp_server.py http PORT    # 0 picks a free port

Over HTTP it prints `peer: serving MCP at /mcp on http://127.0.0.1:PORT` on
stderr once it listens, as nexus does. Each tool answers one text block
holding the compact JSON of its value, as nexus does: `output_schema=None`
keeps FastMCP from adding structured content that nexus does not send.

The tools are `async def`: FastMCP runs a plain `def` tool in a worker
thread, a hop per call that costs these non-blocking functions about a
quarter of FastMCP's calls/s; `async def` is its faster path.
"""

import json
import sys

from fastmcp import FastMCP
from fastmcp_http import serve_http

mcp = FastMCP("peers")


@mcp.tool(output_schema=None)
async def trivial(x: int) -> int:
    """The integer, unchanged."""
    return x


@mcp.tool(output_schema=None)
async def shout(s: str) -> str:
    """The string reversed and in upper case."""
    # FastMCP sends a str result as the text itself; the JSON of the string
    # is what nexus and the other peers send.
    return json.dumps(s[::-1].upper())


@mcp.tool(output_schema=None)
async def total(xs: list[float]) -> float:
    """The sum of the numbers."""
    return sum(xs)


def main() -> None:
    args = sys.argv[1:]
    if args == ["stdio"]:
        mcp.run(transport="stdio", show_banner=False, log_level="warning")
    elif len(args) == 2 and args[0] == "http":
        serve_http(mcp, int(args[1]))
    else:
        sys.exit("usage: fastmcp_server.py stdio | http PORT")


if __name__ == "__main__":
    main()
