package replay

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/e2etest"
)

// deterministicGroups are counters the simulated agents derive from the work a kernel does, so that
// two runs of the same dispatch count the same.
var deterministicGroups = []string{"SQ_WAVES SQ_INSTS_VALU", "SQ_WAVES SQ_INSTS_SALU", "SQ_INSTS_LDS SQ_INSTS_SMEM"}

func parseGroups(t *testing.T, pmc []string) []counters.Group {
	t.Helper()
	g, err := counters.ParseGroups(pmc)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// passValues reads one results.json into dispatch -> pass -> counter -> value summed over instances.
func passValues(t *testing.T, path string) map[uint64]map[int]map[string]float64 {
	t.Helper()
	rf := e2etest.ReadResults(t, path)
	if len(rf.Tool) != 1 {
		t.Fatalf("%s: %d processes, want 1", path, len(rf.Tool))
	}
	names := map[uint64]string{}
	for _, c := range rf.Tool[0].Counters {
		names[c.ID.Handle] = c.Name
	}
	out := map[uint64]map[int]map[string]float64{}
	for _, r := range rf.Tool[0].CallbackRecords.CounterCollection {
		id := r.DispatchData.DispatchInfo.DispatchID
		if r.ReplayPass == nil {
			t.Fatalf("%s: dispatch %d: a counter record without replay_pass", path, id)
		}
		if out[id] == nil {
			out[id] = map[int]map[string]float64{}
		}
		if out[id][*r.ReplayPass] != nil {
			t.Fatalf("%s: dispatch %d: pass %d appears twice", path, id, *r.ReplayPass)
		}
		vals := map[string]float64{}
		for _, s := range r.Records {
			vals[names[s.CounterID.Handle]] += s.Value
		}
		out[id][*r.ReplayPass] = vals
	}
	return out
}

// TestApplicationReplayMatchesKernelReplay: the merged result of an application replay holds, for
// every logical dispatch, every pass with the values kernel replay measures for it.
func TestApplicationReplayMatchesKernelReplay(t *testing.T) {
	root := needBuiltTool(t)
	groups := parseGroups(t, deterministicGroups)
	app := filepath.Join(root, "bin", "sim-demo")
	run := func(mode string) string {
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		res, err := Run(context.Background(), Request{Backend: "auto", Groups: groups, Mode: mode,
			OutputDir: out, OutputFile: "run", Formats: []string{"json", "csv"}, App: app, Stdout: &stdout, Stderr: &stderr})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("%s replay: exit %d, err %v\nstdout:\n%s\nstderr:\n%s", mode, res.ExitCode, err, stdout.String(), stderr.String())
		}
		if len(res.Divergences) > 0 {
			t.Fatalf("%s replay of a deterministic app diverged: %v", mode, res.Divergences)
		}
		return out
	}
	kernelOut, appOut := run(contract.ModeKernel), run(contract.ModeApplication)

	for i := range groups {
		for _, f := range []string{"run_results.json", "run_counter_collection.csv", "run_agent_info.csv"} {
			if _, err := os.Stat(filepath.Join(appOut, PassDir(i), f)); err != nil {
				t.Errorf("pass %d's own output: %v", i+1, err)
			}
		}
	}
	kernel := passValues(t, filepath.Join(kernelOut, "run_results.json"))
	merged := passValues(t, filepath.Join(appOut, "run_results.json"))
	if len(kernel) == 0 || len(merged) != len(kernel) {
		t.Fatalf("%d logical dispatches under kernel replay, %d merged from application replay", len(kernel), len(merged))
	}
	for id, kp := range kernel {
		mp := merged[id]
		if len(mp) != len(groups) || len(kp) != len(groups) {
			t.Fatalf("dispatch %d: %d passes under kernel replay, %d merged; want %d", id, len(kp), len(mp), len(groups))
		}
		for pass, kv := range kp {
			mv := mp[pass]
			if fmt.Sprint(kv) != fmt.Sprint(mv) {
				t.Errorf("dispatch %d pass %d: kernel replay %v, application replay %v", id, pass, kv, mv)
			}
		}
	}
	// Each pass's own result holds only its own pass.
	for i := range groups {
		for id, passes := range passValues(t, filepath.Join(appOut, PassDir(i), "run_results.json")) {
			if _, ok := passes[i]; len(passes) != 1 || !ok {
				t.Fatalf("pass_%d: dispatch %d holds passes %v, want only %d", i+1, id, passes, i)
			}
		}
	}
}

