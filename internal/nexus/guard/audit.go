package guard

import (
	"encoding/json"
	"io"
	"sync"
	"time"
)

// Outcomes of a call in the audit log.
const (
	OutcomeOK      = "ok"      // the tool answered
	OutcomeIsError = "isError" // a result with isError: the tool failed, bad arguments, or a permission the credential lacks
	OutcomeError   = "error"   // a JSON-RPC error (or, in the JSON API, an error status)
)

// AuditRecord is one line of the audit log: one tool call.
type AuditRecord struct {
	Time time.Time `json:"time"`
	// Credential is the name of the credential that called, "token" for
	// without a credentials file "" (the token, if any, is not named);
	// never a secret.
	Credential string  `json:"credential"`
	Program    string  `json:"program"`
	Tool       string  `json:"tool"`
	DurationMs float64 `json:"durationMs"`
	Outcome    string  `json:"outcome"`
}

// Audit writes one JSON line per call. A nil *Audit writes nothing. Its
// methods are safe for concurrent use.
type Audit struct {
	mu sync.Mutex
	w  io.Writer
}

// NewAudit returns an audit log writing to w.
func NewAudit(w io.Writer) *Audit { return &Audit{w: w} }

// Call writes the line of a call that began at start and ended now.
func (a *Audit) Call(credential, program, tool string, start time.Time, outcome string) {
	if a == nil {
		return
	}
	rec := AuditRecord{Time: start.UTC(), Credential: credential, Program: program, Tool: tool,
		DurationMs: float64(time.Since(start).Microseconds()) / 1000, Outcome: outcome}
	line, _ := json.Marshal(rec)
	a.mu.Lock()
	defer a.mu.Unlock()
	// A log that cannot be written must not fail the call it records.
	_, _ = a.w.Write(append(line, '\n'))
}
