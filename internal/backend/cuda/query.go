package cuda

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/gorocprof/gorocprof/internal/backend/helper"
	"github.com/gorocprof/gorocprof/internal/contract"
)

// queryMetrics asks the CUDA query helper for the metric catalog of one agent.
func queryMetrics(ctx context.Context, helperPath string, agent int) (contract.MetricsReply, error) {
	var reply contract.MetricsReply
	call := "metrics --agent " + strconv.Itoa(agent)
	if err := helper.Ask(ctx, helperPath, &reply, "metrics", "--agent", strconv.Itoa(agent)); err != nil {
		return reply, err
	}
	if err := helper.CheckVersion(helperPath, call, reply.Version); err != nil {
		return reply, err
	}
	if reply.Agent != agent {
		return reply, fmt.Errorf("%s %s: the reply is about agent %d", helperPath, call, reply.Agent)
	}
	if reply.Chip == "" {
		return reply, fmt.Errorf("%s %s: the reply names no chip", helperPath, call)
	}
	return reply, nil
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