// TestApplicationReplayDivergence: sim-nondet dispatches another sequence on every run; the merge
// says where, keeps what matches and fails unless divergence is allowed.
func TestApplicationReplayDivergence(t *testing.T) {
	root := needBuiltTool(t)
	groups := parseGroups(t, []string{"SQ_WAVES", "SQ_INSTS_VALU", "SQ_INSTS_SALU"})
	app := filepath.Join(root, "bin", "sim-nondet")
	run := func(allow bool) (Result, error, string, string) {
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		res, err := Run(context.Background(), Request{Backend: "auto", Groups: groups, Mode: contract.ModeApplication, AllowDivergence: allow,
			OutputDir: out, OutputFile: "run", Formats: []string{"json"}, Quiet: true, App: app, Stdout: &stdout, Stderr: &stderr})
		return res, err, out, stderr.String()
	}
	// Three runs of sim-nondet dispatch the same sequence about once in ten thousand; try again then.
	var res Result
	var err error
	var out, stderr string
	for attempt := 0; attempt < 3; attempt++ {
		if res, err, out, stderr = run(false); len(res.Divergences) > 0 {
			break
		}
	}
	if len(res.Divergences) == 0 {
		t.Fatalf("three application replays of sim-nondet never diverged: err %v\n%s", err, stderr)
	}
	if !errors.Is(err, ErrDivergence) || res.ExitCode != 0 {
		t.Fatalf("diverging runs: exit %d, err %v; want ErrDivergence", res.ExitCode, err)
	}
	// The report names the first pass that differs from pass 1: pass 2, or pass 3 when pass 2 happened
	// to dispatch pass 1's sequence.
	if !regexp.MustCompile(`process 1: pass [23] ran `).MatchString(stderr) || !strings.Contains(stderr, "dispatch #") {
		t.Errorf("the divergence report does not say where:\n%s", stderr)
	}
	if _, serr := os.Stat(filepath.Join(out, "run_results.json")); serr != nil {
		t.Errorf("the merged result of what matched was not written: %v", serr)
	}

	for attempt := 0; attempt < 3; attempt++ {
		if res, err, _, stderr = run(true); len(res.Divergences) > 0 {
			break
		}
	}
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("--allow-divergence: exit %d, err %v\n%s", res.ExitCode, err, stderr)
	}
	if len(res.Divergences) > 0 && !strings.Contains(stderr, "different kernels") {
		t.Errorf("--allow-divergence must still report the divergence:\n%s", stderr)
	}
}

// TestApplicationReplayStopsAtFailingPass: a run that fails stops the remaining passes, names the
// pass, leaves the status to AppEnding, and keeps what was written.
func TestApplicationReplayStopsAtFailingPass(t *testing.T) {
	root := needBuiltTool(t)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	res, err := Run(context.Background(), Request{Backend: "auto", Groups: parseGroups(t, []string{"SQ_WAVES", "SQ_INSTS_VALU"}),
		Mode: contract.ModeApplication, OutputDir: out, OutputFile: "run", Formats: []string{"json"}, Quiet: true,
		App: filepath.Join(root, "bin", "sim-exit"), Args: []string{"7"}, Stdout: &stdout, Stderr: &stderr})
	if res.ExitCode != 7 || err == nil || !strings.Contains(err.Error(), "pass 1 of 2") {
		t.Fatalf("exit %d, err %v; want status 7 and an error naming pass 1 of 2", res.ExitCode, err)
	}
	// The status is told once, by AppEnding in the message gorocprof exits with.
	if msg := AppEnding(res.ExitCode, res.Signal) + ": " + err.Error() + stderr.String(); strings.Count(msg, "status 7") != 1 {
		t.Errorf("the status is told %d times, want once:\n%s", strings.Count(msg, "status 7"), msg)
	}
	if _, serr := os.Stat(filepath.Join(out, PassDir(0), "run_results.json")); serr != nil {
		t.Errorf("pass 1's output was not kept: %v", serr)
	}
	if _, serr := os.Stat(filepath.Join(out, PassDir(1))); !os.IsNotExist(serr) {
		t.Errorf("pass 2 ran after pass 1 failed (%v)", serr)
	}
	if _, serr := os.Stat(filepath.Join(out, "run_results.json")); !os.IsNotExist(serr) {
		t.Errorf("a merged result was written from an incomplete replay (%v)", serr)
	}
}

