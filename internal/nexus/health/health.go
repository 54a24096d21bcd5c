// Package health answers GET /health for nexus's HTTP servers (nexus mcp
// --http-port and nexus serve): the state of each program's pools, and,
// once the server is stopping, that it drains, so that a load balancer or
// an orchestrator takes the replica out of rotation before it stops
// accepting connections.
//
// The report says nothing secret: a request without a credential (a
// health check has none) gets the status alone; one that passed the
// server's credentials gets the pools and sessions as well.
package health

import (
	"encoding/json"
	"net/http"
	"sync/atomic"

	"github.com/nexus-run/nexus/internal/nexus/guard"
	"github.com/nexus-run/nexus/internal/nexus/pool"
)

// Path is where the report is served.
const Path = "/health"

// The statuses a report gives.
const (
	StatusOK       = "ok"       // 200: serving
	StatusDegraded = "degraded" // 200: serving, but a pool is held after dying too often
	StatusDraining = "draining" // 503: stopping; still serving, soon no longer accepting
)

// Program is one program the report covers.
type Program struct {
	Module string
	Pools  *pool.Supervisor
}

// Handler answers GET /health. Drain may be called concurrently with
// ServeHTTP.
type Handler struct {
	programs []Program
	sessions func() int
	draining atomic.Bool
	checked  atomic.Bool
}

// New returns the handler reporting on programs; sessions counts the MCP
// sessions open.
func New(programs []Program, sessions func() int) *Handler {
	return &Handler{programs: programs, sessions: sessions}
}

// Mount serves h on mux at GET Path (HEAD too), and answers the other
// methods there with 405 in JSON.
func (h *Handler) Mount(mux *http.ServeMux) {
	mux.Handle("GET "+Path, h)
	mux.Handle(Path, guard.MethodNotAllowed("", http.MethodGet, http.MethodHead))
}

// Drain makes every report from now on say StatusDraining, with 503.
func (h *Handler) Drain() { h.draining.Store(true) }

// Draining reports whether Drain was called.
func (h *Handler) Draining() bool { return h.draining.Load() }

// Checked reports whether anyone asked for a report yet: a server that
// nobody health-checks has nobody to tell that it drains.
func (h *Handler) Checked() bool { return h.checked.Load() }

type program struct {
	Module string        `json:"module"`
	Pools  []pool.Status `json:"pools"`
}

type report struct {
	Status   string    `json:"status"`
	Sessions *int      `json:"mcp_sessions,omitempty"`
	Programs []program `json:"programs,omitempty"`
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.checked.Store(true)
	out := report{Status: StatusOK}
	programs := make([]program, 0, len(h.programs))
	for _, p := range h.programs {
		st := p.Pools.Status()
		for _, s := range st {
			if s.State == "held" {
				out.Status = StatusDegraded
			}
		}
		programs = append(programs, program{Module: p.Module, Pools: st})
	}
	if !guard.Anonymous(r.Context()) {
		n := h.sessions()
		out.Sessions, out.Programs = &n, programs
	}
	code := http.StatusOK
	if h.Draining() {
		out.Status, code = StatusDraining, http.StatusServiceUnavailable
	}
	body, err := json.Marshal(out)
	if err != nil {
		guard.Error(w, http.StatusInternalServerError, "encode the health report: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(append(body, '\n'))
}
