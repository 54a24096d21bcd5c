package mcpsrc

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newResult sorts a CallToolResult's content into a Result.
func newResult(res *mcp.CallToolResult) (Result, error) {
	r := Result{IsError: res.IsError}
	for _, c := range res.Content {
		b, err := json.Marshal(c)
		if err != nil {
			return Result{}, fmt.Errorf("encode a %T content block: %w", c, err)
		}
		r.Content = append(r.Content, b)
		if t, ok := c.(*mcp.TextContent); ok {
			r.Text = append(r.Text, t.Text)
			continue
		}
		r.Other = append(r.Other, b)
	}
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return Result{}, fmt.Errorf("encode structuredContent: %w", err)
		}
		r.Structured = b
	}
	return r, nil
}
