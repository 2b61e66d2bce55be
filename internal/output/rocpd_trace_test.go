package output

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/records"
	"github.com/gorocprof/gorocprof/internal/rocpd"
)

// rocpdTraceQueries are what the golden file of the traced fixture's database records: the views
// upstream's tools read for API calls, markers and copies, and the dispatches' region names.
var rocpdTraceQueries = []string{
	`SELECT category, name, tid, start, end, duration, stack_id, parent_stack_id, corr_id, extdata
		FROM regions ORDER BY start, stack_id`,
	`SELECT category, name, tid, timestamp, stack_id, parent_stack_id, extdata FROM samples ORDER BY timestamp, stack_id`,
	`SELECT category, name, tid, start, end, duration FROM regions_and_samples ORDER BY start, stack_id`,
	`SELECT category, name, tid, start, end, size, src_agent_abs_index, src_agent_type, dst_agent_abs_index, dst_agent_type,
		src_address, dst_address, queue_name, stream_name, stack_id, parent_stack_id, corr_id FROM memory_copies ORDER BY start`,
	`SELECT dispatch_id, region, name, tid, corr_id, stack_id FROM kernels ORDER BY dispatch_id`,
	`SELECT dispatch_id, kernel_region, counter_name, value FROM counters_collection ORDER BY dispatch_id`,
	`SELECT pid, tid FROM threads ORDER BY tid`,
	`SELECT name, total_calls FROM top ORDER BY name`,
}

// writeTraceDB writes the traced fixture as a rocpd database and returns its path.
func writeTraceDB(t *testing.T, proc *records.Process) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := Write(Options{Dir: dir, File: "4400", Formats: []string{"rocpd"}, KernelTrace: true}, proc, fakeCounters{}); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "4400_results.db")
}

// TestRocpdTraceGolden: the traced fixture's API calls are regions (the HIP compiler call made in
// hipLaunchKernel has it as parent_stack_id), its pushed range is a region with its message, its
// mark a sample on the thread's marker track, its copies rows between the CPU and the GPU agent, the
// dispatch launched in "step 1" has that region and the other none; written twice, the same bytes.
func TestRocpdTraceGolden(t *testing.T) {
	db := writeTraceDB(t, readFixture(t, "4400_trace.ndjson"))
	var text strings.Builder
	for _, q := range rocpdTraceQueries {
		text.WriteString("# " + strings.Join(strings.Fields(q), " ") + "\n")
		for _, r := range queryRows(t, db, q) {
			text.WriteString(strings.Join(r, "|") + "\n")
		}
	}
	compareGolden(t, "rocpd/4400_trace_results.db.txt", []byte(text.String()))
	again := writeTraceDB(t, readFixture(t, "4400_trace.ndjson"))
	a, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(again)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("the same records gave two different databases")
	}
}

