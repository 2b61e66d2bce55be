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
