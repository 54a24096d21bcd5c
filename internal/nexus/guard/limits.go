package guard

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Slow clients and many connections: each open connection holds a file
// descriptor and a goroutine, so a client must send its body at a
// reasonable pace, and the connections open at once are capped.
const (
	// DefaultBodyGrace is how long a body may take beyond what
	// DefaultMinBodyRate allows: a small body comes within it, over a
	// slow network too.
	DefaultBodyGrace = 10 * time.Second
	// DefaultMinBodyRate is the slowest a body may come, in bytes a
	// second after DefaultBodyGrace: 256 KiB/s (2 Mbit/s) brings the
	// largest default body (64 MiB) in about four minutes, while a client
	// sending a byte now and then is cut off after the grace.
	DefaultMinBodyRate = 256 << 10
	// DefaultMaxConns caps the connections open at once: far more than
	// the clients of one machine's tools keep open, far fewer than the
	// file descriptors a process may have.
	DefaultMaxConns = 1000
)

// BodyTimeout is the longest a body within the limit may take to come at
// the policy's slowest pace: what the HTTP server's ReadTimeout should
// allow beyond the headers.
func (p *Policy) BodyTimeout() time.Duration {
	return p.bodyGrace + time.Duration(p.maxBody/p.bodyRate)*time.Second
}

// pace returns body reading at the policy's pace: each read has a deadline
// (on the connection, through w) that grows with what has come, so that a
// body dripping in ends with a timeout (BodyError answers 408) instead of
// holding the connection.
func (p *Policy) pace(w http.ResponseWriter, body io.ReadCloser) io.ReadCloser {
	return &pacedBody{ReadCloser: body, rc: http.NewResponseController(w), start: time.Now(), p: p}
}

type pacedBody struct {
	io.ReadCloser
	rc    *http.ResponseController
	start time.Time
	p     *Policy
	n     int64 // bytes read so far
}

func (b *pacedBody) Read(buf []byte) (int, error) {
	allowed := b.p.bodyGrace + time.Duration(float64(b.n)/float64(b.p.bodyRate)*float64(time.Second))
	// A writer without deadlines (a test's recorder) is not paced.
	_ = b.rc.SetReadDeadline(b.start.Add(allowed))
	n, err := b.ReadCloser.Read(buf)
	b.n += int64(n)
	return n, err
}

// LimitListener returns ln accepting at most max connections open at
// once (DefaultMaxConns when max is zero or less). A connection beyond is
// answered 503 in JSON and closed, so that its client hears why rather
// than waiting unanswered in the kernel's queue.
func LimitListener(ln net.Listener, max int) net.Listener {
	if max <= 0 {
		max = DefaultMaxConns
	}
	return &limitListener{Listener: ln, open: make(chan struct{}, max), refusing: make(chan struct{}, maxRefusing)}
}

// maxRefusing bounds the connections being answered 503 at once; beyond,
// they are closed unanswered. refuseTime bounds how long each may take.
const (
	maxRefusing = 32
	refuseTime  = 2 * time.Second
)

type limitListener struct {
	net.Listener
	open     chan struct{} // a token per open connection
	refusing chan struct{} // a token per connection being refused
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.open <- struct{}{}:
			return &limitConn{Conn: c, release: func() { <-l.open }}, nil
		default:
			l.refuse(c)
		}
	}
}

// refuse answers c 503 and closes it, on a goroutine of its own.
func (l *limitListener) refuse(c net.Conn) {
	select {
	case l.refusing <- struct{}{}:
	default:
		c.Close()
		return
	}
	go func() {
		defer func() { <-l.refusing }()
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(refuseTime))
		// The request is read first: a connection closed with what the
		// client sent unread is reset, and the client sees that, not the
		// answer.
		br := bufio.NewReader(io.LimitReader(c, 1<<20))
		if req, err := http.ReadRequest(br); err == nil {
			_, _ = io.Copy(io.Discard, req.Body)
		}
		body, _ := json.Marshal(map[string]string{"error": fmt.Sprintf("too many connections (the limit is %d); try again later", cap(l.open))})
		fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nX-Content-Type-Options: nosniff\r\n"+
			"Retry-After: 1\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s\n", len(body)+1, body)
	}()
}

// limitConn gives its place back when closed, once.
type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
