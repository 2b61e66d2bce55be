package replay

import (
	"context"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/backend"
	"github.com/gorocprof/gorocprof/internal/backend/backendtest"
	"github.com/gorocprof/gorocprof/internal/backend/helper"
	"github.com/gorocprof/gorocprof/internal/counters"
)

// fakeMetrics are the fake backend's catalog in these tests.
var fakeMetrics = []string{"sm__inst_executed.sum", "sm__warps_launched.sum", "smsp__inst_executed_op_global_ld.sum"}

func sessionOn(t *testing.T, f *backendtest.Fake, pmc ...string) (*Session, *counters.Plan) {
	t.Helper()
	groups, err := counters.ParseGroups(pmc)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := OpenSession(context.Background(), f.Chooser(), backend.Choice{Name: f.Name()}, "")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := sess.Plan(groups)
	if err != nil {
		t.Fatal(err)
	}
	return sess, plan
}

// A session asks its backend for the agents once and for each agent's catalog once; the planner's
// pass questions go to the catalog.
func TestOpenSessionAsksTheBackend(t *testing.T) {
	f := backendtest.New("fake", 2, fakeMetrics...)
	f.SlotsPerPass, f.Slots["sm__warps_launched.sum"] = 2, 2
	sess, plan := sessionOn(t, f, "sm__inst_executed.sum sm__warps_launched.sum")
	if len(sess.Agents) != 2 || len(sess.Targets) != 2 || sess.Backend.Name() != "fake" {
		t.Fatalf("session %+v", sess)
	}
	for _, a := range plan.Agents {
		if len(a.Passes) != 2 {
			t.Errorf("agent %d: %d passes, want the group split in 2", a.Index, len(a.Passes))
		}
	}
	calls := f.Calls()
	if calls[0] != "agents" || calls[1] != "catalog 0" || calls[2] != "catalog 1" {
		t.Errorf("the session asked %q, want the agents, then each catalog", calls)
	}
}

// A backend that lists no agent is named.
func TestOpenSessionNoAgents(t *testing.T) {
	f := backendtest.New("fake", 0)
	_, err := OpenSession(context.Background(), f.Chooser(), backend.Choice{Name: "fake"}, "")
	if err == nil || err.Error() != "backend fake reports no agents" {
		t.Errorf("OpenSession on no agents: %v", err)
	}
}

// GOROCPROF_QUERY_TRACE=1 shows where planning's time goes, phase by phase; unset, it prints nothing.
func TestSessionTracesPlanningPhases(t *testing.T) {
	f := backendtest.New("fake", 1, fakeMetrics...)
	var buf strings.Builder
	old := traceOut
	traceOut = &buf
	t.Cleanup(func() { traceOut = old })

	t.Setenv(helper.EnvTrace, "")
	sessionOn(t, f, "sm__inst_executed.sum")
	if buf.Len() != 0 {
		t.Fatalf("traced without %s=1:\n%s", helper.EnvTrace, buf.String())
	}
	t.Setenv(helper.EnvTrace, "1")
	sessionOn(t, f, "sm__inst_executed.sum")
	re := regexp.MustCompile(`^gorocprof: planning: (backend and agents|counter catalogs): \d+ ms$`)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want the two phases of opening a session, got:\n%s", buf.String())
	}
	for _, l := range lines {
		if !re.MatchString(l) {
			t.Errorf("unexpected trace line %q", l)
		}
	}
	if got := f.Calls(); !reflect.DeepEqual(got[:2], []string{"agents", "catalog 0"}) {
		t.Errorf("calls %q", got)
	}
}
