package check

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/doc"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/internal/mcpaddr"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// mcpLang is how a program writes the language of a `source` that names
// another MCP server rather than a file.
const mcpLang = "MCP"

// defaultTimeoutMS is a server's @timeout when the program gives none: the
// runtime's default (mcpsrc.DefaultTimeout), written into the manifest so
// that what a program does is read from the manifest alone.
const defaultTimeoutMS = 60000

// maxTimeoutMS is the largest @timeout that still fits a time.Duration.
const maxTimeoutMS = math.MaxInt64 / int64(time.Millisecond)

// server is one `source MCP from` declaration.
type server struct {
	spec manifest.Server
	pos  diag.Pos
}

// mcpSource declares the tools of a `source MCP from "SERVER"` line. The
// server is not contacted: `nexus make` never starts one, so a tool it
// does not have is an error at the first call.
func (c *checker) mcpSource(s *syntax.Source) {
	sv := &server{pos: s.Path.Pos, spec: manifest.Server{
		Name:      mcpaddr.Name(s.Path.Value),
		Server:    s.Path.Value,
		TimeoutMS: defaultTimeoutMS,
	}}
	isHTTP := mcpaddr.IsHTTP(s.Path.Value)
	if isHTTP {
		if err := mcpaddr.CheckURL(s.Path.Value); err != nil {
			c.sink.Errorf(s.Path.Pos, "%v", err)
		}
	} else if argv, err := mcpaddr.Split(s.Path.Value); err != nil {
		c.sink.Errorf(s.Path.Pos, "mcp server: %v", err)
	} else if prog := argv[0]; !filepath.IsAbs(prog) && strings.ContainsRune(prog, '/') {
		// A program given by a relative path (./server.py, .venv/bin/x)
		// is a file of the project, found as a source file is: relative
		// to the program's folder, whatever folder it is run from. Its
		// arguments are passed as written.
		argv[0] = c.abs(prog)
		if st, err := os.Stat(argv[0]); err != nil || st.IsDir() {
			c.sink.Errorf(s.Path.Pos, "mcp server: program %q not found (looked for %s)", prog, argv[0])
		}
		sv.spec.Server = mcpaddr.Join(argv)
	}
	c.serverOptions(&sv.spec, doc.Parse(s.Doc), isHTTP)
	index := len(c.servers)
	c.servers = append(c.servers, sv)
	for _, it := range s.Items {
		if it.Name.Value == "" {
			// No server can have it: a tool's name is not empty (MCP).
			c.sink.Errorf(it.Name.Pos, "an MCP tool's name is not empty")
			continue
		}
		c.declare(&function{name: it.Alias.Name, source: it.Name.Value, lang: manifest.MCP, server: index, pos: it.Alias.Pos})
	}
}

// serverOptions applies the directives of a `source MCP` line to spec.
// A directive for the other kind of server (@env on an HTTP endpoint,
// @header on a command) has no effect and is warned about, as a command's
// directive written on an argument is.
func (c *checker) serverOptions(spec *manifest.Server, d doc.Doc, isHTTP bool) {
	c.warnUnknown(d)
	kind := "a command"
	if isHTTP {
		kind = "an HTTP server"
	}
	for _, dir := range d.Directives {
		switch {
		case dir.Key == "env" || dir.Key == "cwd":
			if isHTTP {
				c.sink.Warnf(dir.Pos, "directive '%s' has no effect on %s; it applies to a server started as a command", dir.Key, kind)
				continue
			}
		case dir.Key == "bearer" || dir.Key == "header":
			if !isHTTP {
				c.sink.Warnf(dir.Pos, "directive '%s' has no effect on %s; it applies to an http:// or https:// server", dir.Key, kind)
				continue
			}
		case dir.Key != "timeout":
			c.sink.Warnf(dir.Pos, "directive '%s' has no effect on a source; ignored", dir.Key)
			continue
		}
		c.serverOption(spec, dir)
	}
}

