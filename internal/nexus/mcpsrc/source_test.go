package mcpsrc

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nexus-run/nexus/internal/mcpaddr"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/osproc"
	"github.com/nexus-run/nexus/internal/pooltest"
)

// servers is where make setup installs the MCP servers these tests call.
var servers = filepath.Join("..", "..", "..", "integration", "mcpservers")

// serverCommand returns the absolute path of an installed server's
// command, failing the test (never skipping it) when setup has not run.
func serverCommand(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(servers, rel))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is not installed (%v): run make setup", p, err)
	}
	return p
}

func everything(t *testing.T) string {
	return serverCommand(t, filepath.Join("node_modules", ".bin", "mcp-server-everything")) + " stdio"
}

func newSource(t *testing.T, opts Options) *Source {
	t.Helper()
	if opts.Stderr == nil {
		opts.Stderr = &pooltest.Buffer{}
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func call(t *testing.T, s *Source, tool string, args map[string]any) Result {
	t.Helper()
	r, err := s.Call(context.Background(), tool, args)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if r.IsError {
		t.Fatalf("%s: isError: %v", tool, r.Text)
	}
	return r
}

func TestEverythingResultShapes(t *testing.T) {
	stderr := &pooltest.Buffer{}
	s := newSource(t, Options{Name: "everything", Server: everything(t), Stderr: stderr})

	if r := call(t, s, "echo", map[string]any{"message": "héllo"}); len(r.Text) != 1 || r.Text[0] != "Echo: héllo" {
		t.Errorf("echo: got %q", r.Text)
	}
	if r := call(t, s, "get-sum", map[string]any{"a": 2, "b": 3.5}); len(r.Text) != 1 || !strings.Contains(r.Text[0], "5.5") {
		t.Errorf("get-sum: got %q", r.Text)
	}

	r := call(t, s, "get-structured-content", map[string]any{"location": "Chicago"})
	var weather map[string]any
	if err := json.Unmarshal(r.Structured, &weather); err != nil {
		t.Fatalf("get-structured-content: structuredContent %q: %v", r.Structured, err)
	}
	if _, ok := weather["temperature"]; !ok {
		t.Errorf("get-structured-content: no temperature in %s", r.Structured)
	}

	r = call(t, s, "get-tiny-image", nil)
	var image struct{ Type, MimeType, Data string }
	found := false
	for _, b := range r.Other {
		if err := json.Unmarshal(b, &image); err == nil && image.Type == "image" {
			found = true
			break
		}
	}
	if !found || image.MimeType != "image/png" || image.Data == "" {
		t.Errorf("get-tiny-image: no PNG image block among %q", r.Other)
	}

	tools, err := s.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) < 5 {
		t.Errorf("tools: only %d", len(tools))
	}
	// server-everything says on stderr how it started: that line comes
	// through with the server's name in front.
	if !strings.Contains(stderr.String(), "everything: ") {
		t.Errorf("stderr is not prefixed with the server's name: %q", stderr.String())
	}
}

func TestEverythingCleanEnvironment(t *testing.T) {
	t.Setenv("MCPSRC_SECRET", "do-not-leak")
	t.Setenv("MCPSRC_ALLOWED", "passed-through")
	s := newSource(t, Options{Server: everything(t), Env: []string{"MCPSRC_ALLOWED", "MCPSRC_SET=set-here"}})
	r := call(t, s, "get-env", nil)
	env := strings.Join(r.Text, "\n")
	for _, want := range []string{"passed-through", "set-here", "PATH"} {
		if !strings.Contains(env, want) {
			t.Errorf("get-env lacks %q: %s", want, env)
		}
	}
	if strings.Contains(env, "do-not-leak") || strings.Contains(env, "MCPSRC_SECRET") {
		t.Errorf("a variable not named in Env reached the server: %s", env)
	}
}

func TestTimeServer(t *testing.T) {
	s := newSource(t, Options{Name: "time", Server: serverCommand(t, filepath.Join(".venv", "bin", "mcp-server-time")) + " --local-timezone UTC"})
	r := call(t, s, "convert_time", map[string]any{"source_timezone": "Europe/Paris", "time": "12:00", "target_timezone": "UTC"})
	text := strings.Join(r.Text, "\n")
	if !strings.Contains(text, "11:00") && !strings.Contains(text, "10:00") {
		t.Errorf("convert_time 12:00 Paris to UTC: got %s", text)
	}
}

func TestConcurrentCallsShareOneServer(t *testing.T) {
	s := newSource(t, Options{Server: everything(t)})
	call(t, s, "echo", map[string]any{"message": "warm"})
	pid := s.conn.proc.cmd.Process.Pid
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msg := strings.Repeat("x", i)
			r, err := s.Call(context.Background(), "echo", map[string]any{"message": msg})
			if err == nil && (len(r.Text) != 1 || r.Text[0] != "Echo: "+msg) {
				err = errors.New("echo " + msg + " answered " + strings.Join(r.Text, "|"))
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got := s.conn.proc.cmd.Process.Pid; got != pid {
		t.Errorf("the calls started another server: pid %d, then %d", pid, got)
	}
}

func TestConcurrentFirstCallsStartOneServer(t *testing.T) {
	stderr := &pooltest.Buffer{}
	s := newSource(t, Options{Name: "everything", Server: everything(t), Stderr: stderr})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			call(t, s, "echo", map[string]any{"message": "first"})
		}()
	}
	wg.Wait()
	// server-everything says this once each time it starts.
	if n := strings.Count(stderr.String(), "Starting default (STDIO) server"); n != 1 {
		t.Errorf("the server started %d times, want once; stderr:\n%s", n, stderr)
	}
}

