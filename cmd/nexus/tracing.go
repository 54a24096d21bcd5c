package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/nexus-run/nexus/internal/nexus/tracing"
)

// flushTimeout bounds the export of the last spans as a server stops: a
// collector that is gone must not hold the exit up.
const flushTimeout = 5 * time.Second

// startTracing turns tracing on when the OTEL_* environment asks for it
// (see the tracing package) and returns what flushes the spans at the
// end; a server defers it before it builds its program, so that it runs
// after the program's last call.
func startTracing() (end func(), err error) {
	shutdown, err := tracing.Setup(context.Background())
	if err != nil {
		return nil, err
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
		defer cancel()
		if err := shutdown(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "nexus: tracing: %v\n", err)
		}
	}, nil
}
