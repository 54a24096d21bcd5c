package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/nexus-run/nexus/internal/nexus/guard"
	"github.com/nexus-run/nexus/internal/nexus/health"
	"github.com/nexus-run/nexus/internal/nexus/mcp"
	"github.com/nexus-run/nexus/internal/nexus/metrics"
	"github.com/nexus-run/nexus/internal/nexus/observe"
	"github.com/nexus-run/nexus/internal/nexus/pool"
	"github.com/nexus-run/nexus/internal/nexus/program"
	"github.com/nexus-run/nexus/internal/nexus/status"
	"github.com/nexus-run/nexus/internal/nexus/tool"
	"github.com/nexus-run/nexus/manifest"
)

// httpOnlyFlags make sense only when serving over HTTP. (NEXUS_MCP_TOKEN
// may be set for every server a user runs, stdio ones too.)
var httpOnlyFlags = []string{"http-host", "drain", "auth-token", "auth-file", "audit-log", "allow-no-auth", "session-idle", "session-unused",
	"max-sessions", "max-client-sessions", "max-body", "max-conns", "cors-origin"}

// corsEnv holds CORS origins, comma-separated, when --cors-origin is not
// given. Read by hand, like tokenEnv, so that a variable set for every
// server a user runs does not trouble a stdio one.
const corsEnv = "NEXUS_CORS_ORIGINS"

// corsOrigins are the origins of --cors-origin, or else of
// NEXUS_CORS_ORIGINS; each must be an origin (guard.CheckOrigin).
func corsOrigins(c *cli.Context) ([]string, error) {
	origins := c.StringSlice("cors-origin")
	if !c.IsSet("cors-origin") {
		origins = nil
		for _, o := range strings.Split(os.Getenv(corsEnv), ",") {
			if o = strings.TrimSpace(o); o != "" {
				origins = append(origins, o)
			}
		}
	}
	for _, o := range origins {
		if _, err := guard.CheckOrigin(o); err != nil {
			return nil, usageError{err}
		}
	}
	return origins, nil
}

// tokenEnv holds the token when --auth-token is not given. Read by hand,
// not as the flag's EnvVars, so that an empty variable means no token
// (how a user unsets it) while an empty --auth-token is a mistake.
const tokenEnv = "NEXUS_MCP_TOKEN"

// authToken is the token HTTP requests need, "" for none. A token given
// but blank, or too short, is refused (guard.CheckToken): the server
// would start and nobody could authenticate, or anybody could guess.
func authToken(c *cli.Context) (string, error) {
	token, set := c.String("auth-token"), c.IsSet("auth-token")
	if !set {
		token = os.Getenv(tokenEnv)
		set = token != ""
	}
	if !set {
		return "", nil
	}
	if err := guard.CheckToken(token); err != nil {
		return "", usageError{err}
	}
	return token, nil
}

// access is who may call a server over HTTP and where their calls are
// recorded: the one token, or the credentials of --auth-file, and the
// audit log.
type access struct {
	token string
	creds *guard.CredentialStore
	audit *guard.Audit // nil: no audit log
	close func()       // closes the audit log's file
}

// httpStart is what both HTTP servers do first: read who may call them
// (httpAccess), then start tracing, which end flushes.
func httpStart(c *cli.Context) (acc *access, end func(), err error) {
	if acc, err = httpAccess(c); err != nil {
		return nil, nil, err
	}
	if end, err = startTracing(); err != nil {
		acc.close()
		return nil, nil, err
	}
	return acc, end, nil
}

// httpAccess reads --auth-token (or NEXUS_MCP_TOKEN), --auth-file and
// --audit-log. The audit log is written when there is a credentials file
// (to stderr unless --audit-log names a file) or --audit-log asks for it.
func httpAccess(c *cli.Context) (*access, error) {
	a := &access{close: func() {}}
	file := c.String("auth-file")
	if c.IsSet("auth-token") && c.IsSet("auth-file") {
		return nil, usageError{errors.New("--auth-token and --auth-file exclude each other: put the token in the file as one credential")}
	}
	if file == "" {
		token, err := authToken(c)
		if err != nil {
			return nil, err
		}
		a.token = token
	} else {
		creds, err := guard.OpenCredentials(file)
		if err != nil {
			return nil, usageError{err}
		}
		a.creds = creds
	}
	switch logFile := c.String("audit-log"); {
	case logFile != "":
		f, err := os.OpenFile(logFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, usageError{fmt.Errorf("--audit-log: %w", err)}
		}
		a.audit, a.close = guard.NewAudit(f), func() { f.Close() }
	case a.creds != nil:
		a.audit = guard.NewAudit(os.Stderr)
	}
	return a, nil
}

