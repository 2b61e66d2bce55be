package replay

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gorocprof/gorocprof/internal/backend/cuda/querycache"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
)

// h200ScaleMetrics is a catalog of the H200's size (150,179 metrics there): the recorded fixture's
// 10,167 roll-ups, each with the sub-metric suffixes CUPTI lists (per_second, pct_of_peak_..., ...), so
// names share long prefixes as the real ones do.
func h200ScaleMetrics(tb testing.TB) []contract.Metric {
	tb.Helper()
	var reply contract.MetricsReply
	readJSON(tb, "../../testdata/cuda/h200-metrics.json", &reply)
	suffixes := []string{"", ".per_second", ".per_cycle_active", ".per_cycle_elapsed", ".per_cycle_in_frame",
		".pct_of_peak_sustained_active", ".pct_of_peak_sustained_elapsed", ".pct_of_peak_sustained_frame",
		".peak_sustained", ".peak_sustained_active", ".peak_sustained_elapsed", ".peak_sustained_frame",
		".pct_of_peak_burst_active", ".peak_burst", ".ratio"}
	out := make([]contract.Metric, 0, len(reply.Metrics)*len(suffixes))
	for _, s := range suffixes {
		for _, m := range reply.Metrics {
			out = append(out, contract.Metric{Name: m.Name + s, Description: m.Description, Unit: m.Unit})
		}
	}
	return out
}

// The warm front end's catalog on an H200: the query cache's catalog file read back and the counter
// catalog built from it, what every planning run on a machine that answered before does.
func BenchmarkWarmCatalogH200(b *testing.B) {
	metrics := h200ScaleMetrics(b)
	dir := b.TempDir()
	helper := filepath.Join(dir, "helper")
	if err := os.WriteFile(helper, make([]byte, 2<<20), 0o755); err != nil {
		b.Fatal(err)
	}
	store := querycache.At(filepath.Join(dir, "cache"))
	entry, err := store.Chip(helper, "GH100")
	if err != nil {
		b.Fatal(err)
	}
	if err := entry.SaveMetrics(metrics); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(metrics)), "metrics")
	b.ResetTimer()
	for b.Loop() {
		entry, err := store.Chip(helper, "GH100")
		if err != nil {
			b.Fatal(err)
		}
		got, ok := entry.Metrics()
		if !ok || len(got) != len(metrics) {
			b.Fatalf("cache hit %v with %d metrics", ok, len(got))
		}
		cat := counters.NewNVIDIA("GH100", got, nil)
		if !cat.Has("sm__inst_executed.sum.per_second") {
			b.Fatal("catalog lost a metric")
		}
	}
}
