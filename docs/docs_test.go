// Package docs holds the project's documents; its test checks that every
// relative link in the project's Markdown leads somewhere: to a file or
// folder inside the repository, and, for a link into another Markdown file
// with a #fragment, to a heading of that file.
package docs

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// root is the repository's root, seen from this package's folder (where go
// test runs it).
const root = ".."

// TestMarkdownLinks fails for every relative link, in any Markdown file of
// the project, whose target does not exist inside the repository.
func TestMarkdownLinks(t *testing.T) {
	files := markdownFiles(t)
	if !slices.Contains(files, "README.md") || !slices.Contains(files, "docs/mcp.md") {
		t.Fatalf("found %d Markdown files, without README.md or docs/mcp.md: %q", len(files), files)
	}
	anchors := map[string]map[string]bool{} // by file, read once
	for _, file := range files {
		data, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range links(string(data)) {
			if err := checkLink(file, l.target, anchors); err != nil {
				t.Errorf("%s:%d: link %s: %v", file, l.line, l.target, err)
			}
		}
	}
}

// markdownFiles lists the project's Markdown files, relative to root, with
// slashes: those git tracks, or, outside a git checkout, those on disk but
// for installed packages (node_modules) and hidden folders (.venv, .git).
func markdownFiles(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--", "*.md").Output()
	if err == nil {
		var files []string
		for _, f := range strings.Split(string(out), "\x00") {
			if f != "" && !strings.Contains("/"+f, "/node_modules/") {
				files = append(files, f)
			}
		}
		return files
	}
	var files []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (name == "node_modules" || strings.HasPrefix(name, ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("list Markdown files: %v", err)
	}
	return files
}

// link is one link target and the line it is on.
type link struct {
	line   int
	target string
}

var (
	// inlineLink is [text](target) or [text](target "title"), images too.
	inlineLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	// refDef is a reference definition: [name]: target.
	refDef = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?`)
	// codeSpan is inline code, whose text is not Markdown.
	codeSpan = regexp.MustCompile("`+[^`]*`+")
)

// links finds the link targets of a Markdown text, outside code blocks and
// code spans.
func links(text string) []link {
	var out []link
	for _, l := range prose(text) {
		line := codeSpan.ReplaceAllString(l.text, "")
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			out = append(out, link{line: l.n, target: m[1]})
		}
		if m := refDef.FindStringSubmatch(line); m != nil {
			out = append(out, link{line: l.n, target: m[1]})
		}
	}
	return out
}

// numbered is a line of text and its number, from 1.
type numbered struct {
	n    int
	text string
}

// prose returns the lines of a Markdown text that are outside fenced code
// blocks, where links and headings are Markdown.
func prose(text string) []numbered {
	var out []numbered
	fence := ""
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		case fenceOf(trimmed) != "":
			fence = fenceOf(trimmed)
		default:
			out = append(out, numbered{i + 1, line})
		}
	}
	return out
}

// fenceOf returns the fence a line opens a code block with (``` or ~~~,
// three or more), or "".
func fenceOf(line string) string {
	for _, c := range []string{"`", "~"} {
		if strings.HasPrefix(line, c+c+c) {
			return line[:len(line)-len(strings.TrimLeft(line, c))]
		}
	}
	return ""
}

