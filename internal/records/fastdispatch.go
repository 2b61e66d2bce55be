package records

import (
	"bytes"
	"math"
	"strconv"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// dispatchScanner decodes dispatch lines of the exact shape the tool and the merge write (no
// whitespace, no escapes, each known key once) without reflection: encoding/json took ~55
// allocations and most of the read time per line. Anything else (unknown keys, escapes, null
// where a number is expected, numbers out of range, floats in integer fields) makes scan return
// false and the caller decodes the line with encoding/json. So the fast path only accepts lines
// for which encoding/json yields the same Dispatch, and every error still comes from encoding/json.
type dispatchScanner struct {
	interned interner // counter names seen so far

	// The line being scanned.
	names  []string
	counts []int // values per counter
	vals   []float64
	nulls  []bool

	// Storage a reusing caller's results live in until the next scan.
	cvs  []contract.CounterValue
	ptrs []*float64
	fval []float64
}

// maxInterned bounds the counter-name table: a plan names a few hundred counters at most, and a
// corrupt file must not grow it without limit.
const maxInterned = 4096

var dispatchPrefix = []byte(`{"t":"dispatch",`)

// scan decodes raw into d. With reuse, d.Counters and the values live in the scanner's storage
// and are valid until the next scan; otherwise they are freshly allocated (four allocations per
// line whatever the number of counters). It returns false, leaving d unspecified, when the line
// does not have the fast shape.
func (s *dispatchScanner) scan(raw []byte, d *contract.Dispatch, reuse bool) bool {
	if !bytes.HasPrefix(raw, dispatchPrefix) {
		return false
	}
	p := parser{b: raw, i: len(dispatchPrefix)}
	*d = contract.Dispatch{}
	s.names, s.counts, s.vals, s.nulls = s.names[:0], s.counts[:0], s.vals[:0], s.nulls[:0]
	counters := false
	var seen uint32
	next := 0 // index in dispatchKeys of the key the writers put next
	for {
		var f int
		if next < len(dispatchKeys) && p.lit(dispatchKeys[next].text) {
			f = dispatchKeys[next].field
			next++
		} else {
			key, ok := p.key()
			if !ok {
				return false
			}
			f = dispatchField(key)
			next = len(dispatchKeys)
		}
		if f == fUnknown || seen&(1<<f) != 0 {
			return false
		}
		seen |= 1 << f
		var ok bool
		switch f {
		case fCounters:
			ok = s.scanCounters(&p)
			counters = true
		case fGrid:
			ok = p.dim3(&d.Grid)
		case fWorkgroup:
			ok = p.dim3(&d.Workgroup)
		default:
			ok = setNumber(&p, d, f)
		}
		if !ok {
			return false
		}
		if p.eat('}') {
			break
		}
		if !p.eat(',') {
			return false
		}
	}
	if p.i != len(p.b) {
		return false
	}
	if counters {
		s.fill(d, reuse)
	}
	return true
}

// fill builds d.Counters from the line's scratch. encoding/json gives an empty, non-nil slice for
// "[]", so the slices here are never nil either.
func (s *dispatchScanner) fill(d *contract.Dispatch, reuse bool) {
	n, nv := len(s.counts), len(s.vals)
	var cvs []contract.CounterValue
	var ptrs []*float64
	var vals []float64
	if reuse {
		s.cvs = grow(s.cvs, n)
		s.ptrs = grow(s.ptrs, nv)
		s.fval = grow(s.fval, nv)
		cvs, ptrs, vals = s.cvs[:n], s.ptrs[:nv], s.fval[:nv]
	} else {
		cvs, ptrs, vals = make([]contract.CounterValue, n), make([]*float64, nv), make([]float64, nv)
	}
	copy(vals, s.vals)
	for i := range vals {
		if s.nulls[i] {
			ptrs[i] = nil
		} else {
			ptrs[i] = &vals[i]
		}
	}
	at := 0
	for i, c := range s.counts {
		cvs[i] = contract.CounterValue{Name: s.names[i], Values: ptrs[at : at+c : at+c]}
		at += c
	}
	d.Counters = cvs
}

// grow returns s with room for n elements (and never nil).
func grow[T any](s []T, n int) []T {
	if cap(s) < n || s == nil {
		return make([]T, n, max(n, 2*cap(s), 1))
	}
	return s
}

func (s *dispatchScanner) scanCounters(p *parser) bool {
	if !p.eat('[') {
		return false
	}
	if p.eat(']') {
		return true
	}
	for {
		if !p.lit(`{"name":"`) {
			return false
		}
		name, ok := p.plainString()
		if !ok || !p.lit(`,"values":[`) {
			return false
		}
		s.names = append(s.names, s.intern(name))
		n := 0
		if !p.eat(']') {
			for {
				if p.lit("null") {
					s.vals = append(s.vals, 0)
					s.nulls = append(s.nulls, true)
				} else {
					v, ok := p.float()
					if !ok {
						return false
					}
					s.vals = append(s.vals, v)
					s.nulls = append(s.nulls, false)
				}
				n++
				if p.eat(']') {
					break
				}
				if !p.eat(',') {
					return false
				}
			}
		}
		s.counts = append(s.counts, n)
		if !p.eat('}') {
			return false
		}
		if p.eat(']') {
			return true
		}
		if !p.eat(',') {
			return false
		}
	}
}

func (s *dispatchScanner) intern(b []byte) string { return s.interned.intern(b) }

// interner hands out one string per distinct name, so that a name repeated on every line is
// allocated once; at most maxInterned names are kept.
type interner map[string]string

func (in *interner) intern(b []byte) string {
	if str, ok := (*in)[string(b)]; ok {
		return str
	}
	str := string(b)
	if *in == nil {
		*in = interner{}
	}
	if len(*in) < maxInterned {
		(*in)[str] = str
	}
	return str
}

// Fields of contract.Dispatch, as bit positions of the keys seen.
const (
	fUnknown = iota
	fDispatchID
	fPass
	fPasses
	fCorrelationID
	fExternalID
	fAgentID
	fQueueID
	fStreamID
	fThreadID
	fKernelID
	fGrid
	fWorkgroup
	fLDS
	fScratch
	fStart
	fEnd
	fCounters
)

// dispatchKeys are the keys in the order the tool and the merge write them, tried first as
// literals.
var dispatchKeys = []struct {
	text  string
	field int
}{
	{`"dispatch_id":`, fDispatchID}, {`"pass":`, fPass}, {`"passes":`, fPasses},
	{`"correlation_id":`, fCorrelationID}, {`"external_id":`, fExternalID}, {`"agent_id":`, fAgentID},
	{`"queue_id":`, fQueueID}, {`"stream_id":`, fStreamID}, {`"thread_id":`, fThreadID},
	{`"kernel_id":`, fKernelID}, {`"grid":`, fGrid}, {`"workgroup":`, fWorkgroup}, {`"lds":`, fLDS},
	{`"scratch":`, fScratch}, {`"start":`, fStart}, {`"end":`, fEnd}, {`"counters":`, fCounters},
}

// dispatchField maps a key to its field. Only exact keys: encoding/json also matches keys that
// differ in case, which the slow path handles.
func dispatchField(key []byte) int {
	switch string(key) {
	case "dispatch_id":
		return fDispatchID
	case "pass":
		return fPass
	case "passes":
		return fPasses
	case "correlation_id":
		return fCorrelationID
	case "external_id":
		return fExternalID
	case "agent_id":
		return fAgentID
	case "queue_id":
		return fQueueID
	case "stream_id":
		return fStreamID
	case "thread_id":
		return fThreadID
	case "kernel_id":
		return fKernelID
	case "grid":
		return fGrid
	case "workgroup":
		return fWorkgroup
	case "lds":
		return fLDS
	case "scratch":
		return fScratch
	case "start":
		return fStart
	case "end":
		return fEnd
	case "counters":
		return fCounters
	}
	return fUnknown
}

func setNumber(p *parser, d *contract.Dispatch, f int) bool {
	var ok bool
	switch f {
	case fDispatchID:
		d.DispatchID, ok = p.uint(64)
	case fCorrelationID:
		d.CorrelationID, ok = p.uint(64)
	case fExternalID:
		d.ExternalID, ok = p.uint(64)
	case fAgentID:
		d.AgentID, ok = p.uint(64)
	case fQueueID:
		d.QueueID, ok = p.uint(64)
	case fStreamID:
		d.StreamID, ok = p.uint(64)
	case fThreadID:
		d.ThreadID, ok = p.uint(64)
	case fKernelID:
		d.KernelID, ok = p.uint(64)
	case fPass, fPasses:
		var v int64
		if v, ok = p.int(); ok && v >= math.MinInt && v <= math.MaxInt {
			if f == fPass {
				d.Pass = int(v)
			} else {
				d.Passes = int(v)
			}
		}
	case fLDS:
		d.LDS, ok = p.int()
	case fScratch:
		d.Scratch, ok = p.int()
	case fStart:
		d.Start, ok = p.int()
	case fEnd:
		d.End, ok = p.int()
	}
	return ok
}

// parser walks one line; every method returns false at the first byte it does not expect.
type parser struct {
	b []byte
	i int
}

func (p *parser) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *parser) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