// reloadOnHangup re-reads the credentials file at each SIGHUP until ctx
// ends. Requests authenticate against the credentials of the moment they
// arrive, so calls in flight finish; a file that no longer parses leaves
// the credentials in force as they were.
func (a *access) reloadOnHangup(ctx context.Context) {
	if a.creds == nil {
		return
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		defer signal.Stop(hup)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				cs, err := a.creds.Reload()
				if err != nil {
					oplog.Warn("SIGHUP: keeping the credentials in force", "error", err.Error())
					continue
				}
				oplog.Info("SIGHUP: credentials reloaded", "credentials", cs.Len())
			}
		}
	}()
}

// serverFlags are the flags of every server: nexus mcp and nexus serve.
func serverFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "http-host", Value: "127.0.0.1", Usage: "the address to listen on (`HOST`); beyond loopback it needs a token or --allow-no-auth"},
		&cli.StringFlag{Name: "auth-token", Usage: "require `TOKEN` (at least 16 characters) as Authorization: Bearer (or X-API-Key) on every HTTP request [$" + tokenEnv + "]"},
		&cli.StringFlag{Name: "auth-file", Usage: "require one of the credentials in `FILE` (JSON, see docs/mcp.md) as Authorization: Bearer or X-API-Key; SIGHUP re-reads it"},
		&cli.StringFlag{Name: "audit-log", Usage: "append a JSON line for every tool call to `FILE` (with --auth-file, stderr by default)"},
		&cli.BoolFlag{Name: "allow-no-auth", Usage: "allow a non-loopback --http-host without a token"},
		&cli.StringSliceFlag{Name: "cors-origin", Usage: "let pages of the browser origin `ORIGIN` (scheme://host[:port]) call the server: preflights answered, Access-Control-Allow-Origin sent; repeatable [$" + corsEnv + ", comma-separated]"},
		&cli.StringFlag{Name: "socket", Usage: "also serve on a unix socket at `PATH` (mode 0600; a stale socket there is replaced, removed at exit); alone, instead of --http-port"},
		&cli.DurationFlag{Name: "session-idle", Value: mcp.DefaultSessionIdle, Usage: "end an MCP session after `DURATION` without a request"},
		&cli.DurationFlag{Name: "session-unused", Value: mcp.DefaultSessionUnused, Usage: "end an MCP session after `DURATION` when it made no request after initialize"},
		&cli.IntFlag{Name: "max-sessions", Value: mcp.DefaultMaxSessions, Usage: "at most `N` MCP sessions at once"},
		&cli.IntFlag{Name: "max-client-sessions", Value: mcp.DefaultMaxClientSessions, Usage: "at most `N` MCP sessions for one client (the token, or the address without one)"},
		&cli.Int64Flag{Name: "max-body", Value: guard.DefaultMaxBody, Usage: "refuse request bodies over `BYTES`"},
		&cli.IntFlag{Name: "max-conns", Value: guard.DefaultMaxConns, Usage: "at most `N` HTTP connections open at once; more are answered 503"},
		&cli.DurationFlag{Name: "timeout", Value: tool.DefaultCallTimeout, Usage: "bound on each tool call (`DURATION`, e.g. 30s or 2h; 0 for none)"},
		&cli.IntFlag{Name: "pool-calls", Value: pool.DefaultMaxCalls, Usage: "at most `N` calls in flight in each pool; more wait"},
	}, logFlags()...)
}

// serverGC is the garbage collector's target for servers (GOGC), unless
// the user set GOGC: a server's live heap is a few megabytes, so at Go's
// default of 100 a call carrying a large array (100,000 numbers is 2 MB of
// JSON, and as much again decoded and encoded) runs several collections;
// at 200 it runs half as many, for a few megabytes more of memory.
const serverGC = 200

