package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		in           string
		id, method   string // of the message, when it decodes
		notification bool
		code         int    // of the error, when it does not
		errID        string // the id to answer the error with
	}{
		{in: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, id: `1`, method: "ping"},
		{in: `  {"jsonrpc":"2.0","id":"a b","method":"ping","params":{}}` + "\r\n", id: `"a b"`, method: "ping"},
		{in: `{"jsonrpc":"2.0","id":-2.5e3,"method":"x"}`, id: `-2.5e3`, method: "x"},
		{in: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, method: "notifications/initialized", notification: true},
		{in: `{"jsonrpc":"2.0","id":1,"method":"x","params":null}`, id: `1`, method: "x"},
		{in: `{"jsonrpc":"2.0","id":3,"result":{}}`, id: `3`},
		{in: `{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"m"}}`, id: `3`},
		{in: `{"jsonrpc":"2.0","id":1,"method":`, code: CodeParseError, errID: `null`},
		{in: ``, code: CodeParseError, errID: `null`},
		{in: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, code: CodeInvalidRequest, errID: `null`},
		{in: `42`, code: CodeInvalidRequest, errID: `null`},
		{in: `{"jsonrpc":"1.0","id":7,"method":"ping"}`, code: CodeInvalidRequest, errID: `7`},
		{in: `{"id":7,"method":"ping"}`, code: CodeInvalidRequest, errID: `7`},
		{in: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, code: CodeInvalidRequest, errID: `null`},
		{in: `{"jsonrpc":"2.0","id":true,"method":"ping"}`, code: CodeInvalidRequest, errID: `null`},
		{in: `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, code: CodeInvalidRequest, errID: `null`},
		{in: `{"jsonrpc":"2.0","id":8}`, code: CodeInvalidRequest, errID: `8`},
		{in: `{"jsonrpc":"2.0","id":8,"method":""}`, code: CodeInvalidRequest, errID: `8`},
		{in: `{"jsonrpc":"2.0","id":8,"method":5}`, code: CodeInvalidRequest, errID: `8`},
		{in: `{"jsonrpc":"2.0","id":8,"method":null}`, code: CodeInvalidRequest, errID: `8`},
		{in: `{"jsonrpc":2.0,"id":8,"method":"x"}`, code: CodeInvalidRequest, errID: `8`},
		{in: `{"jsonrpc":"2\u002e0","id":"\"q\"","method":"p\u0069ng","params":{"a":"}]\\"}}`, id: `"\"q\""`, method: "ping"},
		{in: `{"jsonrpc":"2.0","id":9,"method":"x","params":[1]}`, code: CodeInvalidParams, errID: `9`},
		{in: `{"jsonrpc":"2.0","id":9,"method":"x","params":"s"}`, code: CodeInvalidParams, errID: `9`},
	} {
		m, id, err := Decode([]byte(tc.in), "")
		if tc.code != 0 {
			if err == nil || err.Code != tc.code || string(id) != tc.errID {
				t.Errorf("%s: got %v (id %s), want code %d with id %s", tc.in, err, id, tc.code, tc.errID)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if m.Key() != tc.id || m.Method != tc.method || m.IsNotification() != tc.notification {
			t.Errorf("%s: got id %s method %q notification %v", tc.in, m.Key(), m.Method, m.IsNotification())
		}
	}
}

func TestReplies(t *testing.T) {
	decode := func(line string) *Message {
		m, _, err := Decode([]byte(line), "")
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return m
	}
	req := decode(`{"jsonrpc":"2.0","id":"x","method":"m"}`)
	note := decode(`{"jsonrpc":"2.0","method":"m"}`)
	for _, tc := range []struct {
		got  []byte
		want string
	}{
		{req.Result(map[string]int{"a": 1}), `{"jsonrpc":"2.0","id":"x","result":{"a":1}}`},
		{decode(`{"jsonrpc":"2.0","id":7,"method":"m"}`).ResultJSON([]byte(`{}`)), `{"jsonrpc":"2.0","id":7,"result":{}}`},
		{req.Fail(Errorf(CodeInvalidParams, "bad %s", "x")), `{"jsonrpc":"2.0","id":"x","error":{"code":-32602,"message":"bad x"}}`},
		{note.Fail(Errorf(CodeInvalidRequest, "no")), `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no"}}`},
		{Fail(Null, Errorf(CodeParseError, "bad %s", "line")), `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad line"}}`},
		{req.Result(func() {}), `{"jsonrpc":"2.0","id":"x","error":{"code":-32603,`},
	} {
		if string(tc.got) != tc.want && (len(tc.got) < len(tc.want) || string(tc.got[:len(tc.want)]) != tc.want) {
			t.Errorf("got %s, want %s", tc.got, tc.want)
		}
	}
}

