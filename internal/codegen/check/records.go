package check

import (
	"strings"

	"github.com/nexus-run/nexus/internal/codegen/diag"
	"github.com/nexus-run/nexus/internal/codegen/doc"
	"github.com/nexus-run/nexus/internal/codegen/syntax"
	"github.com/nexus-run/nexus/internal/suggest"
	"github.com/nexus-run/nexus/manifest/types"
)

// record is a declared record and what its docstrings say about it.
type record struct {
	decl *syntax.Record
	typ  *types.Type
	// state is 0 before the type is built, 1 while its fields are being
	// resolved (to catch a record that contains itself), 2 when built.
	state int
	// unroll makes an argument of this record a group of options.
	unroll bool
	// whole, when set, names the option that takes the whole record as
	// JSON (`arg: --config` on the record); wholePos is where it is.
	whole    doc.Names
	wholePos diag.Pos
	metavar  string
	fields   []*fieldInfo
}

// fieldInfo is what a field's docstring says about its option.
type fieldInfo struct {
	decl      *syntax.FieldDecl
	doc       doc.Doc
	names     doc.Names // from arg:
	namesPos  diag.Pos
	trueNames doc.Names // from true:
	trueDir   *doc.Directive
	falseDir  *doc.Directive
	falseName doc.Names
	metavar   string
	// defaultSet says the field's Default came from a `default:`.
	defaultSet bool
}

// collectRecords declares every record, builds their types and applies
// the `record Lang => Name = "type"` lines.
func (c *checker) collectRecords() {
	for _, r := range c.file.Records {
		name := r.Name.Name
		if _, builtin := builtinTypes[name]; builtin {
			c.sink.Errorf(r.Name.Pos, "record %s has the name of a built-in type", name)
			continue
		}
		if prev, dup := c.records[name]; dup {
			c.sink.Errorf(r.Name.Pos, "record %s is declared twice (first at %s)", name, prev.decl.Name.Pos)
			continue
		}
		c.records[name] = &record{decl: r}
	}
	for _, r := range c.file.Records {
		if rec := c.records[r.Name.Name]; rec != nil && rec.decl == r {
			c.recordType(rec, nil)
		}
	}
	for _, rl := range c.file.RecordLangs {
		lang, ok := langs[rl.Lang.Name]
		if !ok {
			c.sink.Errorf(rl.Lang.Pos, "unknown language '%s' (expected Py, Cpp or Go)%s", rl.Lang.Name, suggest.Hint(rl.Lang.Name, []string{"Py", "Cpp", "Go"}))
			continue
		}
		rec := c.records[rl.Record.Name]
		if rec == nil {
			c.sink.Errorf(rl.Record.Pos, "unknown record '%s'%s", rl.Record.Name, suggest.Hint(rl.Record.Name, c.recordNames()))
			continue
		}
		if rec.typ == nil {
			continue
		}
		if rec.typ.Langs == nil {
			rec.typ.Langs = map[string]string{}
		}
		if prev, dup := rec.typ.Langs[lang]; dup {
			c.sink.Errorf(rl.Pos, "record %s already has a %s type (%q)", rec.decl.Name.Name, rl.Lang.Name, prev)
			continue
		}
		rec.typ.Langs[lang] = rl.Type.Value
	}
}

func (c *checker) recordNames() []string {
	names := make([]string, 0, len(c.records))
	for n := range c.records {
		names = append(names, n)
	}
	return names
}

// recordType builds the fully expanded type of rec. path is the chain of
// records being built, to report one that contains itself.
func (c *checker) recordType(rec *record, path []string) *types.Type {
	switch rec.state {
	case 2:
		return rec.typ
	case 1:
		cycle := strings.Join(append(path, rec.decl.Name.Name), " -> ")
		c.sink.Errorf(rec.decl.Name.Pos, "record %s contains itself (%s); records cannot be recursive", rec.decl.Name.Name, cycle)
		return nil
	}
	if len(rec.decl.Params) > 0 {
		return c.recordTemplate(rec)
	}
	rec.state = 1
	defer func() { rec.state = 2 }()
	path = append(path, rec.decl.Name.Name)
	d := doc.Parse(rec.decl.Doc)
	c.typeDoc(d, "record "+rec.decl.Name.Name)
	t := &types.Type{Kind: types.Record, Name: rec.decl.Name.Name, Doc: d.Lines, Fields: []types.Field{}}
	c.recordDirectives(rec, d)
	ok := true
	seen := map[string]bool{}
	for _, fd := range rec.decl.Fields {
		if seen[fd.Name.Name] {
			c.sink.Errorf(fd.Name.Pos, "record %s has two fields named %s", t.Name, fd.Name.Name)
			ok = false
			continue
		}
		seen[fd.Name.Name] = true
		ft := c.resolveType(fd.Type, path)
		if ft == nil {
			ok = false
			continue
		}
		fi := c.fieldDirectives(fd, ft)
		field := types.Field{Name: fd.Name.Name, Type: ft, Doc: fi.doc.Lines}
		if dir := fi.doc.Get("default"); dir != nil {
			if v, good := c.parseDefault(dir, ft); good {
				field.Default = v
				fi.defaultSet = true
				c.uselessFlag(dir, v, fi.trueDir, fi.falseDir)
			}
		} else if fi.trueDir != nil || fi.falseDir != nil {
			// A flag field is optional: its default is what the flag
			// means when it is not given.
			field.Default = flagDefault(fi)
		}
		rec.fields = append(rec.fields, fi)
		t.Fields = append(t.Fields, field)
	}
	if ok {
		rec.typ = t
	}
	return rec.typ
}

