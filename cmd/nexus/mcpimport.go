package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/nexus-run/nexus/internal/codegen/mcpimport"
	"github.com/nexus-run/nexus/internal/mcpaddr"
	"github.com/nexus-run/nexus/internal/nexus/mcpsrc"
)

func mcpImportCommand() *cli.Command {
	return &cli.Command{
		Name:      "mcp-import",
		Usage:     "print a .loc program importing the tools of an MCP server",
		ArgsUsage: "SERVER",
		Description: "Connects to SERVER (a command line, run without a shell, or an http:// or\n" +
			"https:// Streamable HTTP endpoint), lists its tools and prints a .loc program\n" +
			"that imports them all: the source MCP line, with the connection options\n" +
			"given here as its directives, a signature per tool and the records its\n" +
			"schemas need. `nexus make` builds it unchanged; every tool becomes a command.\n" +
			"--fragment prints only the source line, records and signatures, to paste\n" +
			"into a program of your own.\n" +
			"\n" +
			"A tool whose name is not a program name is imported under an alias (get-sum\n" +
			"as getSum); --as PREFIX starts every alias with PREFIX (--as ev: evEcho,\n" +
			"evGetSum). Types follow the tools' JSON Schemas: integer Int, number Real,\n" +
			"string Str, boolean Bool, an array [T], an object with properties a record,\n" +
			"an argument that is not required ?T, anything less precise Json. A tool\n" +
			"returns the record of its output schema when it has one, else Str: its text.\n" +
			"\n" +
			"The connection options are written as they are given: --cwd is read relative\n" +
			"to the .loc file's folder, and the values of --env NAME=VALUE and --header end\n" +
			"up in the program; pass secrets by name (--env NAME, --bearer VAR).\n" +
			"\n" +
			"Examples:\n" +
			"   nexus mcp-import 'npx -y @modelcontextprotocol/server-everything' > everything.loc\n" +
			"   nexus make everything.loc && ./server-everything getSum 2 3\n" +
			"   nexus mcp-import 'uvx mcp-server-time' --as tm --fragment >> main.loc\n" +
			"   nexus mcp-import https://docs.example.com/mcp --bearer DOCS_KEY",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "as", Usage: "start the name of every imported tool with `PREFIX`"},
			&cli.StringFlag{Name: "module", Usage: "name the program `NAME` (default: after the server)"},
			&cli.BoolFlag{Name: "fragment", Usage: "print no module line: the source line, records and signatures only"},
			&cli.GenericFlag{Name: "env", Value: &repeated{}, Usage: "pass the variable `NAME`, or set NAME=VALUE, for a command (repeatable)"},
			&cli.StringFlag{Name: "cwd", Usage: "run the command in `DIR`"},
			&cli.IntFlag{Name: "timeout", DefaultText: "60000", Usage: "`MS` milliseconds one request may take"},
			&cli.StringFlag{Name: "bearer", Usage: "send Authorization: Bearer and the value of the variable `VAR` (HTTP)"},
			&cli.GenericFlag{Name: "header", Value: &repeated{}, Usage: "send the header `'Name: value'` (HTTP; repeatable)"},
		},
		Action: mcpImport,
	}
}

// mcpImport is the action of nexus mcp-import.
func mcpImport(c *cli.Context) error {
	stderr := &tail{max: maxServerStderr}
	opts, src, err := importOptions(c, stderr)
	if err != nil {
		return err
	}
	defer src.Close()
	ctx, stop := onSignals(func() { src.Close() })
	defer stop()
	tools, err := src.Tools(ctx)
	if err != nil && context.Cause(ctx) == errSignal {
		// Ctrl-C is no failure of the server's: say so, and exit as
		// nexus run does.
		fmt.Fprintln(c.App.ErrWriter, "nexus: mcp-import: interrupted")
		return exitCode(130)
	}
	if err != nil {
		// What the server said may tell why; on success it is only noise
		// (server-everything prints a stack trace when its stdin closes).
		c.App.ErrWriter.Write(stderr.bytes())
		return err
	}
	if len(tools) == 0 {
		return fmt.Errorf("mcp server %s lists no tools; there is nothing to import", mcpaddr.Redact(opts.Server))
	}
	text, skipped := mcpimport.Generate(opts, tools)
	for _, s := range skipped {
		fmt.Fprintf(c.App.ErrWriter, "nexus: mcp-import: tool %q is not imported: %s\n", s.Tool, s.Reason)
	}
	if len(skipped) == len(tools) {
		return fmt.Errorf("mcp server %s: none of its tools can be imported", mcpaddr.Redact(opts.Server))
	}
	_, err = fmt.Fprint(c.App.Writer, text)
	return err
}

