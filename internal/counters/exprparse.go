package counters

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Kind is the kind of a node of a derived-counter expression.
type Kind int

// Node kinds.
const (
	KindNumber     Kind = iota // a decimal literal
	KindIdent                  // a counter of the catalog or an agent constant
	KindUnary                  // -X
	KindBinary                 // X op Y
	KindReduce                 // reduce(X, op [, [dims]])
	KindSelect                 // select(X, [DIM=i, ...])
	KindAccumulate             // accumulate(X, mode)
)

// Node is one node of a parsed expression. Pos is the 1-based byte position of the node in the
// expression text, so that errors can point at it.
type Node struct {
	Kind Kind
	Pos  int
	Num  float64 // KindNumber
	Name string  // KindIdent; reduce operator (sum|max|min|avg); accumulate mode
	Op   byte    // '+', '-', '*', '/' (KindBinary); '-' (KindUnary)
	X, Y *Node   // operands; X alone for unary and the functions
	Dims []string
	Sel  []DimIndex
}

// DimIndex is one `DIM=i` term of select().
type DimIndex struct {
	Dim   string
	Index int
}

// SyntaxError is an expression that does not parse; Pos is 1-based.
type SyntaxError struct {
	Expr string
	Pos  int
	Msg  string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("expression %q: at position %d: %s", e.Expr, e.Pos, e.Msg)
}

// Reduce operators; rocprofv3 spells the mean "avr", and we accept the usual "avg" too.
var reduceOps = map[string]string{"sum": "sum", "max": "max", "min": "min", "avr": "avg", "avg": "avg"}

// Accumulate modes. The mode changes how the hardware counts a level counter (every cycle, or at
// a lower resolution); the values the tool delivers are already accumulated, so evaluation treats
// accumulate() as the identity.
var accumulateModes = map[string]bool{"HIGH_RES": true, "LOW_RES": true, "NONE": true}

// Dimension names as rocprofv3 prints them; expressions may also leave out the DIMENSION_ prefix.
var dimensionNames = map[string]string{
	"XCC": DimXCC, "AID": "DIMENSION_AID", "SHADER_ENGINE": DimShaderEngine, "SE": DimShaderEngine,
	"AGENT": "DIMENSION_AGENT", "SHADER_ARRAY": "DIMENSION_SHADER_ARRAY", "WGP": "DIMENSION_WGP",
	"INSTANCE": DimInstance,
}

func canonicalDim(s string) (string, bool) {
	d, ok := dimensionNames[strings.TrimPrefix(strings.ToUpper(s), "DIMENSION_")]
	return d, ok
}

type tokKind int

const (
	tEOF tokKind = iota
	tNum
	tIdent
	tPunct
)

type token struct {
	kind tokKind
	text string
	pos  int // 1-based
}

// ParseExpression parses the text of a derived counter. Literals are decimals ("0.5" is one half,
// not zero as in rocprofv3).
func ParseExpression(src string) (*Node, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{src: src, toks: toks}
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.errAt(t, "unexpected %s after the end of the expression", describe(t))
	}
	return n, nil
}

func lex(src string) ([]token, error) {
	var toks []token
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1])):
			j := i
			for j < len(src) && isDigit(src[j]) {
				j++
			}
			if j < len(src) && src[j] == '.' {
				j++
				for j < len(src) && isDigit(src[j]) {
					j++
				}
			}
			if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
				k := j + 1
				if k < len(src) && (src[k] == '+' || src[k] == '-') {
					k++
				}
				if k < len(src) && isDigit(src[k]) {
					for k < len(src) && isDigit(src[k]) {
						k++
					}
					j = k
				}
			}
			toks = append(toks, token{tNum, src[i:j], i + 1})
			i = j
		case isIdentStart(c):
			// NVIDIA's metric names have dots (sm__inst_executed.sum); AMD's never do, and a
			// number cannot start a name, so a dot inside one is part of it.
			j := i + 1
			for j < len(src) && (isIdentStart(src[j]) || isDigit(src[j]) || src[j] == '.') {
				j++
			}
			toks = append(toks, token{tIdent, src[i:j], i + 1})
			i = j
		case strings.IndexByte("+-*/(),[]=", c) >= 0:
			toks = append(toks, token{tPunct, string(c), i + 1})
			i++
		default:
			return nil, &SyntaxError{Expr: src, Pos: i + 1, Msg: fmt.Sprintf("unexpected character %q", c)}
		}
	}
	return append(toks, token{tEOF, "", len(src) + 1}), nil
}

