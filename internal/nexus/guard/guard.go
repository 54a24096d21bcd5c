// Package guard is the safety in front of nexus's HTTP endpoints, checked
// before anything else a request asks for: where the server may listen,
// DNS-rebinding protection (Host and Origin), the bearer token or the
// named credentials of a credentials file (credentials.go), the content
// type, the size and pace of a body, and the number of open
// connections (limits.go), and the browser origins allowed beside the
// server's own (CORS, cors.go). Error is the JSON body of every refusal;
// Audit (audit.go) records the calls that got through.
//
// A browser page on any site can send requests to a server on localhost;
// the Host and Origin checks stop that, and the token stops everyone else
// when the server listens beyond the loopback interface.
package guard

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// DefaultMaxBody bounds a request body when Policy leaves it zero: large
// enough for a call carrying a few million numbers as JSON, small enough
// that one request cannot exhaust memory.
const DefaultMaxBody = 64 << 20

// MinTokenLength is the fewest characters a token may have. A token is
// all that stands between the network and the program's functions, and
// anyone who can reach the server may guess at it as fast as it answers:
// 16 random characters (openssl rand -hex 16 gives 32) put guessing out
// of reach, while a blank or short one is a mistake, not a choice.
const MinTokenLength = 16

// Policy says what requests a server accepts. Build it with New.
type Policy struct {
	// addr is the address the server listens on, host and port.
	host, port string
	// anyHost is set when listening on every interface: the Host header
	// may then be any name the machine is reached by.
	anyHost bool
	// tokenSum is the SHA-256 of the token, or nil when none is needed.
	// Comparing fixed-length sums in constant time leaks neither the
	// token nor its length.
	tokenSum []byte
	// creds, when set, replaces the token: each client has its own.
	creds *CredentialStore
	// open are the paths a GET or HEAD may read without a credential.
	open    []string
	maxBody int64
	// cors are the origins of CORS (cors.go), as CheckOrigin gives them.
	cors map[string]struct{}
	// unix marks a policy for a unix socket (Options.Unix).
	unix bool
	// A body must come at bodyRate bytes a second, after bodyGrace.
	bodyGrace time.Duration
	bodyRate  int64
}

// Options configure a Policy.
type Options struct {
	// Addr is the address the server listens on ("127.0.0.1:8080").
	Addr string
	// Token, when not empty, must come with every request as
	// "Authorization: Bearer <Token>". It must pass CheckToken.
	Token string
	// Credentials, when set, are the secrets requests may present
	// instead of Token (which must then be empty), each as
	// "Authorization: Bearer <secret>" or "X-API-Key: <secret>".
	Credentials *CredentialStore
	// AllowNoAuth permits listening beyond the loopback interface without
	// a token.
	AllowNoAuth bool
	// Open lists the paths that a GET or HEAD may read without the token
	// or a credential (a load balancer's health check has none); their
	// handlers see Anonymous and must say nothing secret then. The Host
	// and Origin checks still apply.
	Open []string
	// MaxBody bounds a request body in bytes; zero means DefaultMaxBody.
	MaxBody int64
	// BodyGrace and MinBodyRate pace a request body: by any moment, all
	// but BodyGrace of the time since the handler began must have
	// brought MinBodyRate bytes a second. Zero means DefaultBodyGrace
	// and DefaultMinBodyRate.
	BodyGrace   time.Duration
	MinBodyRate int64
	// CORSOrigins are the browser origins whose pages may call the
	// server (cors.go): their requests pass the Origin check, their
	// OPTIONS preflights are answered 204 without a credential, and the
	// answers to them carry Access-Control-Allow-Origin. Each must pass
	// CheckOrigin.
	CORSOrigins []string
	// Unix says the server listens on a unix socket, and Addr is ignored:
	// no browser can reach a socket, so DNS rebinding is no threat and
	// any Host is accepted (curl sends localhost, other clients the
	// socket's path); the Origin check and the token apply as on
	// loopback.
	Unix bool
}

