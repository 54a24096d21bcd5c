package syntax

import "github.com/nexus-run/nexus/internal/codegen/diag"

// File is a parsed `.loc` file: its top-level items, each kind in source
// order.
type File struct {
	Module      *Module
	Imports     []*Import
	Sources     []*Source
	Signatures  []*Signature
	Records     []*Record
	RecordLangs []*RecordLang
	Aliases     []*TypeAlias
	Newtypes    []*Newtype
	TypeLangs   []*TypeLang
	Effects     []*EffectDecl
	Fixities    []*Fixity
	Defs        []*Def
	Classes     []*Class
	Instances   []*Instance
}

// EffectDecl is `effect IO, Err` or `escapable effect Err`: effect labels
// that signatures may use.
type EffectDecl struct {
	Pos       diag.Pos
	Doc       Doc
	Escapable bool
	Names     []Name
}

// DocLine is one `--'` docstring line. Pos is where Text starts, right
// after the `--'`, so a directive's value can be located exactly.
type DocLine struct {
	Pos  diag.Pos
	Text string
}

// Doc is the docstring attached to an item, argument or field.
type Doc []DocLine

// Name is an identifier with its position.
type Name struct {
	Pos  diag.Pos
	Name string
}

// StringLit is a string literal outside expressions (paths, source names).
type StringLit struct {
	Pos   diag.Pos
	Value string
}

// Module is `module NAME (e1, e2)` or `module NAME (*)`. An exported
// operator `(+.)` is the Name "+."; Name.Name is empty for `module (*)`.
type Module struct {
	Pos     diag.Pos
	Doc     Doc
	Name    Name
	All     bool // (*)
	Exports []Name
	// Everything is set when Exports was made from a `(*)` (by the module
	// loader): the names that cannot be commands are then left out.
	Everything bool
	// Groups are the command groups of the export list (`--* group:
	// NAME` lines), in order; a `--* group:` without a name, which ends
	// grouping, is not one.
	Groups []ExportGroup
}

// ExportGroup is one `--* group: NAME` header of an export list, with the
// `--*` description lines after it. Members are the positions of the
// exported names that belong to it (the names after it, up to the next
// header): positions, because the module loader renames and deduplicates
// Exports but keeps where each was written.
type ExportGroup struct {
	Pos     diag.Pos // of the name
	Name    string
	Doc     []string
	Members []diag.Pos
}

// Import is `import NAME`, `import .local.path`, with an optional
// qualifier `as h` and an optional import list `(a, b as c, (+.))`.
type Import struct {
	Pos    diag.Pos
	Doc    Doc
	Module Name // the path without its leading dot
	Local  bool // written with a leading dot
	// As is the qualifier of `import m as h`, nil without one.
	As *Name
	// List is set when an import list is written, empty or not.
	List  bool
	Items []ImportItem
}

// ImportItem is one name of an import list, `name` or `name as alias`
// (Alias is Name when there is no `as`). An operator `(+.)` is "+.".
type ImportItem struct {
	Name, Alias Name
}

// Source is `source LANG from "PATH" ("name" as alias, "name2")`.
type Source struct {
	Pos   diag.Pos
	Doc   Doc
	Lang  Name
	Path  StringLit
	Items []SourceItem
	// Builtin is set for `source Py ("len" as size)`, without `from`:
	// the names are the language's own builtins.
	Builtin bool
}

// SourceItem is one sourced name. Alias is the name in the program: the
// `as` name, or the source name itself (at the string's position). Doc is
// the docstring above it in the block form (`source ... where`).
type SourceItem struct {
	Name  StringLit
	Alias Name
	Doc   Doc
	// Infix is set for a foreign operator, `(+)`, `(+) as (<>)` or
	// `` `and` as (&&) ``: Name is the operator's text in its language,
	// which the pool applies between the two arguments (foreignops.go).
	Infix bool
}

// Signature is `name :: T1 -> T2 -> R`. Params are the argument types,
// Result the return type, each with the docstring written above it.
type Signature struct {
	Pos  diag.Pos
	Doc  Doc
	Name Name
	// Constraints are the class constraints before `=>` (`Ord a`),
	// checked at each use of the signature's function (check/methods.go).
	Constraints []Type
	Params      []*SigType
	Result      *SigType
}

