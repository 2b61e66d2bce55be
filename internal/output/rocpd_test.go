package output

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/records"
	"github.com/gorocprof/gorocprof/internal/rocpd"
)

// rocpdGoldenQueries are what the golden file of the rocpd database records: the views users' SQL
// reads, each ordered so the text is deterministic.
var rocpdGoldenQueries = []string{
	`SELECT tag, value FROM rocpd_metadata WHERE tag LIKE 'schema_version%' ORDER BY tag`,
	`SELECT V.hostname, V.pid, V.ppid, V.init, V.fini, V.command, json_extract(P.extdata, '$.gorocprof.dispatches')
		FROM processes V JOIN rocpd_info_process P ON P.id = V.pid`,
	`SELECT id, type, absolute_index, logical_index, type_index, name, product_name, json_extract(extdata, '$.agent_index')
		FROM rocpd_info_agent ORDER BY id`,
	`SELECT id, agent_abs_index, name, block, expression, is_derived FROM pmc_info ORDER BY id`,
	`SELECT id, kernel_name, display_name, formatted_kernel_name, sgpr_count, arch_vgpr_count FROM kernel_symbols ORDER BY id`,
	`SELECT dispatch_id, agent_abs_index, name, queue_id, queue, stream_id, tid, start, end, grid_x, workgroup_x, corr_id
		FROM kernels ORDER BY id`,
	`SELECT dispatch_id, pass, pmc_group, agent_abs_index, kernel_name, queue_id, stream_id, stack_id, start, end
		FROM gorocprof_passes ORDER BY dispatch_id, pass`,
	`SELECT dispatch_id, agent_abs_index, kernel_name, counter_name, value FROM counters_collection
		ORDER BY dispatch_id, counter_name`,
	`SELECT dispatch_id, pass, counter_name, value, start FROM gorocprof_pass_counters ORDER BY dispatch_id, pass, counter_name`,
	`SELECT name, total_calls, total_duration FROM top_kernels ORDER BY name`,
}

// TestRocpdGolden writes the replay fixture as a rocpd database, from memory and streamed: the two
// files are byte-identical, and the views read as the golden file says. Every dispatch is one row,
// SQ_WAVES (in passes 0 and 1) reads pass 0's value in counters_collection, and every pass with its
// own values is in gorocprof_passes and gorocprof_pass_counters.
func TestRocpdGolden(t *testing.T) {
	var first []byte
	for round, proc := range []*records.Process{readFixture(t, "4242.ndjson"), readFixture(t, "4242.ndjson")} {
		dir := t.TempDir()
		paths, err := Write(Options{Dir: dir, File: "node7/4242", Formats: []string{"rocpd"},
			PlanMetadata: planNote{[]string{"gfx90a", "gfx942"}, 3}}, proc, fakeCounters{})
		if err != nil {
			t.Fatal(err)
		}
		want := filepath.Join(dir, "node7", "4242_results.db")
		if len(paths) != 1 || paths[0] != want {
			t.Fatalf("paths = %v, want [%s]", paths, want)
		}
		b, err := os.ReadFile(want)
		if err != nil {
			t.Fatal(err)
		}
		if round == 0 {
			first = b
			var text strings.Builder
			for _, q := range rocpdGoldenQueries {
				rows, err := rocpd.Query(want, q)
				if err != nil {
					t.Fatal(err)
				}
				text.WriteString("# " + strings.Join(strings.Fields(q), " ") + "\n")
				for _, r := range rows {
					text.WriteString(strings.Join(r, "|") + "\n")
				}
			}
			compareGolden(t, "rocpd/4242_results.db.txt", []byte(text.String()))
			continue
		}
		if !bytes.Equal(b, first) {
			t.Errorf("the database streamed differs from the one written from memory (%d and %d bytes)", len(b), len(first))
		}
	}
}

// TestRocpdSeveralProcesses: processes that share a prefix share one database, each process with
// its own rows, and it is renamed into place with the other files (nothing else is left).
func TestRocpdSeveralProcesses(t *testing.T) {
	dir := t.TempDir()
	procs := []*records.Process{readFixture(t, "4242.ndjson"), readFixture(t, "4300.ndjson")}
	paths, err := WriteProcesses(context.Background(), Options{Dir: dir, File: "p", Formats: []string{"rocpd", "csv"},
		KernelTrace: true}, procs, fakeCounters{})
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "p_results.db")
	if !slices.Contains(paths, db) {
		t.Fatalf("paths = %v, want %s among them", paths, db)
	}
	if got := keys(dirFiles(t, dir)); len(got) != len(paths) {
		t.Errorf("the directory holds %v, want the files written alone %v", got, paths)
	}
	rows, err := rocpd.Query(db, `SELECT pid, (SELECT count(*) FROM kernels K WHERE K.guid = P.guid) FROM processes P ORDER BY pid`)
	if err != nil {
		t.Fatal(err)
	}
	var want [][]string
	for _, p := range procs {
		n := 0
		if err := p.EachLogical(func(records.Logical) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		want = append(want, []string{strconv.Itoa(int(p.Header.PID)), strconv.Itoa(n)})
	}
	if !slices.EqualFunc(rows, want, slices.Equal) {
		t.Errorf("processes and their dispatch rows = %v, want %v", rows, want)
	}
}