// tuneGC applies serverGC.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serverGC)
	}
}

func callOptions(c *cli.Context) tool.Options {
	timeout := c.Duration("timeout")
	if timeout == 0 {
		timeout = -1 // none
	}
	return tool.Options{CallTimeout: timeout}
}

func poolOptions(c *cli.Context) pool.Options {
	// --recovery-window is nexus serve's alone; elsewhere it reads 0,
	// the default.
	return pool.Options{Stderr: os.Stderr, Log: oplog, MaxCalls: c.Int("pool-calls"), RecoveryWindow: c.Duration("recovery-window"),
		Events: logPoolEvent}
}

func httpOptions(c *cli.Context) mcp.HTTPOptions {
	return mcp.HTTPOptions{
		SessionIdle:       c.Duration("session-idle"),
		SessionUnused:     c.Duration("session-unused"),
		MaxSessions:       c.Int("max-sessions"),
		MaxClientSessions: c.Int("max-client-sessions"),
	}
}

// serveProgramHTTP serves one program's tools over Streamable HTTP at /mcp.
func serveProgramHTTP(c *cli.Context, m *manifest.Manifest) error {
	acc, endTracing, err := httpStart(c)
	if err != nil {
		return err
	}
	defer endTracing()
	hub, popts := newHub(c), poolOptions(c)
	met := newMetrics(hub, &popts, observe.HTTP)
	prog := program.New(m, popts)
	srv := newServer(prog, callOptions(c), acc.audit, hub, observe.HTTP, oplog)
	h := mcp.NewHTTPHandler(srv, httpOptions(c))
	serveProgram(met, m.Name, srv)
	met.Sessions(h.Sessions)
	hh := health.New([]health.Program{{Module: m.Name, Pools: prog.Pools}}, h.Sessions)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hh.Mount(mux)
	status.New([]status.Program{{Module: m.Name, Description: strings.Join(m.Doc, "\n"), Tools: srv.Tools(), Pools: prog.Pools}}, hub).Mount(mux)
	mux.Handle(metrics.Path, met.Handler())
	mux.Handle("/", guard.NotFound("/mcp, GET "+health.Path+", GET "+metrics.Path+" and the status page at GET /"))
	closeAll := func() {
		h.Close()
		prog.Close()
	}
	ctx, stop := onSignals(closeAll)
	defer stop()
	prog.StartPools(ctx, oplog)
	return serveHTTP(ctx, c, acc, mux, met, hh, "MCP at /mcp", closeAll)
}

