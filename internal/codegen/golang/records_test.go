package golang

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordMappedToStruct: record Go => Rec = "struct" takes the struct
// the function declares, whatever its name, as a record without a map
// does; a map naming another struct is still refused.
func TestRecordMappedToStruct(t *testing.T) {
	dir := srcFiles(t, map[string]string{"m.go": "package m\n\ntype Anything struct{ X int }\n\nfunc F(a Anything) int { return a.X }\n"})
	file := filepath.Join(dir, "m.go")
	m, err := generate([]Function{spec(0, "F", file, I, record("Rec", "struct", field("x", I)))})
	if err != nil {
		t.Fatal(err)
	}
	if gen := string(m.files["user/m/nexus_pool.go"]); !strings.Contains(gen, ".X") {
		t.Errorf("the generated code does not fill Anything's field X:\n%s", gen)
	}
	_, err = generate([]Function{spec(0, "F", file, I, record("Rec", "Other", field("x", I)))})
	if err == nil || !strings.Contains(err.Error(), `record Go => Rec = "Other"`) {
		t.Errorf("got %v, want the map to another struct refused", err)
	}
}
