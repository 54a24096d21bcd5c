package guard

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// waitLong bounds the waits for what must happen: far beyond the short
// limits the tests set, so that only a limit that does not work fails.
const waitLong = 30 * time.Second

// serveGuarded serves h behind a policy made of opts on a loopback port.
func serveGuarded(t *testing.T, opts Options, h http.Handler) *httptest.Server {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	opts.Addr = ts.Listener.Addr().String()
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = p.Wrap(h)
	ts.Start()
	t.Cleanup(ts.Close)
	return ts
}

// TestBodyPace: a body that stops coming is answered 408 once the pace
// it owes runs out, instead of holding the connection; one that comes at
// a good pace is read whole.
func TestBodyPace(t *testing.T) {
	ts := serveGuarded(t, Options{BodyGrace: 200 * time.Millisecond, MinBodyRate: 1000}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			BodyError(w, err)
			return
		}
		fmt.Fprintf(w, "%d", len(body))
	}))

	// 64 KiB at once: far beyond what the grace allows at 1000 B/s alone,
	// but it comes as fast as it is read.
	resp, err := http.Post(ts.URL, "application/json", strings.NewReader(strings.Repeat("x", 64<<10)))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(got) != "65536" {
		t.Errorf("a quick body: %d %s", resp.StatusCode, got)
	}

	c, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"x\":", ts.Listener.Addr())
	_ = c.SetReadDeadline(time.Now().Add(waitLong))
	reply, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("a body that stopped coming: no answer: %v", err)
	}
	var e struct {
		Error string `json:"error"`
	}
	body, _ := io.ReadAll(reply.Body)
	if reply.StatusCode != http.StatusRequestTimeout || json.Unmarshal(body, &e) != nil || !strings.Contains(e.Error, "too slowly") {
		t.Errorf("a body that stopped coming: %d %s, want 408 in JSON", reply.StatusCode, body)
	}
}

// TestLimitListener: beyond the cap, a connection is answered 503 in JSON;
// once one closes, the next is served.
func TestLimitListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })}
	go srv.Serve(LimitListener(ln, 2))
	defer srv.Close()
	url := "http://" + ln.Addr().String() + "/"

	// Two connections kept open, each surely accepted: it was answered.
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		_ = c.SetReadDeadline(time.Now().Add(waitLong))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("a connection within the cap: %v %v", resp, err)
		}
		held = append(held, c)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: waitLong}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("a connection beyond the cap: %v, want 503", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Content-Type") != "application/json" || !strings.Contains(string(body), "too many connections (the limit is 2)") {
		t.Errorf("a connection beyond the cap: %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}

	held[0].Close()
	for deadline := time.Now().Add(waitLong); ; time.Sleep(20 * time.Millisecond) {
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("a closed connection did not make room: %v %v", resp, err)
		}
	}
}
