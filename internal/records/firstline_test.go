package records

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

const (
	lineHeader = `{"t":"header","version":1,"pid":%d,"ppid":1,"backend":"sim","hostname":"h","init_time":5,"cmdline":["./a"]}`
	lineAgent  = `{"t":"agent","id":1,"index":0,"name":"gfx90a","props":{},"strings":{}}`
	lineKernel = `{"t":"kernel","kernel_id":3,"name":"_Z1kv","demangled":"k()","truncated":"k","agent_id":1}`
	lineDisp   = `{"t":"dispatch","dispatch_id":%d,"pass":0,"passes":%d,"agent_id":1,"kernel_id":3,"grid":[1,1,1],"workgroup":[1,1,1],"start":1,"end":2,"counters":[{"name":"SQ_WAVES","values":[1,2]}]}`
	lineEnd    = `{"t":"end","fini_time":9,"dispatches":%d,"replayed":0,"declined":0}`
)

// writeRecords writes records/<name>.ndjson under dir from lines.
func writeRecords(t *testing.T, dir, name string, lines ...string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "records"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "records", name+".ndjson"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func goodRecords(pid int64, dispatches int) []string {
	lines := []string{fmt.Sprintf(lineHeader, pid), lineAgent, lineKernel}
	for i := 1; i <= dispatches; i++ {
		lines = append(lines, fmt.Sprintf(lineDisp, i, 1))
	}
	return append(lines, fmt.Sprintf(lineEnd, dispatches))
}

// A damaged first line (the header) costs that line: the file's other lines are read, the process
// id comes from the file's name, and the other files of the run are read as usual. A header of a
// contract this reader does not know makes that file unreadable, with the reason, and only that one.
func TestDamagedHeaderCostsOnlyItsFile(t *testing.T) {
	dir := t.TempDir()
	flipped := goodRecords(41, 5)
	flipped[0] = strings.Replace(flipped[0], `"version":1`, `"version":1;`, 1)
	writeRecords(t, dir, "41", flipped...)
	future := goodRecords(42, 3)
	future[0] = strings.Replace(future[0], `"version":1`, `"version":99`, 1)
	writeRecords(t, dir, "42", future...)
	writeRecords(t, dir, "43", goodRecords(43, 4)...)
	garbage := goodRecords(44, 2)
	garbage[0] = "\x00\x01garbage"
	writeRecords(t, dir, "44-1", garbage...)

	run, err := ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	if len(run.Unreadable) != 1 || !strings.Contains(run.Unreadable[0], "42.ndjson") ||
		!strings.Contains(run.Unreadable[0], "contract version 99") {
		t.Errorf("Unreadable = %q, want 42.ndjson with its version", run.Unreadable)
	}
	got := map[int64]uint64{}
	for _, p := range run.Processes {
		got[p.Header.PID] = p.Totals().Dispatches
		if p.Header.PID == 41 || p.Header.PID == 44 {
			if len(p.Problems) == 0 || !strings.Contains(p.Problems[0], "line 1: damaged line skipped") ||
				!strings.Contains(strings.Join(p.Problems, "\n"), "no header") {
				t.Errorf("pid %d: problems %q, want the damaged header named", p.Header.PID, p.Problems)
			}
		}
	}
	want := map[int64]uint64{41: 5, 43: 4, 44: 2}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("dispatches per process %v, want %v", got, want)
	}
}

// A number that sizes something is bounded before it does: a dispatch line that says it is one of
// 2,000,000,000 passes is a damaged line, and reading it (and listing missing passes) takes no more
// memory than any other line.
func TestHugePassCountIsBounded(t *testing.T) {
	dir := t.TempDir()
	lines := goodRecords(51, 3)
	lines = append(lines[:len(lines)-1], fmt.Sprintf(lineDisp, 4, 2000000000), fmt.Sprintf(lineDisp, 5, 10000000), lines[len(lines)-1])
	writeRecords(t, dir, "51", lines...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	run, err := ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	p := run.Processes[0]
	missing := p.MissingPasses()
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("reading allocated %d MB", grew>>20)
	}
	all := strings.Join(append(p.Problems, missing...), "\n")
	if !strings.Contains(all, "2000000000 passes") || len(all) > 4096 {
		t.Errorf("problems (%d bytes) %.300q, want the pass count named, briefly", len(all), all)
	}
}

