package merge

import (
	"fmt"
	"io"

	"github.com/gorocprof/gorocprof/internal/boundedread"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/output"
)

// traceArrays are the buffer_records arrays that hold trace records (output's trace groups), with
// the record line each array's records are.
var traceArrays = []struct {
	name string
	kind string // contract.RecAPI, RecMarker or RecCopy
}{
	{"hip_api", contract.RecAPI}, {"hsa_api", contract.RecAPI}, {"marker_api", contract.RecMarker},
	{"memory_copy", contract.RecCopy}, {"cuda_api", contract.RecAPI}, {"cuda_driver_api", contract.RecAPI},
}

// traceNames is what an element's strings say of its trace records: each kind's name and
// operations, by kind, and the marker messages by correlation id.
type traceNames struct {
	kinds    []kindNames
	messages map[uint64]string
}

type kindNames struct {
	Kind       string   `json:"kind"`
	Operations []string `json:"operations"`
}

type markerMessage struct {
	Key   uint64 `json:"key"`
	Value string `json:"value"`
}

func isTraceArray(name string) bool {
	for _, a := range traceArrays {
		if a.name == name {
			return true
		}
	}
	return false
}

// set takes the names of the element's strings object.
func (n *traceNames) set(strs stringsObject) error {
	n.kinds = strs.BufferRecords
	n.messages = make(map[uint64]string, len(strs.MarkerAPI))
	for _, m := range strs.MarkerAPI {
		if _, twice := n.messages[m.Key]; twice {
			return fmt.Errorf("strings.marker_api: correlation id %d given twice", m.Key)
		}
		n.messages[m.Key] = m.Value
	}
	return nil
}

// traceRecordJSON is a trace buffer record as output writes it: an API call's or marker's fields,
// and a copy's after them; seen has the bits (traceField's) of the keys the record had.
type traceRecordJSON struct {
	Kind        int             `json:"kind"`
	Operation   int             `json:"operation"`
	ThreadID    uint64          `json:"thread_id"`
	Correlation correlationJSON `json:"correlation_id"`
	Start       int64           `json:"start_timestamp"`
	End         int64           `json:"end_timestamp"`
	DstAgentID  handleJSON      `json:"dst_agent_id"`
	SrcAgentID  handleJSON      `json:"src_agent_id"`
	Bytes       uint64          `json:"bytes"`
	StreamID    handleJSON      `json:"stream_id"`
	QueueID     handleJSON      `json:"queue_id"`
	DstAddress  handleJSON      `json:"dst_address"`
	SrcAddress  handleJSON      `json:"src_address"`
	seen        uint32
}

// The bits of traceRecordJSON.seen of the keys a record must have.
const (
	seenKind = 1 << iota
	seenOperation
)

// traces reads the element's trace records back into trace lines, array by array (the records
// builder puts them in their order): each record's kind and operation named through
// strings.buffer_records, a marker's message found in strings.marker_api by its correlation id.
func (src *jsonSource) traces(h *head, fn func(t *contract.Trace) error) error {
	for _, a := range traceArrays {
		at, ok := src.tracesAt[a.name]
		if !ok {
			continue
		}
		if err := src.readTraces(h, a.name, a.kind, at, fn); err != nil {
			return fmt.Errorf("%s: buffer_records.%s: %w", h.input, a.name, err)
		}
	}
	return nil
}

// readTraces reads the array whose key ends at offset at.
func (src *jsonSource) readTraces(h *head, array, kind string, at int64, fn func(t *contract.Trace) error) error {
	f, err := boundedread.Open(h.input)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Seek(at, io.SeekStart); err != nil {
		return err
	}
	l := newLexer(f, at, nil)
	if err := l.expect(':'); err != nil {
		return err
	}
	var rec traceRecordJSON
	var t contract.Trace
	return l.array(func(i int) error {
		if err := l.traceRecord(&rec); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
		if err := src.names.line(&rec, array, kind, &t); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
		return fn(&t)
	})
}

