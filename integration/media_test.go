package integration

import (
	"bytes"
	"context"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Media results (mime: on a result's type) and a @default renderer, in a
// program of three languages, through the command line, MCP (the Go SDK's
// client) and nexus serve's JSON API.

var mediaProgram = files{
	"main.loc": `
--' Pictures, tables and a renderer.
module media (logo, table, blob, blobstr, cblob, squares)

import root-py
import root-cpp
import root-go

source Py from "img.py" ("png", "stars")
source Cpp from "table.hpp" ("csv", "cblob")
source Go from "blob.go" ("Blob" as blob, "BlobStr" as blobstr)

--' @mime image/png
type Png = Str

--' A thumbnail is a PNG too (an alias of an alias).
type Thumb = Png

--' mime: text/csv
newtype Csv = Str

--' @mime application/octet-stream
type Bytes = Str

png :: Int -> Thumb
csv :: Int -> Csv
stars :: [Int] -> Str

--' A tiny PNG, made by Python.
logo :: Int -> Thumb
logo n = png n

--' A CSV table, made by C++.
table :: Int -> Csv
table n = csv n

--' Bytes that are not UTF-8, made by Go as a []byte.
blob :: Int -> Bytes

--' The same bytes as a Go string.
blobstr :: Int -> Bytes

--' The same bytes as a C++ std::string.
cblob :: Int -> Bytes

--' Squares, shown as stars by default.
--' @render -s/--stars=stars @default
squares :: [Int] -> [Int]
squares xs = xs
`,
	"img.py": `
import struct, zlib

def _chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xffffffff)

def png(n):
    """A valid n x 1 grey PNG: signature, IHDR, IDAT, IEND."""
    raw = b"".join(b"\x00" + bytes([255]) * n for _ in range(1))
    return (b"\x89PNG\r\n\x1a\n"
            + _chunk(b"IHDR", struct.pack(">IIBBBBB", n, 1, 8, 0, 0, 0, 0))
            + _chunk(b"IDAT", zlib.compress(raw))
            + _chunk(b"IEND", b""))

def stars(xs):
    return "\n".join("*" * x for x in xs)
`,
	"table.hpp": `#pragma once
#include <string>

inline std::string csv(int n) {
    std::string out = "n,square\n";
    for (int i = 1; i <= n; i++) out += std::to_string(i) + "," + std::to_string(i * i) + "\n";
    return out;
}

inline std::string cblob(int n) {
    std::string out;
    const char bytes[] = {'\xff', '\xfe', '\0'};
    for (int i = 0; i < n; i++) out += bytes[i % 3];
    return out;
}
`,
	"blob.go": `package blob

// Blob is n bytes that are no UTF-8: 0xff, 0xfe, 0x00, ...
func Blob(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = []byte{0xff, 0xfe, 0x00}[i%3]
	}
	return b
}

// BlobStr is Blob as a string.
func BlobStr(n int) string { return string(Blob(n)) }
`,
}

func TestMediaResults(t *testing.T) {
	p := build(t, mediaProgram)

	// The command line: the bytes as they are.
	logo := p.ok("logo", "3")
	if img, err := png.Decode(strings.NewReader(logo)); err != nil || img.Bounds().Dx() != 3 || img.Bounds().Dy() != 1 {
		t.Errorf("logo 3: %q is not the 3x1 PNG img.py makes: %v", logo, err)
	}
	if got := p.ok("table", "3"); got != "n,square\n1,1\n2,4\n3,9\n" {
		t.Errorf("table 3: %q", got)
	}
	for _, cmd := range []string{"blob", "blobstr", "cblob"} {
		if got := p.ok(cmd, "4"); got != "\xff\xfe\x00\xff" {
			t.Errorf("%s 4: %q, want the bytes as Go made them", cmd, got)
		}
	}
	if got := p.ok("table", "-f", "json", "1"); got != `"n,square\n1,1\n"`+"\n" {
		t.Errorf("table -f json: %q", got)
	}
	// The @default renderer, and the value past it.
	if got := p.ok("squares", "[1,3]"); got != "*\n***\n" {
		t.Errorf("squares: %q", got)
	}
	if got := p.ok("squares", "-f", "json", "[1,3]"); got != "[1,3]\n" {
		t.Errorf("squares -f json: %q", got)
	}
	if got := p.ok("squares", "--format", "stars", "[2]"); got != "**\n" {
		t.Errorf("squares --format stars: %q", got)
	}

	// MCP, over the Go SDK's client.
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cs, _ := connectCommand(ctx, t, exec.Command(nexusBin, "mcp", p.launcher), append(os.Environ(), "TMPDIR="+p.tmp))
	defer cs.Close()
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s %v: %v %+v", name, args, err, res)
		}
		// A media result is content only.
		if name != "squares" && res.StructuredContent != nil {
			t.Errorf("%s: structured content %v", name, res.StructuredContent)
		}
		if len(res.Content) != 1 {
			t.Fatalf("%s: %d content blocks, want 1", name, len(res.Content))
		}
		return res
	}
	if img, ok := call("logo", map[string]any{"_1": 3}).Content[0].(*mcp.ImageContent); !ok || img.MIMEType != "image/png" || string(img.Data) != logo {
		t.Errorf("logo over MCP: %+v, want an image block of the PNG's bytes", call("logo", map[string]any{"_1": 3}).Content[0])
	}
	if text, ok := call("table", map[string]any{"_1": 2}).Content[0].(*mcp.TextContent); !ok || text.Text != "n,square\n1,1\n2,4\n" {
		t.Errorf("table over MCP: %+v, want a text block of the CSV", text)
	}
	if res, ok := call("blob", map[string]any{"_1": 4}).Content[0].(*mcp.EmbeddedResource); !ok || res.Resource.MIMEType != "application/octet-stream" || string(res.Resource.Blob) != "\xff\xfe\x00\xff" {
		t.Errorf("blob over MCP: %+v, want an embedded resource of the bytes", res)
	}
	for _, tc := range []struct {
		render any // nil: left out
		want   string
	}{{nil, "*\n***"}, {"stars", "*\n***"}, {"raw", "[1,3]"}} {
		args := map[string]any{"_1": []int{1, 3}}
		if tc.render != nil {
			args["_render"] = tc.render
		}
		if got := toolText(call("squares", args)); got != tc.want {
			t.Errorf("squares with _render %v: %q, want %q", tc.render, got, tc.want)
		}
	}
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range list.Tools {
		switch tl.Name {
		case "logo":
			if tl.OutputSchema != nil || !strings.Contains(tl.Description, "image/png") {
				t.Errorf("logo listed as %+v", tl)
			}
		case "squares":
			schema := marshalJSON(t, tl.InputSchema)
			if !bytes.Contains(schema, []byte(`"default":"stars"`)) || !bytes.Contains(schema, []byte(`"enum":["raw","stars"]`)) {
				t.Errorf("squares' _render: %s", schema)
			}
		}
	}

	// nexus serve's JSON API.
	s := startHTTP(t, p.tmp, nil, "serve", p.launcher)
	for _, c := range []struct {
		path, body, ctype, want string
		status                  int
	}{
		{"/call/media/logo", `{"_1":3}`, "image/png", logo, 200},
		{"/call/media/table", `{"_1":1}`, "text/csv", "n,square\n1,1\n", 200},
		{"/call/media/blob", `{"_1":2}`, "application/octet-stream", "\xff\xfe", 200},
		{"/call/media/squares", `{"_1":[2]}`, "text/plain; charset=utf-8", "**\n", 200},
		{"/call/media/squares?render=stars", `{"_1":[2]}`, "text/plain; charset=utf-8", "**\n", 200},
		{"/call/media/squares?render=raw", `{"_1":[2]}`, "application/json", `{"result":[2]}` + "\n", 200},
		{"/call/media/squares?render=nope", `{"_1":[2]}`, "application/json", "raw, stars", 400},
		{"/call/media/logo?render=stars", `{"_1":2}`, "application/json", "no output actions", 400},
	} {
		r := s.do(http.MethodPost, c.path, c.body)
		ok := r.status == c.status && r.header.Get("Content-Type") == c.ctype
		if c.status == 200 {
			ok = ok && string(r.body) == c.want
		} else {
			ok = ok && strings.Contains(string(r.body), c.want)
		}
		if !ok {
			t.Errorf("POST %s %s: %d %q %q; want %d %q %q", c.path, c.body, r.status, r.header.Get("Content-Type"), r.body, c.status, c.ctype, c.want)
		}
	}
}

// TestMediaBuildErrors: a mime where it does not belong, and an '@'
// before an action's function, stop the build with their place.
func TestMediaBuildErrors(t *testing.T) {
	for _, c := range []struct {
		edit [2]string
		want string
	}{
		{[2]string{"--' A tiny PNG, made by Python.", "--' @mime image/png"}, "main.loc:29:5: mime: is not allowed on a command"},
		{[2]string{"type Bytes = Str", "type Bytes = Int"}, "main.loc:22:5: mime: type Bytes is Int, whose values are not raw content"},
		{[2]string{"--stars=stars", "--stars=@stars"}, "main.loc:47:24: render: '@' before a target is not allowed"},
	} {
		stderr := editFails(t, mediaProgram, c.edit[:])
		if !strings.Contains(stderr, c.want) {
			t.Errorf("%q: %s\nwant %q", c.edit, stderr, c.want)
		}
	}
}
