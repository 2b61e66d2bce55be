package merge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync/atomic"
)

// lexer reads a JSON document a token at a time from a stream, knowing the offset of every byte it
// reads. It is what the merge's passes over a results.json (the heads, the check where the heads
// pass did not do it, the build) read with: encoding/json's Decoder decodes by reflection and skips
// a value by scanning it into a buffer, which held the merge to a few MB/s; this one works in place
// in its own buffer, skips a record array by its brackets, decodes records by hand
// (recordlexer.go), and hands encoding/json only the small parts of a head. Numbers are returned as
// their text.
type lexer struct {
	r    io.Reader
	buf  []byte
	pos  int   // next byte to read, in buf
	end  int   // bytes of buf filled
	base int64 // offset of buf[0] in the file
	eof  bool
	err  error  // a read error other than io.EOF
	tmp  []byte // a decoded string
	keys []byte // the keys of the objects being read, outermost first
	// keyEnd is the offset just after the key object last read, before its colon: where a
	// cursor opened on its value starts.
	keyEnd int64
	read   *atomic.Int64
}

// lexerBuffer is the buffer's size; a single string or number longer than it grows it. A
// variable, so that the tests can make every token cross a refill.
var lexerBuffer = 1 << 18

// newLexer reads r from offset off on; read (nil for none) counts the bytes it reads.
func newLexer(r io.Reader, off int64, read *atomic.Int64) *lexer {
	return &lexer{r: r, buf: make([]byte, lexerBuffer), base: off, read: read}
}

// off is the offset of the next byte to read.
func (l *lexer) off() int64 { return l.base + int64(l.pos) }

func (l *lexer) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", l.off(), fmt.Sprintf(format, args...))
}

