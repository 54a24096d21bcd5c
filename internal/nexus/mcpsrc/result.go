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
		if t, ok := c.(*mcp.TextContent); ok {
			r.Text = append(r.Text, t.Text)
			r.Content = append(r.Content, Block{Text: t.Text})
			continue
		}
		b, err := json.Marshal(c)
		if err != nil {
			return Result{}, fmt.Errorf("encode a %T content block: %w", c, err)
		}
		r.Other = append(r.Other, b)
		r.Content = append(r.Content, Block{JSON: b})
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
