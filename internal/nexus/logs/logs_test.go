package logs

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nexus-run/nexus/internal/nexus/observe"
)

func TestNewFormats(t *testing.T) {
	for _, c := range []struct {
		format string
		want   string
	}{
		{"", "level=INFO msg=hello k=v\n"},
		{"text", "level=INFO msg=hello k=v\n"},
		{"TEXT", "level=INFO msg=hello k=v\n"},
		{"json", `"level":"INFO","msg":"hello","k":"v"}` + "\n"},
	} {
		var b bytes.Buffer
		l, err := New(&b, c.format, slog.LevelInfo)
		if err != nil {
			t.Fatalf("%q: %v", c.format, err)
		}
		l.Info("hello", "k", "v")
		if !strings.HasSuffix(b.String(), c.want) || !strings.HasPrefix(b.String(), map[bool]string{true: `{"time":`, false: "time="}[c.format == "json"]) {
			t.Errorf("format %q: %q, want ...%q", c.format, b.String(), c.want)
		}
	}
	if _, err := New(&bytes.Buffer{}, "xml", slog.LevelInfo); err == nil || !strings.Contains(err.Error(), `"xml"`) {
		t.Errorf("format xml: %v, want an error naming it", err)
	}
}

func TestLevels(t *testing.T) {
	for name, want := range map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "": slog.LevelInfo,
		"WARN": slog.LevelWarn, "warning": slog.LevelWarn, "error": slog.LevelError} {
		got, err := ParseLevel(name)
		if err != nil || got != want {
			t.Errorf("ParseLevel(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := ParseLevel("loud"); err == nil || !strings.Contains(err.Error(), "debug, info, warn, error") {
		t.Errorf("ParseLevel(loud): %v, want an error listing the levels", err)
	}
	// A level leaves out what is below it.
	var b bytes.Buffer
	l, _ := New(&b, Text, slog.LevelWarn)
	l.Info("quiet")
	l.Warn("loud")
	if strings.Contains(b.String(), "quiet") || !strings.Contains(b.String(), "msg=loud") {
		t.Errorf("at warn: %q", b.String())
	}
}

func TestCallLine(t *testing.T) {
	var b bytes.Buffer
	l, _ := New(&b, JSON, slog.LevelInfo)
	hub := observe.NewHub()
	WatchCalls(hub, l)
	hub.Done(observe.Call{Program: "demo", Tool: "greet", Transport: observe.HTTP, Protocol: "2025-06-18",
		Start: time.Now(), Duration: 1500 * time.Microsecond, Outcome: observe.OK})
	hub.Done(observe.Call{Program: "demo", Tool: "demo__fail", Transport: observe.JSONAPI,
		Duration: 2 * time.Second, Outcome: observe.ToolError, Error: "fail: ValueError: no good"})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2: %s", len(lines), b.String())
	}
	var ok, failed map[string]any
	if json.Unmarshal([]byte(lines[0]), &ok) != nil || json.Unmarshal([]byte(lines[1]), &failed) != nil {
		t.Fatalf("not JSON: %s", b.String())
	}
	want := map[string]any{"level": "INFO", "msg": "call", "program": "demo", "tool": "greet", "transport": "http",
		"protocol": "2025-06-18", "duration_ms": 1.5, "outcome": "ok"}
	for k, v := range want {
		if ok[k] != v {
			t.Errorf("ok call: %s = %v, want %v", k, ok[k], v)
		}
	}
	if _, has := ok["error"]; has {
		t.Errorf("ok call has an error: %s", lines[0])
	}
	if len(ok) != len(want)+1 { // and time
		t.Errorf("ok call has other fields: %s", lines[0])
	}
	if _, has := failed["protocol"]; has || failed["error"] != "fail: ValueError: no good" || failed["outcome"] != "tool_error" ||
		failed["duration_ms"] != 2000.0 || failed["transport"] != "api" {
		t.Errorf("failed call: %s", lines[1])
	}

	// The off switches: no watcher, or a level above the call lines'.
	b.Reset()
	observe.NewHub().Done(observe.Call{Tool: "unwatched"})
	quiet, _ := New(&b, Text, slog.LevelWarn)
	h := observe.NewHub()
	WatchCalls(h, quiet)
	h.Done(observe.Call{Tool: "below the level", Outcome: observe.ToolError, Error: "x"})
	if b.Len() != 0 {
		t.Errorf("call lines at warn: %q", b.String())
	}
}

func TestLines(t *testing.T) {
	var b bytes.Buffer
	l, _ := New(&b, Text, slog.LevelInfo)
	w := Lines(l.With("program", "demo"), "mcp server output")
	w.Write([]byte("work: one\nwork: t"))
	w.Write([]byte("wo\r\n"))
	got := strings.ReplaceAll(b.String(), "\n", "|")
	for _, want := range []string{`msg="mcp server output" program=demo line="work: one"|`, `line="work: two"|`} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q: %s", want, got)
		}
	}
	if strings.Count(b.String(), "\n") != 2 {
		t.Errorf("want two records: %s", b.String())
	}
}
