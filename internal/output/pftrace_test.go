package output

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/perfetto"
	"github.com/gorocprof/gorocprof/internal/records"
)

// writeTrace writes procs as one prefix's Perfetto trace and returns its bytes, read back.
func writeTrace(t *testing.T, opts Options, procs []*records.Process, cs Counters) ([]byte, *perfetto.Decoded) {
	t.Helper()
	opts.Dir = t.TempDir()
	opts.Formats = []string{"pftrace"}
	paths, err := WriteProcesses(t.Context(), opts, procs, cs)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(opts.Dir, filepath.FromSlash(opts.File)+"_results.pftrace")
	if len(paths) != 1 || paths[0] != want {
		t.Fatalf("paths = %v, want [%s]", paths, want)
	}
	b, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := perfetto.Decode(b)
	if err != nil {
		t.Fatalf("the trace does not read back: %v", err)
	}
	return b, tr
}

// dumpTrace is a trace as text: its tracks (indented below their parents) and its slices.
func dumpTrace(tr *perfetto.Decoded) string {
	var b strings.Builder
	depth := map[uint64]int{}
	for _, tk := range tr.Tracks {
		d := 0
		if tk.Parent != 0 {
			d = depth[tk.Parent] + 1
		}
		depth[tk.UUID] = d
		fmt.Fprintf(&b, "%strack %d %q rank %d", strings.Repeat("  ", d), tk.UUID, tk.Name, tk.Rank)
		if tk.Counter {
			b.WriteString(" counter")
		}
		if tk.PID != 0 {
			fmt.Fprintf(&b, " pid %d cmdline %q", tk.PID, tk.Cmdline)
		}
		b.WriteByte('\n')
	}
	for _, s := range tr.Slices {
		fmt.Fprintf(&b, "slice track %d [%s] %q %d..%d", s.Track, s.Category, s.Name, s.Start, s.End)
		if s.Depth > 0 {
			fmt.Fprintf(&b, " depth %d", s.Depth)
		}
		if s.Instant {
			b.WriteString(" instant")
		}
		if len(s.Flows) > 0 {
			fmt.Fprintf(&b, " flows %v", s.Flows)
		}
		b.WriteByte('\n')
		for _, a := range s.Args {
			fmt.Fprintf(&b, "  %s = %s\n", a.Key, a.Value)
		}
	}
	for _, c := range tr.Counts {
		fmt.Fprintf(&b, "count track %d %d = %g\n", c.Track, c.Time, c.Value)
	}
	return b.String()
}

// TestPftraceGolden writes the replay fixture (two agents, three passes a dispatch) as a trace
// twice: the same bytes, which are the golden trace, and its tracks and slices as the golden text.
func TestPftraceGolden(t *testing.T) {
	opts := Options{File: "node7/4242"}
	first, tr := writeTrace(t, opts, []*records.Process{readFixture(t, "4242.ndjson")}, fakeCounters{})
	again, _ := writeTrace(t, opts, []*records.Process{readFixture(t, "4242.ndjson")}, fakeCounters{})
	if !bytes.Equal(first, again) {
		t.Error("the same records gave two different traces")
	}
	compareGolden(t, "pftrace/4242_results.pftrace", first)
	compareGolden(t, "pftrace/4242.txt", []byte(dumpTrace(tr)))
}

// TestPftraceSlices checks every slice of the fixture's trace against its record: one slice per
// pass, in dispatch and pass order, the dispatch's first pass in rocprofv3's category kernel_dispatch
// and the others in kernel_dispatch_replay, named with the kernel as -M or -T asks whatever its pass
// (an argument), on its agent's queue track, from the
// record's start to its end, with its launch and the pass's requested counters (summed over
// instances, as counter_collection.csv has them) as arguments.
func TestPftraceSlices(t *testing.T) {
	for _, tc := range []struct {
		name              string
		mangled, truncate bool
	}{{"demangled", false, false}, {"mangled", true, false}, {"truncated", false, true}} {
		t.Run(tc.name, func(t *testing.T) { checkSlices(t, tc.mangled, tc.truncate) })
	}
}