func flagDefault(fi *fieldInfo) []byte {
	if fi.trueDir == nil && fi.falseDir != nil {
		return []byte("true")
	}
	return []byte("false")
}

// recordDirectives reads `unroll:`, `arg:` and `metavar:` on a record.
func (c *checker) recordDirectives(rec *record, d doc.Doc) {
	for _, dir := range d.Directives {
		switch dir.Key {
		case "unroll":
			v, err := doc.ParseBool(dir.Value)
			if err != nil {
				c.valueError(dir, err)
				continue
			}
			rec.unroll = v
		case "arg":
			n, err := doc.ParseNames(dir.Value)
			if err != nil {
				c.valueError(dir, err)
				continue
			}
			rec.whole, rec.wholePos = n, dir.ValuePos
		case "metavar":
			rec.metavar = dir.Value
		case "with", "render", "return", "title", "icon", "epilogue", "env", "cwd", "timeout", "bearer", "header":
			// typeDoc reports these.
		case "mime":
			// Reported by checkMimes.
		default:
			c.sink.Warnf(dir.Pos, "directive '%s' has no effect on a record; ignored", dir.Key)
		}
	}
	if (rec.whole != doc.Names{}) && !rec.unroll {
		c.sink.Warnf(rec.wholePos, "arg: on record %s has no effect without unroll: true; ignored", rec.decl.Name.Name)
	}
}

// fieldDirectives reads a field's docstring. The default is checked by
// the caller, which knows where it goes.
func (c *checker) fieldDirectives(fd *syntax.FieldDecl, ft *types.Type) *fieldInfo {
	// A field whose type is an alias takes the alias's docstring where
	// its own does not say (Morloc's inheritance, as for an argument).
	fi := &fieldInfo{decl: fd, doc: c.inherit(doc.Parse(fd.Doc), fd.Type)}
	c.warnUnknown(fi.doc)
	for i := range fi.doc.Directives {
		dir := &fi.doc.Directives[i]
		switch dir.Key {
		case "default":
		case "arg":
			n, err := doc.ParseNames(dir.Value)
			if err != nil {
				c.valueError(*dir, err)
				continue
			}
			if ft.Kind == types.Bool {
				c.boolOption(dir, "field "+fd.Name.Name)
				continue
			}
			fi.names, fi.namesPos = n, dir.ValuePos
		case "true", "false":
			n, err := doc.ParseNames(dir.Value)
			if err != nil {
				c.valueError(*dir, err)
				continue
			}
			if ft.Kind != types.Bool {
				c.sink.Errorf(dir.Pos, "%s: makes field %s a flag, but flags are Bool and the field is %s", dir.Key, fd.Name.Name, ft)
				continue
			}
			if dir.Key == "true" {
				fi.trueNames, fi.trueDir = n, dir
			} else {
				fi.falseName, fi.falseDir = n, dir
			}
		case "metavar":
			if ft.Kind == types.Bool && (fi.doc.Get("true") != nil || fi.doc.Get("false") != nil) {
				c.sink.Warnf(dir.Pos, "metavar: has no effect on a flag, which takes no value; ignored")
				continue
			}
			fi.metavar = dir.Value
		case "mime":
			// The field's own is reported by checkMimes; one its type's
			// alias gives says what the type's values are, not the field.
		default:
			c.sink.Warnf(dir.Pos, "directive '%s' has no effect on a record field; ignored", dir.Key)
		}
	}
	if fi.namesPos.IsValid() && (fi.trueDir != nil || fi.falseDir != nil) {
		c.sink.Errorf(fi.namesPos, "field %s is either an option (arg:) or a flag (true:/false:), not both", fd.Name.Name)
	}
	return fi
}
