package check

import (
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/manifest"
)

// groupOf is the command group of the exported name written at pos: the
// group whose header is the nearest before it in the export list (the
// parser recorded its members), or "" when it is ungrouped.
func (c *checker) groupOf(pos diag.Pos) string {
	for _, g := range c.file.Module.Groups {
		for _, p := range g.Members {
			if p == pos {
				return g.Name
			}
		}
	}
	return ""
}

// checkGroups checks what groups do to names: a group may not share a
// command's name (`./prog NAME` would mean either), and a grouped
// command's tool name, GROUP_COMMAND, must be a valid tool name that no
// other command's tool name takes. named is where each command's name was
// written.
func (c *checker) checkGroups(cmds []manifest.Command, named map[string]diag.Pos) {
	for _, g := range c.file.Module.Groups {
		if pos, clash := named[g.Name]; clash {
			c.sink.Errorf(g.Pos, "group '%s' has the name of a command (at %s); `%s` on the command line would mean either", g.Name, pos, g.Name)
		}
	}
	tools := map[string]string{} // tool name → the command that has it
	for i := range cmds {
		cmd := &cmds[i]
		tn := cmd.ToolName()
		if !manifest.IsToolName(tn) {
			c.sink.Errorf(named[cmd.Name], "the MCP tool name '%s' of command %s in group %s must match %s; shorten the group's or the command's name", tn, cmd.Name, cmd.Group, manifest.ToolNamePattern)
			continue
		}
		if other, dup := tools[tn]; dup {
			c.sink.Errorf(named[cmd.Name], "command %s has the MCP tool name '%s', which command %s (at %s) has too; rename one of them", cmd.Name, tn, other, named[other])
			continue
		}
		tools[tn] = cmd.Name
	}
}

// commandGroups are the manifest's groups: those with at least one
// command, in the order of the export list.
func (c *checker) commandGroups(cmds []manifest.Command) []manifest.CommandGroup {
	used := map[string]bool{}
	for _, cmd := range cmds {
		used[cmd.Group] = true
	}
	var out []manifest.CommandGroup
	for _, g := range c.file.Module.Groups {
		if used[g.Name] {
			// As a docstring's: trailing space trimmed, and no blank
			// line first or last (help showed an empty first line).
			var lines []string
			for _, l := range g.Doc {
				lines = append(lines, strings.TrimRight(l, " \t"))
			}
			out = append(out, manifest.CommandGroup{Name: g.Name, Doc: trimBlankLines(lines)})
		}
	}
	return out
}
