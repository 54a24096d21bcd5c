package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/nexus-run/nexus/internal/clientconfig"
	"github.com/nexus-run/nexus/internal/mcpaddr"
	"github.com/nexus-run/nexus/manifest"
)

// The commands that connect programs to MCP clients. Every entry they
// write starts this nexus binary by its absolute path on the program's
// manifest, and the manifest names the Python interpreter by its absolute
// path too, so a client may start it with any environment, or none.

func mcpConfigCommand() *cli.Command {
	return &cli.Command{
		Name:      "mcp-config",
		Usage:     "print the mcpServers entries that add programs to an MCP client",
		ArgsUsage: "PROG...",
		Description: "Prints one mcpServers object with an entry per program, named after its\n" +
			"launcher, to paste into an MCP client's configuration (or let install-client\n" +
			"merge it). Each entry starts this nexus binary by its absolute path, and the\n" +
			"program's Python by the path recorded at build time, so it works whatever\n" +
			"environment the client starts it with. `./PROG --mcp-config` prints the same\n" +
			"for one program.\n" +
			"\n" +
			"Example:\n" +
			"   nexus mcp-config ./chem ./seq",
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageError{errors.New("mcp-config needs at least one program: nexus mcp-config PROG...")}
			}
			servers, err := serversFor(c.Args().Slice(), c.App.ErrWriter)
			if err != nil {
				return err
			}
			return printServers(servers, c.App.Writer)
		},
	}
}

func installClientCommand() *cli.Command {
	names := make([]string, len(clientconfig.Clients))
	for i, cl := range clientconfig.Clients {
		names[i] = cl.Name
	}
	clients := strings.Join(names, "|")
	return &cli.Command{
		Name:      "install-client",
		Usage:     "add programs to an MCP client's configuration (" + clients + ")",
		ArgsUsage: clients + " PROG...",
		Description: "Merges an entry per program (named after its launcher, as mcp-config prints\n" +
			"it) into the client's mcpServers. An entry of the same name is replaced; every\n" +
			"other entry and setting stays as it was. The old file is kept beside it as\n" +
			"FILE.nexus-backup-TIME. A file that is not plain JSON (comments, trailing\n" +
			"commas) or is read-only is left alone. Restart the client to load the programs.\n" +
			"\n" +
			"The files, for this user:\n" + clientFiles() +
			"\n" +
			"Examples:\n" +
			"   nexus install-client claude-desktop ./chem\n" +
			"   nexus install-client cursor ./chem ./seq --dry-run\n" +
			"   nexus install-client claude-code ./chem --config .mcp.json   (a project's servers)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "config", Usage: "merge into `FILE` instead of the client's usual one"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the merged file instead of writing it"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() < 2 {
				return usageError{fmt.Errorf("install-client needs a client and at least one program: nexus install-client %s PROG...", clients)}
			}
			client, err := clientconfig.Lookup(c.Args().First())
			if err != nil {
				return usageError{err}
			}
			// An empty --config (an unset variable, say) must not fall
			// back to the client's real file.
			if c.IsSet("config") && c.String("config") == "" {
				return usageError{errors.New("--config names an empty file name; give the configuration file, or leave --config out for the client's usual one")}
			}
			servers, err := serversFor(c.Args().Slice()[1:], c.App.ErrWriter)
			if err != nil {
				return err
			}
			file := c.String("config")
			if file == "" {
				if file, err = client.File(); err != nil {
					return err
				}
			}
			if c.Bool("dry-run") {
				merged, _, err := clientconfig.Preview(file, servers, client.Typed)
				if err != nil {
					return err
				}
				_, err = c.App.Writer.Write(merged)
				return err
			}
			res, err := clientconfig.Install(file, servers, client.Typed)
			if err != nil {
				return err
			}
			reportInstall(c.App.Writer, client, servers, res)
			return nil
		},
	}
}

// clientFiles lists each client's configuration file, one a line.
func clientFiles() string {
	var b strings.Builder
	for _, cl := range clientconfig.Clients {
		file, err := cl.File()
		if err != nil {
			file = "(unknown: " + err.Error() + ")"
		}
		fmt.Fprintf(&b, "   %-16s %s\n", cl.Name, file)
	}
	return b.String()
}

// reportInstall tells the user what install-client did.
func reportInstall(w io.Writer, client *clientconfig.Client, servers []clientconfig.Server, res *clientconfig.Installed) {
	names := make([]string, len(servers))
	for i, s := range servers {
		names[i] = s.Name
	}
	fmt.Fprintf(w, "Added %s to %s's configuration %s.\n", strings.Join(names, ", "), client.Title, res.File)
	if len(res.Replaced) > 0 {
		fmt.Fprintf(w, "Replaced the entries already named %s.\n", strings.Join(res.Replaced, ", "))
	}
	if res.Backup != "" {
		fmt.Fprintf(w, "The file as it was is in %s.\n", res.Backup)
	}
	fmt.Fprintf(w, "Restart %s to load the new entries.\n", client.Title)
}

