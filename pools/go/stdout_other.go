//go:build !unix

package gopool

import "os"

// claimStdout keeps the real standard output for the handshake and points
// os.Stdout at stderr. Without Unix descriptors fd 1 itself stays: output
// through os.Stdout (fmt.Println) is kept off the handshake, but a write
// to the standard output handle by other means is not.
func claimStdout() error {
	handshake = os.Stdout
	os.Stdout = os.Stderr
	stdout = os.Stderr
	return nil
}
