// Package types is the one type representation of nexus.
//
// Codegen builds Types from `.loc` signatures, the manifest stores them, the
// command line parser and the MCP schema mapper read them, and the value
// codecs (JSON for people and MCP clients, msgpack for pools) are driven by
// them. Values travel inside nexus in one canonical Go form, described on
// Kind below, so every front end and every pool client agrees on them.
package types

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/vmihailenco/msgpack/v5"
)

// Kind names the shape of a Type. The comment on each kind gives the
// canonical Go form of its values inside nexus.
type Kind string

const (
	Int      Kind = "int"      // int64
	Real     Kind = "real"     // float64
	Str      Kind = "str"      // string
	Bool     Kind = "bool"     // bool
	Unit     Kind = "unit"     // nil
	List     Kind = "list"     // []any, or for [Int], [Real], [Str], [Bool] []int64, []float64, []string, []bool (list.go)
	Optional Kind = "optional" // nil, or a value of Elem
	Map      Kind = "map"      // []Pair, in the order the entries arrived
	Tuple    Kind = "tuple"    // []any, one value per item
	Record   Kind = "record"   // map[string]any keyed by field name
	JSON     Kind = "json"     // JSONText
	// Func is a function taking Items and returning Elem. Its values are
	// FuncRefs: a pool function of the pool that receives it, with some
	// of its arguments given. It appears only as an argument of a pool
	// function that takes a function (a higher-order function).
	Func Kind = "func" // FuncRef
	// Var is a type variable, named by Name, of a generic signature. The
	// front end replaces every one by a type before it writes a manifest,
	// which never holds one. With Items it is a higher-kinded variable
	// applied to them (`f a` in `Functor f`).
	Var Kind = "var"
	// Con is a type constructor given some of its arguments, what a
	// higher-kinded variable stands for: Name is the constructor (List,
	// Optional, Map or a program's parameterized record or newtype),
	// Items the arguments given (`Map Str`), Elem a program type's
	// template (the type at its own parameters). Front end only, like Var.
	Con Kind = "con"
	// Handle is an open file or stream (handle.go), named by Name (IFile,
	// IStream or OStream) with elements of type Elem.
	Handle Kind = "handle" // *HandleValue
)

// JSONText is the canonical form of a value of type Json (any JSON value:
// null, a number, a string, a list, an object): its compact, valid JSON
// text. A string, so that it is immutable and comparable.
type JSONText string

// Type is a nexus type. Only the fields its Kind uses are set.
type Type struct {
	Kind Kind `json:"kind"`
	// Elem is the element type of a List, the wrapped type of an Optional
	// and the value type of a Map.
	Elem *Type `json:"elem,omitempty"`
	// Key is the key type of a Map.
	Key *Type `json:"key,omitempty"`
	// Items are the item types of a Tuple.
	Items []*Type `json:"items,omitempty"`
	// Name, Doc, Fields and Langs describe a Record. On another kind,
	// Name is a newtype's (`newtype Path = Str`): a type of its own with
	// the form of its kind.
	Name   string   `json:"name,omitempty"`
	Doc    []string `json:"doc,omitempty"`
	Fields []Field  `json:"fields,omitempty"`
	// Langs maps a pool language ("py", "cpp", "go") to the record's type
	// name in that language, from `record Py => Name = "dict"`, or to
	// GenerateStruct.
	Langs map[string]string `json:"langs,omitempty"`
	// Width is a sized number type's name (I8 ... U64, F32, F64) on an
	// Int or a Real: the same type to the checker, whose values are
	// range-checked where they enter (width.go).
	Width string `json:"width,omitempty"`
	// Applied is, on a program's parameterized record or newtype at some
	// arguments (`Pair Int Str`), the constructor with all of them (a
	// Con), so a higher-kinded variable can match it. Front end only.
	Applied *Type `json:"-" msgpack:"-"`
	// Packs is, on a newtype with a Packable instance (`instance Packable
	// Str Path`), how a pool language turns the value's wire form (its
	// body, what the nexus keeps) into the language's native form and
	// back, by language ("py"). Every use of the newtype shares the map.
	// A language without an entry takes the body's native form.
	Packs map[string]*Packing `json:"packs,omitempty"`
}

