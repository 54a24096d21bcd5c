package tool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "new.txt")
	nowhere := filepath.Join(dir, "no", "such", "dir", "f.txt")
	tests := []struct {
		mode, path, err string
	}{
		{"r", file, ""},
		{"r", missing, "cannot be read: no such file or directory"},
		{"w", file, ""},
		{"w", missing, ""},
		{"w", nowhere, "cannot be written"},
		{"rw", file, ""},
		{"rw", missing, "cannot be read"},
		{"x", missing, ""},
		{"x", file, "exists already, and must not"},
	}
	for _, tc := range tests {
		err := CheckPath(tc.mode, tc.path)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s %s: %v", tc.mode, tc.path, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s %s: %v, want %q", tc.mode, tc.path, err, tc.err)
		}
	}
	// The writable check of a new file leaves nothing behind, and does
	// not empty an existing one.
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left in the folder: %v", entries)
	}
	if data, _ := os.ReadFile(file); string(data) != "x" {
		t.Errorf("the file was changed: %q", data)
	}
}
