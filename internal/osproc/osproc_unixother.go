//go:build unix && !linux && !darwin

package osproc

// waitExited cannot wait without reaping here; Wait reaps first.
func waitExited(int) bool { return false }
