package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The progress tests: a function in each language reports three steps
// (nexus.progress, nexus::progress, gopool.Progress), a tenth of a second
// apart so that the nexus, which sends at most one notification per 50 ms
// of a call, has no reason to merge them; clients that give a
// progressToken see them as notifications/progress before the result.
// Each step's work follows its report, so the last report is not right
// before the result: the TypeScript SDK (1.32) drops a notification read
// together with its call's response (it handles notifications a microtask
// later, once the response has removed the call's progress handler).
var progressFiles = files{
	"main.loc": `
module steps (stepsPy, stepsCpp, stepsGo, quiet)

import root-py
import root-cpp
import root-go

source Py from "steps.py" ("steps" as stepsPy)
source Cpp from "steps.hpp" ("steps" as stepsCpp)
source Go from "steps.go" ("Steps" as stepsGo, "Quiet" as quiet)

stepsPy :: Int -> Int
stepsCpp :: Int -> Int
stepsGo :: Int -> Int
quiet :: Int -> Int
`,
	"steps.py": `
import time

import nexus


def steps(n):
    for i in range(1, n + 1):
        nexus.progress(i, n, f"step {i}")
        time.sleep(0.1)
    return n
`,
	"steps.hpp": `
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

#include "nexus_pool.hpp"

inline std::int64_t steps(std::int64_t n) {
  for (std::int64_t i = 1; i <= n; ++i) {
    nexus::progress(i, n, "step " + std::to_string(i));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return n;
}
`,
	"steps.go": `
package steps

import (
	"context"
	"fmt"
	"time"

	gopool "github.com/nexus-run/nexus/pools/go"
)

func Steps(ctx context.Context, n int) int {
	for i := 1; i <= n; i++ {
		gopool.Progress(ctx, float64(i), float64(n), fmt.Sprintf("step %d", i))
		time.Sleep(100 * time.Millisecond)
	}
	return n
}

// Quiet takes no context, as most functions: it reports nothing.
func Quiet(n int) int { return n }
`,
}

// progressTools are the tools that report three steps.
var progressTools = []string{"stepsPy", "stepsCpp", "stepsGo"}

// progressNote is one notifications/progress as a client saw it.
type progressNote struct {
	Token    any     `json:"progressToken"`
	Progress float64 `json:"progress"`
	Total    float64 `json:"total"`
	Message  string  `json:"message"`
}

// checkProgress checks the notifications a call with token saw: at least
// one, in growing order, each a step of three with its message, the last
// the third step (the nexus may merge steps, never drop the latest).
func checkProgress(t *testing.T, who string, token any, notes []progressNote) {
	t.Helper()
	if len(notes) == 0 {
		t.Errorf("%s: no progress notification", who)
		return
	}
	if len(notes) != 3 {
		t.Logf("%s: %d notifications of 3 steps (merged under load)", who, len(notes))
	}
	for i, n := range notes {
		want := progressNote{Token: token, Progress: n.Progress, Total: 3, Message: fmt.Sprintf("step %.0f", n.Progress)}
		if n != want || n.Progress < 1 || n.Progress > 3 || (i > 0 && n.Progress <= notes[i-1].Progress) {
			t.Errorf("%s: notification %d is %+v, after %+v", who, i, n, notes[:i])
		}
	}
	if last := notes[len(notes)-1]; last.Progress != 3 {
		t.Errorf("%s: the last notification is %+v, want the third step", who, last)
	}
}

// sdkProgress is a Go SDK client session that records the progress
// notifications it gets, by token.
type sdkProgress struct {
	mu    sync.Mutex
	notes map[any][]progressNote
}

func (p *sdkProgress) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		p.mu.Lock()
		defer p.mu.Unlock()
		pr := req.Params
		p.notes[pr.ProgressToken] = append(p.notes[pr.ProgressToken], progressNote{pr.ProgressToken, pr.Progress, pr.Total, pr.Message})
	}}
}

func (p *sdkProgress) of(token any) []progressNote {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]progressNote(nil), p.notes[token]...)
}

