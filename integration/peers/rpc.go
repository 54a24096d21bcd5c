package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/nexus-run/nexus/integration/rpcmsg"
)

// The JSON-RPC layer our lean client shares between stdio and HTTP. The
// requests are put together from bytes: the arguments of total are 2 MB
// encoded once, and a general encoder would cost more per call than some
// of the servers measured.

// protocol is the MCP version asked of every server: the one nexus serves,
// and one that every peer speaks.
const protocol = rpcmsg.Protocol

var initializeParams = []byte(`{"protocolVersion":"` + protocol + `","capabilities":{},"clientInfo":{"name":"nexus-peers","version":"bench"}}`)

// request is a JSON-RPC request (or, with id < 0, a notification).
func request(id int64, method string, params []byte) []byte {
	b := make([]byte, 0, len(params)+96)
	b = append(b, `{"jsonrpc":"2.0",`...)
	if id >= 0 {
		b = append(b, `"id":`...)
		b = strconv.AppendInt(b, id, 10)
		b = append(b, ',')
	}
	b = append(b, `"method":"`...)
	b = append(b, method...)
	b = append(b, '"')
	if params != nil {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}

// callParams are the params of tools/call of tool with args (a JSON object).
func callParams(tool string, args []byte) []byte {
	b := make([]byte, 0, len(args)+48)
	b = append(b, `{"name":"`...)
	b = append(b, tool...)
	b = append(b, `","arguments":`...)
	b = append(b, args...)
	return append(b, '}')
}

// message is any JSON-RPC message a server sends.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// parseReply decodes one message; ok says it is the reply to request id.
func parseReply(line []byte, id int64) (m message, ok bool, err error) {
	if err := json.Unmarshal(line, &m); err != nil {
		return m, false, fmt.Errorf("not JSON-RPC: %v: %.200q", err, line)
	}
	if m.Method != "" || len(m.ID) == 0 {
		return m, false, nil // a notification or a request from the server
	}
	return m, bytes.Equal(m.ID, strconv.AppendInt(nil, id, 10)), nil
}

// result is the reply's result, or its error as an error.
func (m message) result() (json.RawMessage, error) {
	if m.Error != nil {
		return nil, fmt.Errorf("JSON-RPC error %d: %s", m.Error.Code, m.Error.Message)
	}
	if len(m.Result) == 0 {
		return nil, fmt.Errorf("reply with neither result nor error")
	}
	return m.Result, nil
}

// toolText is the text of a tools/call result, which must be exactly one
// text block and no error: the form nexus answers a scalar with.
func toolText(result json.RawMessage) (string, error) {
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return "", fmt.Errorf("tools/call result: %v", err)
	}
	if r.IsError || len(r.Content) != 1 || r.Content[0].Type != "text" {
		return "", fmt.Errorf("tools/call answered %.300s, want one text block and no error", result)
	}
	return r.Content[0].Text, nil
}

// checkInitialize checks that the server speaks our protocol version.
func checkInitialize(result json.RawMessage) error {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return fmt.Errorf("initialize result: %v", err)
	}
	if r.ProtocolVersion != protocol {
		return fmt.Errorf("the server answered protocol %q, not %q", r.ProtocolVersion, protocol)
	}
	return nil
}

// checkTools checks that tools/list has every benchmark tool.
func checkTools(result json.RawMessage, fns []*function) error {
	var r struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return fmt.Errorf("tools/list result: %v", err)
	}
	have := map[string]bool{}
	for _, t := range r.Tools {
		have[t.Name] = true
	}
	for _, f := range fns {
		if !have[f.name] {
			return fmt.Errorf("tools/list has no tool %q", f.name)
		}
	}
	return nil
}