// Packing is a newtype's Packable instance in one pool language: two
// functions of the pool, by manifest function id, that the pool applies
// to every value of the newtype it receives (Pack, wire form to native)
// and returns (Unpack, native to wire form).
type Packing struct {
	// Native is the newtype's type in the language, from its type map
	// (`type Py => Path = "pathlib.Path"`), or "" without one.
	Native string `json:"native,omitempty"`
	Pack   int    `json:"pack"`
	Unpack int    `json:"unpack"`
}

// Field is one field of a record.
type Field struct {
	Name string   `json:"name"`
	Type *Type    `json:"type"`
	Doc  []string `json:"doc,omitempty"`
	// Default is the field's default as JSON, or empty when it has none.
	Default json.RawMessage `json:"default,omitempty"`
}

// GenerateStruct as a record's type in a language (`record Cpp => Person =
// "struct"`, Morloc's spelling) asks for the language's own form of the
// record instead of a type the user declares: C++ gets a struct generated
// under the record's name, Python a plain dict, Go the struct the function
// declares, whatever its name.
const GenerateStruct = "struct"

// Pair is one entry of a Map value.
type Pair struct {
	Key   any
	Value any
}

// Convenience constructors, so code and tests read like `.loc` types.
var (
	IntType  = &Type{Kind: Int}
	RealType = &Type{Kind: Real}
	StrType  = &Type{Kind: Str}
	BoolType = &Type{Kind: Bool}
	UnitType = &Type{Kind: Unit}
	JSONType = &Type{Kind: JSON}
)

// ListOf returns [elem].
func ListOf(elem *Type) *Type { return &Type{Kind: List, Elem: elem} }

// OptionalOf returns ?elem.
func OptionalOf(elem *Type) *Type { return &Type{Kind: Optional, Elem: elem} }

// MapOf returns Map key value.
func MapOf(key, value *Type) *Type { return &Type{Kind: Map, Key: key, Elem: value} }

// TupleOf returns (items...).
func TupleOf(items ...*Type) *Type { return &Type{Kind: Tuple, Items: items} }

// Field returns the record field called name, or nil.
func (t *Type) Field(name string) *Field {
	for i := range t.Fields {
		if t.Fields[i].Name == name {
			return &t.Fields[i]
		}
	}
	return nil
}

