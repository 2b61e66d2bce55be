package records

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/output/bgwrite"
)

// spool keeps a process's dispatch lines, in file order, between the one decode of its record file
// and the sinks that read them: varints in an unlinked temporary file, about a quarter of the
// line's JSON, so that memory does not grow with the dispatches and the file is decoded once
// however often the dispatches are read.
type spool struct {
	dir   string // where its file goes; "" for TMPDIR
	f     *os.File
	w     *bgwrite.Writer // the kernel's copy overlaps with the decoding of the next lines
	size  int64
	names []string       // counter names by index
	index map[string]int // counter name -> index
	buf   []byte
	head  []byte // an entry's length
	err   error
}

func newSpool() *spool { return &spool{index: map[string]int{}} }

// add appends one dispatch line, its line number in the record file and whether its line was
// recovered from a torn write (Record.Recovered).
func (s *spool) add(line int, recovered bool, d *contract.Dispatch) {
	if s.err != nil {
		return
	}
	if s.f == nil {
		f, err := os.CreateTemp(s.dir, ".gorocprof-spool-*")
		if err != nil {
			s.err = s.failed(err)
			return
		}
		// Unlinked at once: the open file lives as long as the process needs it, and nothing stays
		// behind whatever ends the front end.
		_ = os.Remove(f.Name())
		s.f, s.w = f, bgwrite.New(f)
		runtime.AddCleanup(s, func(f *os.File) { _ = f.Close() }, f)
	}
	tag := uint64(line) << 1
	if recovered {
		tag |= 1
	}
	// Each entry is its length and then its fields, so that the reader takes it in one piece.
	b := binary.AppendUvarint(s.buf[:0], tag)
	for _, x := range [...]uint64{d.DispatchID, d.CorrelationID, d.ExternalID, d.AgentID, d.QueueID, d.StreamID,
		d.ThreadID, d.KernelID, uint64(d.Grid[0]), uint64(d.Grid[1]), uint64(d.Grid[2]),
		uint64(d.Workgroup[0]), uint64(d.Workgroup[1]), uint64(d.Workgroup[2])} {
		b = binary.AppendUvarint(b, x)
	}
	for _, x := range [...]int64{int64(d.Pass), int64(d.Passes), d.LDS, d.Scratch, d.Start, d.End} {
		b = binary.AppendVarint(b, x)
	}
	if d.Counters == nil {
		b = binary.AppendUvarint(b, 0)
	} else {
		b = binary.AppendUvarint(b, uint64(len(d.Counters))+1)
	}
	for _, c := range d.Counters {
		i, ok := s.index[c.Name]
		if !ok {
			i = len(s.names)
			s.index[c.Name] = i
			s.names = append(s.names, c.Name)
		}
		b = binary.AppendUvarint(b, uint64(i))
		b = binary.AppendUvarint(b, uint64(len(c.Values)))
		for _, v := range c.Values {
			b = appendSpoolValue(b, v)
		}
	}
	s.buf = b
	s.head = binary.AppendUvarint(s.head[:0], uint64(len(b)))
	n, err := s.w.Write(s.head)
	if err == nil {
		var m int
		m, err = s.w.Write(b)
		n += m
	}
	s.size += int64(n)
	if err != nil {
		s.err = s.failed(err)
	}
}

// A value is 0 when the hardware did not deliver it, 1 and its 8 bytes for a float, 2+n for a whole
// number n (counts, nearly every value): one or two bytes where JSON took several.
func appendSpoolValue(b []byte, v *float64) []byte {
	switch {
	case v == nil:
		return append(b, 0)
	case *v >= 0 && *v < 1<<53 && *v == math.Trunc(*v) && !math.Signbit(*v):
		return binary.AppendUvarint(b, uint64(*v)+2)
	}
	b = append(b, 1)
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(*v))
}

// failed is the spool's error, naming where it was.
func (s *spool) failed(err error) error {
	dir := s.dir
	if dir == "" {
		dir = os.TempDir()
	}
	return fmt.Errorf("%w in %s: %w", ErrSpool, dir, err)
}

// finish flushes what was spooled; the spool is read from then on.
func (s *spool) finish() error {
	if s.w != nil {
		if err := s.w.Close(); err != nil && s.err == nil {
			s.err = s.failed(err)
		}
	}
	return s.err
}

// close releases the temporary file.
func (s *spool) close() {
	if s.w != nil {
		_ = s.w.Close()
	}
	if s.f != nil {
		_ = s.f.Close()
		s.f = nil
	}
}

