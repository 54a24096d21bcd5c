//go:build !unix

package integration

import (
	"errors"
	"fmt"
	"os"
	"runtime"
)

func mkfifo(string) error {
	return fmt.Errorf("FIFOs on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}

func openFIFO(string) (*os.File, error) { return nil, errors.ErrUnsupported }
