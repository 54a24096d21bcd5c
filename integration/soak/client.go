package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/nexus-run/nexus/integration/rpcmsg"
)

// errCorrupt marks what is not a JSON-RPC message where one must be, or a
// reply to no request: the soak's worst finding, with wrong answers.
var errCorrupt = errors.New("protocol corruption")

// errNoReply is a request answered 202 with no body, which only a call
// the client cancelled may be.
var errNoReply = errors.New("answered 202 Accepted with no body")

// parse strictly parses one message from the server.
func parse(data []byte) (*rpcmsg.Reply, error) {
	r, err := rpcmsg.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errCorrupt, err)
	}
	return r, nil
}

// outcome is what a tools/call came to: a result's text, or a failure's
// message (an isError result or a JSON-RPC error).
type outcome struct {
	failed bool
	text   string
}

// toolOutcome reads a response to tools/call.
func toolOutcome(r *rpcmsg.Reply) (outcome, error) {
	if r.Error != nil {
		return outcome{failed: true, text: fmt.Sprintf("JSON-RPC error %d: %s", r.Error.Code, r.Error.Message)}, nil
	}
	var res rpcmsg.ToolResult
	if err := json.Unmarshal(r.Result, &res); err != nil || len(res.Content) != 1 || res.Content[0].Type != "text" {
		return outcome{}, fmt.Errorf("%w: a tools/call result that is not one text block: %.200s", errCorrupt, r.Result)
	}
	return outcome{failed: res.IsError, text: res.Content[0].Text}, nil
}

func callParams(tool string, arg any) map[string]any {
	return map[string]any{"name": tool, "arguments": map[string]any{"_1": arg}}
}

var initializeParams = map[string]any{
	"protocolVersion": rpcmsg.Protocol,
	"capabilities":    map[string]any{},
	"clientInfo":      map[string]any{"name": "nexus-soak", "version": "0"},
}

// stdioClient is many callers at once on one `nexus mcp` over stdio:
// requests carry ids of their own, and one reader hands each reply to its
// caller. Every stdout line is strictly parsed; a line that is no
// JSON-RPC message, or a reply to no request, goes to corrupt.
type stdioClient struct {
	stdin   io.Writer
	writeMu sync.Mutex
	next    atomic.Int64

	mu        sync.Mutex
	waiting   map[string]chan *rpcmsg.Reply
	cancelled map[string]bool // ids given up on: a late reply is no corruption
	late      int             // replies to cancelled requests
	done      chan struct{}   // closed when stdout ends
	corrupt   func(error)
}

func newStdioClient(stdin io.Writer, stdout io.Reader, corrupt func(error)) *stdioClient {
	c := &stdioClient{stdin: stdin, waiting: map[string]chan *rpcmsg.Reply{}, cancelled: map[string]bool{}, done: make(chan struct{}), corrupt: corrupt}
	go c.read(stdout)
	return c
}

func (c *stdioClient) read(stdout io.Reader) {
	defer close(c.done)
	br := bufio.NewReaderSize(stdout, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			c.deliver(line)
		}
		if err != nil {
			return
		}
	}
}

func (c *stdioClient) deliver(line []byte) {
	r, err := parse(line)
	if err != nil {
		c.corrupt(err)
		return
	}
	if r.Method != "" {
		return // a notification: the server may send those
	}
	id := string(r.ID)
	c.mu.Lock()
	ch, ok := c.waiting[id]
	delete(c.waiting, id)
	late := c.cancelled[id]
	delete(c.cancelled, id)
	if late {
		c.late++
	}
	c.mu.Unlock()
	switch {
	case ok:
		ch <- r
	case !late:
		c.corrupt(fmt.Errorf("%w: a reply to no request in flight: %.200s", errCorrupt, line))
	}
}

// abandon sends a request whose reply nobody waits for: a client about
// to go away. A reply that comes anyway is counted as late.
func (c *stdioClient) abandon(method string, params any) error {
	n := c.next.Add(1)
	c.mu.Lock()
	c.cancelled[strconv.FormatInt(n, 10)] = true
	c.mu.Unlock()
	return c.send(rpcmsg.Encode(n, method, params))
}

func (c *stdioClient) send(msg []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.stdin.Write(append(msg, '\n'))
	return err
}

