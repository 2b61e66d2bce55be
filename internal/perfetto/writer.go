// Package perfetto writes Perfetto traces (the protobuf trace format the Perfetto UI and
// trace_processor open): process tracks, named tracks below them, and complete slices with
// arguments. It knows nothing of records; internal/output feeds it the dispatches.
package perfetto

import (
	"encoding/binary"
	"fmt"
	"io"

	"google.golang.org/protobuf/proto"

	"github.com/gorocprof/gorocprof/internal/perfetto/pb"
)

// sequenceID is the one trusted packet sequence of a trace: a single writer, so its interned names
// and their incremental state are that sequence's.
const sequenceID = 1

// traceFieldPacket is Trace.packet: a trace file is the concatenation of that field, one
// length-prefixed TracePacket each, so packets are written one at a time.
const traceFieldPacket = 1

// A Track is a declared track of the trace; the zero Track is none.
type Track struct{ uuid uint64 }

// Writer writes one trace. Every track is declared (its TrackDescriptor packet) before the first
// event on it; uuids are numbered from 1 in declaration order, and event and argument names are
// interned on their first use, so the same calls give the same bytes.
type Writer struct {
	w        io.Writer
	buf      []byte
	uuids    uint64
	names    map[string]uint64 // interned event names
	argNames map[string]uint64 // interned debug annotation names
	started  bool              // the first packet, which clears the sequence's state, is written
	err      error
}

// NewWriter returns a Writer of a trace to w; nothing is written before the first track.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w, names: map[string]uint64{}, argNames: map[string]uint64{}}
}

// Process declares the track of a process: pid, name and command line as the trace shows them.
func (w *Writer) Process(pid int32, name string, cmdline []string) (Track, error) {
	t := w.newTrack()
	d := &pb.TrackDescriptor{Uuid: proto.Uint64(t.uuid), ChildOrdering: pb.TrackDescriptor_EXPLICIT.Enum(),
		Process: &pb.ProcessDescriptor{Pid: proto.Int32(pid), ProcessName: proto.String(name), Cmdline: cmdline}}
	return t, w.declare(d)
}

// Child declares a named track below parent, ordered among its siblings by rank (the UI shows
// the lower rank first); its own children are shown in rank order too.
func (w *Writer) Child(parent Track, name string, rank int32) (Track, error) {
	if parent.uuid == 0 {
		return Track{}, fmt.Errorf("track %q: no parent track", name)
	}
	t := w.newTrack()
	d := &pb.TrackDescriptor{Uuid: proto.Uint64(t.uuid), ParentUuid: proto.Uint64(parent.uuid),
		StaticOrDynamicName: &pb.TrackDescriptor_Name{Name: name}, SiblingOrderRank: proto.Int32(rank),
		ChildOrdering: pb.TrackDescriptor_EXPLICIT.Enum()}
	return t, w.declare(d)
}

func (w *Writer) newTrack() Track {
	w.uuids++
	return Track{uuid: w.uuids}
}

func (w *Writer) declare(d *pb.TrackDescriptor) error {
	return w.packet(&pb.TracePacket{Data: &pb.TracePacket_TrackDescriptor{TrackDescriptor: d}})
}

// Slice writes a slice of track t from start to end (nanoseconds in the trace's clock) with its
// arguments, as a begin and an end event. Slices of one track must not overlap unless one holds
// the other; the caller keeps them apart.
func (w *Writer) Slice(t Track, name string, start, end int64, args []Arg) error {
	if t.uuid == 0 {
		return fmt.Errorf("slice %q: no track", name)
	}
	if start < 0 || end < start {
		return fmt.Errorf("slice %q: it runs from %d to %d ns; a slice needs 0 <= start <= end", name, start, end)
	}
	var interned pb.InternedData
	ev := &pb.TrackEvent{Type: pb.TrackEvent_TYPE_SLICE_BEGIN.Enum(), TrackUuid: proto.Uint64(t.uuid),
		NameField: &pb.TrackEvent_NameIid{NameIid: intern(w.names, name, func(iid uint64) {
			interned.EventNames = append(interned.EventNames, &pb.EventName{Iid: proto.Uint64(iid), Name: proto.String(name)})
		})}}
	for _, a := range args {
		ev.DebugAnnotations = append(ev.DebugAnnotations, w.annotation(a, &interned))
	}
	begin := &pb.TracePacket{Timestamp: proto.Uint64(uint64(start)), Data: &pb.TracePacket_TrackEvent{TrackEvent: ev},
		SequenceFlags: proto.Uint32(uint32(pb.TracePacket_SEQ_NEEDS_INCREMENTAL_STATE))}
	if len(interned.EventNames)+len(interned.DebugAnnotationNames) > 0 {
		begin.InternedData = &interned
	}
	if err := w.packet(begin); err != nil {
		return err
	}
	return w.packet(&pb.TracePacket{Timestamp: proto.Uint64(uint64(end)),
		Data: &pb.TracePacket_TrackEvent{TrackEvent: &pb.TrackEvent{Type: pb.TrackEvent_TYPE_SLICE_END.Enum(),
			TrackUuid: proto.Uint64(t.uuid)}},
		SequenceFlags: proto.Uint32(uint32(pb.TracePacket_SEQ_NEEDS_INCREMENTAL_STATE))})
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

// packet writes one TracePacket of the sequence. The first clears the sequence's incremental
// state, so that the interned names of the packets after it are read from this trace alone.
func (w *Writer) packet(p *pb.TracePacket) error {
	if w.err != nil {
		return w.err
	}
	p.OptionalTrustedPacketSequenceId = &pb.TracePacket_TrustedPacketSequenceId{TrustedPacketSequenceId: sequenceID}
	if !w.started {
		w.started = true
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
