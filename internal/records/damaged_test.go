package records

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// testdata/damaged holds one record file per fault a real run meets: a write torn by a full disk and
// continued by the next (11, 16), garbage (12), a bit flip (13), a second header (14), an empty file
// (15), wrong types and lines that are not records (17). Each damaged line costs itself only.
func TestDamagedLinesCostOnlyThemselves(t *testing.T) {
	type want struct {
		ids      []uint64 // logical dispatches kept
		problems []string // substrings, one per problem, in order
		missing  []string
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
			"records/17.ndjson line 5: damaged line skipped: kernel record: json: cannot unmarshal string",
			`records/17.ndjson line 6: damaged line skipped: record "future" is not valid JSON`,
			"records/17.ndjson line 8: damaged line skipped: json: cannot unmarshal array",
			`records/17.ndjson line 9: damaged line skipped: record has no "t" field`}},
	}
	for name, read := range map[string]func(string) (Run, error){"ScanRun": ScanRun, "ReadRun": ReadRun} {
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
				if !p.Ended() {
					t.Errorf("pid %d: the end record after the damage was lost", p.Header.PID)
				}
			}
		})
	}
}

// The strict readers (tests, tools that must see every file) still refuse an empty file.
func TestScanRunDirRefusesAnEmptyFile(t *testing.T) {
	_, err := ScanRunDir(filepath.Join("testdata", "damaged"))
	if err == nil || !strings.Contains(err.Error(), "15.ndjson is empty") {
		t.Fatalf("ScanRunDir: %v, want the empty file named", err)
	}
}