// TestApplicationReplayStopsAtInterruptedPass: Ctrl-C during pass 1 of an application that handles
// it and exits 0 still stops the replay there: pass 1's output is written, pass 2 never starts, no
// merged result is made, and the error carries the signal.
func TestApplicationReplayStopsAtInterruptedPass(t *testing.T) {
	root := needBuiltTool(t)
	out := t.TempDir()
	stdoutR, stdoutW := io.Pipe()
	var stderr bytes.Buffer
	type ran struct {
		res Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := Run(context.Background(), Request{Backend: "auto", Groups: parseGroups(t, []string{"SQ_WAVES", "SQ_INSTS_VALU"}),
			Mode: contract.ModeApplication, OutputDir: out, OutputFile: "run", Formats: []string{"json"}, Quiet: true,
			App: filepath.Join(root, "bin", "sim-signal"), Args: []string{"catch"}, Stdout: stdoutW, Stderr: &stderr})
		stdoutW.Close()
		done <- ran{res, err}
	}()
	lines := bufio.NewScanner(stdoutR)
	for lines.Scan() {
		if strings.Contains(lines.Text(), "waiting for SIGINT") {
			// The user's Ctrl-C reaches gorocprof, which hands it to the application.
			if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
		}
	}
	r := <-done
	var stop *PassesInterruptedError
	if !errors.As(r.err, &stop) || stop.Signal != syscall.SIGINT || stop.Pass != 1 || stop.Passes != 2 || r.res.ExitCode != 0 {
		t.Fatalf("exit %d, err %v; want the app's status 0 and SIGINT stopping pass 1 of 2\n%s", r.res.ExitCode, r.err, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, PassDir(0), "run_results.json")); err != nil {
		t.Errorf("pass 1's output was not written: %v", err)
	}
	for _, p := range []string{filepath.Join(out, PassDir(1)), filepath.Join(out, "run_results.json")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists (%v): the replay went on after the interrupted pass", p, err)
		}
	}
}

// TestCompareSimulated: kernel replay and application replay agree on sim-demo and differ on
// sim-nondet.
func TestCompareSimulated(t *testing.T) {
	root := needBuiltTool(t)
	compare := func(app string) (CompareReport, string) {
		var stdout, stderr bytes.Buffer
		rep, err := Compare(context.Background(), CompareRequest{RTol: -1, Request: Request{Backend: "auto",
			Groups: parseGroups(t, deterministicGroups), App: filepath.Join(root, "bin", app), Stdout: &stdout, Stderr: &stderr}})
		if err != nil {
			t.Fatalf("compare %s: %v\n%s", app, err, stderr.String())
		}
		if stdout.Len() != 0 {
			t.Errorf("compare wrote to stdout, which is the report's: %q", stdout.String())
		}
		return rep, stderr.String()
	}
	rep, stderr := compare("sim-demo")
	if rep.Differences != 0 || len(rep.Rows) == 0 {
		t.Fatalf("sim-demo: %d differences in %d rows\n%+v\n%s", rep.Differences, len(rep.Rows), rep.Rows, stderr)
	}
	if rep.Kernel.WallSeconds <= 0 || rep.Application.WallSeconds <= 0 || rep.WallRatio <= 0 {
		t.Errorf("wall times %+v %+v ratio %v", rep.Kernel, rep.Application, rep.WallRatio)
	}
	if rep.Kernel.Dispatches == 0 || rep.Kernel.Dispatches != rep.Application.Dispatches {
		t.Errorf("dispatches: kernel replay %d, application replay %d", rep.Kernel.Dispatches, rep.Application.Dispatches)
	}
	for attempt := 0; attempt < 3; attempt++ {
		if rep, stderr = compare("sim-nondet"); rep.Differences > 0 {
			// The report lists the divergences (compare prints them with its table); stderr must not
			// list them a second time.
			for _, d := range rep.Divergences {
				if strings.Contains(stderr, d.Detail) {
					t.Errorf("the divergence %q is listed on stderr as well as in the report", d.Detail)
				}
			}
			return
		}
	}
	t.Errorf("sim-nondet: kernel and application replay agreed three times in a row: %+v", rep)
}
