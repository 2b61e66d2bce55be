package merge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/e2etest"
	"github.com/gorocprof/gorocprof/internal/replay"
	"github.com/gorocprof/gorocprof/internal/rocpd"
)

const ranks = 4

// runRanks profiles sim-demo once per rank, as mpirun would start it (OMPI_COMM_WORLD_RANK set),
// each into out/<rank>/run_* in every format, kernel trace included.
func runRanks(t *testing.T) {
	root := e2etest.Require(t)
	groups, err := counters.ParseGroups([]string{"SQ_WAVES SQ_INSTS_VALU", "SQ_WAVES GRBM_GUI_ACTIVE Wavefronts"})
	if err != nil {
		t.Fatal(err)
	}
	for r := range ranks {
		t.Setenv("OMPI_COMM_WORLD_RANK", strconv.Itoa(r))
		var stdout, stderr bytes.Buffer
		res, err := replay.Run(context.Background(), replay.Request{Backend: "sim", Groups: groups, Mode: contract.ModeKernel,
			KernelTrace: true, OutputDir: "out", OutputFile: "%rank%/run", Formats: []string{"json", "csv", "rocpd"},
			App: filepath.Join(root, "bin", "sim-demo"), Stdout: &stdout, Stderr: &stderr})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("rank %d: exit %d, %v\n%s", r, res.ExitCode, err, stderr.String())
		}
	}
}

func mergeInto(t *testing.T, file string, inputs ...string) string {
	t.Helper()
	var stderr bytes.Buffer // the summary table's
	if _, err := Run(context.Background(), Request{Inputs: inputs, OutputDir: "m", OutputFile: file,
		Formats: []string{"json", "csv", "rocpd"}, Stderr: &stderr}); err != nil {
		t.Fatalf("merge %v: %v", inputs, err)
	}
	return stderr.String()
}

// TestMergeRanks merges four ranks' results: every dispatch pass of every rank is in the merged
// results.json once, with the rank's values, and no id of one rank's is another's; the inputs in
// another order, and the ranks' databases instead of their results.json, give the same files.
func TestMergeRanks(t *testing.T) {
	t.Chdir(t.TempDir())
	runRanks(t)
	var dirs, jsons, dbs []string
	for r := range ranks {
		dirs = append(dirs, fmt.Sprintf("out/%d/", r))
		jsons = append(jsons, fmt.Sprintf("out/%d/run_results.json", r))
		dbs = append(dbs, fmt.Sprintf("out/%d/run_results.db", r))
	}
	summary := mergeInto(t, "dirs", dirs...)
	slices.Reverse(jsons)
	slices.Reverse(dbs)
	mergeInto(t, "reversed", jsons...)
	mergeInto(t, "db", dbs...)

	var want []passKey
	var calls int
	metadata := map[int64]string{} // by pid
	for r := range ranks {
		els := readResults(t, fmt.Sprintf("out/%d/run_results.json", r))
		want = append(want, passesOf(t, els[0], 0)...)
		calls += len(els[0].dispatchIDs())
		metadata[els[0].Metadata.PID] = string(els[0].Raw["metadata"])
	}
	merged := readResults(t, "m/dirs_results.json")
	if len(merged) != ranks {
		t.Fatalf("merged results.json has %d elements, want one per rank (%d)", len(merged), ranks)
	}
	for _, el := range merged {
		if got := string(el.Raw["metadata"]); got != metadata[el.Metadata.PID] {
			t.Errorf("pid %d: merged metadata (its plan included)\n%s\nis not the rank's\n%s", el.Metadata.PID, got, metadata[el.Metadata.PID])
		}
	}
	var got []passKey
	owner := map[uint64]int64{} // merged dispatch id -> pid
	for _, el := range merged {
		ids := el.dispatchIDs()
		for _, id := range ids {
			if pid, ok := owner[id]; ok {
				t.Errorf("dispatch id %d is used by pids %d and %d", id, pid, el.Metadata.PID)
			}
			owner[id] = el.Metadata.PID
		}
		// Each rank's ids are contiguous from 1; the merged ones are shifted by what precedes.
		got = append(got, passesOf(t, el, ids[0]-1)...)
	}
	slices.SortFunc(want, comparePass)
	slices.SortFunc(got, comparePass)
	if !slices.Equal(got, want) {
		t.Errorf("merged dispatch passes differ from the ranks': %d merged, %d in the ranks", len(got), len(want))
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("first difference: merged %+v, rank %+v", got[i], want[i])
			}
		}
	}
	if len(owner) != calls {
		t.Errorf("merged result has %d dispatch ids, the ranks %d dispatches", len(owner), calls)
	}
	checkSummaryCalls(t, summary, calls)
	checkDatabase(t, "m/dirs_results.db", len(want))

	for _, f := range []string{"_results.json", "_counter_collection.csv", "_kernel_trace.csv", "_agent_info.csv", "_results.db"} {
		if !bytes.Equal(readBytes(t, "m/dirs"+f), readBytes(t, "m/reversed"+f)) {
			t.Errorf("%s: the inputs in reverse order give other bytes", f)
		}
	}
	for _, f := range []string{"_results.json", "_counter_collection.csv", "_kernel_trace.csv", "_agent_info.csv", "_results.db"} {
		if !bytes.Equal(readBytes(t, "m/dirs"+f), readBytes(t, "m/db"+f)) {
			t.Errorf("%s: merging the databases gives other bytes than merging the results.json files", f)
		}
	}
}

