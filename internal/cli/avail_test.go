package cli

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/backend"
	"github.com/gorocprof/gorocprof/internal/golden"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
)

// Fixture agents and counters for the listing commands, shaped like a simulated gfx90a and gfx942;
// the gfx942's node id (3) is not its logical node id (2), as when a node is masked, so that a listing
// that numbers agents by index or by node id rather than by their number in the files shows.
func fixtureAgents() []AgentCounters {
	return []AgentCounters{
		{
			Agent: contract.Agent{ID: 1, Index: 0, Props: map[string]int64{"node_id": 1, "logical_node_id": 1}, Name: "gfx90a", ProductName: "AMD Instinct MI210 (simulated)", Vendor: "AMD"},
			Counters: []counters.CounterInfo{
				{Name: "GRBM_COUNT", Description: "Tie High - Count Number of Clocks", Block: "GRBM", Dimensions: []counters.Dimension{{Name: "DIMENSION_INSTANCE", Size: 1}}},
				{Name: "SQ_WAVES", Description: "Count number of waves sent to SQs.", Block: "SQ", Dimensions: []counters.Dimension{{Name: "DIMENSION_SHADER_ENGINE", Size: 8}}},
				{Name: "VALUUtilization", Description: "Percentage of active vector ALU threads. A long description wraps so that the table stays readable in a terminal of ordinary width.", Derived: true, Expression: "100*SQ_ACTIVE_INST_VALU/(GRBM_GUI_ACTIVE*CU_NUM)"},
			},
		},
		{
			Agent: contract.Agent{ID: 3, Index: 1, Props: map[string]int64{"node_id": 3, "logical_node_id": 2}, Name: "gfx942", ProductName: "AMD Instinct MI300X (simulated)", Vendor: "AMD"},
			Counters: []counters.CounterInfo{
				{Name: "SQ_WAVES", Description: "Count number of waves sent to SQs.", Block: "SQ", Dimensions: []counters.Dimension{{Name: "DIMENSION_XCC", Size: 8}, {Name: "DIMENSION_SHADER_ENGINE", Size: 0}}},
			},
		},
	}
}

func fixturePlan(_ context.Context, c backend.Choice, _ *counters.Extra, groups []counters.Group) ([]contract.PlanAgent, error) {
	if c.Name != "sim" {
		return nil, errors.New("fixture planner knows only the sim backend")
	}
	var passes []contract.PlanPass
	for i, g := range groups {
		var base []contract.PlanCounter
		for _, n := range g.Names() {
			base = append(base, contract.PlanCounter{Name: n, Block: "SQ"})
		}
		passes = append(passes, contract.PlanPass{Group: i, Requested: g.Names(), Base: base})
	}
	return []contract.PlanAgent{
		{Index: 0, Number: 1, Name: "gfx90a", Passes: passes},
		{Index: 1, Number: 2, Name: "gfx942", Passes: []contract.PlanPass{}, Notes: []contract.PlanNote{{Kind: contract.NoteDropped,
			Message: "group 1 dropped: none of its counters exist on gfx942"}}},
	}, nil
}

func TestListingGolden(t *testing.T) {
	clearEnv(t)
	var gotBackend string
	avail := func(_ context.Context, c backend.Choice, _ *counters.Extra) ([]AgentCounters, error) {
		gotBackend = c.Name
		return fixtureAgents(), nil
	}
	tests := []struct {
		golden string
		args   []string
		env    map[string]string
	}{
		{"avail.txt", []string{"avail"}, nil},
		{"avail.txt", []string{"-L"}, nil},
		{"avail-agent2.txt", []string{"avail", "--agent", "2"}, nil},
		{"avail-agent2.txt", []string{"avail", "--agent", "GPU:1"}, nil},
		{"avail-agent2.txt", []string{"avail", "--agent", "gpu-1"}, nil},
		{"avail.json", []string{"avail", "--json"}, nil},
		{"plan.txt", []string{"plan", "--backend", "sim", "--pmc", "SQ_WAVES", "GRBM_COUNT", "--pmc", "SQ_INSTS_VALU"}, nil},
		{"plan.txt", []string{"plan"}, map[string]string{"GOROCPROF_BACKEND": "sim", "GOROCPROF_PMC": "SQ_WAVES,GRBM_COUNT;SQ_INSTS_VALU"}},
		{"plan.json", []string{"--backend=sim", "plan", "--json", "--pmc", "SQ_WAVES", "GRBM_COUNT", "--pmc", "SQ_INSTS_VALU"}, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var out, errOut bytes.Buffer
			f := &Factory{IO: IOStreams{Out: &out, ErrOut: &errOut}, AvailData: avail, PlanData: fixturePlan}
			if err := Execute(context.Background(), NewRootCmd(f), tt.args); err != nil {
				t.Fatalf("%v (stderr %q)", err, errOut.String())
			}
			checkGolden(t, filepath.Join("testdata", tt.golden), out.Bytes())
		})
	}
	if gotBackend != defaultBackend {
		t.Errorf("avail asked backend %q, want the default %q", gotBackend, defaultBackend)
	}
}