// callAll calls each tool with n = 3, with a token ("tok-TOOL") and
// without, and checks the notifications the session saw when each call
// returned.
func (p *sdkProgress) callAll(t *testing.T, who string, cs *mcp.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	for _, name := range append(progressTools, "quiet") {
		token := "tok-" + name
		params := &mcp.CallToolParams{Name: name, Arguments: map[string]any{"_1": 3}}
		params.SetProgressToken(token)
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			t.Fatalf("%s: %s: %v %+v", who, name, err, res)
		}
		// The SDK hands notifications to the handler on a goroutine of
		// their own, which a result may overtake: wait for the last step.
		// (The raw tests check that it is sent before the result.)
		notes := p.of(token)
		for i := 0; i < 100*int(hangGuard/time.Second) && name != "quiet" && (len(notes) == 0 || notes[len(notes)-1].Progress < 3); i++ {
			time.Sleep(10 * time.Millisecond)
			notes = p.of(token)
		}
		if name == "quiet" {
			if len(notes) != 0 {
				t.Errorf("%s: quiet reported %+v", who, notes)
			}
			continue
		}
		checkProgress(t, who+" "+name, token, notes)

		// Without a token, no notification.
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"_1": 3}})
		if err != nil || res.IsError {
			t.Fatalf("%s: %s without a token: %v %+v", who, name, err, res)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for token := range p.notes {
		if !strings.HasPrefix(fmt.Sprint(token), "tok-") {
			t.Errorf("%s: notifications for token %v, which no call gave", who, token)
		}
	}
}

func TestProgressGoSDK(t *testing.T) {
	p := build(t, progressFiles)
	t.Run("stdio", func(t *testing.T) {
		rec := &sdkProgress{notes: map[any][]progressNote{}}
		cmd := exec.Command(nexusBin, "mcp", p.launcher)
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "TMPDIR="+p.tmp)
		client := mcp.NewClient(&mcp.Implementation{Name: "progress-test", Version: "0"}, rec.options())
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		defer cancel()
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: hangGuard}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		rec.callAll(t, "Go SDK stdio", cs)
	})
	t.Run("http", func(t *testing.T) {
		s := startHTTP(t, p.tmp, nil, "mcp", p.launcher)
		defer s.stop()
		rec := &sdkProgress{notes: map[any][]progressNote{}}
		client := mcp.NewClient(&mcp.Implementation{Name: "progress-test", Version: "0"}, rec.options())
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		defer cancel()
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.base + "/mcp"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		rec.callAll(t, "Go SDK http", cs)
	})
	p.checkClean()
}

// TestProgressRawStdio: over stdio, a call's notifications come before
// its reply and nothing of it follows; a call without a token gets none.
// Revision 2024-11-05 has no message field.
func TestProgressRawStdio(t *testing.T) {
	p := build(t, progressFiles)
	for _, version := range []string{"2025-11-25", "2024-11-05"} {
		lines := []string{
			rpcLine(0, "initialize", map[string]any{"protocolVersion": version, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}),
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		}
		for i, name := range progressTools {
			lines = append(lines,
				rpcLine(10+i, "tools/call", map[string]any{"name": name, "arguments": map[string]any{"_1": 3}, "_meta": map[string]any{"progressToken": 100 + i}}),
				rpcLine(20+i, "tools/call", map[string]any{"name": name, "arguments": map[string]any{"_1": 3}}))
		}
		out := stdioSequence(t, p, lines)
		replied := map[float64]bool{}
		for _, m := range out {
			if m.Method == "" {
				replied[m.ID] = true
				continue
			}
			if m.Method != "notifications/progress" {
				t.Errorf("%s: unexpected %s", version, m.Method)
				continue
			}
			var n progressNote
			if err := json.Unmarshal(m.Params, &n); err != nil {
				t.Fatal(err)
			}
			token, _ := n.Token.(float64)
			if id := token - 90; replied[id] {
				t.Errorf("%s: progress of call %v after its reply", version, id)
			}
			if _, has := m.rawParams()["message"]; has != (version != "2024-11-05") {
				t.Errorf("%s: progress %s: message present: %v", version, m.Params, has)
			}
		}
		for i := range progressTools {
			if !replied[float64(10+i)] || !replied[float64(20+i)] {
				t.Errorf("%s: replies %v, want calls %d and %d", version, replied, 10+i, 20+i)
			}
		}
		if version == "2025-11-25" {
			for i, name := range progressTools {
				var notes []progressNote
				for _, m := range out {
					var n progressNote
					if m.Method == "notifications/progress" && json.Unmarshal(m.Params, &n) == nil && n.Token == float64(100+i) {
						notes = append(notes, n)
					}
				}
				checkProgress(t, "raw stdio "+name, float64(100+i), notes)
			}
		}
	}
	p.checkClean()
}

