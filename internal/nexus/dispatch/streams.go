package dispatch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/nexus-run/nexus/manifest"
	"github.com/nexus-run/nexus/manifest/types"
)

// Streams (digest 5.2). The handles a command opens live in a table of
// its evaluation (Run puts one in the context), and Run closes the ones
// still open when the body ends, flushing what was written.
//
// A stream file, as @write makes it, is JSON lines: a header line
// {"nexus-stream":1,"schema":"<element schema>"} and then one line per
// batch (@write's list), a JSON array of the elements. @next reads one
// such line at a time. A file without the header (any JSON-lines file),
// and standard input, is read one element a line, plainBatch lines a
// batch; for a stream of Str a line that is not a JSON string is its
// text, so plain text reads as its lines. Nothing is read before @next
// asks for it. @stdout and @stderr are written one element a line.

// plainBatch is how many lines of a plain JSON-lines input one @next
// returns: enough that a loop over batches costs little per line, few
// enough that a batch stays small in memory.
const plainBatch = 1024

// streamVersion is the version a stream file's header carries.
const streamVersion = 1

// streamHeader is a stream file's first line.
type streamHeader struct {
	Version int    `json:"nexus-stream"`
	Schema  string `json:"schema"`
}

var headerPrefix = []byte(`{"nexus-stream":`)

// Stdio is the standard streams of one call: @stdin reads In, @stdout
// writes Out, @stderr writes Err. A nil field is a stream the call does
// not have (the call came over MCP or HTTP); without an Err, @stderr
// writes the process's standard error.
type Stdio struct {
	In       io.Reader
	Out, Err io.Writer
}

type stdioKey struct{}
type handlesKey struct{}

// WithStdio returns ctx carrying s, the standard streams of the call Run
// evaluates with it.
func WithStdio(ctx context.Context, s Stdio) context.Context {
	return context.WithValue(ctx, stdioKey{}, s)
}

// handles is the handle table of one evaluation. Its methods are called
// with mu held: the calls of one body may run concurrently (evalAll).
type handles struct {
	mu         sync.Mutex
	all        []*handle // a handle's ID is its index plus one
	stdio      Stdio
	stdinTaken bool
	told       int64 // elements written to @stdout
}

// handle is one open file or stream.
type handle struct {
	kind   string // types.IFile, IStream or OStream
	path   string
	elem   *types.Type
	closed bool
	file   *os.File // nil for the standard streams
	// An IStream's reader.
	r       *bufio.Reader
	started bool
	batched bool   // a stream file: a batch a line
	pending []byte // a plain input's first line, read to look for a header
	line    int
	done    bool
	// An OStream's writer.
	w      *bufio.Writer
	plain  bool // one element a line (@stdout, @stderr)
	stdout bool
}

// withHandles returns ctx with a new handle table, and the table.
func withHandles(ctx context.Context) (context.Context, *handles) {
	hs := &handles{}
	hs.stdio, _ = ctx.Value(stdioKey{}).(Stdio)
	return context.WithValue(ctx, handlesKey{}, hs), hs
}

// closeAll closes every handle still open, returning the first failure
// (of a flush, typically).
func (hs *handles) closeAll() error {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	var first error
	for _, h := range hs.all {
		if err := h.close(); err != nil && first == nil {
			first = fmt.Errorf("close %s: %w", h.path, err)
		}
	}
	return first
}

func (hs *handles) add(h *handle) *types.HandleValue {
	hs.all = append(hs.all, h)
	return &types.HandleValue{ID: len(hs.all), Path: h.path}
}

// get is the open handle v of kind (any when "").
func (hs *handles) get(v any, kind string) (*handle, error) {
	hv, ok := v.(*types.HandleValue)
	if !ok || hv.ID < 1 || hv.ID > len(hs.all) {
		return nil, fmt.Errorf("%v is not a handle of this call", v)
	}
	h := hs.all[hv.ID-1]
	if kind != "" && h.kind != kind {
		return nil, fmt.Errorf("%s is an %s, not an %s", h.path, h.kind, kind)
	}
	if h.closed {
		return nil, fmt.Errorf("%s is closed", h.path)
	}
	return h, nil
}

