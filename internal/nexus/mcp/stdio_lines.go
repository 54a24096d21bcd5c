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
func (lr *lineReader) next() (line, error) {
	var data []byte
	for {
		frag, err := lr.r.ReadSlice('\n')
		n := int64(len(data) + len(frag))
		if err == nil {
			n-- // the newline
		}
		if n > lr.max {
			return lr.skip(data, frag, err)
		}
		data = appendCapped(data, frag, lr.max+1)
		if err != bufio.ErrBufferFull {
			return line{data: data}, err
		}
	}
}

// skip reads the rest of a line over the bound, of which data and frag
// were read, and describes it.
func (lr *lineReader) skip(data, frag []byte, err error) (line, error) {
	head := make([]byte, 0, headSize)
	head = append(head, data[:min(len(data), headSize)]...)
	head = append(head, frag[:min(len(frag), headSize-len(head))]...)
	size := int64(len(data) + len(frag))
	for err == bufio.ErrBufferFull {
		frag, err = lr.r.ReadSlice('\n')
		size += int64(len(frag))
	}
	if err == nil {
		size-- // the newline
	}
	return line{tooLong: &longLine{size: size, max: lr.max, id: headID(head)}}, err
}

// appendCapped appends frag to data, growing data's capacity no further
// than limit (which the caller has checked len(data)+len(frag) fits), so
// that a line near the bound does not hold twice the bound.
func appendCapped(data, frag []byte, limit int64) []byte {
	need := len(data) + len(frag)
	if need > cap(data) {
		c := int64(2*cap(data) + len(frag))
		c = min(c, limit)
		grown := make([]byte, len(data), max(int(c), need))
		copy(grown, data)
		data = grown
	}
	return append(data, frag...)
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
