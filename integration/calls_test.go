package integration

import (
	"context"
	"os"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cliCase is a command line of a built program and what it must print.
type cliCase struct {
	args []string
	want string
}

// okAll runs each call, which must succeed and print its want.
func (p *program) okAll(calls []cliCase) {
	p.t.Helper()
	for _, c := range calls {
		if out := p.ok(c.args...); out != c.want {
			p.t.Errorf("%v: %q, want %q", c.args, out, c.want)
		}
	}
}

// toolCall is a call of one of a program's commands as an MCP tool and
// the text of its result.
type toolCall struct {
	tool string
	args map[string]any
	want string
}

// toolsOK serves the program over MCP (stdio) and makes each call, which
// must succeed with its want.
func (p *program) toolsOK(calls []toolCall) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cs, _ := connectCommand(ctx, p.t, exec.Command(nexusBin, "mcp", p.launcher), append(os.Environ(), "TMPDIR="+p.tmp))
	defer cs.Close()
	for _, c := range calls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil || res.IsError || toolText(res) != c.want {
			p.t.Errorf("%s over MCP: %s, %v; want %s", c.tool, toolText(res), err, c.want)
		}
	}
}
