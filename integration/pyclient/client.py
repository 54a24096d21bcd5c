"""Drives a nexus MCP server with the Python SDK's client (`mcp`, pinned in
integration/mcpservers/requirements.txt), for integration/pyclient_test.go.

    client.py MODE SERVER CALLS

MODE is how the client connects: `auto` (mcp.Client: it probes
server/discover at 2026-07-28 and falls back to initialize), `legacy`
(mcp.Client forcing the initialize handshake), or `session` (the
lower-level ClientSession over the transport, initialize at the SDK's
latest handshake revision). SERVER is a URL (Streamable HTTP) or a JSON
list, the command line of a stdio server. CALLS is a JSON list of
[tool, arguments] pairs. Prints one JSON object: the negotiated protocol
version, the tool names listed, and for each call its isError, text,
structuredContent and the progress reports it received.
"""

import asyncio
import json
import sys

import mcp
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


def result_json(r, progress):
    return {
        "isError": bool(r.is_error),
        "text": "".join(c.text for c in r.content if getattr(c, "type", "") == "text"),
        "structured": r.structured_content,
        "progress": progress,
    }


async def run_calls(call, calls):
    out = []
    for name, args in calls:
        progress = []

        async def on_progress(done, total, message, progress=progress):
            progress.append([done, total, message])

        out.append(result_json(await call(name, args, on_progress), progress))
    return out


async def session_json(version, tools, call, calls):
    """What the client saw: the version, the tools listed, each call's result."""
    return {
        "protocolVersion": version,
        "tools": [t.name for t in tools.tools],
        "calls": await run_calls(call, calls),
    }


async def with_client(mode, server, calls):
    target = server if isinstance(server, str) else mcp.StdioServerParameters(command=server[0], args=server[1:])
    async with mcp.Client(target, mode=mode, cache=None) as c:
        tools = await c.list_tools()

        async def call(name, args, on_progress):
            return await c.call_tool(name, args, progress_callback=on_progress)

        return await session_json(c.protocol_version, tools, call, calls)


async def with_session(server, calls):
    if isinstance(server, str):
        transport = streamable_http_client(server)
    else:
        transport = stdio_client(mcp.StdioServerParameters(command=server[0], args=server[1:]))
    async with transport as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as s:
            init = await s.initialize()
            tools = await s.list_tools()

            async def call(name, args, on_progress):
                return await s.call_tool(name, args, progress_callback=on_progress)

            return await session_json(init.protocol_version, tools, call, calls)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    mode, server, calls = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    if server.startswith("["):
        server = json.loads(server)
    if mode == "session":
        out = asyncio.run(with_session(server, calls))
    else:
        out = asyncio.run(with_client(mode, server, calls))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