func checkSlices(t *testing.T, mangled, truncate bool) {
	proc := readFixture(t, "4242.ndjson")
	_, tr := writeTrace(t, Options{File: "4242", Mangled: mangled, Truncate: truncate}, []*records.Process{proc}, fakeCounters{})
	tracks := map[uint64]perfetto.DecodedTrack{}
	for _, tk := range tr.Tracks {
		tracks[tk.UUID] = tk
	}
	agentName := map[uint64]string{}
	for _, a := range proc.Agents {
		agentName[a.ID] = fmt.Sprintf("Agent %d %s: %s", a.Props["logical_node_id"], a.Name, a.ProductName)
	}
	n := 0
	err := proc.EachLogical(func(l records.Logical) error {
		for _, r := range l.Passes {
			if n >= len(tr.Slices) {
				return fmt.Errorf("dispatch %d pass %d has no slice", r.DispatchID, r.Pass)
			}
			s := tr.Slices[n]
			n++
			k := proc.Kernels[r.KernelID]
			name := map[bool]string{false: k.Demangled, true: k.Name}[mangled]
			if truncate {
				name = k.Truncated
			}
			queue := tracks[s.Track]
			if want := map[bool]string{true: "kernel_dispatch", false: "kernel_dispatch_replay"}[r == l.Passes[0]]; s.Category != want {
				return fmt.Errorf("dispatch %d pass %d: slice category %q, want %s", r.DispatchID, r.Pass, s.Category, want)
			}
			agent := tracks[queue.Parent]
			if s.Name != name || s.Start != r.Start || s.End != r.End || queue.Name != "queue "+strconv.FormatUint(r.QueueID, 10) ||
				agent.Name != agentName[r.AgentID] || tracks[agent.Parent].PID != int32(proc.Header.PID) {
				return fmt.Errorf("dispatch %d pass %d: slice %q %d..%d on %q of %q, want %q %d..%d on queue %d of %q",
					r.DispatchID, r.Pass, s.Name, s.Start, s.End, queue.Name, agent.Name, name, r.Start, r.End, r.QueueID, agentName[r.AgentID])
			}
			want := map[string]string{"dispatch_id": strconv.FormatUint(r.DispatchID, 10), "replay_pass": strconv.Itoa(r.Pass),
				"replay_passes": strconv.Itoa(r.Passes), "correlation_id": strconv.FormatUint(r.CorrelationID, 10),
				"grid[0]": strconv.Itoa(int(r.Grid[0])), "workgroup[0]": strconv.Itoa(int(r.Workgroup[0]))}
			for name, v := range wantCounters(r) {
				want["counters."+name] = strconv.FormatFloat(v, 'g', -1, 64)
			}
			for k, v := range want {
				if got, ok := s.Arg(k); !ok || got != v {
					return fmt.Errorf("dispatch %d pass %d: argument %s = %q, want %q", r.DispatchID, r.Pass, k, got, v)
				}
			}
			counters := 0
			for _, a := range s.Args {
				if strings.HasPrefix(a.Key, "counters.") {
					counters++
				}
			}
			if counters != len(fakePlan[r.Pass]) {
				return fmt.Errorf("dispatch %d pass %d: %d counters, want its pass's %v", r.DispatchID, r.Pass, counters, fakePlan[r.Pass])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(tr.Slices) || n == 0 {
		t.Fatalf("%d slices, want one per pass: %d", len(tr.Slices), n)
	}
}

// TestPftraceCounterTracks: each agent has a counter track per requested counter, named as
// rocprofv3 names it ("Agent [<logical node id>] PMC <counter>"), below the agent's track, holding
// each pass's value (summed over instances) from the pass's start and 0 from its end.
func TestPftraceCounterTracks(t *testing.T) {
	proc := readFixture(t, "4242.ndjson")
	_, tr := writeTrace(t, Options{File: "4242"}, []*records.Process{proc}, fakeCounters{})
	byName := map[string]perfetto.DecodedTrack{}
	for _, tk := range tr.Tracks {
		if tk.Counter {
			if _, dup := byName[tk.Name]; dup {
				t.Errorf("counter track %q declared twice", tk.Name)
			}
			byName[tk.Name] = tk
		}
	}
	agents := map[uint64]contract.Agent{}
	for _, a := range proc.Agents {
		agents[a.ID] = a
	}
	want := map[uint64][]perfetto.DecodedCount{} // by track
	err := proc.EachLogical(func(l records.Logical) error {
		for _, r := range l.Passes {
			a := agents[r.AgentID]
			for name, v := range wantCounters(r) {
				tk, ok := byName[fmt.Sprintf("Agent [%d] PMC %s", a.Props["logical_node_id"], name)]
				if !ok {
					return fmt.Errorf("dispatch %d: no counter track %q of agent %d", r.DispatchID, name, a.Props["logical_node_id"])
				}
				want[tk.UUID] = append(want[tk.UUID], perfetto.DecodedCount{Track: tk.UUID, Time: r.Start, Value: v},
					perfetto.DecodedCount{Track: tk.UUID, Time: r.End, Value: 0})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[uint64][]perfetto.DecodedCount{}
	for _, c := range tr.Counts {
		got[c.Track] = append(got[c.Track], c)
	}
	if len(byName) == 0 || len(got) != len(byName) {
		t.Fatalf("%d counter tracks, %d with values", len(byName), len(got))
	}
	for name, tk := range byName {
		if !reflect.DeepEqual(got[tk.UUID], want[tk.UUID]) {
			t.Errorf("counter track %q: values %v, want %v", name, got[tk.UUID], want[tk.UUID])
		}
	}
}

// wantCounters are the fixture plan's counters of a pass, from its record: a recorded one summed over
// its instances, the derived one evaluated per instance first.
func wantCounters(r *contract.Dispatch) map[string]float64 {
	base := map[string][]float64{}
	for _, c := range r.Counters {
		for _, v := range c.Values {
			base[c.Name] = append(base[c.Name], *v)
		}
	}
	out := map[string]float64{}
	for _, name := range fakePlan[r.Pass] {
		vals := base[name]
		if vals == nil {
			vals, _ = fakeCounters{}.Evaluate(0, name, base)
		}
		for _, v := range vals {
			out[name] += v
		}
	}
	return out
}

// overlapRecords is a process whose dispatches on one queue overlap in time, one of which ran on an
// agent the records do not define and one whose clock went back.
const overlapRecords = `{"t":"header","version":1,"pid":77,"ppid":1,"backend":"sim","hostname":"h","init_time":1,"cmdline":["/opt/app"]}
{"t":"agent","id":1,"index":0,"name":"gfx942","product_name":"","vendor":"AMD","type":"GPU","props":{},"strings":{}}
{"t":"kernel","kernel_id":1,"name":"k","demangled":"k","truncated":"k","agent_id":1}
` + overlapDispatch + `1,"agent_id":1,"start":100,"end":200}
` + overlapDispatch + `2,"agent_id":1,"start":150,"end":250}
` + overlapDispatch + `3,"agent_id":1,"start":210,"end":300}
` + overlapDispatch + `4,"agent_id":1,"start":220,"end":260}
` + overlapDispatch + `5,"agent_id":9,"start":230,"end":240}
` + overlapDispatch + `6,"agent_id":1,"start":400,"end":390}
{"t":"end","fini_time":500,"dispatches":6,"replayed":0,"declined":0}
`

const overlapDispatch = `{"t":"dispatch","pass":0,"passes":1,"queue_id":1,"kernel_id":1,"grid":[1,1,1],"workgroup":[1,1,1],"counters":[],"dispatch_id":`

// TestPftraceLanes: a slice that begins before the queue's earlier slices end goes on a further
// lane of that queue (a sibling track of the same name), so that no track holds overlapping slices,
// and the trace stays valid with two processes in it, an agent without a record and a pass that ends
// before it starts.
func TestPftraceLanes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "77.ndjson")
	if err := os.WriteFile(path, []byte(overlapRecords), 0o644); err != nil {
		t.Fatal(err)
	}
	overlap, err := records.ReadProcess(path)
	if err != nil {
		t.Fatal(err)
	}
	_, tr := writeTrace(t, Options{File: "shared"}, []*records.Process{readFixture(t, "4242.ndjson"), overlap}, fakeCounters{})
	compareGolden(t, "pftrace/lanes.txt", []byte(dumpTrace(tr)))
	tracks := map[uint64]perfetto.DecodedTrack{}
	for _, tk := range tr.Tracks {
		tracks[tk.UUID] = tk
	}
	// Dispatch 5 ran on an agent without a record: a queue of its own agent's.
	wantLane := map[string]int{"1": 0, "2": 1, "3": 0, "4": 2, "6": 0}
	lanes := map[int]uint64{}
	for _, s := range tr.Slices {
		id, _ := s.Arg("dispatch_id")
		lane, ok := wantLane[id]
		if s.Start >= 1000 || !ok { // the first process, or dispatch 5
			continue
		}
		if tk := tracks[s.Track]; tk.Name != "queue 1" || tracks[tk.Parent].Name != "Agent 1 gfx942" {
			t.Errorf("dispatch %s on %q of %q, want queue 1 of Agent 1 gfx942", id, tk.Name, tracks[tk.Parent].Name)
		}
		if u, seen := lanes[lane]; seen && u != s.Track {
			t.Errorf("dispatch %s on track %d, want lane %d's track %d", id, s.Track, lane, u)
		}
		lanes[lane] = s.Track
	}
	if len(lanes) != 3 || lanes[0] == lanes[1] || lanes[1] == lanes[2] || lanes[0] == lanes[2] {
		t.Errorf("lanes %v, want three tracks", lanes)
	}
	last := tr.Slices[len(tr.Slices)-1]
	if end, _ := last.Arg("recorded_end"); last.Start != 400 || last.End != 400 || end != "390" {
		t.Errorf("the pass that ends before it starts: %d..%d recorded_end %q, want 400..400 and 390", last.Start, last.End, end)
	}
}