// SigType is one part of a signature's arrow chain. Effects are the
// labels of an effect row written before the type (`<IO, Err> Str`): an
// upper-case name is an effect, a lower-case one a row variable.
type SigType struct {
	Doc     Doc
	Effects []Name
	Type    Type
}

// Record is `record Name p1 p2 where` with its fields, or the legacy
// `record Name = Con { field :: Type, ... }`. Params are its type
// parameters, replaced by the arguments of each use.
type Record struct {
	Pos    diag.Pos
	Doc    Doc
	Name   Name
	Params []Name
	Fields []*FieldDecl
}

// FieldDecl is one `field :: Type` line of a record.
type FieldDecl struct {
	Doc  Doc
	Name Name
	Type Type
}

// RecordLang is `record Py => Name = "dict"`: the record's type in a
// language.
type RecordLang struct {
	Pos    diag.Pos
	Doc    Doc
	Lang   Name
	Record Name
	Type   StringLit
}

// TypeAlias is `type Name p1 p2 = Type`: a transparent alias, the same
// type as its body with the parameters replaced by the arguments it is
// given.
type TypeAlias struct {
	Pos    diag.Pos
	Doc    Doc
	Name   Name
	Params []Name
	Body   Type
}

// TypeLang is `type Lang => Name p1 ... = "native" a1 ...`: the type's
// native form in a language (a language type map). Params are the type
// terms after the name on the left; the native form's own arguments are
// read and not kept.
type TypeLang struct {
	Pos    diag.Pos
	Doc    Doc
	Lang   Name
	Name   Name
	Params []Type
	Native StringLit
}

// Def is a definition `name p1 p2 = body`. A parameter written `_` has
// the name "_".
type Def struct {
	Pos    diag.Pos
	Doc    Doc
	Name   Name
	Params []Name
	Body   Expr
	// Where are the definitions of its `where` clause, and WhereSigs
	// their signatures.
	Where     []*Def
	WhereSigs []*Signature
}

// Type is a type expression as written.
type Type interface {
	TypePos() diag.Pos
}

// NamedType is a type name applied to arguments: Int, Settings, Map Str Int.
type NamedType struct {
	Pos  diag.Pos
	Name string
	Args []Type
}

// ListType is [Elem].
type ListType struct {
	Pos  diag.Pos
	Elem Type
}

// OptionalType is ?Elem.
type OptionalType struct {
	Pos  diag.Pos
	Elem Type
}

// TupleType is (A, B, ...).
type TupleType struct {
	Pos   diag.Pos
	Items []Type
}

// UnitType is ().
type UnitType struct {
	Pos diag.Pos
}

// FuncType is `(A -> B -> R)`, the type of a function argument.
// Effects is the effect row written before its result (`a -> <e> b`).
type FuncType struct {
	Pos     diag.Pos
	Params  []Type
	Result  Type
	Effects []Name
}

func (t *NamedType) TypePos() diag.Pos    { return t.Pos }
func (t *ListType) TypePos() diag.Pos     { return t.Pos }
func (t *OptionalType) TypePos() diag.Pos { return t.Pos }
func (t *TupleType) TypePos() diag.Pos    { return t.Pos }
func (t *UnitType) TypePos() diag.Pos     { return t.Pos }
func (t *FuncType) TypePos() diag.Pos     { return t.Pos }

// Expr is an expression of a definition's body.
type Expr interface {
	ExprPos() diag.Pos
}

// Var is a reference to a parameter, a definition or a sourced function.
type Var struct {
	Pos  diag.Pos
	Name string
}

// IntLit is an integer literal.
type IntLit struct {
	Pos   diag.Pos
	Value int64
}

// RealLit is a literal with a fraction or an exponent.
type RealLit struct {
	Pos   diag.Pos
	Value float64
}

// StrLit is a string literal, escapes decoded.
type StrLit struct {
	Pos   diag.Pos
	Value string
}

// BoolLit is true or false.
type BoolLit struct {
	Pos   diag.Pos
	Value bool
}

// UnitLit is ().
type UnitLit struct {
	Pos diag.Pos
}

// ListLit is [a, b, ...].
type ListLit struct {
	Pos   diag.Pos
	Elems []Expr
}

// TupleLit is (a, b, ...) with at least two items.
type TupleLit struct {
	Pos   diag.Pos
	Items []Expr
}

// RecordLit is {field = value, ...}.
type RecordLit struct {
	Pos    diag.Pos
	Fields []FieldInit
}

