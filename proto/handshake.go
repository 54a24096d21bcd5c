package proto

// The go-plugin handshake every pool and the nexus agree on before talking:
// protocol version 1 (a pool's handshake line is `1|1|unix|<socket>|grpc`)
// and a magic cookie, which only keeps pools from running when started by
// hand. The nexus (internal/nexus/pool) builds its plugin.HandshakeConfig from these
// and the Go pool runtime (pools/go) checks and writes the handshake with
// them; the Python runtime (pools/python/nexus_pool/plugin.py) and the C++
// one (pools/cpp) hold the same values.
const (
	HandshakeVersion = 1
	MagicCookieKey   = "NEXUS_POOL_COOKIE"
	MagicCookieValue = "9b1d4c1e-nexus-pool"
)
