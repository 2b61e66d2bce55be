package cuda

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// envFakeHelper makes the test binary the CUDA query helper (fakeCUDALib's script runs it so): it answers
// from the H200 recordings, `metrics --only` by looking the names up in the recorded catalog.
const envFakeHelper = "GOROCPROF_TEST_FAKE_CUDA_HELPER"

func TestMain(m *testing.M) {
	if dir := os.Getenv(envFakeHelper); dir != "" {
		os.Exit(fakeHelper(dir, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeHelper answers one command line as gorocprof-query-cuda does, from the agent list in dir and the
// recorded catalog; every metric set fits one pass.
func fakeHelper(dir string, args []string) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "gorocprof-query: "+format+"\n", a...)
		return 1
	}
	if len(args) == 0 {
		return fail("missing command")
	}
	emit := func(v any) int {
		if err := json.NewEncoder(os.Stdout).Encode(v); err != nil {
			return fail("%v", err)
		}
		return 0
	}
	switch args[0] {
	case "agents":
		var reply contract.AgentsReply
		data, err := os.ReadFile(dir + "/agents.json")
		if err == nil {
			err = json.Unmarshal(data, &reply)
		}
		if err != nil {
			return fail("%v", err)
		}
		if len(args) > 1 {
			lookup, err := fakeLookup(dir, 0, args[1:])
			if err != nil {
				return fail("agents: %v", err)
			}
			reply.Catalogs = []contract.MetricsReply{lookup}
		}
		return emit(reply)
	case "passes":
		return emit(contract.PassesReply{Version: 1, Agent: 0, Passes: 1})
	case "metrics":
		if len(args) < 3 || args[1] != "--agent" {
			return fail("metrics: want --agent N")
		}
		reply, err := fakeLookup(dir, 0, args[3:])
		if err != nil {
			return fail("metrics: %v", err)
		}
		return emit(reply)
	}
	return fail("%s: unknown", args[0])
}

// fakeLookup answers `metrics --agent N` from the recorded catalog: whole without options, otherwise the
// --only names looked up and each --passes set of known names in one pass.
func fakeLookup(dir string, agent int, opts []string) (contract.MetricsReply, error) {
	var whole contract.MetricsReply
	data, err := os.ReadFile(dir + "/metrics.json")
	if err == nil {
		err = json.Unmarshal(data, &whole)
	}
	if err != nil || len(opts) == 0 {
		return whole, err
	}
	reply := contract.MetricsReply{Version: 1, Agent: agent, Chip: whole.Chip, Metrics: []contract.Metric{}, Missing: []string{}}
	for i := 0; i+1 < len(opts); i += 2 {
		names := strings.Split(opts[i+1], ",")
		switch opts[i] {
		case "--only":
			for _, n := range names {
				if j := slices.IndexFunc(whole.Metrics, func(m contract.Metric) bool { return m.Name == n }); j >= 0 {
					reply.Metrics = append(reply.Metrics, whole.Metrics[j])
				} else {
					reply.Missing = append(reply.Missing, n)
				}
			}
		case "--passes":
			if !slices.ContainsFunc(names, func(n string) bool { return slices.Contains(reply.Missing, n) }) {
				reply.Passes = append(reply.Passes, contract.SetPasses{Metrics: names, Passes: 1})
			}
		default:
			return reply, fmt.Errorf("unknown option %s", opts[i])
		}
	}
	return reply, nil
}