// request sends method and waits for its reply. When ctx ends first, the
// request is cancelled with notifications/cancelled and ctx's error is
// returned.
func (c *stdioClient) request(ctx context.Context, method string, params any) (*rpcmsg.Reply, error) {
	n := c.next.Add(1)
	id := strconv.FormatInt(n, 10)
	ch := make(chan *rpcmsg.Reply, 1)
	c.mu.Lock()
	c.waiting[id] = ch
	c.mu.Unlock()
	if err := c.send(rpcmsg.Encode(n, method, params)); err != nil {
		return nil, fmt.Errorf("write to nexus: %w", err)
	}
	select {
	case r := <-ch:
		return r, nil
	case <-c.done:
		return nil, errors.New("nexus closed its stdout")
	case <-ctx.Done():
		c.mu.Lock()
		_, stillWaiting := c.waiting[id]
		delete(c.waiting, id)
		if stillWaiting {
			c.cancelled[id] = true
		}
		c.mu.Unlock()
		if stillWaiting {
			c.send(rpcmsg.Encode(nil, "notifications/cancelled", map[string]any{"requestId": n, "reason": "soak: cancelled"}))
		}
		return nil, ctx.Err()
	}
}

func (c *stdioClient) handshake(ctx context.Context) error {
	r, err := c.request(ctx, "initialize", initializeParams)
	if err != nil {
		return err
	}
	if r.Error != nil {
		return fmt.Errorf("initialize: %s", r.Error.Message)
	}
	return c.send(rpcmsg.Encode(nil, "notifications/initialized", nil))
}

func (c *stdioClient) call(ctx context.Context, tool string, arg any) (outcome, error) {
	r, err := c.request(ctx, "tools/call", callParams(tool, arg))
	if err != nil {
		return outcome{}, err
	}
	return toolOutcome(r)
}

func (c *stdioClient) lateReplies() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.late
}

// httpSession is one MCP session over Streamable HTTP; its calls go one
// at a time, and each reply body must be one JSON-RPC message.
type httpSession struct {
	hc       *http.Client
	endpoint string
	id       string
	next     atomic.Int64
}

func openSession(ctx context.Context, hc *http.Client, endpoint string) (*httpSession, error) {
	s := &httpSession{hc: hc, endpoint: endpoint}
	r, hdr, err := s.post(ctx, "initialize", initializeParams)
	if err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, fmt.Errorf("initialize: %s", r.Error.Message)
	}
	if s.id = hdr.Get("Mcp-Session-Id"); s.id == "" {
		return nil, errors.New("initialize answered no Mcp-Session-Id")
	}
	resp, err := s.do(ctx, rpcmsg.Encode(nil, "notifications/initialized", nil))
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return nil, fmt.Errorf("notifications/initialized answered %s, want 202", resp.Status)
	}
	return s, nil
}

func (s *httpSession) do(ctx context.Context, body []byte) (*http.Response, error) {
	req, err := rpcmsg.NewPost(ctx, s.endpoint, s.id, body)
	if err != nil {
		return nil, err
	}
	return s.hc.Do(req)
}

// post sends a request and reads its reply, which must come as JSON.
func (s *httpSession) post(ctx context.Context, method string, params any) (*rpcmsg.Reply, http.Header, error) {
	return s.postID(ctx, s.next.Add(1), method, params)
}

func (s *httpSession) postID(ctx context.Context, id int64, method string, params any) (*rpcmsg.Reply, http.Header, error) {
	resp, err := s.do(ctx, rpcmsg.Encode(id, method, params))
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: reading the reply: %w", method, err)
	}
	if resp.StatusCode == http.StatusAccepted && len(body) == 0 {
		// How a call the client cancelled is answered (docs/mcp.md).
		return nil, nil, errNoReply
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		return nil, nil, fmt.Errorf("%w: %s answered %s with Content-Type %q: %.200s", errCorrupt, method, resp.Status, ct, body)
	}
	r, err := parse(body)
	if err != nil {
		return nil, nil, err
	}
	if string(r.ID) != strconv.FormatInt(id, 10) && resp.StatusCode == http.StatusOK {
		return nil, nil, fmt.Errorf("%w: %s: the reply's id is %s, want %d", errCorrupt, method, r.ID, id)
	}
	if resp.StatusCode != http.StatusOK && r.Error == nil {
		return nil, nil, fmt.Errorf("%w: %s answered %s with no JSON-RPC error: %.200s", errCorrupt, method, resp.Status, body)
	}
	return r, resp.Header, nil
}

func (s *httpSession) call(ctx context.Context, tool string, arg any) (outcome, error) {
	r, _, err := s.post(ctx, "tools/call", callParams(tool, arg))
	if err != nil {
		return outcome{}, err
	}
	return toolOutcome(r)
}

// notify posts a notification, which is answered 202 with no body.
func (s *httpSession) notify(ctx context.Context, method string, params any) error {
	resp, err := s.do(ctx, rpcmsg.Encode(nil, method, params))
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("%s answered %s, want 202", method, resp.Status)
	}
	return nil
}

// end deletes the session.
func (s *httpSession) end(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, s.endpoint, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Mcp-Session-Id", s.id)
	req.Header.Set("Mcp-Protocol-Version", rpcmsg.Protocol)
	resp, err := s.hc.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("DELETE answered %s", resp.Status)
	}
	return nil
}
