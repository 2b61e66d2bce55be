package output

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/golden"
	"github.com/gorocprof/gorocprof/internal/stats"

	"github.com/gorocprof/gorocprof/internal/records"
)

func readFixture(t *testing.T, name string) *records.Process {
	t.Helper()
	p, err := records.ReadProcess(filepath.Join("testdata", "records", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// compareGolden checks got against testdata/golden/name, or rewrites it under -update.
func compareGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", "golden", name), got)
}

type planNote struct {
	Agents []string `json:"agents"`
	Passes int      `json:"passes"`
}

func TestWriteGolden(t *testing.T) {
	tests := []struct {
		name    string
		fixture string
		opts    Options
		cs      Counters
	}{
		{"kernel_replay", "4242.ndjson", Options{File: "node7/4242", Formats: []string{"json", "csv"},
			KernelTrace: true, PlanMetadata: planNote{[]string{"gfx90a", "gfx942"}, 3}}, fakeCounters{}},
		{"truncated_names", "4242.ndjson", Options{File: "4242", Formats: []string{"csv"}, Truncate: true}, fakeCounters{}},
		{"crashed_mangled", "4300.ndjson", Options{File: "4300", Formats: []string{"csv", "json"}, Mangled: true,
			Command: []string{"./bin/sim-worker", "--from-cli"}}, fakeCounters{}},
		{"trace_only", "4300.ndjson", Options{File: "4300", Formats: []string{"json", "csv"}, KernelTrace: true}, nil},
		// API calls, markers and copies beside a dispatch: every trace file, its stats and the summaries
		// (rocprofv3's summary test's groups), with the CPU agent (id 0) the copies' host side.
		{"traced", "5100_traced.ndjson", Options{File: "5100", Formats: []string{"json", "csv"}, KernelTrace: true, Stats: true,
			TraceDomains: []string{"HIP_COMPILER_API", "HIP_RUNTIME_API", "MARKER_CORE_RANGE_API", "MEMORY_COPY"},
			Summary: &StatsSummary{SummaryOptions: stats.SummaryOptions{Whole: true, PerDomain: true,
				Groups: []string{"KERNEL_DISPATCH|MEMORY_COPY", ".*_API"}}, File: "summary"}}, fakeCounters{}},
		// The copies' agents as --agent-index type-relative names them; no kernel trace: no kernel_trace.csv,
		// kernel_stats.csv nor KERNEL_DISPATCH row.
		{"traced_type_relative", "5100_traced.ndjson", Options{File: "5100", Formats: []string{"csv"}, Stats: true,
			AgentIndex: "type-relative"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Two rounds over one process: its dispatches, decoded once, stream again with the same bytes.
			proc := readFixture(t, tc.fixture)
			procs := []*records.Process{proc, proc}
			var first map[string][]byte
			for round, proc := range procs {
				files := writeFiles(t, tc.opts, proc, tc.cs)
				if round == 0 {
					first = files
					continue
				}
				if len(files) != len(first) {
					t.Errorf("the second round wrote %d files, the first %d", len(files), len(first))
				}
				for rel, b := range files {
					if !bytes.Equal(b, first[rel]) {
						t.Errorf("%s differs between the rounds:\n%s", rel, golden.Diff(string(first[rel]), string(b)))
					}
				}
			}
			if len(first) == 0 {
				t.Fatal("Write produced no files")
			}
			for rel, b := range first {
				compareGolden(t, tc.name+"/"+filepath.Base(rel), b)
			}
		})
	}
}

// TestSummaryGolden: one row per kernel and agent (a dispatch on gfx942 is never averaged with
// gfx90a's), names as -T/-M give them, and a mean over fewer calls than CALLS says how many.
func TestSummaryGolden(t *testing.T) {
	tests := []struct {
		golden   string
		fixtures []string
		cs       Counters
		names    SummaryNames
		columns  string // $COLUMNS: the width the table must fit, "" for none
	}{
		{"summary.txt", []string{"4242.ndjson", "4300.ndjson"}, fakeCounters{}, SummaryNames{}, ""},
		{"summary_trace_only.txt", []string{"4300.ndjson"}, nil, SummaryNames{}, ""},
		{"summary_truncated.txt", []string{"4242.ndjson"}, fakeCounters{}, SummaryNames{Truncate: true}, ""},
		{"summary_mangled.txt", []string{"4242.ndjson"}, fakeCounters{}, SummaryNames{Mangled: true, Truncate: true}, ""},
		// The kernel column is cut to fit, never below its narrowest, with a note naming -T.
		{"summary_cut.txt", []string{"4242.ndjson", "4300.ndjson"}, fakeCounters{}, SummaryNames{}, "150"},
		{"summary_cut_narrow.txt", []string{"4242.ndjson", "4300.ndjson"}, fakeCounters{}, SummaryNames{}, "40"},
		{"summary_fits.txt", []string{"4242.ndjson"}, fakeCounters{}, SummaryNames{Truncate: true}, "150"},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			t.Setenv("COLUMNS", tc.columns)
			var read []*records.Process
			for _, f := range tc.fixtures {
				read = append(read, readFixture(t, f))
			}
			for _, procs := range [][]*records.Process{read, read} {
				var b bytes.Buffer
				if err := Summary(&b, procs, tc.cs, tc.names); err != nil {
					t.Fatal(err)
				}
				compareGolden(t, tc.golden, b.Bytes())
			}
		})
	}
}

// The summary's AGENT column is the agent's number in the files (its logical node id, Agent_Id's
// number by default), not its node id, which differs when a node is masked.
func TestSummaryAgentNumber(t *testing.T) {
	p := readFixture(t, "4242.ndjson")
	for i := range p.Agents {
		if p.Agents[i].Name == "gfx942" {
			p.Agents[i].Props["node_id"] = 7 // its logical node id stays 2
		}
	}
	var b bytes.Buffer
	if err := Summary(&b, []*records.Process{p}, fakeCounters{}, SummaryNames{}); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "| 2 gfx942 |") || strings.Contains(out, "7 gfx942") {
		t.Errorf("summary names the gfx942 by its node id, want its number 2:\n%s", out)
	}
}
