package cli

import (
	"maps"

	"github.com/gorocprof/gorocprof/internal/tracing"
	"github.com/spf13/pflag"
)

// traceUsage is each tracing flag's help, in rocprofv3's order.
var traceUsage = []struct{ name, short, usage string }{
	{tracing.RuntimeTrace, "r", "trace the HIP runtime API, markers, memory copies and kernel dispatches (CUDA: the runtime API for HIP's)"},
	{tracing.SysTrace, "s", "trace the HIP and HSA APIs, markers, memory copies and kernel dispatches (CUDA: runtime and driver APIs)"},
	{tracing.HIPTrace, "", "trace the HIP runtime and compiler APIs (--hip-runtime-trace and --hip-compiler-trace)"},
	{string(tracing.Marker), "", "trace roctx (CUDA: NVTX) ranges and marks"},
	{string(tracing.MemoryCopy), "", "trace memory copies (CUDA: and memsets)"},
	{string(tracing.HSA), "", "trace the HSA core, AMD, image and finalizer APIs (CUDA: the driver API; not on sim)"},
	{string(tracing.HIPRuntime), "", "trace the HIP runtime API (CUDA: the CUDA runtime API)"},
	{string(tracing.HIPCompiler), "", "trace the HIP compiler API (__hip* functions; not on CUDA)"},
}

// addTraceFlags adds rocprofv3's tracing booleans, recorded into given by name.
func addTraceFlags(fs *pflag.FlagSet, given *map[string]bool) {
	for _, t := range traceUsage {
		fs.VarPF(traceFlag{given: given, name: t.name}, t.name, t.short, t.usage).NoOptDefVal = "true"
	}
}

// tracing reads the tracing flags the command line did not give from the lower layers, then
// expands the shorthands: a flag given in any layer counts as given. --sys-trace and
// --runtime-trace turn on the kernel trace unless --kernel-trace was given, as in rocprofv3.
func (r *resolver) tracing(o *ProfileOptions) {
	given := maps.Clone(o.Trace)
	if given == nil {
		given = map[string]bool{}
	}
	for _, name := range tracing.Options {
		var v bool
		if _, ok := r.lower(name); ok {
			r.boolean(name, &v)
			given[name] = v
		}
	}
	o.Trace = given
	sel, kernel := tracing.Expand(given)
	o.Tracing = sel
	if kernel && !r.given(optKernelTrace) {
		o.KernelTrace = true
	}
}

// given reports whether an option was set in any layer but the defaults.
func (r *resolver) given(name string) bool {
	if f := r.flags.Lookup(name); f != nil && f.Changed {
		return true
	}
	return r.v.IsSet(name)
}
