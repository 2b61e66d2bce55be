package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/perfetto"
)

// traceResults is what TestPftraceKernelReplay reads of results.json to check the trace against:
// every pass's counters and its kernel dispatch record.
type traceResults struct {
	Tool []struct {
		Counters []struct {
			ID   struct{ Handle uint64 } `json:"id"`
			Name string                  `json:"name"`
		} `json:"counters"`
		KernelSymbols []struct {
			KernelID uint64 `json:"kernel_id"`
			Name     string `json:"formatted_kernel_name"`
		} `json:"kernel_symbols"`
		CallbackRecords struct {
			CounterCollection []struct {
				DispatchData struct {
					DispatchInfo struct {
						DispatchID uint64 `json:"dispatch_id"`
					} `json:"dispatch_info"`
				} `json:"dispatch_data"`
				Records []struct {
					CounterID struct{ Handle uint64 } `json:"counter_id"`
					Value     float64                 `json:"value"`
				} `json:"records"`
				ReplayPass int `json:"replay_pass"`
			} `json:"counter_collection"`
		} `json:"callback_records"`
		BufferRecords struct {
			KernelDispatch []dispatchRecord `json:"kernel_dispatch"`
			Replays        []dispatchRecord `json:"gorocprof_replay_kernel_dispatch"`
		} `json:"buffer_records"`
	} `json:"rocprofiler-sdk-tool"`
}

// dispatchRecord is a kernel dispatch record of results.json.
type dispatchRecord struct {
	ThreadID      uint64                    `json:"thread_id"`
	CorrelationID struct{ Internal uint64 } `json:"correlation_id"`
	Start         int64                     `json:"start_timestamp"`
	End           int64                     `json:"end_timestamp"`
	DispatchInfo  struct {
		AgentID    struct{ Handle uint64 }  `json:"agent_id"`
		QueueID    struct{ Handle uint64 }  `json:"queue_id"`
		KernelID   uint64                   `json:"kernel_id"`
		DispatchID uint64                   `json:"dispatch_id"`
		Scratch    int64                    `json:"private_segment_size"`
		LDS        int64                    `json:"group_segment_size"`
		Grid       struct{ X, Y, Z uint64 } `json:"grid_size"`
		Workgroup  struct{ X, Y, Z uint64 } `json:"workgroup_size"`
	} `json:"dispatch_info"`
	ReplayPass int                     `json:"replay_pass"`
	StreamID   struct{ Handle uint64 } `json:"stream_id"`
}

// TestPftraceKernelReplay runs sim-demo under kernel replay with three groups, writing the trace and
// results.json with the kernel trace, and checks every slice of the trace read back against the
// pass it stands for in results.json: one slice per dispatch and pass, the first pass's in the
// category kernel_dispatch (results.json's kernel_dispatch) and the others' in kernel_dispatch_replay
// (its gorocprof_replay_kernel_dispatch), named with the kernel whatever the pass, from the pass's start to its end, on its queue's track below its agent's, with the
// dispatch's ids and launch and that pass's counters (summed over instances) as arguments.
func TestPftraceKernelReplay(t *testing.T) {
	root := needBuiltTool(t)
	groups, err := counters.ParseGroups([]string{"SQ_WAVES SQ_INSTS_VALU", "SQ_WAVES SQ_INSTS_SALU", "GRBM_GUI_ACTIVE"})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	res, err := Run(context.Background(), Request{
		Backend: "auto", Groups: groups, Mode: contract.ModeKernel, KernelTrace: true, Quiet: true,
		OutputDir: out, OutputFile: "run", Formats: []string{"json", "pftrace"},
		App: filepath.Join(root, "bin", "sim-demo"), Stdout: &stdout, Stderr: &stderr,
	})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("run: exit %d, err %v\nstderr:\n%s", res.ExitCode, err, stderr.String())
	}
	var rf traceResults
	data, err := os.ReadFile(filepath.Join(out, "run_results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rf); err != nil || len(rf.Tool) != 1 {
		t.Fatalf("results.json: %d processes, %v", len(rf.Tool), err)
	}
	trace, err := os.ReadFile(filepath.Join(out, "run_results.pftrace"))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := perfetto.Decode(trace)
	if err != nil {
		t.Fatalf("the trace does not read back: %v", err)
	}
	want := expectedSlices(rf)
	if len(want) == 0 || len(tr.Slices) != len(want) {
		t.Fatalf("%d slices, want one per dispatch and pass: %d", len(tr.Slices), len(want))
	}
	tracks := map[uint64]perfetto.DecodedTrack{}
	for _, tk := range tr.Tracks {
		tracks[tk.UUID] = tk
	}
	agentOfTrack := map[string]string{} // agent track name by the agent handle of its passes
	for i, s := range tr.Slices {
		w := want[i]
		queue := tracks[s.Track]
		agent := tracks[queue.Parent]
		if s.Category != w.category || s.Name != w.name || s.Start != w.start || s.End != w.end || queue.Name != w.queue ||
			tracks[agent.Parent].PID == 0 {
			t.Fatalf("slice %d: [%s] %q %d..%d on %q, want [%s] %q %d..%d on %q below an agent of the process",
				i, s.Category, s.Name, s.Start, s.End, queue.Name, w.category, w.name, w.start, w.end, w.queue)
		}
		if prev, ok := agentOfTrack[w.agent]; ok && prev != agent.Name {
			t.Fatalf("slice %d: agent %s on track %q and %q", i, w.agent, prev, agent.Name)
		}
		agentOfTrack[w.agent] = agent.Name
		// results.json's agent handle is not the node id the trace shows.
		if len(s.Args) != len(w.args)+1 {
			t.Errorf("slice %d (%s): args %v, want %v", i, s.Name, s.Args, w.args)
		}
		for k, v := range w.args {
			if got, ok := s.Arg(k); !ok || got != v {
				t.Errorf("slice %d (%s): %s = %q, want %q", i, s.Name, k, got, v)
			}
		}
	}
	t.Logf("%d slices on %d tracks checked", len(tr.Slices), len(tr.Tracks))
	if len(agentOfTrack) < 2 {
		t.Errorf("slices on %d agents, want the two simulated agents", len(agentOfTrack))
	}
}

