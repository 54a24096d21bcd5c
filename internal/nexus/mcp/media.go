package mcp

import (
	"encoding/base64"
	"mime"
	"strings"
	"unicode/utf8"

	"github.com/nexus-run/nexus/internal/nexus/tool"
)

// mediaResult encodes the CallToolResult of a media result (a command
// whose result type has a mime:) for protocol version version: one
// content block by the media type, and no structured content.
//
//   - image/*: an image block, its data base64;
//   - audio/*: an audio block from 2025-03-26 on, which added it; before,
//     an embedded resource, which every revision has;
//   - text/*: a text block with the text itself, when it is UTF-8 (a JSON
//     string cannot carry other bytes); else an embedded resource;
//   - anything else: an embedded resource with a base64 blob.
//
// An embedded resource's uri names the tool that made it
// (nexus://result/<tool>): it is not a resource the server lists.
func mediaResult(version, toolName string, res tool.Result) []byte {
	kind := mediaKind(res.Mime)
	if kind == "audio" && version < V20250326 {
		kind = "resource"
	}
	if kind == "text" && !utf8.Valid(res.Media) {
		kind = "resource"
	}
	b := make([]byte, 0, base64.StdEncoding.EncodedLen(len(res.Media))+160)
	b = append(b, '{')
	if stateless(version) {
		b = append(b, `"resultType":"complete",`...)
	}
	b = append(b, `"content":[`...)
	switch kind {
	case "text":
		b = append(b, `{"type":"text","text":`...)
		b = tool.AppendString(b, string(res.Media))
	case "image", "audio":
		b = append(b, `{"type":"`+kind+`","data":"`...)
		b = base64.StdEncoding.AppendEncode(b, res.Media)
		b = append(b, `","mimeType":`...)
		b = tool.AppendString(b, bareType(res.Mime))
	default:
		b = append(b, `{"type":"resource","resource":{"uri":`...)
		b = tool.AppendString(b, "nexus://result/"+toolName)
		b = append(b, `,"mimeType":`...)
		b = tool.AppendString(b, res.Mime)
		b = append(b, `,"blob":"`...)
		b = base64.StdEncoding.AppendEncode(b, res.Media)
		b = append(b, `"}`...)
	}
	return append(b, "}]}"...)
}

// mediaKind is the content block kind a media type asks for: "image",
// "audio", "text" or "resource".
func mediaKind(mimeType string) string {
	top, _, _ := strings.Cut(bareType(mimeType), "/")
	switch top {
	case "image", "audio", "text":
		return top
	}
	return "resource"
}

// bareType is a media type without its parameters, lower-case, as the
// mimeType of an image or audio block (image/png, not image/png; q=1).
func bareType(mimeType string) string {
	if t, _, err := mime.ParseMediaType(mimeType); err == nil {
		return t
	}
	return mimeType
}
