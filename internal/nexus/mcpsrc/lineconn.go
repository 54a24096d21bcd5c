package mcpsrc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lineConn is the SDK's connection to a stdio server: one JSON-RPC message
// a line each way, over the server's stdin and stdout. It takes the place
// of the SDK's IOTransport for three reasons:
//
//   - Speed. IOTransport decodes each incoming line twice (once to find
//     where it ends, with a decoder buffer allocated per message, once to
//     read it) and hands it from a reading goroutine of its own to the
//     SDK's. lineConn reads a line in place on the SDK's reading goroutine
//     and decodes it once: a sequential call of server-everything's echo
//     through the SDK's client took 236 µs with IOTransport and 217 µs
//     with lineConn (a plain Go client writing a line and reading the
//     answer: 75 µs; most of the rest is the SDK's own decoding and the
//     garbage collection its allocations bring).
//   - Lines that are no messages. IOTransport ends the connection at the
//     first line of stdout that is not JSON; servers that print a banner
//     or a log line there are common, and the TypeScript and Python SDKs'
//     clients skip such lines. lineConn writes them to stderr with the
//     server's other output.
//   - Shutdown. IOTransport closes stdout before stdin, so a server that
//     writes as its stdin ends (server-everything does) died of EPIPE with
//     a stack trace on nexus's stderr. lineConn's Close closes stdin and
//     only stops reading stdout, which process.stop closes once the server
//     has exited.
type lineConn struct {
	in     *bufio.Reader // the server's stdout, buffered
	stdout *os.File
	out    *os.File // the server's stdin
	noise  *prefixWriter

	batch []json.RawMessage // messages of a batch not read yet; Read's own
	// broken is set once Read has failed: the connection is over, though
	// the SDK may not have closed it yet.
	broken atomic.Bool
	// bad is the error of a message the server sent that nexus could not
	// read (not an end of the stream): the connection's fault.
	bad atomic.Pointer[error]

	wmu       sync.Mutex // held while writing a message
	closeOnce sync.Once
}

// lineTransport hands the SDK's client one lineConn.
type lineTransport struct{ conn *lineConn }

func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) { return t.conn, nil }

// errTooLong is a message over maxMessage.
var errTooLong = fmt.Errorf("a message from the server is over %d MiB, the most nexus reads", maxMessage>>20)

// Read returns the next message from the server. It is called by one
// goroutine of the SDK's at a time; Close unblocks it.
func (c *lineConn) Read(context.Context) (jsonrpc.Message, error) {
	msg, err := c.read()
	if err != nil {
		if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
			c.bad.Store(&err)
		}
		c.broken.Store(true)
	}
	return msg, err
}

// fault is what the server sent that ended the connection, or nil.
func (c *lineConn) fault() error {
	if p := c.bad.Load(); p != nil {
		return *p
	}
	return nil
}

func (c *lineConn) read() (jsonrpc.Message, error) {
	for {
		if len(c.batch) > 0 {
			raw := c.batch[0]
			c.batch = c.batch[1:]
			return decode(raw)
		}
		line, err := c.line()
		if err != nil {
			return nil, err
		}
		line = bytes.TrimSpace(line)
		switch {
		case len(line) == 0:
			continue
		case line[0] == '[':
			// A batch (before 2025-06-18): its messages one by one.
			if err := json.Unmarshal(line, &c.batch); err != nil {
				return nil, fmt.Errorf("a batch from the server is not a JSON list: %w", err)
			}
			continue
		}
		// line may be the reader's buffer, which the next read reuses
		// while the SDK still holds what it decoded.
		return decode(bytes.Clone(line))
	}
}

func decode(data []byte) (jsonrpc.Message, error) {
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return nil, fmt.Errorf("the server sent a line that is no JSON-RPC message: %w", err)
	}
	return msg, nil
}

// line reads the next line that may be a message (see mayBeMessage),
// writing the others to noise. The result is the reader's own, good until
// the next read, unless the line was longer than its buffer.
func (c *lineConn) line() ([]byte, error) {
	var (
		long  []byte // a message longer than the reader's buffer
		junk  []byte // the start of a line that is no message
		first = true
		pass  bool
	)
	for {
		chunk, err := c.in.ReadSlice('\n')
		if len(chunk) > 0 {
			if first {
				pass, first = mayBeMessage(chunk), false
			}
			switch {
			case !pass:
				if room := maxNoiseLine - len(junk); room > 0 {
					junk = append(junk, chunk[:min(room, len(chunk))]...)
				}
			case long != nil || err == bufio.ErrBufferFull:
				if len(long)+len(chunk) > maxMessage {
					return nil, errTooLong
				}
				long = append(long, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if !pass && len(junk) > 0 {
			c.noise.writeLine("(on stdout, not a message) " + strings.TrimRight(string(junk), "\r\n"))
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				err = io.EOF // Close stopped the reading
			}
			if err == io.EOF && pass && (long != nil || len(chunk) > 0) {
				// The last message, without its newline.
				if long != nil {
					return long, nil
				}
				return chunk, nil
			}
			return nil, err
		}
		if !pass {
			junk, first = junk[:0], true
			continue
		}
		if long != nil {
			return long, nil
		}
		return chunk, nil
	}
}

// Write sends msg as one line. A request whose context is done is not
// sent, as the SDK's own transports do.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.out.Write(data)
	return err
}

// Close closes the server's stdin, the MCP spec's way to ask it to stop,
// and ends a Read waiting for its stdout, which stays open until it has
// exited (process.stop).
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		c.out.Close()
		if c.stdout.SetReadDeadline(time.Now()) != nil {
			c.stdout.Close() // a pipe without deadlines here
		}
	})
	return nil
}

func (c *lineConn) SessionID() string { return "" }
