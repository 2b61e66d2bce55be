package output

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/gorocprof/gorocprof/internal/records"
)

// failAfter is a file that takes limit bytes and then fails every write with err, as a full disk
// does (or, with fn set, calls fn there: a signal arriving part way).
type failAfter struct {
	w     io.Writer
	limit int
	err   error
	fn    func()
}

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.limit {
		if f.fn != nil {
			f.fn()
			f.fn = nil
			return f.w.Write(p)
		}
		n, _ := f.w.Write(p[:f.limit])
		f.limit = 0
		return n, f.err
	}
	f.limit -= len(p)
	return f.w.Write(p)
}

// previousOutput writes files where a run's output goes, as an earlier run left them.
func previousOutput(t *testing.T, dir string, names ...string) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, n := range names {
		files[n] = "previous " + n + "\n"
		if err := os.WriteFile(filepath.Join(dir, n), []byte(files[n]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// dirFiles lists every entry of dir, hidden ones included, with its content.
func dirFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// TestFailedWriteKeepsPreviousOutput: a write that fails part way (a full disk, a file too large)
// or a run stopped part way (SIGINT cancels ctx) leaves every earlier file of those names as it was,
// and no partial file, temporary or not; the error says why. The database is among those files.
func TestFailedWriteKeepsPreviousOutput(t *testing.T) {
	names := []string{"p_results.json", "p_agent_info.csv", "p_counter_collection.csv", "p_kernel_trace.csv", "p_results.db", "p_results.pftrace"}
	interrupted := errors.New("interrupted by SIGINT")
	tests := []struct {
		name    string
		file    string // the output file that fails
		limit   int    // bytes it takes first
		err     error
		signal  bool // cancel the run at that point instead
		wantErr string
	}{
		{"disk full in results.json", "p_results.json", 1000, syscall.ENOSPC, false, "no space left on device"},
		{"file too large in the last CSV", "p_kernel_trace.csv", 200, syscall.EFBIG, false, "file too large"},
		{"disk full in the first write", "p_agent_info.csv", 0, syscall.ENOSPC, false, "no space left on device"},
		{"signal while writing results.json", "p_results.json", 3000, nil, true, "interrupted by SIGINT"},
		{"signal while writing a CSV", "p_counter_collection.csv", 500, nil, true, "interrupted by SIGINT"},
		{"disk full in the trace", "p_results.pftrace", 2000, syscall.ENOSPC, false, "no space left on device"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			before := previousOutput(t, dir, names...)
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			opts := Options{Dir: dir, File: "p", Formats: []string{"json", "csv", "rocpd", "pftrace"}, KernelTrace: true}
			opts.wrap = func(name string, w io.Writer) io.Writer {
				if name != tc.file {
					return w
				}
				f := &failAfter{w: w, limit: tc.limit, err: tc.err}
				if tc.signal {
					f.fn = func() { cancel(interrupted) }
				}
				return f
			}
			paths, err := WriteProcesses(ctx, opts, []*records.Process{readFixture(t, "4242.ndjson")}, fakeCounters{})
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want one saying %q", err, tc.wantErr)
			}
			if tc.signal && !errors.Is(err, interrupted) {
				t.Errorf("err = %v, want the cause of the cancellation", err)
			}
			if len(paths) != 0 {
				t.Errorf("paths = %v, want none placed", paths)
			}
			if got := dirFiles(t, dir); !mapsEqual(got, before) {
				t.Errorf("the directory holds %v, want the previous output alone %v", keys(got), keys(before))
			}
		})
	}
}

// TestWriteReplacesPreviousOutput: a write that succeeds replaces every earlier file and leaves
// nothing else behind (the kernel trace spool included).
func TestWriteReplacesPreviousOutput(t *testing.T) {
	dir := t.TempDir()
	before := previousOutput(t, dir, "p_results.json", "p_agent_info.csv", "p_results.db")
	paths, err := Write(Options{Dir: dir, File: "p", Formats: []string{"json", "csv", "rocpd"}, KernelTrace: true}, readFixture(t, "4242.ndjson"), fakeCounters{})
	if err != nil {
		t.Fatal(err)
	}
	got := dirFiles(t, dir)
	want := []string{"p_agent_info.csv", "p_counter_collection.csv", "p_kernel_trace.csv", "p_results.db", "p_results.json"}
	if !slices.Equal(keys(got), want) || len(paths) != len(want) {
		t.Fatalf("the directory holds %v (paths %v), want %v", keys(got), paths, want)
	}
	for n, old := range before {
		if got[n] == old {
			t.Errorf("%s still holds the previous output", n)
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// nobody is the user the ownership tests give directories to: another user than root.
const nobody = 65534

// chown gives path to uid; the tests run as root, which may.
func chown(t *testing.T, path string, uid int, mode os.FileMode) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("giving a directory to another user needs root")
	}
	if err := os.Lchown(path, uid, uid); err != nil {
		t.Fatal(err)
	}
	if mode != 0 {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPlantedSymlinksAreNotFollowed, as whoever runs the tests (root here): a symbolic link where
// an output file goes is replaced, never written through; one where a directory below -d goes is
// refused.
func TestPlantedSymlinksAreNotFollowed(t *testing.T) {
	plantedLinks(t, t.TempDir(), t.TempDir())
}

// envUserDir hands the directory of TestPlantedSymlinksAsOrdinaryUser to the test binary it runs.
const envUserDir = "GOROCPROF_TEST_ORDINARY_USER_DIR"

// TestPlantedSymlinksAsOrdinaryUser: the same as an ordinary user. Run as root, it runs this test
// again in a copy of the test binary as uid 65534, in a directory of that user's.
func TestPlantedSymlinksAsOrdinaryUser(t *testing.T) {
	if dir := os.Getenv(envUserDir); dir != "" {
		if os.Geteuid() != nobody {
			t.Fatalf("running as uid %d, want %d", os.Geteuid(), nobody)
		}
		plantedLinks(t, dir, t.TempDir())
		return
	}
	if os.Geteuid() != 0 {
		plantedLinks(t, t.TempDir(), t.TempDir())
		return
	}
	base := t.TempDir()
	for _, d := range []string{filepath.Dir(base), base} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(base, "output.test")
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "user")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	chown(t, dir, nobody, 0)
	cmd := exec.Command(bin, "-test.run=^TestPlantedSymlinksAsOrdinaryUser$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), envUserDir+"="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestPlantedSymlinksAsOrdinaryUser") {
		t.Fatalf("as uid %d: %v\n%s", nobody, err, out)
	}
}

// plantedLinks writes in dir with links planted to elsewhere.
func plantedLinks(t *testing.T, dir, elsewhere string) {
	target := filepath.Join(elsewhere, "passwd")
	if err := os.WriteFile(target, []byte("root:x:0:0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "p_results.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(dir, "host")); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(Options{Dir: dir, File: "p", Formats: []string{"json"}}, readFixture(t, "4242.ndjson"), fakeCounters{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "root:x:0:0\n" {
		t.Errorf("the link's target was written: %.40q", b)
	}
	if info, err := os.Lstat(filepath.Join(dir, "p_results.json")); err != nil || !info.Mode().IsRegular() {
		t.Errorf("p_results.json should be a file of its own now: %v, %v", info, err)
	}

	_, err := Write(Options{Dir: dir, File: "host/p", Formats: []string{"json"}}, readFixture(t, "4242.ndjson"), fakeCounters{})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "host")+" is a symbolic link") {
		t.Fatalf("err = %v, want the link below -d refused", err)
	}
	if got := dirFiles(t, elsewhere); len(got) != 1 {
		t.Errorf("files written through the link: %v", keys(got))
	}
	if err := CheckLocation(dir, "host/p", true); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Errorf("CheckLocation: %v, want the link refused before launch", err)
	}
}

// TestOwnerRule: which directories gorocprof writes in, for root and for an ordinary user.
func TestOwnerRule(t *testing.T) {
	tests := []struct {
		uid, owner int
		mode       os.FileMode
		ok         bool
	}{
		{0, 0, 0o755, true},                       // root in its own directory
		{0, nobody, 0o755, false},                 // root in another user's directory (the attack)
		{0, nobody, 0o777 | os.ModeSticky, false}, // sticky, but its owner may replace our entries
		{0, 0, 0o777 | os.ModeSticky, true},       // /tmp
		{nobody, nobody, 0o755, true},             // a user in their own directory
		{nobody, nobody, 0o777, true},             // ... which is theirs to share
		{nobody, 0, 0o777 | os.ModeSticky, true},  // a user in /tmp
		{nobody, 0, 0o777, false},                 // root's, writable by all, not sticky
		{nobody, 1000, 0o777 | os.ModeSticky, false},
	}
	for _, tc := range tests {
		dir := filepath.Join(t.TempDir(), "d")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		chown(t, dir, tc.owner, tc.mode)
		info, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		err = ownerError(dir, info, tc.uid)
		if (err == nil) != tc.ok {
			t.Errorf("uid %d in a directory of uid %d, mode %v: err = %v, want ok=%v", tc.uid, tc.owner, tc.mode, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "belongs to another user") {
			t.Errorf("unclear refusal: %v", err)
		}
	}
}

// TestForeignOutputDirectoryRefused, as root: -d in another user's directory is refused before
// launch and at write time, and so are directories below it; a planted link there stays as it was.
func TestForeignOutputDirectoryRefused(t *testing.T) {
	base := t.TempDir()
	foreign := filepath.Join(base, "foreign")
	if err := os.Mkdir(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(base, "shadow")
	if err := os.WriteFile(target, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(foreign, "p_results.json")); err != nil {
		t.Fatal(err)
	}
	chown(t, filepath.Join(foreign, "p_results.json"), nobody, 0)
	chown(t, foreign, nobody, 0o755)
	mine := filepath.Join(base, "mine")
	if err := os.MkdirAll(filepath.Join(mine, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	chown(t, filepath.Join(mine, "sub"), nobody, 0o755)
	for _, tc := range []struct{ dir, file, refused string }{
		{foreign, "p", foreign},
		{filepath.Join(foreign, "new"), "p", foreign}, // created in it
		{mine, "sub/p", filepath.Join(mine, "sub")},
	} {
		if err := CheckLocation(tc.dir, tc.file, true); err == nil || !strings.Contains(err.Error(), "refusing to write in "+tc.refused) {
			t.Errorf("CheckLocation(%s, %s) = %v, want %s refused", tc.dir, tc.file, err, tc.refused)
		}
		_, err := Write(Options{Dir: tc.dir, File: tc.file, Formats: []string{"json"}}, readFixture(t, "4242.ndjson"), fakeCounters{})
		if err == nil || !strings.Contains(err.Error(), "refusing to write in "+tc.refused) {
			t.Errorf("Write(%s, %s) = %v, want %s refused", tc.dir, tc.file, err, tc.refused)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "keep\n" {
		t.Errorf("the link's target was written: %.40q", b)
	}
	if _, err := os.Stat(filepath.Join(foreign, "new")); err == nil {
		t.Errorf("a directory was created in another user's directory")
	}
}

// TestStickyDirectoryOtherUsersName: in a sticky directory of root's (a /tmp), another user's
// entry under an output name is refused, not replaced, and what it points to is untouched.
func TestStickyDirectoryOtherUsersName(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tmp")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	chown(t, dir, 0, 0o777|os.ModeSticky)
	target := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(target, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "p_results.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	chown(t, link, nobody, 0)
	_, err := Write(Options{Dir: dir, File: "p", Formats: []string{"json"}}, readFixture(t, "4242.ndjson"), fakeCounters{})
	if err == nil || !strings.Contains(err.Error(), "belongs to another user (uid 65534) in a shared directory") {
		t.Fatalf("err = %v, want the other user's name refused", err)
	}
	if got := dirFiles(t, dir); len(got) != 1 {
		t.Errorf("the directory holds %v, want the other user's entry alone", keys(got))
	}
	if b, _ := os.ReadFile(target); string(b) != "keep\n" {
		t.Errorf("the link's target was written: %.40q", b)
	}
	// A name of our own there is ours to replace.
	if _, err := Write(Options{Dir: dir, File: "q", Formats: []string{"json"}}, readFixture(t, "4242.ndjson"), fakeCounters{}); err != nil {
		t.Errorf("writing a new name in a sticky directory of root's: %v", err)
	}
}

// TestSeveralProcessesShareAPrefix: processes written under one prefix (a fixed -o) are all kept:
// results.json holds each one's element, exactly as it alone would have it, in order; each CSV
// file the rows of each in turn under one header, agent_info.csv an agent that both share once.
func TestSeveralProcessesShareAPrefix(t *testing.T) {
	opts := Options{Formats: []string{"json", "csv"}, KernelTrace: true}
	alone := map[string]map[string]string{}
	for _, f := range []string{"4242.ndjson", "4300.ndjson"} {
		o := opts
		o.Dir, o.File = t.TempDir(), "p"
		if _, err := Write(o, readFixture(t, f), fakeCounters{}); err != nil {
			t.Fatal(err)
		}
		alone[f] = dirFiles(t, o.Dir)
	}
	opts.Dir, opts.File = t.TempDir(), "p"
	procs := []*records.Process{readFixture(t, "4242.ndjson"), readFixture(t, "4300.ndjson")}
	paths, err := WriteProcesses(context.Background(), opts, procs, fakeCounters{})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 4 {
		t.Fatalf("paths = %v, want the four files once", paths)
	}
	got := dirFiles(t, opts.Dir)
	a, b := alone["4242.ndjson"], alone["4300.ndjson"]

	const open, end = `{"rocprofiler-sdk-tool":[`, "]}\n"
	element := func(doc string) string { return strings.TrimSuffix(strings.TrimPrefix(doc, open), end) }
	if want := open + element(a["p_results.json"]) + ",\n" + element(b["p_results.json"]) + end; got["p_results.json"] != want {
		t.Errorf("results.json is not the two processes' elements in order")
	}
	for _, name := range []string{"p_counter_collection.csv", "p_kernel_trace.csv"} {
		_, rowsB, _ := strings.Cut(b[name], "\n")
		if want := a[name] + rowsB; got[name] != want {
			t.Errorf("%s is not the rows of both processes under one header:\n%s", name, got[name])
		}
	}
	var agents []string
	for _, doc := range []string{a["p_agent_info.csv"], b["p_agent_info.csv"]} {
		for _, line := range strings.SplitAfter(doc, "\n") {
			if line != "" && !slices.Contains(agents, line) {
				agents = append(agents, line)
			}
		}
	}
	if want := strings.Join(agents, ""); got["p_agent_info.csv"] != want {
		t.Errorf("agent_info.csv = \n%s\nwant every distinct agent row once:\n%s", got["p_agent_info.csv"], want)
	}

	raw, err := os.ReadFile(filepath.Join("testdata", "results_schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema schemaNode
	var doc map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(got["p_results.json"]), &doc); err != nil {
		t.Fatalf("results.json is not valid JSON: %v", err)
	}
	if n := len(doc["rocprofiler-sdk-tool"].([]any)); n != 2 {
		t.Errorf("results.json holds %d elements, want one per process", n)
	}
	for _, e := range validate(&schema, doc, "$") {
		t.Error(e)
	}
}

// TestWriteFile: compare's report is written like the output files: a planted link is replaced,
// not written through, and another user's directory is refused.
func TestWriteFile(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	target := filepath.Join(elsewhere, "target")
	if err := os.WriteFile(target, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "compare.json")
	if err := os.Symlink(target, report); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(report, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep\n" {
		t.Errorf("the link's target was written: %q", b)
	}
	if got := dirFiles(t, dir); !mapsEqual(got, map[string]string{"compare.json": "{}\n"}) {
		t.Errorf("the directory holds %v, want compare.json alone", got)
	}
	chown(t, elsewhere, nobody, 0o755)
	err := WriteFile(filepath.Join(elsewhere, "compare.json"), []byte("{}\n"))
	if err == nil || !strings.Contains(err.Error(), "refusing to write in "+elsewhere) {
		t.Errorf("WriteFile in another user's directory: %v, want it refused", err)
	}
	if err := CheckFile(filepath.Join(elsewhere, "compare.json")); err == nil || !strings.Contains(err.Error(), "refusing to write in") {
		t.Errorf("CheckFile in another user's directory: %v, want it refused before launch", err)
	}
}

// TestEmptyDirIsTheWorkingDirectory: Dir "" writes where a relative path would, as before.
func TestEmptyDirIsTheWorkingDirectory(t *testing.T) {
	proc, dir := readFixture(t, "4242.ndjson"), t.TempDir()
	t.Chdir(dir)
	paths, err := Write(Options{File: "p", Formats: []string{"csv"}}, proc, fakeCounters{})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 || paths[0] != "p_agent_info.csv" {
		t.Errorf("paths = %v, want p_agent_info.csv and p_counter_collection.csv", paths)
	}
	if _, err := os.Stat(filepath.Join(dir, "p_agent_info.csv")); err != nil {
		t.Error(err)
	}
}
