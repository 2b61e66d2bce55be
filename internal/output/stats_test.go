package output

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/records"
	"github.com/gorocprof/gorocprof/internal/stats"
)

// TestStatsGolden: --stats times every dispatch once, by its first pass (axpy's dispatch 1 ran
// 90010, 91010 and 92010 ns on its three passes; its row counts 90010), never by the sum.
func TestStatsGolden(t *testing.T) {
	for _, proc := range []*records.Process{readFixture(t, "4242.ndjson"), readFixture(t, "4242.ndjson")} {
		dir := t.TempDir()
		paths, err := Write(Options{Dir: dir, File: "4242", Formats: []string{"csv"}, KernelTrace: true, Stats: true}, proc, fakeCounters{})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(paths); n != 5 {
			t.Fatalf("paths = %v, want agent_info, counter_collection, kernel_trace, kernel_stats, domain_stats", paths)
		}
		for _, name := range []string{"4242_kernel_stats.csv", "4242_domain_stats.csv"} {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			compareGolden(t, "stats/"+name, b)
		}
	}
}

// TestStatsOverSeveralProcesses: processes that share a prefix share the statistics: the domain
// line counts the dispatches of all of them.
func TestStatsOverSeveralProcesses(t *testing.T) {
	dir := t.TempDir()
	procs := []*records.Process{readFixture(t, "4242.ndjson"), readFixture(t, "4300.ndjson")}
	if _, err := WriteProcesses(context.Background(), Options{Dir: dir, File: "p", Formats: []string{"csv"}, KernelTrace: true, Stats: true},
		procs, fakeCounters{}); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, p := range procs {
		if err := p.EachLogical(func(records.Logical) error { want++; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "p_domain_stats.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], fmt.Sprintf(`"KERNEL_DISPATCH",%d,`, want)) {
		t.Errorf("domain_stats.csv =\n%s\nwant one KERNEL_DISPATCH line of %d calls", b, want)
	}
}

// TestStatsSummaryGolden: rocprofv3's summary (-D, a group, -S) of the replay fixture in each unit, as
// the file --summary-output-file names (<prefix>_NAME.txt, no indent) and as printed on the
// terminal once the files are in place (the same lines indented by four spaces). Each dispatch is
// one call timed by its first pass: axpy's dispatch 1 counts 90010 ns, not its three passes' sum.
func TestStatsSummaryGolden(t *testing.T) {
	for _, unit := range stats.Units {
		t.Run(unit, func(t *testing.T) {
			opts := stats.SummaryOptions{Whole: true, PerDomain: true, Groups: []string{"KERNEL_.*|MEMORY_COPY"}, Units: unit}
			dir := t.TempDir()
			paths, err := Write(Options{Dir: dir, File: "4242", Formats: []string{"csv"}, KernelTrace: true,
				Summary: &StatsSummary{SummaryOptions: opts, File: "summary"}}, readFixture(t, "4242.ndjson"), fakeCounters{})
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, "4242_summary.txt")
			if !slices.Contains(paths, file) {
				t.Fatalf("paths = %v, want %s among them", paths, file)
			}
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			compareGolden(t, "stats/summary_"+unit+".txt", b)

			var term bytes.Buffer
			if _, err := Write(Options{Dir: t.TempDir(), File: "4242", Formats: []string{"json"}, KernelTrace: true,
				Summary: &StatsSummary{SummaryOptions: opts, To: &term}}, readFixture(t, "4242.ndjson"), fakeCounters{}); err != nil {
				t.Fatal(err)
			}
			if want := regexp.MustCompile(`(?m)^(.)`).ReplaceAll(b, []byte("    $1")); !bytes.Equal(term.Bytes(), want) {
				t.Errorf("on the terminal:\n%s\nwant the file's lines indented:\n%s", term.Bytes(), want)
			}
		})
	}
}

// TestSummaryMatchesKernelStats: the summary's rows are kernel_stats.csv's of the same write: the
// same names in the same order, calls, total, minimum and maximum, mean and standard deviation to
// the digits the summary prints, and shares that agree.
func TestSummaryMatchesKernelStats(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(Options{Dir: dir, File: "p", Formats: []string{"csv"}, KernelTrace: true, Stats: true,
		Summary: &StatsSummary{SummaryOptions: stats.SummaryOptions{Whole: true}, File: "s"}},
		readFixture(t, "4242.ndjson"), fakeCounters{}); err != nil {
		t.Fatal(err)
	}
	csvRows := readCSV(t, filepath.Join(dir, "p_kernel_stats.csv"))[1:]
	summary, err := os.ReadFile(filepath.Join(dir, "p_s.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, line := range strings.Split(string(summary), "\n") {
		if strings.HasPrefix(line, "| ") && !strings.Contains(line, " NAME ") {
			var cells []string
			for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
				cells = append(cells, strings.TrimSpace(c))
			}
			rows = append(rows, cells)
		}
	}
	if len(rows) != len(csvRows) || len(rows) == 0 {
		t.Fatalf("%d summary rows, %d kernel_stats.csv rows", len(rows), len(csvRows))
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for i, s := range rows {
		c := csvRows[i] // Name,Calls,TotalDurationNs,AverageNs,Percentage,MinNs,MaxNs,StdDev
		same := s[0] == c[0] && s[1] == kernelDomain && s[2] == c[1] && s[3] == c[2] && s[6] == c[5] && s[7] == c[6]
		close := func(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))+1e-9 }
		if !same || !close(num(s[4]), num(c[3]), 1e-3) || !close(num(s[8]), num(c[7]), 1e-3) || !close(num(s[5]), num(c[4]), 1e-2) {
			t.Errorf("summary row %q disagrees with kernel_stats.csv's %q", s, c)
		}
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}
