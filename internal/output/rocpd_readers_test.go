package output

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/records"
	"github.com/gorocprof/gorocprof/internal/rocpd"
)

// The SQL of rocprofv3's rocpd readers, on the tables a database has (not on its own views, which
// the rocpd tools replace with theirs): counters_collection adds up the rocpd_pmc_event rows of a
// dispatch and counter; top_kernels, top, busy and the rocpd summaries count and time the
// rocpd_kernel_dispatch rows of a kernel; the per-rank summaries group by GUID.
const (
	upstreamCounterSums = `SELECT K.pid, K.dispatch_id, PI.name, SUM(PE.value) FROM rocpd_pmc_event PE
		INNER JOIN rocpd_info_pmc PI ON PI.id = PE.pmc_id AND PI.guid = PE.guid
		INNER JOIN rocpd_kernel_dispatch K ON K.event_id = PE.event_id AND K.guid = PE.guid
		GROUP BY PE.guid, K.dispatch_id, PI.name, K.agent_id`
	upstreamKernelCalls = `SELECT S.display_name, COUNT(K.kernel_id), SUM(K.end - K.start) FROM rocpd_kernel_dispatch K
		INNER JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid GROUP BY S.display_name`
)

// csvByHeader reads a CSV file into maps by column name.
func csvByHeader(t *testing.T, path string) []map[string]string {
	t.Helper()
	rows := readCSV(t, path)
	var out []map[string]string
	for _, r := range rows[1:] {
		m := map[string]string{}
		for i, h := range rows[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

// realText prints a value as the database's text of a REAL does after normalising: no fraction
// digits for a whole number.
func realText(t *testing.T, s string) string {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// queryMap runs a query whose last column is the value and the others the key.
func queryMap(t *testing.T, db, q string) map[string]string {
	t.Helper()
	rows, err := rocpd.Query(db, q)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range rows {
		key := strings.Join(r[:len(r)-1], "|")
		if _, dup := out[key]; dup {
			t.Errorf("%s: two rows for %s", q, key)
		}
		out[key] = realText(t, r[len(r)-1])
	}
	return out
}

func compareMaps(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if !maps.Equal(got, want) {
		keys := slices.Sorted(maps.Keys(want))
		for _, k := range keys {
			if got[k] != want[k] {
				t.Errorf("%s: %s: database %q, CSV %q", what, k, got[k], want[k])
				break
			}
		}
		t.Errorf("%s: %d rows in the database, %d in the CSV files", what, len(got), len(want))
	}
}

// TestRocpdUpstreamReadsCSVNumbers writes the replay fixture (dispatches of three passes, SQ_WAVES
// in two of them) as CSV files and a database, and reads the database as rocprofv3's readers do:
// each counter of a dispatch sums to the value of the first pass that measured it in
// counter_collection.csv, never to a sum of passes; each kernel has the calls and total time of
// kernel_stats.csv (a dispatch is one call, timed by its first pass); every pass's values are still
// there (gorocprof_pass_counters holds every CSV row); and queue and stream ids are kernel_trace.csv's.
func TestRocpdUpstreamReadsCSVNumbers(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(Options{Dir: dir, File: "p", Formats: []string{"csv", "rocpd"}, KernelTrace: true, Stats: true},
		readFixture(t, "4242.ndjson"), fakeCounters{}); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "p_results.db")
	first, every := map[string]string{}, map[string]string{}
	for _, r := range csvByHeader(t, filepath.Join(dir, "p_counter_collection.csv")) {
		key := r["Process_Id"] + "|" + r["Dispatch_Id"] + "|" + r["Counter_Name"]
		if _, ok := first[key]; !ok { // the rows of a dispatch come in pass order
			first[key] = realText(t, r["Counter_Value"])
		}
		every[key+"|"+r["Start_Timestamp"]] = realText(t, r["Counter_Value"])
	}
	compareMaps(t, "counter sums per dispatch", queryMap(t, db, upstreamCounterSums), first)
	compareMaps(t, "every pass's counters", queryMap(t, db, `SELECT pid, dispatch_id, counter_name, start, value
		FROM gorocprof_pass_counters`), every)

	calls := map[string]string{}
	for _, r := range csvByHeader(t, filepath.Join(dir, "p_kernel_stats.csv")) {
		calls[r["Name"]+"|"+r["Calls"]] = r["TotalDurationNs"]
	}
	compareMaps(t, "kernel calls and time", queryMap(t, db, upstreamKernelCalls), calls)

	ids := map[string]string{}
	for _, r := range csvByHeader(t, filepath.Join(dir, "p_kernel_trace.csv")) {
		if key := r["Dispatch_Id"]; ids[key] == "" { // the first pass's row
			ids[key] = r["Queue_Id"] + "|" + r["Stream_Id"]
		}
	}
	got := map[string]string{}
	rows, err := rocpd.Query(db, `SELECT dispatch_id, queue_id, stream_id FROM rocpd_kernel_dispatch`)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		got[r[0]] = r[1] + "|" + r[2]
	}
	compareMaps(t, "queue and stream ids", got, ids)
}

// TestRocpdProcessesApart writes two processes into one database, as processes that share an output
// name are: each has a GUID of its own, its rows keep the ids of its records (queue ids as in
// counter_collection.csv), and no two agent rows of one GUID and node share an absolute index.
func TestRocpdProcessesApart(t *testing.T) {
	dir := t.TempDir()
	procs := []*records.Process{readFixture(t, "4242.ndjson"), readFixture(t, "4300.ndjson")}
	if _, err := WriteProcesses(context.Background(), Options{Dir: dir, File: "p", Formats: []string{"rocpd", "csv"},
		KernelTrace: true}, procs, fakeCounters{}); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "p_results.db")
	dispatches := map[string]string{}
	for _, p := range procs {
		n := 0
		if err := p.EachLogical(func(records.Logical) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		dispatches[strconv.Itoa(int(p.Header.PID))] = strconv.Itoa(n)
	}
	compareMaps(t, "dispatch rows of each GUID", queryMap(t, db, `SELECT P.pid, COUNT(*) FROM rocpd_kernel_dispatch K
		INNER JOIN rocpd_info_process P ON P.id = K.pid AND P.guid = K.guid GROUP BY K.guid`), dispatches)
	queues := map[string]string{}
	for _, r := range csvByHeader(t, filepath.Join(dir, "p_counter_collection.csv")) {
		queues[r["Process_Id"]+"|"+r["Dispatch_Id"]] = r["Queue_Id"]
	}
	compareMaps(t, "queue ids", queryMap(t, db, `SELECT pid, dispatch_id, queue_id FROM kernels
		WHERE dispatch_id IN (SELECT dispatch_id FROM counters_collection C WHERE C.guid = kernels.guid)`), queues)
	for _, tc := range []struct{ query, want string }{
		{`SELECT COUNT(*) = COUNT(DISTINCT guid) AND COUNT(*) = 2 FROM rocpd_info_process`, "1"},
		{`SELECT COUNT(*) FROM (SELECT 1 FROM rocpd_info_agent GROUP BY guid, nid, absolute_index HAVING COUNT(*) > 1)`, "0"},
	} {
		if rows, err := rocpd.Query(db, tc.query); err != nil || rows[0][0] != tc.want {
			t.Errorf("%s = %v (%v), want %s", tc.query, rows, err, tc.want)
		}
	}
}

// TestRocpdKeysAsUpstream: the metadata tag rocprofv3 writes (schema_version 3), no foreign key to a
// missing row, and an empty string where rocprofv3 writes one (the node's names gorocprof does not know).
func TestRocpdKeysAsUpstream(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(Options{Dir: dir, File: "p", Formats: []string{"rocpd"}}, readFixture(t, "4242.ndjson"), fakeCounters{}); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "p_results.db")
	for _, tc := range []struct{ query, want string }{
		{`SELECT group_concat(tag || '=' || value) FROM rocpd_metadata WHERE tag LIKE 'schema%'`, "schema_version=3"},
		{`SELECT COUNT(*) FROM pragma_foreign_key_check`, "0"},
		{`SELECT COUNT(*) FROM rocpd_info_node WHERE system_name IS NULL OR release IS NULL OR version IS NULL
			OR hardware_name IS NULL OR domain_name IS NULL`, "0"},
		{`SELECT COUNT(*) FROM rocpd_info_pmc WHERE component IS NULL OR component = ''`, "0"},
	} {
		if rows, err := rocpd.Query(db, tc.query); err != nil || rows[0][0] != tc.want {
			t.Errorf("%s = %v (%v), want %s", tc.query, rows, err, tc.want)
		}
	}
}
