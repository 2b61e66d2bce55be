package replay

import (
	"slices"
	"strings"
	"testing"
)

// The tool reads --cache-control and --graph-profiling from the child's GOROCPROF_CACHE_CONTROL and
// GOROCPROF_GRAPH_PROFILING: exactly one of each, the request's, ncu's default when the request leaves it
// empty, whatever the caller's environment held.
func TestChildEnvCarriesCacheControlAndGraphProfiling(t *testing.T) {
	t.Setenv("GOROCPROF_CACHE_CONTROL", "stale")
	t.Setenv("GOROCPROF_GRAPH_PROFILING", "stale")
	for _, tt := range []struct {
		name, in, want string
		set            func(*Request, string)
	}{
		{"GOROCPROF_CACHE_CONTROL", "", "all", func(r *Request, v string) { r.CacheControl = v }},
		{"GOROCPROF_CACHE_CONTROL", "all", "all", func(r *Request, v string) { r.CacheControl = v }},
		{"GOROCPROF_CACHE_CONTROL", "none", "none", func(r *Request, v string) { r.CacheControl = v }},
		{"GOROCPROF_GRAPH_PROFILING", "", "node", func(r *Request, v string) { r.GraphProfiling = v }},
		{"GOROCPROF_GRAPH_PROFILING", "node", "node", func(r *Request, v string) { r.GraphProfiling = v }},
		{"GOROCPROF_GRAPH_PROFILING", "graph", "graph", func(r *Request, v string) { r.GraphProfiling = v }},
	} {
		req := Request{prepared: &prepared{}}
		tt.set(&req, tt.in)
		env := childEnv(req, "/run", "/run/plan.json")
		var got []string
		for _, kv := range env {
			if strings.HasPrefix(kv, tt.name+"=") {
				got = append(got, kv)
			}
		}
		if want := []string{tt.name + "=" + tt.want}; !slices.Equal(got, want) {
			t.Errorf("%s from %q: got %q, want %q", tt.name, tt.in, got, want)
		}
	}
}

// A variable the backend injects (the rocm backend's LD_PRELOAD, which already holds the parent's
// entries) replaces the parent's: the child sees it once, and the dynamic loader the backend's.
func TestChildEnvInjectedReplacesParent(t *testing.T) {
	t.Setenv("LD_PRELOAD", "/parent/libx.so")
	req := Request{prepared: &prepared{inject: []string{"LD_PRELOAD=/parent/libx.so:/rocm/lib/librocprofiler-sdk.so"}}}
	var got []string
	for _, kv := range childEnv(req, "/run", "/run/plan.json") {
		if strings.HasPrefix(kv, "LD_PRELOAD=") {
			got = append(got, kv)
		}
	}
	if want := req.prepared.inject; !slices.Equal(got, want) {
		t.Errorf("LD_PRELOAD in the child: %q, want %q", got, want)
	}
}

// What a backend's tool needs to trace (the CUDA tool's NVTX injection) is set in the child unless
// the user's environment names another library for it, which the child keeps.
func TestChildEnvTraceVarsYieldToTheUsers(t *testing.T) {
	req := Request{prepared: &prepared{traceVars: []string{"NVTX_INJECTION64_PATH=/lib/tool.so"}}}
	nvtx := func() []string {
		var got []string
		for _, kv := range childEnv(req, "/run", "/run/plan.json") {
			if strings.HasPrefix(kv, "NVTX_INJECTION64_PATH=") {
				got = append(got, kv)
			}
		}
		return got
	}
	t.Setenv("NVTX_INJECTION64_PATH", "")
	if got, want := nvtx(), []string{"NVTX_INJECTION64_PATH=/lib/tool.so"}; !slices.Equal(got, want) {
		t.Errorf("without the user's: %q, want %q", got, want)
	}
	t.Setenv("NVTX_INJECTION64_PATH", "/opt/nsys/libToolsInjection64.so")
	if got, want := nvtx(), []string{"NVTX_INJECTION64_PATH=/opt/nsys/libToolsInjection64.so"}; !slices.Equal(got, want) {
		t.Errorf("with the user's: %q, want %q", got, want)
	}
}
