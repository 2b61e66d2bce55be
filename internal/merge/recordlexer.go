package merge

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/gorocprof/gorocprof/internal/output"
)

// record reads one counter record or kernel dispatch record (recordJSON) by hand: the keys of
// results.json's records that the merge reads, every other one skipped. A key added to recordJSON
// is a case here.
func (l *lexer) record(r *recordJSON) error {
	*r = recordJSON{Records: r.Records[:0]}
	return l.object(func(key []byte) error {
		if err := l.recordField(key, r); err != nil {
			return fmt.Errorf("%q: %w", key, err)
		}
		return nil
	})
}

// recordField reads the value of one key of a record.
func (l *lexer) recordField(key []byte, r *recordJSON) error {
	switch string(key) {
	case "dispatch_data":
		r.DispatchData, r.HasDispatchData = dispatchDataJSON{}, true
		return l.object(func(k []byte) error {
			return l.dispatchField(string(k), &r.DispatchData.Correlation, &r.DispatchData.Start, &r.DispatchData.End, &r.DispatchData.Info)
		})
	case "correlation_id", "start_timestamp", "end_timestamp", "dispatch_info":
		return l.dispatchField(string(key), &r.Correlation, &r.Start, &r.End, &r.Info)
	case "records":
		return l.array(func(int) error {
			var rec counterRecordJSON
			if l.counterRecord(&rec) {
				r.Records = append(r.Records, rec)
				return nil
			}
			err := l.object(func(k []byte) error {
				var err error
				switch string(k) {
				case "counter_id":
					err = l.handle(&rec.CounterID)
				case "value":
					var v *float64
					v, err = l.float()
					rec.Value = output.CounterValue(v)
				default:
					err = l.skip()
				}
				return err
			})
			r.Records = append(r.Records, rec)
			return err
		})
	case "thread_id":
		v, err := l.uint()
		r.ThreadID = v
		return err
	case "replay_pass":
		v, err := l.int()
		r.ReplayPass = int(v)
		return err
	case "stream_id":
		return l.handle(&r.StreamID)
	case "pmc_group":
		if c, err := l.peek(); err == nil && c == 'n' {
			return l.skip() // null
		}
		v, err := l.int()
		g := int(v)
		r.PMCGroup = &g
		return err
	}
	return l.skip()
}

// dispatchField reads one of the fields a counter record's dispatch_data and a kernel dispatch
// record share.
func (l *lexer) dispatchField(key string, corr *correlationJSON, start, end *int64, info *dispatchInfoJSON) error {
	var err error
	switch key {
	case "correlation_id":
		return l.object(func(k []byte) error {
			switch string(k) {
			case "internal":
				corr.Internal, err = l.uint()
			case "external":
				corr.External, err = l.uint()
			default:
				err = l.skip()
			}
			return err
		})
	case "start_timestamp":
		*start, err = l.int()
	case "end_timestamp":
		*end, err = l.int()
	case "dispatch_info":
		return l.object(func(k []byte) error { return l.infoField(string(k), info) })
	default:
		err = l.skip()
	}
	return err
}

func (l *lexer) infoField(k string, info *dispatchInfoJSON) error {
	var err error
	switch k {
	case "agent_id":
		err = l.handle(&info.AgentID)
	case "queue_id":
		err = l.handle(&info.QueueID)
	case "kernel_id":
		info.KernelID, err = l.uint()
	case "dispatch_id":
		info.DispatchID, err = l.uint()
	case "private_segment_size":
		info.Private, err = l.int()
	case "group_segment_size":
		info.Group, err = l.int()
	case "workgroup_size":
		err = l.dim3(&info.Workgroup)
	case "grid_size":
		err = l.dim3(&info.Grid)
	default:
		err = l.skip()
	}
	return err
}

func (l *lexer) handle(h *handleJSON) error {
	return l.object(func(k []byte) error {
		if string(k) != "handle" {
			return l.skip()
		}
		var err error
		h.Handle, err = l.uint()
		return err
	})
}

func (l *lexer) dim3(d *dim3JSON) error {
	return l.object(func(k []byte) error {
		var p *uint32
		switch string(k) {
		case "x":
			p = &d.X
		case "y":
			p = &d.Y
		case "z":
			p = &d.Z
		default:
			return l.skip()
		}
		v, err := l.uint()
		if err == nil && v > 1<<32-1 {
			return fmt.Errorf("%d does not fit 32 bits", v)
		}
		*p = uint32(v)
		return err
	})
}

var (
	counterRecordHead = []byte(`{"counter_id":{"handle":`)
	counterRecordMid  = []byte(`},"value":`)
)

// counterRecord reads a counter value record written as gorocprof and rocprofv3 write them,
// {"counter_id":{"handle":N},"value":V}, without the general path's key by key reading: most of a
// results.json is these. false, having read nothing, when the next record is written otherwise.
func (l *lexer) counterRecord(rec *counterRecordJSON) bool {
	if _, err := l.peek(); err != nil {
		return false
	}
	const most = 96 // the longest such record: a 20-digit handle and a 24-character number
	if l.end-l.pos < most {
		l.fill(l.pos)
	}
	b := l.buf[l.pos:l.end]
	if !bytes.HasPrefix(b, counterRecordHead) {
		return false
	}
	i := len(counterRecordHead)
	id, n := leadingUint(b[i:])
	if n == 0 || !bytes.HasPrefix(b[i+n:], counterRecordMid) {
		return false
	}
	i += n + len(counterRecordMid)
	j := bytes.IndexByte(b[i:], '}')
	if j <= 0 {
		return false
	}
	num := b[i : i+j]
	var v float64
	if whole, k := leadingUint(num); k == len(num) && k < 16 {
		v = float64(whole)
	} else {
		f, err := strconv.ParseFloat(string(num), 64)
		if err != nil {
			return false // null, or not a number: the general path says so
		}
		v = f
	}
	rec.CounterID.Handle, rec.Value = id, v
	l.pos += i + j + 1
	return true
}

// leadingUint parses the decimal digits b begins with (at most 19 of them) and says how many.
func leadingUint(b []byte) (uint64, int) {
	var v uint64
	n := 0
	for n < len(b) && n < 19 && b[n] >= '0' && b[n] <= '9' {
		v = v*10 + uint64(b[n]-'0')
		n++
	}
	return v, n
}
