package mcpsrc

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/pooltest"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// tool is a function of a test program that is tool name of server 0,
// with params naming its arguments (none for a single record argument).
func tool(name string, params []string, ret *types.Type, args ...*types.Type) manifest.Function {
	return manifest.Function{Name: name, Source: name, Pool: manifest.MCP, Args: args, Return: ret, Params: params}
}

// toolProgram is a valid program whose functions are fns, tools of the
// one MCP server sv.
func toolProgram(t *testing.T, sv manifest.Server, fns ...manifest.Function) *manifest.Manifest {
	t.Helper()
	if sv.Name == "" {
		sv.Name = "everything"
	}
	if sv.TimeoutMS == 0 {
		sv.TimeoutMS = 60000
	}
	m := &manifest.Manifest{Name: "tools", Servers: []manifest.Server{sv}, Functions: fns}
	for i := range m.Functions {
		m.Functions[i].ID = i
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	return m
}

func newCaller(t *testing.T, m *manifest.Manifest) (*Caller, *pooltest.Buffer) {
	t.Helper()
	stderr := &pooltest.Buffer{}
	c := NewCaller(m, stderr)
	t.Cleanup(func() { c.Close() })
	return c, stderr
}

// callFn calls function name of c's program with canonical args and
// returns its canonical result, as the dispatcher does.
func callFn(c *Caller, name string, args ...any) (any, error) {
	for i := range c.m.Functions {
		f := &c.m.Functions[i]
		if f.Name != name {
			continue
		}
		in, err := types.EncodeArgs(f.Args, args)
		if err != nil {
			return nil, err
		}
		out, err := c.Call(context.Background(), f, in)
		if err != nil {
			return nil, err
		}
		return types.DecodeMsgpackBytes(f.Return, out)
	}
	return nil, errors.New("no function " + name)
}

var weather = &types.Type{Kind: types.Record, Name: "Weather", Fields: []types.Field{
	{Name: "temperature", Type: types.RealType},
	{Name: "conditions", Type: types.OptionalOf(types.StrType)},
	{Name: "humidity", Type: types.OptionalOf(types.RealType)},
}}

// TestCallerTypedResults: server-everything's tools called as typed
// functions, each result read by its declared type.
func TestCallerTypedResults(t *testing.T) {
	annotated := &types.Type{Kind: types.Record, Name: "Annotated", Fields: []types.Field{
		{Name: "messageType", Type: types.StrType},
		{Name: "includeImage", Type: types.OptionalOf(types.BoolType)},
	}}
	badWeather := &types.Type{Kind: types.Record, Name: "Weather", Fields: []types.Field{{Name: "temperature", Type: types.StrType}}}
	m := toolProgram(t, manifest.Server{Server: everything(t)},
		tool("echo", []string{"message"}, types.StrType, types.StrType),
		tool("get-sum", []string{"a", "b"}, types.StrType, types.RealType, types.RealType),
		tool("get-structured-content", []string{"location"}, weather, types.StrType),
		tool("get-annotated-message", nil, types.StrType, annotated),
		manifest.Function{Name: "badWeather", Source: "get-structured-content", Pool: manifest.MCP, Params: []string{"location"}, Args: []*types.Type{types.StrType}, Return: badWeather},
		manifest.Function{Name: "sumAsReal", Source: "get-sum", Pool: manifest.MCP, Params: []string{"a", "b"}, Args: []*types.Type{types.RealType, types.RealType}, Return: types.RealType},
		manifest.Function{Name: "noTool", Source: "no-such-tool", Pool: manifest.MCP, Return: types.StrType},
	)
	c, _ := newCaller(t, m)

	for _, tc := range []struct {
		fn   string
		args []any
		want any
	}{
		{"echo", []any{"héllo <&>"}, "Echo: héllo <&>"},
		{"get-sum", []any{2.0, 3.5}, "The sum of 2 and 3.5 is 5.5."},
		// includeImage null is left out of the call: the server's
		// default (no image) applies; true adds an image block, which a
		// Str result does not read.
		{"get-annotated-message", []any{map[string]any{"messageType": "success", "includeImage": nil}}, "Operation completed successfully"},
		{"get-annotated-message", []any{map[string]any{"messageType": "success", "includeImage": true}}, "Operation completed successfully"},
	} {
		got, err := callFn(c, tc.fn, tc.args...)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %v: got %#v, %v; want %#v", tc.fn, tc.args, got, err, tc.want)
		}
	}

	got, err := callFn(c, "get-structured-content", "Chicago")
	w, _ := got.(map[string]any)
	if _, isReal := w["temperature"].(float64); err != nil || !isReal {
		t.Errorf("get-structured-content Chicago: got %#v, %v; want a Weather record", got, err)
	}

	for _, tc := range []struct {
		fn   string
		args []any
		want []string
	}{
		{"badWeather", []any{"Chicago"}, []string{"badWeather", `tool "get-structured-content"`, "mcp server everything", "is not Weather", "at .temperature: expected a string, got the number"}},
		{"sumAsReal", []any{1.0, 2.0}, []string{"sumAsReal", `tool "get-sum"`, "is not Real", `its text is not JSON: "The sum of 1 and 2 is 3."`}},
		{"noTool", nil, []string{"noTool", "everything", `"no-such-tool"`, "echo", "get-sum"}},
	} {
		_, err := callFn(c, tc.fn, tc.args...)
		if err == nil {
			t.Errorf("%s: succeeded, want an error", tc.fn)
			continue
		}
		for _, want := range tc.want {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q lacks %q", tc.fn, err, want)
			}
		}
	}
}

