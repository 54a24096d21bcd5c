package tool

import "fmt"

// ArgError is a call whose arguments are wrong: an unknown tool, an
// unknown argument, a missing one, a value of the wrong type. Nothing ran.
// Its message is fit to show the caller as it is, and names the tool and
// the arguments at fault.
type ArgError struct {
	// Tool is the tool called.
	Tool string
	// Args are the properties at fault: the one unknown or ill-typed,
	// every one missing; none for an unknown tool.
	Args []string
	// Msg says what was wrong.
	Msg string
}

func (e *ArgError) Error() string { return e.Msg }

func argErrorf(tool string, args []string, format string, a ...any) *ArgError {
	return &ArgError{Tool: tool, Args: args, Msg: fmt.Sprintf(format, a...)}
}

// UnknownTool is the error of a call of a tool that does not exist.
func UnknownTool(name string) *ArgError {
	return argErrorf(name, nil, "unknown tool '%s'", name)
}
