package replay

import (
	"slices"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/launch"
)

// The tool reads --cache-control from the child's GOROCPROF_CACHE_CONTROL: exactly one, the request's, all
// when the request leaves it empty, whatever the caller's environment held.
func TestChildEnvCarriesCacheControl(t *testing.T) {
	t.Setenv("GOROCPROF_CACHE_CONTROL", "stale")
	sess := &Session{Backend: launch.Backend{Name: launch.BackendCUDA, ToolLibrary: "/lib/libgorocprof_tool_cuda.so"}}
	for _, tt := range []struct{ in, want string }{{"", "all"}, {"all", "all"}, {"none", "none"}} {
		env := childEnv(Request{CacheControl: tt.in}, sess, "/run", "/run/plan.json")
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