// TestCallerIsError: a result marked isError fails the call with the
// server's message, as a pool function's exception does.
func TestCallerIsError(t *testing.T) {
	// server-everything's echo requires message: a call without it is
	// the tool's own failure.
	m := toolProgram(t, manifest.Server{Server: everything(t)}, tool("echo", []string{"text"}, types.StrType, types.StrType))
	c, _ := newCaller(t, m)
	var events []pool.Event
	c.Events = func(e pool.Event) { events = append(events, e) }
	_, err := callFn(c, "echo", "x")
	var fe *pool.FunctionError
	if !errors.As(err, &fe) || fe.Function != "echo" || !strings.Contains(fe.Message, "message") {
		t.Fatalf("got %v, want a FunctionError of echo saying what is wrong with message", err)
	}
	t.Logf("isError: %v", err)
	// The call's end is an event, for metrics, naming the server.
	if len(events) != 1 || events[0].Kind != pool.Called || events[0].Program != "tools" || events[0].Lang != manifest.MCP ||
		events[0].Server != "everything" || !errors.As(events[0].Err, &fe) {
		t.Errorf("events %+v, want one call of server everything that failed with a FunctionError", events)
	}
}

// TestCallerJSON: a Json result is the structuredContent, else the
// content blocks read as JSON values, in order.
func TestCallerJSON(t *testing.T) {
	m := toolProgram(t, manifest.Server{Server: everything(t)},
		tool("get-tiny-image", nil, types.JSONType),
		tool("get-structured-content", []string{"location"}, types.JSONType, types.StrType),
		tool("echo", []string{"message"}, types.JSONType, types.StrType),
	)
	c, _ := newCaller(t, m)
	got, err := callFn(c, "get-tiny-image")
	if err != nil {
		t.Fatal(err)
	}
	text, _ := got.(types.JSONText)
	if !strings.HasPrefix(string(text), `["Here's the image you requested:",{"type":"image","mimeType":"image/png","data":"iVBOR`) ||
		!strings.HasSuffix(string(text), `"},"The image above is the MCP logo."]`) {
		t.Errorf("get-tiny-image: got %.200s", text)
	}
	for _, tc := range []struct {
		fn, arg, want string
	}{
		{"get-structured-content", "Chicago", `"temperature":`},
		{"echo", "hi", `"Echo: hi"`},
	} {
		got, err := callFn(c, tc.fn, tc.arg)
		if text, _ := got.(types.JSONText); err != nil || !strings.Contains(string(text), tc.want) {
			t.Errorf("%s %s: got %#v, %v; want JSON with %s", tc.fn, tc.arg, got, err, tc.want)
		}
	}
}

// TestCallerCleanEnvironment: a stdio server gets PATH, HOME and the
// variables the program names, nothing else of nexus's environment.
func TestCallerCleanEnvironment(t *testing.T) {
	t.Setenv("MCPSRC_SECRET", "do-not-leak")
	t.Setenv("MCPSRC_ALLOWED", "passed-through")
	m := toolProgram(t, manifest.Server{Server: everything(t), Env: []string{"MCPSRC_ALLOWED", "MCPSRC_SET=set-here"}},
		tool("get-env", []string{}, types.StrType))
	c, _ := newCaller(t, m)
	got, err := callFn(c, "get-env")
	env, _ := got.(string)
	if err != nil || !strings.Contains(env, "passed-through") || !strings.Contains(env, "set-here") {
		t.Fatalf("get-env: got %q, %v; want the variables named by Env", env, err)
	}
	if strings.Contains(env, "do-not-leak") {
		t.Errorf("a variable not named in Env reached the server: %s", env)
	}
}