// serveHTTP serves h behind the guard, its requests counted in met, on --http-host:--http-port (when
// --http-port is given) and on the unix socket --socket (when given) until
// ctx ends (a signal), then shuts down gracefully: when anyone has asked
// for GET /health (hh), it reports draining there for --drain while still
// serving, so that a load balancer takes it out; then it stops accepting,
// lets the requests in flight finish for up to --shutdown-grace, cancels
// those still running, and calls stop (which ends sessions and stops
// pools). The socket is removed at the end.
func serveHTTP(ctx context.Context, c *cli.Context, acc *access, h http.Handler, met *metrics.Metrics, hh *health.Handler, what string, stop func()) error {
	defer acc.close()
	cors, err := corsOrigins(c)
	if err != nil {
		stop()
		return err
	}
	addr := net.JoinHostPort(c.String("http-host"), strconv.Itoa(c.Int("http-port")))
	newPolicy := func(addr string, unix bool) (*guard.Policy, error) {
		return guard.New(guard.Options{
			Addr:        addr,
			Unix:        unix,
			Token:       acc.token,
			Credentials: acc.creds,
			AllowNoAuth: c.Bool("allow-no-auth"),
			MaxBody:     c.Int64("max-body"),
			Open:        []string{health.Path},
			CORSOrigins: cors,
		})
	}
	type listener struct {
		ln     net.Listener
		policy *guard.Policy
		where  slog.Attr // for the line saying where it listens: url or socket
	}
	var lns []listener
	closeAll := func() {
		for _, l := range lns {
			l.ln.Close()
		}
	}
	tcp, socket := c.IsSet("http-port"), c.String("socket")
	if tcp {
		// Refused before listening at all: an address beyond loopback
		// without a token.
		if _, err := newPolicy(addr, false); err != nil {
			stop()
			return usageError{err}
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			stop()
			return fmt.Errorf("listen on %s: %w", addr, err)
		}
		// The port is known only now when 0 asked for a free one.
		policy, err := newPolicy(ln.Addr().String(), false)
		if err != nil {
			ln.Close()
			stop()
			return err
		}
		// Shown as asked (0.0.0.0, not the [::] Go listens on), with the
		// port that 0 picked.
		_, port, _ := net.SplitHostPort(ln.Addr().String())
		lns = append(lns, listener{ln, policy, slog.String("url", "http://"+net.JoinHostPort(c.String("http-host"), port))})
	}
	if socket != "" {
		policy, err := newPolicy("", true)
		if err != nil {
			closeAll()
			stop()
			return usageError{err}
		}
		ln, err := listenUnix(socket)
		if err != nil {
			closeAll()
			stop()
			return err
		}
		defer removeSocket(socket, ln)
		lns = append(lns, listener{ln, policy, slog.String("socket", socket)})
	}
	callTimeout := c.Duration("timeout")
	const headerTimeout = 10 * time.Second
	// Every request's context ends when the grace is over.
	requests, cancelRequests := context.WithCancel(context.Background())
	defer cancelRequests()
	served := make(chan error, len(lns))
	var srvs []*http.Server
	for _, l := range lns {
		srv := &http.Server{
			Handler:     met.CountHTTP(l.policy.Wrap(h)),
			BaseContext: func(net.Listener) context.Context { return requests },
			// Slow clients must not hold connections: headers come
			// quickly, and a body at the guard's pace (its deadlines
			// grow as it comes), or not at all.
			ReadHeaderTimeout: headerTimeout,
			ReadTimeout:       headerTimeout + l.policy.BodyTimeout(),
			IdleTimeout:       2 * time.Minute,
		}
		if callTimeout > 0 {
			// A reply may take as long as a call may run.
			srv.WriteTimeout = callTimeout + time.Minute
		}
		srvs = append(srvs, srv)
		oplog.LogAttrs(context.Background(), slog.LevelInfo, "serving", slog.String("serves", what), l.where)
	}
	grace := c.Duration("shutdown-grace")
	acc.reloadOnHangup(ctx)
	for i, srv := range srvs {
		ln := guard.LimitListener(lns[i].ln, c.Int("max-conns"))
		go func() { served <- srv.Serve(ln) }()
	}
	select {
	case err = <-served:
		for _, srv := range srvs {
			srv.Close()
		}
	case <-ctx.Done():
		if err = drain(hh, c.Duration("drain"), served); err == nil {
			sayFinishing(ctx, grace) // after the drain's own line, when the grace begins
			err = drainHTTP(srvs, grace, cancelRequests)
		}
	}
	stop()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// listenUnix listens on a unix socket at path, readable and writable by
// the user alone: it is made with mode 0600 in a private folder beside
// path, then moved to path, so that it is never open to others, not even
// for a moment. A socket already at path is replaced when no server
// answers on it (one left by a server that was killed); one that answers
// is refused, and so is any other kind of file.
func listenUnix(path string) (*net.UnixListener, error) {
	// A path longer than a socket address holds could still be bound
	// through the private folder below (when that path is short enough),
	// but no client could connect to it, and no later server could see
	// that this one answers there: refuse it.
	if len(path) > maxSocketPath {
		return nil, usageError{fmt.Errorf("--socket %s: the path is %d bytes, and a unix socket's may have at most %d; use a shorter one", path, len(path), maxSocketPath)}
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return nil, usageError{fmt.Errorf("--socket %s: there is no folder %s to make it in", path, filepath.Dir(path))}
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, usageError{fmt.Errorf("--socket %s: a file that is not a socket is there; not replacing it", path)}
		}
		conn, err := net.DialTimeout("unix", path, time.Second)
		if err == nil {
			conn.Close()
			return nil, usageError{fmt.Errorf("--socket %s: a server is listening on it already", path)}
		}
		// Only a refused connection says nobody listens there; any other
		// failure (another user's socket, a full backlog) is no proof,
		// and removing a live server's socket would cut it off.
		if !refused(err) {
			return nil, usageError{fmt.Errorf("--socket %s: a socket is there, and whether a server answers on it is unknown (%v); not replacing it", path, err)}
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("--socket %s: remove the stale socket: %w", path, err)
		}
	}
	dir, err := os.MkdirTemp(filepath.Dir(path), ".nexus-sock-")
	if err != nil {
		return nil, fmt.Errorf("--socket %s: %w", path, err)
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "s")
	if len(tmp) > maxSocketPath {
		return nil, usageError{fmt.Errorf("--socket %s: the socket is made first in a private folder beside it, as %s, which is %d bytes, and a unix socket's path may have at most %d; use a shorter path", path, tmp, len(tmp), maxSocketPath)}
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: tmp, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("--socket %s: %w", path, err)
	}
	// The socket's file is moved, so the listener must not remove the
	// old name on close: removeSocket removes the new one.
	ln.SetUnlinkOnClose(false)
	if err := os.Chmod(tmp, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("--socket %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		ln.Close()
		return nil, fmt.Errorf("--socket %s: %w", path, err)
	}
	return ln, nil
}

// refused says a connection was refused: nobody listens. Windows says so
// with WSAECONNREFUSED (10061), which is not its syscall.ECONNREFUSED.
func refused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.Errno(10061))
}

