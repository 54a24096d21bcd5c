package manifest

// Intrinsic applies the built-in Op (an intrinsic's name without the @)
// to Args; the nexus evaluates it (package dispatch). Only the intrinsics
// that must run do: the checker turns @version, @lang, @typeof and the
// others that are known when the program is built into literals.
const Intrinsic ExprKind = "intrinsic"

// Intrinsics are the intrinsics an Intrinsic expression may name and how
// many arguments each takes. The arguments are in the current order:
// save (level, value, path), savem and savej (path, value), catch (the
// expression tried, the fallback).
var Intrinsics = map[string]int{
	"show": 1, "hash": 1, "read": 1, "load": 1,
	"save": 3, "savem": 2, "savej": 2, "catch": 2,
	// Streams (package dispatch, streams.go): write (level, handle,
	// elements), concat (paths, the path written).
	"open": 1, "append": 1, "close": 1, "next": 1, "stream": 1, "flush": 1,
	"flen": 1, "write": 3, "concat": 2, "fschema": 1, "stdin": 0,
	"stdout": 0, "stderr": 0, "tell": 0,
}

// UsesIntrinsic reports whether e applies the intrinsic op anywhere,
// inside lambdas too.
func UsesIntrinsic(e *Expr, op string) bool {
	if e == nil {
		return false
	}
	if e.Kind == Intrinsic && e.Op == op {
		return true
	}
	for _, a := range e.Args {
		if UsesIntrinsic(a, op) {
			return true
		}
	}
	return false
}