func TestRestartAfterServerExits(t *testing.T) {
	s := newSource(t, Options{Server: everything(t)})
	call(t, s, "echo", map[string]any{"message": "one"})
	old := s.conn.proc
	done := make(chan error, 1)
	go func() {
		_, err := s.Call(context.Background(), "trigger-long-running-operation", map[string]any{"duration": 600, "steps": 600})
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	if err := old.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "the server exited (killed by signal SIGKILL)") {
		t.Errorf("a call the server died under: got %v, want its exit described", err)
	}
	<-old.exited
	<-s.conn.ended
	if r := call(t, s, "echo", map[string]any{"message": "two"}); r.Text[0] != "Echo: two" {
		t.Errorf("after restart: %q", r.Text)
	}
	if s.conn.proc == old {
		t.Error("the call after the kill did not start the server again")
	}
}

func TestRestartsAreBounded(t *testing.T) {
	s := newSource(t, Options{Name: "dying", Server: `sh -c 'echo dying now >&2; exit 3'`})
	for i := range pool.DefaultMaxDeaths {
		_, err := s.Call(context.Background(), "echo", nil)
		if err == nil || !strings.Contains(err.Error(), "dying") || !strings.Contains(err.Error(), "the server exited (exit status 3)") {
			t.Fatalf("start %d: got %v, want the exit described", i+1, err)
		}
	}
	_, err := s.Call(context.Background(), "echo", nil)
	if err == nil || !strings.Contains(err.Error(), "not starting it again for now (last time: exit status 3)") {
		t.Errorf("start %d: got %v, want the restart guard's refusal", pool.DefaultMaxDeaths+1, err)
	}
	if got := s.opts.Stderr.(*pooltest.Buffer).String(); !strings.Contains(got, "dying: dying now\n") {
		t.Errorf("stderr: %q, want the server's line prefixed", got)
	}
}

