package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os/exec"
	"regexp"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/nexus-run/nexus/internal/osproc"

	"github.com/nexus-run/nexus/integration/rpcmsg"
)

// httpServer is a server started as a child process that serves MCP over
// Streamable HTTP on a loopback port it chose and printed.
type httpServer struct {
	cmd      *exec.Cmd
	group    *osproc.Group
	endpoint string
	stderr   *tail
	exited   chan struct{}
}

// serving is the line every server prints on stderr once it listens:
// nexus's log line (msg=serving serves="MCP at /mcp" url=http://127.0.0.1:PORT)
// or the peers' ("peer: serving MCP at /mcp on http://127.0.0.1:PORT").
var serving = regexp.MustCompile(`serving"? ?(?:serves=")?MCP at (/[^\s"]*)"? (?:on |url=)(http://\S+)`)

// startHTTP starts argv in dir (in a process group of its own) and waits
// up to a minute for the address it prints.
func startHTTP(ctx context.Context, argv []string, dir string) (*httpServer, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	s := &httpServer{cmd: cmd, stderr: &tail{}, exited: make(chan struct{})}
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if s.group, err = osproc.Start(cmd); err != nil {
		return nil, err
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			fmt.Fprintln(s.stderr, sc.Text())
			if m := serving.FindStringSubmatch(sc.Text()); m != nil && !sent {
				found <- m[2] + m[1]
				sent = true
			}
		}
		io.Copy(s.stderr, pipe)
		s.group.Wait() // kills what is left of the group too
		close(s.exited)
	}()
	select {
	case s.endpoint = <-found:
		return s, nil
	case <-s.exited:
		return nil, fmt.Errorf("exited before serving:\n%s", s.stderr.String())
	case <-time.After(time.Minute):
	case <-ctx.Done():
	}
	s.kill()
	return nil, fmt.Errorf("printed no address within a minute:\n%s", s.stderr.String())
}

func (s *httpServer) kill() {
	s.group.Kill()
}

// stop sends SIGTERM and waits for the server to exit, then kills what is
// left of its process group.
func (s *httpServer) stop(grace time.Duration) error {
	s.cmd.Process.Signal(syscall.SIGTERM)
	defer s.kill()
	select {
	case <-s.exited:
		return nil
	case <-time.After(grace):
		s.kill()
		<-s.exited
		return fmt.Errorf("still running %s after SIGTERM; killed", grace)
	}
}

// httpClient is our lean Streamable HTTP client: keep-alive connections, one
// POST per message, JSON or SSE replies.
type httpClient struct {
	hc       *http.Client
	endpoint string
}

func newHTTPClient(endpoint string, conns int) *httpClient {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        2 * conns,
		MaxIdleConnsPerHost: 2 * conns,
		IdleConnTimeout:     30 * time.Second,
	}
	return &httpClient{hc: &http.Client{Transport: tr, Timeout: 2 * time.Minute}, endpoint: endpoint}
}

func (c *httpClient) close() { c.hc.CloseIdleConnections() }

// httpSession is one MCP session: the id the server gave at initialize.
type httpSession struct {
	c    *httpClient
	id   string
	next int64
}

// open initializes a session and sends notifications/initialized.
func (c *httpClient) open(ctx context.Context) (*httpSession, error) {
	s := &httpSession{c: c}
	res, hdr, err := s.post(ctx, "initialize", initializeParams)
	if err != nil {
		return nil, err
	}
	if err := checkInitialize(res); err != nil {
		return nil, err
	}
	if s.id = hdr.Get("Mcp-Session-Id"); s.id == "" {
		return nil, fmt.Errorf("initialize answered no Mcp-Session-Id")
	}
	resp, err := s.do(ctx, http.MethodPost, request(-1, "notifications/initialized", nil))
	if err != nil {
		return nil, err
	}
	drain(resp)
	if resp.StatusCode != http.StatusAccepted {
		return nil, fmt.Errorf("notifications/initialized answered %s, want 202", resp.Status)
	}
	return s, nil
}

// call calls a tool and returns the text of its answer.
func (s *httpSession) call(ctx context.Context, tool string, args []byte) (string, error) {
	res, _, err := s.post(ctx, "tools/call", callParams(tool, args))
	if err != nil {
		return "", err
	}
	return toolText(res)
}

// end deletes the session.
func (s *httpSession) end(ctx context.Context) error {
	resp, err := s.do(ctx, http.MethodDelete, nil)
	if err != nil {
		return err
	}
	drain(resp)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("DELETE answered %s", resp.Status)
	}
	return nil
}

