package replay

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/e2etest"
)

// needBuiltTool is the simulated agents' build, or a skip (a failure under make test).
func needBuiltTool(t *testing.T) string { return e2etest.Require(t) }

// TestKernelReplayFiveGroups is the acceptance test of kernel replay on the simulated agents: five
// groups that share two counters and add one each, one run of the app.
func TestKernelReplayFiveGroups(t *testing.T) {
	root := needBuiltTool(t)
	shared := []string{"SQ_INSTS_VALU", "SQ_WAVES"}
	unique := []string{"GRBM_GUI_ACTIVE", "SQ_INSTS_LDS", "SQ_INSTS_SALU", "SQ_INSTS_SMEM", "SQ_WAIT_INST_ANY"}
	var pmc []string
	for _, u := range unique {
		pmc = append(pmc, fmt.Sprintf("%s %s %s", shared[0], shared[1], u))
	}
	groups, err := counters.ParseGroups(pmc)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	res, err := Run(context.Background(), Request{
		Backend: "auto", Groups: groups, Mode: contract.ModeKernel,
		OutputDir: out, OutputFile: "run", Formats: []string{"json", "csv"},
		App: filepath.Join(root, "bin", "sim-demo"), Stdout: &stdout, Stderr: &stderr,
	})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("run: exit %d, err %v\nstdout:\n%s\nstderr:\n%s", res.ExitCode, err, stdout.String(), stderr.String())
	}
	rf := e2etest.ReadResults(t, filepath.Join(out, "run_results.json"))
	if len(rf.Tool) != 1 {
		t.Fatalf("%d processes in results.json, want 1", len(rf.Tool))
	}
	proc := rf.Tool[0]
	if len(proc.Agents) < 2 {
		t.Fatalf("%d agents, want the two default simulated agents", len(proc.Agents))
	}
	counterName := map[uint64]string{}
	for _, c := range proc.Counters {
		counterName[c.ID.Handle] = c.Name
	}

	type passValues map[string]float64 // counter -> value summed over instances
	byDispatch := map[uint64]map[int]passValues{}
	for _, r := range proc.CallbackRecords.CounterCollection {
		id := r.DispatchData.DispatchInfo.DispatchID
		if r.ReplayPass == nil {
			t.Fatalf("dispatch %d: counter record without replay_pass", id)
		}
		if byDispatch[id] == nil {
			byDispatch[id] = map[int]passValues{}
		}
		if _, dup := byDispatch[id][*r.ReplayPass]; dup {
			t.Fatalf("dispatch %d: pass %d appears twice", id, *r.ReplayPass)
		}
		vals := passValues{}
		for _, rec := range r.Records {
			vals[counterName[rec.CounterID.Handle]] += rec.Value
		}
		byDispatch[id][*r.ReplayPass] = vals
	}
	if len(byDispatch) == 0 {
		t.Fatal("no counter records")
	}
	ids := make([]uint64, 0, len(byDispatch))
	for id := range byDispatch {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for i, id := range ids {
		if id != uint64(i+1) {
			t.Fatalf("dispatch ids not contiguous from 1: position %d holds %d", i, id)
		}
		passes := byDispatch[id]
		if len(passes) != len(unique) {
			t.Fatalf("dispatch %d has %d passes, want %d (one per group)", id, len(passes), len(unique))
		}
		for p := 0; p < len(unique); p++ {
			vals, ok := passes[p]
			if !ok {
				t.Fatalf("dispatch %d: pass %d missing", id, p)
			}
			want := append(append([]string{}, shared...), unique[p])
			sort.Strings(want)
			got := make([]string, 0, len(vals))
			for n := range vals {
				got = append(got, n)
			}
			sort.Strings(got)
			if !slices.Equal(got, want) {
				t.Fatalf("dispatch %d pass %d holds %v, want exactly its group %v", id, p, got, want)
			}
			for _, s := range shared {
				if vals[s] != passes[0][s] {
					t.Fatalf("dispatch %d: shared counter %s is %v on pass %d but %v on pass 0", id, s, vals[s], p, passes[0][s])
				}
			}
		}
	}
	if !bytes.Contains(stderr.Bytes(), []byte("GOROCPROF KERNEL SUMMARY")) || bytes.Contains(stdout.Bytes(), []byte("GOROCPROF KERNEL SUMMARY")) {
		t.Errorf("summary table not on stderr alone:\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
}