// New checks where the server is about to listen and returns the policy
// for its requests. Listening on a non-loopback address without a token is
// refused unless AllowNoAuth is set: anyone on the network could run the
// program's functions.
func New(opts Options) (*Policy, error) {
	addr := opts.Addr
	if opts.Unix {
		addr = "localhost:0"
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %w", opts.Addr, err)
	}
	p := &Policy{host: strings.ToLower(host), port: port, maxBody: opts.MaxBody,
		bodyGrace: opts.BodyGrace, bodyRate: opts.MinBodyRate, open: opts.Open, unix: opts.Unix}
	for _, o := range opts.CORSOrigins {
		origin, err := CheckOrigin(o)
		if err != nil {
			return nil, err
		}
		if p.cors == nil {
			p.cors = map[string]struct{}{}
		}
		p.cors[origin] = struct{}{}
	}
	if p.maxBody <= 0 {
		p.maxBody = DefaultMaxBody
	}
	if p.bodyGrace <= 0 {
		p.bodyGrace = DefaultBodyGrace
	}
	if p.bodyRate <= 0 {
		p.bodyRate = DefaultMinBodyRate
	}
	if opts.Token != "" && opts.Credentials != nil {
		return nil, errors.New("a token and a credentials file exclude each other: use one")
	}
	p.creds = opts.Credentials
	if opts.Token != "" {
		if err := CheckToken(opts.Token); err != nil {
			return nil, err
		}
		sum := sha256.Sum256([]byte(opts.Token))
		p.tokenSum = sum[:]
	}
	if !IsLoopback(host) {
		if opts.Token == "" && opts.Credentials == nil && !opts.AllowNoAuth {
			return nil, fmt.Errorf("refusing to listen on %s without a token: anyone who can reach it could run the program's functions; "+
				"set --auth-token, NEXUS_MCP_TOKEN or --auth-file, or pass --allow-no-auth if the network is trusted", opts.Addr)
		}
		ip := net.ParseIP(host)
		p.anyHost = host == "" || (ip != nil && ip.IsUnspecified())
	}
	return p, nil
}

// CheckToken refuses a token no client could send, or anyone could
// guess: blank, with white space at either end (a client's is trimmed),
// with control characters (not allowed in a header), or shorter than
// MinTokenLength. The error never shows the token.
func CheckToken(token string) error {
	return checkSecret(token, "the token (--auth-token or NEXUS_MCP_TOKEN)")
}

// checkSecret is CheckToken for a secret called what in its errors.
func checkSecret(token, what string) error {
	const fix = "use at least %d random characters (openssl rand -hex 16 makes one)"
	switch n := utf8.RuneCountInString(token); {
	case strings.TrimSpace(token) == "":
		return fmt.Errorf(what+" is blank: no client could authenticate; "+fix, MinTokenLength)
	case strings.TrimSpace(token) != token:
		return fmt.Errorf(what+" starts or ends with white space, which no client can send; "+fix, MinTokenLength)
	case strings.ContainsFunc(token, unicode.IsControl):
		return fmt.Errorf(what+" has a control character, which no client can send in a header; "+fix, MinTokenLength)
	case n < MinTokenLength:
		return fmt.Errorf(what+" is %d characters, too short to resist guessing; "+fix, n, MinTokenLength)
	}
	return nil
}

// IsLoopback reports whether host (a name or an IP) is the loopback
// interface.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Wrap returns next behind the policy's checks, in this order: Host and
// Origin (403; an OPTIONS from a CORS origin is then answered as a
// preflight), the token (401, with WWW-Authenticate: Bearer), and for a
// POST the content type (415) and the body's size (413, when it is read
// past the limit).
func (p *Policy) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !p.hostAllowed(r.Host) {
			Error(w, http.StatusForbidden, "forbidden: Host "+quoted(r.Host)+" is not this server")
			return
		}
		if len(p.cors) > 0 {
			// Answers differ by origin: a cache must not give one
			// origin's to another.
			w.Header().Add("Vary", "Origin")
		}
		if o := r.Header.Get("Origin"); o != "" {
			switch cors := p.corsAllowed(o); {
			case cors && r.Method == http.MethodOptions:
				preflight(w, o)
				return
			case cors:
				setCORS(w, o)
			case !p.originAllowed(o, r.Host):
				Error(w, http.StatusForbidden, "forbidden: Origin "+quoted(o)+" may not call this server")
				return
			}
		}
		cred, ok := p.authorized(r)
		anonymous := !ok && p.isOpen(r)
		if !ok && !anonymous {
			w.Header().Set("WWW-Authenticate", `Bearer realm="nexus"`)
			Error(w, http.StatusUnauthorized, "unauthorized: send Authorization: Bearer <token> (or X-API-Key: <token>)")
			return
		}
		if r.Method == http.MethodPost {
			if !isJSON(r.Header.Get("Content-Type")) {
				Error(w, http.StatusUnsupportedMediaType, "unsupported media type: POST a body of Content-Type: application/json")
				return
			}
			if r.ContentLength > p.maxBody {
				Error(w, http.StatusRequestEntityTooLarge, tooLarge(p.maxBody))
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, p.maxBody)
		}
		if r.ContentLength != 0 {
			// Any method's body: what the handler leaves unread, the
			// server reads after it, at this pace too.
			r.Body = p.pace(w, r.Body)
		}
		ctx := context.WithValue(r.Context(), clientKey{}, p.client(cred, r))
		if cred != nil {
			ctx = context.WithValue(ctx, credentialKey{}, cred)
		}
		if anonymous {
			ctx = context.WithValue(ctx, anonymousKey{}, true)
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// isOpen reports whether r reads a path of Options.Open.
func (p *Policy) isOpen(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && slices.Contains(p.open, r.URL.Path)
}

// anonymousKey is the context key of Anonymous.
type anonymousKey struct{}

// Anonymous reports whether the request of ctx came through Wrap without
// the credential the server needs, to a path of Options.Open.
func Anonymous(ctx context.Context) bool {
	a, _ := ctx.Value(anonymousKey{}).(bool)
	return a
}

func tooLarge(limit int64) string {
	return fmt.Sprintf("request body too large: the limit is %d bytes", limit)
}

// BodyError answers a request whose body could not be read (err, from
// reading it behind Wrap): 413 past the body limit, whether announced by
// Content-Length or not (a chunked body), 408 when the body came too
// slowly, else 400.
func BodyError(w http.ResponseWriter, err error) {
	status, msg := BodyStatus(err)
	Error(w, status, msg)
}

// BodyStatus is the status and message of BodyError, for a handler that
// answers in a form of its own.
func BodyStatus(err error) (int, string) {
	var mbe *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.As(err, &mbe):
		return http.StatusRequestEntityTooLarge, tooLarge(mbe.Limit)
	case errors.As(err, &ne) && ne.Timeout():
		return http.StatusRequestTimeout, "request timeout: the body came too slowly"
	}
	return http.StatusBadRequest, "read request body: " + err.Error()
}

