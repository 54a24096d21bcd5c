package guard

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path"
	"strings"
	"sync/atomic"
)

// A credentials file (--auth-file) names each client and says what it may
// do. It is JSON:
//
//	{"credentials": [
//	  {"name": "ci", "secret": "sha256:9f86d0...", "call": ["seq__*"]},
//	  {"name": "viewer", "secret": "0123456789abcdef", "list": true}
//	]}
//
// secret is the secret itself (the rules of CheckToken) or "sha256:" and
// its SHA-256 in hex. call holds path.Match patterns of the tool names a
// client sees (under nexus serve <module>__<command>, so "seq__*" is every
// command of seq). list alone lets a credential list every tool and call
// none. metrics lets it read GET /metrics (a Prometheus scraper's
// credential needs nothing else). Unknown fields are refused: a misspelt permission must not grant
// or withhold silently.

// sha256Prefix marks a secret given as its SHA-256.
const sha256Prefix = "sha256:"

// Credential is one entry of a credentials file: who a client is and what
// it may do. Its zero value may do nothing.
type Credential struct {
	// Name says who the client is, in the audit log and in errors; never
	// the secret.
	Name    string
	sum     [sha256.Size]byte
	list    bool
	call    []string
	metrics bool
}

// String is c's name, "" for a nil c (no credentials file).
func (c *Credential) String() string {
	if c == nil {
		return ""
	}
	return c.Name
}

// ListOnly reports whether c may list the tools but call none: it is shown
// every tool.
func (c *Credential) ListOnly() bool { return c.list && len(c.call) == 0 }