// runStream applies stream intrinsic e to args.
func runStream(ctx context.Context, e *manifest.Expr, args []any) (any, error) {
	hs, _ := ctx.Value(handlesKey{}).(*handles)
	if hs == nil {
		return nil, errors.New("streams are open only while a command runs")
	}
	hs.mu.Lock()
	defer hs.mu.Unlock()
	switch e.Op {
	case "open":
		return hs.open(e.Type, args[0].(string))
	case "append":
		return hs.appendTo(e.Type.Elem, args[0].(string))
	case "close":
		h, err := hs.get(args[0], "")
		if err != nil {
			return nil, err
		}
		return nil, h.close()
	case "next":
		h, err := hs.get(args[0], types.IStream)
		if err != nil {
			return nil, err
		}
		return h.next()
	case "stream":
		f, err := hs.get(args[0], types.IFile)
		if err != nil {
			return nil, err
		}
		return hs.reader(f.path, f.elem)
	case "flush":
		h, err := hs.get(args[0], types.OStream)
		if err != nil {
			return nil, err
		}
		return nil, h.w.Flush()
	case "flen":
		f, err := hs.get(args[0], types.IFile)
		if err != nil {
			return nil, err
		}
		return count(f.path, f.elem)
	case "write":
		return nil, hs.write(args[0].(int64), args[1], args[2])
	case "concat":
		paths, _ := types.Items(args[0])
		return nil, concatStreams(paths, args[1].(string))
	case "fschema":
		return fileSchema(args[0].(string))
	case "stdin":
		return hs.stdin(e.Type.Elem)
	case "stdout", "stderr":
		return hs.output(e.Op, e.Type.Elem)
	case "tell":
		return hs.told, nil
	}
	return nil, fmt.Errorf("no such intrinsic")
}

