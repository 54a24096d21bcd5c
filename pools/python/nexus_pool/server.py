"""The pool's gRPC server: a few unary methods, served with as little work
per call as grpcio allows.

A method is a function from the request message to the reply message, both
serialized; it raises Abort to end the call with another status.

grpcio's own servers cost more than the call they serve. grpc.server runs
each call through Python bookkeeping and hands it between its polling
thread and an executor thread and back; grpc.aio makes each call several
tasks and a dozen turns of the event loop. Either way a trivial call cost
the pool about 550 µs of CPU in the benchmark (integration/bench). This
server drives the layer both are built on, grpcio's core bindings
(grpc._cython.cygrpc), itself: the thread that polls the completion queue
reads a call, runs its method and answers it, with no hand-off. That
halves the CPU a call costs; what is left is mostly gRPC's core.

Concurrency: while calls come one at a time, one thread does all this,
because gRPC's core hands the queue from thread to thread on every event
when several wait on it, which costs a trivial call a tenth more. So that
a slow method holds up no other call (nor Shutdown) for more than a few
milliseconds, a watch looks every WATCH_PERIOD for a method that has run a
whole period with no thread left polling, and then starts another poller
(or wakes a parked one); a method begun while another runs gets one at
once. A thread whose method ends while another polls parks until needed.
The nexus bounds the calls it has in flight in a pool (`--pool-calls`);
more wait in the nexus for their turn.

The core bindings are not grpcio's public API. Should a grpcio not have
them as this module expects, serve uses grpc.server instead: slower, but
the same methods with the same results.
"""

from __future__ import annotations

import os
import threading
import time
import traceback
from typing import Any, Callable, Mapping, Optional, Sequence, Tuple

Method = Callable[[bytes], bytes]
Options = Sequence[Tuple[str, Any]]


class Streaming:
    """A server-streaming method: fn(request, send) returns the reply, the
    stream's last message, and may first call send(message) any number of
    times, from any thread, for messages that go before it. send never
    blocks: while one message is on its way, a newer one replaces the one
    waiting, so only the latest of a burst is sent (the method's messages
    are progress reports, of which only the latest matters). Every message
    sent before fn returns goes before the reply; none after."""

    def __init__(self, fn: Callable[[bytes, Callable[[bytes], None]], bytes]) -> None:
        self.fn = fn

# gRPC status codes (the values of grpc.StatusCode) the pool answers with.
UNKNOWN = 2
NOT_FOUND = 5
UNIMPLEMENTED = 12
INTERNAL = 13

# How long a method may run before another thread polls beside it: seldom
# enough that watching costs next to nothing (a wake-up each period while
# calls come), often enough that no call waits long behind a slow one.
WATCH_PERIOD = 0.002

# Periods without a new call after which the watch sleeps until one comes.
_WATCH_IDLE = 100

# How many calls the fallback server (grpc.server) runs at once, each in a
# thread of its own: as many as its default executor has threads on a large
# machine, ample for functions that wait on I/O.
MAX_CALLS = 32

# HTTP/2's limit on streams open at once: only a backstop, far above what
# the nexus sends (it bounds the calls in flight itself). gRPC's core counts
# a stream until it has fully closed, a while after its reply has gone, so
# a limit near the nexus's own bound refuses streams under load.
MAX_STREAMS = 1024


class Abort(Exception):
    """Raised by a method to end its call with status code and details
    instead of a reply."""

    def __init__(self, code: int, details: str) -> None:
        super().__init__(details)
        self.code = code
        self.details = details


def serve(
    grpc: Any,
    methods: Mapping[str, Any],
    address: str,
    options: Options,
    ready: Callable[[], None],
) -> None:
    """Serves methods (a Method, or a Streaming), keyed by full name
    ("/package.Service/Method"), on address; calls ready once the server
    listens, then serves until the process exits. Calls to other methods end
    with UNIMPLEMENTED."""
    options = [*options, ("grpc.max_concurrent_streams", MAX_STREAMS)]
    try:
        core = CoreServer(methods, address, options)
    except (ImportError, AttributeError, TypeError):
        serve_with_grpc(grpc, methods, address, options, ready)
        return
    ready()
    core.serve()


# Tags of the completion queue's events besides a call's request: a new
# call arrived, or a call's last batch (its reply or status) is done.
_NEW_CALL = "new call"
_ANSWERED = "answered"


