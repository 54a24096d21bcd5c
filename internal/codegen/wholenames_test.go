package codegen

import (
	"testing"

	"github.com/nexus-run/nexus/manifest"
)

// TestWholeRecordNames: records given whole are known over MCP by their
// type's name, lowercased, unless another argument has that name; then by
// their option's name. Two options of one record type made the command
// no MCP tool (found probing issue 17).
func TestWholeRecordNames(t *testing.T) {
	const rec = "--' @unroll\nrecord Cfg where\n  --' @default 1\n  size :: Int\n"
	tests := []struct {
		name, text string
		want       []string
	}{
		{"one record option", rec + "f ::\n  --' @arg --src\n  --' @unroll false\n  Cfg ->\n  Str\nf _ = \"x\"", []string{"cfg"}},
		{"two of one type", rec + "f ::\n  --' @arg --src\n  --' @unroll false\n  Cfg ->\n  --' @arg --dst\n  --' @unroll false\n  Cfg ->\n  Str\nf _ _ = \"x\"", []string{"src", "dst"}},
		{"a group given whole and an option of its name", rec + "f ::\n  --' @arg --config\n  Cfg ->\n  --' @arg --cfg\n  --' @default 1\n  Int ->\n  Str\nf _ _ = \"x\"", []string{"config", "cfg"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := compileOK(t, errHeader+tt.text)
			args := p.Manifest.Commands[0].Args
			if len(args) != len(tt.want) {
				t.Fatalf("%d arguments, want %d", len(args), len(tt.want))
			}
			for i, a := range args {
				if a.Name != tt.want[i] {
					t.Errorf("argument %d (%s) named %q, want %q", i+1, a.Kind, a.Name, tt.want[i])
				}
			}
			if a := args[0]; a.Kind != manifest.Option && a.Kind != manifest.Group {
				t.Errorf("argument 1 is a %s", a.Kind)
			}
		})
	}
}
