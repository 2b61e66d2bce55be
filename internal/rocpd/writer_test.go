package rocpd

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fixture is a process with one agent and one kernel whose dispatch 7 ran three passes, SQ_WAVES in
// every group (two instances, 256 each), SQ_INSTS_VALU only in pass 1; dispatch 8 was to run three
// too but only pass 0 was recorded.
func writeFixture(t *testing.T, path string) {
	t.Helper()
	w, err := Create(path, Process{PID: 4242, PPID: 1, Hostname: "node1", Init: 1_700_000_000_000_000_000,
		Fini: 1_700_000_001_000_000_000, Command: []string{"./app", "-n", "3"}})
	if err != nil {
		t.Fatal(err)
	}
	check := func(err error) {
		t.Helper()
		if err != nil {
			w.Abort()
			t.Fatal(err)
		}
	}
	check(w.Agent(Agent{ID: 2, Type: "GPU", LogicalIndex: 2, TypeIndex: 0, Name: "gfx90a", ProductName: "Sim MI200",
		VendorName: "AMD", Extdata: []byte(`{"node_id":2}`)}))
	check(w.Counter(Counter{ID: 1, AgentID: 2, Name: "SQ_WAVES", Block: "SQ", Description: "waves", Component: "sim"}))
	check(w.Counter(Counter{ID: 2, AgentID: 2, Name: "SQ_INSTS_VALU", Block: "SQ", Component: "sim"}))
	check(w.Kernel(Kernel{ID: 5, Name: "_Z4gemmv", DisplayName: "gemm()", SGPR: 16, ArchVGPR: 32}))
	d := Dispatch{DispatchID: 7, Replayed: true, AgentID: 2, KernelID: 5, Grid: [3]uint32{1024, 1, 1}, Workgroup: [3]uint32{256, 1, 1}}
	for pass := 0; pass < 3; pass++ {
		cs := []CounterValues{{CounterID: 1, Values: []float64{256, 256}}}
		if pass == 1 {
			cs = append(cs, CounterValues{CounterID: 2, Values: []float64{10, 20}})
		}
		start := int64(1000 * (pass + 1))
		d.Passes = append(d.Passes, Pass{Pass: pass, CorrelationID: uint64(70 + pass), QueueID: 0, ThreadID: 11,
			Start: start, End: start + 100 + int64(pass), Counters: cs})
	}
	check(w.Dispatch(&d))
	check(w.Dispatch(&Dispatch{DispatchID: 8, Replayed: true, AgentID: 2, KernelID: 5, Grid: [3]uint32{64, 2, 1},
		Workgroup: [3]uint32{64, 1, 1}, Passes: []Pass{{CorrelationID: 80, QueueID: 3, ThreadID: 11, Start: 9000, End: 9500,
			Counters: []CounterValues{{CounterID: 1, Values: []float64{4, 4}}}}}}))
	check(w.Close())
}

// openFixture writes the fixture and returns its path.
func openFixture(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run_results.db")
	writeFixture(t, path)
	return path
}

// rows runs a query on the database at path.
func rows(t *testing.T, path, query string) [][]string {
	t.Helper()
	out, err := Query(path, query)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCountersCollectionReadsOnePass: upstream's counters_collection adds up every rocpd_pmc_event row
// of a dispatch and counter. SQ_WAVES is in all three groups of dispatch 7: that sum, done on the
// tables as upstream's view does it and through our view, must be one pass's 512 (two instances of
// 256), never 1536.
func TestCountersCollectionReadsOnePass(t *testing.T) {
	db := openFixture(t)
	want := [][]string{{"7", "SQ_INSTS_VALU", "30"}, {"7", "SQ_WAVES", "512"}, {"8", "SQ_WAVES", "8"}}
	for _, q := range []string{
		`SELECT K.dispatch_id, PI.name, SUM(PE.value) FROM rocpd_pmc_event PE
			JOIN rocpd_info_pmc PI ON PI.id = PE.pmc_id AND PI.guid = PE.guid
			JOIN rocpd_kernel_dispatch K ON K.event_id = PE.event_id AND K.guid = PE.guid
			GROUP BY PE.guid, K.dispatch_id, PI.name, K.agent_id ORDER BY 1, 2`,
		`SELECT dispatch_id, counter_name, value FROM counters_collection ORDER BY 1, 2`,
	} {
		if got := rows(t, db, q); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %v\nwant %v", q, got, want)
		}
	}
}

