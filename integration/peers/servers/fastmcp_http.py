"""Serving a FastMCP server over Streamable HTTP the way the peer benchmark
measures every server: on 127.0.0.1 only, printing
`peer: serving MCP at /mcp on http://127.0.0.1:PORT` on stderr once it
listens, as nexus does, with JSON replies and stateful sessions."""

import socket
import sys

from fastmcp import FastMCP


def serve_http(server: FastMCP, port: int) -> None:
    """Serve server at /mcp on 127.0.0.1:port (0 picks a free port)."""
    # The socket is bound here, so that port 0 works and the port can be
    # printed before uvicorn takes it over.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(1024)
    port = sock.getsockname()[1]
    print(f"peer: serving MCP at /mcp on http://127.0.0.1:{port}", file=sys.stderr, flush=True)
    # JSON replies rather than SSE, as nexus and the other peers answer;
    # no access log, which would cost a line per call.
    server.run(
        transport="http",
        host="127.0.0.1",
        port=port,
        path="/mcp",
        sockets=[sock],
        json_response=True,
        stateless_http=False,
        show_banner=False,
        log_level="warning",
        uvicorn_config={"access_log": False},
    )
