package mcp

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/nexus-run/nexus/internal/nexus/jsonrpc"
	"github.com/nexus-run/nexus/internal/nexus/progress"
	"github.com/nexus-run/nexus/internal/nexus/tool"
)

// Progress: a tools/call whose params carry _meta.progressToken gets the
// progress its functions report (see package progress) as
// notifications/progress, sent before its reply on the transport's channel
// to that request's client: the stdio stream, or the POST's own response,
// which then becomes an event stream. A transport offers the channel by
// putting a notifier in the context it hands the session (withNotifier);
// the call (startProgress) uses it only when the client gave a token.

// progressInterval is the least time between two progress notifications
// of one call: reports come as fast as a function makes them (one per item
// of a million-item loop), a client wants a moving bar, not a flood. The
// latest report waiting is sent when the interval has passed, and before
// the reply in any case.
const progressInterval = 50 * time.Millisecond

type notifierKey struct{}

// withNotifier returns ctx through which the tools/call requests handled
// with it may send notifications to their client before their reply.
// notify must write each message whole and may be called from any
// goroutine; a call sends nothing through it once its reply has been
// handed to the transport.
func withNotifier(ctx context.Context, notify func([]byte)) context.Context {
	return context.WithValue(ctx, notifierKey{}, notify)
}

// progressToken returns the progressToken of a request's _meta (the raw
// JSON of a string or a number), or nil when it has none.
func progressToken(meta json.RawMessage) json.RawMessage {
	if len(meta) == 0 {
		return nil
	}
	token := jsonrpc.Lookup(meta, "progressToken")
	if len(token) == 0 {
		return nil
	}
	switch c := token[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return token
	}
	return nil
}

// startProgress returns the context a call with progress token token (nil
// when the client gave none) runs in, for a client of protocol version
// version, and the function that ends its notifications: it sends the
// latest report still waiting, and nothing is sent after it returns. The
// call must end them before its reply goes.
func startProgress(ctx context.Context, token json.RawMessage, version string) (context.Context, func()) {
	notify, _ := ctx.Value(notifierKey{}).(func([]byte))
	if token == nil || notify == nil {
		return ctx, func() {}
	}
	s := &progressSink{notify: notify, token: token, messages: version >= V20250326}
	return progress.With(ctx, s.report), s.close
}

// progressSink turns one call's reports into its notifications: only
// growing ones, at most one per progressInterval, the latest last.
type progressSink struct {
	notify   func([]byte)
	token    json.RawMessage
	messages bool // the client's revision has the message field

	mu         sync.Mutex
	closed     bool
	seen       bool    // a report was taken
	last       float64 // the Done of the last report taken
	sentAt     time.Time
	pending    progress.Report // taken, not sent yet, when hasPending
	hasPending bool
	timer      *time.Timer // sends pending once the interval has passed
}

func (s *progressSink) report(r progress.Report) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || !finite(r.Done) || (s.seen && r.Done <= s.last) {
		return
	}
	s.seen, s.last = true, r.Done
	if wait := progressInterval - time.Since(s.sentAt); !s.sentAt.IsZero() && wait > 0 {
		s.pending, s.hasPending = r, true
		if s.timer == nil {
			s.timer = time.AfterFunc(wait, s.flush)
		}
		return
	}
	s.sendLocked(r)
}

func (s *progressSink) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.timer = nil
	if !s.closed && s.hasPending {
		s.sendLocked(s.pending)
	}
}

func (s *progressSink) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	if !s.closed && s.hasPending {
		s.sendLocked(s.pending)
	}
	s.closed = true
}

func (s *progressSink) sendLocked(r progress.Report) {
	s.hasPending = false
	s.sentAt = time.Now()
	s.notify(s.encode(r))
}

// encode is the notifications/progress message of r.
func (s *progressSink) encode(r progress.Report) []byte {
	b := make([]byte, 0, 128+len(r.Message))
	b = append(b, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":`...)
	b = append(b, s.token...)
	b = append(b, `,"progress":`...)
	b = strconv.AppendFloat(b, r.Done, 'g', -1, 64)
	// The one rule for the three languages: a total that is not finite
	// or not above 0 means none is known.
	if r.HasTotal && finite(r.Total) && r.Total > 0 {
		b = append(b, `,"total":`...)
		b = strconv.AppendFloat(b, r.Total, 'g', -1, 64)
	}
	if s.messages && r.Message != "" {
		b = append(b, `,"message":`...)
		b = tool.AppendString(b, shortMessage(r.Message))
	}
	return append(b, "}}"...)
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// maxProgressMessage bounds a progress message, in bytes: a line of
// status for a person, which a function reporting in a loop could
// otherwise make as large as it likes, many times a second.
const maxProgressMessage = 1024

// shortMessage is m cut to maxProgressMessage bytes, at a character
// boundary, with "…" added when it was cut.
func shortMessage(m string) string {
	if len(m) <= maxProgressMessage {
		return m
	}
	cut := maxProgressMessage
	for cut > 0 && !utf8.RuneStart(m[cut]) {
		cut--
	}
	return m[:cut] + "…"
}

// eventStream is the response to one POST of Streamable HTTP once the
// call it carries sends a notification: text/event-stream, the
// notifications, then the reply. A nil *eventStream (the client does not
// accept an event stream) takes no notification, and the reply goes as
// before.
type eventStream struct {
	w http.ResponseWriter

	mu     sync.Mutex
	begun  bool // the headers went
	closed bool // the handler returned: w may not be used
}

// newEventStream returns the event stream of the response w to r, or nil
// when r does not accept one.
func newEventStream(w http.ResponseWriter, r *http.Request) *eventStream {
	if !acceptsEvents(r.Header.Values("Accept")) {
		return nil
	}
	return &eventStream{w: w}
}

// context returns ctx with the stream as the notifier of its calls.
func (e *eventStream) context(ctx context.Context) context.Context {
	if e == nil {
		return ctx
	}
	return withNotifier(ctx, e.send)
}

// started reports whether the response has become an event stream, so
// that the reply must go on it too.
func (e *eventStream) started() bool {
	if e == nil {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.begun
}

// send writes message as an event, flushed; nothing when message is nil
// or the handler has returned.
func (e *eventStream) send(message []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed || message == nil {
		return
	}
	if !e.begun {
		h := e.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		// Proxies such as nginx hold a response back until it ends
		// unless told not to: the events would come all at once.
		h.Set("X-Accel-Buffering", "no")
		e.w.WriteHeader(http.StatusOK)
		e.begun = true
	}
	_, _ = e.w.Write(append(append([]byte("event: message\ndata: "), message...), "\n\n"...))
	_ = http.NewResponseController(e.w).Flush()
}

// end stops the stream's use of the response: the handler returns.
func (e *eventStream) end() {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
}