// open opens path as a handle of type t.
func (hs *handles) open(t *types.Type, path string) (any, error) {
	switch t.Name {
	case types.IStream:
		return hs.reader(path, t.Elem)
	case types.IFile:
		// Opened once to say now, not at its first use, that it cannot be.
		h, err := openReader(path, t.Elem)
		if err != nil {
			return nil, err
		}
		if err := h.start(); err != nil {
			h.file.Close()
			return nil, err
		}
		h.file.Close()
		return hs.add(&handle{kind: types.IFile, path: path, elem: t.Elem}), nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	h := &handle{kind: types.OStream, path: path, elem: t.Elem, file: f, w: bufio.NewWriter(f)}
	if err := writeHeader(h.w, t.Elem); err != nil {
		f.Close()
		return nil, err
	}
	return hs.add(h), nil
}

func writeHeader(w io.Writer, elem *types.Type) error {
	data, err := json.Marshal(streamHeader{Version: streamVersion, Schema: types.Schema(elem)})
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// reader opens path as a new IStream.
func (hs *handles) reader(path string, elem *types.Type) (any, error) {
	h, err := openReader(path, elem)
	if err != nil {
		return nil, err
	}
	return hs.add(h), nil
}

func openReader(path string, elem *types.Type) (*handle, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &handle{kind: types.IStream, path: path, elem: elem, file: f, r: bufio.NewReader(f)}, nil
}

// appendTo opens the stream file path for appending, creating it when it
// is missing or empty.
func (hs *handles) appendTo(elem *types.Type, path string) (any, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	h := &handle{kind: types.OStream, path: path, elem: elem, file: f}
	st, err := f.Stat()
	if err == nil && st.Size() == 0 {
		h.w = bufio.NewWriter(f)
		err = writeHeader(h.w, elem)
	} else if err == nil {
		err = checkHeader(path, bufio.NewReader(f), elem)
		h.w = bufio.NewWriter(f)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return hs.add(h), nil
}

// checkHeader reads a stream file's header from r and checks that its
// elements are of type elem.
func checkHeader(path string, r *bufio.Reader, elem *types.Type) error {
	line, err := r.ReadBytes('\n')
	if err != nil && err != io.EOF {
		return err
	}
	hd, ok := parseHeader(line)
	if !ok {
		return fmt.Errorf("%s is not a stream file (its first line is no nexus-stream header)", path)
	}
	return hd.check(path, elem)
}

func parseHeader(line []byte) (streamHeader, bool) {
	var hd streamHeader
	if !bytes.HasPrefix(line, headerPrefix) || json.Unmarshal(line, &hd) != nil {
		return hd, false
	}
	return hd, true
}

func (hd streamHeader) check(path string, elem *types.Type) error {
	if hd.Version != streamVersion {
		return fmt.Errorf("%s is a stream file of version %d; this nexus reads version %d", path, hd.Version, streamVersion)
	}
	if want := types.Schema(elem); hd.Schema != want {
		return fmt.Errorf("%s holds elements of schema %q, not %s (%q)", path, hd.Schema, elem, want)
	}
	return nil
}

// start reads the first line, telling a stream file from a plain input.
func (h *handle) start() error {
	h.started = true
	line, err := h.readLine()
	if err != nil || line == nil {
		return err
	}
	if hd, ok := parseHeader(line); ok {
		h.batched = true
		return hd.check(h.path, h.elem)
	}
	h.pending = line
	return nil
}

// readLine is the next line without its line break, nil at the end.
func (h *handle) readLine() ([]byte, error) {
	if h.pending != nil {
		line := h.pending
		h.pending = nil
		return line, nil
	}
	line, err := h.r.ReadBytes('\n')
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("read %s: %w", h.path, err)
	}
	if len(line) == 0 && err == io.EOF {
		return nil, nil
	}
	h.line++
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r")), nil
}

// next is the next batch: [] at the end and on every later call.
func (h *handle) next() (any, error) {
	if !h.started {
		if err := h.start(); err != nil {
			return nil, err
		}
	}
	out := []any{}
	for !h.done && len(out) < plainBatch {
		line, err := h.readLine()
		if err != nil {
			return nil, err
		}
		if line == nil {
			h.done = true
			break
		}
		if h.batched {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			v, err := types.FromJSON(types.ListOf(h.elem), line)
			if err != nil {
				return nil, fmt.Errorf("%s line %d: %w", h.path, h.line, err)
			}
			return v, nil
		}
		v, skip, err := h.element(line)
		if err != nil {
			return nil, err
		}
		if !skip {
			out = append(out, v)
		}
	}
	return out, nil
}

// element reads one line of a plain input; skip is true for a blank line
// where no element is text.
func (h *handle) element(line []byte) (v any, skip bool, err error) {
	if h.elem.Kind == types.Str && h.elem.Name == "" && h.elem.Width == "" {
		var s string
		if json.Unmarshal(line, &s) == nil {
			return s, false, nil
		}
		return string(line), false, nil
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return nil, true, nil
	}
	v, err = types.FromJSON(h.elem, line)
	if err != nil {
		return nil, false, fmt.Errorf("%s line %d: %w", h.path, h.line, err)
	}
	return v, false, nil
}

// count is the number of elements of the file path.
func count(path string, elem *types.Type) (int64, error) {
	h, err := openReader(path, elem)
	if err != nil {
		return 0, err
	}
	defer h.file.Close()
	var n int64
	for {
		batch, err := h.next()
		if err != nil {
			return 0, err
		}
		k, _ := types.Len(batch)
		if k == 0 {
			return n, nil
		}
		n += int64(k)
	}
}

// write is @write level out xs. The level (Morloc's zstd level) is
// checked and otherwise unused: stream files are not compressed.
func (hs *handles) write(level int64, out, xs any) error {
	if level < 0 || level > 9 {
		return fmt.Errorf("compression level %d is not between 0 and 9", level)
	}
	h, err := hs.get(out, types.OStream)
	if err != nil {
		return err
	}
	n, _ := types.Len(xs)
	if n == 0 {
		// An empty batch would read back as the end of the stream.
		return nil
	}
	if !h.plain {
		data, err := types.ToJSON(types.ListOf(h.elem), xs)
		if err != nil {
			return err
		}
		_, err = h.w.Write(append(data, '\n'))
		return err
	}
	for i := range n {
		data, err := types.ToJSON(h.elem, types.Index(xs, i))
		if err != nil {
			return err
		}
		if _, err := h.w.Write(append(data, '\n')); err != nil {
			return err
		}
	}
	if h.stdout {
		hs.told += int64(n)
	}
	return nil
}

// stdin is the call's standard input as an IStream, at most once.
func (hs *handles) stdin(elem *types.Type) (any, error) {
	if hs.stdio.In == nil {
		return nil, errors.New("this call has no standard input (@stdin reads it on the command line)")
	}
	if hs.stdinTaken {
		return nil, errors.New("standard input is opened at most once in a call")
	}
	hs.stdinTaken = true
	return hs.add(&handle{kind: types.IStream, path: "<stdin>", elem: elem, r: bufio.NewReader(hs.stdio.In)}), nil
}

// output is @stdout or @stderr as an OStream.
func (hs *handles) output(name string, elem *types.Type) (any, error) {
	w := hs.stdio.Out
	if name == "stderr" {
		w = hs.stdio.Err
		if w == nil {
			w = os.Stderr
		}
	}
	if w == nil {
		return nil, errors.New("this call has no standard output (@stdout writes it on the command line)")
	}
	return hs.add(&handle{kind: types.OStream, path: "<" + name + ">", elem: elem, w: bufio.NewWriter(w), plain: true, stdout: name == "stdout"}), nil
}

// close flushes what h wrote and closes its file; a closed handle stays
// closed.
func (h *handle) close() error {
	if h.closed {
		return nil
	}
	h.closed = true
	var err error
	if h.w != nil {
		err = h.w.Flush()
	}
	if h.file != nil {
		if cerr := h.file.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// concatStreams writes to out the batches of the stream files paths, one
// after the other, all of one element schema.
func concatStreams(paths []any, out string) error {
	var hd *streamHeader
	var body bytes.Buffer
	for _, p := range paths {
		path := p.(string)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		first, rest, _ := bytes.Cut(data, []byte("\n"))
		h, ok := parseHeader(first)
		if !ok {
			return fmt.Errorf("%s is not a stream file (its first line is no nexus-stream header)", path)
		}
		if hd == nil {
			hd = &h
		} else if h.Schema != hd.Schema {
			return fmt.Errorf("%s holds elements of schema %q, %s of %q", path, h.Schema, paths[0], hd.Schema)
		}
		body.Write(rest)
		if len(rest) > 0 && rest[len(rest)-1] != '\n' {
			body.WriteByte('\n')
		}
	}
	if hd == nil {
		return errors.New("no stream files to concatenate")
	}
	head, err := json.Marshal(hd)
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(append(head, '\n'), body.Bytes()...), 0o644)
}

// fileSchema is the element schema in the header of the stream file path.
func fileSchema(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadBytes('\n')
	if err != nil && err != io.EOF {
		return "", err
	}
	hd, ok := parseHeader(line)
	if !ok {
		return "", fmt.Errorf("%s is not a stream file (its first line is no nexus-stream header)", path)
	}
	return hd.Schema, nil
}

// evalClosing evaluates e with a handle table of its own, closing the
// handles it leaves open: a failure to close (to flush a written file)
// is the evaluation's failure when it had none.
func (d *Dispatcher) evalClosing(ctx context.Context, e *manifest.Expr, vars []any) (any, error) {
	ctx, hs := withHandles(ctx)
	v, err := d.eval(ctx, e, vars)
	if cerr := hs.closeAll(); err == nil && cerr != nil {
		return nil, cerr
	}
	return v, err
}