// TestOneDispatchRowPerDispatch: rocprofv3 writes one rocpd_kernel_dispatch row per dispatch, its id
// the dispatch id; a replayed dispatch is timed by its first pass, as kernel_stats.csv times it.
func TestOneDispatchRowPerDispatch(t *testing.T) {
	db := openFixture(t)
	want := [][]string{{"7", "7", "1000", "1100", "70", `{"replay_passes":3}`}, {"8", "8", "9000", "9500", "80", `{"replay_passes":1}`}}
	got := rows(t, db, `SELECT K.id, K.dispatch_id, K.start, K.end, E.stack_id, K.extdata FROM rocpd_kernel_dispatch K
		JOIN rocpd_event E ON E.id = K.event_id AND E.guid = K.guid ORDER BY K.id`)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("dispatch rows:\n got %v\nwant %v", got, want)
	}
}

// TestEveryPassKept: every pass's timing and counter values stay in the database, through
// gorocprof's own views.
func TestEveryPassKept(t *testing.T) {
	db := openFixture(t)
	for _, tc := range []struct {
		query string
		want  [][]string
	}{
		{`SELECT dispatch_id, pass, kernel_name, agent_abs_index, stack_id, start, end, duration FROM gorocprof_passes ORDER BY 1, 2`,
			[][]string{{"7", "0", "gemm()", "2", "70", "1000", "1100", "100"}, {"7", "1", "gemm()", "2", "71", "2000", "2101", "101"},
				{"7", "2", "gemm()", "2", "72", "3000", "3102", "102"}, {"8", "0", "gemm()", "2", "80", "9000", "9500", "500"}}},
		{`SELECT dispatch_id, pass, counter_name, value, start FROM gorocprof_pass_counters ORDER BY 1, 2, 3`,
			[][]string{{"7", "0", "SQ_WAVES", "512", "1000"}, {"7", "1", "SQ_INSTS_VALU", "30", "2000"},
				{"7", "1", "SQ_WAVES", "512", "2000"}, {"7", "2", "SQ_WAVES", "512", "3000"}, {"8", "0", "SQ_WAVES", "8", "9000"}}},
	} {
		if got := rows(t, db, tc.query); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %v\nwant %v", tc.query, got, tc.want)
		}
	}
}

// TestSummariesCountDispatches: upstream's top_kernels, top and busy count and time the rows of
// rocpd_kernel_dispatch: two dispatches are two calls (100 ns and 500 ns), not four passes.
func TestSummariesCountDispatches(t *testing.T) {
	db := openFixture(t)
	for _, tc := range []struct {
		query string
		want  [][]string
	}{
		{`SELECT name, total_calls, total_duration, percentage FROM top_kernels`, [][]string{{"gemm()", "2", "0.6", "100"}}},
		{`SELECT name, total_calls, total_duration FROM top`, [][]string{{"gemm()", "2", "0.6"}}},
		{`SELECT agent_id, type, GpuTime, WallTime FROM busy`, [][]string{{"2", "GPU", "600", "8500"}}},
		{`SELECT COUNT(*) FROM kernels`, [][]string{{"2"}}},
	} {
		if got := rows(t, db, tc.query); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %v\nwant %v", tc.query, got, tc.want)
		}
	}
}

