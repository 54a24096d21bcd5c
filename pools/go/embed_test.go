package gopool

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModuleFilesMatchRepository fails when the copies of go.mod and
// go.sum that Go pools are built with differ from the repository's.
func TestModuleFilesMatchRepository(t *testing.T) {
	for _, c := range []struct{ copy, repo string }{
		{"gomod.txt", "../../go.mod"},
		{"gosum.txt", "../../go.sum"},
	} {
		want, err := os.ReadFile(c.repo)
		if err != nil {
			t.Fatal(err)
		}
		if got := mustRead(c.copy); !bytes.Equal(got, want) {
			t.Errorf("pools/go/%s differs from %s: Go pools would build against other versions than the nexus; run `go generate ./pools/go`", c.copy, c.repo)
		}
	}
}

func TestGoMod(t *testing.T) {
	mod := string(GoMod("nexuspool"))
	if !strings.HasPrefix(mod, "module nexuspool\n") {
		t.Errorf("go.mod does not open with the module line:\n%s", mod)
	}
	for _, want := range []string{"github.com/hashicorp/go-plugin ", "google.golang.org/grpc ", "github.com/vmihailenco/msgpack/v5 "} {
		if !strings.Contains(mod, want) {
			t.Errorf("go.mod lacks %q", want)
		}
	}
}

func TestWriteModule(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nexus")
	if err := WriteModule(dir); err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil || !strings.HasPrefix(string(mod), "module "+ModulePath+"\n") {
		t.Errorf("go.mod: %v\n%s", err, mod)
	}
	for _, name := range []string{"serve.go", "call.go", "convert.go", "stdout.go"} {
		want, _ := os.ReadFile(name)
		got, err := os.ReadFile(filepath.Join(dir, "pools", "go", name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s not copied as it is: %v", name, err)
		}
	}
	for _, name := range []string{"pool.pb.go", "pool_grpc.pb.go", "handshake.go"} {
		if _, err := os.Stat(filepath.Join(dir, "proto", name)); err != nil {
			t.Errorf("proto/%s not written: %v", name, err)
		}
	}
	for _, left := range []string{"pools/go/embed.go", "pools/go/embed_test.go", "pools/go/gomod.txt", "proto/embed.go"} {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(left))); err == nil {
			t.Errorf("%s was copied into the pool's module", left)
		}
	}
}
