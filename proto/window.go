package proto

// WindowSize is the fixed HTTP/2 flow-control window both ends of a pool's
// connection open (the nexus in internal/nexus/pool, a Go pool in pools/go): the
// most gRPC's bandwidth-delay estimation would grow a window to, so large
// values flow as fast as with it, while a fixed window turns the
// estimation off, whose pings would otherwise cost most calls an extra
// write and wake-up at both ends. The C++ and Python pools turn the
// estimation off with grpc.http2.bdp_probe.
const WindowSize = 16 << 20
