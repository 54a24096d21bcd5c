package syntax

// IsKeyword reports whether s is a word a program cannot use as a name
// (module, source, in, ...), for code that writes programs
// (internal/codegen/mcpimport).
func IsKeyword(s string) bool { return keywords[s] }