type expectedSlice struct {
	category, name, queue, agent string
	start, end                   int64
	args                         map[string]string
}

// expectedSlices are the slices results.json says the trace holds, in dispatch and pass order.
func expectedSlices(rf traceResults) []expectedSlice {
	p := rf.Tool[0]
	kernels, counterName := map[uint64]string{}, map[uint64]string{}
	for _, k := range p.KernelSymbols {
		kernels[k.KernelID] = k.Name
	}
	for _, c := range p.Counters {
		counterName[c.ID.Handle] = c.Name
	}
	type key struct {
		id   uint64
		pass int
	}
	values := map[key]map[string]float64{}
	for _, r := range p.CallbackRecords.CounterCollection {
		k := key{r.DispatchData.DispatchInfo.DispatchID, r.ReplayPass}
		values[k] = map[string]float64{}
		for _, rec := range r.Records {
			values[k][counterName[rec.CounterID.Handle]] += rec.Value
		}
	}
	var out []expectedSlice
	all := append(append([]dispatchRecord{}, p.BufferRecords.KernelDispatch...), p.BufferRecords.Replays...)
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.DispatchInfo.DispatchID != b.DispatchInfo.DispatchID {
			return a.DispatchInfo.DispatchID < b.DispatchInfo.DispatchID
		}
		return a.ReplayPass < b.ReplayPass
	})
	firsts := map[uint64]bool{}
	for _, d := range p.BufferRecords.KernelDispatch {
		firsts[d.DispatchInfo.DispatchID] = true
	}
	for i, d := range all {
		di := d.DispatchInfo
		category := "kernel_dispatch_replay"
		if firsts[di.DispatchID] && (i == 0 || all[i-1].DispatchInfo.DispatchID != di.DispatchID) {
			category = "kernel_dispatch"
		}
		passes := 0
		for _, o := range all {
			if o.DispatchInfo.DispatchID == di.DispatchID {
				passes++
			}
		}
		name := kernels[di.KernelID]
		args := map[string]string{"dispatch_id": u(di.DispatchID), "replay_pass": strconv.Itoa(d.ReplayPass),
			"replay_passes": strconv.Itoa(passes), "correlation_id": u(d.CorrelationID.Internal), "kernel_id": u(di.KernelID),
			"queue_id": u(di.QueueID.Handle), "grid[0]": u(di.Grid.X), "grid[1]": u(di.Grid.Y), "grid[2]": u(di.Grid.Z),
			"workgroup[0]": u(di.Workgroup.X), "workgroup[1]": u(di.Workgroup.Y), "workgroup[2]": u(di.Workgroup.Z),
			"thread_id": u(d.ThreadID), "stream_id": u(d.StreamID.Handle), "lds": strconv.FormatInt(di.LDS, 10), "scratch": strconv.FormatInt(di.Scratch, 10)}
		for n, v := range values[key{di.DispatchID, d.ReplayPass}] {
			args["counters."+n] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		out = append(out, expectedSlice{category: category, name: name, queue: "queue " + u(di.QueueID.Handle), agent: u(di.AgentID.Handle),
			start: d.Start, end: d.End, args: args})
	}
	return out
}

func u(v uint64) string { return strconv.FormatUint(v, 10) }