// spoolReader hands out the spooled dispatch lines in order, each into the same storage.
type spoolReader struct {
	s         *spool
	r         *bufio.Reader
	entry     []byte // the entry being read
	at        int    // how far into entry
	bad       bool   // entry ended early
	d         contract.Dispatch
	cvs       []contract.CounterValue
	ptrs      []*float64
	vals      []float64
	counts    []int
	recovered bool // the last line handed out was recovered from a torn write
}

func (s *spool) reader() *spoolReader {
	sr := &spoolReader{s: s}
	if s.f != nil {
		sr.r = bufio.NewReaderSize(io.NewSectionReader(s.f, 0, s.size), 1<<20)
	}
	return sr
}

// next returns the next dispatch and its line number, or io.EOF after the last one. The dispatch
// is overwritten by the next call; recovered says whether the line was.
func (sr *spoolReader) next() (d *contract.Dispatch, line int, err error) {
	if sr.r == nil {
		return nil, 0, io.EOF
	}
	n, err := binary.ReadUvarint(sr.r)
	if errors.Is(err, io.EOF) {
		return nil, 0, io.EOF
	}
	if err != nil {
		return nil, 0, sr.fail(err)
	}
	if uint64(cap(sr.entry)) < n {
		sr.entry = make([]byte, n)
	}
	sr.entry, sr.at, sr.bad = sr.entry[:n], 0, false
	if _, err := io.ReadFull(sr.r, sr.entry); err != nil {
		return nil, 0, sr.fail(err)
	}
	tag := sr.uvarint()
	line, sr.recovered = int(tag>>1), tag&1 == 1
	var u [14]uint64
	for k := range u {
		u[k] = sr.uvarint()
	}
	var i [6]int64
	for k := range i {
		i[k] = sr.varint()
	}
	d = &sr.d
	*d = contract.Dispatch{DispatchID: u[0], CorrelationID: u[1], ExternalID: u[2], AgentID: u[3], QueueID: u[4],
		StreamID: u[5], ThreadID: u[6], KernelID: u[7], Grid: [3]uint32{uint32(u[8]), uint32(u[9]), uint32(u[10])},
		Workgroup: [3]uint32{uint32(u[11]), uint32(u[12]), uint32(u[13])},
		Pass:      int(i[0]), Passes: int(i[1]), LDS: i[2], Scratch: i[3], Start: i[4], End: i[5]}
	if n := sr.uvarint(); n > 0 {
		sr.counters(int(n - 1))
		d.Counters = sr.cvs
	}
	if sr.bad {
		return nil, 0, sr.fail(io.ErrUnexpectedEOF)
	}
	return d, line, nil
}

func (sr *spoolReader) uvarint() uint64 {
	x, n := binary.Uvarint(sr.entry[sr.at:])
	if n <= 0 {
		sr.bad = true
		return 0
	}
	sr.at += n
	return x
}

func (sr *spoolReader) varint() int64 {
	x, n := binary.Varint(sr.entry[sr.at:])
	if n <= 0 {
		sr.bad = true
		return 0
	}
	sr.at += n
	return x
}

// counters reads n counters into the reader's storage: values first, pointers once they stopped
// moving.
func (sr *spoolReader) counters(n int) {
	sr.cvs, sr.vals, sr.ptrs, sr.counts = sr.cvs[:0], sr.vals[:0], sr.ptrs[:0], sr.counts[:0]
	for k := 0; k < n && !sr.bad; k++ {
		name := sr.uvarint()
		if name >= uint64(len(sr.s.names)) {
			sr.bad = true
			return
		}
		nv := int(sr.uvarint())
		for j := 0; j < nv && !sr.bad; j++ {
			switch tag := sr.uvarint(); tag {
			case 0:
				sr.ptrs = append(sr.ptrs, nil)
				sr.vals = append(sr.vals, 0)
				continue
			case 1:
				if len(sr.entry)-sr.at < 8 {
					sr.bad = true
					return
				}
				sr.vals = append(sr.vals, math.Float64frombits(binary.LittleEndian.Uint64(sr.entry[sr.at:])))
				sr.at += 8
			default:
				sr.vals = append(sr.vals, float64(tag-2))
			}
			sr.ptrs = append(sr.ptrs, &sr.vals[0]) // a placeholder: not nil
		}
		sr.cvs = append(sr.cvs, contract.CounterValue{Name: sr.s.names[name]})
		sr.counts = append(sr.counts, nv)
	}
	if sr.bad {
		return
	}
	at := 0
	for k, nv := range sr.counts {
		vs := sr.ptrs[at : at+nv : at+nv]
		for j := range vs {
			if vs[j] != nil {
				vs[j] = &sr.vals[at+j]
			}
		}
		sr.cvs[k].Values = vs
		at += nv
	}
}

func (sr *spoolReader) fail(err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("reading the dispatch spool: %w", err)
}
