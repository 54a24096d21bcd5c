package mcp

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/nexus-run/nexus/internal/nexus/jsonrpc"
)

// The header rules of 2026-07-28 over Streamable HTTP: a request names
// its method (Mcp-Method), the tool it calls (Mcp-Name) and its version
// (MCP-Protocol-Version) in headers, so that a proxy can route it without
// reading its body, and the server checks that they say what the body
// says (CodeHeaderMismatch, 400).

// checkHeaders checks the Mcp-Method and, for tools/call, Mcp-Name
// headers of a stateless request for method with envelope e. Each must be
// given once: a proxy reading one copy and nexus another would route or
// allow one thing and run another.
func checkHeaders(h http.Header, method string, e envelope) *jsonrpc.Error {
	got, err := single(h, HeaderMethod)
	switch {
	case err != nil:
		return err
	case got == "":
		return headerError("missing %s header: a %s request names its method in it", HeaderMethod, V20260728)
	case got != method:
		return headerError("%s header %s does not match the body's method %q", HeaderMethod, quoteShort(got), method)
	}
	if method != methodToolsCall {
		return nil
	}
	raw, err := single(h, HeaderName)
	switch {
	case err != nil:
		return err
	case raw == "":
		return headerError("missing %s header: a %s tools/call names its tool in it", HeaderName, V20260728)
	case e.name == "":
		return invalidParams("invalid tools/call params: \"name\" must be the name of a tool, a string")
	}
	name, ok := decodeHeaderValue(raw)
	if !ok {
		return headerError("invalid %s header %s: not valid =?base64?...?= form", HeaderName, quoteShort(raw))
	}
	if name != e.name {
		return headerError("%s header %s does not match the body's tool name %q", HeaderName, quoteShort(name), e.name)
	}
	return nil
}

// checkVersionHeader checks the MCP-Protocol-Version header of a
// stateless request with envelope e, whose _meta names a version.
func checkVersionHeader(h http.Header, e envelope) *jsonrpc.Error {
	switch got, err := single(h, HeaderProtocolVersion); {
	case err != nil:
		return err
	case got == "":
		return headerError("missing %s header: a %s request repeats its _meta version in it", HeaderProtocolVersion, V20260728)
	case got != e.version:
		return headerError("%s header %s does not match the _meta version %s", HeaderProtocolVersion, quoteShort(got), quoteShort(e.version))
	}
	return nil
}

// single returns the value of header name, or an error when the request
// gives it more than once.
func single(h http.Header, name string) (string, *jsonrpc.Error) {
	switch vs := h.Values(name); len(vs) {
	case 0:
		return "", nil
	case 1:
		return vs[0], nil
	default:
		return "", headerError("%s header given %d times: a request names it once", name, len(vs))
	}
}

// quoteShort quotes s for an error message, cut to 100 bytes: a header
// may be as long as the server lets it be, and the message repeats it.
func quoteShort(s string) string {
	const most = 100
	if len(s) <= most {
		return strconv.Quote(s)
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf(" (%d bytes in all)", len(s))
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
