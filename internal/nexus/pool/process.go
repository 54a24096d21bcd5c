package pool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"

	"github.com/hashicorp/go-plugin/runner"

	"github.com/nexus-run/nexus/internal/osproc"
	"github.com/nexus-run/nexus/internal/steptrace"
)

// process is one run of a pool's program: the go-plugin runner.Runner that
// starts it, watches it and kills it. go-plugin's own runner kills only the
// pool's process and inherits the nexus's stdin; this one puts the pool in
// a process group of its own (so Ctrl-C at a terminal reaches only the
// nexus, and stopping a pool stops whatever it started), asks the kernel to
// kill it when the nexus dies (on Linux; see package osproc for the other
// systems), and gives it /dev/null as stdin.
//
// Its methods may be called concurrently.
type process struct {
	name string
	cmd  *exec.Cmd

	// stdout and stderr are the read ends of the pool's output pipes,
	// which go-plugin reads until the pool and everything it started have
	// closed them.
	stdout, stderr *os.File

	pid   int
	group *osproc.Group
	// launched, when set, is called once Start has launched the process
	// or failed to.
	launched func()
	done     chan struct{} // closed once the pool has exited and been reaped

	mu     sync.Mutex
	killed bool             // Kill was called: a Start after it must not launch
	state  *os.ProcessState // how the pool ended, once reaped

	// drained is closed when go-plugin calls Wait, which it does after it
	// read both pipes to their end: all the pool's output has been seen.
	drained     chan struct{}
	drainedOnce sync.Once
}

var _ runner.Runner = (*process)(nil)

// newProcess prepares argv with the environment go-plugin prepared (env).
// The working folder stays the nexus's: users' functions open files
// relative to where the program was run.
func newProcess(name string, argv []string, env []string) *process {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	return &process{
		name:    name,
		cmd:     cmd,
		done:    make(chan struct{}),
		drained: make(chan struct{}),
	}
}

// Start launches the pool, unless Kill came first.
func (p *process) Start(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.launched != nil {
		defer p.launched()
	}
	if p.killed {
		return ErrClosed
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return err
	}
	p.cmd.Stdout = outW
	p.cmd.Stderr = errW
	steptrace.Mark("pool exec")
	group, err := osproc.Start(p.cmd)
	steptrace.Mark("pool exec'd")
	// The pool holds the write ends now; ours would keep the pipes open
	// after it exits.
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return err
	}
	p.stdout, p.stderr = outR, errR
	p.pid = p.cmd.Process.Pid
	p.group = group
	go p.reap()
	return nil
}

// reap waits for the pool to exit, kills what is left of its process group
// (children it started), and records how it ended.
func (p *process) reap() {
	_ = p.group.Wait() // how it ended is in ProcessState
	p.mu.Lock()
	p.state = p.cmd.ProcessState
	p.mu.Unlock()
	close(p.done)
}

// Wait waits for the pool to end. go-plugin calls it once the pool's
// output pipes are drained.
func (p *process) Wait(ctx context.Context) error {
	p.drainedOnce.Do(func() { close(p.drained) })
	select {
	case <-p.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if !p.state.Success() {
		return errors.New(p.state.String())
	}
	return nil
}

// Kill kills the pool's whole process group at once, or keeps it from
// starting. Once the pool is reaped it does nothing.
func (p *process) Kill(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.killed = true
	if p.group != nil {
		p.group.Kill()
	}
	return nil
}

// exited reports whether the pool has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// how says how the pool ended: "exit status 3", "killed by signal SIGKILL".
// It must be called after done is closed.
func (p *process) how() string {
	return osproc.Describe(p.state)
}

// releasePipes closes our ends of the output pipes, for when something the
// pool started outlived its process group and still holds them: go-plugin's
// readers then stop instead of waiting forever.
func (p *process) releasePipes() {
	if p.stdout != nil {
		p.stdout.Close()
		p.stderr.Close()
	}
}

func (p *process) Stdout() io.ReadCloser { return p.stdout }
func (p *process) Stderr() io.ReadCloser { return p.stderr }
func (p *process) Name() string          { return p.name }

func (p *process) ID() string {
	if p.pid == 0 {
		return ""
	}
	return fmt.Sprint(p.pid)
}

func (p *process) Diagnose(context.Context) string { return "" }

// The pool runs beside the nexus, so addresses need no translation.
func (p *process) PluginToHost(network, addr string) (string, string, error) {
	return network, addr, nil
}

func (p *process) HostToPlugin(network, addr string) (string, string, error) {
	return network, addr, nil
}
