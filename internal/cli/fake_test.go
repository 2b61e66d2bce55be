package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/gorocprof/gorocprof/internal/launch"
	"github.com/gorocprof/gorocprof/internal/replay"
)

// fakePrepare stands in for replay's Prepare in the scripts: a counter whose name begins with
// NO_SUCH_ is in no agent's catalog. The application is not looked up.
func fakePrepare(_ context.Context, req replay.Request) (replay.Request, error) {
	for _, g := range req.Groups {
		for _, n := range g.Names() {
			if strings.HasPrefix(n, "NO_SUCH_") {
				return req, fmt.Errorf("counter %s is not in the catalog of any agent", n)
			}
		}
	}
	return req, nil
}

// fakeRun stands in for replay.Run in the scripts: it writes one file into the job's output
// directory, naming the mode and groups it was asked for. A directory whose name contains "fail"
// makes it end like an application that exited with status 5, one containing "broken" like a run
// whose records are incomplete, one containing "interrupt" (or "terminate") like a run during which
// gorocprof was sent SIGINT (SIGTERM), which ended the application.
func fakeRun(_ context.Context, req replay.Request) (replay.Result, error) {
	if err := os.MkdirAll(req.OutputDir, 0o755); err != nil {
		return replay.Result{}, err
	}
	groups := [][]string{}
	for _, g := range req.Groups {
		groups = append(groups, g.Names())
	}
	data, err := json.Marshal(map[string]any{"mode": req.Mode, "groups": groups})
	if err != nil {
		return replay.Result{}, err
	}
	path := filepath.Join(req.OutputDir, "fake_results.json")
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return replay.Result{}, err
	}
	res := replay.Result{Files: []string{path}}
	for word, sig := range map[string]syscall.Signal{"interrupt": syscall.SIGINT, "terminate": syscall.SIGTERM} {
		if strings.Contains(req.OutputDir, word) {
			// A user's Ctrl-C (or kill) reaches gorocprof while its application runs, and ends
			// the application too.
			if err := syscall.Kill(os.Getpid(), sig); err != nil {
				return res, err
			}
			time.Sleep(100 * time.Millisecond)
			res.ExitCode, res.Signal = 128+int(sig), launch.SignalName(sig)
			return res, nil
		}
	}
	switch {
	case strings.Contains(req.OutputDir, "fail"):
		res.ExitCode = 5
	case strings.Contains(req.OutputDir, "broken"):
		return res, errors.New("fake: profiling incomplete: dispatch 3 was not replayed")
	}
	return res, nil
}

// fakeCompare stands in for replay.Compare: every counter has the mean 10 in both modes, except
// one named DIFFERENT, which has 11 under application replay; an application named "crash" fails
// its kernel replay run with status 6, one named "nondet" diverges once under application replay.
// Kernel replay takes 1 s, application replay 3 s.
func fakeCompare(_ context.Context, req replay.CompareRequest) (replay.CompareReport, error) {
	rep := replay.CompareReport{App: req.App, Args: req.Args, Rows: []replay.CompareRow{}, Divergences: []replay.Divergence{},
		Kernel:      replay.ModeRun{WallSeconds: 1, Dispatches: 2},
		Application: replay.ModeRun{WallSeconds: 3, Dispatches: 2}, WallRatio: 3}
	if filepath.Base(req.App) == "crash" {
		rep.Kernel.ExitCode = 6
		return rep, errors.New("kernel replay run of crash failed")
	}
	names := map[string]bool{}
	for _, g := range req.Groups {
		for _, n := range g.Names() {
			names[n] = true
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	rtol := math.Max(req.RTol, 0)
	for _, n := range sorted {
		k, a := 10.0, 10.0
		if n == "DIFFERENT" {
			a = 11
		}
		d := a - k
		// ./nondet dispatches once less under application replay, as sim-nondet may.
		calls := 2
		if filepath.Base(req.App) == "nondet" {
			calls = 1
		}
		row := replay.CompareRow{Kernel: "kernel()", AgentNumber: 1, Counter: n, KernelDispatches: 2, ApplicationDispatches: calls,
			KernelValue: &k, ApplicationValue: &a, Difference: &d, RTol: rtol,
			Agree: math.Abs(d) <= rtol*math.Max(k, a) && calls == 2}
		if !row.Agree {
			rep.Differences++
		}
		rep.Rows = append(rep.Rows, row)
	}
	if filepath.Base(req.App) == "nondet" {
		rep.Divergences = append(rep.Divergences, replay.Divergence{Process: 1, Number: 1, Kernel: "k()", Symbol: "_Z1kv", Ordinal: 3, Pass: 2,
			Kind: replay.DivergenceMissing, Count: 1,
			Detail: "process 1: pass 2 ran 1 dispatch fewer of kernel k() on Agent 1 than pass 1, from the kernel's dispatch #3"})
		rep.Differences++
	}
	return rep, nil
}
