package output

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/perfetto"
	"github.com/gorocprof/gorocprof/internal/records"
	"github.com/gorocprof/gorocprof/internal/rocpd"
)

// rotatedFixture is the replay fixture as a rotation run records it: one line per dispatch, its pass
// the one the rotation chose (here pass (id-1) mod 3, where the dispatch has it).
func rotatedFixture(t *testing.T) *records.Process {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "records", "4242.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.SplitAfter(string(data), "\n") {
		var d struct {
			T          string `json:"t"`
			DispatchID int    `json:"dispatch_id"`
			Pass       int    `json:"pass"`
		}
		if json.Unmarshal([]byte(line), &d) == nil && d.T == "dispatch" && d.Pass != (d.DispatchID-1)%3 {
			continue
		}
		kept = append(kept, line)
	}
	path := filepath.Join(t.TempDir(), "4242.ndjson")
	if err := os.WriteFile(path, []byte(strings.Join(kept, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := records.ReadProcess(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Under rotation a record's pass is the agent's pass the dispatch collected: results.json says
// replay_pass 0 (nothing was replayed) and the pass's group as pmc_group, and its metadata the
// interval; the kernel trace replay_pass 0; the rocpd database no replay_pass but the group as
// extdata's pmc_group; the Perfetto trace one slice per dispatch, its group the pmc_group argument.
// Without Options.Rotation the same records read as passes.
func TestRotationRecords(t *testing.T) {
	// The groups differ from the pass indexes, so that pmc_group is seen to be the plan's group.
	groups := []int{0, 2, 1}
	var plan []contract.PlanAgent
	for _, index := range []int{0, 1} {
		a := contract.PlanAgent{Index: index}
		for _, g := range groups {
			a.Passes = append(a.Passes, contract.PlanPass{Group: g})
		}
		plan = append(plan, a)
	}
	for _, rotation := range []bool{true, false} {
		opts := Options{Dir: t.TempDir(), File: "run", Formats: []string{"json", "rocpd", "pftrace"}, KernelTrace: true}
		if rotation {
			opts.Rotation = &Rotation{Interval: 4, Plan: plan}
		}
		if _, err := Write(opts, rotatedFixture(t), fakeCounters{}); err != nil {
			t.Fatal(err)
		}
		doc := readRotatedResults(t, filepath.Join(opts.Dir, "run_results.json"))
		if interval := doc.Tool[0].Metadata.Gorocprof.Interval; rotation != (interval != nil && *interval == 4) {
			t.Errorf("rotation %v: metadata.gorocprof.pmc_group_interval %v", rotation, interval)
		}
		checkRotatedDatabase(t, filepath.Join(opts.Dir, "run_results.db"), rotation, groups)
		checkRotatedTrace(t, filepath.Join(opts.Dir, "run_results.pftrace"), rotation, groups)
		recs := doc.Tool[0].CallbackRecords.CounterCollection
		if len(recs) != 5 { // dispatches 1, 2, 3, 5 and 7: the fixture's dispatch 6 has no pass 2
			t.Fatalf("%d counter records, want one per dispatch (5)", len(recs))
		}
		for _, r := range recs {
			pass := (r.DispatchData.DispatchInfo.DispatchID - 1) % 3
			switch {
			case rotation && (r.ReplayPass != 0 || r.PMCGroup == nil || *r.PMCGroup != groups[pass]):
				t.Errorf("rotation: dispatch %d: replay_pass %d pmc_group %v, want 0 and %d",
					r.DispatchData.DispatchInfo.DispatchID, r.ReplayPass, r.PMCGroup, groups[pass])
			case !rotation && (r.ReplayPass != pass || r.PMCGroup != nil):
				t.Errorf("no rotation: dispatch %d: replay_pass %d pmc_group %v, want %d and none",
					r.DispatchData.DispatchInfo.DispatchID, r.ReplayPass, r.PMCGroup, pass)
			}
		}
		replayed := 0
		for _, k := range doc.Tool[0].BufferRecords.KernelDispatch {
			if k.ReplayPass != 0 {
				replayed++
			}
		}
		rows, err := rocpd.Query(filepath.Join(opts.Dir, "run_results.db"),
			`SELECT count(*) FROM gorocprof_passes WHERE pass <> 0`)
		if err != nil {
			t.Fatal(err)
		}
		if rotation && (replayed != 0 || rows[0][0] != "0") {
			t.Errorf("rotation: %d kernel trace records and %s database rows have a replay pass, want none", replayed, rows[0][0])
		}
		if !rotation && (replayed == 0 || rows[0][0] == "0") {
			t.Errorf("no rotation: %d kernel trace records and %s database rows have a replay pass, want some", replayed, rows[0][0])
		}
	}
}

// checkRotatedDatabase: under rotation every dispatch row's extdata names its group (pass p
// collected groups[p], pass (id-1) mod 3 in the fixture), and no row has one otherwise.
func checkRotatedDatabase(t *testing.T, db string, rotation bool, groups []int) {
	t.Helper()
	rows, err := rocpd.Query(db, `SELECT dispatch_id, json_extract(extdata, '$.pmc_group') FROM rocpd_kernel_dispatch ORDER BY dispatch_id`)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		id, _ := strconv.Atoi(r[0])
		want := "NULL"
		if rotation {
			want = strconv.Itoa(groups[(id-1)%3])
		}
		if r[1] != want {
			t.Errorf("rotation %v: database dispatch %d: pmc_group %q, want %q", rotation, id, r[1], want)
		}
	}
}

// checkRotatedTrace: under rotation a dispatch is one slice named by its kernel alone, with
// replay_pass 0 of 1 and its group as pmc_group; otherwise the passes are named and have no group.
func checkRotatedTrace(t *testing.T, path string, rotation bool, groups []int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := perfetto.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range tr.Slices {
		idText, _ := s.Arg("dispatch_id")
		id, _ := strconv.Atoi(idText)
		group, hasGroup := s.Arg("pmc_group")
		pass, _ := s.Arg("replay_pass")
		passes, _ := s.Arg("replay_passes")
		named := strings.Contains(s.Name, "[pass ")
		if rotation && (!hasGroup || group != strconv.Itoa(groups[(id-1)%3]) || pass != "0" || passes != "1" || named) {
			t.Errorf("rotation: slice %q of dispatch %d: pmc_group %q, replay_pass %s of %s", s.Name, id, group, pass, passes)
		}
		if !rotation && hasGroup {
			t.Errorf("no rotation: slice %q of dispatch %d has pmc_group %s", s.Name, id, group)
		}
	}
}

// rotatedResults is what TestRotationRecords reads of a results.json.
type rotatedResults struct {
	Tool []struct {
		Metadata struct {
			Gorocprof struct {
				Interval *int `json:"pmc_group_interval"`
			} `json:"gorocprof"`
		} `json:"metadata"`
		CallbackRecords struct {
			CounterCollection []struct {
				DispatchData struct {
					DispatchInfo struct {
						DispatchID int `json:"dispatch_id"`
					} `json:"dispatch_info"`
				} `json:"dispatch_data"`
				ReplayPass int  `json:"replay_pass"`
				PMCGroup   *int `json:"pmc_group"`
			} `json:"counter_collection"`
		} `json:"callback_records"`
		BufferRecords struct {
			KernelDispatch []struct {
				ReplayPass int `json:"replay_pass"`
			} `json:"kernel_dispatch"`
		} `json:"buffer_records"`
	} `json:"rocprofiler-sdk-tool"`
}

func readRotatedResults(t *testing.T, path string) rotatedResults {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc rotatedResults
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.Tool) != 1 {
		t.Fatalf("results.json: %v", err)
	}
	return doc
}