// FuzzMembers checks the splitter against encoding/json on valid objects,
// and that it survives anything else.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, ` { "a" : [1, {"b": "}"}] , "c\"d" : "x\\"y" , "e":null,"f":true,"g":-1.5e3 } `, `{"a":{"a":{"a":[]}}}`, `[1]`, `"s"`,
		`{"arguments":{"xs":[1, 2.5,-3e2 ]},"b":[[1,2],[3],[]]}`, `{"a":[[[1,[2]],[3]]],"b":[1,[2,"]"]]}`, `{"a":{"b":[[ ],[1]]}}`, `{"a":1,"a":2,"\u0061b":3}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// On anything, Members must not panic nor hang (see ReadParams),
		// nor read past the end: data has no spare capacity, as a body
		// read over HTTP has none.
		data = data[:len(data):len(data)]
		got, err := Members(data)
		if !json.Valid(data) || string(bytes.TrimSpace(data)) == "null" {
			return // null decodes into a map, but is no object
		}
		var want map[string]json.RawMessage
		wantErr := json.Unmarshal(data, &want)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: Members error %v, encoding/json error %v", data, err, wantErr)
		}
		if err != nil {
			return
		}
		last := map[string]json.RawMessage{}
		for _, m := range got {
			last[m.Key] = m.Value
		}
		if len(last) != len(want) {
			t.Fatalf("%q: %d keys, want %d", data, len(last), len(want))
		}
		for k, v := range want {
			if string(last[k]) != string(v) {
				t.Fatalf("%q: key %q: %s, want %s", data, k, last[k], v)
			}
			// Lookup finds what encoding/json reads for that key: the
			// last member of that name, its key decoded.
			if got := Lookup(data, k); string(got) != string(v) {
				t.Fatalf("%q: Lookup(%q) = %s, want %s", data, k, got, v)
			}
		}
		if _, ok := want["absent"]; !ok && Lookup(data, "absent") != nil {
			t.Fatalf("%q: Lookup found a member absent", data)
		}
	})
}

// FuzzValid checks the validator against encoding/json's.
func FuzzValid(f *testing.F) {
	for _, s := range []string{`{}`, `[1,2]`, `"a\u00e9\n"`, `-0.5e+3`, `01`, `1.`, `[1,]`, `{"a":}`, `"\x"`, "\"\x01\"", `truex`, ` null `, `{"a":[{"b":"\ud800"}]}`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := check(data) == isJSON, json.Valid(data); got != want {
			t.Fatalf("%q: check %v, json.Valid %v", data, got, want)
		}
	})
}

// TestDecodeLarge: a large message is checked as JSON in parallel with its
// decoding; what is not JSON still gets the parse error, from Decode or,
// for a request of the early method that could be split, from whatever
// reaches its params or answers it.
func TestDecodeLarge(t *testing.T) {
	pad := `"` + strings.Repeat("x", parallelCheck) + `"`
	call := `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"t","arguments":{"s":` + pad + `}}}`

	m, _, err := Decode([]byte(call), "tools/call")
	if err != nil || m.Method != "tools/call" || m.Key() != "4" {
		t.Fatalf("a large call: %v, %v", m, err)
	}
	if err := m.Check(); err != nil {
		t.Fatalf("Check of a large call: %v", err)
	}
	if p, err := m.Params(); err != nil || !strings.HasPrefix(string(p), `{"name":"t"`) {
		t.Fatalf("Params of a large call: %.20s, %v", p, err)
	}
	if got, want := string(m.ResultJSON([]byte(`1`))), `{"jsonrpc":"2.0","id":4,"result":1}`; got != want {
		t.Fatalf("reply to a large call: %s, want %s", got, want)
	}

	parseError := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the message is not JSON"}}`
	for _, bad := range []string{call + ` x`, strings.Replace(call, `"s":"x`, `"s":"`+"\x01", 1), strings.Replace(call, `{"s":`, `{"s":-`, 1)} {
		// Of any other method, it never leaves Decode.
		other := strings.Replace(bad, `"tools/call"`, `"ping"`, 1)
		if _, id, err := Decode([]byte(other), "tools/call"); err == nil || err.Code != CodeParseError || string(id) != "null" {
			t.Errorf("%.60s…: %v (id %s), want the parse error with a null id", other, err, id)
		}
		// Of the early method, it can be split, and routed on its
		// method; but its params, read at once or later, and any
		// reply to it give the parse error, every time.
		m, _, err := Decode([]byte(bad), "tools/call")
		if err != nil {
			t.Fatalf("%.60s…: %v, want the message while the check runs", bad, err)
		}
		if m.Method != "tools/call" {
			t.Errorf("%.60s…: method %q", bad, m.Method)
		}
		for range 2 {
			read := false
			v, err := ReadParams(m, func(p json.RawMessage) (string, *Error) {
				read = true
				return string(p[:10]), nil
			})
			if !read || v != "" || err == nil || err.Code != CodeParseError {
				t.Errorf("%.60s…: ReadParams = %q, %v (read: %v), want the parse error after reading", bad, v, err, read)
			}
			if p, err := m.Params(); p != nil || err == nil || err.Code != CodeParseError {
				t.Errorf("%.60s…: Params = %.20s, %v, want the parse error", bad, p, err)
			}
			for _, reply := range [][]byte{m.Result(1), m.ResultJSON([]byte(`1`)), m.Fail(Errorf(CodeInvalidParams, "bad"))} {
				if string(reply) != parseError {
					t.Errorf("%.60s…: reply %s, want %s", bad, reply, parseError)
				}
			}
		}
	}

	// Not even splittable: the parse error comes from Decode, not the
	// invalid request that splitting would report.
	// A string cut short after a backslash, at the very end of a buffer
	// with no spare capacity (an HTTP body), is no reason to panic.
	for _, bad := range []string{`{"jsonrpc":"2.0","id":4,"method":"x","params":{"a":[1,2,}` + pad, `[` + pad, pad + `}`,
		`{"jsonrpc":"2.0","id":4,"method":"x","params":{"a":` + pad + `,"b":"\`} {
		data := make([]byte, len(bad))
		copy(data, bad)
		if _, id, err := Decode(data, "x"); err == nil || err.Code != CodeParseError || string(id) != "null" {
			t.Errorf("%.60s…: %v (id %s), want the parse error with a null id", bad, err, id)
		}
	}
}

// TestDecodeTooDeep: JSON nested deeper than the limit is answered as
// such, not as what is not JSON, on the small path and the large one, and
// the limit is encoding/json's, so what passes the check can be decoded.
func TestDecodeTooDeep(t *testing.T) {
	nest := func(n int, inner string) string {
		return strings.Repeat("[", n) + inner + strings.Repeat("]", n)
	}
	deepReply := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the message nests arrays and objects deeper than 10000 levels, the limit"}}`
	notJSONReply := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the message is not JSON"}}`

	// At the limit it is JSON for both checks; one more level is not.
	for _, c := range []struct {
		depth int
		want  verdict
	}{{maxDepth, isJSON}, {maxDepth + 1, tooDeep}} {
		data := []byte(nest(c.depth, ""))
		if got := check(data); got != c.want {
			t.Errorf("%d nested arrays: verdict %d, want %d", c.depth, got, c.want)
		}
		if got := json.Valid(data); got != (c.want == isJSON) {
			t.Errorf("%d nested arrays: json.Valid %v; the limit must be encoding/json's", c.depth, got)
		}
	}

	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{"a":` + args + `}}}`
	}
	for _, c := range []struct {
		name, data, want string
	}{
		{"a million nested arrays", nest(1_000_000, ""), deepReply},
		{"a million opening brackets", strings.Repeat("[", 1_000_000), deepReply},
		{"a million nested objects", strings.Repeat(`{"a":`, 1_000_000) + "1" + strings.Repeat("}", 1_000_000), deepReply},
		{"a small call nested too deep", call(nest(maxDepth, "1")), deepReply},
		{"a small ping nested too deep", strings.Replace(call(nest(maxDepth, "1")), "tools/call", "ping", 1), deepReply},
		{"not JSON before the limit", "[[[1,,]]]" + nest(maxDepth, ""), notJSONReply},
	} {
		_, id, err := Decode([]byte(c.data), "tools/call")
		if err == nil {
			t.Errorf("%s: decoded, want %s", c.name, c.want)
			continue
		}
		if got := string(Fail(id, err)); got != c.want {
			t.Errorf("%s: reply %s, want %s", c.name, got, c.want)
		}
	}

	// A large call is split while the check runs: what reaches its
	// params, and any reply, says it is too deep.
	m, _, err := Decode([]byte(call(nest(1_000_000, "1"))), "tools/call")
	if err != nil {
		t.Fatalf("a large call nested too deep: %v, want the message while the check runs", err)
	}
	if _, err := m.Params(); err == nil || err.Code != CodeParseError || !strings.Contains(err.Message, "deeper than 10000 levels") {
		t.Errorf("Params of a large call nested too deep: %v", err)
	}
	if got := string(m.ResultJSON([]byte(`1`))); got != deepReply {
		t.Errorf("reply to a large call nested too deep: %s, want %s", got, deepReply)
	}
}

// FuzzDecodeUnchecked: splitting what was not checked as JSON (as Decode
// does for a large message while the check runs) never panics nor hangs,
// and agrees with Decode on what is JSON.
func FuzzDecodeUnchecked(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"a":[1,2,}`, `{"a":"\`, `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":[[1],{"b":"]"}]}}`, `{,}`, `{"a"::1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		data = data[:len(data):len(data)] // as in FuzzMembers
		m, id, err := decode(data)
		if check(bytes.TrimSpace(data)) != isJSON {
			return
		}
		wm, wid, werr := Decode(data, "")
		if (err == nil) != (werr == nil) || string(id) != string(wid) || (err != nil && err.Code != werr.Code) ||
			(m != nil) != (wm != nil) || (m != nil && (m.Method != wm.Method || string(m.id) != string(wm.id) || string(m.params) != string(wm.params))) {
			t.Fatalf("%q: decode %v %s %v, Decode %v %s %v", data, m, id, err, wm, wid, werr)
		}
	})
}
