package output

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// appendTraceRecord appends one trace line as results.json's buffer record of its kind, in the
// SDK's field order (rocprofiler-sdk's serialization of its buffer tracing records): an API call or
// a marker as rocprofiler_buffer_tracing_{hip,hsa,marker}_api_record_t, a copy as
// rocprofiler_buffer_tracing_memory_copy_record_t with rocprofv3's stream_id. HIP calls are written
// as the HIP_RUNTIME_API/HIP_COMPILER_API kinds, not rocprofv3's _EXT kinds: the records carry no
// arguments or return values. What the SDK's copy record has and rocprofv3 leaves out of the file,
// its addresses, and the queue, which the rocpd database keeps, follow, so that a merge of the file
// gives every output again. kind and op are the record's numbers in strings.buffer_records.
func appendTraceRecord(b []byte, t *contract.Trace, kind, op int) []byte {
	b = append(b, `{"size":0,"kind":`...)
	b = strconv.AppendInt(b, int64(kind), 10)
	b = append(b, `,"operation":`...)
	b = strconv.AppendInt(b, int64(op), 10)
	if t.Kind == contract.RecCopy {
		b = append(b, `,"thread_id":`...)
		b = strconv.AppendUint(b, t.ThreadID, 10)
		b = appendTraceTimes(b, t)
		b = appendHandle(b, "dst_agent_id", t.DstAgentID)
		b = appendHandle(b, "src_agent_id", t.SrcAgentID)
		b = append(b, `,"bytes":`...)
		b = strconv.AppendUint(b, t.Size, 10)
		b = appendHandle(b, "stream_id", t.StreamID)
		b = appendHandle(b, "queue_id", t.QueueID)
		b = appendHandle(b, "dst_address", t.DstAddress)
		b = appendHandle(b, "src_address", t.SrcAddress)
		return append(b, '}')
	}
	b = appendTraceTimes(b, t)
	b = append(b, `,"thread_id":`...)
	b = strconv.AppendUint(b, t.ThreadID, 10)
	return append(b, '}')
}

// appendTraceTimes appends the correlation (no external one: the records carry none) and the
// timestamps.
func appendTraceTimes(b []byte, t *contract.Trace) []byte {
	b = append(b, `,"correlation_id":{"internal":`...)
	b = strconv.AppendUint(b, t.CorrelationID, 10)
	b = append(b, `,"external":0},"start_timestamp":`...)
	b = strconv.AppendInt(b, t.Start, 10)
	b = append(b, `,"end_timestamp":`...)
	return strconv.AppendInt(b, t.End, 10)
}

func appendHandle(b []byte, key string, v uint64) []byte {
	b = append(b, `,"`...)
	b = append(b, key...)
	b = append(b, `":{"handle":`...)
	b = strconv.AppendUint(b, v, 10)
	return append(b, '}')
}

// recordSpool keeps one buffer_records array of a process's trace records while the arrays before
// it are written: results.json holds each kind's records together, the trace lines come in time
// order, all kinds mixed. It is a temporary file whose name is removed at once, so that memory
// does not grow with the trace and nothing of it stays behind.
type recordSpool struct {
	f *os.File
	w *bufio.Writer
	n int // records added
}

func newRecordSpool(loc *location, base string) (*recordSpool, error) {
	f, name, err := loc.createTemp(base + "_trace.spool")
	if err != nil {
		return nil, fmt.Errorf("trace record spool: %w", err)
	}
	loc.remove(name)
	return &recordSpool{f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

// add appends one array element, without the comma before it.
func (s *recordSpool) add(rec []byte) error {
	if s.n > 0 {
		if err := s.w.WriteByte(','); err != nil {
			return err
		}
	}
	s.n++
	if err := s.w.WriteByte('\n'); err != nil {
		return err
	}
	_, err := s.w.Write(rec)
	return err
}

// copyTo writes the elements to w.
func (s *recordSpool) copyTo(w io.Writer) error {
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("trace record spool: %w", err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("trace record spool: %w", err)
	}
	if _, err := io.Copy(w, bufio.NewReaderSize(s.f, 1<<20)); err != nil {
		return fmt.Errorf("trace record spool: %w", err)
	}
	return nil
}

func (s *recordSpool) close() { _ = s.f.Close() }
