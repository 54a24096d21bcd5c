package manifest

import "errors"

// Expression kinds of Morloc's getters and setters beyond Get, evaluated
// by the nexus (package dispatch).
const (
	// Item reads item Ref (from 0) of the tuple Args[0].
	Item ExprKind = "item"
	// Index reads item Args[1] (an Int; negative counts from the end) of
	// the list or string Args[0].
	Index ExprKind = "index"
	// Slice is the part Args[1]:Args[2]:Args[3] of the list or string
	// Args[0], with Python's rules: each bound an ?Int, null where it was
	// not written; bounds clamped; a step of 0 an error.
	Slice ExprKind = "slice"
	// Set is a copy of Args[0] with its field Field (a record) or its
	// item Ref (a tuple, Field empty) replaced by Args[1].
	Set ExprKind = "set"
)

// validateAccess checks the shape of an Item, Index, Slice or Set; ok is
// false for another kind.
func validateAccess(e *Expr) (ok bool, err error) {
	switch e.Kind {
	case Item:
		if len(e.Args) != 1 || e.Ref < 0 {
			return true, errors.New("a tuple item needs one tuple and an index from 0")
		}
	case Index:
		if len(e.Args) != 2 {
			return true, errors.New("an index needs a list and an index")
		}
	case Slice:
		if len(e.Args) != 4 {
			return true, errors.New("a slice needs a list and three bounds")
		}
	case Set:
		if len(e.Args) != 2 || e.Field == "" && e.Ref < 0 {
			return true, errors.New("a setter needs a value, a new part, and a field or an item")
		}
	default:
		return false, nil
	}
	return true, nil
}
