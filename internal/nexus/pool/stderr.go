package pool

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"sync"
)

// startOutputLimit bounds what a starting pool may print before it is held
// back no more: enough for any traceback, so a failed start can report it.
const startOutputLimit = 64 << 10

// PoolOutput is the message of the log records that carry a line a pool
// printed (Options.Log), the line itself in the attribute "line".
const PoolOutput = "pool output"

// lineWriter serializes whole lines from several pools onto one writer, so
// lines of pools that print at the same time never interleave. With a
// logger (Options.Log) the lines go to it as records instead, which its
// handler serializes.
type lineWriter struct {
	mu  sync.Mutex
	out io.Writer
	log *slog.Logger // nil: out
}

func (w *lineWriter) writeLine(line []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _ = w.out.Write(line)
}

// warn reports something the supervisor noticed: a record at warn on the
// log, else a line "nexus: msg" as before there was one.
func (w *lineWriter) warn(msg string, attrs ...slog.Attr) {
	if w.log != nil {
		w.log.LogAttrs(context.Background(), slog.LevelWarn, msg, attrs...)
		return
	}
	w.writeLine([]byte("nexus: " + msg + "\n"))
}

// stderrSink receives a pool's stderr from go-plugin, which writes each
// line and then its newline. It passes complete lines on unmodified. Until
// the pool has started, it holds them back: if the start fails they become
// part of the error instead of being printed as well.
//
// To a logger, each line is a record (PoolOutput) with the pool's program
// and language and, while the pool has one call in flight, that call's
// tool and function: with several, a line cannot be told to be one's.
type stderrSink struct {
	out *lineWriter
	log *slog.Logger // out.log with the pool's attributes; nil: none

	mu      sync.Mutex
	line    []byte       // the line being assembled
	held    bytes.Buffer // lines held back while starting
	holding bool
	calls   map[*pending]callTag // the calls in flight in the pool
}

// callTag is what a pool's output says of the call that printed it.
type callTag struct{ tool, function string }

func newStderrSink(out *lineWriter, program, lang string) *stderrSink {
	s := &stderrSink{out: out, holding: true}
	if out.log != nil {
		s.log = out.log.With(slog.String("program", program), slog.String("language", Name(lang)))
		s.calls = map[*pending]callTag{}
	}
	return s
}

// begin notes call c of function in flight, for tool ("" if unknown),
// until end(c).
func (s *stderrSink) begin(c *pending, function, tool string) {
	if s.log == nil {
		return
	}
	s.mu.Lock()
	s.calls[c] = callTag{tool: tool, function: function}
	s.mu.Unlock()
}

// end notes that call c is no longer in flight: the pool answered it or
// was stopped.
func (s *stderrSink) end(c *pending) {
	if s.log == nil {
		return
	}
	s.mu.Lock()
	delete(s.calls, c)
	s.mu.Unlock()
}

func (s *stderrSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for rest := p; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			s.line = append(s.line, rest...)
			break
		}
		s.line = append(s.line, rest[:i+1]...)
		rest = rest[i+1:]
		s.emit()
	}
	return len(p), nil
}

func (s *stderrSink) emit() {
	if s.holding && s.held.Len()+len(s.line) <= startOutputLimit {
		s.held.Write(s.line)
	} else {
		s.release()
		s.pass(s.line)
	}
	s.line = s.line[:0]
}

// pass passes on lines, one or more whole lines. s.mu is held.
func (s *stderrSink) pass(lines []byte) {
	if s.log == nil {
		s.out.writeLine(lines)
		return
	}
	attrs := []slog.Attr{{}}
	if len(s.calls) == 1 {
		for _, t := range s.calls {
			if t.tool != "" {
				attrs = append(attrs, slog.String("tool", t.tool))
			}
			attrs = append(attrs, slog.String("function", t.function))
		}
	}
	for len(lines) > 0 {
		line := lines
		if i := bytes.IndexByte(lines, '\n'); i >= 0 {
			line, lines = lines[:i], lines[i+1:]
		} else {
			lines = nil
		}
		attrs[0] = slog.String("line", string(bytes.TrimSuffix(line, []byte("\r"))))
		s.log.LogAttrs(context.Background(), slog.LevelInfo, PoolOutput, attrs...)
	}
}

// release passes on what was held back. s.mu is held.
func (s *stderrSink) release() {
	if s.held.Len() > 0 {
		s.pass(s.held.Bytes())
		s.held.Reset()
	}
	s.holding = false
}

// started passes on what the pool printed while starting and everything
// after it.
func (s *stderrSink) started() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.release()
}

// heldText returns what the pool printed while starting, including an
// unfinished last line, and forgets it.
func (s *stderrSink) heldText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	text := s.held.String() + string(s.line)
	s.held.Reset()
	s.line = s.line[:0]
	return text
}