// printConfig prints the entry an MCP client (Claude Desktop, Claude Code,
// Cursor) needs to start m as a server, named name (`./prog --mcp-config`).
func printConfig(m *manifest.Manifest, name string, w io.Writer) error {
	s, err := serverFor(m, name)
	if err != nil {
		return err
	}
	return printServers([]clientconfig.Server{s}, w)
}

// printServers prints one mcpServers object holding servers.
func printServers(servers []clientconfig.Server, w io.Writer) error {
	out, _, err := clientconfig.Merge(nil, servers, false)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// serversFor loads the programs at paths and returns their servers, named
// after their launchers. Two programs of the same name cannot both be
// servers of one client; the same program named twice, by any path or
// link, is one server.
// Programs that will not work in a client's environment are reported on
// warn.
func serversFor(paths []string, warn io.Writer) ([]clientconfig.Server, error) {
	var servers []clientconfig.Server
	var given []string // the path that gave each server
	var real []string  // each server's manifest, links resolved
	at := map[string]int{}
	for _, path := range paths {
		m, err := manifest.Load(path)
		if err != nil {
			return nil, err
		}
		s, err := serverFor(m, progName(m))
		if err != nil {
			return nil, err
		}
		file := filepath.Join(m.Dir, manifest.FileName)
		if resolved, err := filepath.EvalSymlinks(file); err == nil {
			file = resolved
		}
		if i, ok := at[s.Name]; ok {
			if real[i] == file {
				continue
			}
			return nil, fmt.Errorf("programs %s and %s are both named %s, and an MCP client knows its servers by name: rebuild one under another name (nexus make -o NAME)", given[i], path, s.Name)
		}
		at[s.Name] = len(servers)
		servers = append(servers, s)
		given = append(given, path)
		real = append(real, file)
		warnUnrecordedPython(m, path, warn)
		warnServerEnv(m, s.Name, warn)
	}
	return servers, nil
}

// serverFor is program m as a server named name: this nexus binary, by
// its real path, serving m's manifest over stdio.
func serverFor(m *manifest.Manifest, name string) (clientconfig.Server, error) {
	self, err := os.Executable()
	if err != nil {
		return clientconfig.Server{}, fmt.Errorf("find the nexus binary: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(self); err == nil {
		self = resolved
	}
	s := clientconfig.Server{Name: name, Command: self, Args: []string{"mcp", filepath.Join(m.Dir, manifest.FileName)}}
	if path := os.Getenv("PATH"); path != "" && startsCommands(m) {
		// A client started from a GUI (Claude Desktop on macOS) does not
		// load the user's shell, so npx, uvx or node would not be found
		// on the PATH it gives: give the servers the PATH they were made
		// with.
		s.Env = map[string]string{"PATH": path}
	}
	return s, nil
}

// startsCommands reports whether m calls tools of an MCP server it starts
// as a command, which is looked up on PATH.
func startsCommands(m *manifest.Manifest) bool {
	for _, sv := range m.Servers {
		if !mcpaddr.IsHTTP(sv.Server) {
			return true
		}
	}
	return false
}

// warnServerEnv warns about what m's MCP servers read from nexus's
// environment, which a client does not pass unless its entry says so.
func warnServerEnv(m *manifest.Manifest, name string, warn io.Writer) {
	for _, sv := range m.Servers {
		var names []string
		for _, e := range sv.Env {
			if !strings.Contains(e, "=") {
				names = append(names, e)
			}
		}
		if sv.Bearer != "" {
			names = append(names, sv.Bearer)
		}
		if len(names) > 0 {
			fmt.Fprintf(warn, "nexus: note: %s's MCP server %s reads %s from nexus's environment: add %s to the entry's \"env\" in the client's configuration\n",
				name, sv.Name, strings.Join(names, ", "), pluralIt(len(names)))
		}
	}
}

func pluralIt(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// warnUnrecordedPython warns when m's Python pool would look for python3
// on the client's PATH: m was built before nexus recorded interpreters.
func warnUnrecordedPython(m *manifest.Manifest, path string, warn io.Writer) {
	if p := m.Pool(manifest.Python); p != nil && p.Interpreter == "" {
		fmt.Fprintf(warn, "nexus: warning: %s was built without a recorded Python interpreter, so its Python functions need python3 (with grpcio and msgpack) on the PATH the client gives: rebuild it with `nexus make`\n", path)
	}
}
