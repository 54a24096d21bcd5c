package mcp

import (
	"context"
	"testing"
)

// BenchmarkCall is the protocol's own cost of a tools/call: decoding,
// binding and checking the arguments, evaluating the body, shaping and
// encoding the reply, with the pool answering in this process.
func BenchmarkCall(b *testing.B) {
	srv, _ := callsServer(b, Options{})
	ss := srv.NewSession()
	for _, l := range []string{initLine, initializedLine} {
		ss.Handle(context.Background(), []byte(l), func([]byte) {})
	}
	line := []byte(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"add","arguments":{"_1":1,"_2":2}}}`)
	done := make(chan []byte, 1)
	reply := func(r []byte) { done <- r }
	b.ReportAllocs()
	for b.Loop() {
		ss.Handle(context.Background(), line, reply)
		<-done
	}
}
