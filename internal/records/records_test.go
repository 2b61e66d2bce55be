package records

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
)

const (
	hdr   = `{"t":"header","version":1,"pid":7,"ppid":1,"backend":"sim","hostname":"h","init_time":5,"cmdline":["./a"]}`
	agent = `{"t":"agent","id":1,"index":0,"name":"gfx90a","props":{},"strings":{}}`
	kern  = `{"t":"kernel","kernel_id":3,"name":"_Z1kv","demangled":"k()","truncated":"k","agent_id":1}`
)

func disp(id, pass, passes int) string {
	return `{"t":"dispatch","dispatch_id":` + strconv.Itoa(id) + `,"pass":` + strconv.Itoa(pass) + `,"passes":` + strconv.Itoa(passes) +
		`,"agent_id":1,"kernel_id":3,"grid":[1,1,1],"workgroup":[1,1,1],"start":1,"end":2,"counters":[{"name":"SQ_WAVES","values":[1,2]}]}`
}

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "7.ndjson")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadProcessErrors(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    []string // substrings of the error
	}{
		{"empty file", "", []string{"7.ndjson", "missing header"}},
		{"only a truncated header", hdr[:40], []string{"missing header"}},
		{"wrong version", lines(strings.Replace(hdr, `"version":1`, `"version":2`, 1), agent),
			[]string{"7.ndjson", "line 1", "version 2", "version 1"}},
	}
	// Records without a (whole) header are read all the same (TestDamagedHeaderCostsOnlyItsFile).
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadProcess(writeFile(t, tc.content))
			if err == nil {
				t.Fatal("ReadProcess succeeded, want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestReadProcessTruncatedTail(t *testing.T) {
	full := disp(2, 0, 1)
	tests := []struct {
		name          string
		content       string
		wantDispatch  int
		wantTruncated bool
	}{
		{"cut in the middle", lines(hdr, agent, kern, disp(1, 0, 1)) + full[:len(full)/2], 1, true},
		{"lost only its newline", lines(hdr, agent, kern, disp(1, 0, 1)) + full, 2, false},
		{"CRLF lines", strings.ReplaceAll(lines(hdr, agent, kern, disp(1, 0, 1)), "\n", "\r\n"), 1, false},
		{"blank lines", lines(hdr, "", agent, "  ", kern, disp(1, 0, 1), ""), 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ReadProcess(writeFile(t, tc.content))
			if err != nil {
				t.Fatal(err)
			}
			if n := dispatchLines(t, p); n != tc.wantDispatch || p.Truncated != tc.wantTruncated {
				t.Errorf("got %d dispatches, truncated=%v; want %d, %v",
					n, p.Truncated, tc.wantDispatch, tc.wantTruncated)
			}
			hasProblem := len(p.Problems) > 0 && strings.Contains(p.Problems[0], "incomplete last line")
			if hasProblem != tc.wantTruncated {
				t.Errorf("problems %q; truncation reported=%v, want %v", p.Problems, hasProblem, tc.wantTruncated)
			}
			if p.Ended() {
				t.Error("Ended() = true for a file without an end record")
			}
		})
	}
}

func TestReadRunDir(t *testing.T) {
	procs, err := ReadRunDir("testdata/run")
	if err != nil {
		t.Fatal(err)
	}
	if len(procs) != 2 || procs[0].Header.PID != 977 || procs[1].Header.PID != 4242 {
		t.Fatalf("got %d processes, want pids 977 then 4242", len(procs))
	}
	child, parent := procs[0], procs[1]
	if !child.Truncated || child.Ended() || dispatchLines(t, child) != 1 {
		t.Errorf("child: truncated=%v ended=%v dispatches=%d; want true,false,1",
			child.Truncated, child.Ended(), dispatchLines(t, child))
	}
	if !parent.Ended() || parent.End.Declined != 1 || parent.Truncated {
		t.Errorf("parent: ended=%v truncated=%v", parent.Ended(), parent.Truncated)
	}
	if got, want := dispatchLines(t, parent), 3; got != want {
		t.Errorf("parent has %d dispatch lines, want %d", got, want)
	}
	if len(parent.Declines) != 1 || len(parent.Warnings) != 1 || len(parent.Kernels) != 1 || len(parent.Agents) != 1 {
		t.Errorf("parent: declines %d warnings %d kernels %d agents %d, want 1 each",
			len(parent.Declines), len(parent.Warnings), len(parent.Kernels), len(parent.Agents))
	}
	wantProblems := []string{"line 5: dispatch 1 pass 1: counter SQ_INSTS_VALU: 1 of 2 instance values were not delivered (null)"}
	if !reflect.DeepEqual(parent.Problems, wantProblems) {
		t.Errorf("parent problems\n got %q\nwant %q", parent.Problems, wantProblems)
	}
	if got := parent.MissingPasses(); len(got) != 0 {
		t.Errorf("MissingPasses = %q, want none (dispatch 2 was declined)", got)
	}
	if _, err := ReadRunDir(t.TempDir()); err == nil || !strings.Contains(err.Error(), "records") {
		t.Errorf("ReadRunDir of a directory without records/: err = %v", err)
	}
}

