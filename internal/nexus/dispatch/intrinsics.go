package dispatch

import (
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/cespare/xxhash/v2"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Intrinsics run in the nexus: none needs a pool. A failure (a file that
// cannot be read, text that is not JSON of the type) is a ThrowError,
// which @catch catches and a command reports as it reports @throw.

// saveMagic opens a file written by @save: nexus's own binary form, a
// MessagePack value, deflated when the level is above 0. It is not
// Morloc's packet format; the bytes are chosen so that no JSON text and
// no MessagePack value of one byte starts with them (0x89 is not valid
// UTF-8 and is a MessagePack map header that the next bytes break).
var saveMagic = []byte("\x89NXSAVE\n")

// Byte after the magic: how the value that follows is stored.
const (
	savedPlain    byte = 0
	savedDeflated byte = 1
)

// evalIntrinsic computes the Intrinsic e.
func (d *Dispatcher) evalIntrinsic(ctx context.Context, e *manifest.Expr, vars []any) (any, error) {
	if n, ok := manifest.Intrinsics[e.Op]; !ok || len(e.Args) != n {
		return nil, fmt.Errorf("intrinsic @%s with %d arguments", e.Op, len(e.Args))
	}
	if e.Op == "catch" {
		return d.catch(ctx, e, vars)
	}
	args := make([]any, len(e.Args))
	for i, a := range e.Args {
		v, err := d.eval(ctx, a, vars)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	v, err := runIntrinsic(ctx, e, args)
	if err != nil {
		return nil, &ThrowError{Message: fmt.Sprintf("@%s: %v", e.Op, err)}
	}
	return v, nil
}

// catch is @catch a b: a's value, or b's when evaluating a fails, from
// an @throw, a failed pool call or a failed intrinsic. A cancelled or
// timed-out request is not caught: it ends the command.
func (d *Dispatcher) catch(ctx context.Context, e *manifest.Expr, vars []any) (any, error) {
	v, err := d.eval(ctx, e.Args[0], vars)
	if err == nil {
		return v, nil
	}
	if ctx.Err() != nil {
		return nil, err
	}
	return d.eval(ctx, e.Args[1], vars)
}

// runIntrinsic applies e's intrinsic to the values of its arguments.
func runIntrinsic(ctx context.Context, e *manifest.Expr, args []any) (any, error) {
	switch e.Op {
	case "show":
		out, err := types.ToJSON(e.Args[0].Type, args[0])
		return string(out), err
	case "hash":
		data, err := msgpackOf(e.Args[0].Type, args[0])
		if err != nil {
			return nil, err
		}
		return fmt.Sprintf("%016x", xxhash.Sum64(data)), nil
	case "read":
		v, err := types.FromJSON(e.Type, []byte(args[0].(string)))
		if err != nil {
			return nil, fmt.Errorf("cannot read %q as %s: %w", args[0], e.Type, err)
		}
		return v, nil
	case "load":
		return load(e.Type, args[0].(string))
	case "save":
		return nil, save(args[0].(int64), e.Args[1].Type, args[1], args[2].(string))
	case "savem":
		data, err := msgpackOf(e.Args[1].Type, args[1])
		if err != nil {
			return nil, err
		}
		return nil, os.WriteFile(args[0].(string), data, 0o644)
	case "savej":
		data, err := types.ToJSON(e.Args[1].Type, args[1])
		if err != nil {
			return nil, err
		}
		return nil, os.WriteFile(args[0].(string), append(data, '\n'), 0o644)
	}
	return runStream(ctx, e, args)
}

func msgpackOf(t *types.Type, v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := types.EncodeMsgpack(msgpack.NewEncoder(&buf), t, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// save writes v in the binary form of @save, deflated at level (1 to 9;
// 0 stores it as it is).
func save(level int64, t *types.Type, v any, path string) error {
	if level < 0 || level > 9 {
		return fmt.Errorf("compression level %d is not between 0 and 9", level)
	}
	data, err := msgpackOf(t, v)
	if err != nil {
		return err
	}
	out := bytes.NewBuffer(append([]byte(nil), saveMagic...))
	if level == 0 {
		out.WriteByte(savedPlain)
		out.Write(data)
		return os.WriteFile(path, out.Bytes(), 0o644)
	}
	out.WriteByte(savedDeflated)
	w, err := flate.NewWriter(out, int(level))
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, out.Bytes(), 0o644)
}

// load reads a value of type t from path, telling the form by what the
// file holds: @save's binary form by its magic bytes; else MessagePack
// when the whole file is one MessagePack value of t; else JSON. A JSON
// text of two bytes or more is never one MessagePack value (its first
// byte would be a one-byte MessagePack integer), so only a file of one
// digit and no newline is ambiguous: it is read as MessagePack, the
// integer 48 to 57, as @savem writes it.
func load(t *types.Type, path string) (any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if rest, ok := bytes.CutPrefix(data, saveMagic); ok {
		v, err := loadSaved(t, rest)
		if err != nil {
			return nil, fmt.Errorf("%s: a file of @save that does not hold a %s: %w", path, t, err)
		}
		return v, nil
	}
	if v, ok := wholeMsgpack(t, data); ok {
		return v, nil
	}
	v, err := types.FromJSON(t, data)
	if err != nil {
		return nil, fmt.Errorf("%s is neither @save's form, MessagePack nor JSON of type %s: %w", path, t, err)
	}
	return v, nil
}

func loadSaved(t *types.Type, data []byte) (any, error) {
	if len(data) == 0 {
		return nil, errors.New("the file ends after its header")
	}
	body := data[1:]
	switch data[0] {
	case savedPlain:
	case savedDeflated:
		r := flate.NewReader(bytes.NewReader(body))
		defer r.Close()
		var err error
		if body, err = io.ReadAll(r); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown storage %d", data[0])
	}
	if v, ok := wholeMsgpack(t, body); ok {
		return v, nil
	}
	return nil, errors.New("its value is of another type")
}

// wholeMsgpack decodes data as exactly one MessagePack value of t.
func wholeMsgpack(t *types.Type, data []byte) (any, bool) {
	r := bytes.NewReader(data)
	v, err := types.DecodeMsgpack(msgpack.NewDecoder(r), t)
	if err != nil || r.Len() != 0 {
		return nil, false
	}
	return v, true
}