// MayCall reports whether c may call the tool named name.
func (c *Credential) MayCall(name string) bool {
	for _, p := range c.call {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// MayReadMetrics reports whether c may read GET /metrics.
func (c *Credential) MayReadMetrics() bool { return c.metrics }

// DeniedMetrics is why c may not read GET /metrics, fit to show the
// client.
func (c *Credential) DeniedMetrics() string {
	return fmt.Sprintf("permission denied: credential %q may not read the metrics (it has no \"metrics\" permission)", c.Name)
}

// Denied is why c may not call the tool named name, fit to show the
// client: which permission it lacks.
func (c *Credential) Denied(name string) string {
	if len(c.call) == 0 {
		return fmt.Sprintf("permission denied: credential %q may list tools but not call them (it has no \"call\" permission)", c.Name)
	}
	return fmt.Sprintf("permission denied: credential %q may not call %s (its \"call\" permission covers %s)",
		c.Name, name, strings.Join(c.call, ", "))
}

// Credentials is a parsed credentials file.
type Credentials struct {
	list []*Credential
}

// Len is the number of credentials.
func (cs *Credentials) Len() int { return len(cs.list) }

// find returns the credential whose secret is secret, or nil. Every entry
// is compared, in constant time, so that the time taken says nothing about
// which entry, or how much of one, matched.
func (cs *Credentials) find(secret string) *Credential {
	sum := sha256.Sum256([]byte(secret))
	var found *Credential
	for _, c := range cs.list {
		if subtle.ConstantTimeCompare(sum[:], c.sum[:]) == 1 {
			found = c
		}
	}
	return found
}

// credentialEntry is an entry as the file writes it.
type credentialEntry struct {
	Name    string   `json:"name"`
	Secret  string   `json:"secret"`
	List    bool     `json:"list"`
	Call    []string `json:"call"`
	Metrics bool     `json:"metrics"`
}

// LoadCredentials reads and checks the credentials file at file.
func LoadCredentials(file string) (*Credentials, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("credentials file: %w", err)
	}
	cs, err := ParseCredentials(data)
	if err != nil {
		return nil, fmt.Errorf("credentials file %s: %w", file, err)
	}
	return cs, nil
}

// ParseCredentials parses and checks a credentials file's content. Its
// errors name the entry and the field, never a secret.
func ParseCredentials(data []byte) (*Credentials, error) {
	var doc struct {
		Credentials []credentialEntry `json:"credentials"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not a credentials file (JSON {\"credentials\": [...]}): %w", err)
	}
	if dec.More() {
		return nil, errors.New("not a credentials file: more than one JSON value")
	}
	if len(doc.Credentials) == 0 {
		return nil, errors.New(`"credentials" is empty: nobody could authenticate`)
	}
	cs := &Credentials{}
	names := map[string]bool{}
	sums := map[[sha256.Size]byte]string{}
	for i, e := range doc.Credentials {
		c, err := e.check()
		if err != nil {
			return nil, fmt.Errorf("credential %d (%q): %w", i+1, e.Name, err)
		}
		if names[c.Name] {
			return nil, fmt.Errorf("credential %d: the name %q is used twice; a name must say who called", i+1, c.Name)
		}
		if other, ok := sums[c.sum]; ok {
			return nil, fmt.Errorf("credential %d (%q): secret: the same secret as %q; each client needs its own", i+1, c.Name, other)
		}
		names[c.Name] = true
		sums[c.sum] = c.Name
		cs.list = append(cs.list, c)
	}
	return cs, nil
}

func (e credentialEntry) check() (*Credential, error) {
	c := &Credential{Name: e.Name, list: e.List, call: e.Call, metrics: e.Metrics}
	if strings.TrimSpace(e.Name) == "" {
		return nil, errors.New("name: missing or blank")
	}
	if hexSum, ok := strings.CutPrefix(e.Secret, sha256Prefix); ok {
		b, err := hex.DecodeString(hexSum)
		if err != nil || len(b) != sha256.Size {
			return nil, errors.New("secret: after sha256: must come 64 hex digits (sha256sum prints them)")
		}
		copy(c.sum[:], b)
	} else {
		if err := checkSecret(e.Secret, "secret"); err != nil {
			return nil, err
		}
		c.sum = sha256.Sum256([]byte(e.Secret))
	}
	for _, p := range e.Call {
		if _, err := path.Match(p, ""); err != nil || p == "" {
			return nil, fmt.Errorf("call: %q is not a pattern of tool names (path.Match: *, ?, [a-z])", p)
		}
	}
	if !e.List && len(e.Call) == 0 && !e.Metrics {
		return nil, errors.New(`grants nothing: give "list": true, "call": [patterns], "metrics": true, or several`)
	}
	return c, nil
}

// CredentialStore holds the credentials in force, replaced whole by
// Reload while requests read them: a request authenticates against the
// set of the moment it arrives, so a call in flight is not cut short by a
// reload. Its methods are safe for concurrent use.
type CredentialStore struct {
	file string
	cur  atomic.Pointer[Credentials]
}

// OpenCredentials loads the credentials file at file.
func OpenCredentials(file string) (*CredentialStore, error) {
	cs, err := LoadCredentials(file)
	if err != nil {
		return nil, err
	}
	s := &CredentialStore{file: file}
	s.cur.Store(cs)
	return s, nil
}

// Reload reads the file again. When it no longer parses, the credentials
// in force stay, and the error says why.
func (s *CredentialStore) Reload() (*Credentials, error) {
	cs, err := LoadCredentials(s.file)
	if err != nil {
		return nil, err
	}
	s.cur.Store(cs)
	return cs, nil
}

// authenticate returns the credential r presents, as Authorization:
// Bearer or X-API-Key, or nil.
func (s *CredentialStore) authenticate(r *http.Request) *Credential {
	secret, ok := presented(r)
	if !ok {
		return nil
	}
	return s.cur.Load().find(secret)
}

// presented is the secret r presents, as Authorization: Bearer or as
// X-API-Key. A request presenting two different secrets (two headers, or
// one header twice) presents none: which one it meant is not for the
// server to guess, and a proxy might have checked the other.
func presented(r *http.Request) (string, bool) {
	var secret string
	for _, v := range r.Header.Values("Authorization") {
		if scheme, token, ok := strings.Cut(v, " "); ok && strings.EqualFold(scheme, "Bearer") {
			if t := strings.TrimSpace(token); t != secret {
				if secret != "" {
					return "", false
				}
				secret = t
			}
		}
	}
	for _, v := range r.Header.Values("X-API-Key") {
		if key := strings.TrimSpace(v); key != "" && key != secret {
			if secret != "" {
				return "", false
			}
			secret = key
		}
	}
	return secret, secret != ""
}

// credentialKey is the context key of the Credential of a request.
type credentialKey struct{}

// CredentialOf returns the credential a request (its context, after Wrap)
// authenticated with, or nil when the server has no credentials file.
func CredentialOf(ctx context.Context) *Credential {
	c, _ := ctx.Value(credentialKey{}).(*Credential)
	return c
}
