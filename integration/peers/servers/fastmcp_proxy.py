"""The proxies part's FastMCP proxy: FastMCP's own proxy (from PyPI, the
version pinned in requirements.txt) in front of server-everything, which it
starts over stdio, served over stdio or Streamable HTTP (integration/peers
drives it, from the private venv it installs FastMCP into):

    python fastmcp_proxy.py EVERYTHING stdio
    python fastmcp_proxy.py EVERYTHING http PORT    # 0 picks a free port

EVERYTHING is the mcp-server-everything command. The issue names
`FastMCP.as_proxy`; FastMCP 3 replaced it with `fastmcp.server.create_proxy`,
which is what this FastMCP offers. It is used as its documentation shows,
with nothing tuned: the target is a `StdioTransport`, whose subprocess
FastMCP keeps alive across requests (`keep_alive` defaults to true), and the
proxy builds a fresh client on it for each request, mirroring the front
connection's protocol era (its default). It re-exports every tool of
server-everything; the benchmark calls `echo` and `get-sum`.
"""

import sys

from fastmcp.client.transports import StdioTransport
from fastmcp.server import create_proxy

from fastmcp_http import serve_http


def main() -> None:
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit("usage: fastmcp_proxy.py EVERYTHING stdio | EVERYTHING http PORT")
    everything, mode = args[0], args[1:]
    proxy = create_proxy(StdioTransport(command=everything, args=["stdio"]), name="peers-fastmcp-proxy")
    if mode == ["stdio"]:
        proxy.run(transport="stdio", show_banner=False, log_level="warning")
    elif len(mode) == 2 and mode[0] == "http":
        serve_http(proxy, int(mode[1]))
    else:
        sys.exit("usage: fastmcp_proxy.py EVERYTHING stdio | EVERYTHING http PORT")


if __name__ == "__main__":
    main()
