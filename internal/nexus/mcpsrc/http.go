package mcpsrc

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpTransport is the SDK's Streamable HTTP client transport, sending the
// bearer token and extra headers with every request.
func (s *Source) httpTransport() mcp.Transport {
	headers := http.Header{}
	for k, v := range s.opts.Headers {
		headers.Set(k, v)
	}
	if s.opts.Bearer != "" {
		headers.Set("Authorization", "Bearer "+s.opts.Bearer)
	}
	return &mcp.StreamableClientTransport{
		Endpoint:   s.opts.Server,
		HTTPClient: &http.Client{Transport: &headerTransport{base: http.DefaultTransport, headers: headers}},
	}
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers http.Header
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, vs := range t.headers {
		req.Header[k] = vs
	}
	return t.base.RoundTrip(req)
}
