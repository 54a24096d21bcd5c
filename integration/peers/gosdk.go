package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	gopeers "github.com/nexus-run/nexus/integration/peers/servers/nexus/go"
)

// The Go SDK peer: the benchmark's three tools served by the official Go
// SDK's server with the functions in the same process, which is what this
// binary does when re-executed with -serve-gosdk. No pool, no second
// process: the ceiling for a server without pools. The functions are the
// very ones nexus's Go pool runs, so both do the same work.

type trivialArgs struct {
	X int64 `json:"x"`
}

type shoutArgs struct {
	S string `json:"s"`
}

type totalArgs struct {
	XS []float64 `json:"xs"`
}

// textResult is what nexus answers a scalar with: one text block holding
// its compact JSON.
func textResult(v any) (*mcp.CallToolResult, any, error) {
	text, err := json.Marshal(v)
	if err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, nil, nil
}

func newGoSDKServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "peers", Version: "bench"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "trivial", Description: "The integer, unchanged."},
		func(_ context.Context, _ *mcp.CallToolRequest, in trivialArgs) (*mcp.CallToolResult, any, error) {
			return textResult(gopeers.Trivial(int(in.X)))
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "shout", Description: "The string reversed and in upper case."},
		func(_ context.Context, _ *mcp.CallToolRequest, in shoutArgs) (*mcp.CallToolResult, any, error) {
			return textResult(gopeers.Shout(in.S))
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "total", Description: "The sum of the numbers."},
		func(_ context.Context, _ *mcp.CallToolRequest, in totalArgs) (*mcp.CallToolResult, any, error) {
			return textResult(gopeers.Total(in.XS))
		})
	return srv
}

// serveGoSDK serves the Go SDK peer over transport (see serveMCP).
func serveGoSDK(transport string, port int) error {
	return serveMCP(newGoSDKServer(), transport, port)
}

// serveMCP serves srv over stdio until stdin closes, or over Streamable
// HTTP on a loopback port (0 picks one) until SIGTERM, printing the address
// as nexus does: with stateful sessions ("http") or in the SDK's stateless
// mode ("http-stateless", which serves 2026-07-28 requests with no
// session: the replicas part runs it behind HAProxy). GET /health answers
// 200, as nexus's does, for HAProxy's checks.
func serveMCP(srv *mcp.Server, transport string, port int) error {
	// Answering in JSON rather than SSE, as nexus does.
	opts := &mcp.StreamableHTTPOptions{JSONResponse: true}
	switch transport {
	case "stdio":
		return srv.Run(context.Background(), &mcp.StdioTransport{})
	case "http":
	case "http-stateless":
		opts.Stateless = true
	default:
		return fmt.Errorf("transport %q: want stdio, http or http-stateless", transport)
	}
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, opts)
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintln(w, `{"status":"ok"}`)
	})
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(os.Stderr, "peer: serving MCP at /mcp on http://%s\n", ln.Addr())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	go func() {
		<-stop
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(ctx)
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
