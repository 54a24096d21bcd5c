package pool

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest"
)

// TestStderrSinkRaw: without a logger, lines pass as the pool printed
// them, those printed while starting once it has started.
func TestStderrSinkRaw(t *testing.T) {
	var out bytes.Buffer
	s := newStderrSink(&lineWriter{out: &out}, "demo", manifest.Python)
	s.Write([]byte("loading\n"))
	if out.Len() != 0 {
		t.Fatalf("passed on while starting: %q", out.String())
	}
	s.started()
	s.Write([]byte("half "))
	s.Write([]byte("a line\nand more\n"))
	if out.String() != "loading\nhalf a line\nand more\n" {
		t.Errorf("got %q", out.String())
	}
}

// TestStderrSinkLog: to a logger, each line is a record with the pool's
// program and language, and the call's tool and function while the pool
// has that one call in flight, none with two.
func TestStderrSinkLog(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&out, nil))
	s := newStderrSink(&lineWriter{out: &bytes.Buffer{}, log: log}, "demo", manifest.Python)
	s.Write([]byte("loading\r\nready\n"))
	s.started()
	one, two := &pending{}, &pending{}
	s.begin(one, "greetPy", "greet")
	s.Write([]byte("hello from one\n"))
	s.begin(two, "otherPy", "")
	s.Write([]byte("two in flight\n"))
	s.end(one)
	s.Write([]byte("two alone\n"))
	s.end(two)
	s.Write([]byte("after\n"))

	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("not JSON: %s", line)
		}
		if r["msg"] != PoolOutput || r["program"] != "demo" || r["language"] != "python" || r["level"] != "INFO" {
			t.Errorf("record: %s", line)
		}
		got = append(got, strings.Join([]string{str(r["line"]), str(r["tool"]), str(r["function"])}, "|"))
	}
	want := []string{"loading||", "ready||", "hello from one|greet|greetPy", "two in flight||", "two alone||otherPy", "after||"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("records (line|tool|function):\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// TestLineWriterWarn: what the supervisor notices is a warn record on
// the log, else a "nexus: " line.
func TestLineWriterWarn(t *testing.T) {
	var raw, logged bytes.Buffer
	(&lineWriter{out: &raw}).warn("odd answer", slog.String("language", "python"))
	(&lineWriter{out: &raw, log: slog.New(slog.NewTextHandler(&logged, nil))}).warn("odd answer", slog.String("language", "python"))
	if raw.String() != "nexus: odd answer\n" {
		t.Errorf("raw: %q", raw.String())
	}
	if !strings.Contains(logged.String(), "level=WARN msg=\"odd answer\" language=python\n") {
		t.Errorf("logged: %q", logged.String())
	}
}
