// Package manifest is the compiled description of a program: the contract
// between codegen, which writes it as manifest.json in the build folder, and
// the nexus, which loads it to serve the program's commands.
//
// A manifest names the program, the pools and how to launch them, the
// sourced functions each pool serves (by numeric id), and the commands with
// their arguments, command-line surface and body expression. Load checks
// the nexus version that built it and every reference inside it, so the
// runtime can trust what it reads.
package manifest

import (
	"encoding/json"

	"github.com/nexus-run/nexus/manifest/types"
)

// NexusVersion is the version of this nexus. A manifest records the version
// that built it and loads only into the same version, since the format may
// change between versions.
const NexusVersion = "0.2.1"

// FileName is the manifest's name inside a build folder.
const FileName = "manifest.json"

// Manifest is one compiled program.
type Manifest struct {
	// Nexus is the NexusVersion of the nexus that built the manifest.
	Nexus string `json:"nexus"`
	// Name is the program (module) name.
	Name string `json:"name"`
	// Doc is the module docstring, one entry per line: the program
	// description.
	Doc []string `json:"doc,omitempty"`
	// Epilogue is the text of the module docstring's `@epilogue` blocks,
	// shown at the end of the program's help.
	Epilogue []string `json:"epilogue,omitempty"`
	Pools    []Pool   `json:"pools"`
	// Servers are the MCP servers whose tools the program calls, one per
	// `source MCP from` declaration, in the order of the program.
	Servers   []Server   `json:"servers,omitempty"`
	Functions []Function `json:"functions"`
	// Defs are the program's recursive definitions, which an Apply
	// calls; every other definition is inlined where it is used.
	Defs []Def `json:"defs,omitempty"`
	// Groups are the command groups of the export list (`--* group:
	// NAME`), in order; a Command's Group names one.
	Groups   []CommandGroup `json:"groups,omitempty"`
	Commands []Command      `json:"commands"`

	// Dir is the absolute build folder, set by Load; not stored.
	Dir string `json:"-"`
}

// Pool languages.
const (
	Python = "py"
	Cpp    = "cpp"
	Go     = "go"
)

// MCP is the Function.Pool of a tool of another MCP server (`source MCP
// from`): no pool process serves it, but the connection to
// Manifest.Servers[Function.Server].
const MCP = "mcp"

// BuildDirVar opens a Pool.Command element that names a path inside the
// build folder, so a build folder can be moved as a whole.
const BuildDirVar = "$BUILD"

// Pool is one worker process serving the sourced functions of a language.
type Pool struct {
	// Lang is Python, Cpp or Go; one pool per language.
	Lang string `json:"lang"`
	// Command is the argv that starts the pool. An element that starts
	// with BuildDirVar + "/" is a path inside the build folder; see
	// Manifest.PoolCommand. A bare program name is looked up on PATH.
	Command []string `json:"command"`
	// Interpreter is the absolute path of the Python interpreter a Python
	// pool runs under, found by `nexus make` (its --python flag, else
	// NEXUS_PYTHON, else python3 on PATH) and checked to have the pool's
	// packages. It takes the place of Command[0] (python3), so the pool
	// starts whatever PATH the nexus is given, as in an MCP client that
	// does not load the user's shell. Empty in manifests written before it
	// was recorded: those start Command[0] from PATH.
	Interpreter string `json:"interpreter,omitempty"`
	// PackedLists reports that the pool reads [Real] and [Int] arguments
	// sent packed (types.EncodePackedArgs): `nexus make` sets it for the
	// Python pools it writes, whose runtime does. False in manifests
	// written before, whose copy of the runtime would refuse them.
	PackedLists bool `json:"packed_lists,omitempty"`
}

