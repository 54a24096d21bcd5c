package mcp

import (
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/nexus-run/nexus/internal/nexus/jsonrpc"
)

// The header rules of 2026-07-28 over Streamable HTTP: a request names
// its method (Mcp-Method), the tool it calls (Mcp-Name) and its version
// (MCP-Protocol-Version) in headers, so that a proxy can route it without
// reading its body, and the server checks that they say what the body
// says (CodeHeaderMismatch, 400).

// checkHeaders checks the Mcp-Method and, for tools/call, Mcp-Name
// headers of a stateless request for method with envelope e.
func checkHeaders(h http.Header, method string, e envelope) *jsonrpc.Error {
	switch got := h.Get(HeaderMethod); {
	case got == "":
		return headerError("missing %s header: a %s request names its method in it", HeaderMethod, V20260728)
	case got != method:
		return headerError("%s header %q does not match the body's method %q", HeaderMethod, got, method)
	}
	if method != methodToolsCall {
		return nil
	}
	raw := h.Get(HeaderName)
	if raw == "" {
		return headerError("missing %s header: a %s tools/call names its tool in it", HeaderName, V20260728)
	}
	got, ok := decodeHeaderValue(raw)
	if !ok {
		return headerError("invalid %s header %q: not valid =?base64?...?= form", HeaderName, raw)
	}
	if got != e.name {
		return headerError("%s header %q does not match the body's tool name %q", HeaderName, got, e.name)
	}
	return nil
}

// checkVersionHeader checks the MCP-Protocol-Version header of a
// stateless request with envelope e, whose version is known good.
func checkVersionHeader(h http.Header, e envelope) *jsonrpc.Error {
	switch got := h.Get(HeaderProtocolVersion); {
	case got == "":
		return headerError("missing %s header: a %s request repeats its _meta version in it", HeaderProtocolVersion, V20260728)
	case got != e.version:
		return headerError("%s header %q does not match the _meta version %q", HeaderProtocolVersion, got, e.version)
	}
	return nil
}

// decodeHeaderValue decodes a header value that is plain ASCII as it is,
// or one in the =?base64?...?= form that carries any other text. Clients
// that send a non-ASCII name as it is (the Go SDK does) are read as they
// are too.
func decodeHeaderValue(v string) (string, bool) {
	inner, ok := strings.CutPrefix(v, "=?base64?")
	if !ok {
		return v, true
	}
	inner, ok = strings.CutSuffix(inner, "?=")
	if !ok {
		return "", false
	}
	b, err := base64.StdEncoding.DecodeString(inner)
	if err != nil {
		return "", false
	}
	return string(b), true
}

func headerError(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.Errorf(CodeHeaderMismatch, format, args...)
}
