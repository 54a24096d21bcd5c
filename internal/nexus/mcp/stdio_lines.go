package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"github.com/nexus-run/nexus/internal/nexus/jsonrpc"
)

// headSize is how much of a line over the bound is kept, to find the
// request's id in it: the members JSON-RPC clients write before params
// ("jsonrpc", "id", "method") fit many times over.
const headSize = 4 << 10

// line is one line of stdin: its bytes, or, when it was over the bound,
// what is known of it.
type line struct {
	data    []byte
	tooLong *longLine
}

// longLine is a line over the bound, read to its end and dropped.
type longLine struct {
	size, max int64 // its length without the newline, and the bound
	// id is the request's id when the line's head shows it, else null.
	id json.RawMessage
}

func (l *longLine) rpcError() *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeInvalidRequest,
		"the message is %d bytes, over the limit of %d bytes a line (--max-line); it was not read", l.size, l.max)
}

// lineReader reads lines of at most max bytes (without the newline). It
// never holds more than max bytes of a line: a longer one is read to its
// end and dropped, but for its head.
type lineReader struct {
	r   *bufio.Reader
	max int64
}

func newLineReader(in io.Reader, max int64) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(in, 64<<10), max: max}
}

// next reads the next line, its newline included when there is one. err
// is the error that ended the reading after it (io.EOF at the end of in).
// Every line is a new slice: the caller may keep it.
//
// A line longer than the reader's buffer is kept as the buffer's pieces
// until it ends, and joined only then, so a line that turns out over the
// bound has cost its bound once, not the twice that a slice grown by
// doubling would (the slices it outgrew stay as garbage until the next
// collection, a server's being at three times its live heap).
func (lr *lineReader) next() (line, error) {
	var pieces [][]byte
	var size int64 // of pieces
	for {
		frag, err := lr.r.ReadSlice('\n')
		n := size + int64(len(frag))
		if err == nil {
			n-- // the newline
		}
		if n > lr.max {
			return lr.skip(pieces, size, frag, err)
		}
		if err == bufio.ErrBufferFull {
			pieces = append(pieces, bytes.Clone(frag))
			size += int64(len(frag))
			continue
		}
		if pieces == nil {
			return line{data: append([]byte(nil), frag...)}, err
		}
		data := make([]byte, 0, size+int64(len(frag)))
		for _, p := range pieces {
			data = append(data, p...)
		}
		return line{data: append(data, frag...)}, err
	}
}

// skip reads the rest of a line over the bound, of which pieces (size
// bytes) and frag were read, and describes it.
func (lr *lineReader) skip(pieces [][]byte, size int64, frag []byte, err error) (line, error) {
	head := make([]byte, 0, headSize)
	for _, p := range append(pieces, frag) {
		head = append(head, p[:min(len(p), headSize-len(head))]...)
	}
	size += int64(len(frag))
	for err == bufio.ErrBufferFull {
		frag, err = lr.r.ReadSlice('\n')
		size += int64(len(frag))
	}
	if err == nil {
		size-- // the newline
	}
	return line{tooLong: &longLine{size: size, max: lr.max, id: headID(head)}}, err
}

// headID finds the id of the request whose first bytes are head: the
// value of a top-level "id" member that comes whole before the head ends.
// It is null when there is none, which JSON-RPC says to answer when the
// id could not be read.
func headID(head []byte) json.RawMessage {
	null := json.RawMessage("null")
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return null
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return null
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return null // cut off by the end of the head
		}
		if key == "id" {
			if c := value[0]; c == '"' || c == '-' || (c >= '0' && c <= '9') {
				return value
			}
			return null
		}
	}
	return null
}
