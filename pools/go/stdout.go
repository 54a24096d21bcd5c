package gopool

import (
	"fmt"
	"os"
	"sync"

	"github.com/nexus-run/nexus/proto"
)

// The pool's standard files. stdout is the *os.File of fd 1, which points
// at stderr once the pool has claimed its standard output.
var (
	stdout = os.Stdout
	stderr = os.Stderr
)

// handshake is the private copy of the real standard output, for the
// handshake line only; nil when the pool was not started by the
// nexus, and after the first call.
var (
	handshakeMu sync.Mutex
	handshake   *os.File
)

// init claims standard output before any user code runs: the generated
// file in the user's package imports this package, so Go runs this init
// before the user's. A program not started by the nexus keeps its output
// as it is, so Serve can tell the person who ran it what it is.
func init() {
	if os.Getenv(proto.MagicCookieKey) != proto.MagicCookieValue {
		return
	}
	if err := claimStdout(); err != nil {
		fmt.Fprintf(os.Stderr, "go pool: claim standard output: %v\n", err)
		os.Exit(1)
	}
}

func handshakeOut() *os.File {
	handshakeMu.Lock()
	defer handshakeMu.Unlock()
	return handshake
}

// closeHandshakeOut closes the private copy of stdout once the handshake
// is written, so the pool's stdout ends when the handshake does.
func closeHandshakeOut() {
	handshakeMu.Lock()
	defer handshakeMu.Unlock()
	if handshake != nil {
		handshake.Close()
		handshake = nil
	}
}
