package mcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/nexus-run/nexus/internal/osproc"
)

// ServeStdio serves srv to one client over a pair of streams, as MCP's
// stdio transport: one JSON-RPC message per line read from in, one reply
// per line written to out. Requests are handled concurrently (see
// Session.Handle); each reply is written whole, with one Write.
//
// ServeStdio returns nil when in ends, once the calls in flight have
// replied, and ctx's error when ctx is done, once the calls in flight
// (which ctx cancels) have ended. A failure to write to out ends it too,
// with that error. The goroutine reading in ends when in does.
func ServeStdio(ctx context.Context, srv *Server, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &replyWriter{out: out, fail: cancel}
	ss := srv.NewSession()

	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			// No limit on a line: a call may carry a large array.
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				select {
				case lines <- line:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				readErr <- err
				return
			}
		}
	}()

	for {
		select {
		case line := <-lines:
			ss.Handle(ctx, line, w.write)
		case err := <-readErr:
			ss.Wait()
			if err != nil {
				return fmt.Errorf("read stdin: %w", err)
			}
			return w.err()
		case <-ctx.Done():
			ss.Cancel()
			ss.Wait()
			if err := w.err(); err != nil {
				return err
			}
			return ctx.Err()
		}
	}
}

// replyWriter writes replies, one line each, from many goroutines.
type replyWriter struct {
	mu     sync.Mutex
	out    io.Writer
	failed error
	fail   func() // called once writing has failed
}

func (w *replyWriter) write(reply []byte) {
	if reply == nil {
		return // a cancelled call
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed != nil {
		return
	}
	if _, err := w.out.Write(append(reply, '\n')); err != nil {
		w.failed = fmt.Errorf("write stdout: %w", err)
		w.fail()
	}
}

func (w *replyWriter) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failed
}

// ReserveStdout moves the process's standard output aside for protocol
// messages. It returns a file open on the real standard output and points
// descriptor 1 at standard error, so that anything else written to
// standard output, by this process or by the children that inherit it
// (the pools), lands on standard error instead of corrupting the protocol
// stream. Call it before any pool starts. (On systems without Unix
// descriptors only this process's os.Stdout is redirected; see package
// osproc.)
func ReserveStdout() (*os.File, error) {
	out, err := osproc.MoveStdout()
	if err != nil {
		return nil, fmt.Errorf("reserve stdout for MCP: %w", err)
	}
	return out, nil
}
