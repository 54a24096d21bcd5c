package clientconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nexus-run/nexus/internal/suggest"
)

// Client is an MCP client whose configuration file lists its servers under
// ServersKey.
type Client struct {
	// Name is how the command line names the client.
	Name string
	// Title is the client's name for people.
	Title string
	// Typed entries say "type": "stdio", as the client writes its own.
	Typed bool
	// file returns the configuration file's usual path for this user.
	file func() (string, error)
}

// Clients are the clients `nexus install-client` knows, by Name.
var Clients = []*Client{
	{Name: "claude-desktop", Title: "Claude Desktop", file: claudeDesktopFile},
	{Name: "claude-code", Title: "Claude Code", Typed: true, file: claudeCodeFile},
	{Name: "cursor", Title: "Cursor", file: cursorFile},
}

// Lookup returns the client called name, case ignored.
func Lookup(name string) (*Client, error) {
	names := make([]string, len(Clients))
	for i, c := range Clients {
		if strings.EqualFold(c.Name, name) {
			return c, nil
		}
		names[i] = c.Name
	}
	return nil, fmt.Errorf("unknown MCP client %q%s; known: %s", name, suggest.Hint(name, names), strings.Join(names, ", "))
}

// File returns the path of the client's configuration file for this user.
func (c *Client) File() (string, error) {
	f, err := c.file()
	if err != nil {
		return "", fmt.Errorf("find %s's configuration file (name it with --config): %w", c.Title, err)
	}
	return f, nil
}

// claudeDesktopFile is in the user's configuration folder: ~/Library/
// Application Support/Claude on macOS, %APPDATA%\Claude on Windows,
// ~/.config/Claude (or $XDG_CONFIG_HOME/Claude) on Linux.
func claudeDesktopFile() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "Claude", "claude_desktop_config.json"), nil
}

// claudeCodeFile is ~/.claude.json, whose top-level mcpServers are the
// servers of the user scope, available in every project. Claude Code
// keeps it in $CLAUDE_CONFIG_DIR instead when that is set.
func claudeCodeFile() (string, error) {
	if dir := os.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		return filepath.Join(dir, ".claude.json"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".claude.json"), nil
}

// cursorFile is ~/.cursor/mcp.json, Cursor's global servers.
func cursorFile() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".cursor", "mcp.json"), nil
}
