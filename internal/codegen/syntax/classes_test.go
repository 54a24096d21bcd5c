package syntax

import (
	"strings"
	"testing"
)

// classString writes a class declaration back in one line.
func classString(c *Class) string {
	var b strings.Builder
	b.WriteString("class ")
	for _, s := range c.Supers {
		b.WriteString(typeString(s) + " => ")
	}
	b.WriteString(c.Name.Name)
	for _, p := range c.Params {
		b.WriteString(" " + p.Name)
	}
	for _, m := range c.Methods {
		b.WriteString("; " + sigString(m))
	}
	return b.String()
}

// instanceString writes an instance declaration back in one line.
func instanceString(in *Instance) string {
	var heads []string
	for _, h := range in.Heads {
		heads = append(heads, typeString(h))
	}
	out := "instance " + strings.Join(heads, ", ")
	for _, s := range in.Sources {
		for _, it := range s.Items {
			out += "; source " + s.Lang.Name + " " + it.Name.Value + " as " + it.Alias.Name
		}
	}
	for _, s := range in.Sigs {
		out += "; " + sigString(s)
	}
	for _, d := range in.Defs {
		out += "; " + d.Name.Name + " = " + exprString(d.Body)
	}
	return out
}

// TestClasses: class declarations with superclasses, several parameters
// and operator methods.
func TestClasses(t *testing.T) {
	tests := []struct{ src, want string }{
		{"class Show a where\n  show :: a -> Str", "class Show a; show :: a -> Str"},
		{"class Semigroup a => Monoid a where\n  mempty :: a", "class (Semigroup a) => Monoid a; mempty :: a"},
		{"class Packable a b where\n  pack :: a -> b\n  unpack :: b -> a", "class Packable a b; pack :: a -> b; unpack :: b -> a"},
		{"class Eq a where\n  (==) :: a -> a -> Bool", "class Eq a; == :: a -> a -> Bool"},
		{"class Eq a where (==) :: a -> a -> Bool", "class Eq a; == :: a -> a -> Bool"},
		{"class Marker a", "class Marker a"},
		{"class Functor f where\n  map :: (a -> b) -> f a -> f b", "class Functor f; map :: (a -> b) -> (f a) -> (f b)"},
	}
	for _, tt := range tests {
		f := parseOK(t, "module m (*)\n"+tt.src+"\n")
		if len(f.Classes) != 1 {
			t.Fatalf("%q: %d classes", tt.src, len(f.Classes))
		}
		if got := classString(f.Classes[0]); got != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

// TestInstances: instance heads, one or several, and bodies of
// definitions, sources (an operator as alias) and signatures.
func TestInstances(t *testing.T) {
	tests := []struct{ src, want string }{
		{"instance Show Person where\n  show p = .name p", "instance (Show Person); show = (.name p)"},
		{"instance Monoid Str where mempty = \"\"", `instance (Monoid Str); mempty = ""`},
		{"instance Integral Int, Integral Real", "instance (Integral Int), (Integral Real)"},
		{"instance Eq a where source Py from \"core.py\" (\"morloc_eq\" as (==))", "instance (Eq a); source Py morloc_eq as =="},
		{"instance Show Person where\n  source Py from \"f.py\" (\"py_show\" as show)\n  source Cpp from \"f.hpp\" (\"cpp_show\" as show)",
			"instance (Show Person); source Py py_show as show; source Cpp cpp_show as show"},
		{"instance Packable (List a) (Deque a) where\n  pack :: List a -> Deque a\n  pack x = x", "instance (Packable (List a) (Deque a)); pack :: (List a) -> (Deque a); pack = x"},
		{"instance Eq Person where\n  (==) a b = .name a == .name b", "instance (Eq Person); == = ((.name a) == (.name b))"},
	}
	for _, tt := range tests {
		f := parseOK(t, "module m (*)\n"+tt.src+"\n")
		if len(f.Instances) != 1 {
			t.Fatalf("%q: %d instances", tt.src, len(f.Instances))
		}
		if got := instanceString(f.Instances[0]); got != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

// TestClassSyntaxErrors: the first error of malformed classes and
// instances.
func TestClassSyntaxErrors(t *testing.T) {
	checkFirstErrors(t, map[string]string{
		"class show a where\n  show :: a -> Str":                "2:7: a class name starts with an upper-case letter, not 'show'",
		"class Show where\n  show :: a -> Str":                  "2:12: expected the class's type variables after 'Show'",
		"class Show A where\n  show :: A -> Str":                "2:12: a class parameter is a lower-case type variable, not 'A'",
		"class Show a where\n  show x = x":                      "3:8: expected '::' and the type of method 'show'",
		"class Show a where\n  source Py from \"a.py\" (\"s\")": "3:3: a class declares signatures only; 'source' belongs in an instance",
		"instance show Person":                                  "2:10: expected a class name and its types (instance Show Person), got",
		"instance Show where\n  show x = x":                     "2:15: expected the types of the instance after 'Show'",
		"instance Show Person where\n  show p = 1\n   x = 2":    "4:6: unexpected '='; each item after 'where' starts a line",
		"instance Show Person where\n  (foo) p = 1":             "3:4: expected an operator in parentheses",
	})
}