// Server is another MCP server whose tools are functions of the program:
// one `source MCP from "..."` declaration with its docstring directives.
// Nothing here is a secret: @bearer names the variable holding the token,
// read when the connection opens.
type Server struct {
	// Name names the server in errors and prefixes its stderr lines: for a
	// command, the base name of the first argument that is neither an
	// option nor a launcher such as npx, uvx or python3, without an
	// @version suffix (server-everything, mcp-server-time); for a URL, its
	// host and port.
	Name string `json:"name"`
	// Server is the string of the declaration: a Streamable HTTP endpoint
	// when it starts with http:// or https://, else a command line, split
	// into arguments with simple '...' and "..." quoting and run without a
	// shell, in Dir.
	Server string `json:"server"`
	// Env lists the variables a stdio server gets besides PATH and HOME
	// (@env): NAME passes nexus's own value, NAME=VALUE sets one.
	Env []string `json:"env,omitempty"`
	// Dir is the absolute working folder of a stdio server (@cwd,
	// resolved against the folder of the .loc file); empty for nexus's
	// own.
	Dir string `json:"dir,omitempty"`
	// TimeoutMS bounds each request to the server, in milliseconds
	// (@timeout; 60000 when the program does not say).
	TimeoutMS int64 `json:"timeout_ms"`
	// Bearer names the environment variable whose value is sent as
	// "Authorization: Bearer <value>" (@bearer; HTTP only).
	Bearer string `json:"bearer,omitempty"`
	// Headers are extra HTTP headers, "Name: value" each (@header; HTTP
	// only).
	Headers []string `json:"headers,omitempty"`
}

// Function is a sourced function, served by a pool, or a tool of another
// MCP server (Pool is MCP).
type Function struct {
	// ID is the function's index in Manifest.Functions, and the number a
	// pool call names it by.
	ID int `json:"id"`
	// Name is the function's name in the program (after `as`).
	Name string `json:"name"`
	// Source is the function's name in its source language.
	Source string `json:"source"`
	// Pool is the Lang of the pool that serves it.
	Pool   string        `json:"pool"`
	Args   []*types.Type `json:"args"`
	Return *types.Type   `json:"return"`
	// Infix is set for a foreign operator (`source Py ((+) as (<>))`):
	// Source is the operator's text in the pool's language, which the
	// pool applies between the two arguments, `a + b`, rather than the
	// name of a function it calls.
	Infix bool `json:"infix,omitempty"`

	// For a tool of an MCP server (Pool is MCP) only; Source is then the
	// tool's name on the server.
	//
	// Server is the index of the server in Manifest.Servers.
	Server int `json:"server,omitempty"`
	// Params are the names of the tool's arguments, one per Arg (from each
	// argument's @name). Empty when the function takes a single record
	// whose fields are the tool's arguments. An optional argument that is
	// null is left out of the call.
	Params []string `json:"params,omitempty"`
}

// CommandGroup is a command group: `./prog GROUP COMMAND ...` on the command
// line, tools named GROUP_COMMAND over MCP.
type CommandGroup struct {
	Name string `json:"name"`
	// Doc is the group's description (its `--*` lines), one entry per line.
	Doc []string `json:"doc,omitempty"`
}

// Command is an exported command: a CLI subcommand and an MCP tool.
type Command struct {
	// Name is the command's name (after a `name:` directive). Names are
	// unique in a program, grouped or not.
	Name string `json:"name"`
	// Group is the name of the command's group in Manifest.Groups, empty
	// for an ungrouped command.
	Group string `json:"group,omitempty"`
	// Doc is the command's docstring, one entry per line, directives
	// removed. The first line is the summary shown in lists.
	Doc []string `json:"doc,omitempty"`
	// ReturnDoc describes the result (the `return:` directive).
	ReturnDoc string `json:"return_doc,omitempty"`
	// Title is the command's display name (the `title:` directive), shown
	// by MCP clients in place of the name; empty when not given.
	Title string `json:"title,omitempty"`
	// Icons are the URLs of the command's icons (`icon:` directives), in
	// order: https:// URLs or data:image/ URIs.
	Icons []string `json:"icons,omitempty"`
	// Args are the command's parameters in order. The body refers to
	// them by index (Expr.Ref of a Var).
	Args   []Arg       `json:"args"`
	Return *types.Type `json:"return"`
	Body   *Expr       `json:"body"`
	// Actions are the output actions (`with:` and `render:` directives).
	// At most one is the Default.
	Actions []Action `json:"actions,omitempty"`
	// Mime is the media type of the result (`mime:` on the type the
	// command returns), whose value, a Str, is then raw content: bytes
	// written as they are on the command line, an image, audio, text or
	// resource block over MCP, the HTTP body with that Content-Type in the
	// JSON API. Empty for an ordinary result.
	Mime string `json:"mime,omitempty"`
}

