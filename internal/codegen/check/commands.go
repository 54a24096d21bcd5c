package check

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/doc"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/internal/suggest"
	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// commands builds a command for every exported name, in export order
// (source order for `(*)`).
func (c *checker) commands() []manifest.Command {
	cmds := []manifest.Command{}
	named := map[string]diag.Pos{}
	for _, ex := range c.exports() {
		cmd, pos := c.command(ex)
		if cmd == nil {
			continue
		}
		if prev, dup := named[cmd.Name]; dup {
			c.sink.Errorf(pos, "two commands are named %s (the first at %s)", cmd.Name, prev)
			continue
		}
		named[cmd.Name] = pos
		cmd.Group = c.groupOf(ex.Pos)
		cmds = append(cmds, *cmd)
	}
	c.checkGroups(cmds, named)
	return cmds
}

// exports lists the exported names. `(*)` exports every definition and
// sourced function that has a signature.
func (c *checker) exports() []syntax.Name {
	mod := c.file.Module
	if !mod.All {
		seen := map[string]bool{}
		var out []syntax.Name
		for _, ex := range mod.Exports {
			if seen[ex.Name] {
				c.sink.Warnf(ex.Pos, "'%s' is exported twice", ex.Name)
				continue
			}
			seen[ex.Name] = true
			if mod.Everything && !c.commandable(ex.Name) {
				continue
			}
			out = append(out, ex)
		}
		return out
	}
	pos := map[string]diag.Pos{}
	var names []string
	for _, d := range c.file.Defs {
		if def := c.defs[d.Name.Name]; def != nil && def.decl == d && c.commandable(d.Name.Name) {
			names = append(names, d.Name.Name)
			pos[d.Name.Name] = d.Name.Pos
		}
	}
	for _, f := range c.funcList {
		if c.funcs[f.name] == f && c.commandable(f.name) {
			names = append(names, f.name)
			pos[f.name] = f.pos
		}
	}
	sourceOrder(names, func(n string) diag.Pos { return pos[n] })
	out := make([]syntax.Name, len(names))
	for i, n := range names {
		out[i] = syntax.Name{Pos: pos[n], Name: n}
	}
	return out
}

// command builds the command of one exported name. It returns nil for a
// record (a type export) and after an error; pos is where the command's
// name comes from.
func (c *checker) command(ex syntax.Name) (*manifest.Command, diag.Pos) {
	def, f, sig := c.exported(ex)
	if sig == nil {
		return nil, ex.Pos
	}
	if sig.ok && generic(sig.params, sig.result) {
		c.sink.Errorf(ex.Pos, "'%s' cannot be a command: its type %s has type variables or takes a function, which no command line or MCP client can give; export a definition that uses it at concrete types", ex.Name, sigString(sig))
		return nil, ex.Pos
	}
	if sig.ok && c.handleParams(sig, "command '"+ex.Name+"'", false) {
		return nil, ex.Pos
	}
	d := doc.Parse(sig.decl.Doc)
	c.warnUnknown(d)
	d = c.definitionDoc(d, def, sig)
	for _, dir := range d.Directives {
		c.onCommand(dir)
	}
	cmd := &manifest.Command{Name: ex.Name, Doc: d.Lines, Return: sig.result}
	pos := ex.Pos
	if dir := d.Get("name"); dir != nil {
		cmd.Name, pos = dir.Value, dir.ValuePos
	}
	if !manifest.IsToolName(cmd.Name) {
		c.sink.Errorf(pos, "command name '%s' must match %s, which is what MCP clients accept as a tool name", cmd.Name, manifest.ToolNamePattern)
	}
	cmd.ReturnDoc = c.returnDoc(d, sig)
	cmd.Title, cmd.Icons = c.display(d)
	reg := &optionNames{c: c, cmd: cmd.Name, used: map[string]diag.Pos{}}
	cmd.Args = c.commandArgs(sig, reg)
	cmd.Body = c.commandBody(def, f, sig, ex.Pos)
	cmd.Mime = c.resultMime(sig.decl.Result.Type, sig.result.Name)
	cmd.Actions = c.actions(d, sig.result, reg, cmd.Mime != "")
	if cmd.Body == nil {
		return nil, pos
	}
	return cmd, pos
}

// display is what MCP clients show of a command besides its name and
// description: its `title:` and the URLs of its `icon:` directives.
func (c *checker) display(d doc.Doc) (string, []string) {
	title := ""
	if dir := d.Get("title"); dir != nil {
		if title = dir.Value; title == "" {
			c.sink.Errorf(dir.ValuePos, "title: needs the command's display name, such as `title: Molecular weight`")
		}
	}
	var icons []string
	for _, dir := range d.All("icon") {
		if err := checkIconURL(dir.Value); err != nil {
			c.sink.Errorf(dir.ValuePos, "icon: %v", err)
			continue
		}
		icons = append(icons, dir.Value)
	}
	return title, icons
}

// checkIconURL checks the value of an `icon:` directive. Only https: and
// data:image/ are accepted, as the MCP specification asks clients to
// accept no other scheme for icons (a file: or http: URL would be fetched
// by no one, or unsafely).
func checkIconURL(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("needs the URL of an image, such as `icon: https://example.com/icon.png`")
	case strings.ContainsAny(s, " \t"):
		return fmt.Errorf("'%s' is not one URL: it holds white space", s)
	case strings.HasPrefix(s, "data:image/"):
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("'%s' is not an https:// URL or a data:image/ URI", s)
	}
	return nil
}

