package rocm

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/gorocprof/gorocprof/internal/backend/helper"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
)

// SDKInfo is what the query helper says about the SDK it ran against.
type SDKInfo struct {
	Version      string `json:"version"`
	KernelReplay bool   `json:"kernel_replay"` // whether it has the KERNEL_REPLAY domain
}

// agentsReply is `gorocprof-query-rocm agents`: the contract's agents reply plus the SDK's facts.
type agentsReply struct {
	Version int              `json:"version"`
	SDK     *SDKInfo         `json:"sdk"`
	Agents  []contract.Agent `json:"agents"`
}

// sdkCounter is one counter of `gorocprof-query-rocm metrics --agent N`.
type sdkCounter struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Block       string `json:"block"`
	Expression  string `json:"expression"`
	Derived     bool   `json:"derived"`
}

type metricsReply struct {
	Version int          `json:"version"`
	Agent   int          `json:"agent"`
	Metrics []sdkCounter `json:"metrics"`
}

func queryAgents(ctx context.Context, path string, env []string) ([]contract.Agent, SDKInfo, error) {
	var reply agentsReply
	if err := helper.AskEnv(ctx, path, env, &reply, "agents"); err != nil {
		return nil, SDKInfo{}, err
	}
	list, err := helper.CheckAgents(path, reply.Version, reply.Agents)
	if err != nil {
		return nil, SDKInfo{}, err
	}
	if reply.SDK == nil || reply.SDK.Version == "" {
		return nil, SDKInfo{}, fmt.Errorf("%s agents: the reply lacks the SDK's version (\"sdk\":{\"version\",\"kernel_replay\"})", path)
	}
	return list, *reply.SDK, nil
}

func queryMetrics(ctx context.Context, path string, env []string, agent int) ([]counters.SDKCounter, error) {
	var reply metricsReply
	idx := strconv.Itoa(agent)
	if err := helper.AskEnv(ctx, path, env, &reply, "metrics", "--agent", idx); err != nil {
		return nil, err
	}
	if err := helper.CheckVersion(path, "metrics --agent "+idx, reply.Version); err != nil {
		return nil, err
	}
	if reply.Agent != agent {
		return nil, fmt.Errorf("%s metrics --agent %d: the reply is agent %d's", path, agent, reply.Agent)
	}
	out := make([]counters.SDKCounter, len(reply.Metrics))
	for i, m := range reply.Metrics {
		out[i] = counters.SDKCounter{Name: m.Name, Description: m.Description, Block: m.Block, Expression: m.Expression, Derived: m.Derived}
	}
	return out, nil
}

func queryPasses(ctx context.Context, path string, env []string, agent int, names []string) (int, error) {
	var reply contract.PassesReply
	call := []string{"passes", "--agent", strconv.Itoa(agent), strings.Join(names, ",")}
	if err := helper.AskEnv(ctx, path, env, &reply, call...); err != nil {
		return 0, err
	}
	if err := helper.CheckVersion(path, strings.Join(call, " "), reply.Version); err != nil {
		return 0, err
	}
	return reply.Passes, nil
}
