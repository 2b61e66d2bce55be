package perfetto

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/gorocprof/gorocprof/internal/perfetto/pb"
)

// sampleTrace writes a process with two child tracks and three slices, the second reusing the
// first's names.
func sampleTrace(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	w := NewWriter(&b)
	p, err := w.Process(Machine{}, 7, "app", []string{"./app", "-n", "2"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := w.Child(p, "agent 0", 0)
	if err != nil {
		t.Fatal(err)
	}
	q, err := w.Child(a, "queue 1", 0)
	if err != nil {
		t.Fatal(err)
	}
	args := []Arg{Uint("dispatch_id", 1), Int("lds", -1), String("kind", "k"),
		Array("grid", []Arg{Uint("", 64), Uint("", 1)}), Dict("counters", []Arg{Double("SQ_WAVES", 2.5)})}
	for i, span := range [][2]int64{{100, 200}, {200, 200}, {250, 300}} {
		name := "kernel"
		if i == 2 {
			name = "other"
		}
		if err := w.Slice(q, "", name, span[0], span[1], args); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func TestWriterReadsBack(t *testing.T) {
	tr, err := Decode(sampleTrace(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Tracks) != 3 || tr.Tracks[0].PID != 7 || tr.Tracks[0].Name != "app" || tr.Tracks[1].Parent != tr.Tracks[0].UUID ||
		tr.Tracks[2].Parent != tr.Tracks[1].UUID || tr.Tracks[2].Name != "queue 1" {
		t.Fatalf("tracks = %+v", tr.Tracks)
	}
	var names []string
	for _, s := range tr.Slices {
		names = append(names, s.Name)
		if s.Track != tr.Tracks[2].UUID {
			t.Errorf("slice %q on track %d, want %d", s.Name, s.Track, tr.Tracks[2].UUID)
		}
	}
	if got := strings.Join(names, ","); got != "kernel,kernel,other" {
		t.Errorf("slices %s", got)
	}
	want := []KeyValue{{"dispatch_id", "1"}, {"lds", "-1"}, {"kind", "k"}, {"grid[0]", "64"}, {"grid[1]", "1"}, {"counters.SQ_WAVES", "2.5"}}
	for _, s := range tr.Slices {
		if len(s.Args) != len(want) {
			t.Fatalf("slice args %v, want %v", s.Args, want)
		}
		for i := range want {
			if s.Args[i] != want[i] {
				t.Errorf("arg %d = %v, want %v", i, s.Args[i], want[i])
			}
		}
	}
	if s := tr.Slices[1]; s.Start != 200 || s.End != 200 {
		t.Errorf("empty slice %d..%d, want 200..200", s.Start, s.End)
	}
}

// machinesTrace writes a process of pid 7 on each of two machines, with a queue and a slice each.
func machinesTrace(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	w := NewWriter(&b)
	for _, host := range []string{"node1", "node2"} {
		m, err := w.Machine(host)
		if err != nil {
			t.Fatal(err)
		}
		p, err := w.Process(m, 7, "app", nil)
		if err != nil {
			t.Fatal(err)
		}
		q, err := w.Child(p, "queue 1", 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Slice(q, "", "kernel", 100, 200, []Arg{String("host", host)}); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// TestWriterMachines: processes of two machines with the same pid are two process tracks, each with
// its tracks and slices on its machine's own sequence, whose names are interned there.
func TestWriterMachines(t *testing.T) {
	data := machinesTrace(t)
	tr, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(tr.Machines); got != "[{1 node1} {2 node2}]" {
		t.Errorf("machines %s, want node1 and node2", got)
	}
	machineOf := map[uint64]uint32{}
	for _, tk := range tr.Tracks {
		machineOf[tk.UUID] = tk.Machine
	}
	if len(tr.Tracks) != 4 || tr.Tracks[0].PID != 7 || tr.Tracks[2].PID != 7 || machineOf[1] != 1 || machineOf[2] != 1 ||
		machineOf[3] != 2 || machineOf[4] != 2 {
		t.Fatalf("tracks = %+v, want a process 7 and its queue on each machine", tr.Tracks)
	}
	for i, s := range tr.Slices {
		if host, _ := s.Arg("host"); s.Track != uint64(2*i+2) || host != tr.Machines[i].Name {
			t.Errorf("slice %d of %s on track %d, want track %d", i, host, s.Track, 2*i+2)
		}
	}
	var raw pb.Trace
	if err := proto.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	interned := map[uint32]int{} // "kernel" interned, by sequence
	for _, p := range raw.Packet {
		if p.GetMachineId()+1 != p.GetTrustedPacketSequenceId() {
			t.Errorf("a packet of machine %d on sequence %d", p.GetMachineId(), p.GetTrustedPacketSequenceId())
		}
		for _, n := range p.GetInternedData().GetEventNames() {
			interned[p.GetTrustedPacketSequenceId()] += map[bool]int{true: 1}[n.GetName() == "kernel"]
		}
	}
	if interned[2] != 1 || interned[3] != 1 {
		t.Errorf("kernel interned %v times by sequence, want once on each machine's", interned)
	}
}

// TestWriterInternsOnce: a name is interned by the first packet that uses it, never again.
func TestWriterInternsOnce(t *testing.T) {
	var tr pb.Trace
	if err := proto.Unmarshal(sampleTrace(t), &tr); err != nil {
		t.Fatal(err)
	}
	events, args := map[string]int{}, map[string]int{}
	for _, p := range tr.Packet {
		for _, n := range p.GetInternedData().GetEventNames() {
			events[n.GetName()]++
		}
		for _, n := range p.GetInternedData().GetDebugAnnotationNames() {
			args[n.GetName()]++
		}
	}
	if len(events) != 2 || events["kernel"] != 1 || events["other"] != 1 {
		t.Errorf("event names interned %v, want kernel and other once each", events)
	}
	if len(args) != 6 {
		t.Errorf("argument names interned %v, want the 6 names once each", args)
	}
	for n, c := range args {
		if c != 1 {
			t.Errorf("argument name %s interned %d times", n, c)
		}
	}
}

func TestWriterRefusesBadSlices(t *testing.T) {
	for _, tc := range []struct {
		name       string
		noTrack    bool
		start, end int64
		want       string
	}{
		{"no track", true, 1, 2, "no track"},
		{"ends before it starts", false, 5, 4, "0 <= start <= end"},
		{"negative start", false, -1, 4, "a time needs to be >= 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			w := NewWriter(&b)
			p, err := w.Process(Machine{}, 1, "p", nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.noTrack {
				p = Track{}
			}
			err = w.Slice(p, "", "k", tc.start, tc.end, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestWriterRefusesAnOrphanTrack(t *testing.T) {
	_, err := NewWriter(&bytes.Buffer{}).Child(Track{}, "queue 1", 0)
	if err == nil || !strings.Contains(err.Error(), `track "queue 1": no parent track`) {
		t.Fatalf("err = %v, want one saying the track has no parent", err)
	}
}

// packets builds a trace from packets, each given the trace's sequence unless it names one.
func packets(ps ...*pb.TracePacket) []byte {
	for _, p := range ps {
		if p.OptionalTrustedPacketSequenceId == nil {
			p.OptionalTrustedPacketSequenceId = &pb.TracePacket_TrustedPacketSequenceId{TrustedPacketSequenceId: 1}
		}
	}
	b, err := proto.Marshal(&pb.Trace{Packet: ps})
	if err != nil {
		panic(err)
	}
	return b
}

func declare(uuid, parent uint64, flags uint32) *pb.TracePacket {
	d := &pb.TrackDescriptor{Uuid: proto.Uint64(uuid), StaticOrDynamicName: &pb.TrackDescriptor_Name{Name: "t"}}
	if parent != 0 {
		d.ParentUuid = proto.Uint64(parent)
	}
	return &pb.TracePacket{Data: &pb.TracePacket_TrackDescriptor{TrackDescriptor: d}, SequenceFlags: proto.Uint32(flags)}
}

func event(ts, track uint64, typ pb.TrackEvent_Type, nameIID uint64, in *pb.InternedData) *pb.TracePacket {
	e := &pb.TrackEvent{Type: typ.Enum(), TrackUuid: proto.Uint64(track)}
	if nameIID != 0 {
		e.NameField = &pb.TrackEvent_NameIid{NameIid: nameIID}
	}
	return &pb.TracePacket{Timestamp: proto.Uint64(ts), Data: &pb.TracePacket_TrackEvent{TrackEvent: e}, InternedData: in,
		SequenceFlags: proto.Uint32(uint32(pb.TracePacket_SEQ_NEEDS_INCREMENTAL_STATE))}
}

// on puts packet p on sequence seq of machine m.
func on(m, seq uint32, p *pb.TracePacket) *pb.TracePacket {
	p.MachineId = proto.Uint32(m)
	p.OptionalTrustedPacketSequenceId = &pb.TracePacket_TrustedPacketSequenceId{TrustedPacketSequenceId: seq}
	return p
}

// nameMachine is a packet naming its machine.
func nameMachine(name string, flags uint32) *pb.TracePacket {
	return &pb.TracePacket{Data: &pb.TracePacket_SystemInfo{SystemInfo: &pb.SystemInfo{MachineName: proto.String(name)}},
		SequenceFlags: proto.Uint32(flags)}
}

func named(iid uint64, name string) *pb.InternedData {
	return &pb.InternedData{EventNames: []*pb.EventName{{Iid: proto.Uint64(iid), Name: proto.String(name)}}}
}

// TestDecodeRefusesWhatTheUIRejects: each trace breaks one rule Decode checks, and it says which.
func TestDecodeRefusesWhatTheUIRejects(t *testing.T) {
	const cleared = uint32(pb.TracePacket_SEQ_INCREMENTAL_STATE_CLEARED)
	begin, end := pb.TrackEvent_TYPE_SLICE_BEGIN, pb.TrackEvent_TYPE_SLICE_END
	other := &pb.TracePacket{OptionalTrustedPacketSequenceId: &pb.TracePacket_TrustedPacketSequenceId{TrustedPacketSequenceId: 2}}
	noFlag := event(10, 1, begin, 1, named(1, "k"))
	noFlag.SequenceFlags = nil
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"not protobuf", []byte{0xff, 0xff}, "not a trace"},
		{"state not cleared", packets(declare(1, 0, 0)), "does not clear"},
		{"two sequences", packets(declare(1, 0, cleared), other), "sequence 2 after sequence 1"},
		{"uuid twice", packets(declare(1, 0, cleared), declare(1, 0, 0)), "declared twice"},
		{"no uuid", packets(declare(0, 0, cleared)), "without uuid"},
		{"parent undeclared", packets(declare(1, 0, cleared), declare(2, 9, 0)), "parent 9 is not declared"},
		{"event before its track", packets(declare(1, 0, cleared), event(10, 2, begin, 1, named(1, "k"))), "not declared before it"},
		{"name not interned", packets(declare(1, 0, cleared), event(10, 1, begin, 3, named(1, "k"))), "iid 3, which is not interned"},
		{"interned twice", packets(declare(1, 0, cleared), event(10, 1, begin, 1, named(1, "k")), event(20, 1, end, 0, named(1, "k"))), "interned twice"},
		{"no incremental flag", packets(declare(1, 0, cleared), noFlag), "does not say it needs them"},
		{"end without begin", packets(declare(1, 0, cleared), event(10, 1, end, 0, nil)), "did not begin"},
		{"nested slice left open", packets(declare(1, 0, cleared), event(10, 1, begin, 1, named(1, "k")), event(11, 1, begin, 1, nil),
			event(12, 1, end, 0, nil)), "slice \"k\" never ends"},
		{"never ends", packets(declare(1, 0, cleared), event(10, 1, begin, 1, named(1, "k"))), "never ends"},
		{"time goes back", packets(declare(1, 0, cleared), event(10, 1, begin, 1, named(1, "k")), event(9, 1, end, 0, nil)), "at 9 ns after one at 10 ns"},
		{"neither", packets(declare(1, 0, cleared), &pb.TracePacket{}), "neither"},
		{"machine not named", packets(on(1, 2, declare(1, 0, cleared))), "machine 1: its first packet does not name it"},
		{"host named", packets(nameMachine("h", cleared)), "only another machine is named"},
		{"machine named twice", packets(on(1, 2, nameMachine("a", cleared)), on(1, 2, nameMachine("b", 0))), "a machine name after the first packet of machine 1"},
		{"machine not cleared", packets(declare(1, 0, cleared), on(1, 2, nameMachine("a", 0))), "first packet of sequence 2 does not clear"},
		{"sequence changes machine", packets(declare(1, 0, cleared), on(3, 1, declare(2, 0, 0))), "sequence 1 of machine 0 carries machine 3"},
		{"two sequences of a machine", packets(on(1, 2, nameMachine("a", cleared)), on(1, 3, declare(1, 0, cleared))), "sequence 3 after sequence 2 on machine 1"},
		{"parent on another machine", packets(declare(1, 0, cleared), on(1, 2, nameMachine("a", cleared)), on(1, 2, declare(2, 1, 0))), "its parent 1 is of machine 0"},
		{"event on another machine's track", packets(declare(1, 0, cleared), on(1, 2, nameMachine("a", cleared)),
			on(1, 2, event(10, 1, begin, 1, named(1, "k")))), "which is of machine 0"},
		{"name interned on another sequence", packets(declare(1, 0, cleared), event(10, 1, begin, 1, named(1, "k")), event(20, 1, end, 0, nil),
			on(1, 2, nameMachine("a", cleared)), on(1, 2, declare(2, 0, 0)), on(1, 2, event(30, 2, begin, 1, nil))), "iid 1, which is not interned"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// FuzzDecode: the reader of traces survives any input.
func FuzzDecode(f *testing.F) {
	f.Add(sampleTrace(f))
	f.Add(machinesTrace(f))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Decode(data)
		if err == nil && tr == nil {
			t.Fatal("no trace and no error")
		}
	})
}

// TestWriterNestsInstantsAndFlows: slices opened with Begin nest inside the open ones (depth), an
// instant sits at the depth of the slices open around it, and flow ids come back on their slices.
func TestWriterNestsInstantsAndFlows(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	p, err := w.Process(Machine{}, 7, "app", nil)
	if err != nil {
		t.Fatal(err)
	}
	th, err := w.Child(p, "THREAD 0 (7)", 0)
	if err != nil {
		t.Fatal(err)
	}
	steps := []func() error{
		func() error { return w.Begin(th, "marker_api", "step", 100, nil) },
		func() error { return w.Begin(th, "hip_api", "hipLaunchKernel", 110, nil, 42) },
		func() error { return w.End(th, 120) },
		func() error {
			return w.Instant(th, "marker_api", "mark", 130, []Arg{String("operation", "roctxMarkA")})
		},
		func() error { return w.End(th, 200) },
		func() error { return w.Slice(th, "kernel_dispatch", "k", 300, 400, nil, 42) },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	tr, err := Decode(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range tr.Slices {
		got = append(got, fmt.Sprintf("%s %d-%d depth %d instant %v flows %v", s.Name, s.Start, s.End, s.Depth, s.Instant, s.Flows))
	}
	want := []string{"step 100-200 depth 0 instant false flows []", "hipLaunchKernel 110-120 depth 1 instant false flows [42]",
		"mark 130-130 depth 1 instant true flows []", "k 300-400 depth 0 instant false flows [42]"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("slices:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