// FormatJSON is the command-line format (`-f json`) that prints a
// command's result itself as JSON, whatever its default output; no output
// action may be called so.
const FormatJSON = "json"

// FormatRaw is the command-line format (`-f raw`), the `_render` value and
// the `?render=` value that mean the command's default output, no output
// action. An action may be called so only beside a short name
// (`-r/--raw=f`), which is then its name there.
const FormatRaw = "raw"

// DefaultAction is the command's default output action (`@default`), or
// nil.
func (c *Command) DefaultAction() *Action {
	for i := range c.Actions {
		if c.Actions[i].Default {
			return &c.Actions[i]
		}
	}
	return nil
}

// ToolName is the command's MCP tool name: GROUP_NAME for a grouped
// command (as Morloc names them), else its name.
func (c *Command) ToolName() string {
	if c.Group != "" {
		return c.Group + "_" + c.Name
	}
	return c.Name
}

// ArgKind says how an argument appears on the command line.
type ArgKind string

const (
	// Positional arguments are given in order, without a name.
	Positional ArgKind = "positional"
	// Option arguments are given as -s VAL, --long VAL or --long=VAL.
	Option ArgKind = "option"
	// Flag arguments are Bool switches: --flag sets true, --no-flag false.
	Flag ArgKind = "flag"
	// Group arguments are unrolled records: one option or flag per field
	// (Fields), and optionally the whole record as one JSON option
	// (Short/Long).
	Group ArgKind = "group"
)

// Arg is one parameter of a command, or one field of an unrolled record.
type Arg struct {
	Kind ArgKind     `json:"kind"`
	Type *types.Type `json:"type"`
	// Name is the argument's property name over MCP: a positional's
	// `name:`, an option's or flag's long name (else its short letter),
	// a record field's name. Empty for a positional without `name:`, which
	// is then known by its position.
	Name    string   `json:"name,omitempty"`
	Doc     []string `json:"doc,omitempty"`
	Metavar string   `json:"metavar,omitempty"`
	// Short is a one-letter option or flag name, without the dash.
	Short string `json:"short,omitempty"`
	// Long is a long option or flag name, without the dashes.
	Long string `json:"long,omitempty"`
	// FalseShort and FalseLong name a flag's negation.
	FalseShort string `json:"false_short,omitempty"`
	FalseLong  string `json:"false_long,omitempty"`
	// Default is the JSON value used when the argument is omitted.
	Default json.RawMessage `json:"default,omitempty"`
	// Many makes a list argument variadic: it takes every remaining token
	// (a positional) or collects repeated uses (an option).
	Many bool `json:"many,omitempty"`
	// Stdin lets the last positional be read from standard input.
	Stdin bool `json:"stdin,omitempty"`
	// Source is "file" for a Str argument given on the command line as
	// the path of a file whose text is the value (`@source file`); empty
	// for the value itself.
	Source string `json:"source,omitempty"`
	// CheckPath is a precondition on a path argument (`@check.path`),
	// checked before any pool is called: "r" readable, "w" writable, "x"
	// must not exist, "rw" readable and writable.
	CheckPath string `json:"check_path,omitempty"`
	// Field is the record field an unrolled option stands for.
	Field string `json:"field,omitempty"`
	// Fields are a Group's per-field options and flags.
	Fields []Arg `json:"fields,omitempty"`
}