// FieldInit is one `field = value` of a record literal.
type FieldInit struct {
	Name  Name
	Value Expr
}

// App is the application of Fun to Args: f a (g b).
type App struct {
	Pos  diag.Pos
	Fun  Expr
	Args []Expr
}

// Getter is `.field`, a function from a record to one of its fields.
type Getter struct {
	Pos   diag.Pos
	Field string
}

// Throw is `@throw "message"`: it fails the command with the message.
type Throw struct {
	Pos     diag.Pos
	Message Expr
}

// Infix is a chain of operators as written, `a + b * c`: Operands has
// one more item than Ops. Precedence and associativity are applied by the
// checker, which knows every fixity of the program (a fixity declaration
// may come anywhere in a module).
type Infix struct {
	Operands []Expr
	Ops      []Name // each operator with its position
}

// Negate is a prefix minus on an expression other than a number literal:
// `-f x` is negate (f x).
type Negate struct {
	Pos  diag.Pos
	Expr Expr
}

// Section is an operator written in parentheses with one operand or
// none: `(+)`, `(* 2)` (Right set), `(2 /)` (Left set). A function.
type Section struct {
	Pos         diag.Pos
	Op          Name
	Left, Right Expr
}

// Fixity is `infixl 6 +, -` (Assoc "infixl", "infixr" or "infix").
type Fixity struct {
	Pos   diag.Pos
	Assoc string
	Prec  int
	Ops   []Name
}

// Let is `let a = e1 \n b = e2 in body`: each binding seen by the ones
// after it and by the body.
type Let struct {
	Pos      diag.Pos
	Bindings []LetBinding
	Body     Expr
}

// LetBinding is one `name = value` of a Let.
type LetBinding struct {
	Name  Name
	Value Expr
}

func (e *Let) ExprPos() diag.Pos { return e.Pos }

// NullLit is `Null`, the absent value of an optional type.
type NullLit struct {
	Pos diag.Pos
}

func (e *NullLit) ExprPos() diag.Pos { return e.Pos }

// Lambda is `\x y -> body`, a function of its parameters.
type Lambda struct {
	Pos    diag.Pos
	Params []Name
	Body   Expr
}

// Do is a `do` block: statements run in order, the last one's value the
// block's.
type Do struct {
	Pos   diag.Pos
	Stmts []DoStmt
}

// DoStmt is one statement of a Do: `name <- expr` (Bind set), `let
// bindings` (Let set, no `in`), or a bare expression.
type DoStmt struct {
	Bind *Name
	Let  []LetBinding
	Expr Expr
}

func (e *Lambda) ExprPos() diag.Pos { return e.Pos }
func (e *Do) ExprPos() diag.Pos     { return e.Pos }

// Guard is `? c1 = e1 ? c2 = e2 : d`: the value of the first branch
// whose condition holds, else the default.
type Guard struct {
	Pos      diag.Pos
	Branches []GuardBranch
	Default  Expr
}

// GuardBranch is one `? condition = value` of a Guard.
type GuardBranch struct {
	Cond, Value Expr
}

func (e *Guard) ExprPos() diag.Pos { return e.Pos }

func (e *Infix) ExprPos() diag.Pos   { return e.Operands[0].ExprPos() }
func (e *Negate) ExprPos() diag.Pos  { return e.Pos }
func (e *Section) ExprPos() diag.Pos { return e.Pos }

func (e *Var) ExprPos() diag.Pos       { return e.Pos }
func (e *IntLit) ExprPos() diag.Pos    { return e.Pos }
func (e *RealLit) ExprPos() diag.Pos   { return e.Pos }
func (e *StrLit) ExprPos() diag.Pos    { return e.Pos }
func (e *BoolLit) ExprPos() diag.Pos   { return e.Pos }
func (e *UnitLit) ExprPos() diag.Pos   { return e.Pos }
func (e *ListLit) ExprPos() diag.Pos   { return e.Pos }
func (e *TupleLit) ExprPos() diag.Pos  { return e.Pos }
func (e *RecordLit) ExprPos() diag.Pos { return e.Pos }
func (e *App) ExprPos() diag.Pos       { return e.Pos }
func (e *Getter) ExprPos() diag.Pos    { return e.Pos }
func (e *Throw) ExprPos() diag.Pos     { return e.Pos }