// fill reads more of the stream, keeping buf[keep:] (keep <= pos), which is buf[0:] after it
// whatever it returns: false when nothing more came. What is before keep is dropped.
func (l *lexer) fill(keep int) bool {
	if keep > 0 {
		n := copy(l.buf, l.buf[keep:l.end])
		l.base += int64(keep)
		l.pos -= keep
		l.end = n
	}
	if l.eof {
		return false
	}
	if l.end == len(l.buf) {
		l.buf = append(l.buf, make([]byte, len(l.buf))...)
	}
	for {
		n, err := l.r.Read(l.buf[l.end:])
		l.end += n
		if l.read != nil {
			l.read.Add(int64(n))
		}
		if err != nil {
			l.eof = true
			if !errors.Is(err, io.EOF) {
				l.err = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// rewind goes back (or on) to offset off of the stream, which must be a file.
func (l *lexer) rewind(off int64) error {
	if off >= l.base && off <= l.base+int64(l.end) {
		l.pos = int(off - l.base)
		return nil
	}
	s, ok := l.r.(io.Seeker)
	if !ok {
		return errors.New("the input cannot be read again")
	}
	if _, err := s.Seek(off, io.SeekStart); err != nil {
		return err
	}
	l.base, l.pos, l.end, l.eof, l.err = off, 0, 0, false, nil
	return nil
}

func (l *lexer) endError() error {
	if l.err != nil {
		return l.err
	}
	return l.errorf("unexpected end of the file")
}

// peek returns the next byte that is not white space, without reading it.
func (l *lexer) peek() (byte, error) {
	for {
		for l.pos < l.end {
			switch c := l.buf[l.pos]; c {
			case ' ', '\t', '\n', '\r':
				l.pos++
			default:
				return c, nil
			}
		}
		if !l.fill(l.pos) {
			return 0, l.endError()
		}
	}
}

// atEOF says whether only white space is left.
func (l *lexer) atEOF() bool {
	_, err := l.peek()
	return err != nil
}

func (l *lexer) expect(want byte) error {
	c, err := l.peek()
	if err != nil {
		return fmt.Errorf("expected %q: %w", want, err)
	}
	if c != want {
		return l.errorf("expected %q, found %q", want, c)
	}
	l.pos++
	return nil
}

// more reads the separator after an element of an array or object: true when another element
// follows (first: none has been read yet), false at the closing delimiter end, which it reads.
func (l *lexer) more(first bool, end byte) (bool, error) {
	c, err := l.peek()
	if err != nil {
		return false, err
	}
	switch {
	case c == end:
		l.pos++
		return false, nil
	case first:
		return true, nil
	case c == ',':
		l.pos++
		return true, nil
	}
	return false, l.errorf("expected ',' or %q, found %q", end, c)
}

// object calls fn for each key of an object, fn reading its value; fn's error is returned as it
// is. The key is valid only during the call (switch on string(key) costs no allocation).
func (l *lexer) object(fn func(key []byte) error) error {
	if err := l.expect('{'); err != nil {
		return err
	}
	for first := true; ; first = false {
		ok, err := l.more(first, '}')
		if err != nil || !ok {
			return err
		}
		at := len(l.keys)
		if err := l.key(); err != nil {
			return err
		}
		err = fn(l.keys[at:])
		l.keys = l.keys[:at]
		if err != nil {
			return err
		}
	}
}

// key reads an object's key and its colon, setting keyEnd, and pushes the key on keys: the buffer
// moves when it is refilled, so the key is kept apart, on a stack of the keys of the objects being
// read, until its value is read. A short key without escapes, its colon right after it, as the
// records' keys are, is read in one loop.
func (l *lexer) key() error {
	if l.pos < l.end && l.buf[l.pos] == '"' {
	scan:
		for i := l.pos + 1; i+1 < l.end && i-l.pos <= 32; i++ {
			switch l.buf[i] {
			case '"':
				if l.buf[i+1] != ':' {
					break scan
				}
				l.keys = append(l.keys, l.buf[l.pos+1:i]...)
				l.keyEnd = l.base + int64(i+1)
				l.pos = i + 2
				return nil
			case '\\':
				break scan
			}
		}
	}
	k, err := l.strBytes()
	if err != nil {
		return err
	}
	l.keyEnd = l.off()
	l.keys = append(l.keys, k...)
	return l.expect(':')
}

// array calls fn for each element of an array, fn reading it.
func (l *lexer) array(fn func(i int) error) error {
	if err := l.expect('['); err != nil {
		return err
	}
	for i := 0; ; i++ {
		ok, err := l.more(i == 0, ']')
		if err != nil || !ok {
			return err
		}
		if err := fn(i); err != nil {
			return err
		}
	}
}

// str reads a string.
func (l *lexer) str() (string, error) {
	b, err := l.strBytes()
	return string(b), err
}

// strBytes reads a string, decoding its escapes; the bytes are valid until the next read.
func (l *lexer) strBytes() ([]byte, error) {
	start, stop, escaped, err := l.scanString()
	if err != nil {
		return nil, err
	}
	if !escaped {
		return l.buf[start+1 : stop-1], nil
	}
	var s string
	if err := json.Unmarshal(l.buf[start:stop], &s); err != nil {
		return nil, l.errorf("%v", err)
	}
	l.tmp = append(l.tmp[:0], s...)
	return l.tmp, nil
}

// scanString reads a string, which is left in buf[start:stop], quotes included.
func (l *lexer) scanString() (start, stop int, escaped bool, err error) {
	if err := l.expect('"'); err != nil {
		return 0, 0, false, err
	}
	start = l.pos - 1
	// Most strings are short keys without escapes, which a byte loop finds the end of sooner
	// than IndexByte's call.
	for i := l.pos; i < l.end && i-start <= 32; i++ {
		switch l.buf[i] {
		case '"':
			l.pos = i + 1
			return start, i + 1, false, nil
		case '\\':
			i = l.end
		}
	}
	from := l.pos
	for {
		i := bytes.IndexByte(l.buf[from:l.end], '"')
		if i < 0 {
			from = l.end - start
			more := l.fill(start)
			start = 0
			if !more {
				return 0, 0, false, l.errorf("unterminated string")
			}
			continue
		}
		q := from + i
		n := 0
		for j := q - 1; j > start && l.buf[j] == '\\'; j-- {
			n++
		}
		if n%2 == 1 { // an escaped quote
			from = q + 1
			continue
		}
		l.pos = q + 1
		escaped = bytes.IndexByte(l.buf[start:q], '\\') >= 0
		return start, q + 1, escaped, nil
	}
}

// literal reads a number, true, false or null as written; valid until the next read.
func (l *lexer) literal() ([]byte, error) {
	if _, err := l.peek(); err != nil {
		return nil, err
	}
	start := l.pos
	for {
		for l.pos < l.end {
			switch l.buf[l.pos] {
			case ',', '}', ']', ' ', '\n', '\t', '\r', ':':
				if l.pos == start {
					return nil, l.errorf("expected a value, found %q", l.buf[l.pos])
				}
				return l.buf[start:l.pos], nil
			}
			l.pos++
		}
		more := l.fill(start)
		start = 0
		if !more {
			if l.pos == start {
				return nil, l.endError()
			}
			return l.buf[start:l.pos], nil
		}
	}
}

func (l *lexer) uint() (uint64, error) {
	b, err := l.literal()
	if err != nil {
		return 0, err
	}
	if v, n := leadingUint(b); n == len(b) && n < 20 {
		return v, nil
	}
	if v, err := strconv.ParseUint(string(b), 10, 64); err == nil {
		return v, nil
	}
	// A whole number written as a float (1e3) is still one.
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || f < 0 || f != float64(uint64(f)) {
		return 0, l.errorf("expected an unsigned integer, found %s", b)
	}
	return uint64(f), nil
}

func (l *lexer) int() (int64, error) {
	b, err := l.literal()
	if err != nil {
		return 0, err
	}
	if v, n := leadingUint(b); n == len(b) && v <= math.MaxInt64 {
		return int64(v), nil
	}
	if v, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		return v, nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || f != float64(int64(f)) {
		return 0, l.errorf("expected an integer, found %s", b)
	}
	return int64(f), nil
}

// float reads a number, or null (nil).
func (l *lexer) float() (*float64, error) {
	b, err := l.literal()
	if err != nil {
		return nil, err
	}
	if string(b) == "null" {
		return nil, nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return nil, l.errorf("expected a number, found %s", b)
	}
	return &v, nil
}

// skip reads one value of any kind and discards it, a container without decoding what it holds.
func (l *lexer) skip() error {
	_, err := l.value(false)
	return err
}

// raw reads one value as written, for encoding/json to decode: the small parts of a head.
func (l *lexer) raw() (json.RawMessage, error) {
	return l.value(true)
}

// value reads one value; keep returns its text. A container is read by its brackets, minding
// strings, a byte at a time: the quick path for the record arrays, which the head pass only needs
// the end of.
func (l *lexer) value(keep bool) ([]byte, error) {
	c, err := l.peek()
	if err != nil {
		return nil, err
	}
	switch c {
	case '"':
		start, stop, _, err := l.scanString()
		if err != nil || !keep {
			return nil, err
		}
		return bytes.Clone(l.buf[start:stop]), nil
	case '{', '[':
	default:
		b, err := l.literal()
		if err != nil || !keep {
			return nil, err
		}
		return bytes.Clone(b), nil
	}
	var out []byte
	begin := l.off()
	start, depth, inString := l.pos, 0, false
	for {
		for l.pos < l.end {
			c := l.buf[l.pos]
			l.pos++
			if inString {
				switch c {
				case '\\':
					if l.pos == l.end && !l.more2(&out, &start, keep) {
						return nil, fmt.Errorf("offset %d: unexpected end of the file in the value that begins here", begin)
					}
					l.pos++ // the escaped byte
				case '"':
					inString = false
				}
				continue
			}
			switch c {
			case '"':
				inString = true
			case '[', '{':
				depth++
			case ']', '}':
				depth--
				if depth == 0 {
					if keep {
						out = append(out, l.buf[start:l.pos]...)
					}
					return out, nil
				}
			}
		}
		if !l.more2(&out, &start, keep) {
			return nil, fmt.Errorf("offset %d: unexpected end of the file in the value that begins here", begin)
		}
	}
}

// more2 refills the buffer in the middle of a value, first keeping what of it the buffer holds
// when keep.
func (l *lexer) more2(out *[]byte, start *int, keep bool) bool {
	if keep {
		*out = append(*out, l.buf[*start:l.pos]...)
	}
	ok := l.fill(l.pos)
	*start = l.pos
	return ok
}
