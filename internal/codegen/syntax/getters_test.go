package syntax

import (
	"fmt"
	"strings"
	"testing"
)

// accessString writes a getter or setter chain back, each step in
// brackets so that the chain's parts show.
func accessString(a *Access) string {
	var b strings.Builder
	for _, st := range a.Steps {
		switch st.Kind {
		case StepField:
			b.WriteString("<." + st.Field + ">")
		case StepItem:
			fmt.Fprintf(&b, "<.%d>", st.Index)
		case StepGroup:
			parts := make([]string, len(st.Group))
			for i, g := range st.Group {
				parts[i] = accessString(g)
			}
			b.WriteString("<.(" + strings.Join(parts, ", ") + ")>")
		case StepSet:
			parts := make([]string, len(st.Sets))
			for i, s := range st.Sets {
				parts[i] = accessString(s.Path) + " = " + exprString(s.Value)
			}
			b.WriteString("<set(" + strings.Join(parts, ", ") + ")>")
		case StepIndex:
			b.WriteString("<.[" + exprString(st.Lo) + "]>")
		case StepSlice:
			bound := func(e Expr) string {
				if e == nil {
					return "_"
				}
				return exprString(e)
			}
			b.WriteString("<.[" + bound(st.Lo) + ":" + bound(st.Hi) + ":" + bound(st.By) + "]>")
		}
	}
	return b.String()
}

// TestGetters: the getter chains and setters of Morloc's patterns, one
// Access per chain of touching steps; a lone .name stays a Getter.
func TestGetters(t *testing.T) {
	checkBodies(t, map[string]string{
		"f = .0 (1, 2)":                  "(<.0> (1, 2))",
		"f = .1.title x":                 "(<.1><.title> x)",
		"f = .0.1 x":                     "(<.0><.1> x)",
		"f = .(.1, .0) x":                "(<.(<.1>, <.0>)> x)",
		"f = .(.1) x":                    "(<.(<.1>)> x)",
		"f = .x.0 r":                     "(<.x><.0> r)",
		"f = .x r":                       "(.x r)",
		"f = .[2] xs":                    "(<.[2]> xs)",
		"f = .[-1] xs":                   "(<.[-1]> xs)",
		"f = .[i + 1] xs":                "(<.[(i + 1)]> xs)",
		"f = .[1:3] xs":                  "(<.[1:3:_]> xs)",
		"f = .[:2] xs":                   "(<.[_:2:_]> xs)",
		"f = .[1:] xs":                   "(<.[1:_:_]> xs)",
		"f = .[::2] xs":                  "(<.[_:_:2]> xs)",
		"f = .[::-1] xs":                 "(<.[_:_:-1]> xs)",
		"f = .[1:5:2] xs":                "(<.[1:5:2]> xs)",
		"f = .[0].x xs":                  "(<.[0]><.x> xs)",
		"f = .(.0 = 99) (1, 2)":          "(<set(<.0> = 99)> (1, 2))",
		"f = .(.x = 99, .y = \"w\") r":   "(<set(<.x> = 99, <.y> = \"w\")> r)",
		"f = (.latitude = 0.7) loc":      "(<set(<.latitude> = 0.7r)> loc)",
		"f = (.a.b = 1, .c = 2) r":       "(<set(<.a><.b> = 1, <.c> = 2)> r)",
		"f = .1.(.0 = \"S\", .2 = 70) t": "(<.1><set(<.0> = \"S\", <.2> = 70)> t)",
		"f = .(.done = not (.done t)) t": "(<set(<.done> = (not (.done t)))> t)",
		"f = g .0 xs":                    "(g <.0> xs)",
		"f = (.x . .y) r":                "((.x . .y) r)",
	})
}

// TestRecordForms: the legacy one-line record, parameters, `object`, and
// newtypes.
func TestRecordForms(t *testing.T) {
	f := parseOK(t, "module m (f)\nrecord Person = Person { name :: Str, age :: Int }\nrecord Pair a b where\n  fst :: a\n  snd :: b\nobject Box = \"dict\" {v :: [Int]}\nnewtype Path = Str\nnewtype Deque a = List a\n")
	var got []string
	for _, r := range f.Records {
		var fs []string
		for _, fd := range r.Fields {
			fs = append(fs, fd.Name.Name)
		}
		var ps []string
		for _, p := range r.Params {
			ps = append(ps, p.Name)
		}
		got = append(got, r.Name.Name+"("+strings.Join(ps, " ")+"){"+strings.Join(fs, ",")+"}")
	}
	for _, n := range f.Newtypes {
		var ps []string
		for _, p := range n.Params {
			ps = append(ps, p.Name)
		}
		got = append(got, "newtype "+n.Name.Name+"("+strings.Join(ps, " ")+")")
	}
	want := "Person(){name,age} Pair(a b){fst,snd} Box(){v} newtype Path() newtype Deque(a)"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("got %s, want %s", g, want)
	}
}
