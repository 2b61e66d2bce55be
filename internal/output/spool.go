package output

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/output/bgwrite"
)

// traceSpool keeps the kernel dispatch records of results.json while the counter records, which
// come first in the file, are written: the fields of each pass as fixed-size binary in a temporary
// file, a third of the size of their JSON, so that memory does not grow with the dispatches.
type traceSpool struct {
	f      *os.File
	w      *bgwrite.Writer
	buf    []byte
	closed bool // w is closed: the spool is read back, as often as asked
}

// spoolFields is the number of 8-byte fields of one pass in the spool.
const spoolFields = 20

// newTraceSpool creates the spool of the prefix base in loc; its name is removed at once, so that
// nothing of it stays behind however gorocprof ends.
func newTraceSpool(loc *location, base string) (*traceSpool, error) {
	f, name, err := loc.createTemp(base + "_trace.spool")
	if err != nil {
		return nil, fmt.Errorf("kernel trace spool: %w", err)
	}
	loc.remove(name)
	return &traceSpool{f: f, w: bgwrite.New(f), buf: make([]byte, 0, spoolFields*8)}, nil
}

// add spools a pass; first says it is its dispatch's first pass (the one rocprofv3's readers see as
// the dispatch).
func (s *traceSpool) add(d *contract.Dispatch, first bool) error {
	b := s.buf[:0]
	firstFlag := uint64(0)
	if first {
		firstFlag = 1
	}
	for _, x := range [spoolFields]uint64{d.ThreadID, d.CorrelationID, d.ExternalID, uint64(d.Start), uint64(d.End),
		d.AgentID, d.QueueID, d.KernelID, d.DispatchID, uint64(d.Scratch), uint64(d.LDS),
		uint64(d.Workgroup[0]), uint64(d.Workgroup[1]), uint64(d.Workgroup[2]),
		uint64(d.Grid[0]), uint64(d.Grid[1]), uint64(d.Grid[2]), uint64(int64(d.Pass)), d.StreamID, firstFlag} {
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	_, err := s.w.Write(b)
	return err
}

// each reads the passes back in the order they were added, each with whether it is its
// dispatch's first; it may be called again.
func (s *traceSpool) each(fn func(d *contract.Dispatch, first bool) error) error {
	if !s.closed {
		s.closed = true
		if err := s.w.Close(); err != nil {
			return fmt.Errorf("kernel trace spool: %w", err)
		}
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("kernel trace spool: %w", err)
	}
	r := bufio.NewReaderSize(s.f, 1<<20)
	rec := make([]byte, spoolFields*8)
	var d contract.Dispatch
	for {
		if _, err := io.ReadFull(r, rec); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("kernel trace spool: %w", err)
		}
		var x [spoolFields]uint64
		for i := range x {
			x[i] = binary.LittleEndian.Uint64(rec[8*i:])
		}
		d = contract.Dispatch{ThreadID: x[0], CorrelationID: x[1], ExternalID: x[2], Start: int64(x[3]), End: int64(x[4]),
			AgentID: x[5], QueueID: x[6], KernelID: x[7], DispatchID: x[8], Scratch: int64(x[9]), LDS: int64(x[10]),
			Workgroup: [3]uint32{uint32(x[11]), uint32(x[12]), uint32(x[13])},
			Grid:      [3]uint32{uint32(x[14]), uint32(x[15]), uint32(x[16])}, Pass: int(int64(x[17])), StreamID: x[18]}
		if err := fn(&d, x[19] == 1); err != nil {
			return err
		}
	}
}

func (s *traceSpool) close() {
	_ = s.w.Close()
	_ = s.f.Close()
}
