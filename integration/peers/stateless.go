package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/nexus-run/nexus/integration/rpcmsg"
)

// Our lean client's stateless side: MCP 2026-07-28 over Streamable HTTP, no
// initialize and no session. Every request is a POST carrying the
// revision's headers (MCP-Protocol-Version, Mcp-Method and, for tools/call,
// Mcp-Name) and the per-request `_meta` (protocol version, client
// capabilities and identity), so any replica behind a load balancer can
// answer it.

// statelessProtocol is the revision served without sessions.
const statelessProtocol = "2026-07-28"

// statelessMeta is the `_meta` of every stateless request, encoded once.
var statelessMeta = []byte(`{"io.modelcontextprotocol/protocolVersion":"` + statelessProtocol +
	`","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"nexus-peers","version":"bench"}}`)

// statelessCallParams are the params of a stateless tools/call of tool
// with args (a JSON object).
func statelessCallParams(tool string, args []byte) []byte {
	b := make([]byte, 0, len(args)+len(statelessMeta)+64)
	b = append(b, `{"name":"`...)
	b = append(b, tool...)
	b = append(b, `","arguments":`...)
	b = append(b, args...)
	b = append(b, `,"_meta":`...)
	b = append(b, statelessMeta...)
	return append(b, '}')
}

// statelessPost sends request id of method (name: the tool of a tools/call,
// else "") with params and returns its reply's result. A server that
// answers with a session id did not serve the request statelessly: an
// error.
func (c *httpClient) statelessPost(ctx context.Context, id int64, method, name string, params []byte) ([]byte, error) {
	req, err := rpcmsg.NewPost(ctx, c.endpoint, "", request(id, method, params))
	if err != nil {
		return nil, err
	}
	req.Header.Set("MCP-Protocol-Version", statelessProtocol)
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	res, hdr, err := reply(resp, method, id)
	if err != nil {
		return nil, err
	}
	if sid := hdr.Get("Mcp-Session-Id"); sid != "" {
		return nil, fmt.Errorf("%s at %s answered with session id %q: not served statelessly", method, statelessProtocol, sid)
	}
	return res, nil
}

// discover sends server/discover and checks that the server supports the
// stateless revision, so that a server that does not fails with a clear
// message before any load.
func (c *httpClient) discover(ctx context.Context) error {
	res, err := c.statelessPost(ctx, 0, "server/discover", "", []byte(`{"_meta":`+string(statelessMeta)+`}`))
	if err != nil {
		return fmt.Errorf("server/discover: %w", err)
	}
	var r struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return fmt.Errorf("server/discover result: %v", err)
	}
	if !slices.Contains(r.SupportedVersions, statelessProtocol) {
		return fmt.Errorf("server/discover lists versions %q, without %s", r.SupportedVersions, statelessProtocol)
	}
	return nil
}

// driveStateless has workers clients at once each make calls sequential
// stateless calls of f (call numbers from offset on, distinct across
// clients), checking every answer, over one pool of keep-alive
// connections as drive's sessions use. The time measured runs from the
// first call to the last answer. The first error ends the run.
func driveStateless(ctx context.Context, endpoint string, f *function, workers, calls, offset int) (load, error) {
	c := newHTTPClient(endpoint, workers)
	defer c.close()
	return concurrent(f, workers, calls, offset, func(_, j int, args []byte) (string, error) {
		res, err := c.statelessPost(ctx, int64(j+1), "tools/call", f.name, statelessCallParams(f.name, args))
		if err != nil {
			return "", err
		}
		return toolText(res)
	})
}
