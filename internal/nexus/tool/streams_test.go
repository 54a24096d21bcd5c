package tool

import (
	"testing"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// TestStdioCommandsSkipped: a command whose body opens @stdin (anywhere,
// a lambda's body too) or @stdout is no tool; one that writes @stderr is.
func TestStdioCommandsSkipped(t *testing.T) {
	in := types.HandleOf(types.IStream, types.StrType)
	out := types.HandleOf(types.OStream, types.StrType)
	intrinsic := func(t *types.Type, op string) *manifest.Expr {
		return &manifest.Expr{Kind: manifest.Intrinsic, Op: op, Type: t}
	}
	lambda := &manifest.Expr{Kind: manifest.Lambda, Type: types.FuncOf(in, types.IntType), Args: []*manifest.Expr{intrinsic(in, "stdin")}}
	m := &manifest.Manifest{Commands: []manifest.Command{
		{Name: "reads", Return: in, Body: intrinsic(in, "stdin")},
		{Name: "inLambda", Return: lambda.Type, Body: lambda},
		{Name: "writes", Return: out, Body: intrinsic(out, "stdout")},
		{Name: "logs", Return: out, Body: intrinsic(out, "stderr")},
	}}
	tools, skipped := FromProgram(m, nil, "")
	if len(tools) != 1 || tools[0].Name != "logs" {
		t.Errorf("tools: %v, want logs only", tools)
	}
	want := []string{
		"command reads is not served as an MCP tool: it reads standard input",
		"command inLambda is not served as an MCP tool: it reads standard input",
		"command writes is not served as an MCP tool: it writes standard output",
	}
	if len(skipped) != len(want) {
		t.Fatalf("skipped: %v, want %v", skipped, want)
	}
	for i, w := range want {
		if got := skipped[i].String(); got != w {
			t.Errorf("skipped[%d]: %q, want %q", i, got, w)
		}
	}
}
