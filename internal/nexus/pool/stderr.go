package pool

import (
	"bytes"
	"io"
	"sync"
)

// startOutputLimit bounds what a starting pool may print before it is held
// back no more: enough for any traceback, so a failed start can report it.
const startOutputLimit = 64 << 10

// lineWriter serializes whole lines from several pools onto one writer, so
// lines of pools that print at the same time never interleave.
type lineWriter struct {
	mu  sync.Mutex
	out io.Writer
}

func (w *lineWriter) writeLine(line []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _ = w.out.Write(line)
}

// stderrSink receives a pool's stderr from go-plugin, which writes each
// line and then its newline. It passes complete lines on unmodified. Until
// the pool has started, it holds them back: if the start fails they become
// part of the error instead of being printed as well.
type stderrSink struct {
	out *lineWriter

	mu      sync.Mutex
	line    []byte       // the line being assembled
	held    bytes.Buffer // lines held back while starting
	holding bool
}

func newStderrSink(out *lineWriter) *stderrSink {
	return &stderrSink{out: out, holding: true}
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
		s.out.writeLine(s.line)
	}
	s.line = s.line[:0]
}

// release passes on what was held back. s.mu is held.
func (s *stderrSink) release() {
	if s.held.Len() > 0 {
		s.out.writeLine(s.held.Bytes())
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