func TestViews(t *testing.T) {
	db := openFixture(t)
	for _, tc := range []struct {
		name, query string
		want        [][]string
	}{
		{"kernels: one row per dispatch", `SELECT dispatch_id, name, agent_abs_index, queue, stream, duration,
			grid_x, workgroup_x, category, region, tid, pid FROM kernels ORDER BY start`, [][]string{
			{"7", "gemm()", "2", "Default Queue", "Default Stream", "100", "1024", "256", "KERNEL_DISPATCH", "", "11", "4242"},
			{"8", "gemm()", "2", "Queue 0", "Default Stream", "500", "64", "64", "KERNEL_DISPATCH", "", "11", "4242"}}},
		{"counters_collection", `SELECT dispatch_id, counter_name, value, grid_size, workgroup_size, kernel_name, agent_type, component
			FROM counters_collection ORDER BY dispatch_id, counter_name`, [][]string{
			{"7", "SQ_INSTS_VALU", "30", "1024", "256", "gemm()", "GPU", "sim"},
			{"7", "SQ_WAVES", "512", "1024", "256", "gemm()", "GPU", "sim"},
			{"8", "SQ_WAVES", "8", "128", "64", "gemm()", "GPU", "sim"}}},
		// One row per counter of a dispatch: the sum of its instances, which extdata lists one by one,
		// with the pass that measured it.
		{"pmc_events", `SELECT COUNT(*), SUM(counter_value) FROM pmc_events WHERE counter_name = 'SQ_WAVES'`,
			[][]string{{"2", "520"}}},
		{"instances", `SELECT E.event_id, E.value, E.extdata FROM rocpd_pmc_event E ORDER BY E.id`,
			[][]string{{"1", "512", `{"replay_pass":0,"instances":[256,256]}`}, {"1", "30", `{"replay_pass":1,"instances":[10,20]}`},
				{"2", "8", `{"replay_pass":0,"instances":[4,4]}`}}},
		{"pmc_info", `SELECT name, block, agent_abs_index, is_derived FROM pmc_info ORDER BY id`,
			[][]string{{"SQ_WAVES", "SQ", "2", "0"}, {"SQ_INSTS_VALU", "SQ", "2", "0"}}},
		{"processes", `SELECT hostname, machine_id, pid, ppid, init, fini, command FROM processes`,
			[][]string{{"node1", "node1", "4242", "1", "1700000000000000000", "1700000001000000000", "./app -n 3"}}},
		{"threads", `SELECT pid, tid FROM threads`, [][]string{{"4242", "11"}}},
		{"kernel_symbols", `SELECT kernel_name, display_name, sgpr_count, arch_vgpr_count FROM kernel_symbols`,
			[][]string{{"_Z4gemmv", "gemm()", "16", "32"}}},
		{"agents", `SELECT type, absolute_index, logical_index, name, product_name, user_name, json_extract(extdata, '$.node_id')
			FROM rocpd_info_agent`, [][]string{{"GPU", "2", "2", "gfx90a", "Sim MI200", "Sim MI200", "2"}}},
		{"queues by handle, named as rocprofv3 names them", `SELECT id, name FROM rocpd_info_queue ORDER BY id`,
			[][]string{{"0", "Default Queue"}, {"3", "Queue 0"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := rows(t, db, tc.query); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s:\n got %v\nwant %v", tc.query, got, tc.want)
			}
		})
	}
}

// TestEveryViewReads: a view over a missing table or column can be created but fails when read,
// which breaks the rocpd tools even for views a run leaves empty.
func TestEveryViewReads(t *testing.T) {
	db := openFixture(t)
	names := rows(t, db, `SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name`)
	if want := len(allTables) + len(dataViews) + len(ownViews) + len(summaryViews); len(names) != want {
		t.Errorf("%d views, want %d", len(names), want)
	}
	for _, n := range names {
		rows(t, db, "SELECT * FROM `"+n[0]+"`")
	}
}

