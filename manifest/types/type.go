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
	// Name, Doc, Fields and Langs describe a Record.
	Name   string   `json:"name,omitempty"`
	Doc    []string `json:"doc,omitempty"`
	Fields []Field  `json:"fields,omitempty"`
	// Langs maps a pool language ("py", "cpp", "go") to the record's type
	// name in that language, from `record Py => Name = "dict"`.
	Langs map[string]string `json:"langs,omitempty"`
}

// Field is one field of a record.
type Field struct {
	Name string   `json:"name"`
	Type *Type    `json:"type"`
	Doc  []string `json:"doc,omitempty"`
	// Default is the field's default as JSON, or empty when it has none.
	Default json.RawMessage `json:"default,omitempty"`
}

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
	}
	return string(t.Kind)
}

// Nullable reports whether null is a value of t (an Optional or Unit), so
// an argument of type t may be left out.
func (t *Type) Nullable() bool {
	return t.Kind == Optional || t.Kind == Unit
}

// atom is String with parentheses around types that need them as an argument
// of another type constructor.
func (t *Type) atom() string {
	if t != nil && t.Kind == Map {
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

// Equal reports whether a and b are the same type. Records are compared by
// name, since codegen gives every record a unique name.
func Equal(a, b *Type) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case List, Optional:
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
	}
	return true
}
