"""The pool's gRPC server: a few methods, served with as little work per
call as grpcio allows.

A method is a function from the request message to the reply message, both
serialized; it raises Abort to end the call with another status. Two kinds
stream: a Streaming method sends messages before its reply, and a Duplex
method is one long call carrying many requests and their answers (the
nexus's Calls), each request's work run as a unary method's would be.

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
the same methods with the same results, except Duplex methods, which it
answers UNIMPLEMENTED (the client then uses the unary methods).
"""

from __future__ import annotations

import os
import threading
import time
import traceback
from collections import deque
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


class Duplex:
    """A bidirectional streaming method, one stream carrying many requests
    and their answers: open(send) is called as a stream begins and returns
    the stream's handler, called with each message the client sends, in
    order, on a poller thread. The handler decides quickly what to do with
    the message (the next is read only once it has returned) and returns
    None, or the work the message asks for: a function run then, on the
    same thread, while the stream's later messages are read and handled, so
    that the works of one stream run concurrently and may take long.

    send(message, key=None) queues a message for the client, from any
    thread, and never blocks: messages go in the order sent, except that a
    message sent with a key replaces the one with that key still waiting
    (progress reports, of which only the latest matters). Messages sent
    once the stream has ended are dropped.

    The stream ends with status OK once the client has sent its last
    message, every work has returned and every message has gone; a handler
    or a work raising Abort ends it at once with that status, dropping the
    messages waiting, and any other exception with UNKNOWN. A stream the
    client cancels (or whose connection breaks) ends its reading at once;
    works running run on, their messages dropped."""

    def __init__(self, open: Callable[[Callable[..., None]], Callable[[bytes], Optional[Callable[[], None]]]]) -> None:
        self.open = open


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
    """Serves methods (a Method, a Streaming or a Duplex), keyed by full name
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
                else:  # a streaming call's own event: its method handles it
                    tag(event)
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
        if type(method) is Duplex:
            _DuplexCall(self, call, method).receive()
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

    def _send(self, call: Any, message: bytes, first: bool, tag: Any) -> None:
        """Starts sending a streaming call's message, with the call's
        initial metadata when it is the first; tag is called once it has
        gone."""
        ops: tuple = (self._send_message(message, 0),)
        if first:
            ops = (self._send_initial_metadata(None, 0), *ops)
        call.start_server_batch(ops, tag)

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
        self._server._send(self._call, message, not self.started, self._sent)
        self.started = True
        self._busy = True

    def _sent(self, event: Any) -> None:
        """A message has gone (or the call ended, when not ok): send the
        one waiting, if any."""
        ok = event.success
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


class _DuplexCall:
    """One call of a Duplex method: reads the client's messages one at a
    time, runs their works, and sends the works' messages one at a time
    (gRPC takes one of each at a time)."""

    def __init__(self, server: CoreServer, call: Any, method: Duplex) -> None:
        self._server = server
        self._call = call
        self._lock = threading.Lock()
        # Guarded by _lock:
        self._queue: deque = deque()  # [message, key] entries waiting to go
        self._keyed: dict = {}  # key -> its entry in _queue
        self._busy = False  # a message is on its way
        self._started = False  # the initial metadata went, with the first message
        self._reading = True  # the client may send more
        self._works = 0  # works running
        self._status: Optional[Tuple[int, str]] = None  # an Abort's, to end with
        self._ended = False  # the status went: nothing more
        self._broken = False  # a message failed to go: the client is gone
        self._handle = method.open(self.send)

    def receive(self) -> None:
        """Asks for the client's next message."""
        self._call.start_server_batch((self._server._receive_message(0),), self._received)

    def _received(self, event: Any) -> None:
        message = event.batch_operations[0].message() if event.success else None
        if message is None:  # the client's last message, or the call broke
            with self._lock:
                self._reading = False
                self._end_when_done()
            return
        server = self._server
        server._begin()
        try:
            work = None
            try:
                work = self._handle(message)
            except Exception as e:
                self._abort(e)
            with self._lock:
                go_on = self._status is None
                if work is not None and go_on:
                    self._works += 1
                else:
                    work = None
            if go_on:
                self.receive()
            if work is not None:
                try:
                    work()
                except Exception as e:
                    self._abort(e)
                finally:
                    with self._lock:
                        self._works -= 1
                        self._end_when_done()
        finally:
            server._finish()

    def send(self, message: bytes, key: Any = None) -> None:
        with self._lock:
            if self._ended or self._broken or self._status is not None:
                return
            if key is not None:
                waiting = self._keyed.get(key)
                if waiting is not None:
                    waiting[0] = message
                    return
            if not self._busy:
                self._start(message)
                return
            entry = [message, key]
            self._queue.append(entry)
            if key is not None:
                self._keyed[key] = entry

    def _start(self, message: bytes) -> None:
        """Starts sending message. Called with _lock held."""
        self._server._send(self._call, message, not self._started, self._sent)
        self._started = True
        self._busy = True

    def _sent(self, event: Any) -> None:
        with self._lock:
            self._busy = False
            if not event.success:
                self._broken = True
                self._drop()
            if self._queue:
                message, key = self._queue.popleft()
                if key is not None:
                    del self._keyed[key]
                self._start(message)
                return
            self._end_when_done()

    def _abort(self, e: Exception) -> None:
        if isinstance(e, Abort):
            status = (e.code, e.details)
        else:
            status = (UNKNOWN, f"{type(e).__name__}: {e}")
        with self._lock:
            if self._status is None:
                self._status = status
            self._drop()
            self._end_when_done()

    def _drop(self) -> None:
        """Drops the messages waiting. Called with _lock held."""
        self._queue.clear()
        self._keyed.clear()

    def _end_when_done(self) -> None:
        """Sends the status, once nothing more is to go before it. Called
        with _lock held."""
        if self._ended or self._busy:
            return
        if self._status is None and (self._reading or self._works > 0):
            return
        self._ended = True
        code, details = self._status or (self._server._ok, "")
        self._server._end(self._call, code, details, self._started)


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
        if isinstance(method, Duplex):
            # Not served: UNIMPLEMENTED tells the client to use the unary
            # methods instead, as it does with a pool built before Duplex.
            continue
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
