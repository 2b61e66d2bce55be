// Package tracing is rocprofv3's tracing flags and what they turn on (docs/tracing.md): how the
// shorthands expand into the granular flags, and the domains a backend traces for each of them
// (its Table).
package tracing

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// Flag is one of the granular tracing flags, the unit a backend maps to domains. The names are the
// command line's.
type Flag string

// The granular flags, in the order messages and run.json list them. --hsa-trace stands for
// rocprofv3's four --hsa-*-trace flags, which gorocprof does not take one by one.
const (
	HIPRuntime  Flag = "hip-runtime-trace"
	HIPCompiler Flag = "hip-compiler-trace"
	HSA         Flag = "hsa-trace"
	Marker      Flag = "marker-trace"
	MemoryCopy  Flag = "memory-copy-trace"
)

// Granular lists the granular flags in their order.
var Granular = []Flag{HIPRuntime, HIPCompiler, HSA, Marker, MemoryCopy}

// The shorthands, which turn on several flags, and the kernel trace, which two of them turn on.
const (
	HIPTrace     = "hip-trace"
	SysTrace     = "sys-trace"
	RuntimeTrace = "runtime-trace"
	KernelTrace  = "kernel-trace"
)

// Options are the option names Expand reads (KernelTrace is read by the caller, as the kernel
// trace is not a domain of the tracing service but the dispatch lines' own switch).
var Options = []string{SysTrace, RuntimeTrace, HIPTrace, string(HIPRuntime), string(HIPCompiler), string(HSA), string(Marker), string(MemoryCopy)}

// Trace domains as the record lines and plan.json spell them.
const (
	DomainHIPRuntime  = "HIP_RUNTIME_API"
	DomainHIPCompiler = "HIP_COMPILER_API"
	DomainHSACore     = "HSA_CORE_API"
	DomainHSAAMDExt   = "HSA_AMD_EXT_API"
	DomainHSAImageExt = "HSA_IMAGE_EXT_API"
	DomainHSAFinalize = "HSA_FINALIZE_EXT_API"
	DomainMarker      = "MARKER_CORE_RANGE_API"
	DomainMemoryCopy  = contract.DomainMemoryCopy
	DomainCUDARuntime = "CUDA_RUNTIME_API"
	DomainCUDADriver  = "CUDA_DRIVER_API"
)

// Want is one granular flag a run asks for, and the shorthand that asked for it: "" when the user
// gave the flag itself (on the command line, in the environment or in -i).
type Want struct {
	Flag Flag   `json:"flag"`
	Via  string `json:"via,omitempty"`
}

// Selection is every granular flag a run asks for, in Granular's order.
type Selection []Want

// Expand applies rocprofv3's shorthands to the flags the user gave (name -> value, only those
// given, from any layer), as rocprofv3.py does: a shorthand sets each flag it implies unless that
// flag was given, so `--sys-trace --marker-trace=false` traces no markers. --sys-trace implies
// --hip-trace, which then implies both HIP flags. kernel says the kernel trace is implied (by
// --sys-trace or --runtime-trace); the caller applies it when --kernel-trace was not given.
func Expand(given map[string]bool) (sel Selection, kernel bool) {
	type state struct {
		on  bool
		via string
	}
	pick := func(name string, implied ...state) state {
		if v, ok := given[name]; ok {
			return state{on: v}
		}
		for _, s := range implied {
			if s.on {
				return s
			}
		}
		return state{}
	}
	sys := state{on: given[SysTrace], via: SysTrace}
	rt := state{on: given[RuntimeTrace], via: RuntimeTrace}
	hip := pick(HIPTrace, sys)
	if hip.on && hip.via == "" {
		hip.via = HIPTrace
	}
	flags := map[Flag]state{
		HIPRuntime:  pick(string(HIPRuntime), rt, hip),
		HIPCompiler: pick(string(HIPCompiler), hip),
		HSA:         pick(string(HSA), sys),
		Marker:      pick(string(Marker), sys, rt),
		MemoryCopy:  pick(string(MemoryCopy), sys, rt),
	}
	for _, f := range Granular {
		if s := flags[f]; s.on {
			sel = append(sel, Want{Flag: f, Via: s.via})
		}
	}
	return sel, sys.on || rt.on
}

// Table is what one backend traces: the domains of each granular flag, and for a flag it cannot
// trace, why not.
type Table struct {
	Domains map[Flag][]string
	Lacks   map[Flag]string
}

// Resolved is what a run of one backend traces for a selection.
type Resolved struct {
	Domains []string // sorted, as plan.json lists them
	// LeftOut says, for each flag a shorthand implied that the backend cannot trace, what was left out.
	LeftOut []string
}

// Resolve maps a selection onto a backend's table. A flag the user gave itself that the backend
// cannot trace is an error naming the flag and the backend; one a shorthand implied is left out and
// named in LeftOut.
func Resolve(sel Selection, backend string, t Table) (Resolved, error) {
	var r Resolved
	var refused []string
	for _, w := range sel {
		ds := t.Domains[w.Flag]
		if len(ds) > 0 {
			for _, d := range ds {
				if !slices.Contains(r.Domains, d) {
					r.Domains = append(r.Domains, d)
				}
			}
			continue
		}
		why := t.Lacks[w.Flag]
		if why == "" {
			why = "it has nothing to trace for it"
		}
		if w.Via == "" {
			refused = append(refused, fmt.Sprintf("--%s: backend %s cannot trace it: %s", w.Flag, backend, why))
			continue
		}
		r.LeftOut = append(r.LeftOut, fmt.Sprintf("--%s: backend %s traces nothing for --%s (%s): left out", w.Via, backend, w.Flag, why))
	}
	if len(refused) > 0 {
		return Resolved{}, &RefusedError{Reasons: refused}
	}
	slices.Sort(r.Domains)
	return r, nil
}

// RefusedError is a selection that names a flag the backend cannot trace.
type RefusedError struct{ Reasons []string }

func (e *RefusedError) Error() string { return strings.Join(e.Reasons, "; ") }

// ConfigField is one of rocprofv3's output configuration booleans (results.json metadata.config).
type ConfigField struct {
	Name string
	On   bool
}

// configDomains are rocprofv3's tracing fields of its configuration, in its order, and the domains
// that make each one true. The CUDA domains stand where their flags would: CUDA_RUNTIME_API is what
// --hip-runtime-trace traces there, CUDA_DRIVER_API what --hsa-trace traces.
var configDomains = []struct {
	name    string
	domains []string
}{
	{"hsa_core_api_trace", []string{DomainHSACore, DomainCUDADriver}},
	{"hsa_amd_ext_api_trace", []string{DomainHSAAMDExt}},
	{"hsa_image_ext_api_trace", []string{DomainHSAImageExt}},
	{"hsa_finalizer_ext_api_trace", []string{DomainHSAFinalize}},
	{"marker_api_trace", []string{DomainMarker}},
	{"memory_copy_trace", []string{DomainMemoryCopy}},
	{"hip_runtime_api_trace", []string{DomainHIPRuntime, DomainCUDARuntime}},
	{"hip_compiler_api_trace", []string{DomainHIPCompiler}},
}

// Config is rocprofv3's tracing fields of results.json's metadata.config for a run that traced
// domains (plan.json's trace_domains), in rocprofv3's order (after its kernel_trace).
func Config(domains []string) []ConfigField {
	out := make([]ConfigField, len(configDomains))
	for i, c := range configDomains {
		out[i] = ConfigField{Name: c.name, On: slices.ContainsFunc(c.domains, func(d string) bool { return slices.Contains(domains, d) })}
	}
	return out
}
