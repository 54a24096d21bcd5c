// Package logs is a server's operational log: what nexus mcp and nexus
// serve say on stderr as they run (where they listen, commands left out
// of the tools, pools that fail to start, shutdown), one line per tool
// call, and the pools' own output, all as log/slog records, in text
// (slog.TextHandler) or JSON (slog.JSONHandler), from a level up.
//
// What never reaches it: arguments and results of calls, the token,
// credentials' secrets, request headers. Records are made here and in
// the few places that log; none of them is given any of these.
package logs

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/nexus-run/nexus/internal/nexus/observe"
)

// Formats of the log.
const (
	Text = "text" // key=value pairs, slog.TextHandler (the default)
	JSON = "json" // one JSON object a line, slog.JSONHandler
)

// Environment variables that set the log when its flags are not given.
const (
	FormatEnv = "NEXUS_LOG_FORMAT"
	LevelEnv  = "NEXUS_LOG_LEVEL"
	CallsEnv  = "NEXUS_LOG_CALLS"
)

// Levels are the names --log-level takes, lowest first.
var Levels = []string{"debug", "info", "warn", "error"}

// ParseLevel reads a level's name (Levels, in any case).
func ParseLevel(name string) (slog.Level, error) {
	switch strings.ToLower(name) {
	case "debug":
		return slog.LevelDebug, nil
	case "info", "":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("unknown log level %q: one of %s", name, strings.Join(Levels, ", "))
}

// New returns a logger writing records of level and above to w in
// format (Text or JSON; "" is Text). Handlers lock around each write, so
// records from several goroutines never interleave.
func New(w io.Writer, format string, level slog.Level) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: level}
	switch strings.ToLower(format) {
	case Text, "":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case JSON:
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("unknown log format %q: text or json", format)
}

// Discard is a logger that logs nothing.
func Discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// CallMessage is the message of a call's line.
const CallMessage = "call"

// CallLevel is the level of the call lines: info, so that --log-level
// warn (or --log-calls=false) leaves them out while keeping the rest.
// Failed calls are at the same level: the line is a record of traffic,
// and the client got the failure; a pool's death or failed start has a
// line of its own at warn.
const CallLevel = slog.LevelInfo

// WatchCalls writes a line to log for every call that ends on hub: the
// program, tool, transport, protocol revision (MCP only), duration in
// milliseconds, outcome and, for a failure, its message. Never the
// arguments (observe.Call does not carry them).
func WatchCalls(hub *observe.Hub, log *slog.Logger) {
	hub.Watch(func(c observe.Call) { LogCall(log, c) })
}

// LogCall writes c's line to log.
func LogCall(log *slog.Logger, c observe.Call) {
	attrs := make([]slog.Attr, 0, 7)
	attrs = append(attrs,
		slog.String("program", c.Program),
		slog.String("tool", c.Tool),
		slog.String("transport", c.Transport))
	if c.Protocol != "" {
		attrs = append(attrs, slog.String("protocol", c.Protocol))
	}
	attrs = append(attrs,
		// Milliseconds as a number, the same in both formats (a
		// slog.Duration is text in one and nanoseconds in the other).
		slog.Float64("duration_ms", float64(c.Duration.Round(time.Microsecond))/float64(time.Millisecond)),
		slog.String("outcome", string(c.Outcome)))
	if c.Error != "" {
		attrs = append(attrs, slog.String("error", c.Error))
	}
	log.LogAttrs(context.Background(), CallLevel, CallMessage, attrs...)
}

// Lines returns a writer that logs each line written to it as a record
// of msg at info, the line (without its newline) in the attribute
// "line": for output of processes nexus runs (the stdio MCP servers a
// program calls) that would otherwise be lines of another format among
// the log's. A line split across writes is logged once complete.
func Lines(log *slog.Logger, msg string) io.Writer {
	return &lines{log: log, msg: msg}
}

type lines struct {
	log *slog.Logger
	msg string

	mu      sync.Mutex
	partial []byte
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for rest := p; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			l.partial = append(l.partial, rest...)
			break
		}
		line := rest[:i]
		if len(l.partial) > 0 {
			line = append(l.partial, line...)
			l.partial = l.partial[:0]
		}
		rest = rest[i+1:]
		l.log.LogAttrs(context.Background(), slog.LevelInfo, l.msg, slog.String("line", string(bytes.TrimSuffix(line, []byte("\r")))))
	}
	return len(p), nil
}
