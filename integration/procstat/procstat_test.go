package procstat

import (
	"os"
	"runtime"
	"testing"
	"time"
)

// TestCPU: the CPU time read for this process grows while it computes.
func TestCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	before, ok := CPU(os.Getpid())
	if !ok {
		t.Fatal("no CPU time for this process")
	}
	x := 0
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		for i := range 1_000_000 {
			x += i
		}
		if now, _ := CPU(os.Getpid()); now-before >= 50*time.Millisecond {
			return
		}
	}
	t.Errorf("CPU time did not grow by 50 ms in 10 s of computing (%d)", x)
}