func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isIdentStart(c byte) bool { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

type parser struct {
	src  string
	toks []token
	i    int
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func describe(t token) string {
	if t.kind == tEOF {
		return "end of expression"
	}
	return strconv.Quote(t.text)
}

func (p *parser) errAt(t token, format string, args ...any) error {
	return &SyntaxError{Expr: p.src, Pos: t.pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) expect(punct string) (token, error) {
	t := p.next()
	if t.kind != tPunct || t.text != punct {
		return t, p.errAt(t, "expected %q, found %s", punct, describe(t))
	}
	return t, nil
}

func (p *parser) isPunct(s string) bool {
	t := p.peek()
	return t.kind == tPunct && t.text == s
}

func (p *parser) expr() (*Node, error) { return p.binary(p.term, "+", "-") }

func (p *parser) term() (*Node, error) { return p.binary(p.unary, "*", "/") }

// binary parses a left-associative chain of operand (op operand)* for one precedence level.
func (p *parser) binary(operand func() (*Node, error), ops ...string) (*Node, error) {
	left, err := operand()
	if err != nil {
		return nil, err
	}
	for slices.ContainsFunc(ops, p.isPunct) {
		op := p.next()
		right, err := operand()
		if err != nil {
			return nil, err
		}
		left = &Node{Kind: KindBinary, Pos: op.pos, Op: op.text[0], X: left, Y: right}
	}
	return left, nil
}

func (p *parser) unary() (*Node, error) {
	if p.isPunct("-") || p.isPunct("+") {
		op := p.next()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		if op.text == "+" {
			return x, nil
		}
		return &Node{Kind: KindUnary, Pos: op.pos, Op: '-', X: x}, nil
	}
	return p.primary()
}

func (p *parser) primary() (*Node, error) {
	t := p.next()
	switch {
	case t.kind == tNum:
		v, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return nil, p.errAt(t, "bad number %q", t.text)
		}
		return &Node{Kind: KindNumber, Pos: t.pos, Num: v}, nil
	case t.kind == tIdent && p.isPunct("("):
		return p.call(t)
	case t.kind == tIdent:
		return &Node{Kind: KindIdent, Pos: t.pos, Name: t.text}, nil
	case t.kind == tPunct && t.text == "(":
		n, err := p.expr()
		if err != nil {
			return nil, err
		}
		if _, err := p.expect(")"); err != nil {
			return nil, err
		}
		return n, nil
	}
	return nil, p.errAt(t, "expected a number, a name or \"(\", found %s", describe(t))
}

func (p *parser) call(fn token) (*Node, error) {
	p.next() // "("
	var n *Node
	switch fn.text {
	case "reduce", "select", "accumulate":
	default:
		return nil, p.errAt(fn, "unknown function %q (known: accumulate, reduce, select)", fn.text)
	}
	x, err := p.expr()
	if err != nil {
		return nil, err
	}
	if _, err := p.expect(","); err != nil {
		return nil, err
	}
	switch fn.text {
	case "reduce":
		n, err = p.reduceArgs(fn, x)
	case "select":
		n, err = p.selectArgs(fn, x)
	default:
		n, err = p.accumulateArgs(fn, x)
	}
	if err != nil {
		return nil, err
	}
	if _, err := p.expect(")"); err != nil {
		return nil, err
	}
	return n, nil
}

func (p *parser) ident(what string) (token, error) {
	t := p.next()
	if t.kind != tIdent {
		return t, p.errAt(t, "expected %s, found %s", what, describe(t))
	}
	return t, nil
}

func (p *parser) reduceArgs(fn token, x *Node) (*Node, error) {
	opTok, err := p.ident("a reduce operator (sum, max, min, avr)")
	if err != nil {
		return nil, err
	}
	op, ok := reduceOps[opTok.text]
	if !ok {
		return nil, p.errAt(opTok, "unknown reduce operator %q (known: sum, max, min, avr, avg)", opTok.text)
	}
	n := &Node{Kind: KindReduce, Pos: fn.pos, Name: op, X: x}
	if !p.isPunct(",") {
		return n, nil
	}
	p.next()
	bracketed := p.isPunct("[")
	if bracketed {
		p.next()
	}
	for {
		dim, err := p.dimension()
		if err != nil {
			return nil, err
		}
		n.Dims = append(n.Dims, dim)
		if !p.isPunct(",") {
			break
		}
		p.next()
	}
	if bracketed {
		if _, err := p.expect("]"); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// dimension reads a dimension name and returns its canonical spelling.
func (p *parser) dimension() (string, error) {
	d, err := p.ident("a dimension name")
	if err != nil {
		return "", err
	}
	dim, ok := canonicalDim(d.text)
	if !ok {
		return "", p.errAt(d, "unknown dimension %q", d.text)
	}
	return dim, nil
}

func (p *parser) selectArgs(fn token, x *Node) (*Node, error) {
	if _, err := p.expect("["); err != nil {
		return nil, err
	}
	n := &Node{Kind: KindSelect, Pos: fn.pos, X: x}
	for {
		dim, err := p.dimension()
		if err != nil {
			return nil, err
		}
		if _, err := p.expect("="); err != nil {
			return nil, err
		}
		inner := p.isPunct("[")
		if inner {
			p.next()
		}
		it := p.next()
		idx, err := strconv.Atoi(it.text)
		if it.kind != tNum || err != nil || idx < 0 {
			return nil, p.errAt(it, "expected a non-negative integer index, found %s", describe(it))
		}
		if inner {
			if _, err := p.expect("]"); err != nil {
				return nil, err
			}
		}
		n.Sel = append(n.Sel, DimIndex{Dim: dim, Index: idx})
		if !p.isPunct(",") {
			break
		}
		p.next()
	}
	if _, err := p.expect("]"); err != nil {
		return nil, err
	}
	return n, nil
}

func (p *parser) accumulateArgs(fn token, x *Node) (*Node, error) {
	m, err := p.ident("an accumulate mode (HIGH_RES, LOW_RES, NONE)")
	if err != nil {
		return nil, err
	}
	if !accumulateModes[m.text] {
		return nil, p.errAt(m, "unknown accumulate mode %q (known: HIGH_RES, LOW_RES, NONE)", m.text)
	}
	return &Node{Kind: KindAccumulate, Pos: fn.pos, Name: m.text, X: x}, nil
}

// Idents calls f for every identifier of the expression, in text order.
func (n *Node) Idents(f func(*Node)) {
	if n == nil {
		return
	}
	if n.Kind == KindIdent {
		f(n)
	}
	n.X.Idents(f)
	n.Y.Idents(f)
}

// String prints the expression fully parenthesised, numbers in shortest decimal form.
func (n *Node) String() string {
	switch n.Kind {
	case KindNumber:
		return strconv.FormatFloat(n.Num, 'g', -1, 64)
	case KindIdent:
		return n.Name
	case KindUnary:
		return "(-" + n.X.String() + ")"
	case KindBinary:
		return "(" + n.X.String() + " " + string(n.Op) + " " + n.Y.String() + ")"
	case KindReduce:
		s := "reduce(" + n.X.String() + ", " + n.Name
		if len(n.Dims) > 0 {
			s += ", [" + strings.Join(n.Dims, ", ") + "]"
		}
		return s + ")"
	case KindSelect:
		parts := make([]string, len(n.Sel))
		for i, s := range n.Sel {
			parts[i] = fmt.Sprintf("%s=%d", s.Dim, s.Index)
		}
		return "select(" + n.X.String() + ", [" + strings.Join(parts, ", ") + "])"
	case KindAccumulate:
		return "accumulate(" + n.X.String() + ", " + n.Name + ")"
	}
	return "?"
}
