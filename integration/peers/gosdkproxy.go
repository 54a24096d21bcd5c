package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The Go SDK proxy: the smallest proxy the official Go SDK makes, its
// client and its server in one process, which is what this binary does
// when re-executed with -serve-gosdk-proxy. One client session to
// server-everything over stdio, opened at start and shared by every call;
// a server whose tools are server-everything's own (name, schemas,
// annotations as its tools/list gives them) and whose handlers forward the
// raw arguments and return the result unchanged.

// proxyTools are the tools of server-everything the proxies part calls, by
// server-everything's names.
var proxyTools = []string{"echo", "get-sum"}

// serveGoSDKProxy starts the server-everything command everything over
// stdio and serves its proxyTools over transport (see serveMCP).
func serveGoSDKProxy(transport string, port int, everything string) error {
	if everything == "" {
		return fmt.Errorf("-serve-gosdk-proxy needs -everything, the mcp-server-everything command")
	}
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "peers-gosdk-proxy", Version: "bench"}, nil)
	cmd := exec.Command(everything, "stdio")
	cmd.Stderr = os.Stderr
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", everything, err)
	}
	defer session.Close()
	list, err := session.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("tools/list of %s: %w", everything, err)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "peers-gosdk-proxy", Version: "bench"}, nil)
	added := 0
	for _, t := range list.Tools {
		if slices.Contains(proxyTools, t.Name) {
			srv.AddTool(t, forward(session, t.Name))
			added++
		}
	}
	if added != len(proxyTools) {
		return fmt.Errorf("%s offers %d of the tools %v", everything, added, proxyTools)
	}
	return serveMCP(srv, transport, port)
}

// forward is the handler of a proxied tool: the same call on the shared
// session, the arguments as received.
func forward(session *mcp.ClientSession, name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: req.Params.Arguments})
	}
}
