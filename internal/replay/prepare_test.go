package replay

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/launch"
	"github.com/gorocprof/gorocprof/internal/querycache"
)

// Under --backend auto the application is looked up before the backend is chosen: a missing one is
// named, and no query helper is asked anything.
func TestPrepareLooksUpTheApplicationFirst(t *testing.T) {
	log := fakeCUDAMachine(t)
	dir := t.TempDir()
	for _, tc := range []struct{ app, want string }{
		{filepath.Join(dir, "nope"), "not found"},
		{dir, "is a directory"},
	} {
		_, err := Prepare(context.Background(), Request{Backend: launch.BackendAuto, App: tc.app, Groups: mustGroups(t, "sm__inst_executed.sum")})
		if !errors.Is(err, launch.ErrApp) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Prepare(app %s) = %v, want an application error saying %q", tc.app, err, tc.want)
		}
	}
	if got := helperCalls(t, log); len(got) != 0 {
		t.Errorf("the query helper was asked %q before the application was found", got)
	}
}

// One preparer plans every job of a sweep against one session: the agents and the catalog are read
// once, an unknown counter is found without launching anything, and Run reuses the plan.
func TestPreparerPlansEveryJobOnOneSession(t *testing.T) {
	log := fakeCUDAMachine(t)
	prepare := NewPreparer()
	base := Request{Backend: launch.BackendCUDA, App: "sh"}
	for _, names := range [][]string{{"sm__inst_executed.sum"}, {"sm__warps_launched.sum"}} {
		req := base
		req.Groups = mustGroups(t, names...)
		got, err := prepare(context.Background(), req)
		if err != nil || got.prepared == nil || len(got.prepared.plan.Agents) != 1 {
			t.Fatalf("prepare(%v) = %+v, %v", names, got.prepared, err)
		}
	}
	bad := base
	bad.Groups = mustGroups(t, "no__such_metric.sum")
	if _, err := prepare(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "no__such_metric.sum") {
		t.Errorf("an unknown metric: %v, want an error naming it", err)
	}
	calls := helperCalls(t, log)
	if n := strings.Count(strings.Join(calls, "\n"), "agents"); n != 1 || !reflect.DeepEqual(calls[:2], []string{"agents", "metrics --agent 0"}) {
		t.Errorf("three jobs asked the helper %q, want the agents and the metrics once", calls)
	}
}

// fakeCUDAMachine is a machine with one H200 answered by the fake query helper, no query cache; it
// returns the helper's log.
func fakeCUDAMachine(t *testing.T) string {
	t.Helper()
	lib, log := fakeCUDALib(t, 1)
	t.Setenv(launch.EnvLibDir, lib)
	t.Setenv(querycache.EnvCache, "off")
	fakeNVIDIAProc(t, true)
	return log
}

func mustGroups(t *testing.T, names ...string) []counters.Group {
	t.Helper()
	g, err := counters.ParseGroups([]string{strings.Join(names, " ")})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// A run whose processes wrote no record measured nothing because the application never touched
// the GPU; the message says so, with what the backend needs.
func TestNoRecordsSaysTheGPUWasNotTouched(t *testing.T) {
	exited := launch.Status{ExitCode: 0}
	killed := launch.Status{ExitCode: 137, Signal: syscall.SIGKILL}
	sim, cuda := &Session{Backend: launch.Backend{Name: launch.BackendSim}}, &Session{Backend: launch.Backend{Name: launch.BackendCUDA}}
	simApp, err := filepath.Abs("../../bin/sim-demo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(simApp); err != nil {
		simApp = "" // the build is not there: only the other cases run
	}
	tests := []struct {
		app  string
		sess *Session
		st   launch.Status
		want string
	}{
		{"sh", sim, exited, "nothing was measured: sh exited before it touched the GPU (it does not link libgorocprof_sim.so"},
		{"sh", cuda, killed, "nothing was measured: sh ended before it touched the GPU (it never initialised CUDA"},
		{simApp, sim, exited, "exited before it touched the GPU (it made no call to the simulated agents' runtime)"},
	}
	for _, tc := range tests {
		if tc.app == "" {
			continue
		}
		err := noRecords(Request{App: tc.app}, tc.sess, tc.st)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "is it a") {
			t.Errorf("noRecords(%s, %s, %v) = %v, want %q", tc.app, tc.sess.Backend.Name, tc.st, err, tc.want)
		}
	}
}