// traceRecord reads one trace buffer record by hand, as record reads a dispatch's: the keys
// traceRecordJSON has, every other one skipped. A key given twice is refused, as encoding/json's
// readers of the head refuse it.
func (l *lexer) traceRecord(r *traceRecordJSON) error {
	*r = traceRecordJSON{}
	return l.object(func(key []byte) error {
		bit, err := l.traceField(key, r)
		if err != nil {
			return fmt.Errorf("%q: %w", key, err)
		}
		if r.seen&bit != 0 {
			return fmt.Errorf("key %q given twice", key)
		}
		r.seen |= bit
		return nil
	})
}

// traceField reads the value of one key of a trace record and returns the key's bit (0 for a
// key skipped).
func (l *lexer) traceField(key []byte, r *traceRecordJSON) (uint32, error) {
	var err error
	var v int64
	switch string(key) {
	case "kind":
		v, err = l.int()
		r.Kind = int(v)
		return seenKind, err
	case "operation":
		v, err = l.int()
		r.Operation = int(v)
		return seenOperation, err
	case "thread_id":
		r.ThreadID, err = l.uint()
		return 1 << 2, err
	case "correlation_id":
		return 1 << 3, l.dispatchField("correlation_id", &r.Correlation, nil, nil, nil) // its correlation only
	case "start_timestamp":
		r.Start, err = l.int()
		return 1 << 4, err
	case "end_timestamp":
		r.End, err = l.int()
		return 1 << 5, err
	case "bytes":
		r.Bytes, err = l.uint()
		return 1 << 6, err
	case "dst_agent_id":
		return 1 << 7, l.handle(&r.DstAgentID)
	case "src_agent_id":
		return 1 << 8, l.handle(&r.SrcAgentID)
	case "stream_id":
		return 1 << 9, l.handle(&r.StreamID)
	case "queue_id":
		return 1 << 10, l.handle(&r.QueueID)
	case "dst_address":
		return 1 << 11, l.handle(&r.DstAddress)
	case "src_address":
		return 1 << 12, l.handle(&r.SrcAddress)
	}
	return 0, l.skip()
}

// line fills t from the record of the array array, whose records are lines of type kind.
func (n *traceNames) line(r *traceRecordJSON, array, kind string, t *contract.Trace) error {
	if r.seen&(seenKind|seenOperation) != seenKind|seenOperation {
		return fmt.Errorf("a record without its kind or operation")
	}
	if r.Kind < 0 || r.Kind >= len(n.kinds) {
		return fmt.Errorf("kind %d is not in strings.buffer_records (%d kinds)", r.Kind, len(n.kinds))
	}
	k := n.kinds[r.Kind]
	if r.Operation < 0 || r.Operation >= len(k.Operations) {
		return fmt.Errorf("operation %d of kind %s is not in strings.buffer_records (%d operations)", r.Operation, k.Kind, len(k.Operations))
	}
	*t = contract.Trace{Kind: kind, Domain: k.Kind, Op: k.Operations[r.Operation], CorrelationID: r.Correlation.Internal,
		ThreadID: r.ThreadID, Start: r.Start, End: r.End}
	if kind == contract.RecCopy {
		if k.Kind != contract.DomainMemoryCopy {
			return fmt.Errorf("a record of kind %s among the copies", k.Kind)
		}
		t.Domain = "" // a copy line names no domain
		t.SrcAgentID, t.DstAgentID, t.StreamID, t.QueueID = r.SrcAgentID.Handle, r.DstAgentID.Handle, r.StreamID.Handle, r.QueueID.Handle
		t.Size, t.SrcAddress, t.DstAddress = r.Bytes, r.SrcAddress.Handle, r.DstAddress.Handle
		return nil
	}
	if output.TraceArray(k.Kind) != array {
		return fmt.Errorf("a record of kind %s in buffer_records.%s", k.Kind, array)
	}
	if kind == contract.RecMarker {
		msg, ok := n.messages[t.CorrelationID]
		if !ok {
			return fmt.Errorf("marker %d has no message in strings.marker_api", t.CorrelationID)
		}
		t.Message = msg
	}
	return nil
}