// SourceFile is Arg.Source for an argument read from the file it names.
const SourceFile = "file"

// Action is an output action: a flag that applies a function to the result.
type Action struct {
	// Kind is "with" (the function's result is printed as JSON) or
	// "render" (the function's Str result is printed as it is).
	Kind  string `json:"kind"`
	Short string `json:"short,omitempty"`
	Long  string `json:"long,omitempty"`
	// Body computes the output from the result, which it sees as Var 0.
	Body   *Expr       `json:"body"`
	Return *types.Type `json:"return"`
	// Default makes the action the command's output when no other is
	// asked for (`@default`); the result itself is then asked for by
	// name (`-f json`, `_render: raw`, `?render=raw`).
	Default bool `json:"default,omitempty"`
}

// Name is how the action is asked for by name (`-f NAME` on the command
// line, `_render` over MCP, `?render=NAME` in the JSON API): its long
// name, else its short one; an action called raw (`-r/--raw=f`) by its
// short name, since raw there means no action.
func (a *Action) Name() string {
	if a.Long != "" && a.Long != FormatRaw {
		return a.Long
	}
	return a.Short
}

// ExprKind is the kind of a body expression.
type ExprKind string

const (
	// Lit is a constant: Value holds its JSON.
	Lit ExprKind = "lit"
	// Var is the command's argument number Ref.
	Var ExprKind = "var"
	// Call calls Function Ref with Args.
	Call ExprKind = "call"
	// Get reads Field of the record Args[0].
	Get ExprKind = "get"
	// Throw fails the command with Message.
	Throw ExprKind = "throw"
	// MakeList, MakeTuple and MakeRecord build a value from Args; for a
	// record Fields names each Arg's field.
	MakeList   ExprKind = "list"
	MakeTuple  ExprKind = "tuple"
	MakeRecord ExprKind = "record"
	// Op applies the standard operator Op to Args (two, or one for
	// "negate"); the nexus evaluates it (package dispatch).
	Op ExprKind = "op"
	// If is Args[1] when Args[0] is true, else Args[2]; only the branch
	// taken is evaluated (Morloc's guards).
	If ExprKind = "if"
	// Let computes Args[0] once, then Args[1] with that value as the
	// next variable (Ref the number of variables before it).
	Let ExprKind = "let"
	// Lambda is a function value of Type (a types.Func): called with
	// len(Type.Items) arguments, it computes Args[0] with them as the
	// variables Ref, Ref+1, ... after the variables it was made with (Ref
	// is their number). It is an argument of a builtin Op (`map`).
	Lambda ExprKind = "lambda"
	// FnRef is function Ref of a pool, given as an argument to a function
	// of the same pool that takes a function (`map` in that pool): Args
	// are the function's arguments, each a Param (an argument of the
	// FnRef itself) or an expression the nexus computes when it passes
	// the FnRef (types.FuncRef).
	FnRef ExprKind = "fnref"
	// Param is argument Ref of the FnRef it is an argument of.
	Param ExprKind = "param"
	// Apply calls the recursive definition Defs[Ref] with Args, which
	// are its body's variables 0, 1, ...; the nexus evaluates it.
	Apply ExprKind = "apply"
)

// Def is a recursive definition of the program: Body computes its value
// from its arguments, of types Params, as variables 0, 1, ...
type Def struct {
	Name   string        `json:"name"`
	Params []*types.Type `json:"params"`
	Return *types.Type   `json:"return"`
	Body   *Expr         `json:"body"`
}

// Operators are the operators of an Op expression and how many operands
// each takes.
var Operators = map[string]int{
	"+": 2, "-": 2, "*": 2, "/": 2, "//": 2, "%": 2, "**": 2,
	"==": 2, "!=": 2, "<": 2, "<=": 2, ">": 2, ">=": 2,
	"&&": 2, "||": 2, "<>": 2, "negate": 1,
}

