package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/output/bgwrite"
)

// lineWriter writes record lines in the contract's form, as the tool does: "t" first, one object per
// line. The tests' fixture runs and the merge benchmark's 1M-record runs are written with it, so
// dispatch lines are appended by hand.
type lineWriter struct {
	w     *bgwrite.Writer
	buf   bytes.Buffer
	enc   *json.Encoder
	line  []byte
	names map[string][]byte // counter name -> its JSON string
}

func newLineWriter(w io.Writer) *lineWriter {
	lw := &lineWriter{w: bgwrite.New(w), names: map[string][]byte{}}
	lw.enc = json.NewEncoder(&lw.buf)
	lw.enc.SetEscapeHTML(false)
	return lw
}

func (lw *lineWriter) write(t string, v any) error {
	if lw == nil {
		return nil
	}
	if d, ok := v.(*contract.Dispatch); ok && t == contract.RecDispatch {
		line, err := lw.appendDispatch(lw.line[:0], d)
		if err != nil {
			return err
		}
		lw.line = line
		_, err = lw.w.Write(line)
		return err
	}
	lw.buf.Reset()
	if err := lw.enc.Encode(v); err != nil {
		return fmt.Errorf("encoding a merged %s record: %w", t, err)
	}
	body := lw.buf.Bytes() // "{...}\n"
	lw.w.WriteString(`{"t":"`)
	lw.w.WriteString(t)
	if len(body) > 3 {
		lw.w.WriteString(`",`)
		_, err := lw.w.Write(body[1:])
		return err
	}
	_, err := lw.w.WriteString("\"}\n")
	return err
}

// appendDispatch appends d as one dispatch line, with the fields of contract.Dispatch's JSON tags.
func (lw *lineWriter) appendDispatch(b []byte, d *contract.Dispatch) ([]byte, error) {
	u := func(key string, v uint64) {
		b = append(b, `,"`...)
		b = append(b, key...)
		b = append(b, `":`...)
		b = strconv.AppendUint(b, v, 10)
	}
	i := func(key string, v int64) {
		b = append(b, `,"`...)
		b = append(b, key...)
		b = append(b, `":`...)
		b = strconv.AppendInt(b, v, 10)
	}
	dim := func(key string, v [3]uint32) {
		b = append(b, `,"`...)
		b = append(b, key...)
		b = append(b, `":[`...)
		for k, x := range v {
			if k > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendUint(b, uint64(x), 10)
		}
		b = append(b, ']')
	}
	b = append(b, `{"t":"dispatch","dispatch_id":`...)
	b = strconv.AppendUint(b, d.DispatchID, 10)
	i("pass", int64(d.Pass))
	i("passes", int64(d.Passes))
	u("correlation_id", d.CorrelationID)
	u("external_id", d.ExternalID)
	u("agent_id", d.AgentID)
	u("queue_id", d.QueueID)
	u("stream_id", d.StreamID)
	u("thread_id", d.ThreadID)
	u("kernel_id", d.KernelID)
	dim("grid", d.Grid)
	dim("workgroup", d.Workgroup)
	i("lds", d.LDS)
	i("scratch", d.Scratch)
	i("start", d.Start)
	i("end", d.End)
	b = append(b, `,"counters":[`...)
	for k, c := range d.Counters {
		if k > 0 {
			b = append(b, ',')
		}
		name, ok := lw.names[c.Name]
		if !ok {
			var err error
			if name, err = json.Marshal(c.Name); err != nil {
				return b, fmt.Errorf("encoding counter name %q: %w", c.Name, err)
			}
			lw.names[c.Name] = name
		}
		b = append(b, `{"name":`...)
		b = append(b, name...)
		b = append(b, `,"values":[`...)
		for n, v := range c.Values {
			if n > 0 {
				b = append(b, ',')
			}
			switch {
			case v == nil:
				b = append(b, "null"...)
			case math.IsNaN(*v) || math.IsInf(*v, 0):
				return b, fmt.Errorf("dispatch %d: counter %s holds %v, which JSON cannot carry", d.DispatchID, c.Name, *v)
			case *v == math.Trunc(*v) && math.Abs(*v) < 1e6 && (*v != 0 || !math.Signbit(*v)):
				// What 'g' prints for these (it switches to an exponent from 1e6 on, and keeps
				// the sign of -0), without its general conversion.
				b = strconv.AppendInt(b, int64(*v), 10)
			default:
				// 'g' with the shortest representation round-trips and is a valid JSON number.
				b = strconv.AppendFloat(b, *v, 'g', -1, 64)
			}
		}
		b = append(b, "]}"...)
	}
	b = append(b, "]}\n"...)
	return b, nil
}

// flush writes everything and ends the background writer: nothing can be written after it.
func (lw *lineWriter) flush() error { return lw.w.Close() }
