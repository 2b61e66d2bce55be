package perfetto

import (
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/gorocprof/gorocprof/internal/perfetto/pb"
)

// Decoded is a trace read back: its named machines, its tracks in declaration order, its slices in
// the order their begin events were written, with the interned names resolved, and the values of
// its counter tracks in the order they were written.
type Decoded struct {
	Machines []DecodedMachine
	Tracks   []DecodedTrack
	Slices   []DecodedSlice
	Counts   []DecodedCount
}

// DecodedCount is one value of a counter track from Time on.
type DecodedCount struct {
	Track uint64
	Time  int64
	Value float64
}

// DecodedMachine is a machine other than the host, named by its first packet.
type DecodedMachine struct {
	ID   uint32
	Name string
}

// DecodedTrack is one declared track.
type DecodedTrack struct {
	UUID, Parent uint64
	Machine      uint32 // the machine whose packets declared it, 0 for the host
	Name         string // a named track's name, a process track's process name
	PID          int32  // a process track's pid, else 0
	Cmdline      []string
	Rank         int32
	Counter      bool // a counter track
}

// DecodedSlice is one slice: its track, category, name, times and arguments.
type DecodedSlice struct {
	Track      uint64
	Category   string // its categories, comma-separated as trace_processor's slice.category
	Name       string
	Start, End int64
	Depth      int  // the slices of its track it is inside
	Instant    bool // an instant event: Start == End
	Flows      []uint64
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
// packet sequence per machine (the trace processor reads each machine's packets apart), whose first
// packet clears its incremental state and, on a machine other than the host, names the machine,
// once; every track declared once, with a uuid of its own and a parent declared before it on its
// machine; every event on a track declared on its machine, with interned names defined on its
// sequence before (or in) the packet that uses them and the flag saying it needs them; on each
// slice track, slices that begin and end in order and events in time order; counter values only on
// counter tracks, in any order (trace_processor sorts them by time). The first violation is the
// error, naming the packet.
func Decode(data []byte) (*Decoded, error) {
	var t pb.Trace
	if err := proto.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("not a trace: %w", err)
	}
	r := reader{tracks: map[uint64]*trackState{}, seqs: map[uint32]*seqState{}, machines: map[uint32]uint32{}}
	for i, p := range t.Packet {
		if err := r.packet(p); err != nil {
			return nil, fmt.Errorf("packet %d: %w", i, err)
		}
	}
	for _, tr := range r.out.Tracks {
		if st := r.tracks[tr.UUID]; len(st.open) > 0 {
			return nil, fmt.Errorf("track %d: slice %q never ends", tr.UUID, r.out.Slices[st.open[len(st.open)-1]].Name)
		}
	}
	return &r.out, nil
}

type reader struct {
	out      Decoded
	tracks   map[uint64]*trackState
	seqs     map[uint32]*seqState
	machines map[uint32]uint32 // the sequence of each machine
}

// seqState is what a sequence's packets have defined: its machine and its interned names.
type seqState struct {
	machine  uint32
	names    map[uint64]string
	argNames map[uint64]string
}

type trackState struct {
	machine uint32
	counter bool
	last    int64 // the time of the track's last event
	open    []int // the indexes of its open slices, innermost last
}

func (r *reader) packet(p *pb.TracePacket) error {
	seq, first, err := r.sequence(p)
	if err != nil {
		return err
	}
	if in := p.GetInternedData(); in != nil {
		if err := seq.intern(in); err != nil {
			return err
		}
	}
	switch {
	case p.GetSystemInfo() != nil && first && seq.machine != 0:
		return nil // the machine's name, which sequence took
	case p.GetSystemInfo() != nil:
		return fmt.Errorf("a machine name after the first packet of machine %d", seq.machine)
	case p.GetTrackDescriptor() != nil:
		return r.track(seq.machine, p.GetTrackDescriptor())
	case p.GetTrackEvent() != nil:
		if p.GetSequenceFlags()&uint32(pb.TracePacket_SEQ_NEEDS_INCREMENTAL_STATE) == 0 {
			return fmt.Errorf("a track event with interned names whose packet does not say it needs them")
		}
		return r.event(seq, int64(p.GetTimestamp()), p.GetTrackEvent())
	}
	return fmt.Errorf("neither a track descriptor nor a track event")
}

// sequence returns the state of the packet's sequence and whether this is its first packet, which
// starts it: that packet must clear the sequence's state and, on a machine other than the host,
// name the machine (a SystemInfo packet, which carries no track or event).
func (r *reader) sequence(p *pb.TracePacket) (*seqState, bool, error) {
	id, machine := p.GetTrustedPacketSequenceId(), p.GetMachineId()
	if id == 0 {
		return nil, false, fmt.Errorf("no trusted_packet_sequence_id")
	}
	if seq := r.seqs[id]; seq != nil {
		if seq.machine != machine {
			return nil, false, fmt.Errorf("sequence %d of machine %d carries machine %d", id, seq.machine, machine)
		}
		return seq, false, nil
	}
	if old, ok := r.machines[machine]; ok {
		return nil, false, fmt.Errorf("sequence %d after sequence %d on machine %d: a trace of one writer has one per machine", id, old, machine)
	}
	if p.GetSequenceFlags()&uint32(pb.TracePacket_SEQ_INCREMENTAL_STATE_CLEARED) == 0 {
		return nil, false, fmt.Errorf("the first packet of sequence %d does not clear the sequence's incremental state", id)
	}
	seq := &seqState{machine: machine, names: map[uint64]string{}, argNames: map[uint64]string{}}
	r.seqs[id], r.machines[machine] = seq, id
	info := p.GetSystemInfo()
	switch {
	case machine == 0 && info != nil:
		return nil, false, fmt.Errorf("a machine name (%q) on the host's packets: only another machine is named", info.GetMachineName())
	case machine == 0:
		return seq, true, nil
	case info == nil || info.MachineName == nil:
		return nil, false, fmt.Errorf("machine %d: its first packet does not name it", machine)
	}
	r.out.Machines = append(r.out.Machines, DecodedMachine{ID: machine, Name: info.GetMachineName()})
	return seq, true, nil
}

