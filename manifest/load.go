package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nexus-run/nexus/manifest/types"
)

// Load reads and validates the manifest at path. path may also be a build
// folder or a launcher written by `nexus make` (the file NAME beside
// NAME-build/).
func Load(path string) (*Manifest, error) {
	file, err := Resolve(path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("manifest %s is not valid: %w", file, err)
	}
	if m.Nexus != NexusVersion {
		return nil, fmt.Errorf("manifest %s was built by nexus %s, but this is nexus %s: rebuild the program with `nexus make`", file, orUnknown(m.Nexus), NexusVersion)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("manifest %s: %w", file, err)
	}
	m.Dir = filepath.Dir(file)
	return &m, nil
}

func orUnknown(v string) string {
	if v == "" {
		return "(unknown version)"
	}
	return v
}

// Resolve finds the manifest file for path: the file itself, FileName inside
// a folder, or PATH-build/FileName for a launcher. The result is absolute.
func Resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("no program at %s", path)
		}
		return "", err
	}
	switch {
	case st.IsDir():
		abs = filepath.Join(abs, FileName)
	case filepath.Ext(abs) == ".loc":
		return "", fmt.Errorf("%s is a program's source, not a program: build it with `nexus make %s`, and name the program it builds (./NAME)", path, path)
	case filepath.Ext(abs) != ".json":
		abs = launcherManifest(abs)
	}
	if _, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("no manifest for %s (looked for %s); build the program with `nexus make`", path, abs)
	}
	return abs, nil
}