// key reads `"name":`.
func (p *parser) key() ([]byte, bool) {
	if !p.eat('"') {
		return nil, false
	}
	k, ok := p.plainString()
	return k, ok && p.eat(':')
}

// plainString reads the rest of a string whose opening quote was read, accepting only printable
// ASCII without escapes: what the string means is then its bytes, as encoding/json would agree.
func (p *parser) plainString() ([]byte, bool) {
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '"' {
			p.i++
			return p.b[start : p.i-1], true
		}
		if c < 0x20 || c > 0x7e || c == '\\' {
			return nil, false
		}
		p.i++
	}
	return nil, false
}

// digits reads a JSON integer's digits: "0" or a non-zero digit followed by digits.
func (p *parser) digits() ([]byte, bool) {
	start := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	d := p.b[start:p.i]
	if len(d) == 0 || (len(d) > 1 && d[0] == '0') {
		return nil, false
	}
	return d, p.intEnd()
}

// intEnd says whether the integer just read is complete: a fraction or exponent would make it a
// number encoding/json refuses for an integer field.
func (p *parser) intEnd() bool {
	return p.i < len(p.b) && (p.b[p.i] == ',' || p.b[p.i] == '}' || p.b[p.i] == ']')
}

func (p *parser) uint(bits int) (uint64, bool) {
	d, ok := p.digits()
	if !ok {
		return 0, false
	}
	if len(d) < 10 || bits == 64 && len(d) < 20 {
		// Fewer digits than the type's largest value has: no overflow possible.
		return atou(d), true
	}
	v, err := strconv.ParseUint(string(d), 10, bits)
	return v, err == nil
}

