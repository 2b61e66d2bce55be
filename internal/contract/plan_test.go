package contract

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gorocprof/gorocprof/internal/golden"
)

func fixturePlan() Plan {
	return Plan{Version: 1, Backend: "sim", ReplayMode: ModeApplication, ApplicationPass: 1, KernelTrace: true,
		Filters: Filters{IncludeRegex: "ax", NameKind: "demangled", IterationRanges: [][2]int64{{1, 3}}},
		Agents: []PlanAgent{
			{Index: 0, Number: 1, Name: "gfx90a", Passes: []PlanPass{
				{Group: 0, Requested: []string{"SQ_WAVES", "Waves"}, Base: []PlanCounter{{Name: "SQ_WAVES", Block: "SQ", Event: 4}}},
				{Group: 0, Base: []PlanCounter{}},
			}},
			{Index: 1, Number: 2, Name: "gfx942", Passes: []PlanPass{}, Notes: []PlanNote{{Kind: NoteDropped, Message: "group 1 is dropped"}}},
		}}
}

// The plan file carries the tool's part of the plan only (no user counters, no notes), in the shape
// docs/record-format.md gives and the tool parses; the golden file is what the front end wrote before
// the plan had one type.
func TestPlanFileEncoding(t *testing.T) {
	data, err := fixturePlan().Encode()
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "plan.json"), data)

	var back Plan
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	want := fixturePlan()
	for i := range want.Agents {
		want.Agents[i].Notes = nil
		want.Agents[i].Number = 0 // the tool matches agents by index; the plan file has no number
		for k := range want.Agents[i].Passes {
			want.Agents[i].Passes[k].Requested = nil
		}
	}
	if !reflect.DeepEqual(back, want) {
		t.Errorf("plan file read back as\n%+v\nwant\n%+v", back, want)
	}
}

// The plan as the user reads it (results.json's gorocprof_plan, plan --json): the agent's index and
// its number in the files, user counters and base counter names per pass, the notes' messages, no
// notes key when there are none.
func TestPlanAgentReport(t *testing.T) {
	got, err := json.Marshal(fixturePlan().Agents)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"agent_index":0,"logical_node_id":1,"agent_name":"gfx90a","passes":[` +
		`{"pass":0,"group":0,"counters":["SQ_WAVES","Waves"],"base_counters":["SQ_WAVES"]},` +
		`{"pass":1,"group":0,"counters":null,"base_counters":null}]},` +
		`{"agent_index":1,"logical_node_id":2,"agent_name":"gfx942","passes":[],"notes":["group 1 is dropped"]}]`
	if string(got) != want {
		t.Errorf("report form\n got %s\nwant %s", got, want)
	}
}

// Under rotation the plan file says how many dispatches of an agent collect a pass before the next
// takes over; the other modes have no group_interval (TestPlanFileEncoding's golden file).
func TestPlanFileEncodingRotation(t *testing.T) {
	p := fixturePlan()
	p.ReplayMode, p.ApplicationPass, p.GroupInterval = ModeRotation, -1, 4
	data, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "plan-rotation.json"), data)
	var back Plan
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.ReplayMode != ModeRotation || back.GroupInterval != 4 {
		t.Errorf("read back replay_mode %q group_interval %d, want rotation 4", back.ReplayMode, back.GroupInterval)
	}
}
