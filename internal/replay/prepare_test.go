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

	"github.com/gorocprof/gorocprof/internal/backend/backendtest"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/launch"
)

// Under --backend auto the application is looked up before the backend is chosen: a missing one is
// named, and no query helper is asked anything.
func TestPrepareLooksUpTheApplicationFirst(t *testing.T) {
	f := backendtest.New("fake", 1, fakeMetrics...)
	prepare := NewPreparer(f.Chooser())
	dir := t.TempDir()
	for _, tc := range []struct{ app, want string }{
		{filepath.Join(dir, "nope"), "not found"},
		{dir, "is a directory"},
	} {
		_, err := prepare(context.Background(), Request{Backend: "auto", App: tc.app, Groups: mustGroups(t, "sm__inst_executed.sum")})
		if !errors.Is(err, launch.ErrApp) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Prepare(app %s) = %v, want an application error saying %q", tc.app, err, tc.want)
		}
	}
	if got := f.Calls(); len(got) != 0 {
		t.Errorf("the backend was asked %q before the application was found", got)
	}
}

// One preparer plans every job of a sweep against one session: the agents are read once, each job's
// catalog is that of its counters, an unknown counter is found without launching anything, and Run
// reuses the plan.
func TestPreparerPlansEveryJobOnOneSession(t *testing.T) {
	f := backendtest.New("fake", 1, fakeMetrics...)
	prepare := NewPreparer(f.Chooser())
	base := Request{Backend: "fake", App: "sh"}
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
	var got []string
	for _, c := range f.Calls() {
		if !strings.HasPrefix(c, "passes") {
			got = append(got, c)
		}
	}
	want := []string{"agents ahead sm__inst_executed.sum", "catalog 0 sm__inst_executed.sum", "catalog 0 sm__warps_launched.sum", "catalog 0 no__such_metric.sum"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("three jobs asked the backend %q, want the agents once and each job's catalog", got)
	}
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
// the GPU; the message says so, with what the backend says it needs.
func TestNoRecordsSaysTheGPUWasNotTouched(t *testing.T) {
	exited := launch.Status{ExitCode: 0}
	killed := launch.Status{ExitCode: 137, Signal: syscall.SIGKILL}
	silent, telling := backendtest.New("fake", 1), backendtest.New("fake", 1)
	telling.Reason = "it never started the fake runtime"
	tests := []struct {
		b    *backendtest.Fake
		st   launch.Status
		want string
	}{
		{silent, exited, "nothing was measured: sh exited before it touched the GPU"},
		{telling, exited, "nothing was measured: sh exited before it touched the GPU (it never started the fake runtime)"},
		{telling, killed, "nothing was measured: sh ended before it touched the GPU (it never started the fake runtime)"},
	}
	for _, tc := range tests {
		err := noRecords(Request{App: "sh"}, &Session{Backend: tc.b}, tc.st)
		if err == nil || err.Error() != tc.want {
			t.Errorf("noRecords(%q, %v) = %v, want %q", tc.b.Reason, tc.st, err, tc.want)
		}
	}
}

// A backend without a tool library to inject is refused before launch, naming itself; with nothing
// to launch (avail, plan) it plans.
func TestPrepareRefusesABackendWithoutATool(t *testing.T) {
	f := backendtest.New("fake", 1, fakeMetrics...)
	f.NoTool = true
	marker := filepath.Join(t.TempDir(), "ran")
	req := Request{Backend: "fake", App: "sh", Args: []string{"-c", "touch " + marker}, Groups: mustGroups(t, "sm__inst_executed.sum"), Quiet: true}
	if _, err := NewPreparer(f.Chooser())(context.Background(), req); err == nil || err.Error() != "backend fake: a fake backend without a tool launches nothing" {
		t.Errorf("prepare = %v, want the backend's refusal", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the application ran")
	}
	req.App = ""
	if got, err := NewPreparer(f.Chooser())(context.Background(), req); err != nil || got.prepared == nil {
		t.Errorf("prepare without an application = %v", err)
	}
}
