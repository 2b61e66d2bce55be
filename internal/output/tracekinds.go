package output

import (
	"cmp"
	"slices"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/records"
	"github.com/gorocprof/gorocprof/internal/tracing"
)

// traceGroup is one of rocprofv3's output domains (its domain_type) that trace lines fill: the
// record domains it gathers, its trace and stats files, its name in domain_stats.csv and the
// summaries, and its buffer_records array in results.json. The CUDA groups are gorocprof's own,
// shaped as the HIP and HSA ones.
type traceGroup struct {
	domains []string // the record domains of the group (docs/tracing.md)
	trace   string   // the CSV file's suffix
	stats   string   // --stats' file suffix
	column  string   // the Name of its domain_stats.csv row, the DOMAIN of the summaries
	array   string   // its buffer_records array
}

// traceGroups are in rocprofv3's domain_type order, which orders the summaries and the names of a
// --summary-groups table; the kernel dispatch domain sits between the markers and the copies
// (kernelGroupOrder), the CUDA groups beside the HIP and HSA groups they stand for.
var traceGroups = []traceGroup{
	{[]string{tracing.DomainHSACore, tracing.DomainHSAAMDExt, tracing.DomainHSAImageExt, tracing.DomainHSAFinalize},
		"_hsa_api_trace.csv", "_hsa_api_stats.csv", "HSA_API", "hsa_api"},
	{[]string{tracing.DomainCUDADriver}, "_cuda_driver_api_trace.csv", "_cuda_driver_api_stats.csv", "CUDA_DRIVER_API", "cuda_driver_api"},
	{[]string{tracing.DomainHIPRuntime, tracing.DomainHIPCompiler}, "_hip_api_trace.csv", "_hip_api_stats.csv", "HIP_API", "hip_api"},
	{[]string{tracing.DomainCUDARuntime}, "_cuda_api_trace.csv", "_cuda_api_stats.csv", "CUDA_API", "cuda_api"},
	{[]string{tracing.DomainMarker}, "_marker_api_trace.csv", "_marker_api_stats.csv", "MARKER_API", "marker_api"},
	{[]string{contract.DomainMemoryCopy}, "_memory_copy_trace.csv", "_memory_copy_stats.csv", "MEMORY_COPY", "memory_copy"},
}

// kernelGroupOrder is where KERNEL_DISPATCH falls among traceGroups in rocprofv3's order: after
// the markers, before the copies.
const kernelGroupOrder = 5

// TraceFile is one trace group's outputs, for their readers (tests, checkers): its buffer_records
// array, its CSV and stats files' suffixes after the prefix, and its name in domain_stats.csv.
type TraceFile struct {
	Array, CSV, Stats, Column string
}

// TraceFiles are the trace groups' outputs, in rocprofv3's domain order.
func TraceFiles() []TraceFile {
	out := make([]TraceFile, len(traceGroups))
	for i, g := range traceGroups {
		out[i] = TraceFile{Array: g.array, CSV: g.trace, Stats: g.stats, Column: g.column}
	}
	return out
}

// traceSuffixes are the file suffixes of the trace groups' CSV and stats files.
func traceSuffixes() []string {
	var out []string
	for _, g := range traceGroups {
		out = append(out, g.trace, g.stats)
	}
	return out
}

// traceGroupOf is the index in traceGroups of a record domain; -1 for none.
func traceGroupOf(domain string) int {
	for i, g := range traceGroups {
		if slices.Contains(g.domains, domain) {
			return i
		}
	}
	return -1
}

// TraceDomainKnown says whether a trace line's domain is one the outputs write (docs/tracing.md).
func TraceDomainKnown(domain string) bool { return traceGroupOf(domain) >= 0 }

// traceLineKnown says whether the outputs write t: its domain is known and fits its type, a copy
// line's MEMORY_COPY, a marker's the marker domain, an API call's an API domain.
func traceLineKnown(t *contract.Trace) bool {
	d := t.TraceDomain()
	switch t.Kind {
	case contract.RecCopy:
		return true // always MEMORY_COPY
	case contract.RecMarker:
		return d == tracing.DomainMarker
	case contract.RecAPI:
		return TraceDomainKnown(d) && d != tracing.DomainMarker && d != contract.DomainMemoryCopy
	}
	return false
}

// TraceArray is the buffer_records array of results.json that holds a domain's records; "" for a
// domain no output knows.
func TraceArray(domain string) string {
	if g := traceGroupOf(domain); g >= 0 {
		return traceGroups[g].array
	}
	return ""
}

// traceKind is the buffer tracing kind results.json gives a record domain: its index in
// bufferKindNames, whose names are the domains' own.
func traceKind(domain string) int { return slices.Index(bufferKindNames, domain) }

// fixedOperations are the SDK's operation tables of the kinds whose operations it numbers the
// same in every version (rocprofiler_memory_copy_operation_t, rocprofiler_marker_core_range_api_id_t):
// their records keep the SDK's ids, and a name outside the table (cuda's MEMORY_SET, the NVTX
// calls) is added after them. The API kinds' tables are the operations the process called, by name.
var fixedOperations = map[int][]string{
	bufferKindKernelDispatch: kernelDispatchOperations,
	bufferKindMemoryCopy: {"MEMORY_COPY_NONE", "MEMORY_COPY_HOST_TO_HOST", "MEMORY_COPY_HOST_TO_DEVICE",
		"MEMORY_COPY_DEVICE_TO_HOST", "MEMORY_COPY_DEVICE_TO_DEVICE"},
	bufferKindMarkerRange: {"roctxMarkA", "roctxThreadRangeA", "roctxProcessRangeA", "roctxGetThreadId"},
}

// traceNames are one process's strings.buffer_records operations, by kind, and the marker messages
// by correlation id (strings.marker_api), as its results.json writes them and its records use them.
type traceNames struct {
	ops      [][]string       // by kind
	opIndex  []map[string]int // by kind
	messages []marker         // by correlation id
}

type marker struct {
	corr    uint64
	message string
}

// newTraceNames numbers the operations of every kind: the SDK's fixed tables first, then the
// operations the process's lines name beyond them, sorted, so that the same lines give the same
// numbers whatever their order.
func newTraceNames(proc *records.Process) *traceNames {
	n := &traceNames{ops: make([][]string, len(bufferKindNames)), opIndex: make([]map[string]int, len(bufferKindNames))}
	extra := make([][]string, len(bufferKindNames))
	for k := range bufferKindNames {
		n.opIndex[k] = map[string]int{}
		for i, op := range fixedOperations[k] {
			n.opIndex[k][op] = i
		}
	}
	_ = proc.EachTrace(func(t *contract.Trace) error { // fn fails never, nor then does EachTrace
		if !traceLineKnown(t) {
			return nil // written nowhere (Files.Trace)
		}
		k := traceKind(t.TraceDomain())
		if _, ok := n.opIndex[k][t.Op]; !ok {
			n.opIndex[k][t.Op] = -1
			extra[k] = append(extra[k], t.Op)
		}
		if t.Kind == contract.RecMarker {
			n.messages = append(n.messages, marker{t.CorrelationID, t.Message})
		}
		return nil
	})
	for k := range bufferKindNames {
		slices.Sort(extra[k])
		n.ops[k] = append(slices.Clone(fixedOperations[k]), extra[k]...)
		if n.ops[k] == nil {
			n.ops[k] = []string{}
		}
		for i, op := range n.ops[k] {
			n.opIndex[k][op] = i
		}
	}
	slices.SortStableFunc(n.messages, func(a, b marker) int { return cmp.Compare(a.corr, b.corr) })
	return n
}
