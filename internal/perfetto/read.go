package perfetto

import (
	"fmt"
	"strconv"

	"google.golang.org/protobuf/proto"

	"github.com/gorocprof/gorocprof/internal/perfetto/pb"
)

// Decoded is a trace read back: its tracks in declaration order and its slices in the order their
// begin events were written, with the interned names resolved.
type Decoded struct {
	Tracks []DecodedTrack
	Slices []DecodedSlice
}

// DecodedTrack is one declared track.
type DecodedTrack struct {
	UUID, Parent uint64
	Name         string // a named track's name, a process track's process name
	PID          int32  // a process track's pid, else 0
	Cmdline      []string
	Rank         int32
}

// DecodedSlice is one slice: its track, name, times and arguments.
type DecodedSlice struct {
	Track      uint64
	Name       string
	Start, End int64
	Args       []KeyValue
}

// KeyValue is one argument flattened as trace_processor's args table keys it: dictionary entries
// as parent.entry, array elements as name[i]; numbers in decimal.
type KeyValue struct{ Key, Value string }

// Arg returns the value of the slice's argument key, and whether it has one.
func (s DecodedSlice) Arg(key string) (string, bool) {
	for _, kv := range s.Args {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return "", false
}

// Decode reads a trace written by Writer and checks what the Perfetto UI needs of it: one trusted
// packet sequence whose first packet clears its incremental state; every track declared once,
// with a uuid of its own and a parent declared before it; every event on a declared track, with
// interned names defined before (or in) the packet that uses them and the flag saying it needs
// them; on each track, slices that begin and end in order and events in time order. The first
// violation is the error, naming the packet.
func Decode(data []byte) (*Decoded, error) {
	var t pb.Trace
	if err := proto.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("not a trace: %w", err)
	}
	r := reader{tracks: map[uint64]*trackState{}, names: map[uint64]string{}, argNames: map[uint64]string{}}
	for i, p := range t.Packet {
		if err := r.packet(i, p); err != nil {
			return nil, fmt.Errorf("packet %d: %w", i, err)
		}
	}
	for _, tr := range r.out.Tracks {
		if st := r.tracks[tr.UUID]; st.open >= 0 {
			return nil, fmt.Errorf("track %d: slice %q never ends", tr.UUID, r.out.Slices[st.open].Name)
		}
	}
	return &r.out, nil
}

type reader struct {
	out      Decoded
	seq      uint32
	tracks   map[uint64]*trackState
	names    map[uint64]string
	argNames map[uint64]string
}

type trackState struct {
	last int64 // the time of the track's last event
	open int   // the index of its open slice, -1 when none
}

func (r *reader) packet(i int, p *pb.TracePacket) error {
	seq := p.GetTrustedPacketSequenceId()
	switch {
	case seq == 0:
		return fmt.Errorf("no trusted_packet_sequence_id")
	case i == 0 && p.GetSequenceFlags()&uint32(pb.TracePacket_SEQ_INCREMENTAL_STATE_CLEARED) == 0:
		return fmt.Errorf("the first packet does not clear the sequence's incremental state")
	case i == 0:
		r.seq = seq
	case seq != r.seq:
		return fmt.Errorf("sequence %d after sequence %d: a trace of one writer has one", seq, r.seq)
	}
	if in := p.GetInternedData(); in != nil {
		if err := r.intern(in); err != nil {
			return err
		}
	}
	switch {
	case p.GetTrackDescriptor() != nil:
		return r.track(p.GetTrackDescriptor())
	case p.GetTrackEvent() != nil:
		if p.GetSequenceFlags()&uint32(pb.TracePacket_SEQ_NEEDS_INCREMENTAL_STATE) == 0 {
			return fmt.Errorf("a track event with interned names whose packet does not say it needs them")
		}
		return r.event(int64(p.GetTimestamp()), p.GetTrackEvent())
	}
	return fmt.Errorf("neither a track descriptor nor a track event")
}

func (r *reader) intern(in *pb.InternedData) error {
	for _, n := range in.GetEventNames() {
		if err := define(r.names, n.GetIid(), n.GetName(), "event name"); err != nil {
			return err
		}
	}
	for _, n := range in.GetDebugAnnotationNames() {
		if err := define(r.argNames, n.GetIid(), n.GetName(), "annotation name"); err != nil {
			return err
		}
	}
	return nil
}

// define adds an interned name. The writer never clears its state, so an iid defined twice is
// a writer's mistake even with the same name.
func define(table map[uint64]string, iid uint64, name, what string) error {
	if iid == 0 {
		return fmt.Errorf("%s %q interned with iid 0", what, name)
	}
	if old, ok := table[iid]; ok {
		return fmt.Errorf("%s iid %d interned twice (%q, %q)", what, iid, old, name)
	}
	table[iid] = name
	return nil
}

