package mcp

import (
	"encoding/json"
	"testing"

	"github.com/nexus-run/nexus/internal/nexus/tool"
)

func TestMediaResult(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\xff"
	const png64 = "iVBORw0KGgoA/w=="
	cases := []struct {
		name, version, mime, data, want string
	}{
		{"image", V20250618, "image/png", png, `{"content":[{"type":"image","data":"` + png64 + `","mimeType":"image/png"}]}`},
		{"image with parameters", V20241105, "image/PNG; q=1", png, `{"content":[{"type":"image","data":"` + png64 + `","mimeType":"image/png"}]}`},
		{"audio", V20250326, "audio/wav", "RIFF", `{"content":[{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}]}`},
		{"audio before 2025-03-26", V20241105, "audio/wav", "RIFF", `{"content":[{"type":"resource","resource":{"uri":"nexus://result/t","mimeType":"audio/wav","blob":"UklGRg=="}}]}`},
		{"text", V20251125, "text/csv", "a,b\n1,2\n", `{"content":[{"type":"text","text":"a,b\n1,2\n"}]}`},
		{"text that is not UTF-8", V20251125, "text/plain", "a\xff", `{"content":[{"type":"resource","resource":{"uri":"nexus://result/t","mimeType":"text/plain","blob":"Yf8="}}]}`},
		{"other", V20251125, "application/pdf", "%PDF", `{"content":[{"type":"resource","resource":{"uri":"nexus://result/t","mimeType":"application/pdf","blob":"JVBERg=="}}]}`},
		{"stateless", V20260728, "image/png", png, `{"resultType":"complete","content":[{"type":"image","data":"` + png64 + `","mimeType":"image/png"}]}`},
	}
	for _, c := range cases {
		got := mediaResult(c.version, "t", tool.Result{Mime: c.mime, Media: []byte(c.data)})
		if string(got) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
		if !json.Valid(got) {
			t.Errorf("%s: not JSON: %s", c.name, got)
		}
	}
}