func (s *httpSession) do(ctx context.Context, method string, body []byte) (*http.Response, error) {
	req, err := rpcmsg.NewPost(ctx, s.c.endpoint, s.id, body)
	if err != nil {
		return nil, err
	}
	req.Method = method
	return s.c.hc.Do(req)
}

// post sends a request and returns its reply's result, from a JSON body or
// from the SSE stream the server may answer with instead.
func (s *httpSession) post(ctx context.Context, method string, params []byte) ([]byte, http.Header, error) {
	s.next++
	id := s.next
	resp, err := s.do(ctx, http.MethodPost, request(id, method, params))
	if err != nil {
		return nil, nil, err
	}
	return reply(resp, method, id)
}

// reply reads the reply to request id, of method, from resp.
func reply(resp *http.Response, method string, id int64) ([]byte, http.Header, error) {
	defer drain(resp)
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: reading the reply: %w", method, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("%s answered %s: %.300s", method, resp.Status, body)
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var msgs [][]byte
	switch ct {
	case "application/json":
		msgs = [][]byte{body}
	case "text/event-stream":
		msgs = sseData(body)
	default:
		return nil, nil, fmt.Errorf("%s answered Content-Type %q", method, ct)
	}
	for _, data := range msgs {
		m, ok, err := parseReply(data, id)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", method, err)
		}
		if ok {
			res, err := m.result()
			return res, resp.Header, err
		}
	}
	return nil, nil, fmt.Errorf("%s: no reply with id %d in %.300s", method, id, body)
}

// sseData is the data of each event of an SSE stream.
func sseData(body []byte) [][]byte {
	var out [][]byte
	var data []byte
	for _, line := range bytes.Split(body, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		switch {
		case len(line) == 0:
			if data != nil {
				out = append(out, data)
				data = nil
			}
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, d...)
		}
	}
	if data != nil {
		out = append(out, data)
	}
	return out
}

func drain(resp *http.Response) {
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// load is what one run of sessions at once against one tool did.
type load struct {
	calls   int
	elapsed time.Duration
	lat     []time.Duration
}

// drive opens sessions sessions at once, then has each make calls
// sequential calls of f (call numbers from offset on, distinct across
// sessions), checking every answer, then deletes the sessions. The time
// measured runs from the first call to the last answer. The first error
// ends the run.
func drive(ctx context.Context, endpoint string, f *function, sessions, calls, offset int) (load, error) {
	c := newHTTPClient(endpoint, sessions)
	defer c.close()
	ss := make([]*httpSession, sessions)
	errs := make([]error, sessions)
	var wg sync.WaitGroup
	for i := range ss {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ss[i], errs[i] = c.open(ctx)
		}(i)
	}
	wg.Wait()
	if err := firstError(errs); err != nil {
		return load{}, fmt.Errorf("opening a session: %w", err)
	}
	l, err := concurrent(f, sessions, calls, offset, func(i, _ int, args []byte) (string, error) {
		return ss[i].call(ctx, f.name, args)
	})
	if err != nil {
		return load{}, err
	}
	for i, s := range ss {
		wg.Add(1)
		go func(i int, s *httpSession) {
			defer wg.Done()
			errs[i] = s.end(ctx)
		}(i, s)
	}
	wg.Wait()
	if err := firstError(errs); err != nil {
		return load{}, fmt.Errorf("deleting a session: %w", err)
	}
	return l, nil
}

// concurrent has workers clients at once each make calls sequential calls
// of f (call numbers from offset on, distinct across clients) by call
// (worker i's j-th call, with the arguments of call number n), checking
// every answer. The time measured runs from the first call to the last
// answer. The first error of a client ends its calls; the first error of
// all is returned.
func concurrent(f *function, workers, calls, offset int, call func(i, j int, args []byte) (string, error)) (load, error) {
	lats := make([][]time.Duration, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range workers {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			mine := make([]time.Duration, 0, calls)
			for j := 0; j < calls; j++ {
				n := offset + i*calls + j
				t0 := time.Now()
				text, err := call(i, j, f.args(n))
				mine = append(mine, time.Since(t0))
				if err == nil {
					err = f.want(n, text)
				}
				if err != nil {
					errs[i] = fmt.Errorf("client %d: %w", i, err)
					return
				}
			}
			lats[i] = mine
		}(i)
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := firstError(errs); err != nil {
		return load{}, err
	}
	var all []time.Duration
	for _, l := range lats {
		all = append(all, l...)
	}
	sort.Slice(all, func(a, b int) bool { return all[a] < all[b] })
	return load{calls: len(all), elapsed: elapsed, lat: all}, nil
}

func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