// launcherManifest is the manifest of the launcher at abs, in the build
// folder beside it. A launcher reached through a symbolic link (from a
// bin folder on PATH, say) has its build folder beside the file linked
// to.
func launcherManifest(abs string) string {
	file := abs + "-build/" + FileName
	if _, err := os.Stat(file); err == nil {
		return file
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		if linked := real + "-build/" + FileName; exists(linked) {
			return linked
		}
	}
	return file
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// PoolCommand returns the argv that starts pool p, with paths inside the
// build folder made absolute.
func (m *Manifest) PoolCommand(p *Pool) []string {
	argv := make([]string, len(p.Command))
	for i, a := range p.Command {
		if rest, ok := strings.CutPrefix(a, BuildDirVar+"/"); ok {
			a = filepath.Join(m.Dir, rest)
		}
		argv[i] = a
	}
	return argv
}

// Pool returns the pool for lang, or nil.
func (m *Manifest) Pool(lang string) *Pool {
	for i := range m.Pools {
		if m.Pools[i].Lang == lang {
			return &m.Pools[i]
		}
	}
	return nil
}

// Command returns the command called name, or nil.
func (m *Manifest) Command(name string) *Command {
	for i := range m.Commands {
		if m.Commands[i].Name == name {
			return &m.Commands[i]
		}
	}
	return nil
}

// Group returns the command group called name, or nil.
func (m *Manifest) Group(name string) *CommandGroup {
	for i := range m.Groups {
		if m.Groups[i].Name == name {
			return &m.Groups[i]
		}
	}
	return nil
}

// PoolsFor returns the languages of the pools that running c may call, in
// a stable order. A pure command needs none.
func (m *Manifest) PoolsFor(c *Command) []string {
	seen := map[string]bool{}
	m.PoolsOf(c.Body, seen)
	for _, a := range c.Actions {
		m.PoolsOf(a.Body, seen)
	}
	langs := make([]string, 0, len(seen))
	for l := range seen {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	return langs
}

// ToolNamePattern is what Claude and other MCP clients accept as a tool
// name; IsToolName checks it.
const ToolNamePattern = `^[a-zA-Z0-9_-]{1,64}$`

// IsToolName reports whether name matches ToolNamePattern. (A compiled
// regexp of it would cost every start of the nexus half a millisecond:
// the {1,64} unrolls into 64 copies of the class.)
func IsToolName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// Validate checks that every reference in m points at something that
// exists and every type is well formed.
func (m *Manifest) Validate() error {
	if m.Name == "" {
		return errors.New("program has no name")
	}
	langs := map[string]bool{}
	for _, p := range m.Pools {
		switch p.Lang {
		case Python, Cpp, Go:
		default:
			return fmt.Errorf("pool with unknown language %q", p.Lang)
		}
		if langs[p.Lang] {
			return fmt.Errorf("two %s pools", p.Lang)
		}
		if len(p.Command) == 0 {
			return fmt.Errorf("%s pool has no launch command", p.Lang)
		}
		if err := validateInterpreter(&p); err != nil {
			return err
		}
		langs[p.Lang] = true
	}
	for i := range m.Servers {
		if err := validateServer(i, &m.Servers[i]); err != nil {
			return err
		}
	}
	for i, f := range m.Functions {
		if f.ID != i {
			return fmt.Errorf("function %s has id %d at index %d", f.Name, f.ID, i)
		}
		if f.Pool == MCP {
			if err := m.validateTool(&f); err != nil {
				return err
			}
		} else if !langs[f.Pool] {
			return fmt.Errorf("function %s: no %q pool", f.Name, f.Pool)
		}
		for j, a := range f.Args {
			if err := a.Validate(); err != nil {
				return fmt.Errorf("function %s argument %d: %w", f.Name, j+1, err)
			}
		}
		if err := f.Return.Validate(); err != nil {
			return fmt.Errorf("function %s result: %w", f.Name, err)
		}
	}
	for i := range m.Defs {
		d := &m.Defs[i]
		for j, p := range d.Params {
			if err := p.Validate(); err != nil {
				return fmt.Errorf("definition %s argument %d: %w", d.Name, j+1, err)
			}
		}
		if err := d.Return.Validate(); err != nil {
			return fmt.Errorf("definition %s result: %w", d.Name, err)
		}
		if err := m.validateExpr(d.Body, len(d.Params)); err != nil {
			return fmt.Errorf("definition %s: %w", d.Name, err)
		}
	}
	groups := map[string]bool{}
	for _, g := range m.Groups {
		if !IsToolName(g.Name) || g.Name[0] == '-' {
			return fmt.Errorf("group %q: name must match %s and not start with '-'", g.Name, ToolNamePattern)
		}
		if groups[g.Name] {
			return fmt.Errorf("group %s defined twice", g.Name)
		}
		groups[g.Name] = true
	}
	names := map[string]bool{}
	tools := map[string]bool{}
	for i := range m.Commands {
		c := &m.Commands[i]
		if !IsToolName(c.Name) {
			return fmt.Errorf("command %q: name must match %s", c.Name, ToolNamePattern)
		}
		if names[c.Name] {
			return fmt.Errorf("command %s defined twice", c.Name)
		}
		names[c.Name] = true
		if c.Group != "" && !groups[c.Group] {
			return fmt.Errorf("command %s: no group %q", c.Name, c.Group)
		}
		if groups[c.Name] {
			return fmt.Errorf("command %s has the name of a group", c.Name)
		}
		if tn := c.ToolName(); !IsToolName(tn) || tools[tn] {
			return fmt.Errorf("command %s: tool name %q is not a valid tool name or is taken", c.Name, tn)
		}
		tools[c.ToolName()] = true
		if err := m.validateCommand(c); err != nil {
			return fmt.Errorf("command %s: %w", c.Name, err)
		}
	}
	return nil
}

// validateServer checks one MCP server of the manifest.
func validateServer(i int, sv *Server) error {
	if sv.Name == "" {
		return fmt.Errorf("mcp server %d has no name", i)
	}
	if strings.TrimSpace(sv.Server) == "" {
		return fmt.Errorf("mcp server %s has no command or URL", sv.Name)
	}
	if sv.TimeoutMS <= 0 {
		return fmt.Errorf("mcp server %s: timeout %d ms is not positive", sv.Name, sv.TimeoutMS)
	}
	if sv.Dir != "" && !filepath.IsAbs(sv.Dir) {
		return fmt.Errorf("mcp server %s: working folder %q is not an absolute path", sv.Name, sv.Dir)
	}
	return nil
}

// validateTool checks a function that is a tool of an MCP server.
func (m *Manifest) validateTool(f *Function) error {
	if f.Server < 0 || f.Server >= len(m.Servers) {
		return fmt.Errorf("function %s: mcp server %d out of range", f.Name, f.Server)
	}
	if f.Source == "" {
		return fmt.Errorf("function %s: no tool name", f.Name)
	}
	switch {
	case len(f.Params) == len(f.Args):
		seen := map[string]bool{}
		for _, p := range f.Params {
			if p == "" || seen[p] {
				return fmt.Errorf("function %s: argument names %q are not distinct and non-empty", f.Name, f.Params)
			}
			seen[p] = true
		}
	case len(f.Params) == 0 && len(f.Args) == 1 && f.Args[0] != nil && f.Args[0].Kind == types.Record:
	default:
		return fmt.Errorf("function %s: %d argument names for %d arguments", f.Name, len(f.Params), len(f.Args))
	}
	return nil
}

// validateInterpreter checks a pool's recorded interpreter: only a Python
// pool has one, and it is an absolute path, since it must not depend on
// the folder or PATH the nexus starts in. Whether it still exists is for
// the pool's start to say: a manifest whose interpreter is gone still
// lists its tools.
func validateInterpreter(p *Pool) error {
	switch {
	case p.Interpreter == "":
		return nil
	case p.Lang != Python:
		return fmt.Errorf("%s pool has an interpreter (%s); only a Python pool has one", p.Lang, p.Interpreter)
	case !filepath.IsAbs(p.Interpreter):
		return fmt.Errorf("python pool interpreter %q is not an absolute path", p.Interpreter)
	}
	return nil
}

func (m *Manifest) validateCommand(c *Command) error {
	for i := range c.Args {
		if err := validateArg(&c.Args[i]); err != nil {
			return fmt.Errorf("argument %d: %w", i+1, err)
		}
	}
	if err := c.Return.Validate(); err != nil {
		return fmt.Errorf("result: %w", err)
	}
	if err := m.validateExpr(c.Body, len(c.Args)); err != nil {
		return fmt.Errorf("body: %w", err)
	}
	defaults := 0
	for _, a := range c.Actions {
		if a.Default {
			defaults++
		}
		if a.Kind != "with" && a.Kind != "render" {
			return fmt.Errorf("output action of unknown kind %q", a.Kind)
		}
		if a.Long == "" && a.Short == "" {
			return fmt.Errorf("output action without a flag name")
		}
		if err := m.validateExpr(a.Body, 1); err != nil {
			return fmt.Errorf("output action --%s: %w", a.Long, err)
		}
		// The front ends encode the action's value with Return.
		if err := a.Return.Validate(); err != nil {
			return fmt.Errorf("output action --%s result: %w", a.Long, err)
		}
	}
	if defaults > 1 {
		return fmt.Errorf("%d output actions are the default; at most one may be", defaults)
	}
	if c.Mime != "" {
		if err := CheckMime(c.Mime); err != nil {
			return fmt.Errorf("mime: %w", err)
		}
		if c.Return.Kind != types.Str {
			return fmt.Errorf("mime %s on a result of type %s; only a Str result is raw content", c.Mime, c.Return)
		}
	}
	return nil
}

func validateArg(a *Arg) error {
	if err := a.Type.Validate(); err != nil {
		return err
	}
	switch a.Kind {
	case Positional:
	case Option, Flag:
		if a.Short == "" && a.Long == "" && a.FalseLong == "" && a.FalseShort == "" {
			return fmt.Errorf("%s without a name", a.Kind)
		}
		if a.Kind == Flag && a.Type.Kind != types.Bool {
			return fmt.Errorf("flag of type %s; flags are Bool", a.Type)
		}
	case Group:
		if a.Type.Kind != types.Record {
			return fmt.Errorf("unrolled argument of type %s; only records unroll", a.Type)
		}
		for i := range a.Fields {
			f := &a.Fields[i]
			if a.Type.Field(f.Field) == nil {
				return fmt.Errorf("record %s has no field %q", a.Type.Name, f.Field)
			}
			if err := validateArg(f); err != nil {
				return fmt.Errorf("field %s: %w", f.Field, err)
			}
		}
	default:
		return fmt.Errorf("unknown argument kind %q", a.Kind)
	}
	if len(a.Default) > 0 {
		if _, err := types.FromJSON(a.Type, a.Default); err != nil {
			return fmt.Errorf("default %s: %w", a.Default, err)
		}
	}
	return nil
}

func (m *Manifest) validateExpr(e *Expr, nvars int) error {
	if e == nil {
		return errors.New("missing expression")
	}
	if err := e.Type.Validate(); err != nil {
		return err
	}
	switch e.Kind {
	case Lit:
		if _, err := types.FromJSON(e.Type, e.Value); err != nil {
			return fmt.Errorf("literal %s: %w", e.Value, err)
		}
	case Var:
		if e.Ref < 0 || e.Ref >= nvars {
			return fmt.Errorf("variable %d out of range", e.Ref)
		}
	case Call:
		if e.Ref < 0 || e.Ref >= len(m.Functions) {
			return fmt.Errorf("call of unknown function %d", e.Ref)
		}
		if f := m.Functions[e.Ref]; len(e.Args) != len(f.Args) {
			return fmt.Errorf("call of %s with %d arguments; it takes %d", f.Name, len(e.Args), len(f.Args))
		}
	case Get:
		if len(e.Args) != 1 || e.Field == "" {
			return errors.New("field access needs one record and a field")
		}
	case Throw:
	case Intrinsic:
		if n, ok := Intrinsics[e.Op]; !ok || len(e.Args) != n {
			return fmt.Errorf("intrinsic @%s with %d arguments is not one the nexus knows", e.Op, len(e.Args))
		}
	case MakeList, MakeTuple:
	case MakeRecord:
		if len(e.Fields) != len(e.Args) {
			return errors.New("record construction with unnamed values")
		}
	case Let:
		if len(e.Args) != 2 {
			return errors.New("a let needs a value and a body")
		}
		if err := m.validateExpr(e.Args[0], nvars); err != nil {
			return err
		}
		return m.validateExpr(e.Args[1], nvars+1)
	case If:
		if len(e.Args) != 3 {
			return fmt.Errorf("a condition with %d parts; it takes 3", len(e.Args))
		}
	case Lambda:
		if e.Type.Kind != types.Func || len(e.Args) != 1 || e.Ref != nvars {
			return fmt.Errorf("a lambda needs a function type, a body and its variables numbered from %d", nvars)
		}
		return m.validateExpr(e.Args[0], nvars+len(e.Type.Items))
	case FnRef:
		if e.Type.Kind != types.Func || e.Ref < 0 || e.Ref >= len(m.Functions) {
			return fmt.Errorf("a function reference needs a function type and a known function, not %d", e.Ref)
		}
		if f := m.Functions[e.Ref]; len(e.Args) != len(f.Args) {
			return fmt.Errorf("function reference to %s with %d arguments; it takes %d", f.Name, len(e.Args), len(f.Args))
		}
		for _, a := range e.Args {
			if a != nil && a.Kind == Param && (a.Ref < 0 || a.Ref >= len(e.Type.Items)) {
				return fmt.Errorf("function reference parameter %d out of range", a.Ref)
			}
		}
	case Param:
		// Checked by its FnRef.
	case Apply:
		if e.Ref < 0 || e.Ref >= len(m.Defs) {
			return fmt.Errorf("call of unknown definition %d", e.Ref)
		}
		if d := m.Defs[e.Ref]; len(e.Args) != len(d.Params) {
			return fmt.Errorf("call of %s with %d arguments; it takes %d", d.Name, len(e.Args), len(d.Params))
		}
	case Op:
		n, ok := Operators[e.Op]
		if !ok {
			n, ok = Builtins[e.Op]
		}
		if !ok {
			return fmt.Errorf("unknown operator %q", e.Op)
		}
		if len(e.Args) != n {
			return fmt.Errorf("operator %s with %d operands; it takes %d", e.Op, len(e.Args), n)
		}
	default:
		if ok, err := validateAccess(e); !ok {
			return fmt.Errorf("unknown expression kind %q", e.Kind)
		} else if err != nil {
			return err
		}
	}
	for _, a := range e.Args {
		if err := m.validateExpr(a, nvars); err != nil {
			return err
		}
	}
	return nil
}

// Write stores m as dir/FileName.
func (m *Manifest) Write(dir string) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, FileName), append(data, '\n'), 0o644)
}
