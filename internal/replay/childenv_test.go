package replay

import (
	"slices"
	"strings"
	"testing"
)

// The tool reads --cache-control from the child's GOROCPROF_CACHE_CONTROL: exactly one, the request's, all
// when the request leaves it empty, whatever the caller's environment held.
func TestChildEnvCarriesCacheControl(t *testing.T) {
	t.Setenv("GOROCPROF_CACHE_CONTROL", "stale")
	req := Request{prepared: &prepared{}}
	for _, tt := range []struct{ in, want string }{{"", "all"}, {"all", "all"}, {"none", "none"}} {
		req.CacheControl = tt.in
		env := childEnv(req, "/run", "/run/plan.json")
		var got []string
		for _, kv := range env {
			if strings.HasPrefix(kv, "GOROCPROF_CACHE_CONTROL=") {
				got = append(got, kv)
			}
		}
		if want := []string{"GOROCPROF_CACHE_CONTROL=" + tt.want}; !slices.Equal(got, want) {
			t.Errorf("CacheControl %q: got %q, want %q", tt.in, got, want)
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
