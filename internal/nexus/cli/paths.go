package cli

import (
	"fmt"
	"os"

	"github.com/nexus-run/nexus/internal/nexus/tool"
	"github.com/nexus-run/nexus/manifest"
)

// token reads one command-line token of argument a: the text of the file
// it names for an argument with `@source file` (after its `@check.path`),
// else the token as a value of a's type (readToken).
func (p *commandParser) token(a *manifest.Arg, label, tok string) (any, error) {
	if a.Source != manifest.SourceFile {
		v, err := readToken(a.Type, tok)
		if err != nil {
			return nil, p.usage("invalid value for %s: %v", label, err)
		}
		return v, nil
	}
	return p.fileText(a, label, tok)
}

// fileText is the text of the file path names, for an argument with
// `@source file`.
func (p *commandParser) fileText(a *manifest.Arg, label, path string) (any, error) {
	if a.CheckPath != "" {
		if err := tool.CheckPath(a.CheckPath, path); err != nil {
			return nil, p.usage("invalid value for %s: %v", label, err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, p.usage("invalid value for %s: it is read from the file it names, and %v", label, err)
	}
	return string(data), nil
}

// checkPaths applies the `@check.path` of every argument that is not read
// from a file (those are checked as they are read) to its value, before
// any pool is called.
func (p *commandParser) checkPaths(args []any) error {
	for i := range p.c.Args {
		a := &p.c.Args[i]
		s, ok := args[i].(string)
		if a.CheckPath == "" || a.Source == manifest.SourceFile || !ok {
			continue
		}
		if err := tool.CheckPath(a.CheckPath, s); err != nil {
			return p.usage("invalid value for %s: %v", argLabel(a, i), err)
		}
	}
	return nil
}

// argLabel names argument i in a message.
func argLabel(a *manifest.Arg, i int) string {
	if a.Kind != manifest.Positional {
		return optionLabel(a)
	}
	if name := displayName(a); name != "" {
		return name
	}
	return fmt.Sprintf("argument %d", i+1)
}