// TestCallerTimeServer: mcp-server-time's tools, their structured results
// read into records, nested ones included.
func TestCallerTimeServer(t *testing.T) {
	timeResult := &types.Type{Kind: types.Record, Name: "TimeResult", Fields: []types.Field{
		{Name: "timezone", Type: types.StrType},
		{Name: "datetime", Type: types.StrType},
		{Name: "day_of_week", Type: types.StrType},
		{Name: "is_dst", Type: types.BoolType},
	}}
	conversion := &types.Type{Kind: types.Record, Name: "Conversion", Fields: []types.Field{
		{Name: "source", Type: timeResult},
		{Name: "target", Type: timeResult},
		{Name: "time_difference", Type: types.StrType},
	}}
	m := toolProgram(t, manifest.Server{Name: "mcp-server-time", Server: serverCommand(t, filepath.Join(".venv", "bin", "mcp-server-time")) + " --local-timezone UTC"},
		tool("get_current_time", []string{"timezone"}, timeResult, types.StrType),
		tool("convert_time", []string{"source_timezone", "time", "target_timezone"}, conversion, types.StrType, types.StrType, types.StrType),
	)
	c, _ := newCaller(t, m)
	got, err := callFn(c, "get_current_time", "Europe/Paris")
	if r, _ := got.(map[string]any); err != nil || r["timezone"] != "Europe/Paris" {
		t.Errorf("get_current_time Europe/Paris: got %#v, %v", got, err)
	}
	got, err = callFn(c, "convert_time", "Asia/Tokyo", "12:00", "Asia/Kolkata")
	r, _ := got.(map[string]any)
	target, _ := r["target"].(map[string]any)
	if err != nil || r["time_difference"] != "-3.5h" || !strings.Contains(target["datetime"].(string), "T08:30:00") {
		t.Errorf("convert_time 12:00 Tokyo to Kolkata: got %#v, %v", got, err)
	}
}

// TestCallerSharesOneServer: concurrent first calls make one Source and
// start the server once.
func TestCallerSharesOneServer(t *testing.T) {
	c, stderr := newCaller(t, toolProgram(t, manifest.Server{Server: everything(t)}, tool("echo", []string{"message"}, types.StrType, types.StrType)))
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			msg := strings.Repeat("y", i)
			if got, err := callFn(c, "echo", msg); err != nil || got != "Echo: "+msg {
				t.Errorf("echo %s: got %v, %v", msg, got, err)
			}
		})
	}
	wg.Wait()
	if n := strings.Count(stderr.String(), "Starting default (STDIO) server"); n != 1 {
		t.Errorf("the server started %d times, want once; stderr:\n%s", n, stderr)
	}
	if !strings.Contains(stderr.String(), "everything: ") {
		t.Errorf("the server's stderr is not prefixed with its name: %q", stderr)
	}
	c.Close()
	if _, err := callFn(c, "echo", "late"); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("a call after Close: %v, want it refused", err)
	}
}

// TestCallerConcurrentClose: every Close, not only the first, returns once
// every server's process is gone, as the pool supervisor's does (the
// immediate stop at a second signal exits as soon as its Close returns).
func TestCallerConcurrentClose(t *testing.T) {
	m := toolProgram(t, manifest.Server{Server: everything(t)}, tool("echo", []string{"message"}, types.StrType, types.StrType))
	m.Servers = append(m.Servers, manifest.Server{Name: "everything2", Server: everything(t), TimeoutMS: 60000})
	echo2 := tool("echo2", []string{"message"}, types.StrType, types.StrType)
	echo2.ID, echo2.Source, echo2.Server = 1, "echo", 1
	m.Functions = append(m.Functions, echo2)
	c, _ := newCaller(t, m)
	var procs []*process
	for _, name := range []string{"echo", "echo2"} {
		if _, err := callFn(c, name, "x"); err != nil {
			t.Fatal(err)
		}
	}
	for i := range m.Servers {
		s, _ := c.source(i)
		procs = append(procs, s.conn.proc)
	}
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			c.Close()
			for i, p := range procs {
				if !p.hasExited() {
					t.Errorf("a Close returned with server %d still running", i)
				}
			}
		})
	}
	wg.Wait()
}

// TestCallerOptions: @bearer's variable is read when the server is first
// called, and a missing one is an error naming it and the server, never a
// value; headers are "Name: value".
func TestCallerOptions(t *testing.T) {
	t.Setenv("MCPSRC_EMPTY_TOKEN", "")
	m := toolProgram(t, manifest.Server{Name: "docs", Server: "http://127.0.0.1:1/mcp", Bearer: "MCPSRC_EMPTY_TOKEN"}, tool("search", []string{}, types.StrType))
	c, _ := newCaller(t, m)
	_, err := callFn(c, "search")
	if err == nil || !strings.Contains(err.Error(), "MCPSRC_EMPTY_TOKEN") || !strings.Contains(err.Error(), "docs") {
		t.Errorf("an empty @bearer variable: got %v, want an error naming it and the server", err)
	}

	t.Setenv("MCPSRC_TOKEN", "s3cret")
	opts, err := sourceOptions(&manifest.Server{Name: "docs", Server: "https://x/mcp", TimeoutMS: 1500, Bearer: "MCPSRC_TOKEN", Headers: []string{"X-Org: acme", "X-Empty:"}})
	if err != nil || opts.Bearer != "s3cret" || opts.Timeout.Milliseconds() != 1500 ||
		!reflect.DeepEqual(opts.Headers, map[string]string{"X-Org": "acme", "X-Empty": ""}) {
		t.Errorf("options: got %+v, %v", opts, err)
	}
	for _, h := range []string{"no colon", ": value", "Two words: x"} {
		if _, err := sourceOptions(&manifest.Server{Name: "docs", Server: "https://x/mcp", TimeoutMS: 1, Headers: []string{h}}); err == nil || !strings.Contains(err.Error(), "docs") {
			t.Errorf("header %q: got %v, want an error naming the server", h, err)
		}
	}
}
