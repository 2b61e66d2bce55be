package replay

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/backend/backendtest"
	"github.com/gorocprof/gorocprof/internal/tracing"
)

// TestPrepareTraceDomains: Prepare maps the run's tracing flags onto the backend's table before
// anything is launched: a flag the backend cannot trace given itself is refused, naming the flag and
// the backend; what a shorthand left out is noted; the plan lists the domains sorted, and under
// application replay only the first run's plan has them.
func TestPrepareTraceDomains(t *testing.T) {
	f := backendtest.New("fake", 1, fakeMetrics...)
	f.TraceTable = tracing.Table{
		Domains: map[tracing.Flag][]string{tracing.HIPRuntime: {tracing.DomainCUDARuntime}, tracing.Marker: {tracing.DomainMarker}},
		Lacks:   map[tracing.Flag]string{tracing.HSA: "no HSA here"},
	}
	prepare := NewPreparer(f.Chooser())
	sys, _ := tracing.Expand(map[string]bool{tracing.SysTrace: true})
	req, err := prepare(context.Background(), Request{Backend: "fake", App: "sh", Groups: mustGroups(t, "sm__inst_executed.sum"), Tracing: sys})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{tracing.DomainCUDARuntime, tracing.DomainMarker}; !reflect.DeepEqual(req.TraceDomains, want) {
		t.Errorf("TraceDomains %q, want %q", req.TraceDomains, want)
	}
	if notes := strings.Join(req.prepared.traceNotes, "\n"); !strings.Contains(notes, "--sys-trace: backend fake traces nothing for --hsa-trace (no HSA here): left out") ||
		!strings.Contains(notes, "--hip-compiler-trace") || !strings.Contains(notes, "--memory-copy-trace") {
		t.Errorf("notes %q, want the flags --sys-trace left out", notes)
	}
	cp := contractPlan(req, req.prepared.sess, req.prepared.plan)
	if !reflect.DeepEqual(cp.TraceDomains, req.TraceDomains) {
		t.Errorf("plan trace_domains %q, want %q", cp.TraceDomains, req.TraceDomains)
	}
	data, err := cp.Encode()
	if err != nil || !strings.Contains(string(data), "\"trace_domains\": [\n    \"CUDA_RUNTIME_API\",\n    \"MARKER_CORE_RANGE_API\"\n  ]") {
		t.Errorf("plan.json %s (%v), want its trace_domains", data, err)
	}
	for i, want := range [][]string{req.TraceDomains, nil, nil} {
		if got := applicationPlan(cp, i, 3).TraceDomains; !reflect.DeepEqual(got, want) {
			t.Errorf("application replay run %d traces %q, want %q", i+1, got, want)
		}
	}

	hsa, _ := tracing.Expand(map[string]bool{string(tracing.HSA): true})
	_, err = prepare(context.Background(), Request{Backend: "fake", App: "sh", Groups: mustGroups(t, "sm__inst_executed.sum"), Tracing: hsa})
	if err == nil || err.Error() != "--hsa-trace: backend fake cannot trace it: no HSA here" {
		t.Errorf("--hsa-trace on a backend without it: %v", err)
	}
}
