package main

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/nexus-run/nexus/internal/nexus/observe"
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
		{"default", nil, nil, []string{`level=INFO msg="an info line"`, "msg=call program=demo tool=greet transport=stdio duration_ms=0 outcome=ok\n"}, []string{"debug", "{"}},
		{"json", nil, []string{"--log-format", "json"}, []string{`"msg":"an info line"`, `"msg":"call","program":"demo"`}, []string{"msg="}},
		{"json from env", map[string]string{"NEXUS_LOG_FORMAT": "json"}, nil, []string{`"msg":"an info line"`}, []string{"msg="}},
		{"the flag over env", map[string]string{"NEXUS_LOG_FORMAT": "json"}, []string{"--log-format", "text"}, []string{"msg=call"}, []string{"{"}},
		{"debug", nil, []string{"--log-level", "debug"}, []string{`msg="a debug line"`, "msg=call"}, nil},
		{"warn from env", map[string]string{"NEXUS_LOG_LEVEL": "warn"}, nil, nil, []string{"info line", "msg=call"}},
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
