package python

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("nexus_pool")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".py" {
			continue
		}
		want, _ := os.ReadFile(filepath.Join("nexus_pool", e.Name()))
		got, err := os.ReadFile(filepath.Join(dir, Package, e.Name()))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s not written as it is: %v", e.Name(), err)
		}
	}
}

// TestPython runs the runtime's Python unit tests.
func TestPython(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	cmd := exec.Command(python, "-m", "unittest", "-q", "test_nexus_pool")
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