// TestKeys: metadata, table suffixes and the GUID follow rocprofv3's scheme, which its readers check.
func TestKeys(t *testing.T) {
	db := openFixture(t)
	md := map[string]string{}
	for _, r := range rows(t, db, `SELECT tag, value FROM rocpd_metadata`) {
		if _, dup := md[r[0]]; dup {
			t.Errorf("metadata tag %s twice", r[0])
		}
		md[r[0]] = r[1]
	}
	if len(md) != 3 || md["schema_version"] != "3" {
		t.Errorf("metadata %v, want schema_version 3, uuid and guid as rocprofv3 writes them", md)
	}
	if want := "_" + strings.ReplaceAll(md["guid"], "-", "_"); md["uuid"] != want {
		t.Errorf("uuid %q, want %q from guid %q", md["uuid"], want, md["guid"])
	}
	if g := md["guid"]; len(g) != 36 || g[14] != '7' || !strings.ContainsRune("89ab", rune(g[19])) {
		t.Errorf("guid %q is not a UUIDv7", g)
	}
	for _, tb := range allTables {
		if got := rows(t, db, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = '`+tb.name+md["uuid"]+`'`); got[0][0] != "1" {
			t.Errorf("no table %s%s", tb.name, md["uuid"])
		}
	}
	if got := rows(t, db, `PRAGMA integrity_check`); !reflect.DeepEqual(got, [][]string{{"ok"}}) {
		t.Errorf("integrity_check: %v", got)
	}
	// Every row carries the database's guid (the column default), and pid columns hold the OS pid.
	if got := rows(t, db, `SELECT DISTINCT guid FROM rocpd_kernel_dispatch UNION SELECT DISTINCT guid FROM rocpd_pmc_event`); len(got) != 1 || got[0][0] != md["guid"] {
		t.Errorf("guids of the rows %v, want only %s", got, md["guid"])
	}
	if got := rows(t, db, `SELECT DISTINCT K.pid, K.nid = N.id FROM rocpd_kernel_dispatch K, rocpd_info_node N`); !reflect.DeepEqual(got, [][]string{{"4242", "1"}}) {
		t.Errorf("pid and nid of the dispatch rows %v", got)
	}
}

// TestSameInputSameFile: SQLite writes the same pages for the same statements, and the GUID comes
// from the process, so the same input gives a byte-identical database.
func TestSameInputSameFile(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	writeFixture(t, a)
	writeFixture(t, b)
	ba, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	bb, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ba, bb) {
		t.Fatalf("two databases of the same input differ (%d and %d bytes)", len(ba), len(bb))
	}
}

// TestReplacesAndLeavesNoTemp: an existing database is replaced, and no .tmp file stays behind,
// whether the write succeeds or is aborted.
func TestReplacesAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x_results.db")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFixture(t, path)
	if b, _ := os.ReadFile(path); !bytes.HasPrefix(b, []byte("SQLite format 3\x00")) {
		t.Fatalf("%s was not replaced by a database", path)
	}
	w, err := Create(filepath.Join(dir, "y_results.db"), Process{PID: 1})
	if err != nil {
		t.Fatal(err)
	}
	w.Abort()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("files left: %v, want only x_results.db", names)
	}
}

// TestFailedInsertFailsClose: statements run behind the caller, so a failing one (here a kernel id
// given twice) is reported by a later call or by Close, naming its table, and no database is left.
func TestFailedInsertFailsClose(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad_results.db")
	w, err := Create(path, Process{PID: 7})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Kernel(Kernel{ID: 1, Name: "a"})
	if err == nil {
		err = w.Kernel(Kernel{ID: 1, Name: "b"})
	}
	for i := 0; err == nil && i < 10_000; i++ {
		err = w.Dispatch(&Dispatch{DispatchID: uint64(i), KernelID: 1, Passes: []Pass{{}}})
	}
	if err == nil {
		err = w.Close()
	} else {
		w.Abort()
	}
	if err == nil || !strings.Contains(err.Error(), "rocpd_info_kernel_symbol") || !strings.Contains(err.Error(), "UNIQUE") {
		t.Fatalf("err = %v, want the kernel symbol table's UNIQUE failure", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files left after a failed write: %v", entries)
	}
}

// TestSeveralProcesses: processes that share one output name share one database, each under a GUID
// of its own (upstream's per-rank summaries group by GUID) with the ids it gives its rows: agents by
// node id, kernels, queues and streams as their records say, so that no process's ids are
// renumbered and no two agent rows of one GUID and node share an absolute index. Two images of one
// pid (an exec), and even two processes with the same keys, are two GUIDs.
func TestSeveralProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared_results.db")
	procs := []Process{{PID: 100, Hostname: "node1", Init: 1}, {PID: 200, Hostname: "node1", Init: 2},
		{PID: 200, Hostname: "node1", Init: 3}, {PID: 200, Hostname: "node1", Init: 3}}
	w, err := Create(path, procs[0])
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range procs {
		if i > 0 {
			if err := w.Process(p); err != nil {
				t.Fatal(err)
			}
		}
		value := float64(10 * (i + 1))
		for _, err := range []error{
			w.Agent(Agent{ID: 2, Type: "GPU", Name: "gfx90a"}),
			w.Agent(Agent{ID: 3, Type: "GPU", Name: "gfx942"}),
			w.Counter(Counter{ID: 1, AgentID: 2, Name: "SQ_WAVES"}),
			w.Kernel(Kernel{ID: 5, Name: "_Z1kv", DisplayName: "k()"}),
			w.Dispatch(&Dispatch{DispatchID: 1, AgentID: 2, KernelID: 5, Passes: []Pass{{QueueID: 9, StreamID: 4,
				ThreadID: uint64(11 + i), Start: 1, End: 2, Counters: []CounterValues{{CounterID: 1, Values: []float64{value}}}}}}),
		} {
			if err != nil {
				w.Abort()
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query string
		want  [][]string
	}{
		{`SELECT COUNT(*), COUNT(DISTINCT guid) FROM processes`, [][]string{{"4", "4"}}},
		{`SELECT COUNT(*), COUNT(DISTINCT value) FROM rocpd_metadata WHERE tag = 'uuid'`, [][]string{{"4", "4"}}},
		{`SELECT pid, init FROM processes ORDER BY pid, init`, [][]string{{"100", "1"}, {"200", "2"}, {"200", "3"}, {"200", "3"}}},
		{`SELECT COUNT(*) FROM (SELECT 1 FROM rocpd_info_agent GROUP BY guid, nid, absolute_index HAVING COUNT(*) > 1)`, [][]string{{"0"}}},
		{`SELECT DISTINCT id, absolute_index FROM rocpd_info_agent ORDER BY id`, [][]string{{"2", "2"}, {"3", "3"}}},
		{`SELECT pid, dispatch_id, kernel_id, agent_abs_index, queue_id, stream_id, queue, name FROM kernels ORDER BY pid, tid`, [][]string{
			{"100", "1", "5", "2", "9", "4", "Queue 0", "k()"}, {"200", "1", "5", "2", "9", "4", "Queue 0", "k()"},
			{"200", "1", "5", "2", "9", "4", "Queue 0", "k()"}, {"200", "1", "5", "2", "9", "4", "Queue 0", "k()"}}},
		{`SELECT pid, tid, counter_name, value FROM counters_collection ORDER BY tid`, [][]string{
			{"100", "11", "SQ_WAVES", "10"}, {"200", "12", "SQ_WAVES", "20"}, {"200", "13", "SQ_WAVES", "30"}, {"200", "14", "SQ_WAVES", "40"}}},
		{`SELECT COUNT(*) FROM (SELECT guid FROM kernels GROUP BY guid HAVING COUNT(*) = 1)`, [][]string{{"4"}}},
		{`PRAGMA integrity_check`, [][]string{{"ok"}}},
	} {
		if got := rows(t, path, tc.query); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %v\nwant %v", tc.query, got, tc.want)
		}
	}
}

// TestNoDanglingKeysNorNulls: every foreign key finds its row (kernel symbols name no code object
// table row, gorocprof knowing none), and the node's text columns gorocprof does not know are empty
// strings, as rocprofv3 writes what the system leaves empty, never NULL.
func TestNoDanglingKeysNorNulls(t *testing.T) {
	db := openFixture(t)
	if got := rows(t, db, `PRAGMA foreign_key_check`); len(got) != 0 {
		t.Errorf("foreign_key_check: %v", got)
	}
	want := [][]string{{"", "node1", "", "", "", ""}}
	if got := rows(t, db, `SELECT system_name, hostname, release, version, hardware_name, domain_name FROM rocpd_info_node`); !reflect.DeepEqual(got, want) {
		t.Errorf("node: %v, want %v", got, want)
	}
	if got := rows(t, db, `SELECT COUNT(*) FROM rocpd_info_pmc WHERE component IS NULL OR description IS NULL`); got[0][0] != "0" {
		t.Errorf("%s counter rows with a NULL component or description", got[0][0])
	}
}

// TestCreateIntoLeavesTheMoveToTheCaller: CreateInto writes into the caller's empty file and, closed
// or aborted, neither moves nor removes it; errors name the final path.
func TestCreateIntoLeavesTheMoveToTheCaller(t *testing.T) {
	for _, tc := range []struct {
		name  string
		close bool
	}{
		{"closed", true},
		{"aborted", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tmp, path := filepath.Join(dir, ".p_results.db.tmp-1"), filepath.Join(dir, "p_results.db")
			if err := os.WriteFile(tmp, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			w, err := CreateInto(tmp, path, Process{PID: 3})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Kernel(Kernel{ID: 1, Name: "k"}); err != nil {
				t.Fatal(err)
			}
			if tc.close {
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
			} else {
				w.Abort()
			}
			if _, err := os.Stat(path); err == nil {
				t.Errorf("%s exists: the writer moved its file", path)
			}
			if _, err := os.Stat(tmp); err != nil {
				t.Fatalf("the caller's file is gone: %v", err)
			}
			if tc.close {
				if rows, err := Query(tmp, `SELECT kernel_name FROM kernel_symbols`); err != nil || len(rows) != 1 {
					t.Errorf("kernel_symbols = %v, %v; want the one kernel", rows, err)
				}
			}
		})
	}
}

// TestUnionOfManyProcesses: past the terms one compound SELECT may have (SQLite allows 500), the
// plain-name views join the processes' tables through part views; every view still reads every
// process. The bound is lowered here so that a few processes cross it twice over.
func TestUnionOfManyProcesses(t *testing.T) {
	defer func(n int) { unionTerms = n }(unionTerms)
	unionTerms = 2
	path := filepath.Join(t.TempDir(), "many_results.db")
	w, err := Create(path, Process{PID: 1, Hostname: "n", Init: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 9; i++ {
		if i > 1 {
			if err := w.Process(Process{PID: int64(i), Hostname: "n", Init: int64(i)}); err != nil {
				t.Fatal(err)
			}
		}
		for _, err := range []error{
			w.Agent(Agent{ID: 1, Name: "gfx90a"}),
			w.Counter(Counter{ID: 1, AgentID: 1, Name: "SQ_WAVES"}),
			w.Kernel(Kernel{ID: 1, Name: "k"}),
			w.Dispatch(&Dispatch{DispatchID: 1, AgentID: 1, KernelID: 1, Passes: []Pass{{ThreadID: uint64(i), Start: 1, End: 2,
				Counters: []CounterValues{{CounterID: 1, Values: []float64{float64(i)}}}}}}),
		} {
			if err != nil {
				w.Abort()
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := rows(t, path, `SELECT COUNT(*), COUNT(DISTINCT guid), SUM(value) FROM counters_collection`); !reflect.DeepEqual(got, [][]string{{"9", "9", "45"}}) {
		t.Errorf("counters_collection of 9 processes: %v", got)
	}
	for _, n := range rows(t, path, `SELECT name FROM sqlite_master WHERE type = 'view'`) {
		rows(t, path, "SELECT * FROM `"+n[0]+"`")
	}
}

// TestOpenRefusesOtherLayouts: merge reads back only the layout this package writes; a database of an
// older gorocprof (tagged 3.0.0, a dispatch row per pass) and one without gorocprof's pass tables are
// refused by name, not misread.
func TestOpenRefusesOtherLayouts(t *testing.T) {
	const metadata = `CREATE TABLE rocpd_metadata (tag TEXT, value TEXT); INSERT INTO rocpd_metadata VALUES `
	for _, tc := range []struct{ name, sql, want string }{
		{"older gorocprof", metadata + `('schema_version', '3.0.0')`, "older gorocprof"},
		{"not gorocprof's", metadata + `('schema_version', '3')`, "no gorocprof_pass table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.db")
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(tc.sql); err != nil {
				t.Fatal(err)
			}
			db.Close()
			if r, err := Open(path); err == nil || !strings.Contains(err.Error(), tc.want) {
				if r != nil {
					r.Close()
				}
				t.Errorf("Open = %v, want an error saying %q", err, tc.want)
			}
		})
	}
}
