package mcp

import (
	"context"
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestLineReader(t *testing.T) {
	long := strings.Repeat("z", 200<<10) // longer than the reader's buffer
	idFirst := `{"jsonrpc":"2.0","id":"r-1","method":"tools/call","params":{"a":"` + long + `"}}` + "\n"
	numeric := `{"id": 42, "params":"` + long + `"}`
	idLast := `{"jsonrpc":"2.0","method":"tools/call","params":{"a":"` + long + `"},"id":1}`
	wrongID := `{"id":{"a":1},"x":"` + long + `"}`
	array := `["` + long + `"]`
	for _, tc := range []struct {
		name  string
		in    string
		max   int64
		lines []string // the lines read, "!N id" for a line of N bytes over the bound
	}{
		{"short lines", "a\nbb\n\nccc", 10, []string{"a\n", "bb\n", "\n", "ccc"}},
		{"at the bound", "abcde\nx\n", 5, []string{"abcde\n", "x\n"}},
		{"over the bound", "abcdef\nx\n", 5, []string{"!6 null", "x\n"}},
		{"over the bound at the end", "x\nabcdef", 5, []string{"x\n", "!6 null"}},
		{"long, within the bound", long + "\n", int64(len(long)), []string{long + "\n"}},
		{"long, over the bound", long + "\nnext\n", 1000, []string{"!204800 null", "next\n"}},
		{"id before params", idFirst, 1000, []string{over(idFirst, `"r-1"`)}},
		{"numeric id", numeric, 1000, []string{over(numeric, "42")}},
		{"id after params", idLast, 1000, []string{over(idLast, "null")}},
		{"id of the wrong kind", wrongID, 1000, []string{over(wrongID, "null")}},
		{"not an object", array, 1000, []string{over(array, "null")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lr := newLineReader(strings.NewReader(tc.in), tc.max)
			var got []string
			for {
				l, err := lr.next()
				switch {
				case l.tooLong != nil:
					got = append(got, "!"+itoa(int(l.tooLong.size))+" "+string(l.tooLong.id))
				case len(l.data) > 0:
					got = append(got, string(l.data))
				}
				if err != nil {
					if !errors.Is(err, io.EOF) {
						t.Fatal(err)
					}
					break
				}
			}
			if strings.Join(got, "|") != strings.Join(tc.lines, "|") {
				t.Errorf("got %.200q\nwant %.200q", got, tc.lines)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// over is how TestLineReader shows a line over the bound: its length
// without the newline and the id found.
func over(line, id string) string {
	return "!" + itoa(len(strings.TrimSuffix(line, "\n"))) + " " + id
}

// endless is a line of n bytes of 'x' and a newline, made as it is read.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	if e.n < 0 {
		return 0, io.EOF
	}
	if e.n == 0 {
		p[0] = '\n'
		e.n = -1
		return 1, nil
	}
	k := min(int64(len(p)), e.n)
	for i := range p[:k] {
		p[i] = 'x'
	}
	e.n -= k
	return int(k), nil
}

// TestLineReaderHoldsNoMoreThanTheBound: a line far over the bound is
// read without holding it: what is allocated stays near the bound, once
// (a buffer grown by doubling up to the bound allocates twice the bound,
// and a server, collecting at three times its live heap, then grows to
// several times the bound: 215 MB for the default 64 MiB).
func TestLineReaderHoldsNoMoreThanTheBound(t *testing.T) {
	const line, bound = 64 << 20, 1 << 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	l, err := newLineReader(&endless{n: line}, bound).next()
	runtime.ReadMemStats(&after)
	if err != nil || l.tooLong == nil || l.tooLong.size != line {
		t.Fatalf("got %+v, %v; want a line of %d bytes over the bound", l.tooLong, err, line)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > bound+bound/2 {
		t.Errorf("reading a line of %d MiB over a bound of %d MiB allocated %.1f MiB", line>>20, bound>>20, float64(got)/(1<<20))
	}
}

func TestStdioLineTooLong(t *testing.T) {
	srv, _ := callsServer(t, Options{})
	c := serveStdioWith(t, context.Background(), srv, StdioOptions{MaxLine: 1000})
	c.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"_1":1,"_2":2,"pad":"`+strings.Repeat("p", 5000)+`"}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	got := c.next()
	if string(got["id"]) != "7" || !strings.Contains(string(got["error"]), `"code":-32600`) ||
		!strings.Contains(string(got["error"]), "over the limit of 1000 bytes") {
		t.Errorf("the long line: got %s", got)
	}
	if got := c.next(); string(got["id"]) != "8" {
		t.Errorf("after the long line: got %v", got)
	}
}

// blockedWriter is an out that blocks every Write until opened, and
// says when the first Write began.
type blockedWriter struct {
	entered   chan struct{}
	enterOnce sync.Once
	open      chan struct{}
	w         io.Writer
}

func (b *blockedWriter) Write(p []byte) (int, error) {
	b.enterOnce.Do(func() { close(b.entered) })
	<-b.open
	return b.w.Write(p)
}

// TestStdioBacklog: while a reply waits for a client that does not read,
// beyond MaxBacklog, no further request is read; once the client reads,
// everything is answered.
func TestStdioBacklog(t *testing.T) {
	srv, _ := callsServer(t, Options{})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	out := &blockedWriter{entered: make(chan struct{}), open: make(chan struct{}), w: outW}
	close(out.open) // the handshake goes through
	done := make(chan error, 1)
	go func() { done <- ServeStdio(context.Background(), srv, inR, out, StdioOptions{MaxBacklog: 1}) }()
	replies := make(chan string, 256)
	go func() {
		buf := make([]byte, 1<<20)
		var acc []byte
		for {
			n, err := outR.Read(buf)
			acc = append(acc, buf[:n]...)
			for {
				i := strings.IndexByte(string(acc), '\n')
				if i < 0 {
					break
				}
				replies <- string(acc[:i])
				acc = acc[i+1:]
			}
			if err != nil {
				close(replies)
				return
			}
		}
	}()
	io.WriteString(inW, initLine+"\n"+initializedLine+"\n")
	<-replies

	// From now on, writes block.
	out.entered, out.enterOnce = make(chan struct{}), sync.Once{}
	blocked := make(chan struct{})
	out.open = blocked
	const calls = 100
	var sent atomic.Int64
	first := make(chan struct{})
	go func() {
		for i := 0; i < calls; i++ {
			if i == 1 {
				// The rest once the first reply is held, so that the
				// server cannot have read them all before it had a
				// reply to hold.
				<-first
			}
			if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":`+itoa(i)+`,"method":"tools/call","params":{"name":"add","arguments":{"_1":1,"_2":2}}}`+"\n"); err != nil {
				return
			}
			sent.Add(1)
		}
	}()
	<-out.entered
	close(first)
	// The server holds a reply it cannot write: it must stop reading. A
	// while of watching can only miss a server that reads on (on a slow
	// machine), never fail one that stops.
	// Calls read before that may still run (each is dispatched as it is
	// read, and a busy machine may read many before the first reply is
	// written): what must hold is that no request is read any more, which
	// the client sees as its writes no longer going through.
	time.Sleep(200 * time.Millisecond)
	n1 := sent.Load()
	time.Sleep(300 * time.Millisecond)
	if n2 := sent.Load(); n2 >= calls || n2 != n1 {
		t.Errorf("the server read %d, then %d, of %d requests while their replies could not be written, want the reading stopped", n1, n2, calls)
	}
	close(blocked)
	for i := 0; i < calls; i++ {
		select {
		case r := <-replies:
			if !strings.Contains(r, `"text":"3"`) {
				t.Errorf("reply: %s", r)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%d replies of %d after the client read", i, calls)
		}
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

// TestStdioEOFGrace: at the end of stdin a call in flight gets the grace
// to finish and reply; one that runs on after it is cancelled, and still
// answered, and ServeStdio returns without waiting for it to end by
// itself.
func TestStdioEOFGrace(t *testing.T) {
	srv, pools := callsServer(t, Options{})
	t.Run("finishes within the grace", func(t *testing.T) {
		c := serveStdioWith(t, context.Background(), srv, StdioOptions{Grace: time.Hour})
		c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{"key":"soon"}}}`)
		<-pools.started
		c.in.Close()
		pools.release("soon")
		if got := c.next(); string(got["id"]) != "1" || !strings.Contains(string(got["result"]), `"text":"4"`) {
			t.Errorf("the call in flight at EOF: %v", got)
		}
		if err := waitDone(t, c.done); err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	})
	t.Run("cancelled after the grace", func(t *testing.T) {
		c := serveStdioWith(t, context.Background(), srv, StdioOptions{Grace: 10 * time.Millisecond})
		c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{"key":"never"}}}`)
		<-pools.started
		c.in.Close()
		if got := c.next(); string(got["id"]) != "2" || !strings.Contains(string(got["result"]), "wait was cancelled") {
			t.Errorf("the call in flight at EOF: %v", got)
		}
		if err := waitDone(t, c.done); err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	})
}

// waitDone waits for ServeStdio's result; a minute is a hung server.
func waitDone(t *testing.T, done chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatal("ServeStdio did not return within a minute")
	}
	return nil
}

// TestStdioOneProc: with OneProc the scheduler runs one thread while the
// server serves, every thread again while a large request is pending (a
// call until its reply, a notification until handled), and as many as
// before once the server ends.
func TestStdioOneProc(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	srv, pools := callsServer(t, Options{})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- ServeStdio(context.Background(), srv, inR, outW, StdioOptions{OneProc: true}) }()
	replies := make(chan string, 16)
	go func() {
		r := newLineReader(outR, 1<<30)
		for {
			l, err := r.next()
			if len(l.data) > 0 {
				replies <- string(l.data)
			}
			if err != nil {
				close(replies)
				return
			}
		}
	}()
	procs := func(want int, when string) {
		t.Helper()
		if got := runtime.GOMAXPROCS(0); got != want {
			t.Errorf("%s: GOMAXPROCS %d, want %d", when, got, want)
		}
	}
	io.WriteString(inW, initLine+"\n"+initializedLine+"\n")
	<-replies
	procs(1, "serving")

	key := strings.Repeat("k", 70<<10) // a large request
	io.WriteString(inW, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","arguments":{"key":"`+key+`"}}}`+"\n")
	<-pools.started
	procs(3, "a large call running")
	pools.release(key)
	if r := <-replies; !strings.Contains(r, `"id":7`) {
		t.Fatalf("reply %.200s", r)
	}
	procs(1, "the large call answered")

	// A large notification gets no reply; the ping after it is answered
	// once it has been handled.
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/x","params":{"k":"`+key+`"}}`+"\n"+`{"jsonrpc":"2.0","id":8,"method":"ping"}`+"\n")
	if r := <-replies; !strings.Contains(r, `"id":8`) {
		t.Fatalf("reply %.200s", r)
	}
	procs(1, "a large notification handled")

	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	procs(3, "the server ended")
}
