// Package perfetto writes Perfetto traces (the protobuf trace format the Perfetto UI and
// trace_processor open): machines, process tracks, named tracks below them, complete slices with
// categories and arguments, and counter tracks with their values. It knows nothing of records;
// internal/output feeds it the dispatches.
package perfetto

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/proto"

	"github.com/gorocprof/gorocprof/internal/perfetto/pb"
)

// traceFieldPacket is Trace.packet: a trace file is the concatenation of that field, one
// length-prefixed TracePacket each, so packets are written one at a time.
const traceFieldPacket = 1

// A Machine is a machine of the trace (Perfetto's TracePacket.machine_id). Within a machine a pid
// is one process; the same pid on two machines is two, as Perfetto's trace processor reads each
// machine's processes apart. The zero Machine is the trace's host, whose packets carry no machine id.
type Machine struct{ id uint32 }

// A Track is a declared track of the trace; the zero Track is none.
type Track struct {
	uuid uint64
	seq  *sequence // the sequence of the track's machine
}

// sequence is the trusted packet sequence of one machine. The trace processor reads each machine's
// packets apart, its interned names and tracks included, so every machine has a sequence of its
// own, with its own interning, and numbered machine id + 1 so that the host's is sequence 1.
type sequence struct {
	id       uint32
	machine  uint32
	names    map[string]uint64 // interned event names
	argNames map[string]uint64 // interned debug annotation names
	started  bool              // its first packet, which clears its state, is written
}

// Writer writes one trace. Every track is declared (its TrackDescriptor packet) before the first
// event on it; uuids are numbered from 1 in declaration order, machines from 1 in theirs, and event
// and argument names are interned on their first use on a machine, so the same calls give the
// same bytes.
type Writer struct {
	w        io.Writer
	buf      []byte
	uuids    uint64
	machines uint32
	seqs     map[uint32]*sequence // by machine id
	err      error
}

// NewWriter returns a Writer of a trace to w; nothing is written before the first machine or track.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w, seqs: map[uint32]*sequence{}}
}

// Machine declares a machine of the trace and names it (SystemInfo.machine_name, which the UI shows
// beside each of its processes: "app 1234 (node2)"). A trace whose processes are all on the host
// needs none.
func (w *Writer) Machine(name string) (Machine, error) {
	w.machines++
	m := Machine{id: w.machines}
	return m, w.packet(w.sequence(m), &pb.TracePacket{Data: &pb.TracePacket_SystemInfo{
		SystemInfo: &pb.SystemInfo{MachineName: proto.String(name)}}})
}

func (w *Writer) sequence(m Machine) *sequence {
	seq := w.seqs[m.id]
	if seq == nil {
		seq = &sequence{id: m.id + 1, machine: m.id, names: map[string]uint64{}, argNames: map[string]uint64{}}
		w.seqs[m.id] = seq
	}
	return seq
}

// Process declares the track of a process of machine m: pid, name and command line as the trace
// shows them.
func (w *Writer) Process(m Machine, pid int32, name string, cmdline []string) (Track, error) {
	t := w.newTrack(w.sequence(m))
	d := &pb.TrackDescriptor{Uuid: proto.Uint64(t.uuid), ChildOrdering: pb.TrackDescriptor_EXPLICIT.Enum(),
		Process: &pb.ProcessDescriptor{Pid: proto.Int32(pid), ProcessName: proto.String(name), Cmdline: cmdline}}
	return t, w.declare(t, d)
}

// Child declares a named track below parent, on parent's machine, ordered among its siblings by
// rank (the UI shows the lower rank first); its own children are shown in rank order too.
func (w *Writer) Child(parent Track, name string, rank int32) (Track, error) {
	if parent.uuid == 0 {
		return Track{}, fmt.Errorf("track %q: no parent track", name)
	}
	t := w.newTrack(parent.seq)
	d := &pb.TrackDescriptor{Uuid: proto.Uint64(t.uuid), ParentUuid: proto.Uint64(parent.uuid),
		StaticOrDynamicName: &pb.TrackDescriptor_Name{Name: name}, SiblingOrderRank: proto.Int32(rank),
		ChildOrdering: pb.TrackDescriptor_EXPLICIT.Enum()}
	return t, w.declare(t, d)
}

func (w *Writer) newTrack(seq *sequence) Track {
	w.uuids++
	return Track{uuid: w.uuids, seq: seq}
}

func (w *Writer) declare(t Track, d *pb.TrackDescriptor) error {
	return w.packet(t.seq, &pb.TracePacket{Data: &pb.TracePacket_TrackDescriptor{TrackDescriptor: d}})
}

// Counter declares a counter track below parent, on parent's machine: a track of values over time
// (Count), which the UI draws as a graph and trace_processor keeps in its counter table.
func (w *Writer) Counter(parent Track, name string) (Track, error) {
	if parent.uuid == 0 {
		return Track{}, fmt.Errorf("counter track %q: no parent track", name)
	}
	t := w.newTrack(parent.seq)
	d := &pb.TrackDescriptor{Uuid: proto.Uint64(t.uuid), ParentUuid: proto.Uint64(parent.uuid),
		StaticOrDynamicName: &pb.TrackDescriptor_Name{Name: name}, Counter: &pb.CounterDescriptor{}}
	return t, w.declare(t, d)
}

// Count writes the value of counter track t from ts (nanoseconds in the trace's clock) on, until
// its next value.
func (w *Writer) Count(t Track, ts int64, value float64) error {
	return w.unnamed(t, ts, "counter value", &pb.TrackEvent{Type: pb.TrackEvent_TYPE_COUNTER.Enum(),
		CounterValueField: &pb.TrackEvent_DoubleCounterValue{DoubleCounterValue: value}})
}