// maxSocketPath is the longest path a unix socket address holds, less
// the final NUL that C clients (curl, Morloc's) write.
var maxSocketPath = len(syscall.RawSockaddrUnix{}.Path) - 1

// removeSocket closes ln and removes its socket at path, if that is
// still a socket.
func removeSocket(path string, ln net.Listener) {
	ln.Close()
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSocket != 0 {
		os.Remove(path)
	}
}

// drain reports draining on hh for d, serving all the while, when anyone
// has asked hh for a report: that is the load balancer or orchestrator
// that must take this server out before it stops accepting connections. A
// server nobody health-checks stops at once. It returns early with the
// error of served, should the server fail meanwhile.
func drain(hh *health.Handler, d time.Duration, served <-chan error) error {
	if d == 0 || !hh.Checked() {
		return nil
	}
	hh.Drain()
	oplog.Info("stopping: GET "+health.Path+" reports draining before the server stops accepting", "drain", d.String())
	select {
	case err := <-served:
		return err
	case <-time.After(d):
		return nil
	}
}

// drainHTTP stops srvs: no new connections, the requests in flight get
// grace to finish, then cancel ends those still running and their
// connections are closed.
func drainHTTP(srvs []*http.Server, grace time.Duration, cancel func()) error {
	sctx, done := context.WithTimeout(context.Background(), grace)
	defer done()
	errs := make([]error, len(srvs))
	var wg sync.WaitGroup
	for i, srv := range srvs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = srv.Shutdown(sctx)
		}()
	}
	wg.Wait()
	err := errors.Join(errs...)
	if errors.Is(err, context.DeadlineExceeded) {
		oplog.Warn("stopping: cancelling the calls still running", "grace", grace.String())
		cancel()
		for i, srv := range srvs {
			errs[i] = srv.Close()
		}
		err = errors.Join(errs...)
	}
	return err
}

// boundFlags are the servers' numeric flags, whose zero means something
// (none, at once, the default) but whose negative value means nothing.
var boundFlags = []string{
	"timeout", "recovery-window", "pool-calls", "shutdown-grace", "drain", "max-line", "max-backlog",
	"session-idle", "session-unused", "max-sessions", "max-client-sessions", "max-body", "max-conns",
}

// checkBounds refuses a negative value of a boundFlags flag given to the
// command of c, rather than reading it as the default.
func checkBounds(c *cli.Context) error {
	for _, name := range boundFlags {
		if !c.IsSet(name) {
			continue
		}
		var negative bool
		switch v := c.Value(name).(type) {
		case int:
			negative = v < 0
		case int64:
			negative = v < 0
		case time.Duration:
			negative = v < 0
		}
		if negative {
			return usageError{fmt.Errorf("--%s must not be negative (got %v)", name, c.Value(name))}
		}
	}
	return nil
}