// Builtins are the prelude's functions the nexus evaluates itself (an Op
// expression names one as its operator), with how many arguments each
// takes. An argument that is a function is a Lambda.
var Builtins = map[string]int{
	// root
	"not": 1, "length": 1, "size": 1, "any": 2, "all": 2, "elem": 2, "concat": 1, "concatMap": 2,
	"sum": 1, "sort": 1, "groupSort": 1, "sortBy": 2, "filter": 2, "takeWhile": 2, "dropWhile": 2,
	"scanl": 3, "intersperse": 2, "replicate": 2, "iterate": 3, "groupBy": 2, "enumerate": 1,
	"find": 2, "partition": 2, "unique": 1, "intercalate": 2, "zipWith": 3, "zip": 2, "unzip": 1,
	"range": 2, "rangeStep": 3, "map": 2, "fold": 3, "fold1": 2, "safeFold1": 2, "reverse": 1,
	"show": 1, "cons": 2, "uncons": 1, "snoc": 2, "unsnoc": 1, "uncurry": 2, "uncurry3": 2,
	"neg": 1, "abs": 1, "inv": 1, "ln": 1, "toReal": 1, "mempty": 0, "zero": 0,
	"into": 1, "tryInto": 1,
	// maybe
	"require": 1, "isNull": 1, "catMaybes": 1,
	// map
	"emptyMap": 0, "singleton": 2, "fromList": 1, "toList": 1, "lookup": 2, "member": 2,
	"insert": 3, "delete": 2, "keys": 1, "values": 1, "union": 2, "unionWith": 3,
	"intersectionWith": 3, "difference": 2, "mapValues": 2, "mapKeys": 2, "mapWithKey": 2,
	"filterMap": 2, "foldWithKey": 3,
}

// Expr is a body expression, with its type as the checker inferred it.
type Expr struct {
	Kind ExprKind    `json:"kind"`
	Type *types.Type `json:"type"`
	// Value is a Lit's JSON.
	Value json.RawMessage `json:"value,omitempty"`
	// Ref is a Var's argument index or a Call's function id.
	Ref     int      `json:"ref"`
	Args    []*Expr  `json:"args,omitempty"`
	Field   string   `json:"field,omitempty"`
	Fields  []string `json:"fields,omitempty"`
	Message string   `json:"message,omitempty"`
	// Op is an Op's operator: + - * / // % ** == != < <= > >= && || <>
	// or negate; or an Intrinsic's name (intrinsics.go).
	Op string `json:"op,omitempty"`
}

// PoolsOf adds to into the languages of the pools that evaluating e may
// call: those of the functions its calls name, at any depth. A call of a
// function m does not have is no pool's (Validate refuses such a manifest).
// It is what says which pools a command needs to start (PoolsFor).
func (m *Manifest) PoolsOf(e *Expr, into map[string]bool) {
	m.EachCall(e, func(f *Function) { into[f.Pool] = true })
}

// EachCall calls fn with the function of every call in e, at any depth, in
// order; a call of a function m does not have is skipped.
// The calls of the recursive definitions e applies are e's too, each
// definition visited once.
func (m *Manifest) EachCall(e *Expr, fn func(*Function)) {
	m.eachCall(e, fn, map[int]bool{})
}

func (m *Manifest) eachCall(e *Expr, fn func(*Function), defs map[int]bool) {
	if e == nil {
		return
	}
	if e.Kind == Call && e.Ref >= 0 && e.Ref < len(m.Functions) {
		fn(&m.Functions[e.Ref])
	}
	if e.Kind == Apply && e.Ref >= 0 && e.Ref < len(m.Defs) && !defs[e.Ref] {
		defs[e.Ref] = true
		m.eachCall(m.Defs[e.Ref].Body, fn, defs)
	}
	for _, a := range e.Args {
		m.eachCall(a, fn, defs)
	}
}
