package merge

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/records"
	"github.com/gorocprof/gorocprof/internal/rocpd"
)

// TestMergeDatabaseTrace: a merge of one traced process from its rocpd database gives the database
// and the Perfetto trace of its run again, byte for byte: its API calls, markers (ranges and marks)
// and copies come back as the trace lines they were written from.
func TestMergeDatabaseTrace(t *testing.T) {
	proc, err := records.ReadProcess(filepath.Join("..", "output", "testdata", "records", "4400_trace.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	formats := []string{"rocpd", "pftrace"}
	if _, err := output.Write(output.Options{Dir: dir, File: "in", Formats: formats, KernelTrace: true}, proc, nil); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	if _, err := Run(context.Background(), Request{Inputs: []string{filepath.Join(dir, "in_results.db")}, OutputDir: dir,
		OutputFile: "m", Formats: formats, Quiet: true, Stdout: &stdout}); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{"_results.db", "_results.pftrace"} {
		in, err := os.ReadFile(filepath.Join(dir, "in"+suffix))
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.ReadFile(filepath.Join(dir, "m"+suffix))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(in, out) {
			t.Errorf("%s: the merge of the database gives other bytes (%d) than the run (%d)", suffix, len(out), len(in))
		}
	}
}

// TestMergeShiftsTraceIDs: two processes merged from their databases keep each call's correlation
// id shared with the dispatches and copies it issued, and no id of one process's calls is
// another's: the second process's ids are shifted past the first's largest, its trace lines'
// included.
func TestMergeShiftsTraceIDs(t *testing.T) {
	dir := t.TempDir()
	var inputs []string
	for _, name := range []string{"a", "b"} {
		proc, err := records.ReadProcess(filepath.Join("..", "output", "testdata", "records", "4400_trace.ndjson"))
		if err != nil {
			t.Fatal(err)
		}
		proc.Header.PID += int64(len(inputs)) // another process
		if _, err := output.Write(output.Options{Dir: dir, File: name, Formats: []string{"rocpd"}, KernelTrace: true}, proc, nil); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, filepath.Join(dir, name+"_results.db"))
	}
	var stdout bytes.Buffer
	if _, err := Run(context.Background(), Request{Inputs: inputs, OutputDir: dir, OutputFile: "m", Formats: []string{"rocpd"},
		Quiet: true, Stdout: &stdout}); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "m_results.db")
	for _, c := range []struct {
		what, q, want string
	}{
		{"regions by process and their correlation ids", `SELECT pid, count(*), min(stack_id), max(stack_id) FROM regions
			GROUP BY pid ORDER BY pid`, "4400|9|1|10\n4401|9|11|20\n"},
		{"dispatches whose launch is not a region of their process", `SELECT count(*) FROM kernels K WHERE NOT EXISTS
			(SELECT 1 FROM regions R WHERE R.guid = K.guid AND R.stack_id = K.stack_id AND R.name = 'hipLaunchKernel')`, "0\n"},
		{"copies whose call is not a region of their process", `SELECT count(*) FROM memory_copies M WHERE NOT EXISTS
			(SELECT 1 FROM regions R WHERE R.guid = M.guid AND R.stack_id = M.stack_id AND R.name = 'hipMemcpy')`, "0\n"},
		{"copies", `SELECT pid, src_agent_type, dst_agent_type FROM memory_copies ORDER BY pid, start`,
			"4400|CPU|GPU\n4400|GPU|CPU\n4401|CPU|GPU\n4401|GPU|CPU\n"},
	} {
		rows, err := rocpdQuery(db, c.q)
		if err != nil {
			t.Fatal(err)
		}
		if rows != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.what, rows, c.want)
		}
	}
}

// rocpdQuery is a query's rows as lines of |-separated values.
func rocpdQuery(db, q string) (string, error) {
	rows, err := rocpd.Query(db, q)
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(strings.Join(r, "|") + "\n")
	}
	return b.String(), err
}