func TestCollectorProblems(t *testing.T) {
	content := lines(hdr, agent,
		`{"t":"dispatch","dispatch_id":1,"pass":0,"passes":1,"agent_id":9,"kernel_id":4}`,
		`{"t":"end","fini_time":9}`,
		`{"t":"warning","message":"late"}`)
	p, err := ReadProcess(writeFile(t, content))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"line 3: dispatch 1 pass 0 names kernel 4, which has no kernel record before it",
		"line 3: dispatch 1 pass 0 names agent 9, which has no agent record before it",
		"line 5: warning record after the end record",
	}
	if !reflect.DeepEqual(p.Problems, want) {
		t.Errorf("problems\n got %q\nwant %q", p.Problems, want)
	}
}

func dl(id uint64, pass, passes int) contract.Dispatch {
	return contract.Dispatch{DispatchID: id, Pass: pass, Passes: passes, KernelID: 3, AgentID: 1}
}

func TestCheckPasses(t *testing.T) {
	other := dl(2, 1, 3)
	other.KernelID = 5
	tests := []struct {
		name string
		ds   []contract.Dispatch
		want []string
	}{
		{"complete", []contract.Dispatch{dl(1, 0, 3), dl(1, 1, 3), dl(1, 2, 3), dl(2, 0, 1)}, nil},
		{"application replay: one pass each", []contract.Dispatch{dl(1, 2, 3), dl(2, 2, 3)}, nil},
		{"not consecutive", []contract.Dispatch{dl(1, 0, 2), dl(2, 0, 1), dl(1, 1, 2)},
			[]string{"dispatch 1: passes are not consecutive (pass 1 appears after other dispatches)"}},
		{"duplicate pass", []contract.Dispatch{dl(1, 0, 2), dl(1, 0, 2), dl(1, 1, 2)},
			[]string{"dispatch 1: pass 0 appears twice"}},
		{"pass out of range", []contract.Dispatch{dl(1, 0, 2), dl(1, 2, 2)},
			[]string{"dispatch 1: pass 2 is outside 0..1"}},
		{"no passes", []contract.Dispatch{dl(1, 0, 0)}, []string{"dispatch 1: pass 0 is outside 0..-1"}},
		{"pass counts disagree", []contract.Dispatch{dl(1, 0, 2), dl(1, 1, 3)},
			[]string{"dispatch 1: pass 1 says 3 passes, pass 0 says 2"}},
		{"kernel differs", []contract.Dispatch{dl(2, 0, 3), other, dl(2, 2, 3)},
			[]string{"dispatch 2: pass 1 ran kernel 5 on agent 1, pass 0 kernel 3 on agent 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := checkPasses(tc.ds); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("checkPasses\n got %q\nwant %q", got, tc.want)
			}
			if got := refCheckPasses(tc.ds); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("refCheckPasses\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestMissingPassesAndGroup(t *testing.T) {
	p, err := ReadProcess(writeFile(t, lines(hdr, agent, kern, disp(3, 1, 3), disp(1, 1, 2), disp(1, 0, 2), disp(2, 0, 3), disp(4, 0, 2),
		`{"t":"decline","dispatch_id":4,"reason":"no memory"}`)))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"dispatch 2: pass 1, 2 of 3 missing", "dispatch 3: pass 0, 2 of 3 missing"}
	if got := p.MissingPasses(); !reflect.DeepEqual(got, want) {
		t.Errorf("MissingPasses\n got %q\nwant %q", got, want)
	}
	var got []string
	err = p.EachLogical(func(l Logical) error {
		s := strconv.Itoa(int(l.ID)) + ":"
		for _, d := range l.Passes {
			s += strconv.Itoa(d.Pass)
		}
		got = append(got, s)
		return nil
	})
	if w := []string{"1:01", "2:0", "3:1", "4:0"}; err != nil || !reflect.DeepEqual(got, w) {
		t.Errorf("EachLogical = %q, %v, want %q", got, err, w)
	}
}

func TestDecodeLongLine(t *testing.T) {
	// Longer than the reader's buffer, so the line arrives in several chunks.
	vals := strings.TrimSuffix(strings.Repeat("1.5,", 400000), ",")
	long := `{"t":"dispatch","dispatch_id":1,"pass":0,"passes":1,"agent_id":1,"kernel_id":3,"counters":[{"name":"X","values":[` + vals + `]}]}`
	var got []Record
	err := Decode(strings.NewReader(lines(hdr, agent, kern, long, long)), func(r Record) error {
		got = append(got, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || got[3].Line != 4 || len(got[4].Dispatch.Counters[0].Values) != 400000 {
		t.Fatalf("decoded %d records; want 5 with 400000 values on line 5", len(got))
	}
}

func TestDecodeStopsOnCallbackError(t *testing.T) {
	n := 0
	stop := os.ErrClosed
	err := Decode(strings.NewReader(lines(hdr, agent, kern)), func(Record) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if err != stop || n != 2 {
		t.Errorf("Decode returned %v after %d records; want the callback's error after 2", err, n)
	}
}
