package cuda

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
)

// scriptHelper is a query helper that runs body as a shell script.
func scriptHelper(t *testing.T, body string) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "gorocprof-query-cuda")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

// answering is a helper answering metrics for agent 0 and, for passes, one pass per metric asked.
const answering = `case "$1" in
metrics) echo '{"version":1,"agent":0,"chip":"GH100","metrics":[{"name":"sm__inst_executed.sum","description":"warp instructions executed","unit":"inst"},{"name":"gpu__time_duration.sum","description":"duration","unit":"nsecond"}]}' ;;
passes) n=$(echo "$4" | tr ',' '\n' | wc -l); echo '{"version":1,"agent":0,"metrics":[],"passes":'$n'}' ;;
esac`

func TestQueryMetricsAndPasses(t *testing.T) {
	exe := scriptHelper(t, answering)
	ctx := context.Background()
	m, err := queryMetrics(ctx, exe, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Chip != "GH100" || len(m.Metrics) != 2 || m.Metrics[0] != (contract.Metric{Name: "sm__inst_executed.sum", Description: "warp instructions executed", Unit: "inst"}) {
		t.Errorf("queryMetrics = %+v", m)
	}
	if n, err := queryPasses(ctx, exe, 0, []string{"a.sum", "b.sum", "c.sum"}); err != nil || n != 3 {
		t.Errorf("queryPasses = %d, %v; want 3", n, err)
	}
	if n, err := passesOracle(ctx, exe, 0)([]string{"a.sum"}); err != nil || n != 1 {
		t.Errorf("passesOracle = %d, %v; want 1", n, err)
	}
	if _, err := queryPasses(ctx, exe, 0, nil); err == nil || !strings.Contains(err.Error(), "no metrics") {
		t.Errorf("queryPasses without metrics: %v", err)
	}
}

func TestQueryErrors(t *testing.T) {
	ctx := context.Background()
	metrics := func(exe string) error { _, err := queryMetrics(ctx, exe, 0, nil); return err }
	scope := &counters.Scope{Names: []string{"a.sum", "b.sum"}, Sets: [][]string{{"a.sum", "b.sum"}}}
	lookup := func(exe string) error { _, err := queryMetrics(ctx, exe, 0, scope); return err }
	agents := func(exe string) error { _, _, err := queryAgents(ctx, exe, scope); return err }
	passes := func(names ...string) func(string) error {
		return func(exe string) error { _, err := queryPasses(ctx, exe, 0, names); return err }
	}
	for _, tt := range []struct {
		script string
		call   func(exe string) error
		want   string
	}{
		{`echo '{"version":2,"agent":0,"chip":"GH100"}'`, metrics, "metrics --agent 0: the helper speaks contract version 2"},
		{`echo '{"version":1,"agent":7,"chip":"GH100"}'`, metrics, "metrics --agent 0: the reply is about agent 7"},
		{`echo '{"version":1,"agent":0}'`, metrics, "metrics --agent 0: the reply names no chip"},
		{`echo '{"version":1,"agent":0,"chip":"GH100","metrics":[{"name":"a.sum"}],"missing":["c.sum"]}'`, lookup,
			"metrics --agent 0 --only a.sum,b.sum --passes a.sum,b.sum: the reply answers for c.sum, which was not asked"},
		{`echo '{"version":1,"agent":0,"chip":"GH100","metrics":[{"name":"a.sum"}],"missing":["a.sum","b.sum"]}'`, lookup, "a.sum, which was not asked or is answered twice"},
		{`echo '{"version":1,"agent":0,"chip":"GH100","metrics":[{"name":"a.sum"}]}'`, lookup, "the reply answers for 1 of the 2 metrics asked"},
		{`echo '{"version":1,"agent":0,"chip":"GH100","metrics":[],"missing":["a.sum","b.sum"],"passes":[{"metrics":["a.sum"],"passes":1}]}'`, lookup,
			"the reply counts the passes of a.sum, which was not asked"},
		{`echo '{"version":1,"agent":0,"chip":"GH100","metrics":[],"missing":["a.sum","b.sum"],"passes":[{"metrics":["a.sum","b.sum"],"passes":0}]}'`, lookup,
			"the reply says 0 passes for a.sum,b.sum"},
		{`echo '{"version":1,"agents":[],"catalogs":[{"version":1,"agent":0,"chip":"GH100","metrics":[{"name":"a.sum"}]}]}'`, agents,
			"agents --only a.sum,b.sum --passes a.sum,b.sum: the reply answers for 1 of the 2 metrics asked"},
		{`echo '{"version":1,"agents":[],"catalogs":[{"version":1,"agent":0,"metrics":[]}]}'`, agents, "the reply names no chip"},
		{`echo '{"version":2,"agents":[]}'`, agents, "agents: the helper speaks contract version 2"},
		{`echo '{"version":1,"agent":7,"passes":1}'`, passes("a"), "passes --agent 0 a: the reply is about agent 7"},
		{`echo '{"version":1,"agent":0,"passes":0}'`, passes("a"), "the reply says 0 passes"},
		{`echo "gorocprof-query: $*: no GPU found" >&2; exit 1`, passes("a", "b"),
			"passes --agent 0 a,b: exit status 1: gorocprof-query: passes --agent 0 a,b: no GPU found"},
	} {
		exe := scriptHelper(t, tt.script)
		err := tt.call(exe)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), exe) {
			t.Errorf("helper %q: error %v, want one naming %s and saying %q", tt.script, err, exe, tt.want)
		}
	}
}