func (s *seqState) intern(in *pb.InternedData) error {
	for _, n := range in.GetEventNames() {
		if err := define(s.names, n.GetIid(), n.GetName(), "event name"); err != nil {
			return err
		}
	}
	for _, n := range in.GetDebugAnnotationNames() {
		if err := define(s.argNames, n.GetIid(), n.GetName(), "annotation name"); err != nil {
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

func (r *reader) track(machine uint32, d *pb.TrackDescriptor) error {
	u := d.GetUuid()
	if u == 0 {
		return fmt.Errorf("a track without uuid")
	}
	if _, ok := r.tracks[u]; ok {
		return fmt.Errorf("track uuid %d declared twice", u)
	}
	if d.ParentUuid != nil {
		parent, ok := r.tracks[d.GetParentUuid()]
		if !ok {
			return fmt.Errorf("track %d: its parent %d is not declared before it", u, d.GetParentUuid())
		}
		if parent.machine != machine {
			return fmt.Errorf("track %d of machine %d: its parent %d is of machine %d", u, machine, d.GetParentUuid(), parent.machine)
		}
	}
	t := DecodedTrack{UUID: u, Parent: d.GetParentUuid(), Machine: machine, Name: d.GetName(), Rank: d.GetSiblingOrderRank(),
		Counter: d.Counter != nil}
	if pd := d.GetProcess(); pd != nil {
		t.PID, t.Name, t.Cmdline = pd.GetPid(), pd.GetProcessName(), pd.GetCmdline()
	}
	r.tracks[u] = &trackState{machine: machine, counter: t.Counter}
	r.out.Tracks = append(r.out.Tracks, t)
	return nil
}

func (r *reader) event(seq *seqState, ts int64, e *pb.TrackEvent) error {
	st, ok := r.tracks[e.GetTrackUuid()]
	if !ok {
		return fmt.Errorf("an event on track %d, which is not declared before it", e.GetTrackUuid())
	}
	if st.machine != seq.machine {
		return fmt.Errorf("an event of machine %d on track %d, which is of machine %d", seq.machine, e.GetTrackUuid(), st.machine)
	}
	if st.counter != (e.GetType() == pb.TrackEvent_TYPE_COUNTER) {
		return fmt.Errorf("track %d: an event of type %v on a track that is %s", e.GetTrackUuid(), e.GetType(),
			map[bool]string{true: "a counter track", false: "no counter track"}[st.counter])
	}
	if st.counter {
		v, ok := e.GetCounterValueField().(*pb.TrackEvent_DoubleCounterValue)
		if !ok {
			return fmt.Errorf("track %d: a counter event without a double value", e.GetTrackUuid())
		}
		r.out.Counts = append(r.out.Counts, DecodedCount{Track: e.GetTrackUuid(), Time: ts, Value: v.DoubleCounterValue})
		return nil
	}
	if ts < st.last {
		return fmt.Errorf("track %d: an event at %d ns after one at %d ns", e.GetTrackUuid(), ts, st.last)
	}
	st.last = ts
	switch e.GetType() {
	case pb.TrackEvent_TYPE_SLICE_BEGIN, pb.TrackEvent_TYPE_INSTANT:
		name, ok := seq.names[e.GetNameIid()]
		if !ok {
			return fmt.Errorf("a slice named by iid %d, which is not interned", e.GetNameIid())
		}
		s := DecodedSlice{Track: e.GetTrackUuid(), Category: strings.Join(e.GetCategories(), ","), Name: name, Start: ts,
			Depth: len(st.open), Flows: e.GetFlowIds()}
		for _, a := range e.GetDebugAnnotations() {
			var err error
			if s.Args, err = seq.flatten(s.Args, "", a); err != nil {
				return fmt.Errorf("slice %q: %w", name, err)
			}
		}
		if e.GetType() == pb.TrackEvent_TYPE_INSTANT {
			s.End, s.Instant = ts, true
		} else {
			st.open = append(st.open, len(r.out.Slices))
		}
		r.out.Slices = append(r.out.Slices, s)
	case pb.TrackEvent_TYPE_SLICE_END:
		n := len(st.open)
		if n == 0 {
			return fmt.Errorf("track %d: a slice ends that did not begin", e.GetTrackUuid())
		}
		r.out.Slices[st.open[n-1]].End = ts
		st.open = st.open[:n-1]
	default:
		return fmt.Errorf("track event of type %v: this trace has slices, instants and counters only", e.GetType())
	}
	return nil
}

// flatten appends annotation a, named by its interned name below prefix, as key-value pairs.
func (s *seqState) flatten(out []KeyValue, prefix string, a *pb.DebugAnnotation) ([]KeyValue, error) {
	name, ok := s.argNames[a.GetNameIid()]
	if !ok {
		return nil, fmt.Errorf("an argument named by iid %d, which is not interned", a.GetNameIid())
	}
	return s.flattenValue(out, prefix+name, a)
}

func (s *seqState) flattenValue(out []KeyValue, key string, a *pb.DebugAnnotation) ([]KeyValue, error) {
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
		if out, err = s.flatten(out, key+".", e); err != nil {
			return nil, err
		}
	}
	for i, e := range a.GetArrayValues() {
		if out, err = s.flattenValue(out, key+"["+strconv.Itoa(i)+"]", e); err != nil {
			return nil, err
		}
	}
	return out, nil
}
