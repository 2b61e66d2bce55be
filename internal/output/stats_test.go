package output

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/records"
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
