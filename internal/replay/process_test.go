package replay

import (
	"strings"
	"testing"
	"time"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// TestReplayPasses: several run directories are processed together only as every pass of one
// application replay, each once; they are put in pass order whatever order they are given in.
func TestReplayPasses(t *testing.T) {
	pass := func(i, n int, pmc string) RunInfo {
		return RunInfo{Version: RunInfoVersion, Mode: contract.ModeApplication, ApplicationPass: i, ApplicationPasses: n,
			PMC: []string{pmc}, Launched: time.Unix(int64(100+i), 0)}
	}
	kernel := RunInfo{Version: RunInfoVersion, Mode: contract.ModeKernel, ApplicationPass: -1, PMC: []string{"A"}}
	tests := []struct {
		name  string
		infos []RunInfo
		order []string // the directories (d0, d1: the infos' in turn) in pass order
		want  string   // the refusal
	}{
		{"in order", []RunInfo{pass(0, 2, "A"), pass(1, 2, "A")}, []string{"d0", "d1"}, ""},
		{"out of order", []RunInfo{pass(1, 2, "A"), pass(0, 2, "A")}, []string{"d1", "d0"}, ""},
		{"a kernel replay run", []RunInfo{pass(0, 2, "A"), kernel}, nil, "d1 is not one of the 2 pass directories"},
		{"a pass missing", []RunInfo{pass(0, 3, "A"), pass(1, 3, "A")}, nil, "is not one of the 2 pass directories"},
		{"a pass beyond the count", []RunInfo{pass(0, 2, "A"), pass(5, 2, "A")}, nil, "d1 is not one of the 2 pass directories"},
		{"a pass twice", []RunInfo{pass(0, 2, "A"), pass(0, 2, "A")}, nil, "d0 and d1 are both pass 1"},
		{"passes of two runs", []RunInfo{pass(0, 2, "A"), pass(1, 2, "B")}, nil, "d0 and d1 are passes of different runs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, first, err := replayPasses([]string{"d0", "d1"}, tc.infos)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("replayPasses = %v, %v; want an error containing %q", got, err, tc.want)
				}
				return
			}
			if err != nil || strings.Join(got, " ") != strings.Join(tc.order, " ") {
				t.Fatalf("replayPasses = %v, %v; want %v", got, err, tc.order)
			}
			if first.ApplicationPass != -1 || !first.Launched.Equal(time.Unix(100, 0)) {
				t.Errorf("the merged account is pass %d launched %v, want -1 and the first pass's launch", first.ApplicationPass, first.Launched)
			}
		})
	}
}