func TestUnknownTool(t *testing.T) {
	s := newSource(t, Options{Name: "everything", Server: everything(t)})
	_, err := s.Call(context.Background(), "no-such-tool", nil)
	if err == nil {
		t.Fatal("calling no-such-tool succeeded")
	}
	for _, want := range []string{"everything", `"no-such-tool"`, "echo", "get-sum"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestMissingCommand(t *testing.T) {
	s := newSource(t, Options{Name: "ghost", Server: "no-such-mcp-server-xyz --flag"})
	_, err := s.Call(context.Background(), "echo", nil)
	if err == nil || !strings.Contains(err.Error(), `"no-such-mcp-server-xyz"`) || !strings.Contains(err.Error(), "not found") || !strings.Contains(err.Error(), "ghost") {
		t.Errorf("got %v, want an error naming the server and the missing command", err)
	}
}

func TestTimeoutAndCancellation(t *testing.T) {
	s := newSource(t, Options{Server: everything(t), Timeout: 10 * time.Second})
	call(t, s, "echo", map[string]any{"message": "warm"})
	pid := s.conn.proc.cmd.Process.Pid
	long := map[string]any{"duration": 600, "steps": 600}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.Call(ctx, "trigger-long-running-operation", long)
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: got %v, want context.Canceled", err)
	}

	short := newSource(t, Options{Name: "slow", Server: everything(t), Timeout: 3 * time.Second})
	call(t, short, "echo", map[string]any{"message": "warm"})
	_, err := short.Call(context.Background(), "trigger-long-running-operation", long)
	if err == nil || !strings.Contains(err.Error(), "slow") || !strings.Contains(err.Error(), "no answer within 3s") {
		t.Errorf("timed out call: got %v, want the timeout named", err)
	}

	// Neither ended the connection: the next calls go to the same server.
	call(t, s, "echo", map[string]any{"message": "after"})
	call(t, short, "echo", map[string]any{"message": "after"})
	if got := s.conn.proc.cmd.Process.Pid; got != pid {
		t.Errorf("cancelling restarted the server: pid %d, then %d", pid, got)
	}
}

func TestCloseEndsServer(t *testing.T) {
	s, err := New(Options{Server: everything(t), Stderr: &pooltest.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	stderr := s.opts.Stderr.(*pooltest.Buffer)
	call(t, s, "echo", map[string]any{"message": "x"})
	p := s.conn.proc
	s.Close()
	if !p.hasExited() {
		t.Error("the server is still running after Close")
	}
	// server-everything does not exit when its stdin ends: it is asked
	// with SIGTERM after eofGrace (it was SIGKILLed after two seconds,
	// which every command-line call waited for), and its stdout stays
	// open until it has exited, so it cannot die of EPIPE writing to it.
	if got := osproc.Describe(p.cmd.ProcessState); got != "killed by signal SIGTERM" {
		t.Errorf("the server ended with %s, want SIGTERM", got)
	}
	if strings.Contains(stderr.String(), "EPIPE") {
		t.Errorf("the server wrote to a closed stdout:\n%s", stderr)
	}
	if osproc.Alive(p.cmd.Process.Pid) {
		t.Error("the server's pid still exists after Close")
	}
	if _, err := s.Call(context.Background(), "echo", nil); err == nil {
		t.Error("a call after Close succeeded")
	}
}

// pythonServer is the command line of a server written in Python with the
// SDK make setup installs: script run by its interpreter.
func pythonServer(t *testing.T, script string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "server.py")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return mcpaddr.Join([]string{serverCommand(t, filepath.Join(".venv", "bin", "python")), file})
}

// chattyServer is a Python SDK server that prints on its stdout before
// the protocol starts, as careless servers do: a banner, a JSON log line
// and a line that only looks like JSON. (print in a tool goes to stderr
// with this SDK.)
const chattyServer = `
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("chatty")

@mcp.tool()
def shout(message: str) -> str:
    return message.upper()

print("chatty server v1 starting", flush=True)
print('{"level": "info", "msg": "listening on stdio"}', flush=True)
print("{ready}", flush=True)
mcp.run()
`

// garbledServer prints, before the protocol starts, a line that looks
// like a message and is not one (print in a tool goes to stderr with this
// SDK).
const garbledServer = `
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("garbled")

@mcp.tool()
def garble(message: str) -> str:
    return message

print('{"jsonrpc": "2.0", "id": 7, "result": }', flush=True)
mcp.run()
`

// TestServerSendingGarbage: a line that looks like a message but is not
// one ends the connection, and the error says so rather than that the
// server exited (it does exit, once nexus closes its stdin); the next call
// opens a new connection.
func TestServerSendingGarbage(t *testing.T) {
	s := newSource(t, Options{Name: "garbled", Server: pythonServer(t, garbledServer)})
	_, err := s.Call(context.Background(), "garble", map[string]any{"message": "x"})
	if err == nil || !strings.Contains(err.Error(), "no JSON-RPC message") || strings.Contains(err.Error(), "exited") {
		t.Errorf("garble: %v, want the server's line named as no JSON-RPC message", err)
	}
	if r, err := s.Call(context.Background(), "garble", map[string]any{"message": "y"}); err == nil || !strings.Contains(err.Error(), "no JSON-RPC message") {
		t.Errorf("garble again: %+v, %v, want a new connection failing the same way; stderr:\n%s", r, err, s.opts.Stderr)
	}
}

// TestServerPrintingOnStdout: lines of a stdio server's stdout that are
// not messages go to stderr, prefixed and marked, and the connection goes
// on; the SDK alone ended it at the banner.
func TestServerPrintingOnStdout(t *testing.T) {
	stderr := &pooltest.Buffer{}
	s := newSource(t, Options{Name: "chatty", Server: pythonServer(t, chattyServer), Stderr: stderr})
	for _, m := range []string{"one", "two"} {
		if r := call(t, s, "shout", map[string]any{"message": m}); len(r.Text) != 1 || r.Text[0] != strings.ToUpper(m) {
			t.Errorf("shout %s: got %q", m, r.Text)
		}
	}
	s.Close()
	for _, line := range []string{"chatty server v1 starting", `{"level": "info", "msg": "listening on stdio"}`, "{ready}"} {
		if want := "chatty: (on stdout, not a message) " + line + "\n"; !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr does not hold %q:\n%s", want, stderr.String())
		}
	}
}

// bigServer answers as many MiB of text as it is asked for.
const bigServer = `
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("big")

@mcp.tool(structured_output=False)
def big(mib: int) -> str:
    return "x" * (mib << 20)

mcp.run()
`

// TestLargeAnswers: an answer of 20 MiB arrives whole (the SDK alone
// refused more than 16); one over maxMessage fails the call saying so, and
// the next call gets a new connection.
func TestLargeAnswers(t *testing.T) {
	s := newSource(t, Options{Name: "big", Server: pythonServer(t, bigServer)})
	if r := call(t, s, "big", map[string]any{"mib": 20}); len(r.Text) != 1 || len(r.Text[0]) != 20<<20 {
		t.Errorf("big 20: %d text blocks", len(r.Text))
	}
	_, err := s.Call(context.Background(), "big", map[string]any{"mib": maxMessage>>20 + 1})
	if want := "a message from the server is over 64 MiB"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("big %d: error %v, want one saying %q", maxMessage>>20+1, err, want)
	}
	if r := call(t, s, "big", map[string]any{"mib": 1}); len(r.Text) != 1 || len(r.Text[0]) != 1<<20 {
		t.Errorf("big 1 after the error: %d text blocks", len(r.Text))
	}
}

func TestMayBeMessage(t *testing.T) {
	for line, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n":   true,
		` {"id":1, "jsonrpc" : "2.0"} ` + "\r\n":        true,
		`[{"jsonrpc":"2.0","id":1,"result":{}}]` + "\n": true,
		"\n": true,
		`{"jsonrpc":"2.0","result":"cut at the buffer`: true, // judged by its start
		`{"level":"info","msg":"listening"}` + "\n":    false,
		"{ready}\n": false,
		`{"jsonrpc":"2.0"} trailing words` + "\n": false,
		"server v1 starting\n":                    false,
		`[1,2,3]` + "\n":                          false,
	} {
		if got := mayBeMessage([]byte(line)); got != want {
			t.Errorf("mayBeMessage(%q) = %v, want %v", line, got, want)
		}
	}
}
