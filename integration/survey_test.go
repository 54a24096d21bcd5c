package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSurveyExample builds examples/survey, the program in the whole
// language (a local module, a record literal, guards, a where clause, an
// effect, the prelude's map over a Python function), and runs it through
// the CLI and over MCP.
func TestSurveyExample(t *testing.T) {
	fs := files{}
	for _, name := range []string{"main.loc", "survey.py", "plots.csv", "stats/main.loc"} {
		data, err := os.ReadFile(filepath.Join("..", "examples", "survey", name))
		if err != nil {
			t.Fatal(err)
		}
		fs[name] = string(data)
	}
	p := build(t, fs)
	// north: 60, 64, 62 inches = 152.4, 162.56, 157.48 cm; creek: 30.48,
	// 40.64; ridge: 76.2, 50.8, 63.5 (to_cm rounds to 2 places).
	want := `[{"name":"north","count":3,"mean_cm":157.48000000000002,"sd_cm":4.147802631112847,"grade":"tall"},` +
		`{"name":"creek","count":2,"mean_cm":35.56,"sd_cm":5.08,"grade":"short"},` +
		`{"name":"ridge","count":3,"mean_cm":63.5,"sd_cm":10.369506577782122,"grade":"medium"}]` + "\n"
	if out := p.ok("summarize", filepath.Join(p.dir, "plots.csv")); out != want {
		t.Errorf("summarize:\n got %s\nwant %s", out, want)
	}
	for _, c := range []struct{ cm, grade string }{{"150", "tall"}, {"149.9", "medium"}, {"50", "medium"}, {"3", "short"}} {
		if out := p.ok("grade", c.cm); out != `"`+c.grade+`"`+"\n" {
			t.Errorf("grade %s: %q, want %s", c.cm, out, c.grade)
		}
	}
	if msg := p.fails(1, "summarize", filepath.Join(p.dir, "missing.csv")); msg == "" {
		t.Errorf("summarize of a missing file gave no error")
	}

	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cs, _ := connectCommand(ctx, t, exec.Command(nexusBin, "mcp", p.launcher), append(os.Environ(), "TMPDIR="+p.tmp))
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "plot", Arguments: map[string]any{"_1": map[string]any{"name": "x", "heights": []float64{10, 20}}}})
	if err != nil || res.IsError || toolText(res) != `{"name":"x","count":2,"mean_cm":38.099999999999994,"sd_cm":12.7,"grade":"short"}` {
		t.Errorf("plot over MCP: %s, %v", toolText(res), err)
	}
	cs.Close()
	p.checkClean()
}
