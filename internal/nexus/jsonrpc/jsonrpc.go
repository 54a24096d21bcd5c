// Package jsonrpc is the JSON-RPC 2.0 wire format under the MCP server:
// decoding one incoming message, with the error a malformed one deserves,
// and encoding replies. It knows nothing of MCP methods or transports.
//
// Only what MCP uses is here: single messages (MCP 2025-06-18 has no
// batches), ids that are strings or numbers, and params that are objects.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Version is the only "jsonrpc" member value a message may carry.
const Version = "2.0"

// Error codes of JSON-RPC 2.0.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// Error is a JSON-RPC error object, and a Go error.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	// Data is optional extra information for the client.
	Data any `json:"data,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// Errorf returns an Error with code and a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Message is one decoded incoming message: a request (with an id), a
// notification (without) or a response to a request of ours (no method).
//
// A large message may be returned before it is known to be JSON (see
// Decode). Only its method can be read at once, to route it; what else
// comes from it (its params, its id in a reply) is reachable only through
// methods that wait for the check and, when the message turns out not to
// be JSON, give the parse error instead. So no path can act on a message
// that was not checked, nor has to remember to check it.
type Message struct {
	// Method is the method's name; "" in a response.
	Method string

	// id is the request's id exactly as it came (a JSON string or number),
	// so that replies echo it with its type; nil for a notification.
	id json.RawMessage
	// params is the params member as it came, nil when absent.
	params json.RawMessage
	// check is the check that a large message is JSON, when Decode left
	// it running; nil when it was done before Decode returned.
	check *pendingCheck
}

// Check returns the parse error when m turns out not to be JSON, waiting
// for the check if Decode left it running; otherwise nil. The methods
// below call it, so that nothing needs to call it before acting on m; a
// transport calls it to choose a status for a reply. It is safe for
// concurrent use, as are all of Message's methods.
func (m *Message) Check() *Error {
	if m.check == nil {
		return nil
	}
	<-m.check.done
	return m.check.verdict.err()
}

// Params returns m's params (nil when absent), or the parse error when m
// is not JSON.
func (m *Message) Params() (json.RawMessage, *Error) {
	if err := m.Check(); err != nil {
		return nil, err
	}
	return m.params, nil
}

// ReadParams calls read with m's params (nil when absent) at once, while
// the check that m is JSON may still run, and returns what read returns
// once the check has passed; otherwise the parse error, whatever read
// returned. read must only read: the params it is given may be anything
// (it must not panic nor hang on them either), and whatever it does is
// discarded when m is not JSON. It is how a large call binds its
// arguments on one core while the check runs on another.
func ReadParams[T any](m *Message, read func(params json.RawMessage) (T, *Error)) (T, *Error) {
	v, err := read(m.params)
	if perr := m.Check(); perr != nil {
		var zero T
		return zero, perr
	}
	return v, err
}

// PeekParams returns m's params as they came (nil when absent), which,
// on a large message whose check still runs, may not be JSON: like
// Method, they are for routing only (which era of a protocol a request
// belongs to, which name it calls), never for acting on. Anything read
// from them must be read by what tolerates any bytes (Members), and every
// reply still goes through the methods below, which wait for the check.
func (m *Message) PeekParams() json.RawMessage { return m.params }

// Key is the text of m's id as it came, "" for a notification: a key to
// match m with what refers to it, such as a cancellation naming its id.
// It can be read before the check ends (matching acts on nothing); a
// reply echoes the id through the methods below.
func (m *Message) Key() string { return string(m.id) }

// Result is the success reply to m, a request, with result, which must
// marshal to JSON (a failure to marshal it becomes an internal error
// reply); or the parse error when m is not JSON.
func (m *Message) Result(result any) []byte {
	body, err := json.Marshal(result)
	if err != nil {
		return m.Fail(Errorf(CodeInternalError, "internal error: encode result: %v", err))
	}
	return m.ResultJSON(body)
}

// ResultJSON is Result with the result already encoded: body must be one
// valid JSON value.
func (m *Message) ResultJSON(body []byte) []byte {
	if err := m.Check(); err != nil {
		return Fail(Null, err)
	}
	buf := make([]byte, 0, len(body)+len(m.id)+32)
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = append(buf, m.id...)
	buf = append(buf, `,"result":`...)
	buf = append(buf, body...)
	return append(buf, '}')
}

// Fail is the error reply to m with e (with a null id when m has none), or
// the parse error when m is not JSON.
func (m *Message) Fail(e *Error) []byte {
	if err := m.Check(); err != nil {
		return Fail(Null, err)
	}
	if m.id == nil {
		return Fail(Null, e)
	}
	return Fail(m.id, e)
}

// pendingCheck is a check of a message's JSON running on a goroutine of
// its own.
type pendingCheck struct {
	done    chan struct{} // closed when verdict is set
	verdict verdict
}

func startCheck(data []byte) *pendingCheck {
	c := &pendingCheck{done: make(chan struct{})}
	go func() {
		c.verdict = check(data)
		close(c.done)
	}()
	return c
}

// parallelCheck is the size from which Decode checks that a message is
// JSON in parallel with what its caller does next rather than first. On a
// 1.8 MB call, the check is a fifth of the nexus's work, and reading the
// arguments (which checks their grammar again as it goes) can run beside
// it on another core.
const parallelCheck = ParallelCheck

// ParallelCheck is the size of a message from which Decode checks it is
// JSON on a goroutine of its own, beside what its caller does next.
const ParallelCheck = 64 << 10

// err is the error to answer a message with: nil when it is JSON. A
// message nested too deep is a parse error too (-32700, with a null id):
// the server stopped reading it, so it could not read its id either, but
// the message says why rather than calling valid JSON not JSON.
func (v verdict) err() *Error {
	switch v {
	case notJSON:
		return Errorf(CodeParseError, "parse error: the message is not JSON")
	case tooDeep:
		return Errorf(CodeParseError, "parse error: the message nests arrays and objects deeper than %d levels, the limit", maxDepth)
	}
	return nil
}

// IsRequest reports whether m expects a reply.
func (m *Message) IsRequest() bool { return m.id != nil && m.Method != "" }

// IsNotification reports whether m is a notification, which never gets a
// reply.
func (m *Message) IsNotification() bool { return m.id == nil && m.Method != "" }

// Decode reads data as one message. A failure comes with the id to answer
// it with (null when the id could not be read) and the error to answer:
// CodeParseError for data that is not JSON or is nested beyond maxDepth
// (each said as such), CodeInvalidRequest for JSON that is not a
// well-formed message.
//
// The message is checked as JSON once, whole, and split into its members
// without decoding the params, which a large call carries most of. A large
// request (from parallelCheck bytes) for method early is returned while
// that check still runs on another goroutine, so that its params can be
// read beside it (ReadParams); every other message is checked before
// Decode returns.
func Decode(data []byte, early string) (*Message, json.RawMessage, *Error) {
	data = bytes.TrimSpace(data)
	if len(data) < parallelCheck {
		if err := check(data).err(); err != nil {
			return nil, Null, err
		}
		return decode(data)
	}
	// Splitting and reading what is not JSON is safe, and gives way to
	// the parse error: all but an early request waits for the check.
	pending := startCheck(data)
	m, id, err := decode(data)
	if err != nil || !m.IsRequest() || m.Method != early {
		<-pending.done
		if perr := pending.verdict.err(); perr != nil {
			return nil, Null, perr
		}
		return m, id, err
	}
	m.check = pending
	return m, nil, nil
}

// decode splits data, JSON, into a message.
func decode(data []byte) (*Message, json.RawMessage, *Error) {
	members, err := Members(data)
	if err != nil {
		return nil, Null, Errorf(CodeInvalidRequest, "invalid request: expected one JSON-RPC message object")
	}
	var version, id, method, params json.RawMessage
	response := false
	for _, mb := range members {
		switch mb.Key {
		case "jsonrpc":
			version = mb.Value
		case "id":
			id = mb.Value
		case "method":
			method = mb.Value
		case "params":
			params = mb.Value
		case "result", "error":
			response = true
		}
	}
	replyID := Null
	if id != nil {
		if !validID(id) {
			return nil, Null, Errorf(CodeInvalidRequest, "invalid request: id must be a string or a number")
		}
		replyID = id
	}
	if v, err := unquote(version); err != nil || v != Version {
		return nil, replyID, Errorf(CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
	}
	m := &Message{id: id}
	if bytes.Equal(params, Null) {
		params = nil
	}
	m.params = params
	if method == nil || bytes.Equal(method, Null) {
		if id != nil && response {
			return m, nil, nil // a response
		}
		return nil, replyID, Errorf(CodeInvalidRequest, `invalid request: no "method"`)
	}
	name, err := unquote(method)
	if err != nil {
		return nil, replyID, Errorf(CodeInvalidRequest, `invalid request: "method" must be a string`)
	}
	if name == "" {
		return nil, replyID, Errorf(CodeInvalidRequest, `invalid request: empty "method"`)
	}
	m.Method = name
	if params != nil && (len(params) == 0 || params[0] != '{') {
		return nil, replyID, Errorf(CodeInvalidParams, "invalid params: params must be an object")
	}
	return m, nil, nil
}

// Null is the JSON null, the id of a reply to a message whose id could not
// be read.
var Null = json.RawMessage("null")

// validID reports whether id is a string or a number. MCP forbids null ids,
// and JSON-RPC any other kind.
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	switch c := id[0]; {
	case c == '"':
		return true
	case c == '-' || (c >= '0' && c <= '9'):
		return true
	}
	return false
}

// Fail encodes an error reply with id: the one Decode returned with e,
// for a message that could not be decoded. A message that could be
// answers with Message.Fail.
func Fail(id json.RawMessage, e *Error) []byte {
	body, err := json.Marshal(e)
	if err != nil {
		body = []byte(`{"code":` + strconv.Itoa(e.Code) + `,"message":` + strconv.Quote(e.Message) + `}`)
	}
	buf := make([]byte, 0, len(body)+len(id)+32)
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = append(buf, id...)
	buf = append(buf, `,"error":`...)
	buf = append(buf, body...)
	return append(buf, '}')
}