// stdioMessage is one line `nexus mcp` wrote.
type stdioMessage struct {
	ID     float64         `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func (m stdioMessage) rawParams() map[string]json.RawMessage {
	var out map[string]json.RawMessage
	_ = json.Unmarshal(m.Params, &out)
	return out
}

// stdioSequence runs `nexus mcp` for p, sends lines one by one, each
// after the reply to the one before (the calls run one at a time), and
// returns every message it wrote, in order, up to its exit at EOF.
func stdioSequence(t *testing.T, p *program, lines []string) []stdioMessage {
	t.Helper()
	cmd := exec.Command(nexusBin, "mcp", p.launcher)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "TMPDIR="+p.tmp)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	var out []stdioMessage
	for _, l := range lines {
		if _, err := io.WriteString(stdin, l+"\n"); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(l, `"method":"notifications/`) {
			continue
		}
		// Read up to this request's reply.
		for {
			if !sc.Scan() {
				t.Fatalf("stdout ended before the reply to %s\nstderr:\n%s", l, stderr.String())
			}
			var m stdioMessage
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("not JSON: %q", sc.Text())
			}
			out = append(out, m)
			if m.Method == "" {
				break
			}
		}
	}
	stdin.Close()
	// Nothing may follow the last reply.
	for sc.Scan() {
		t.Errorf("after the last reply: %s", sc.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("nexus mcp: %v\nstderr:\n%s", err, stderr.String())
	}
	return out
}

// TestProgressHTTP: over Streamable HTTP, a call with a token from a
// client accepting text/event-stream is answered with an event stream,
// its notifications then its reply; a client accepting only JSON, or
// giving no token, gets the JSON reply alone.
func TestProgressHTTP(t *testing.T) {
	p := build(t, progressFiles)
	s := startHTTP(t, p.tmp, nil, "mcp", p.launcher)
	defer s.stop()
	sid := s.initialize()
	call := func(token any, accept string) httpReply {
		params := map[string]any{"name": "stepsPy", "arguments": map[string]any{"_1": 3}}
		if token != nil {
			params["_meta"] = map[string]any{"progressToken": token}
		}
		return s.rpc(sid, 7, "tools/call", params, "Accept", accept, "MCP-Protocol-Version", "2025-06-18")
	}

	r := call("t1", "application/json, text/event-stream")
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "text/event-stream" || r.header.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("with a token: %v %v", r, r.header)
	}
	var notes []progressNote
	var reply map[string]json.RawMessage
	for _, ev := range strings.Split(strings.TrimSpace(string(r.body)), "\n\n") {
		data, ok := strings.CutPrefix(ev, "event: message\ndata: ")
		if !ok {
			t.Fatalf("event %q", ev)
		}
		if reply != nil {
			t.Errorf("an event after the reply: %s", data)
		}
		var m struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatal(err)
		}
		if m.Method == "notifications/progress" {
			var n progressNote
			if err := json.Unmarshal(m.Params, &n); err != nil {
				t.Fatal(err)
			}
			notes = append(notes, n)
			continue
		}
		if err := json.Unmarshal([]byte(data), &reply); err != nil || reply["result"] == nil {
			t.Errorf("not the call's reply: %s", data)
		}
	}
	checkProgress(t, "raw http", "t1", notes)
	if reply == nil {
		t.Error("no reply in the event stream")
	}

	for _, c := range []struct {
		what, accept string
		token        any
	}{
		{"JSON only", "application/json", "t2"},
		{"no token", "application/json, text/event-stream", nil},
	} {
		r := call(c.token, c.accept)
		if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" || strings.Contains(string(r.body), "notifications/progress") {
			t.Errorf("%s: %v %v", c.what, r, r.header)
		}
	}
}

// TestProgressTypeScriptSDK: the TypeScript SDK's onprogress sees the
// steps of each language's function, over stdio.
func TestProgressTypeScriptSDK(t *testing.T) {
	p := build(t, progressFiles)
	var ops []tsOp
	for _, name := range progressTools {
		ops = append(ops, tsOp{Op: "callProgress", Name: name, Arguments: map[string]any{"_1": 3}})
	}
	s := tsClient(t, []string{"stdio", nexusBin, "mcp", p.launcher}, ops...)
	if len(s.Results) != len(ops) {
		t.Fatalf("%d results for %d calls", len(s.Results), len(ops))
	}
	if len(s.TransportErrors) > 0 {
		t.Errorf("TS SDK: transport errors: %q", s.TransportErrors)
	}
	for i, name := range progressTools {
		var res struct {
			Progress []progressNote `json:"progress"`
			Result   struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal(s.Results[i], &res); err != nil {
			t.Fatalf("%s: %s", name, s.Results[i])
		}
		if len(res.Result.Content) != 1 || res.Result.Content[0].Text != "3" {
			t.Errorf("%s: result %s", name, s.Results[i])
		}
		// onprogress gets the params without the token.
		for j := range res.Progress {
			res.Progress[j].Token = "ts"
		}
		checkProgress(t, "TS SDK "+name, "ts", res.Progress)
	}
}