// scheme opens a link that is not a path: https:, mailto: and the like.
var scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// checkLink checks target, a link in file (relative to root). Links with a
// scheme and links to a heading of the same file are not checked.
func checkLink(file, target string, anchors map[string]map[string]bool) error {
	if target == "" {
		return fmt.Errorf("empty target")
	}
	if scheme.MatchString(target) || strings.HasPrefix(target, "#") {
		return nil
	}
	path, fragment, _ := strings.Cut(target, "#")
	path, _, _ = strings.Cut(path, "?")
	path, err := url.PathUnescape(path)
	if err != nil {
		return err
	}
	var rel string
	if strings.HasPrefix(path, "/") {
		rel = filepath.Clean(strings.TrimPrefix(path, "/")) // from the repository's root, as GitHub reads it
	} else {
		rel = filepath.Join(filepath.Dir(filepath.FromSlash(file)), filepath.FromSlash(path))
	}
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("points outside the repository")
	}
	st, err := os.Stat(filepath.Join(root, rel))
	if err != nil {
		return fmt.Errorf("no such file or folder: %s", filepath.ToSlash(rel))
	}
	if fragment == "" || st.IsDir() || !strings.HasSuffix(rel, ".md") {
		return nil
	}
	key := filepath.ToSlash(rel)
	if anchors[key] == nil {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return err
		}
		anchors[key] = headingAnchors(string(data))
	}
	if !anchors[key][fragment] {
		return fmt.Errorf("%s has no heading #%s", key, fragment)
	}
	return nil
}

var (
	// heading is an ATX heading: # to ######, then its text.
	heading = regexp.MustCompile(`^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
	// htmlAnchor is an explicit anchor: <a name="x"> or id="x".
	htmlAnchor = regexp.MustCompile(`(?:name|id)="([^"]+)"`)
	// mdLink is a link inside a heading, whose text is what shows.
	mdLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// headingAnchors returns the fragments a Markdown text's headings (and
// explicit HTML anchors) can be linked by, as GitHub makes them.
func headingAnchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range prose(text) {
		for _, m := range htmlAnchor.FindAllStringSubmatch(l.text, -1) {
			out[m[1]] = true
		}
		m := heading.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// slug is GitHub's anchor for a heading: the text as shown, lowercased,
// without punctuation but - and _, spaces turned into hyphens.
func slug(text string) string {
	text = mdLink.ReplaceAllString(text, "$1")
	var b bytes.Buffer
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestLinkChecker checks the checker on made-up files: a test of links that
// could not fail would be worse than none.
func TestLinkChecker(t *testing.T) {
	page := "# Title\n\n## Two words, `code` and [a link](x.md)\n\n## Title\n\n```\n[not a link](missing.md)\n# not a heading\n```\n" +
		"See [one](docs/mcp.md), `[code](missing.md)` and ![img](missing.png \"title\").\n[ref]: README.md\n"
	gotLinks := links(page)
	want := []link{{3, "x.md"}, {11, "docs/mcp.md"}, {11, "missing.png"}, {12, "README.md"}}
	if !slices.Equal(gotLinks, want) {
		t.Errorf("links = %v, want %v", gotLinks, want)
	}
	gotAnchors := headingAnchors(page)
	for _, a := range []string{"title", "two-words-code-and-a-link", "title-1"} {
		if !gotAnchors[a] {
			t.Errorf("no anchor %q in %v", a, gotAnchors)
		}
	}
	if gotAnchors["not-a-heading"] {
		t.Errorf("a heading inside a code block counts: %v", gotAnchors)
	}

	cases := []struct {
		file, target string
		ok           bool
	}{
		{"README.md", "docs/mcp.md", true},
		{"README.md", "docs/", true},
		{"README.md", "docs/mcp.md#property-names", true},
		{"docs/mcp.md", "pool-protocol.md#standard-output", true},
		{"docs/mcp.md", "../README.md", true},
		{"docs/mcp.md", "/docs/language.md", true},
		{"docs/mcp.md", "https://example.com/missing.md", true},
		{"docs/mcp.md", "#anything", true},
		{"README.md", "docs/missing.md", false},
		{"README.md", "docs/mcp.md#no-such-heading", false},
		{"docs/mcp.md", "mcp.md#flags-", false},
		{"README.md", "../elsewhere/docs/language.md", false},
		{"docs/mcp.md", "../../outside.md", false},
		{"README.md", "", false},
	}
	for _, c := range cases {
		err := checkLink(c.file, c.target, map[string]map[string]bool{})
		if (err == nil) != c.ok {
			t.Errorf("checkLink(%q, %q) = %v, want ok=%v", c.file, c.target, err, c.ok)
		}
	}
}
