package types

import "fmt"

// Handle kinds: the names a Handle type may have (Morloc's stream
// handles, digest section 5.2).
const (
	IFile   = "IFile"   // a file read by element count and forward streams
	IStream = "IStream" // a forward reader, read batch by batch with @next
	OStream = "OStream" // a writer, given batches with @write
)

// HandleValue is the canonical form of a Handle value: an open file or
// stream of one evaluation of a command (package dispatch keeps the
// table they index). A handle is printed, and given to a pool, as its
// Path; none is ever read back from JSON or MessagePack, since a handle
// means nothing outside the evaluation that opened it.
type HandleValue struct {
	ID   int
	Path string
}

// HandleOf returns the handle type name elem, name one of IFile, IStream
// and OStream.
func HandleOf(name string, elem *Type) *Type {
	return &Type{Kind: Handle, Name: name, Elem: elem}
}

func handleString(t *Type) string {
	return t.Name + " " + t.Elem.atom()
}

func validHandle(t *Type) error {
	switch t.Name {
	case IFile, IStream, OStream:
	default:
		return fmt.Errorf("handle type %q is none of IFile, IStream, OStream", t.Name)
	}
	if t.Elem == nil {
		return fmt.Errorf("%s type without an element type", t.Name)
	}
	return t.Elem.Validate()
}

func handleFromJSON(t *Type) error {
	return &PathError{Msg: fmt.Sprintf("a %s is a handle the program opens, not a value to give; give the path (a Str) and @open it", t)}
}