// NotFound answers 404 for a path the server has nothing at; serves says
// what it has ("/mcp").
func NotFound(serves string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		Error(w, http.StatusNotFound, "not found: "+quoted(r.URL.Path)+" (this server serves "+serves+")")
	})
}

// MethodNotAllowed answers 405, with the Allow header, for a path served
// only for the methods allow.
func MethodNotAllowed(why string, allow ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		msg := "method not allowed: " + r.Method + " " + r.URL.Path + " takes " + strings.Join(allow, " or ")
		if why != "" {
			msg += ": " + why
		}
		Error(w, http.StatusMethodNotAllowed, msg)
	})
}

// Error answers a request with status and the JSON object
// {"error": msg}: how every nexus HTTP endpoint reports what it refused,
// here and in nexus serve's JSON API, so that clients read one format.
func Error(w http.ResponseWriter, status int, msg string) {
	body, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{msg})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// clientKey is the context key of Client.
type clientKey struct{}

// Client names the client of r, a request that passed Wrap, for limits per
// client: the credential's name, or the token's when the server needs one
// (whoever holds it is one client), else the address the request came from (on loopback, every
// local process is one client). Without Wrap, the address.
func Client(r *http.Request) string {
	if c, ok := r.Context().Value(clientKey{}).(string); ok {
		return c
	}
	return clientAddr(r)
}

func (p *Policy) client(cred *Credential, r *http.Request) string {
	if cred != nil {
		return "credential " + cred.Name
	}
	if p.tokenSum != nil {
		return "token " + hex.EncodeToString(p.tokenSum[:8])
	}
	return clientAddr(r)
}

func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// authorized reports whether r presents the token or a credential, and
// which credential.
func (p *Policy) authorized(r *http.Request) (*Credential, bool) {
	if p.creds != nil {
		c := p.creds.authenticate(r)
		return c, c != nil
	}
	if p.tokenSum == nil {
		return nil, true
	}
	token, ok := presented(r)
	if !ok {
		return nil, false
	}
	sum := sha256.Sum256([]byte(token))
	return nil, subtle.ConstantTimeCompare(sum[:], p.tokenSum) == 1
}

// hostAllowed checks the Host header against DNS rebinding: a page on an
// attacker's domain that resolves to 127.0.0.1 sends its own name.
func (p *Policy) hostAllowed(hostport string) bool {
	if p.anyHost || p.unix {
		return true
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, ""
	}
	if port != "" && port != p.port {
		return false
	}
	return p.nameAllowed(host)
}

// originAllowed checks a browser's Origin: the server's own, or localhost.
// On every interface, the server's own is whatever name the request was
// sent to (the Host check cannot narrow that, so the token protects).
func (p *Policy) originAllowed(origin, reqHost string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	if p.anyHost && strings.EqualFold(u.Host, reqHost) {
		return true
	}
	return p.nameAllowed(u.Hostname())
}

func (p *Policy) nameAllowed(host string) bool {
	host = strings.ToLower(strings.Trim(host, "[]"))
	return host == p.host || IsLoopback(host)
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

func quoted(s string) string {
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return fmt.Sprintf("%q", s)
}