// exported finds what an exported name stands for: a definition or a
// sourced function, with its signature. sig is nil when the name is not a
// command (a record) or after an error.
func (c *checker) exported(ex syntax.Name) (*definition, *function, *signature) {
	def, f := c.defs[ex.Name], c.funcs[ex.Name]
	switch {
	case def == nil && f == nil && c.classes.methods[ex.Name] != nil:
		c.sink.Errorf(ex.Pos, "'%s' is a method of class %s, which works at the types of its instances; a method cannot be a command: export a definition that uses it at one type", ex.Name, c.classes.methods[ex.Name].decl.Name.Name)
		return nil, nil, nil
	case def == nil && f == nil:
		if c.records[ex.Name] == nil {
			c.sink.Errorf(ex.Pos, "exported '%s' is not defined%s", ex.Name, suggest.Hint(ex.Name, c.namesInScope(nil)))
		}
		return nil, nil, nil
	case def != nil && def.sig == nil && !def.broken:
		// Without a signature its type is inferred, as Morloc does,
		// when it is concrete.
		if def.sig = c.inferSignature(def, ex.Pos); def.sig == nil {
			return nil, nil, nil
		}
	case def != nil && def.broken:
		return nil, nil, nil
	}
	var sig *signature
	if def != nil {
		sig = def.sig
	} else {
		sig = f.sig
	}
	if sig == nil || !sig.ok {
		// The missing signature or the bad type is reported already.
		return nil, nil, nil
	}
	return def, f, sig
}

// inferSignature is the signature of an exported definition without
// one, as Morloc infers it: each parameter's type is what the first place
// that uses it expects (a sourced function's argument, a signature), the
// result's the body's. nil when a type stays unknown or the body has an
// error (reported).
func (c *checker) inferSignature(def *definition, pos diag.Pos) *signature {
	name := def.decl.Name.Name
	n := len(def.decl.Params)
	c.startBudget(n)
	c.inferring = map[string]*types.Type{}
	defer func() { c.inferring = nil }()
	args := make([]arg, n)
	for i := range args {
		t := &types.Type{Kind: types.Var, Name: fmt.Sprintf("?%d", i)}
		c.inferring[t.Name] = nil
		args[i] = arg{val: &manifest.Expr{Kind: manifest.Var, Type: t, Ref: i}, pos: def.decl.Params[i].Pos}
	}
	v := (&defFn{d: def}).expand(c, args, pos, nil)
	e, ok := v.(*manifest.Expr)
	if !ok {
		if f, isFn := v.(fnValue); isFn {
			c.sink.Errorf(pos, "exported '%s' is a function (%s) without a signature; give it one such as `%s :: Str -> Str`", name, f.missing(), name)
		}
		return nil
	}
	found := map[string]*types.Type{}
	for k, t := range c.inferring {
		if t != nil {
			found[k] = t
		}
	}
	decl := &syntax.Signature{Pos: def.decl.Pos, Doc: def.decl.Doc, Name: def.decl.Name, Result: &syntax.SigType{}}
	sig := &signature{decl: decl, result: subst(e.Type, found), ok: true}
	for i, p := range def.decl.Params {
		t := c.inferring[fmt.Sprintf("?%d", i)]
		if t == nil || !ground(t) {
			c.sink.Errorf(p.Pos, "the type of '%s', a parameter of the exported '%s', cannot be inferred from its uses; give '%s' a signature", p.Name, name, name)
			return nil
		}
		sig.params = append(sig.params, t)
		decl.Params = append(decl.Params, &syntax.SigType{})
	}
	if !ground(sig.result) {
		c.sink.Errorf(pos, "exported '%s' has no signature and its type %s is not concrete; give it one", name, sig.result)
		return nil
	}
	if !c.requireDeclared(sig.result, fmt.Sprintf("the result of the exported '%s'", name), pos) {
		return nil
	}
	return sig
}

// returnDoc is the `return:` directive of the command, else the one above
// the return type, else the description written above the return type.
func (c *checker) returnDoc(d doc.Doc, sig *signature) string {
	rd := doc.Parse(sig.decl.Result.Doc)
	c.warnUnknown(rd)
	text := ""
	if dir := d.Get("return"); dir != nil {
		text = dir.Value
	}
	for _, dir := range rd.Directives {
		if dir.Key == "return" && text == "" {
			text = dir.Value
		} else if dir.Key == "mime" {
			c.misplacedMime(doc.Doc{Directives: []doc.Directive{dir}}, "a return type")
		} else {
			c.sink.Warnf(dir.Pos, "directive '%s' has no effect on a return type; ignored", dir.Key)
		}
	}
	if text == "" {
		text = strings.Join(rd.Lines, " ")
	}
	return text
}

// commandBody is the body of a command: the definition inlined, or the
// call of the exported sourced function, on the command's arguments.
func (c *checker) commandBody(def *definition, f *function, sig *signature, pos diag.Pos) *manifest.Expr {
	vars := make([]arg, len(sig.params))
	for i, t := range sig.params {
		vars[i] = arg{val: &manifest.Expr{Kind: manifest.Var, Type: t, Ref: i}, pos: pos}
	}
	c.startBudget(len(sig.params))
	var body value
	if def != nil {
		body = (&defFn{d: def}).expand(c, vars, pos, sig.result)
		body = c.conform(body, sig.result, def.decl.Body.ExprPos())
	} else {
		body = (&sourcedFn{f: f}).call(c, vars, nil)
	}
	e, _ := body.(*manifest.Expr)
	return e
}
