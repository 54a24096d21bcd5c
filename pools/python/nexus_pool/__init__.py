"""nexus_pool: the runtime of nexus's Python pools.

A generated pool.py describes the functions a program sources from Python
and calls run(); everything else is here. The pool is a gRPC server
(server.py) that speaks hashicorp/go-plugin's protocol (plugin.py), serves
the nexus.pool.Pool service (service.py) over hand-encoded protobuf
messages (wire.py), and converts values by type (convert.py).

Dependencies: the standard library, grpcio and msgpack. Nothing else is
imported, and nothing heavy, since a command line run pays the pool's
start on every call.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Mapping, Sequence, Tuple, Union

# The module of the prelude's higher-order functions (prelude.py), which
# pool.py lists among the user's modules when the program needs them.
PRELUDE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prelude.py")

# The module name pool.py lists for Python's builtins (`source Py ("len")`).
BUILTINS = "<builtins>"

# Function table entries in pool.py:
# id: (module index, source name, program name, argument types, result type)
# The source name of a foreign operator is ("infix", text) (operators.py).
FunctionSpec = Tuple[int, Union[str, Tuple[str, str]], str, Sequence[Any], Any]


def run(
    modules: Sequence[str],
    records: Mapping[str, Tuple[Any, Sequence[Tuple[str, Any]]]],
    functions: Mapping[int, FunctionSpec],
) -> None:
    """Loads the user's modules and serves their functions until the nexus
    asks the pool to shut down. Never returns."""
    from . import plugin

    plugin.check_started_by_nexus()
    handshake_fd = plugin.claim_stdout()
    try:
        import grpc
        import msgpack  # noqa: F401  (checked here, used by service)
    except ImportError as e:
        import shlex

        # The pool runs under the interpreter recorded at build time, which
        # need not be the python3 on the user's PATH.
        sys.stderr.write(
            f"The Python pool needs the packages grpcio and msgpack ({e}); "
            f"install them with: {shlex.quote(sys.executable)} -m pip install grpcio msgpack\n"
        )
        sys.exit(1)
    from . import load, progress, server, service

    # What the user's modules import as `nexus` (nexus.progress), unless
    # one of them is called so.
    sys.modules.setdefault("nexus", progress.module())
    table = load.functions(modules, records, functions)
    socket = plugin.socket_path()
    plugin.watch_parent(socket)
    pool = service.Pool(table)
    methods = {
        "/nexus.pool.Pool/Call": pool.call,
        "/nexus.pool.Pool/CallWithProgress": server.Streaming(pool.call_with_progress),
        "/nexus.pool.Pool/Calls": server.Duplex(pool.calls),
        **plugin.methods(socket),
    }
    # The nexus sends and receives whole values in one message; gRPC's
    # default 4 MB limit is hit by a list of a million floats.
    options = [
        ("grpc.max_send_message_length", -1),
        ("grpc.max_receive_message_length", -1),
        # No bandwidth-delay probing, as on the nexus's side: the probes
        # ping the nexus on most requests, an extra write and wake-up at
        # both ends of a call.
        ("grpc.http2.bdp_probe", 0),
    ]
    server.serve(
        grpc, methods, "unix:" + socket, options, lambda: plugin.handshake(handshake_fd, socket)
    )
    os._exit(0)