// A record file kept twice (N-1.ndjson a copy of N.ndjson) is read once, and the copy is named;
// a second image of the same process (another start time) is read as its own.
func TestCopiedRecordFileReadOnce(t *testing.T) {
	dir := t.TempDir()
	writeRecords(t, dir, "61", goodRecords(61, 3)...)
	writeRecords(t, dir, "61-1", goodRecords(61, 3)...)
	second := goodRecords(61, 2)
	second[0] = strings.Replace(second[0], `"init_time":5`, `"init_time":6`, 1)
	writeRecords(t, dir, "61-2", second...)
	run, err := ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	var total uint64
	for _, p := range run.Processes {
		total += p.Totals().Dispatches
	}
	if len(run.Processes) != 2 || total != 5 {
		t.Errorf("%d processes, %d dispatches; want 2 and 5 (the copy read once)", len(run.Processes), total)
	}
	if len(run.Unreadable) != 1 || !strings.Contains(run.Unreadable[0], "records/61-1.ndjson and records/61.ndjson hold the same records") {
		t.Errorf("Unreadable = %q, want the copy named", run.Unreadable)
	}
}

// A FIFO or a link to /dev/zero among the record files costs that file, named, and never hangs the
// reader; the other files are read.
func TestRecordsThatAreNotFilesAreRefused(t *testing.T) {
	dir := t.TempDir()
	writeRecords(t, dir, "71", goodRecords(71, 2)...)
	if err := syscall.Mkfifo(filepath.Join(dir, "records", "72.ndjson"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "records", "73.ndjson")); err != nil {
		t.Fatal(err)
	}
	done := make(chan Run, 1)
	go func() {
		run, err := ReadRun(dir)
		if err != nil {
			t.Error(err)
		}
		done <- run
	}()
	select {
	case run := <-done:
		defer run.Close()
		all := strings.Join(run.Unreadable, "\n")
		if len(run.Processes) != 1 || !strings.Contains(all, "72.ndjson") || !strings.Contains(all, "a FIFO") ||
			!strings.Contains(all, "73.ndjson") || !strings.Contains(all, "a character device") {
			t.Errorf("%d processes, unreadable %q", len(run.Processes), run.Unreadable)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("reading the run directory hangs on a FIFO or /dev/zero")
	}
}

// The spools go to the first directory with room for them: a full TMPDIR sends them to the output
// directory. When the spool fails, the error names the `gorocprof process` command and a TMPDIR
// that has room.
func TestSpoolGoesWhereThereIsRoom(t *testing.T) {
	dir := t.TempDir()
	writeRecords(t, dir, "81", goodRecords(81, 3)...)
	tmp, out := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	old := freeBytes
	defer func() { freeBytes = old }()
	freeBytes = func(d string) (int64, error) {
		if d == tmp {
			return 0, nil
		}
		return 1 << 40, nil
	}
	if got := chooseSpoolDir(spoolCandidates([]string{out}), spoolNeed(1<<20)); got != out {
		t.Errorf("spool in %s, want the output directory %s", got, out)
	}
	run, err := ReadRun(dir, out)
	if err != nil {
		t.Fatal(err)
	}
	run.Close()

	t.Setenv(EnvSpoolDir, filepath.Join(tmp, "missing"))
	_, err = ReadRun(dir, out)
	want := fmt.Sprintf("`TMPDIR=%s gorocprof process %s` writes the output", filepath.Dir(dir), dir)
	if !errors.Is(err, ErrSpool) || !strings.Contains(err.Error(), want) {
		t.Errorf("ReadRun with a spool directory that cannot be written: %v, want %q", err, want)
	}
}