func queryRows(t *testing.T, db, q string) [][]string {
	t.Helper()
	rows, err := rocpd.Query(db, q)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// count runs a query whose one row is a number.
func count(t *testing.T, db, q string) int {
	t.Helper()
	rows := queryRows(t, db, q)
	if len(rows) != 1 || len(rows[0]) != 1 {
		t.Fatalf("%s: %v, want one number", q, rows)
	}
	n, err := strconv.Atoi(rows[0][0])
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// TestRocpdTraceRowsJoin pins, with queries of ours on the tables, the joins upstream's views make
// of trace rows (regions, samples, regions_and_samples, memory_copies, kernels and the rocpd
// summary's per-category counts): every record line is one row, every region's and sample's event,
// thread, process and name string exist, every copy's agents, event and thread exist, and each
// category has as many rows as the records have lines of its domain.
func TestRocpdTraceRowsJoin(t *testing.T) {
	proc := readFixture(t, "4400_trace.ndjson")
	db := writeTraceDB(t, proc)
	lines := map[string]int{}
	calls, copies := 0, 0
	if err := proc.EachTrace(func(tr *contract.Trace) error {
		lines[tr.TraceDomain()]++
		if tr.Kind == contract.RecCopy {
			copies++
		} else {
			calls++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		q    string
		want int
	}{
		{`SELECT count(*) FROM rocpd_region`, calls - 1}, // the mark is a sample
		{`SELECT count(*) FROM rocpd_sample`, 1},
		{`SELECT count(*) FROM rocpd_region R JOIN rocpd_event E ON E.id = R.event_id AND E.guid = R.guid
			JOIN rocpd_string S ON S.id = R.name_id AND S.guid = R.guid
			JOIN rocpd_string C ON C.id = E.category_id AND C.guid = E.guid
			JOIN rocpd_info_thread T ON T.id = R.tid AND T.guid = R.guid
			JOIN rocpd_info_process P ON P.id = R.pid AND P.guid = R.guid`, calls - 1},
		{`SELECT count(*) FROM rocpd_sample SA JOIN rocpd_event E ON E.id = SA.event_id AND E.guid = SA.guid
			JOIN rocpd_track K ON K.id = SA.track_id AND K.guid = SA.guid
			JOIN rocpd_string S ON S.id = K.name_id AND S.guid = K.guid
			JOIN rocpd_info_thread T ON T.id = K.tid AND T.guid = K.guid
			JOIN rocpd_info_process P ON P.id = K.pid AND P.guid = K.guid`, 1},
		{`SELECT count(*) FROM rocpd_memory_copy M JOIN rocpd_event E ON E.id = M.event_id AND E.guid = M.guid
			JOIN rocpd_string S ON S.id = M.name_id AND S.guid = M.guid
			JOIN rocpd_info_agent D ON D.id = M.dst_agent_id AND D.guid = M.guid
			JOIN rocpd_info_agent A ON A.id = M.src_agent_id AND A.guid = M.guid
			JOIN rocpd_info_thread T ON T.id = M.tid AND T.guid = M.guid
			JOIN rocpd_info_process P ON P.id = M.pid AND P.guid = M.guid
			LEFT JOIN rocpd_info_queue Q ON Q.id = M.queue_id AND Q.guid = M.guid
			LEFT JOIN rocpd_info_stream ST ON ST.id = M.stream_id AND ST.guid = M.guid
			WHERE Q.id IS NOT NULL AND ST.id IS NOT NULL`, copies},
		{`SELECT count(*) FROM rocpd_kernel_dispatch K JOIN rocpd_string R ON R.id = K.region_name_id AND R.guid = K.guid
			JOIN rocpd_info_queue Q ON Q.id = K.queue_id AND Q.guid = K.guid
			JOIN rocpd_info_thread T ON T.id = K.tid AND T.guid = K.guid`, 2},
		{`SELECT count(*) FROM regions`, calls - 1},
		{`SELECT count(*) FROM samples`, 1},
		{`SELECT count(*) FROM regions_and_samples`, calls},
		{`SELECT count(*) FROM memory_copies`, copies},
		{`SELECT count(*) FROM kernels`, 2},
		// every event is one record line or dispatch
		{`SELECT count(*) FROM rocpd_event`, calls + copies + 2},
	} {
		if got := count(t, db, c.q); got != c.want {
			t.Errorf("%s\n= %d, want %d", strings.Join(strings.Fields(c.q), " "), got, c.want)
		}
	}
	// rocpd summary groups regions_and_samples by category prefix and memory_copies by name.
	for domain, n := range lines {
		q := `SELECT count(*) FROM regions_and_samples WHERE category = '` + domain + `'`
		if domain == contract.DomainMemoryCopy {
			q = `SELECT count(*) FROM memory_copies WHERE category = 'MEMORY_COPY'`
		}
		if got := count(t, db, q); got != n {
			t.Errorf("%s = %d, want %d (the records' %s lines)", q, got, n, domain)
		}
	}
}