// passKey is one dispatch pass as the comparison sees it: its pid, its id within its process,
// its pass, kernel and counter values.
type passKey struct {
	pid      int64
	dispatch uint64
	pass     int
	kernel   string
	values   string // counter=value;... in record order
}

func comparePass(a, b passKey) int {
	if a.pid != b.pid {
		return int(a.pid - b.pid)
	}
	if a.dispatch != b.dispatch {
		return int(a.dispatch) - int(b.dispatch)
	}
	return a.pass - b.pass
}

type resultsElement struct {
	Raw      map[string]json.RawMessage `json:"-"`
	Metadata struct {
		PID      int64  `json:"pid"`
		Hostname string `json:"hostname"`
	} `json:"metadata"`
	Counters []struct {
		ID   handleJSON `json:"id"`
		Name string     `json:"name"`
	} `json:"counters"`
	Kernels []struct {
		ID   uint64 `json:"kernel_id"`
		Name string `json:"kernel_name"`
	} `json:"kernel_symbols"`
	Callback struct {
		Counters []struct {
			Data struct {
				Info struct {
					DispatchID uint64 `json:"dispatch_id"`
					KernelID   uint64 `json:"kernel_id"`
				} `json:"dispatch_info"`
			} `json:"dispatch_data"`
			Records []struct {
				ID    handleJSON `json:"counter_id"`
				Value *float64   `json:"value"`
			} `json:"records"`
			Pass int `json:"replay_pass"`
		} `json:"counter_collection"`
	} `json:"callback_records"`
}

func (el resultsElement) dispatchIDs() []uint64 {
	var ids []uint64
	for _, r := range el.Callback.Counters {
		ids = append(ids, r.Data.Info.DispatchID)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

func readResults(t *testing.T, path string) []resultsElement {
	t.Helper()
	var doc struct {
		Elements []resultsElement `json:"rocprofiler-sdk-tool"`
	}
	var raw struct {
		Elements []map[string]json.RawMessage `json:"rocprofiler-sdk-tool"`
	}
	for _, v := range []any{&doc, &raw} {
		if err := json.Unmarshal(readBytes(t, path), v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	for i := range doc.Elements {
		doc.Elements[i].Raw = raw.Elements[i]
	}
	return doc.Elements
}

// passesOf lists an element's counter records, dispatch ids less shift, counters and kernels by
// name.
func passesOf(t *testing.T, el resultsElement, shift uint64) []passKey {
	names, kernels := map[uint64]string{}, map[uint64]string{}
	for _, c := range el.Counters {
		names[c.ID.Handle] = c.Name
	}
	for _, k := range el.Kernels {
		kernels[k.ID] = k.Name
	}
	var out []passKey
	for _, r := range el.Callback.Counters {
		var vals strings.Builder
		for _, v := range r.Records {
			fmt.Fprintf(&vals, "%s=%v;", names[v.ID.Handle], *v.Value)
		}
		k, ok := kernels[r.Data.Info.KernelID]
		if !ok {
			t.Errorf("pid %d dispatch %d: kernel id %d is not in kernel_symbols", el.Metadata.PID, r.Data.Info.DispatchID, r.Data.Info.KernelID)
		}
		out = append(out, passKey{el.Metadata.PID, r.Data.Info.DispatchID - shift, r.Pass, k, vals.String()})
	}
	return out
}

// checkSummaryCalls adds up the CALLS column of the summary table.
func checkSummaryCalls(t *testing.T, summary string, want int) {
	t.Helper()
	row := regexp.MustCompile(`(?m)^\|[^|]+\|[^|]+\|\s*(\d+)\s*\|`)
	total := 0
	for _, m := range row.FindAllStringSubmatch(summary, -1) {
		n, _ := strconv.Atoi(m[1])
		total += n
	}
	if total != want {
		t.Errorf("the summary counts %d calls, the ranks made %d:\n%s", total, want, summary)
	}
}

// checkDatabase asks the merged database for its processes and passes: one process row per rank,
// every pass a kernels row, dispatch ids apart across processes.
func checkDatabase(t *testing.T, path string, counterPasses int) {
	t.Helper()
	for _, tc := range []struct {
		what, query string
		want        []string
	}{
		// A GUID per process: upstream's per-rank summaries group by it.
		{"processes, their GUIDs, pids of kernels, dispatch ids shared by pids", `SELECT (SELECT count(*) FROM processes),
			(SELECT count(DISTINCT guid) FROM processes), count(DISTINCT pid),
			(SELECT count(*) FROM (SELECT dispatch_id FROM kernels GROUP BY dispatch_id HAVING count(DISTINCT pid) > 1))
			FROM kernels`, []string{strconv.Itoa(ranks), strconv.Itoa(ranks), strconv.Itoa(ranks), "0"}},
		{"agent rows sharing an absolute index within a GUID and node", `SELECT count(*) FROM (SELECT 1 FROM rocpd_info_agent
			GROUP BY guid, nid, absolute_index HAVING count(*) > 1)`, []string{"0"}},
		{"passes with counters", `SELECT count(*) FROM (SELECT DISTINCT guid, dispatch_id, pass FROM gorocprof_pass_counters)`,
			[]string{strconv.Itoa(counterPasses)}},
	} {
		rows, err := rocpd.Query(path, tc.query)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rows[0], tc.want) {
			t.Errorf("%s: %v, want %v", tc.what, rows[0], tc.want)
		}
	}
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
