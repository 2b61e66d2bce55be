package cli

import (
	"fmt"
	"math"
	"sort"
	"strconv"
)

// maxRangeNesting bounds bracket depth so that a hostile argument cannot recurse without limit.
const maxRangeNesting = 16

// ParseIterationRange parses rocprofv3's --kernel-iteration-range syntax into inclusive, 1-based
// iteration ranges, sorted and with overlapping or adjacent ranges merged so that the plan is the
// same however the user spelled it.
//
// Accepted: a number ("4"), a range ("5-8"), and comma-separated lists of those, optionally in
// brackets and nested one level or more ("[1, 3, [5-8]]", "[1,2]", "1,3,5-8"). An empty or blank
// string means every iteration and yields nil. Errors name the offending token and its 1-based
// character position.
func ParseIterationRange(s string) ([][2]int64, error) {
	p := rangeParser{src: s}
	p.next()
	if p.tok.kind == tokEOF {
		return nil, nil
	}
	var out [][2]int64
	if err := p.items(&out, 0); err != nil {
		return nil, err
	}
	if p.tok.kind != tokEOF {
		return nil, p.unexpected("end of the range")
	}
	return mergeRanges(out), nil
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokNum
	tokOpen
	tokClose
	tokComma
	tokDash
	tokBad
)

type token struct {
	kind tokKind
	text string
	pos  int // 1-based character position of the token's first byte
}

type rangeParser struct {
	src string
	off int
	tok token
}

func (p *rangeParser) next() {
	for p.off < len(p.src) && isRangeSpace(p.src[p.off]) {
		p.off++
	}
	start := p.off
	if p.off >= len(p.src) {
		p.tok = token{kind: tokEOF, pos: start + 1}
		return
	}
	c := p.src[p.off]
	if k := punctuation(c); k != tokBad {
		p.off++
		p.tok = token{kind: k, text: string(c), pos: start + 1}
		return
	}
	if isDigit(c) {
		for p.off < len(p.src) && isDigit(p.src[p.off]) {
			p.off++
		}
		p.tok = token{kind: tokNum, text: p.src[start:p.off], pos: start + 1}
		return
	}
	// A bad token runs to the next delimiter so that the message shows the whole word the user typed.
	for p.off < len(p.src) {
		b := p.src[p.off]
		if isRangeSpace(b) || b == '[' || b == ']' || b == ',' {
			break
		}
		p.off++
	}
	p.tok = token{kind: tokBad, text: p.src[start:p.off], pos: start + 1}
}

// items parses `item (',' item)*`; at the top level the brackets are optional.
func (p *rangeParser) items(out *[][2]int64, depth int) error {
	for {
		if err := p.item(out, depth); err != nil {
			return err
		}
		if p.tok.kind != tokComma {
			return nil
		}
		p.next()
		if p.tok.kind == tokEOF || p.tok.kind == tokClose {
			return p.unexpected("a number or '[' after ','")
		}
	}
}

func (p *rangeParser) item(out *[][2]int64, depth int) error {
	switch p.tok.kind {
	case tokOpen:
		if depth >= maxRangeNesting {
			return fmt.Errorf("%q at position %d: brackets nested deeper than %d", p.tok.text, p.tok.pos, maxRangeNesting)
		}
		p.next()
		if p.tok.kind == tokClose {
			return fmt.Errorf("%q at position %d: empty list, expected a number or a range such as 5-8", p.tok.text, p.tok.pos)
		}
		if err := p.items(out, depth+1); err != nil {
			return err
		}
		if p.tok.kind != tokClose {
			return p.unexpected("',' or ']'")
		}
		p.next()
		return nil
	case tokNum:
		return p.span(out)
	default:
		return p.unexpected("a number or '['")
	}
}

// span parses `NUM ('-' NUM)?`.
func (p *rangeParser) span(out *[][2]int64) error {
	first := p.tok
	lo, err := iteration(first)
	if err != nil {
		return err
	}
	p.next()
	hi := lo
	if p.tok.kind == tokDash {
		p.next()
		if p.tok.kind != tokNum {
			return p.unexpected("a number after '-'")
		}
		last := p.tok
		if hi, err = iteration(last); err != nil {
			return err
		}
		if hi < lo {
			return fmt.Errorf("%q at position %d: range %d-%d ends before it starts", first.text+"-"+last.text, first.pos, lo, hi)
		}
		p.next()
	}
	*out = append(*out, [2]int64{lo, hi})
	return nil
}

func iteration(t token) (int64, error) {
	n, err := strconv.ParseInt(t.text, 10, 64)
	if err != nil || n == math.MaxInt64 {
		return 0, fmt.Errorf("%q at position %d: iteration number too large", t.text, t.pos)
	}
	if n == 0 {
		return 0, fmt.Errorf("%q at position %d: iterations are counted from 1", t.text, t.pos)
	}
	return n, nil
}

func (p *rangeParser) unexpected(want string) error {
	if p.tok.kind == tokEOF {
		return fmt.Errorf("unexpected end at position %d: expected %s", p.tok.pos, want)
	}
	return fmt.Errorf("unexpected %q at position %d: expected %s", p.tok.text, p.tok.pos, want)
}

func mergeRanges(rs [][2]int64) [][2]int64 {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i][0] != rs[j][0] {
			return rs[i][0] < rs[j][0]
		}
		return rs[i][1] < rs[j][1]
	})
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && r[0] <= out[n-1][1]+1 {
			out[n-1][1] = max(out[n-1][1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out
}

func punctuation(c byte) tokKind {
	switch c {
	case '[':
		return tokOpen
	case ']':
		return tokClose
	case ',':
		return tokComma
	case '-':
		return tokDash
	}
	return tokBad
}

func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isRangeSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