// serverOption applies one directive that applies to the server.
func (c *checker) serverOption(spec *manifest.Server, dir doc.Directive) {
	switch dir.Key {
	case "env":
		name, _, _ := strings.Cut(dir.Value, "=")
		if !mcpaddr.ValidEnvName(name) {
			c.sink.Errorf(dir.ValuePos, "env: expected NAME or NAME=VALUE with NAME made of letters, digits and _, got %s", quoteValue(dir.Value))
			return
		}
		spec.Env = append(spec.Env, dir.Value)
	case "cwd":
		c.serverDir(spec, dir)
	case "timeout":
		ms, err := strconv.ParseInt(dir.Value, 10, 64)
		if err != nil || ms <= 0 || ms > maxTimeoutMS {
			c.sink.Errorf(dir.ValuePos, "timeout: expected a positive whole number of milliseconds, got %s", quoteValue(dir.Value))
			return
		}
		spec.TimeoutMS = ms
	case "bearer":
		if !mcpaddr.ValidEnvName(dir.Value) {
			c.sink.Errorf(dir.ValuePos, "bearer: expected the NAME of the environment variable holding the token (letters, digits and _), got %s; the token itself never goes in the program", quoteValue(dir.Value))
			return
		}
		spec.Bearer = dir.Value
	case "header":
		name, value, ok := mcpaddr.ParseHeader(dir.Value)
		if !ok {
			c.sink.Errorf(dir.ValuePos, "header: expected `Name: value` with an HTTP header name, got %s", quoteValue(dir.Value))
			return
		}
		spec.Headers = append(spec.Headers, name+": "+value)
	}
}

// serverDir applies @cwd: relative to the program's folder, made absolute.
// The folder must exist when the program is built, as a source file must:
// the manifest fixes the absolute path, so a folder missing now is a
// mistake in the program, better said at its line than at the first call.
func (c *checker) serverDir(spec *manifest.Server, dir doc.Directive) {
	if dir.Value == "" {
		c.sink.Errorf(dir.ValuePos, "cwd: expected a folder, relative to the program's folder")
		return
	}
	path := c.abs(dir.Value)
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		c.sink.Errorf(dir.ValuePos, "cwd: folder %q not found (looked for %s)", dir.Value, path)
		return
	}
	spec.Dir = path
}

// toolParams finds the argument names of an MCP tool from its signature:
// each argument's @name, or none for a single record argument without
// one, whose fields are the tool's arguments.
func (c *checker) toolParams(f *function) {
	params := f.sig.decl.Params
	names := make([]string, len(params))
	var missing []int
	seen := map[string]bool{}
	for i, p := range params {
		d := doc.Parse(p.Doc)
		dir := d.Get("name")
		if dir == nil || dir.Value == "" {
			missing = append(missing, i)
			continue
		}
		if seen[dir.Value] {
			c.sink.Errorf(dir.ValuePos, "name: '%s' names two arguments of MCP tool '%s'", dir.Value, f.name)
		}
		seen[dir.Value] = true
		names[i] = dir.Value
	}
	if len(params) == 1 && len(missing) == 1 && f.sig.params[0] != nil && f.sig.params[0].Kind == types.Record {
		return
	}
	if len(params) == 1 && len(missing) == 1 && f.sig.params[0] != nil && f.sig.params[0].Kind == types.Unit {
		c.sink.Errorf(params[0].Type.TypePos(), "MCP tool '%s' (%s) takes a () argument: a tool without arguments is written without one, `%s :: T`", f.name, f.source, f.name)
		return
	}
	for _, i := range missing {
		c.sink.Errorf(params[i].Type.TypePos(), "argument %d of MCP tool '%s' (%s) has no @name: write `--' @name ARG` above its type, naming the tool's argument%s",
			i+1, f.name, f.source, recordHint(len(params)))
	}
	if len(names) > 0 {
		f.params = names
	}
}

func recordHint(n int) string {
	if n == 1 {
		return ", or take a record whose fields are the tool's arguments"
	}
	return ""
}

// missingSignature says how to write the signature of a sourced function
// that has none.
func missingSignature(f *function) string {
	if f.lang == manifest.MCP {
		return fmt.Sprintf("MCP tool '%s' has no type signature; add one, such as `%s :: Str -> Str`, with `--' @name ARG` above each argument's type naming the tool's argument", f.name, f.name)
	}
	term := f.name
	if isOperator(term) {
		term = "(" + term + ")"
	}
	return fmt.Sprintf("sourced function '%s' has no type signature; add one such as `%s :: Str -> Int`", f.name, term)
}