// String writes the type in `.loc` syntax: Int, [Real], ?Str, Map Str Int,
// (Int, Str), or a record's name.
func (t *Type) String() string {
	if t == nil {
		return "<nil type>"
	}
	if t.Kind == Handle {
		return handleString(t)
	}
	if t.Kind == Var || t.Kind == Con {
		s := t.Name
		for _, it := range t.Items {
			s += " " + it.atom()
		}
		return s
	}
	if t.Name != "" {
		return t.Name
	}
	if t.Width != "" {
		return t.Width
	}
	switch t.Kind {
	case Int:
		return "Int"
	case Real:
		return "Real"
	case Str:
		return "Str"
	case Bool:
		return "Bool"
	case Unit:
		return "()"
	case JSON:
		return "Json"
	case List:
		return "[" + t.Elem.String() + "]"
	case Optional:
		return "?" + t.Elem.atom()
	case Map:
		return "Map " + t.Key.atom() + " " + t.Elem.atom()
	case Tuple:
		parts := make([]string, len(t.Items))
		for i, it := range t.Items {
			parts[i] = it.String()
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case Record:
		return t.Name
	case Func:
		parts := make([]string, 0, len(t.Items)+1)
		for _, it := range t.Items {
			if it.Kind == Func {
				parts = append(parts, "("+it.String()+")")
			} else {
				parts = append(parts, it.String())
			}
		}
		return strings.Join(append(parts, t.Elem.String()), " -> ")
	}
	return string(t.Kind)
}

// FuncOf returns params... -> result.
func FuncOf(result *Type, params ...*Type) *Type {
	return &Type{Kind: Func, Items: params, Elem: result}
}

// FuncRef is a value of a Func type: the pool function ID, called with
// arguments laid out by Slots, one per argument of the function: -1 for
// the next of Captured (a value the nexus computed, msgpack-encoded as
// that argument's type), or the index of an argument of the FuncRef
// itself. `map (scale 2.0) xs` passes scale as {ID, [-1, 0], [2.0]}.
type FuncRef struct {
	ID       int
	Slots    []int
	Captured []msgpack.RawMessage
}

// Nullable reports whether null is a value of t (an Optional or Unit), so
// an argument of type t may be left out.
func (t *Type) Nullable() bool {
	return t.Kind == Optional || t.Kind == Unit
}

// atom is String with parentheses around types that need them as an argument
// of another type constructor.
func (t *Type) atom() string {
	if t != nil && (t.Kind == Map || t.Kind == Func || t.Kind == Handle || (t.Kind == Var || t.Kind == Con) && len(t.Items) > 0) {
		return "(" + t.String() + ")"
	}
	return t.String()
}

// Validate reports whether t is well formed: every kind known, every
// constructor with the parts it needs, record fields named and unique.
func (t *Type) Validate() error {
	if t == nil {
		return fmt.Errorf("missing type")
	}
	switch t.Kind {
	case Int, Real, Str, Bool, Unit, JSON:
		return nil
	case Handle:
		return validHandle(t)
	case List, Optional:
		if t.Elem == nil {
			return fmt.Errorf("%s type without an element type", t.Kind)
		}
		return t.Elem.Validate()
	case Map:
		if t.Key == nil || t.Elem == nil {
			return fmt.Errorf("map type without key or value type")
		}
		if err := t.Key.Validate(); err != nil {
			return err
		}
		return t.Elem.Validate()
	case Tuple:
		if len(t.Items) < 2 {
			return fmt.Errorf("tuple type with %d items", len(t.Items))
		}
		for _, it := range t.Items {
			if err := it.Validate(); err != nil {
				return err
			}
		}
		return nil
	case Record:
		if t.Name == "" {
			return fmt.Errorf("record type without a name")
		}
		seen := map[string]bool{}
		for _, f := range t.Fields {
			if f.Name == "" {
				return fmt.Errorf("record %s: field without a name", t.Name)
			}
			if seen[f.Name] {
				return fmt.Errorf("record %s: field %q twice", t.Name, f.Name)
			}
			seen[f.Name] = true
			if err := f.Type.Validate(); err != nil {
				return fmt.Errorf("record %s field %s: %w", t.Name, f.Name, err)
			}
			if len(f.Default) > 0 {
				if _, err := FromJSON(f.Type, f.Default); err != nil {
					return fmt.Errorf("record %s field %s: default: %w", t.Name, f.Name, err)
				}
			}
		}
		return nil
	case Func:
		if t.Elem == nil {
			return fmt.Errorf("function type without a result type")
		}
		for _, it := range append([]*Type{t.Elem}, t.Items...) {
			if err := it.Validate(); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown type kind %q", t.Kind)
}

// SameFields reports whether records a and b have the same fields, in the
// same order, of equal types: what makes two records that map to one
// language type interchangeable.
func SameFields(a, b *Type) bool {
	if len(a.Fields) != len(b.Fields) {
		return false
	}
	for i := range a.Fields {
		if a.Fields[i].Name != b.Fields[i].Name || !Equal(a.Fields[i].Type, b.Fields[i].Type) {
			return false
		}
	}
	return true
}

// Holds reports whether t or a type inside it (an element, key, item or
// field type; not a function's) is one for which is returns true.
func Holds(t *Type, is func(*Type) bool) bool {
	if is(t) {
		return true
	}
	switch t.Kind {
	case List, Optional:
		return Holds(t.Elem, is)
	case Map:
		return Holds(t.Key, is) || Holds(t.Elem, is)
	case Tuple:
		for _, it := range t.Items {
			if Holds(it, is) {
				return true
			}
		}
	case Record:
		for _, f := range t.Fields {
			if Holds(f.Type, is) {
				return true
			}
		}
	}
	return false
}

// Equal reports whether a and b are the same type. Records are compared by
// name, since codegen gives every record a unique name; a newtype is
// equal to itself only, not to its body.
func Equal(a, b *Type) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind || a.Name != b.Name {
		return false
	}
	switch a.Kind {
	case List, Optional, Handle:
		return Equal(a.Elem, b.Elem)
	case Map:
		return Equal(a.Key, b.Key) && Equal(a.Elem, b.Elem)
	case Tuple:
		if len(a.Items) != len(b.Items) {
			return false
		}
		for i := range a.Items {
			if !Equal(a.Items[i], b.Items[i]) {
				return false
			}
		}
		return true
	case Record:
		return a.Name == b.Name
	case Func, Var, Con:
		if len(a.Items) != len(b.Items) || !Equal(a.Elem, b.Elem) {
			return false
		}
		for i := range a.Items {
			if !Equal(a.Items[i], b.Items[i]) {
				return false
			}
		}
	}
	return true
}
