package cli

// rocprofv3Flag is one option of rocprofv3's command line (rocprofv3.py of rocprofiler-sdk), by its
// long name and shorthand. gorocprof either has a flag of that name that means the same (has), or
// refuses it by name (unsupportedFlag), so that a rocprofv3 command line pasted here fails on what
// gorocprof lacks and not on an "unknown flag" that reads like a typo. docs/rocprofv3.md lists
// every one with its status; TestRocprofv3FlagsDocumented keeps the two alike.
type rocprofv3Flag struct {
	long, short string
	has         bool
}

var rocprofv3Flags = []rocprofv3Flag{
	{"version", "v", true}, {"input", "i", true}, {"output-file", "o", true}, {"output-directory", "d", true},
	{"output-format", "f", true}, {"output-config", "", false}, {"log-level", "", true}, {"extra-counters", "E", true},
	// Tracing (docs/tracing.md): the HIP (or CUDA) and HSA (or CUDA driver) APIs, markers, copies and
	// kernel dispatches; not yet memory allocations, scratch memory, RCCL, Kokkos, rocDecode, rocJPEG,
	// nor the HSA domains one by one.
	{"runtime-trace", "r", true}, {"sys-trace", "s", true}, {"hip-trace", "", true}, {"marker-trace", "", true},
	{"kernel-trace", "", true}, {"memory-copy-trace", "", true}, {"memory-allocation-trace", "", false},
	{"scratch-memory-trace", "", false}, {"hsa-trace", "", true}, {"rccl-trace", "", false}, {"kokkos-trace", "", false},
	{"rocdecode-trace", "", false}, {"rocjpeg-trace", "", false}, {"hip-runtime-trace", "", true},
	{"hip-compiler-trace", "", true}, {"hsa-core-trace", "", false}, {"hsa-amd-trace", "", false},
	{"hsa-image-trace", "", false}, {"hsa-finalizer-trace", "", false},
	{"pmc", "", true}, {"replay-mode", "", true}, {"kernel-replay-beta-enabled", "", true},
	// PC sampling and thread trace: recognised (hidden flags) for the kernel-replay diagnostic, refused otherwise.
	{"pc-sampling-beta-enabled", "", true}, {"pc-sampling-unit", "", true}, {"pc-sampling-method", "", true},
	{"pc-sampling-interval", "", true},
	{"stats", "", true}, {"summary", "S", true}, {"summary-per-domain", "D", true}, {"summary-groups", "", true},
	{"summary-output-file", "", true}, {"summary-units", "u", true},
	{"mangled-kernels", "M", true}, {"truncate-kernels", "T", true}, {"kernel-rename", "", false},
	{"kernel-include-regex", "", true}, {"kernel-exclude-regex", "", true}, {"kernel-iteration-range", "", true},
	{"collection-period", "P", false}, {"collection-period-unit", "", false}, {"selected-regions", "", false},
	{"perfetto-backend", "", false}, {"perfetto-buffer-size", "", false}, {"perfetto-buffer-fill-policy", "", false},
	{"perfetto-shmem-size-hint", "", false},
	{"list-avail", "L", true}, {"group-by-queue", "", false},
	{"preload", "", false}, {"rocm-root", "", true}, {"sdk-soversion", "", false}, {"sdk-version", "", false},
	{"readlink", "", false}, {"realpath", "", false}, {"benchmark-mode", "", false},
	{"agent-index", "A", true},
	{"suppress-marker-preload", "", false}, {"echo", "", false}, {"disable-signal-handlers", "", false},
	{"minimum-output-data", "", false}, {"pid", "p", false},
	{"advanced-thread-trace", "", false}, {"att", "", true}, {"att-library-path", "", false}, {"att-target-cu", "", false},
	{"att-simd-select", "", false}, {"att-buffer-size", "", false}, {"att-shader-engine-mask", "", false},
	{"att-gpu-index", "", false}, {"att-perfcounters", "", false}, {"att-perfcounter-ctrl", "", false},
	{"att-activity", "", false}, {"att-serialize-all", "", false},
}

// unsupportedFlag returns the rocprofv3 option that name (a long name, or a shorthand when short)
// is when gorocprof does not implement it, as the user would look it up: "--sys-trace" or
// "-s/--sys-trace".
func unsupportedFlag(name string, short bool) (string, bool) {
	for _, f := range rocprofv3Flags {
		if f.has || (short && f.short != name) || (!short && f.long != name) {
			continue
		}
		if f.short != "" {
			return "-" + f.short + "/--" + f.long, true
		}
		return "--" + f.long, true
	}
	return "", false
}
