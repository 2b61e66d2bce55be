package records

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// testdata/damaged holds one record file per fault a real run meets: a write torn by a full disk and
// continued by the next (11, 16), garbage (12), a bit flip (13), a second header (14), an empty file
// (15), wrong types and lines that are not records (17), a stream the tool stopped after a failed
// write (18). Each damaged line costs itself only.
func TestDamagedLinesCostOnlyThemselves(t *testing.T) {
	type want struct {
		ids      []uint64 // logical dispatches kept
		problems []string // substrings, one per problem, in order
		missing  []string
		stopped  bool
	}
	wants := map[int64]want{
		11: {ids: []uint64{1, 3, 4}, problems: []string{
			"records/11.ndjson line 5: the start of this line was cut short and is lost; the dispatch record after it is kept"}},
		12: {ids: []uint64{1, 2, 3, 4}, problems: []string{"records/12.ndjson line 6: damaged line skipped: invalid character"}},
		13: {ids: []uint64{1, 3, 4}, problems: []string{"records/13.ndjson line 5: damaged line skipped: dispatch record: invalid character ';'"}},
		14: {ids: []uint64{1, 2, 3, 4}, problems: []string{"records/14.ndjson line 6: damaged line skipped: a second header record"}},
		16: {ids: []uint64{1, 2, 3}, problems: []string{"records/16.ndjson line 7: the start of this line was cut short"},
			missing: []string{"dispatch 2: pass 1 of 2 missing"}},
		17: {ids: []uint64{1, 2, 3}, problems: []string{
			"records/17.ndjson line 5: damaged line skipped: kernel record: field kernel_id is a string, expected a non-negative whole number of 64 bits",
			`records/17.ndjson line 6: damaged line skipped: record "future" is not valid JSON`,
			"records/17.ndjson line 8: damaged line skipped: the value is an array, expected an object",
			`records/17.ndjson line 9: damaged line skipped: record has no "t" field`}},
		18: {ids: []uint64{1}, stopped: true, problems: []string{
			"records/18.ndjson line 5: the tool stopped recording this process: write: No space left on device"}},
	}
	for name, read := range map[string]func(string) (Run, error){"ReadRun": func(d string) (Run, error) { return ReadRun(d) }} {
		t.Run(name, func(t *testing.T) {
			run, err := read(filepath.Join("testdata", "damaged"))
			if err != nil {
				t.Fatal(err)
			}
			wantUnreadable := []string{"records/15.ndjson is empty: its process ended between creating the file and writing the header"}
			if len(run.Unreadable) != 1 || !strings.HasPrefix(run.Unreadable[0], wantUnreadable[0]) {
				t.Errorf("Unreadable = %q, want %q", run.Unreadable, wantUnreadable)
			}
			if len(run.Processes) != len(wants) {
				t.Fatalf("%d processes, want %d", len(run.Processes), len(wants))
			}
			for _, p := range run.Processes {
				w := wants[p.Header.PID]
				var ids []uint64
				if err := p.EachLogical(func(l Logical) error { ids = append(ids, l.ID); return nil }); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(ids, w.ids) {
					t.Errorf("pid %d: dispatches %v, want %v", p.Header.PID, ids, w.ids)
				}
				if len(p.Problems) != len(w.problems) {
					t.Errorf("pid %d: problems %q, want %d", p.Header.PID, p.Problems, len(w.problems))
				} else {
					for i, pr := range p.Problems {
						if !strings.HasPrefix(pr, w.problems[i]) {
							t.Errorf("pid %d: problem %q, want it to start with %q", p.Header.PID, pr, w.problems[i])
						}
					}
				}
				if got := p.MissingPasses(); !reflect.DeepEqual(got, w.missing) {
					t.Errorf("pid %d: missing passes %q, want %q", p.Header.PID, got, w.missing)
				}
				if p.Ended() == w.stopped || (p.Stopped != "") != w.stopped {
					t.Errorf("pid %d: ended %v, stopped %q; want the end record after the damage, or a stop", p.Header.PID, p.Ended(), p.Stopped)
				}
			}
		})
	}
}

// The strict readers (tests, tools that must see every file) still refuse an empty file.
func TestReadRunDirRefusesAnEmptyFile(t *testing.T) {
	_, err := ReadRunDir(filepath.Join("testdata", "damaged"))
	if err == nil || !strings.Contains(err.Error(), "15.ndjson is empty") {
		t.Fatalf("ReadRunDir: %v, want the empty file named", err)
	}
}

// Each process image (exec keeps the pid) has its own record file: all are read, in the order they
// started, and every image but the last ended by exec, not by a crash.
func TestExecImagesAreSeparateProcesses(t *testing.T) {
	run, err := ReadRun(filepath.Join("testdata", "images"))
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		pid        int64
		cmd        string
		dispatches uint64
		ended      bool
	}
	var procs []got
	for _, p := range run.Processes {
		procs = append(procs, got{p.Header.PID, p.Header.Cmdline[0], p.Totals().Dispatches, p.Ended()})
	}
	want := []got{{21, "./a", 2, true}, {21, "./b", 1, true}, {21, "./c", 3, true}, {22, "./d", 1, false}}
	if !reflect.DeepEqual(procs, want) {
		t.Errorf("processes %+v, want %+v", procs, want)
	}
}

// The launcher saw pid 22 exit without a signal: its last image wrote no end record because it ended
// with _exit or exec'd an unprofiled program, not because it crashed. A stopped stream stays stopped.
func TestMarkExited(t *testing.T) {
	run, err := ReadRun(filepath.Join("testdata", "images"))
	if err != nil {
		t.Fatal(err)
	}
	run.MarkExited(22)
	run.MarkExited(99) // not a process of the run: nothing happens
	for _, p := range run.Processes {
		if !p.Ended() {
			t.Errorf("pid %d (%s) not ended", p.Header.PID, p.Header.Cmdline[0])
		}
	}
	damaged, err := ReadRun(filepath.Join("testdata", "damaged"))
	if err != nil {
		t.Fatal(err)
	}
	damaged.MarkExited(18)
	for _, p := range damaged.Processes {
		if p.Header.PID == 18 && p.Ended() {
			t.Error("pid 18 stopped recording; MarkExited must not call it ended")
		}
	}
}
