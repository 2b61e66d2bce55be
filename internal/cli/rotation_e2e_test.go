package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/e2etest"
)

// counterRecord is what the rotation and extra counter tests read of one counter record of results.json.
type counterRecord struct {
	dispatchID, agentID uint64
	replayPass          *int
	group               *int
	counters            []string // sorted names
	values              map[string]float64
}

// readCounterRecords reads every counter record of a one-process results.json, in file order.
func readCounterRecords(t *testing.T, path string) []counterRecord {
	t.Helper()
	doc := e2etest.ReadResults(t, path)
	if len(doc.Tool) != 1 {
		t.Fatalf("%s: %d processes, want 1", path, len(doc.Tool))
	}
	names := map[uint64]string{}
	for _, c := range doc.Tool[0].Counters {
		names[c.ID.Handle] = c.Name
	}
	var out []counterRecord
	for _, r := range doc.Tool[0].CallbackRecords.CounterCollection {
		rec := counterRecord{dispatchID: r.DispatchData.DispatchInfo.DispatchID, agentID: r.DispatchData.DispatchInfo.AgentID.Handle,
			replayPass: r.ReplayPass, group: r.PMCGroup, values: map[string]float64{}}
		for _, s := range r.Records {
			n := names[s.CounterID.Handle]
			if _, seen := rec.values[n]; !seen {
				rec.counters = append(rec.counters, n)
			}
			rec.values[n] += s.Value
		}
		sort.Strings(rec.counters)
		out = append(out, rec)
	}
	return out
}

// runRotation profiles app with an input file holding one job (its YAML text) and returns the
// counter records of results.json.
func runRotation(t *testing.T, job string, app ...string) []counterRecord {
	t.Helper()
	dir := t.TempDir()
	input := filepath.Join(dir, "rotate.yaml")
	if err := os.WriteFile(input, []byte("jobs:\n"+job), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	execute(t, append([]string{"-i", input, "--backend", "sim", "--quiet", "-d", out, "-o", "run", "-f", "json", "--"}, app...))
	return readCounterRecords(t, filepath.Join(out, "run_results.json"))
}

// The rotation groups of these tests, as results.json names their counters (sorted).
var rotationGroups = [][]string{{"SQ_WAVES"}, {"GRBM_COUNT", "SQ_INSTS_VALU"}, {"SQ_INSTS_SALU"}}

const rotationJob = `  - pmc_groups: [[SQ_WAVES], [SQ_INSTS_VALU, GRBM_COUNT], [SQ_INSTS_SALU]]
    pmc_group_interval: 2
`

// Dispatch k (from 1) of an agent collects group ((k-1)/interval) mod G, and nothing else: one
// counter record per dispatch, replay_pass 0 as in any run without replay, pmc_group naming it.
func TestRotationDispatchKCollectsItsGroup(t *testing.T) {
	clearEnv(t)
	root := e2etest.Require(t, "sim-many")
	const dispatches = 13
	recs := runRotation(t, rotationJob, filepath.Join(root, "bin", "sim-many"), fmt.Sprint(dispatches))
	if len(recs) != dispatches {
		t.Fatalf("%d counter records, want one per dispatch (%d)", len(recs), dispatches)
	}
	for i, r := range recs {
		want := (i / 2) % len(rotationGroups)
		if r.dispatchID != uint64(i+1) {
			t.Errorf("record %d: dispatch %d, want %d", i, r.dispatchID, i+1)
		}
		if r.replayPass == nil || *r.replayPass != 0 {
			t.Errorf("dispatch %d: replay_pass %v, want 0", r.dispatchID, r.replayPass)
		}
		if r.group == nil || *r.group != want {
			t.Errorf("dispatch %d: pmc_group %v, want %d", r.dispatchID, r.group, want)
		}
		if !slices.Equal(r.counters, rotationGroups[want]) {
			t.Errorf("dispatch %d: counters %v, want group %d's %v", r.dispatchID, r.counters, want, rotationGroups[want])
		}
	}
}

// Each agent counts its own dispatches: sim-many's two threads launch on one agent each, their
// dispatch ids interleaved, and each agent's k-th dispatch collects the same group.
func TestRotationCountsPerAgent(t *testing.T) {
	clearEnv(t)
	root := e2etest.Require(t, "sim-many")
	t.Setenv("GOROCPROF_SIM_AGENTS", "gfx90a,gfx942")
	const perAgent = 9
	recs := runRotation(t, rotationJob, filepath.Join(root, "bin", "sim-many"), fmt.Sprint(2*perAgent), "--threads", "2")
	byAgent := map[uint64][]counterRecord{}
	for _, r := range recs {
		byAgent[r.agentID] = append(byAgent[r.agentID], r)
	}
	if len(byAgent) != 2 {
		t.Fatalf("records on %d agents, want 2", len(byAgent))
	}
	for agent, rs := range byAgent {
		sort.Slice(rs, func(i, j int) bool { return rs[i].dispatchID < rs[j].dispatchID })
		if len(rs) != perAgent {
			t.Errorf("agent %d: %d records, want %d", agent, len(rs), perAgent)
		}
		var got []string
		for k, r := range rs {
			want := (k / 2) % len(rotationGroups)
			if r.group == nil || *r.group != want || !slices.Equal(r.counters, rotationGroups[want]) {
				t.Errorf("agent %d, its dispatch %d (id %d): group %v counters %v, want group %d %v",
					agent, k+1, r.dispatchID, r.group, r.counters, want, rotationGroups[want])
			}
			got = append(got, fmt.Sprint(r.dispatchID))
		}
		t.Logf("agent %d: dispatch ids %s", agent, strings.Join(got, " "))
	}
}
