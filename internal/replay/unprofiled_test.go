package replay

import (
	"slices"
	"testing"
)

// A process outside --profile-mpi-ranks gets no tool: whatever of gorocprof's variables its own
// environment held is dropped, the rest (the user's LD_PRELOAD, the launcher's) stays as it was.
func TestUnprofiledEnv(t *testing.T) {
	base := []string{"OMPI_COMM_WORLD_RANK=1", "GOROCPROF_SIM_INJECTION_PATH=/lib/tool.so", "CUDA_INJECTION64_PATH=/lib/cuda.so",
		"ROCP_TOOL_LIBRARIES=/lib/rocm.so", "ROCPROFILER_LIBRARY_CTOR=1", "GOROCPROF_RUN_DIR=/tmp/run", "GOROCPROF_PLAN=/tmp/run/plan.json",
		"LD_PRELOAD=/user/lib.so", "PATH=/bin"}
	want := []string{"OMPI_COMM_WORLD_RANK=1", "LD_PRELOAD=/user/lib.so", "PATH=/bin"}
	if got := unprofiledEnv(base); !slices.Equal(got, want) {
		t.Errorf("unprofiledEnv = %q, want %q", got, want)
	}
}
