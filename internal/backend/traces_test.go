package backend

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/backend/cuda"
	"github.com/gorocprof/gorocprof/internal/backend/rocm"
	"github.com/gorocprof/gorocprof/internal/backend/sim"
	"github.com/gorocprof/gorocprof/internal/tracing"
)

// TestTraceTables pins docs/tracing.md's table of the domains each backend traces for each flag:
// the shorthands take what a backend has, a flag it cannot trace given itself is refused.
func TestTraceTables(t *testing.T) {
	type want struct {
		domains string // the domains, sorted, or the refusal's text
		leftOut int
	}
	backends := []struct {
		name  string
		table tracing.Table
	}{{sim.Name, sim.Traces}, {cuda.Name, cuda.Traces}, {rocm.Name, rocm.Traces}}
	tests := []struct {
		flags map[string]bool
		want  map[string]want
	}{
		{map[string]bool{tracing.SysTrace: true}, map[string]want{
			sim.Name:  {"HIP_COMPILER_API HIP_RUNTIME_API MARKER_CORE_RANGE_API MEMORY_COPY", 1},
			cuda.Name: {"CUDA_DRIVER_API CUDA_RUNTIME_API MARKER_CORE_RANGE_API MEMORY_COPY", 1},
			rocm.Name: {"HIP_COMPILER_API HIP_RUNTIME_API HSA_AMD_EXT_API HSA_CORE_API HSA_FINALIZE_EXT_API HSA_IMAGE_EXT_API MARKER_CORE_RANGE_API MEMORY_COPY", 0},
		}},
		{map[string]bool{tracing.RuntimeTrace: true}, map[string]want{
			sim.Name:  {"HIP_RUNTIME_API MARKER_CORE_RANGE_API MEMORY_COPY", 0},
			cuda.Name: {"CUDA_RUNTIME_API MARKER_CORE_RANGE_API MEMORY_COPY", 0},
			rocm.Name: {"HIP_RUNTIME_API MARKER_CORE_RANGE_API MEMORY_COPY", 0},
		}},
		{map[string]bool{tracing.HIPTrace: true}, map[string]want{
			sim.Name:  {"HIP_COMPILER_API HIP_RUNTIME_API", 0},
			cuda.Name: {"CUDA_RUNTIME_API", 1},
			rocm.Name: {"HIP_COMPILER_API HIP_RUNTIME_API", 0},
		}},
		{map[string]bool{string(tracing.HSA): true}, map[string]want{
			sim.Name:  {"--hsa-trace: backend sim cannot trace it: the simulated runtime has no HSA layer", 0},
			cuda.Name: {"CUDA_DRIVER_API", 0},
			rocm.Name: {"HSA_AMD_EXT_API HSA_CORE_API HSA_FINALIZE_EXT_API HSA_IMAGE_EXT_API", 0},
		}},
		{map[string]bool{string(tracing.HIPCompiler): true, string(tracing.Marker): true}, map[string]want{
			sim.Name:  {"HIP_COMPILER_API MARKER_CORE_RANGE_API", 0},
			cuda.Name: {"--hip-compiler-trace: backend cuda cannot trace it: CUDA has no counterpart of the HIP compiler API", 0},
			rocm.Name: {"HIP_COMPILER_API MARKER_CORE_RANGE_API", 0},
		}},
	}
	for _, tc := range tests {
		sel, _ := tracing.Expand(tc.flags)
		for _, b := range backends {
			r, err := tracing.Resolve(sel, b.name, b.table)
			got := want{strings.Join(r.Domains, " "), len(r.LeftOut)}
			if err != nil {
				got = want{err.Error(), 0}
			}
			if !reflect.DeepEqual(got, tc.want[b.name]) {
				t.Errorf("%v on %s: %+v, want %+v", tc.flags, b.name, got, tc.want[b.name])
			}
		}
	}
}