// prefixPattern is what --as accepts: the start of a function name.
var prefixPattern = regexp.MustCompile(`^[a-z][A-Za-z0-9_]*$`)

// modulePattern is what --module accepts: lowercase words joined by - or
// . (docs/language.md).
var modulePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*([-.][a-z][a-z0-9_]*)*$`)

// importOptions reads the command line of mcp-import into the generator's
// options and the connection to the server; every mistake is a usage
// error.
func importOptions(c *cli.Context, stderr io.Writer) (mcpimport.Options, *mcpsrc.Source, error) {
	fail := func(format string, a ...any) (mcpimport.Options, *mcpsrc.Source, error) {
		return mcpimport.Options{}, nil, usageError{fmt.Errorf(format, a...)}
	}
	if c.NArg() != 1 {
		return fail("mcp-import needs one server, quoted when it is a command with arguments: nexus mcp-import 'npx -y PACKAGE'")
	}
	if err := checkBounds(c); err != nil {
		return mcpimport.Options{}, nil, err
	}
	opts := mcpimport.Options{
		Server:   c.Args().First(),
		Module:   c.String("module"),
		Prefix:   c.String("as"),
		Fragment: c.Bool("fragment"),
		Env:      c.Generic("env").(*repeated).values,
		Cwd:      c.String("cwd"),
		Timeout:  c.Int("timeout"),
		Bearer:   c.String("bearer"),
		Headers:  c.Generic("header").(*repeated).values,
	}
	if opts.Prefix != "" && !prefixPattern.MatchString(opts.Prefix) {
		return fail("--as %s: a prefix is a lowercase letter, then letters, digits and _", opts.Prefix)
	}
	if opts.Module != "" && !modulePattern.MatchString(opts.Module) {
		return fail("--module %s: a module name is lowercase words joined by - or .", opts.Module)
	}
	http := mcpaddr.IsHTTP(opts.Server)
	switch {
	case http && (len(opts.Env) > 0 || opts.Cwd != ""):
		return fail("--env and --cwd apply to a server started as a command, and %s is an HTTP endpoint", mcpaddr.Redact(opts.Server))
	case !http && (opts.Bearer != "" || len(opts.Headers) > 0):
		return fail("--bearer and --header apply to an HTTP server, and %s is a command", opts.Server)
	}
	headers := map[string]string{}
	for _, h := range opts.Headers {
		name, value, ok := mcpaddr.ParseHeader(h)
		if !ok {
			return fail("--header %q: expected 'Name: value' with an HTTP header name", h)
		}
		headers[name] = value
	}
	var bearer string
	if opts.Bearer != "" {
		v, ok := os.LookupEnv(opts.Bearer)
		if !ok {
			return mcpimport.Options{}, nil, fmt.Errorf("--bearer %s: the variable %s is not set", opts.Bearer, opts.Bearer)
		}
		bearer = v
	}
	src, err := mcpsrc.New(mcpsrc.Options{
		Server:  opts.Server,
		Stderr:  stderr,
		Env:     opts.Env,
		Dir:     opts.Cwd,
		Bearer:  bearer,
		Headers: headers,
		Timeout: time.Duration(opts.Timeout) * time.Millisecond,
	})
	if err != nil {
		return fail("%v", err)
	}
	return opts, src, nil
}

// maxServerStderr bounds what mcp-import keeps of a server's stderr to
// show when the import fails: the end, where the reason usually is.
const maxServerStderr = 16 << 10

// tail keeps the last max bytes written to it. The server's stderr is
// copied into it while the command reads it.
type tail struct {
	max int
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.buf...)
}

// repeated is the value of a flag given any number of times, each value
// kept whole: urfave/cli's StringSliceFlag would split NAME=a,b at the
// comma.
type repeated struct{ values []string }

func (r *repeated) Set(v string) error {
	if v == "" {
		return errors.New("expected a value")
	}
	r.values = append(r.values, v)
	return nil
}

func (r *repeated) String() string { return strings.Join(r.values, ", ") }