// unnamed writes an event of track t at ts that names nothing (a counter's value, a slice's end).
func (w *Writer) unnamed(t Track, ts int64, what string, ev *pb.TrackEvent) error {
	if t.uuid == 0 || t.seq == nil {
		return errors.New(what + ": no track")
	}
	if ts < 0 {
		return fmt.Errorf("%s at %d ns: a time needs to be >= 0", what, ts)
	}
	ev.TrackUuid = proto.Uint64(t.uuid)
	return w.packet(t.seq, &pb.TracePacket{Timestamp: proto.Uint64(uint64(ts)), Data: &pb.TracePacket_TrackEvent{TrackEvent: ev},
		SequenceFlags: proto.Uint32(uint32(pb.TracePacket_SEQ_NEEDS_INCREMENTAL_STATE))})
}

// Slice writes a slice of track t in category (trace_processor's slice.category; empty for none)
// from start to end (nanoseconds in the trace's clock) with its arguments, as a begin and an end
// event, and in the flows of the ids given. Slices of one track must not overlap; the caller keeps
// them apart, or nests them with Begin and End.
func (w *Writer) Slice(t Track, category, name string, start, end int64, args []Arg, flows ...uint64) error {
	if end < start {
		return fmt.Errorf("slice %q: it runs from %d to %d ns; a slice needs 0 <= start <= end", name, start, end)
	}
	if err := w.Begin(t, category, name, start, args, flows...); err != nil {
		return err
	}
	return w.End(t, end)
}

// Begin opens a slice of track t at ts, inside the slices of t still open (End closes the last one
// opened): Slice's arguments without the end. A track's events go in time order.
func (w *Writer) Begin(t Track, category, name string, ts int64, args []Arg, flows ...uint64) error {
	return w.event(t, pb.TrackEvent_TYPE_SLICE_BEGIN, category, name, ts, args, flows)
}

// Instant writes an event of no duration on track t at ts (the UI draws it as an arrow), inside
// the slices of t still open.
func (w *Writer) Instant(t Track, category, name string, ts int64, args []Arg) error {
	return w.event(t, pb.TrackEvent_TYPE_INSTANT, category, name, ts, args, nil)
}

// End closes the slice of track t opened last, at ts.
func (w *Writer) End(t Track, ts int64) error {
	return w.unnamed(t, ts, "slice end", &pb.TrackEvent{Type: pb.TrackEvent_TYPE_SLICE_END.Enum()})
}

// event writes a named event of track t (a slice's begin, an instant) with its arguments and flows,
// interning its names on first use.
func (w *Writer) event(t Track, typ pb.TrackEvent_Type, category, name string, ts int64, args []Arg, flows []uint64) error {
	if t.uuid == 0 || t.seq == nil {
		return fmt.Errorf("slice %q: no track", name)
	}
	if ts < 0 {
		return fmt.Errorf("slice %q at %d ns: a time needs to be >= 0", name, ts)
	}
	var interned pb.InternedData
	ev := &pb.TrackEvent{Type: typ.Enum(), TrackUuid: proto.Uint64(t.uuid),
		NameField: &pb.TrackEvent_NameIid{NameIid: intern(t.seq.names, name, func(iid uint64) {
			interned.EventNames = append(interned.EventNames, &pb.EventName{Iid: proto.Uint64(iid), Name: proto.String(name)})
		})}, FlowIds: flows}
	if category != "" {
		ev.Categories = []string{category}
	}
	for _, a := range args {
		ev.DebugAnnotations = append(ev.DebugAnnotations, t.seq.annotation(a, &interned))
	}
	p := &pb.TracePacket{Timestamp: proto.Uint64(uint64(ts)), Data: &pb.TracePacket_TrackEvent{TrackEvent: ev},
		SequenceFlags: proto.Uint32(uint32(pb.TracePacket_SEQ_NEEDS_INCREMENTAL_STATE))}
	if len(interned.EventNames)+len(interned.DebugAnnotationNames) > 0 {
		p.InternedData = &interned
	}
	return w.packet(t.seq, p)
}

// intern returns the interning id of s in table, giving it the next one (and telling added) on
// its first use.
func intern(table map[string]uint64, s string, added func(iid uint64)) uint64 {
	if iid, ok := table[s]; ok {
		return iid
	}
	iid := uint64(len(table) + 1)
	table[s] = iid
	added(iid)
	return iid
}

// packet writes one TracePacket of sequence seq, of seq's machine. The first of a sequence clears
// its incremental state, so that the interned names of the packets after it are read from this
// trace alone.
func (w *Writer) packet(seq *sequence, p *pb.TracePacket) error {
	if w.err != nil {
		return w.err
	}
	p.OptionalTrustedPacketSequenceId = &pb.TracePacket_TrustedPacketSequenceId{TrustedPacketSequenceId: seq.id}
	if seq.machine != 0 {
		p.MachineId = proto.Uint32(seq.machine)
	}
	if !seq.started {
		seq.started = true
		p.FirstPacketOnSequence = proto.Bool(true)
		p.SequenceFlags = proto.Uint32(p.GetSequenceFlags() | uint32(pb.TracePacket_SEQ_INCREMENTAL_STATE_CLEARED))
	}
	size := proto.Size(p)
	w.buf = binary.AppendUvarint(append(w.buf[:0], traceFieldPacket<<3|2), uint64(size))
	b, err := proto.MarshalOptions{Deterministic: true, UseCachedSize: true}.MarshalAppend(w.buf, p)
	if err != nil {
		w.err = fmt.Errorf("encoding a trace packet: %w", err)
		return w.err
	}
	w.buf = b
	if _, err := w.w.Write(b); err != nil {
		w.err = err
	}
	return w.err
}
