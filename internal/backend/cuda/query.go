package cuda

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gorocprof/gorocprof/internal/backend/helper"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
)

// queryAgents asks the CUDA query helper for the agents and, on the first agent of each chip, the
// lookup of scope (`agents --only ...`): every lookup is checked as queryMetrics checks its own.
func queryAgents(ctx context.Context, helperPath string, scope *counters.Scope) ([]contract.Agent, []contract.MetricsReply, error) {
	var reply contract.AgentsReply
	args := append([]string{"agents"}, scopeArgs(scope)...)
	call := strings.Join(args, " ")
	if err := helper.Ask(ctx, helperPath, &reply, args...); err != nil {
		return nil, nil, err
	}
	list, err := helper.CheckAgents(helperPath, reply.Version, reply.Agents)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range reply.Catalogs {
		if err := checkMetrics(helperPath, call, c, c.Agent, scope); err != nil {
			return nil, nil, err
		}
	}
	return list, reply.Catalogs, nil
}

func scopeArgs(scope *counters.Scope) []string {
	if scope == nil {
		return nil
	}
	args := []string{"--only", strings.Join(scope.Names, ",")}
	for _, set := range scope.Sets {
		args = append(args, "--passes", strings.Join(set, ","))
	}
	return args
}

// queryMetrics asks the CUDA query helper for the metric catalog of one agent: the whole catalog with
// a nil scope, otherwise the scope's metrics looked up and its sets' pass counts, from one process.
func queryMetrics(ctx context.Context, helperPath string, agent int, scope *counters.Scope) (contract.MetricsReply, error) {
	var reply contract.MetricsReply
	args := append([]string{"metrics", "--agent", strconv.Itoa(agent)}, scopeArgs(scope)...)
	call := strings.Join(args, " ")
	if err := helper.Ask(ctx, helperPath, &reply, args...); err != nil {
		return reply, err
	}
	return reply, checkMetrics(helperPath, call, reply, agent, scope)
}

// checkMetrics checks a metrics reply about agent: the contract version, the agent, a chip, and for a
// scope every name answered once.
func checkMetrics(helperPath, call string, reply contract.MetricsReply, agent int, scope *counters.Scope) error {
	if err := helper.CheckVersion(helperPath, call, reply.Version); err != nil {
		return err
	}
	if reply.Agent != agent {
		return fmt.Errorf("%s %s: the reply is about agent %d", helperPath, call, reply.Agent)
	}
	if reply.Chip == "" {
		return fmt.Errorf("%s %s: the reply names no chip", helperPath, call)
	}
	if scope != nil {
		if err := checkScoped(reply, scope); err != nil {
			return fmt.Errorf("%s %s: %w", helperPath, call, err)
		}
	}
	return nil
}

// checkScoped checks that a scoped reply answers for every name asked, once, and counts only sets
// asked: a reply that does not is not filed as the scope's answer.
func checkScoped(reply contract.MetricsReply, scope *counters.Scope) error {
	answered := map[string]bool{}
	for _, list := range [][]string{metricNames(reply.Metrics), reply.Missing} {
		for _, n := range list {
			if answered[n] || !slices.Contains(scope.Names, n) {
				return fmt.Errorf("the reply answers for %s, which was not asked or is answered twice", n)
			}
			answered[n] = true
		}
	}
	if len(answered) != len(scope.Names) {
		return fmt.Errorf("the reply answers for %d of the %d metrics asked", len(answered), len(scope.Names))
	}
	for _, p := range reply.Passes {
		key := strings.Join(p.Metrics, ",")
		if !slices.ContainsFunc(scope.Sets, func(set []string) bool { return strings.Join(set, ",") == key }) {
			return fmt.Errorf("the reply counts the passes of %s, which was not asked", key)
		}
		if p.Passes < 1 {
			return fmt.Errorf("the reply says %d passes for %s", p.Passes, key)
		}
	}
	return nil
}

func metricNames(metrics []contract.Metric) []string {
	out := make([]string, len(metrics))
	for i, m := range metrics {
		out[i] = m.Name
	}
	return out
}

// queryPasses asks the CUDA query helper how many hardware passes one agent needs to collect the
// metrics together.
func queryPasses(ctx context.Context, helperPath string, agent int, metrics []string) (int, error) {
	if len(metrics) == 0 {
		return 0, fmt.Errorf("%s passes --agent %d: no metrics to ask about", helperPath, agent)
	}
	list := strings.Join(metrics, ",")
	call := fmt.Sprintf("passes --agent %d %s", agent, list)
	var reply contract.PassesReply
	if err := helper.Ask(ctx, helperPath, &reply, "passes", "--agent", strconv.Itoa(agent), list); err != nil {
		return 0, err
	}
	if err := helper.CheckVersion(helperPath, call, reply.Version); err != nil {
		return 0, err
	}
	if reply.Agent != agent {
		return 0, fmt.Errorf("%s %s: the reply is about agent %d", helperPath, call, reply.Agent)
	}
	if reply.Passes < 1 {
		return 0, fmt.Errorf("%s %s: the reply says %d passes", helperPath, call, reply.Passes)
	}
	return reply.Passes, nil
}

// passesOracle returns queryPasses bound to one agent, in the shape counters.NewNVIDIA takes.
func passesOracle(ctx context.Context, helperPath string, agent int) func([]string) (int, error) {
	return func(metrics []string) (int, error) {
		return queryPasses(ctx, helperPath, agent, metrics)
	}
}
