package main

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/nexus-run/nexus/internal/nexus/observe"
	"github.com/nexus-run/nexus/internal/nexus/pool"
)

// logWith runs a command with the log flags and args, env set, and
// returns what the log got: an info line, and a call's line.
func logWith(t *testing.T, env map[string]string, args ...string) (string, error) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	saved := oplog
	t.Cleanup(func() { oplog = saved })
	var b bytes.Buffer
	app := &cli.App{Name: "nexus", Commands: []*cli.Command{{Name: "serve", Flags: logFlags(), Action: func(c *cli.Context) error {
		if err := setupLog(c, &b); err != nil {
			return err
		}
		oplog.Debug("a debug line")
		oplog.Info("an info line")
		newHub(c).Done(observe.Call{Program: "demo", Tool: "greet", Transport: observe.Stdio, Outcome: observe.OK})
		return nil
	}}}}
	err := app.Run(append([]string{"nexus", "serve"}, args...))
	return b.String(), err
}

func TestLogFlags(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
		// wanted in the output, and not
		has, hasNot []string
	}{
		{"default", nil, nil, []string{`level=INFO msg="an info line"`}, []string{"debug", "{", "msg=call"}},
		{"calls on", nil, []string{"--log-calls"}, []string{`level=INFO msg="an info line"`, "msg=call program=demo tool=greet transport=stdio duration_ms=0 outcome=ok\n"}, []string{"debug", "{"}},
		{"calls on from env", map[string]string{"NEXUS_LOG_CALLS": "true"}, nil, []string{"msg=call program=demo"}, nil},
		{"json", nil, []string{"--log-format", "json", "--log-calls"}, []string{`"msg":"an info line"`, `"msg":"call","program":"demo"`}, []string{"msg="}},
		{"json from env", map[string]string{"NEXUS_LOG_FORMAT": "json"}, nil, []string{`"msg":"an info line"`}, []string{"msg="}},
		{"the flag over env", map[string]string{"NEXUS_LOG_FORMAT": "json"}, []string{"--log-format", "text", "--log-calls"}, []string{"msg=call"}, []string{"{"}},
		{"debug", nil, []string{"--log-level", "debug", "--log-calls"}, []string{`msg="a debug line"`, "msg=call"}, nil},
		{"warn from env", map[string]string{"NEXUS_LOG_LEVEL": "warn"}, []string{"--log-calls"}, nil, []string{"info line", "msg=call"}},
		{"calls off", nil, []string{"--log-calls=false"}, []string{"an info line"}, []string{"msg=call"}},
		{"calls off from env", map[string]string{"NEXUS_LOG_CALLS": "false"}, nil, []string{"an info line"}, []string{"msg=call"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := logWith(t, c.env, c.args...)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.has {
				if !strings.Contains(out, w) {
					t.Errorf("lacks %q:\n%s", w, out)
				}
			}
			for _, w := range c.hasNot {
				if strings.Contains(out, w) {
					t.Errorf("has %q:\n%s", w, out)
				}
			}
		})
	}
	for _, args := range [][]string{{"--log-format", "xml"}, {"--log-level", "loud"}} {
		_, err := logWith(t, nil, args...)
		var u usageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), args[0]) || !strings.Contains(err.Error(), args[1]) {
			t.Errorf("%v: %v, want a usage error naming the flag and value", args, err)
		}
	}
	t.Run("bad level from env", func(t *testing.T) {
		if _, err := logWith(t, map[string]string{"NEXUS_LOG_LEVEL": "loud"}); err == nil {
			t.Error("NEXUS_LOG_LEVEL=loud accepted")
		}
	})
}

// TestPlainLog: before a server sets the log up (nexus run), lines are
// the plain "nexus: ..." people read, attributes left out.
func TestPlainLog(t *testing.T) {
	var b bytes.Buffer
	l := slog.New(plainHandler{&b})
	l.Debug("hidden")
	l.With("program", "demo").Warn("stopping now: killing the pools", "grace", "2s")
	if b.String() != "nexus: stopping now: killing the pools\n" {
		t.Errorf("got %q", b.String())
	}
}

// TestPoolEventLines: a death and a replacement are warnings, a restart is
// info, a first start and a call say nothing.
func TestPoolEventLines(t *testing.T) {
	var b bytes.Buffer
	saved := oplog
	oplog = slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	defer func() { oplog = saved }()
	logPoolEvent(pool.Event{Kind: pool.Started, Program: "calc", Lang: "py"})
	logPoolEvent(pool.Event{Kind: pool.Called, Program: "calc", Lang: "py"})
	logPoolEvent(pool.Event{Kind: pool.Died, Program: "calc", Lang: "py", Err: errors.New("killed by signal SIGKILL")})
	logPoolEvent(pool.Event{Kind: pool.Started, Program: "calc", Lang: "py", Restart: true})
	logPoolEvent(pool.Event{Kind: pool.Replaced, Program: "calc", Lang: "cpp"})
	want := `level=WARN msg="pool died" program=calc language=py error="killed by signal SIGKILL"
level=INFO msg="pool restarted" program=calc language=py
level=WARN msg="pool replaced" program=calc language=cpp
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
