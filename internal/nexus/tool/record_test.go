package tool

import (
	"reflect"
	"testing"

	"github.com/nexus-run/nexus/internal/pooltest"
	"github.com/nexus-run/nexus/manifest"
)

// recordArg is the unrolled record argument of the surface program's
// command name.
func recordArg(t *testing.T, m *manifest.Manifest, name string) *manifest.Arg {
	t.Helper()
	c := m.Command(name)
	if c == nil || len(c.Args) != 1 || c.Args[0].Kind != manifest.Group {
		t.Fatalf("command %s: not one unrolled record argument", name)
	}
	return &c.Args[0]
}

func TestRecord(t *testing.T) {
	m := pooltest.Compile(t, surface, surfacePy)
	for _, tc := range []struct {
		command       string
		fields, whole map[string]any
		want          map[string]any
		lacking       []string // field names
	}{
		// Defaults fill what is not given; a field without one lacks.
		{"unrolled", nil, nil, map[string]any{"tmp_dir": "/tmp", "verbose": false, "color": true}, []string{"threads"}},
		{"unrolled", map[string]any{"threads": int64(2)}, nil, map[string]any{"tmp_dir": "/tmp", "threads": int64(2), "verbose": false, "color": true}, nil},
		{"whole", nil, nil, map[string]any{"level": int64(1)}, []string{"name"}},
		// The whole record gives what its fields' own properties do not.
		{"whole", nil, map[string]any{"name": "w"}, map[string]any{"level": int64(1), "name": "w"}, nil},
		{"whole", map[string]any{"level": int64(7)}, map[string]any{"name": "w", "level": int64(5)}, map[string]any{"level": int64(7), "name": "w"}, nil},
		{"whole", map[string]any{"name": "f"}, map[string]any{"name": "w"}, map[string]any{"level": int64(1), "name": "f"}, nil},
	} {
		rec, lacking, err := Record(recordArg(t, m, tc.command), tc.fields, tc.whole)
		if err != nil {
			t.Errorf("%s %v %v: %v", tc.command, tc.fields, tc.whole, err)
			continue
		}
		if tc.want == nil {
			tc.want = map[string]any{}
		}
		if !reflect.DeepEqual(rec, tc.want) {
			t.Errorf("%s %v %v: got %v, want %v", tc.command, tc.fields, tc.whole, rec, tc.want)
		}
		var names []string
		for _, fa := range lacking {
			names = append(names, fa.Field)
		}
		if !reflect.DeepEqual(names, tc.lacking) {
			t.Errorf("%s %v %v: lacking %v, want %v", tc.command, tc.fields, tc.whole, names, tc.lacking)
		}
	}
}

func TestWholeRecord(t *testing.T) {
	m := pooltest.Compile(t, surface, surfacePy)
	typ := recordArg(t, m, "whole").Type
	for _, tc := range []struct {
		obj  map[string]any
		want map[string]any
		err  string
	}{
		{map[string]any{}, map[string]any{}, ""},
		{map[string]any{"name": "x"}, map[string]any{"name": "x"}, ""},
		{map[string]any{"level": 3.0, "name": "x"}, map[string]any{"level": int64(3), "name": "x"}, ""},
		{map[string]any{"nam": "x"}, nil, `record ConfigWhole has no field "nam"`},
		{map[string]any{"level": "high"}, nil, `field level: expected an integer, got the string "high"`},
		// Fields are read in the order of their names: the first fault
		// is the same whatever the order the object came in.
		{map[string]any{"zz": 1.0, "level": "high"}, nil, `field level: expected an integer, got the string "high"`},
	} {
		got, err := WholeRecord(typ, tc.obj)
		switch {
		case tc.err != "":
			if err == nil || err.Error() != tc.err {
				t.Errorf("%v: got error %v, want %q", tc.obj, err, tc.err)
			}
		case err != nil:
			t.Errorf("%v: %v", tc.obj, err)
		case !reflect.DeepEqual(got, tc.want):
			t.Errorf("%v: got %v, want %v", tc.obj, got, tc.want)
		}
	}
}
