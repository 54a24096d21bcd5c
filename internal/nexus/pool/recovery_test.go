package pool_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/pooltest"
	"github.com/nexus-run/nexus/manifest/types"
)

// TestRecoveryWindow: after a pool died, a call marked with
// RefuseWhileRecovering is refused at once with a Retry-After while the
// replacement starts (the first such call starts it); once the
// replacement runs, marked calls run again. Unmarked calls wait for the
// restart as always.
func TestRecoveryWindow(t *testing.T) {
	m := program(t, `
import os, signal

def die(x):
    os.kill(os.getpid(), signal.SIGKILL)

def pid(x):
    return os.getpid()
`,
		fn{Source: "die", Args: []*types.Type{types.IntType}, Return: types.IntType},
		fn{Source: "pid", Args: []*types.Type{types.IntType}, Return: types.IntType})
	s, _ := pooltest.Supervise(t, m, pool.Options{RecoveryWindow: time.Hour})
	marked := pool.RefuseWhileRecovering(context.Background())
	call := func(ctx context.Context, id int) (any, error) {
		f := &m.Functions[id]
		data, err := types.EncodeArgs(f.Args, []any{int64(0)})
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Call(ctx, f, data)
		if err != nil {
			return nil, err
		}
		return types.DecodeMsgpackBytes(f.Return, res)
	}
	// A pool never started has no window: the marked call waits for it.
	before, err := call(marked, 1)
	if err != nil {
		t.Fatalf("first call: %v", err)
	}
	var died *pool.DiedError
	if _, err := call(marked, 0); !errors.As(err, &died) {
		t.Fatalf("die: %v, want a DiedError", err)
	}
	var down *pool.UnavailableError
	_, err = call(marked, 1)
	if !errors.As(err, &down) || !down.Recovering || down.RetryAfter < time.Second {
		t.Fatalf("marked call after the death: %v, want a refusal while recovering with a Retry-After of a second or more", err)
	}
	t.Log(err)
	// The refused call started the replacement; marked calls run once it
	// does (bounded: the replacement starts within the start timeout).
	deadline := time.Now().Add(2 * time.Minute)
	for {
		after, err := call(marked, 1)
		if err == nil {
			if after == before {
				t.Errorf("not restarted: pid %v both times", after)
			}
			break
		}
		if !errors.As(err, &down) || !down.Recovering {
			t.Fatalf("marked call while recovering: %v", err)
		}
		if time.Now().After(deadline) {
			t.Fatal("the replacement never ran")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Unmarked calls wait for the restart.
	if _, err := call(marked, 0); !errors.As(err, &died) {
		t.Fatalf("die: %v, want a DiedError", err)
	}
	if _, err := call(context.Background(), 1); err != nil {
		t.Fatalf("unmarked call after the death: %v, want it to wait for the restart", err)
	}
}
