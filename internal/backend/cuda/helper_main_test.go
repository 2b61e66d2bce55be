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
		data, err := os.ReadFile(dir + "/agents.json")
		if err != nil {
			return fail("%v", err)
		}
		_, err = os.Stdout.Write(data)
		if err != nil {
			return fail("%v", err)
		}
		return 0
	case "passes":
		return emit(contract.PassesReply{Version: 1, Agent: 0, Passes: 1})
	case "metrics":
		var whole contract.MetricsReply
		data, err := os.ReadFile(dir + "/metrics.json")
		if err == nil {
			err = json.Unmarshal(data, &whole)
		}
		if err != nil {
			return fail("%v", err)
		}
		reply := contract.MetricsReply{Version: 1, Agent: 0, Chip: whole.Chip, Metrics: []contract.Metric{}, Missing: []string{}}
		only := false
		for i := 1; i+1 < len(args); i += 2 {
			names := strings.Split(args[i+1], ",")
			switch args[i] {
			case "--agent":
			case "--only":
				only = true
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
				return fail("metrics: unknown option %s", args[i])
			}
		}
		if !only {
			return emit(whole)
		}
		return emit(reply)
	}
	return fail("%s: unknown", args[0])
}
