package jsonrpc

import (
	"bytes"
	"encoding/json"
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
		m, id, err := Decode([]byte(tc.in))
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
		if string(m.ID) != tc.id || m.Method != tc.method || m.IsNotification() != tc.notification {
			t.Errorf("%s: got id %s method %q notification %v", tc.in, m.ID, m.Method, m.IsNotification())
		}
	}
}

func TestReplies(t *testing.T) {
	for _, tc := range []struct {
		got  []byte
		want string
	}{
		{Result(json.RawMessage(`"x"`), map[string]int{"a": 1}), `{"jsonrpc":"2.0","id":"x","result":{"a":1}}`},
		{ResultJSON(json.RawMessage(`7`), []byte(`{}`)), `{"jsonrpc":"2.0","id":7,"result":{}}`},
		{Fail(Null, Errorf(CodeParseError, "bad %s", "line")), `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad line"}}`},
		{Result(json.RawMessage(`1`), func() {}), `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,`},
	} {
		if string(tc.got) != tc.want && (len(tc.got) < len(tc.want) || string(tc.got[:len(tc.want)]) != tc.want) {
			t.Errorf("got %s, want %s", tc.got, tc.want)
		}
	}
}

// FuzzMembers checks the splitter against encoding/json on valid objects.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, ` { "a" : [1, {"b": "}"}] , "c\"d" : "x\\"y" , "e":null,"f":true,"g":-1.5e3 } `, `{"a":{"a":{"a":[]}}}`, `[1]`, `"s"`,
		`{"arguments":{"xs":[1, 2.5,-3e2 ]},"b":[[1,2],[3],[]]}`, `{"a":[[[1,[2]],[3]]],"b":[1,[2,"]"]]}`, `{"a":{"b":[[ ],[1]]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) || string(bytes.TrimSpace(data)) == "null" {
			return // null decodes into a map, but is no object
		}
		var want map[string]json.RawMessage
		wantErr := json.Unmarshal(data, &want)
		got, err := Members(data)
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
		}
	})
}

// FuzzValid checks the validator against encoding/json's.
func FuzzValid(f *testing.F) {
	for _, s := range []string{`{}`, `[1,2]`, `"a\u00e9\n"`, `-0.5e+3`, `01`, `1.`, `[1,]`, `{"a":}`, `"\x"`, "\"\x01\"", `truex`, ` null `, `{"a":[{"b":"\ud800"}]}`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := valid(data), json.Valid(data); got != want {
			t.Fatalf("%q: valid %v, json.Valid %v", data, got, want)
		}
	})
}