class CoreServer:
    """The server on grpcio's core bindings. It listens once constructed;
    serve runs it."""

    def __init__(self, methods: Mapping[str, Any], address: str, options: Options) -> None:
        from grpc._cython import cygrpc

        # Fetched first, so that bindings other than expected fail here,
        # before anything listens.
        self._receive_message = cygrpc.ReceiveMessageOperation
        self._send_initial_metadata = cygrpc.SendInitialMetadataOperation
        self._send_message = cygrpc.SendMessageOperation
        self._send_status = cygrpc.SendStatusFromServerOperation
        self._receive_close = cygrpc.ReceiveCloseOnServerOperation
        self._ok = cygrpc.StatusCode.ok
        cq = cygrpc.CompletionQueue()
        server = cygrpc.Server(tuple(options), False)
        server.register_completion_queue(cq)
        if not server.add_http2_port(address.encode()):
            raise RuntimeError(f"cannot listen on {address}")
        server.start()
        server.request_call(cq, cq, _NEW_CALL)
        self._cq = cq
        self._server = server
        self._methods = {name.encode(): m for name, m in methods.items()}
        self._lock = threading.Lock()
        # Guarded by _lock:
        self._pollers = 1  # threads polling, or about to again
        self._running = 0  # methods running
        self._begun = 0  # methods begun, for the watch to tell a new run from a long one
        self._parked: list = []  # a locked lock per parked thread; releasing it wakes the thread
        self._watch_asleep = False
        self._alarm = threading.Lock()  # released to wake the sleeping watch
        self._alarm.acquire()

    def serve(self) -> None:
        """Serves in a thread of its own and keeps watch in the calling
        thread; never returns."""
        threading.Thread(target=self._poll, name="nexus-call", daemon=True).start()
        self._watch()

    def _poll(self) -> None:
        """A poller's loop: takes events from the completion queue and
        acts on them, parking in _finish when another thread polls."""
        poll = self._cq.poll
        try:
            while True:
                event = poll()
                tag = event.tag
                if tag is _NEW_CALL:
                    self._accept(event)
                elif tag is _ANSWERED:
                    pass
                elif type(tag) is tuple:
                    self._run(tag, event)
                else:  # a Streaming method's message has gone
                    tag.sent(event.success)
        except BaseException:
            # Not a method's failure (those are answered) but the server's
            # own: with a thread gone it could stop taking calls unnoticed.
            # Ending the pool instead lets the nexus see it and restart it.
            traceback.print_exc()
            os._exit(1)

    def _watch(self) -> None:
        """Adds a poller when a method has run a whole period with no
        thread polling."""
        stuck_at = -1  # _begun when the last look found no thread polling
        seen = 0  # _begun at the last look
        quiet = 0  # looks in a row that found no new method begun
        while True:
            time.sleep(WATCH_PERIOD)
            with self._lock:
                if self._pollers > 0:
                    stuck_at = -1
                elif self._begun == stuck_at:
                    # The same methods run as a period ago, and none polls.
                    self._add_poller()
                    stuck_at = -1
                else:
                    stuck_at = self._begun
                quiet = quiet + 1 if self._begun == seen else 0
                seen = self._begun
                self._watch_asleep = quiet >= _WATCH_IDLE and self._pollers > 0
                asleep = self._watch_asleep
            if asleep:
                self._alarm.acquire()  # until _begin needs the watch
                quiet = 0

    def _accept(self, event: Any) -> None:
        """A call arrived: ask for the next one, then for its request."""
        self._server.request_call(self._cq, self._cq, _NEW_CALL)
        if not event.success:
            return
        call = event.call
        method = self._methods.get(event.call_details.method)
        if method is None:
            name = event.call_details.method.decode("utf-8", "replace")
            self._end(call, UNIMPLEMENTED, f"unknown method {name}")
            return
        call.start_server_batch((self._receive_message(0),), (call, method))

    def _run(self, tag: Tuple[Any, Any], event: Any) -> None:
        """A call's request arrived: run its method and answer."""
        call, method = tag
        request = event.batch_operations[0].message() if event.success else None
        if request is None:  # the nexus gave up on the call, or sent nothing
            self._end(call, INTERNAL, "no request message")
            return
        self._begin()
        outbox = None
        try:
            if type(method) is Streaming:
                outbox = _Outbox(self, call)
                try:
                    reply = method.fn(request, outbox.send)
                finally:
                    outbox.close()
            else:
                reply = method(request)
        except Abort as e:
            self._end(call, e.code, e.details, outbox is not None and outbox.started)
        except Exception as e:
            self._end(call, UNKNOWN, f"{type(e).__name__}: {e}", outbox is not None and outbox.started)
        else:
            ops = (
                self._send_message(reply, 0),
                self._send_status(None, self._ok, b"", 0),
                self._receive_close(0),
            )
            if outbox is None or not outbox.started:
                ops = (self._send_initial_metadata(None, 0), *ops)
            call.start_server_batch(ops, _ANSWERED)
        self._finish()

    def _ensure_poller(self) -> None:
        """Makes sure a thread polls, for a method's thread about to wait
        for an event of its own call."""
        with self._lock:
            if self._pollers == 0:
                self._add_poller()

    def _begin(self) -> None:
        """Counts a method's run in, before it starts, and makes sure it
        cannot keep calls waiting for long."""
        with self._lock:
            self._begun += 1
            self._running += 1
            self._pollers -= 1
            if self._pollers == 0:
                if self._running > 1:
                    # Calls overlap already: another poller will be needed.
                    self._add_poller()
                elif self._watch_asleep:
                    self._watch_asleep = False
                    self._alarm.release()

    def _finish(self) -> None:
        """Counts a method's run out, then returns to polling, or parks
        the thread if another polls."""
        self._lock.acquire()
        self._running -= 1
        if self._pollers == 0:
            self._pollers = 1
            self._lock.release()
            return
        parked = threading.Lock()
        parked.acquire()
        self._parked.append(parked)
        self._lock.release()
        parked.acquire()  # until _add_poller releases it

    def _add_poller(self) -> None:
        """Wakes a parked thread to poll, or starts one. Called with _lock
        held."""
        self._pollers += 1
        if self._parked:
            self._parked.pop().release()
        else:
            threading.Thread(target=self._poll, name="nexus-call", daemon=True).start()

    def _end(self, call: Any, code: int, details: str, started: bool = False) -> None:
        """Ends a call with a status and no reply; started says whether
        its initial metadata went already (with a streamed message)."""
        ops = (
            self._send_status(None, code, details.encode("utf-8", "replace"), 0),
            self._receive_close(0),
        )
        if not started:
            ops = (self._send_initial_metadata(None, 0), *ops)
        call.start_server_batch(ops, _ANSWERED)


