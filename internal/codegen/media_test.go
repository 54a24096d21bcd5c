package codegen

import (
	"testing"
)

// mediaHeader is five lines; the text of each case starts on line 6.
const mediaHeader = `module m (f)
source Py from "chem.py" ("upper", "shout", "count")
upper :: Str -> Str
shout :: Str -> Int -> Str
count :: [Int] -> Int
`

func TestMediaResult(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"alias", "--' @mime image/png\ntype Png = Str\nf :: Str -> Png\nf = upper", "image/png"},
		{"colon form", "--' mime: text/csv\ntype Csv = Str\nf :: Str -> Csv\nf = upper", "text/csv"},
		{"newtype", "--' @mime image/png\nnewtype Png = Str\nsource Py from \"chem.py\" (\"upper\" as f)\nf :: Str -> Png", "image/png"},
		{"alias of an alias inherits", "--' @mime image/png\ntype Png = Str\ntype Thumb = Png\nf :: Str -> Thumb\nf = upper", "image/png"},
		{"same mime again on the chain", "--' @mime image/png\ntype Png = Str\n--' @mime image/png\ntype Thumb = Png\nf :: Str -> Thumb\nf = upper", "image/png"},
		{"with parameters", "--' @mime text/csv; charset=utf-8\ntype Csv = Str\nf :: Str -> Csv\nf = upper", "text/csv; charset=utf-8"},
		{"a list of media is not media", "--' @mime image/png\ntype Png = Str\nf :: Str -> [Png]\nf s = [upper s]", ""},
		{"plain Str", "f :: Str -> Str\nf = upper", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := compileOK(t, mediaHeader+tc.text)
			if got := p.Manifest.Commands[0].Mime; got != tc.want {
				t.Errorf("mime %q, want %q", got, tc.want)
			}
		})
	}
}

func TestMediaErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"on a command", "--' @mime image/png\nf :: Str -> Str\nf = upper", "6:5: mime: is not allowed on a command; it belongs on a type declaration"},
		{"on an argument", "f ::\n  --' @mime image/png\n  Str ->\n  Str\nf = upper", "7:7: mime: is not allowed on an argument"},
		{"on a return", "f ::\n  Str ->\n  --' mime: image/png\n  Str\nf = upper", "8:7: mime: is not allowed on a return type"},
		{"on a record", "--' @mime image/png\nrecord R where\n  x :: Str\nf :: Str -> Str\nf = upper", "6:5: mime: a record's values are not raw content"},
		{"on a field", "record R where\n  --' @mime image/png\n  x :: Str\nf :: Str -> Str\nf = upper", "7:7: mime: is not allowed on a record field"},
		{"on an Int", "--' @mime image/png\ntype P = Int\nf :: Str -> Str\nf = upper", "6:5: mime: type P is Int, whose values are not raw content; only a Str"},
		{"on a list", "--' @mime image/png\ntype P = [Str]\nf :: Str -> Str\nf = upper", "6:5: mime: type P is a list, whose values are not raw content"},
		{"two on one chain", "--' @mime image/png\ntype Png = Str\n--' @mime image/jpeg\ntype Jpg = Png\nf :: Str -> Jpg\nf = upper", "8:5: mime: type Jpg says image/jpeg, but Png, which it stands for, says image/png (at 6:5)"},
		{"two on one type", "--' @mime image/png\n--' @mime image/gif\ntype Png = Str\nf :: Str -> Png\nf = upper", "7:5: mime: type Png has two media types, image/png and image/gif (at 6:5)"},
		{"malformed", "--' @mime png\ntype Png = Str\nf :: Str -> Png\nf = upper", "6:11: mime: 'png' is not a media type"},
		{"malformed subtype", "--' @mime image/p(n)g\ntype Png = Str\nf :: Str -> Png\nf = upper", "6:11: mime: 'image/p(n)g' is not a media type"},
		{"empty", "--' @mime\ntype Png = Str\nf :: Str -> Png\nf = upper", "6:10: mime: needs a media type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantError(t, mediaHeader+tc.text, tc.want) })
	}
}

func TestDefaultAction(t *testing.T) {
	p := compileOK(t, mediaHeader+"--' @render -s/--shout=upper @default\n--' with: --n=count . (\\s -> [1])\nf :: Str -> Str\nf = upper")
	acts := p.Manifest.Commands[0].Actions
	if len(acts) != 2 || !acts[0].Default || acts[1].Default {
		t.Fatalf("actions %+v, want the first the default", acts)
	}
	if d := p.Manifest.Commands[0].DefaultAction(); d == nil || d.Long != "shout" {
		t.Errorf("DefaultAction %+v", d)
	}
	p = compileOK(t, mediaHeader+"--' render: --shout=upper\nf :: Str -> Str\nf = upper")
	if d := p.Manifest.Commands[0].DefaultAction(); d != nil {
		t.Errorf("DefaultAction %+v without @default", d)
	}
}

// TestIntrinsicAction: an intrinsic is written with its '@', and is no
// "'@' before a target".
func TestIntrinsicAction(t *testing.T) {
	p := compileOK(t, mediaHeader+"--' @render -s/--show=@show @default\nf :: Str -> [Int]\nf s = [count [1]]")
	if acts := p.Manifest.Commands[0].Actions; len(acts) != 1 || !acts[0].Default {
		t.Errorf("actions %+v", acts)
	}
}

func TestActionErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"two defaults", "--' @render --a=upper @default\n--' @render --b=upper @default\nf :: Str -> Str\nf = upper", "7:5: render: only one output action may be @default; --a=upper (at 6:5) is already"},
		{"'@' before a target", "--' @render -s/--shout=@upper\nf :: Str -> Str\nf = upper", "6:24: render: '@' before a target is not allowed: the function after '=' is written bare, as in `-s/--shout=upper`"},
		{"'@' before a target in with", "--' with: --w=@upper\nf :: Str -> Str\nf = upper", "6:15: with: '@' before a target is not allowed"},
		{"unknown mark", "--' @render --shout=upper @defualt\nf :: Str -> Str\nf = upper", "6:13: render: unknown mark '@defualt'"},
		{"stream", "--' @render --shout=upper @stream\nf :: Str -> Str\nf = upper", "6:27: @stream in @render is Morloc's, and not supported yet"},
		{"action called only raw", "--' @render --raw=upper\nf :: Str -> Str\nf = upper", "6:13: @render: an output action called only raw has no name to be asked for by"},
		{"two actions of one name", "--' @render --s=upper\n--' @with -s=upper\nf :: Str -> Str\nf = upper", "7:11: @with: two output actions are both called s (the other at 6:13)"},
		{"action called json", "--' @render --json=upper\nf :: Str -> Str\nf = upper", "6:13: render: an output action cannot be called json"},
		{"option -f beside actions", "--' @render --shout=upper\nf ::\n  --' arg: -f/--fmt\n  --' default: \"x\"\n  Str ->\n  Str\nf = upper", "8:12: option -f is the output format of a command with output actions or a media result"},
		{"option --format on a media result", "--' @mime image/png\ntype Png = Str\nf ::\n  --' arg: --format\n  --' default: \"x\"\n  Str ->\n  Png\nf = upper", "9:12: option --format is the output format"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantError(t, mediaHeader+tc.text, tc.want) })
	}
}
