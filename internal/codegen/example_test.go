package codegen

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// languageExample is the complete example of docs/language.md, read from
// the document itself (its first code block after "## A complete
// example"), so the reference cannot show a program the compiler rejects.
func languageExample(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "language.md"))
	if err != nil {
		t.Fatalf("read the language reference: %v", err)
	}
	_, rest, ok := strings.Cut(string(data), "\n## A complete example\n")
	if !ok {
		t.Fatal("docs/language.md has no section \"A complete example\"")
	}
	_, rest, ok = strings.Cut(rest, "\n```\n")
	if !ok {
		t.Fatal("docs/language.md: no code block in \"A complete example\"")
	}
	block, _, ok := strings.Cut(rest, "\n```\n")
	if !ok {
		t.Fatal("docs/language.md: the example's code block does not end")
	}
	return block + "\n"
}

func TestLanguageExample(t *testing.T) {
	p := compileOK(t, languageExample(t))
	m := p.Manifest
	if m.Nexus != manifest.NexusVersion || m.Name != "chem" || !reflect.DeepEqual(m.Doc, []string{"Tools for working with molecules and numbers."}) {
		t.Errorf("header: %q %q %q", m.Nexus, m.Name, m.Doc)
	}
	if len(p.Warnings) != 0 {
		t.Errorf("warnings: %q", p.Warnings)
	}

	var pools []string
	for _, pl := range m.Pools {
		pools = append(pools, pl.Lang)
	}
	if strings.Join(pools, " ") != "py cpp go" {
		t.Errorf("pools %v", pools)
	}

	wantFns := []string{
		"0 weightPy=molecular_weight py (Str) -> Real chem.py",
		"1 describe_config=describe_config py (Settings) -> Str chem.py",
		"2 summarizeCpp=summarize cpp ([Real]) -> Summary stats.hpp",
		"3 scale=scale cpp (Real, [Real]) -> [Real] stats.hpp",
		"4 clamp=Clamp go (Real, Real, Real) -> Real mathx.go",
	}
	dir := filepath.Dir(p.Sources[0])
	for i, f := range m.Functions {
		var args []string
		for _, a := range f.Args {
			args = append(args, a.String())
		}
		got := strings.Join([]string{
			strconv.Itoa(f.ID), f.Name + "=" + f.Source, f.Pool,
			"(" + strings.Join(args, ", ") + ")", "->", f.Return.String(),
			filepath.Base(p.Sources[f.ID]),
		}, " ")
		if i >= len(wantFns) || got != wantFns[i] {
			t.Errorf("function %d: %s", i, got)
		}
		if !filepath.IsAbs(p.Sources[f.ID]) || filepath.Dir(p.Sources[f.ID]) != dir {
			t.Errorf("source path %q", p.Sources[f.ID])
		}
	}
	if len(m.Functions) != len(wantFns) {
		t.Errorf("%d functions", len(m.Functions))
	}

	type cmd struct {
		name, doc, returnDoc, ret, body string
		args                            []string
		pools                           string
	}
	want := []cmd{
		{"weight", "Molecular weight of a SMILES string", "weight in daltons", "Real", "weightPy($0)",
			[]string{"positional name=smiles type=Str"}, "py"},
		{"capped", "Molecular weight, capped to a range (Python result fed to Go)", "", "Real", "clamp(0.0, $1, weightPy($0))",
			[]string{"positional name=smiles type=Str", "option name=max long=max default=500.0 type=Real"}, "go py"},
		{"stats", "Mean and standard deviation of some numbers", "", "Summary", "summarizeCpp($0)",
			[]string{"positional type=[Real] many"}, "cpp"},
		{"scaled", "Scale numbers by a factor", "", "[Real]", "scale($0, $1)",
			[]string{"option name=factor short=f long=factor default=1.0 type=Real", "positional type=[Real]"}, "cpp"},
		{"describe", "Describe the settings", "", "Str", "describe_config($0)",
			[]string{`group name=settings type=Settings doc="Options for describe." {` +
				`option name=precision short=p long=precision default=3 field=precision type=Int doc="Output precision"; ` +
				`flag name=hydrogens long=hydrogens falseLong=no-hydrogens default=false field=hydrogens type=Bool doc="Include hydrogens"}`}, "py"},
		{"answer", "The answer, computed without any pool", "", "Int", "42", nil, ""},
	}
	if len(m.Commands) != len(want) {
		t.Fatalf("%d commands", len(m.Commands))
	}
	for i, w := range want {
		c := m.Commands[i]
		var args []string
		for _, a := range c.Args {
			args = append(args, argString(a))
		}
		got := cmd{c.Name, strings.Join(c.Doc, "|"), c.ReturnDoc, c.Return.String(), exprString(m, c.Body), args, strings.Join(m.PoolsFor(&c), " ")}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("command %d\n got %+v\nwant %+v", i, got, w)
		}
	}

	settings := m.Commands[4].Args[0].Type
	if settings.Langs["py"] != "dict" || string(settings.Fields[0].Default) != "3" || string(settings.Fields[1].Default) != "false" {
		t.Errorf("Settings type: %+v", settings)
	}
	summary := m.Commands[2].Return
	if summary.Kind != types.Record || summary.Langs["cpp"] != "summary_t" || len(summary.Fields) != 2 || summary.Fields[1].Name != "sd" {
		t.Errorf("Summary type: %+v", summary)
	}
	// Every expression carries its type.
	for _, c := range m.Commands {
		var walk func(e *manifest.Expr)
		walk = func(e *manifest.Expr) {
			if e.Type == nil {
				t.Errorf("command %s: expression without a type", c.Name)
			}
			for _, a := range e.Args {
				walk(a)
			}
		}
		walk(c.Body)
	}
}
