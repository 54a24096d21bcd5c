package cli

import (
	"strings"

	"github.com/nexus-run/nexus/manifest"
)

// Output formats. A command with output actions or a media result takes
// -f/--format: `json` prints the result itself as JSON (the way to get it
// past a @default action, or a media result as a JSON string), an
// action's long name applies that action (the same as its own flag), and
// `raw`, Morloc's name for a renderer's output, is the command's default
// output (its @default action, its media bytes, else its JSON).
const (
	formatShort = "-f"
	formatLong  = "--format"
	formatJSON  = manifest.FormatJSON
	formatRaw   = manifest.FormatRaw
)

// hasFormat reports whether command c takes -f/--format.
func hasFormat(c *manifest.Command) bool {
	return len(c.Actions) > 0 || c.Mime != ""
}

// formatValues are the values -f takes for command c.
func formatValues(c *manifest.Command) []string {
	vals := []string{formatJSON}
	for i := range c.Actions {
		// An action called raw is listed as raw, below.
		if n := c.Actions[i].Name(); n != "" && c.Actions[i].Long != formatRaw {
			vals = append(vals, n)
		}
	}
	return append(vals, formatRaw)
}

// output settles what the command line asks to print: inv.action, the
// action to apply (an action's flag, -f NAME, else the command's
// @default), or inv.asJSON, the result itself as JSON.
func (p *commandParser) output(inv *invocation) error {
	c := p.c
	switch f := inv.format; {
	case f == "":
		if inv.action == nil {
			inv.action = c.DefaultAction()
		}
	case f == formatJSON:
		if inv.action != nil {
			return p.usage("'%s %s' and '%s' ask for two outputs; give one", inv.formatName, f, actionName(inv.action))
		}
		inv.asJSON = true
	default:
		var a *manifest.Action
		for i := range c.Actions {
			// An action called raw (`-r/--raw`) is what -f raw
			// asks for, as Morloc's renderer output.
			if c.Actions[i].Name() == f || c.Actions[i].Long == f {
				a = &c.Actions[i]
			}
		}
		switch {
		case a == nil && f == formatRaw:
			a = inv.action
			if a == nil {
				a = c.DefaultAction()
			}
		case a == nil:
			return p.usage("invalid value for %s: '%s' (expected %s)", inv.formatName, f, strings.Join(formatValues(c), ", "))
		case inv.action != nil && inv.action != a:
			return p.usage("'%s %s' and '%s' ask for two outputs; give one", inv.formatName, f, actionName(inv.action))
		}
		inv.action = a
	}
	return nil
}

// formatRow is the help row of -f/--format.
func formatRow(c *manifest.Command) row {
	text := "print the result as " + strings.Join(formatValues(c), ", ") + " (json: the result itself as JSON"
	if a := c.DefaultAction(); a != nil {
		text += "; default: " + a.Name()
	} else if c.Mime != "" {
		text += "; default: the " + c.Mime + " content as it is"
	}
	return row{formatShort + ", " + formatLong + " <FORMAT>", text + ")"}
}

// media is what the command line prints of a media result s of type
// mimeType: its bytes as they are (an image piped into a file must be the
// image), text with a final line break added when it has none, as a
// render action's text is printed.
func media(mimeType, s string) string {
	if strings.HasPrefix(strings.ToLower(mimeType), "text/") && s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}
