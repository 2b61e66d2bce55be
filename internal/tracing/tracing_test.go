package tracing

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	tests := []struct {
		name   string
		given  map[string]bool
		want   string // flag<via ... as wants() words them
		kernel bool
	}{
		{"nothing", nil, "", false},
		{"hip-trace", map[string]bool{HIPTrace: true}, "hip-runtime-trace<hip-trace hip-compiler-trace<hip-trace", false},
		{"hip-trace without its compiler half", map[string]bool{HIPTrace: true, string(HIPCompiler): false}, "hip-runtime-trace<hip-trace", false},
		{"sys-trace", map[string]bool{SysTrace: true},
			"hip-runtime-trace<sys-trace hip-compiler-trace<sys-trace hsa-trace<sys-trace marker-trace<sys-trace memory-copy-trace<sys-trace", true},
		{"sys-trace, hip-trace off", map[string]bool{SysTrace: true, HIPTrace: false}, "hsa-trace<sys-trace marker-trace<sys-trace memory-copy-trace<sys-trace", true},
		{"runtime-trace", map[string]bool{RuntimeTrace: true}, "hip-runtime-trace<runtime-trace marker-trace<runtime-trace memory-copy-trace<runtime-trace", true},
		// rocprofv3 applies --runtime-trace before --hip-trace: its HIP runtime flag is runtime-trace's.
		{"runtime-trace and hip-trace off", map[string]bool{RuntimeTrace: true, HIPTrace: false}, "hip-runtime-trace<runtime-trace marker-trace<runtime-trace memory-copy-trace<runtime-trace", true},
		{"sys-trace with a flag given", map[string]bool{SysTrace: true, string(HSA): true, string(Marker): false},
			"hip-runtime-trace<sys-trace hip-compiler-trace<sys-trace hsa-trace memory-copy-trace<sys-trace", true},
		{"shorthands off", map[string]bool{SysTrace: false, RuntimeTrace: false, string(MemoryCopy): true}, "memory-copy-trace", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sel, kernel := Expand(tc.given)
			if got := wants(sel); got != tc.want || kernel != tc.kernel {
				t.Errorf("Expand = %q, kernel %v; want %q, kernel %v", got, kernel, tc.want, tc.kernel)
			}
		})
	}
}

func wants(sel Selection) string {
	var w []string
	for _, s := range sel {
		if s.Via != "" {
			w = append(w, string(s.Flag)+"<"+s.Via)
		} else {
			w = append(w, string(s.Flag))
		}
	}
	return strings.Join(w, " ")
}

var testTable = Table{
	Domains: map[Flag][]string{
		HIPRuntime: {DomainHIPRuntime},
		Marker:     {DomainMarker},
		MemoryCopy: {DomainMemoryCopy},
		HSA:        {DomainHSAFinalize, DomainHSACore},
	},
	Lacks: map[Flag]string{HIPCompiler: "no compiler API here"},
}

func TestResolve(t *testing.T) {
	sys, _ := Expand(map[string]bool{SysTrace: true})
	r, err := Resolve(sys, "fake", testTable)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{DomainHIPRuntime, DomainHSACore, DomainHSAFinalize, DomainMarker, DomainMemoryCopy}
	if !reflect.DeepEqual(r.Domains, want) {
		t.Errorf("domains %q, want %q (sorted)", r.Domains, want)
	}
	if want := []string{"--sys-trace: backend fake traces nothing for --hip-compiler-trace (no compiler API here): left out"}; !reflect.DeepEqual(r.LeftOut, want) {
		t.Errorf("left out %q, want %q", r.LeftOut, want)
	}

	explicit, _ := Expand(map[string]bool{string(HIPCompiler): true, string(Marker): true, string(HSA): true})
	_, err = Resolve(explicit, "fake", Table{Domains: map[Flag][]string{Marker: {DomainMarker}}, Lacks: testTable.Lacks})
	var refused *RefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("Resolve: %v, want a RefusedError", err)
	}
	if want := "--hip-compiler-trace: backend fake cannot trace it: no compiler API here; --hsa-trace: backend fake cannot trace it: it has nothing to trace for it"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

// TestConfig pins which domains turn on which of rocprofv3's config fields (docs/tracing.md).
func TestConfig(t *testing.T) {
	on := func(fs []ConfigField) []string {
		var out []string
		for _, f := range fs {
			if f.On {
				out = append(out, f.Name)
			}
		}
		return out
	}
	if got := Config(nil); len(got) != 8 || len(on(got)) != 0 {
		t.Errorf("Config(nil) = %v, want 8 fields all false", got)
	}
	got := on(Config([]string{DomainCUDADriver, DomainCUDARuntime, DomainMemoryCopy}))
	if want := []string{"hsa_core_api_trace", "memory_copy_trace", "hip_runtime_api_trace"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Config of cuda's domains: %q, want %q", got, want)
	}
	got = on(Config([]string{DomainHIPCompiler, DomainHSAImageExt, DomainMarker}))
	if want := []string{"hsa_image_ext_api_trace", "marker_api_trace", "hip_compiler_api_trace"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Config: %q, want %q", got, want)
	}
}