func (p *parser) int() (int64, bool) {
	start := p.i
	neg := p.eat('-')
	d, ok := p.digits()
	if !ok {
		return 0, false
	}
	if len(d) < 19 {
		if neg {
			return -int64(atou(d)), true
		}
		return int64(atou(d)), true
	}
	if len(d) == 19 {
		// Nineteen digits fit a uint64: what overflows an int64 shows after the conversion. Times
		// in nanoseconds since the epoch have nineteen digits, so this is every start and end.
		u := atou(d)
		switch {
		case !neg && u <= math.MaxInt64:
			return int64(u), true
		case neg && u <= 1<<63:
			return int64(-u), true // -(1<<63) wraps to itself, MinInt64
		}
		return 0, false
	}
	v, err := strconv.ParseInt(string(p.b[start:p.i]), 10, 64)
	return v, err == nil
}

// atou converts digits known to fit.
func atou(d []byte) uint64 {
	var u uint64
	for _, c := range d {
		u = u*10 + uint64(c-'0')
	}
	return u
}

func (p *parser) dim3(out *[3]uint32) bool {
	if !p.eat('[') {
		return false
	}
	for k := range out {
		if k > 0 && !p.eat(',') {
			return false
		}
		v, ok := p.uint(32)
		if !ok {
			return false
		}
		out[k] = uint32(v)
	}
	return p.eat(']')
}

// float reads a number with JSON's grammar (strconv also takes "inf", hex and underscores, which
// JSON does not) and converts it as encoding/json does; a value out of range falls back.
func (p *parser) float() (float64, bool) {
	start := p.i
	neg := p.eat('-')
	m, ok := p.mantissa()
	if !ok {
		return 0, false
	}
	if len(m) <= 15 && p.intEnd() {
		// A whole number below 2^53 converts exactly, which is what ParseFloat would return.
		u := atou(m)
		if neg {
			return -float64(u), true
		}
		return float64(u), true
	}
	if p.eat('.') && !p.someDigits() {
		return 0, false
	}
	if p.eat('e') || p.eat('E') {
		if !p.eat('+') {
			p.eat('-')
		}
		if !p.someDigits() {
			return 0, false
		}
	}
	if !p.intEnd() {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(p.b[start:p.i]), 64)
	return v, err == nil
}

func (p *parser) mantissa() ([]byte, bool) {
	start := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	d := p.b[start:p.i]
	return d, len(d) > 0 && !(len(d) > 1 && d[0] == '0')
}

func (p *parser) someDigits() bool {
	start := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}
