package records

import (
	"bytes"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// traceScanner decodes trace lines (docs/tracing.md) of the shape the tool writes without
// reflection, as dispatchScanner does dispatch lines: a traced run has many more of them than
// dispatches. Only exact keys, each once, plain strings and integers in range take the fast path;
// any other line makes scan return false and is decoded by encoding/json, whose result and errors
// are then the line's.
type traceScanner struct {
	interned interner // domains and operations seen so far
}

var (
	apiPrefix    = []byte(`{"t":"api",`)
	markerPrefix = []byte(`{"t":"marker",`)
	copyPrefix   = []byte(`{"t":"copy",`)
)

// Fields of contract.Trace, as bit positions of the keys seen.
const (
	tUnknown = iota
	tDomain
	tOp
	tMessage
	tCorrelationID
	tThreadID
	tStart
	tEnd
	tSrcAgentID
	tDstAgentID
	tQueueID
	tStreamID
	tSize
	tSrcAddress
	tDstAddress
	// tOpID is an api line's optional op_id, which contract.Trace does not hold: read and dropped,
	// as encoding/json drops it.
	tOpID
)

// traceKeys are the keys in the order the tool writes them, tried first as literals.
var traceKeys = []struct {
	text  string
	field int
}{
	{`"domain":`, tDomain}, {`"op":`, tOp}, {`"op_id":`, tOpID}, {`"message":`, tMessage}, {`"correlation_id":`, tCorrelationID},
	{`"thread_id":`, tThreadID}, {`"src_agent_id":`, tSrcAgentID}, {`"dst_agent_id":`, tDstAgentID},
	{`"queue_id":`, tQueueID}, {`"stream_id":`, tStreamID}, {`"size":`, tSize}, {`"src_address":`, tSrcAddress},
	{`"dst_address":`, tDstAddress}, {`"start":`, tStart}, {`"end":`, tEnd},
}

// traceField maps a key to its field; encoding/json's case-insensitive matches take the slow path.
func traceField(key []byte) int {
	for _, k := range traceKeys {
		if len(k.text) == len(key)+3 && k.text[1:len(k.text)-2] == string(key) {
			return k.field
		}
	}
	return tUnknown
}

// scan decodes raw, a line of type kind whose prefix (up to the comma after the type) is prefix,
// into t. It returns false, leaving t unspecified, when the line does not have the fast shape.
func (s *traceScanner) scan(raw, prefix []byte, kind string, t *contract.Trace) bool {
	p := parser{b: raw, i: len(prefix)}
	*t = contract.Trace{Kind: kind}
	var seen uint32
	next := 0
	for {
		var f int
		// The writer leaves out the keys a kind does not have: skip to the next literal that matches.
		for next < len(traceKeys) && !p.lit(traceKeys[next].text) {
			next++
		}
		if next < len(traceKeys) {
			f = traceKeys[next].field
			next++
		} else {
			key, ok := p.key()
			if !ok {
				return false
			}
			f = traceField(key)
		}
		if f == tUnknown || seen&(1<<f) != 0 {
			return false
		}
		seen |= 1 << f
		if !s.value(&p, t, f) {
			return false
		}
		if p.eat('}') {
			break
		}
		if !p.eat(',') {
			return false
		}
	}
	return p.i == len(p.b)
}

// value reads field f's value.
func (s *traceScanner) value(p *parser, t *contract.Trace, f int) bool {
	var ok bool
	switch f {
	case tDomain, tOp, tMessage:
		var b []byte
		if !p.eat('"') {
			return false
		}
		if b, ok = p.plainString(); !ok {
			return false
		}
		switch f {
		case tDomain:
			t.Domain = s.interned.intern(b)
		case tOp:
			t.Op = s.interned.intern(b)
		default:
			t.Message = string(b)
		}
	case tStart:
		t.Start, ok = p.int()
	case tEnd:
		t.End, ok = p.int()
	case tOpID:
		_, ok = p.uint(64)
	default:
		var v uint64
		if v, ok = p.uint(64); ok {
			*s.target(t, f) = v
		}
	}
	return ok
}

func (s *traceScanner) target(t *contract.Trace, f int) *uint64 {
	switch f {
	case tCorrelationID:
		return &t.CorrelationID
	case tThreadID:
		return &t.ThreadID
	case tSrcAgentID:
		return &t.SrcAgentID
	case tDstAgentID:
		return &t.DstAgentID
	case tQueueID:
		return &t.QueueID
	case tStreamID:
		return &t.StreamID
	case tSize:
		return &t.Size
	case tSrcAddress:
		return &t.SrcAddress
	}
	return &t.DstAddress
}

// tracePrefix returns the prefix and kind of a trace line, nil for another line.
func tracePrefix(raw []byte) ([]byte, string) {
	switch {
	case bytes.HasPrefix(raw, apiPrefix):
		return apiPrefix, contract.RecAPI
	case bytes.HasPrefix(raw, markerPrefix):
		return markerPrefix, contract.RecMarker
	case bytes.HasPrefix(raw, copyPrefix):
		return copyPrefix, contract.RecCopy
	}
	return nil, ""
}