func (r *reader) track(d *pb.TrackDescriptor) error {
	u := d.GetUuid()
	if u == 0 {
		return fmt.Errorf("a track without uuid")
	}
	if _, ok := r.tracks[u]; ok {
		return fmt.Errorf("track uuid %d declared twice", u)
	}
	if d.ParentUuid != nil {
		if _, ok := r.tracks[d.GetParentUuid()]; !ok {
			return fmt.Errorf("track %d: its parent %d is not declared before it", u, d.GetParentUuid())
		}
	}
	t := DecodedTrack{UUID: u, Parent: d.GetParentUuid(), Name: d.GetName(), Rank: d.GetSiblingOrderRank()}
	if pd := d.GetProcess(); pd != nil {
		t.PID, t.Name, t.Cmdline = pd.GetPid(), pd.GetProcessName(), pd.GetCmdline()
	}
	r.tracks[u] = &trackState{open: -1}
	r.out.Tracks = append(r.out.Tracks, t)
	return nil
}

func (r *reader) event(ts int64, e *pb.TrackEvent) error {
	st, ok := r.tracks[e.GetTrackUuid()]
	if !ok {
		return fmt.Errorf("an event on track %d, which is not declared before it", e.GetTrackUuid())
	}
	if ts < st.last {
		return fmt.Errorf("track %d: an event at %d ns after one at %d ns", e.GetTrackUuid(), ts, st.last)
	}
	st.last = ts
	switch e.GetType() {
	case pb.TrackEvent_TYPE_SLICE_BEGIN:
		if st.open >= 0 {
			return fmt.Errorf("track %d: a slice begins inside slice %q", e.GetTrackUuid(), r.out.Slices[st.open].Name)
		}
		name, ok := r.names[e.GetNameIid()]
		if !ok {
			return fmt.Errorf("a slice named by iid %d, which is not interned", e.GetNameIid())
		}
		s := DecodedSlice{Track: e.GetTrackUuid(), Name: name, Start: ts}
		for _, a := range e.GetDebugAnnotations() {
			var err error
			if s.Args, err = r.flatten(s.Args, "", a); err != nil {
				return fmt.Errorf("slice %q: %w", name, err)
			}
		}
		st.open = len(r.out.Slices)
		r.out.Slices = append(r.out.Slices, s)
	case pb.TrackEvent_TYPE_SLICE_END:
		if st.open < 0 {
			return fmt.Errorf("track %d: a slice ends that did not begin", e.GetTrackUuid())
		}
		r.out.Slices[st.open].End = ts
		st.open = -1
	default:
		return fmt.Errorf("track event of type %v: this trace has slices only", e.GetType())
	}
	return nil
}

// flatten appends annotation a, named by its interned name below prefix, as key-value pairs.
func (r *reader) flatten(out []KeyValue, prefix string, a *pb.DebugAnnotation) ([]KeyValue, error) {
	name, ok := r.argNames[a.GetNameIid()]
	if !ok {
		return nil, fmt.Errorf("an argument named by iid %d, which is not interned", a.GetNameIid())
	}
	return r.flattenValue(out, prefix+name, a)
}

func (r *reader) flattenValue(out []KeyValue, key string, a *pb.DebugAnnotation) ([]KeyValue, error) {
	var err error
	switch v := a.GetValue().(type) {
	case *pb.DebugAnnotation_UintValue:
		return append(out, KeyValue{key, strconv.FormatUint(v.UintValue, 10)}), nil
	case *pb.DebugAnnotation_IntValue:
		return append(out, KeyValue{key, strconv.FormatInt(v.IntValue, 10)}), nil
	case *pb.DebugAnnotation_DoubleValue:
		return append(out, KeyValue{key, strconv.FormatFloat(v.DoubleValue, 'g', -1, 64)}), nil
	case *pb.DebugAnnotation_StringValue:
		return append(out, KeyValue{key, v.StringValue}), nil
	case *pb.DebugAnnotation_BoolValue:
		return append(out, KeyValue{key, strconv.FormatBool(v.BoolValue)}), nil
	}
	for _, e := range a.GetDictEntries() {
		if out, err = r.flatten(out, key+".", e); err != nil {
			return nil, err
		}
	}
	for i, e := range a.GetArrayValues() {
		if out, err = r.flattenValue(out, key+"["+strconv.Itoa(i)+"]", e); err != nil {
			return nil, err
		}
	}
	return out, nil
}