func TestListingErrors(t *testing.T) {
	clearEnv(t)
	avail := func(context.Context, backend.Choice, *counters.Extra) ([]AgentCounters, error) {
		return fixtureAgents(), nil
	}
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"avail", "--agent", "5"}, 1, "--agent 5: there is no Agent 5 (agents: Agent 1 (GPU 0, gfx90a), Agent 2 (GPU 1, gfx942))"},
		{[]string{"avail", "--agent", "0"}, 1, "--agent 0: there is no Agent 0 (agents: Agent 1 (GPU 0, gfx90a), Agent 2 (GPU 1, gfx942))"},
		{[]string{"avail", "--agent", "3"}, 1, "--agent 3: there is no Agent 3 (agents: "}, // a node id is not the number
		{[]string{"avail", "--agent", "GPU:2"}, 1, "--agent GPU:2: there is no GPU 2 (agents: Agent 1 (GPU 0, gfx90a), Agent 2 (GPU 1, gfx942))"},
		{[]string{"avail", "--agent", "gpu:"}, 2, `invalid argument "gpu:" for "--agent" flag: expected an agent's number as avail prints it: N for Agent N, GPU:N for GPU N`},
		{[]string{"plan", "--backend", "sim"}, 1, "plan needs counters: give at least one --pmc group"},
		{[]string{"plan", "--backend", "sim", "--pmc", "A", "--pmc", "--pmc", "B"}, 1, "Empty counter group in --pmc flag 2. Each --pmc must specify at least one counter."},
		{[]string{"plan", "--backend", "cuda", "--pmc", "A"}, 1, "planning on backend cuda: fixture planner knows only the sim backend"},
		{[]string{"avail", "extra"}, 1, `no counter of the agents matches "extra" (see gorocprof avail)`},
		{[]string{"avail", "--agent", "one"}, 2, `invalid argument "one" for "--agent" flag`},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		f := &Factory{IO: IOStreams{Out: &out, ErrOut: &errOut}, AvailData: avail, PlanData: fixturePlan}
		err := Execute(context.Background(), NewRootCmd(f), tt.args)
		PrintError(&errOut, err)
		if ExitCode(err) != tt.code || !strings.Contains(errOut.String(), tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tt.args, ExitCode(err), errOut.String(), tt.code, tt.want)
		}
	}
}

func TestPlanPassesParsedGroups(t *testing.T) {
	clearEnv(t)
	var got []counters.Group
	f := &Factory{IO: IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}},
		PlanData: func(_ context.Context, _ backend.Choice, _ *counters.Extra, groups []counters.Group) ([]contract.PlanAgent, error) {
			got = groups
			return nil, nil
		}}
	if err := Execute(context.Background(), NewRootCmd(f), []string{"plan", "--pmc", "B", "A", "B"}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"A", "B"}; len(got) != 1 || !reflect.DeepEqual(got[0].Names(), want) {
		t.Errorf("groups %+v, want one group %v", got, want)
	}
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	golden.Check(t, path, got)
}

func TestWrapExpression(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  string
	}{
		{"A+B", 60, "A+B"},
		{"(WRITE_SIZE*1024+TCC_BUBBLE_sum*128)/reduce(GRBM_GUI_ACTIVE,max)", 20,
			"(WRITE_SIZE*1024+\nTCC_BUBBLE_sum*128)/\nreduce(GRBM_GUI_ACTIVE,\nmax)"},
		{"VERY_LONG_NAME_WITHOUT_OPERATORS", 10, "VERY_LONG_NAME_WITHOUT_OPERATORS"},
	}
	for _, tt := range tests {
		if got := wrapExpression(tt.in, tt.width); got != tt.want {
			t.Errorf("wrapExpression(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
		if got := strings.ReplaceAll(wrapExpression(tt.in, tt.width), "\n", ""); got != tt.in {
			t.Errorf("wrapping %q lost characters: %q", tt.in, got)
		}
	}
}