class _Outbox:
    """The messages a Streaming method sends before its reply. gRPC takes
    one message at a time: the next waits for the last to have gone (a
    poller calls sent), and a newer one replaces it while it waits."""

    def __init__(self, server: CoreServer, call: Any) -> None:
        self._server = server
        self._call = call
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        # Guarded by _lock:
        self.started = False  # the initial metadata went, with the first message
        self._busy = False  # a message is on its way
        self._waiting: Optional[bytes] = None  # the next message, once it has gone
        self._closed = False  # the method returned: no more messages

    def send(self, message: bytes) -> None:
        with self._lock:
            if self._closed:
                return
            if self._busy:
                self._waiting = message
                return
            self._start(message)

    def _start(self, message: bytes) -> None:
        """Starts sending message. Called with _lock held."""
        ops: tuple = (self._server._send_message(message, 0),)
        if not self.started:
            ops = (self._server._send_initial_metadata(None, 0), *ops)
            self.started = True
        self._busy = True
        self._call.start_server_batch(ops, self)

    def sent(self, ok: bool) -> None:
        """A message has gone (or the call ended, when not ok): send the
        one waiting, if any."""
        with self._lock:
            message, self._waiting = self._waiting, None
            if ok and message is not None:
                self._start(message)
                return
            self._busy = False
            if not ok:
                self._closed = True
            self._idle.notify_all()

    def close(self) -> None:
        """Takes no more messages, and returns once those taken have gone,
        so that the reply comes after them."""
        with self._lock:
            self._closed = True
            if not self._busy:
                return
        self._server._ensure_poller()
        with self._lock:
            while self._busy:
                self._idle.wait()


def serve_with_grpc(
    grpc: Any,
    methods: Mapping[str, Any],
    address: str,
    options: Options,
    ready: Callable[[], None],
) -> None:
    """serve on grpc.server, grpcio's public server: the fallback."""
    from concurrent.futures import ThreadPoolExecutor

    codes = {code.value[0]: code for code in grpc.StatusCode}

    def streamed(method: Streaming) -> Callable[[bytes, Any], Any]:
        # This server sends only the reply: the method's earlier messages
        # (progress reports) are dropped.
        def call(request: bytes, context: Any) -> Any:
            yield behavior(lambda r: method.fn(r, lambda _: None))(request, context)

        return call

    def behavior(method: Method) -> Callable[[bytes, Any], bytes]:
        def call(request: bytes, context: Any) -> bytes:
            try:
                return method(request)
            except Abort as e:
                context.abort(codes.get(e.code, grpc.StatusCode.UNKNOWN), e.details)
                raise  # not reached: abort raises

        return call

    services: dict = {}
    for name, method in methods.items():
        service, _, short = name.lstrip("/").rpartition("/")
        if isinstance(method, Streaming):
            handler = grpc.unary_stream_rpc_method_handler(streamed(method))
        else:
            handler = grpc.unary_unary_rpc_method_handler(behavior(method))
        services.setdefault(service, {})[short] = handler
    server = grpc.server(
        ThreadPoolExecutor(max_workers=MAX_CALLS + 1, thread_name_prefix="nexus-call"),
        handlers=[grpc.method_handlers_generic_handler(s, h) for s, h in services.items()],
        options=options,
    )
    server.add_insecure_port(address)
    server.start()
    ready()
    server.wait_for_termination()
