package output

import (
	"strconv"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/jsonnum"
	"github.com/gorocprof/gorocprof/internal/tracing"
)

// rocprofiler-sdk enum values that results.json readers switch on (rocprofiler/fwd.h).
const (
	bufferKindMemoryCopy     = 10 // ROCPROFILER_BUFFER_TRACING_MEMORY_COPY
	bufferKindKernelDispatch = 11 // ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH
	bufferKindMarkerRange    = 32 // ROCPROFILER_BUFFER_TRACING_MARKER_CORE_RANGE_API
	dispatchOpComplete       = 2  // ROCPROFILER_KERNEL_DISPATCH_COMPLETE
)

// bufferKindNames are the names of rocprofiler_buffer_tracing_kind_t by value, as the SDK names
// them (the enumerator without ROCPROFILER_BUFFER_TRACING_); rocprofv3's strings.buffer_records
// is indexed by the kind, the readers look a record's kind up there. Kind 0 (NONE) has no name.
// The SDK's kinds end at MARKER_CORE_RANGE_API; the two after it are gorocprof's, for the CUDA
// backend's API records (a reader finds their names here, as it finds every kind's).
var bufferKindNames = []string{
	"", "HSA_CORE_API", "HSA_AMD_EXT_API", "HSA_IMAGE_EXT_API", "HSA_FINALIZE_EXT_API",
	"HIP_RUNTIME_API", "HIP_COMPILER_API", "MARKER_CORE_API", "MARKER_CONTROL_API", "MARKER_NAME_API",
	"MEMORY_COPY", "KERNEL_DISPATCH", "SCRATCH_MEMORY", "CORRELATION_ID_RETIREMENT", "RCCL_API",
	"OMPT", "MEMORY_ALLOCATION", "RUNTIME_INITIALIZATION", "ROCDECODE_API", "ROCJPEG_API",
	"HIP_STREAM", "HIP_RUNTIME_API_EXT", "HIP_COMPILER_API_EXT", "ROCDECODE_API_EXT",
	"KFD_EVENT_PAGE_MIGRATE", "KFD_EVENT_PAGE_FAULT", "KFD_EVENT_QUEUE", "KFD_EVENT_UNMAP_FROM_GPU",
	"KFD_EVENT_DROPPED_EVENTS", "KFD_PAGE_MIGRATE", "KFD_PAGE_FAULT", "KFD_QUEUE", tracing.DomainMarker,
	tracing.DomainCUDARuntime, tracing.DomainCUDADriver,
}

// kernelDispatchOperations are the operations of the kernel dispatch kind by value
// (rocprofiler_kernel_dispatch_operation_t).
var kernelDispatchOperations = []string{"NONE", "ENQUEUE", "COMPLETE"}

// The per-pass records of results.json are appended by hand, key by key in the order
// encoding/json gives the fields of the structs they replaced (kept in recordjson_test.go, which
// checks the bytes are the same): reflection was most of the time spent writing a large file.
// Only numbers vary, so nothing needs escaping.

// appendCounterRecord appends one pass's counters, one sample per instance, as replay pass pass;
// group >= 0 adds the rotated group the dispatch collected ("pmc_group", 0-based as "group" in the
// plan metadata).
func appendCounterRecord(b []byte, d *contract.Dispatch, k contract.Kernel, counters []idValues, pass, group int) []byte {
	b = append(b, `{"dispatch_data":{"size":0,"correlation_id":`...)
	b = appendTimedDispatch(b, d)
	b = append(b, `},"records":[`...)
	first := true
	for _, c := range counters {
		for _, val := range c.Values {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, `{"counter_id":{"handle":`...)
			b = strconv.AppendUint(b, c.id, 10)
			b = append(b, `},"value":`...)
			b = appendNumber(b, val)
			b = append(b, '}')
		}
	}
	b = append(b, `],"thread_id":`...)
	b = strconv.AppendUint(b, d.ThreadID, 10)
	b = appendPassStream(b, d, pass)
	if group >= 0 {
		b = append(b, `,"pmc_group":`...)
		b = strconv.AppendInt(b, int64(group), 10)
	}
	b = append(b, `,"arch_vgpr_count":`...)
	b = strconv.AppendInt(b, k.VGPR, 10)
	b = append(b, `,"accum_vgpr_count":`...)
	b = strconv.AppendInt(b, k.AccumVGPR, 10)
	b = append(b, `,"sgpr_count":`...)
	b = strconv.AppendInt(b, k.SGPR, 10)
	b = append(b, `,"lds_block_size_v":`...)
	b = strconv.AppendInt(b, d.LDS, 10)
	return append(b, '}')
}

// appendDispatchRecord appends one pass's kernel dispatch (buffer) record, as replay pass pass.
func appendDispatchRecord(b []byte, d *contract.Dispatch, pass int) []byte {
	b = append(b, `{"size":0,"kind":`...)
	b = strconv.AppendInt(b, bufferKindKernelDispatch, 10)
	b = append(b, `,"operation":`...)
	b = strconv.AppendInt(b, dispatchOpComplete, 10)
	b = append(b, `,"thread_id":`...)
	b = strconv.AppendUint(b, d.ThreadID, 10)
	b = append(b, `,"correlation_id":`...)
	b = appendTimedDispatch(b, d)
	b = appendPassStream(b, d, pass)
	return append(b, '}')
}

// appendPassStream appends what gorocprof adds to both record kinds: the pass (pass) and the stream the
// dispatch was launched on, which rocprofiler-sdk's records do not carry (the rocpd database and
// kernel_trace.csv have the stream; with it here, a merge of results.json files keeps it).
func appendPassStream(b []byte, d *contract.Dispatch, pass int) []byte {
	b = append(b, `,"replay_pass":`...)
	b = strconv.AppendInt(b, int64(pass), 10)
	b = append(b, `,"stream_id":{"handle":`...)
	b = strconv.AppendUint(b, d.StreamID, 10)
	return append(b, '}')
}

// appendTimedDispatch appends the fields both record kinds share after "correlation_id":: the
// correlation, the pass's timestamps and the dispatch info.
func appendTimedDispatch(b []byte, d *contract.Dispatch) []byte {
	b = appendCorrelation(b, d)
	b = append(b, `,"start_timestamp":`...)
	b = strconv.AppendInt(b, d.Start, 10)
	b = append(b, `,"end_timestamp":`...)
	b = strconv.AppendInt(b, d.End, 10)
	b = append(b, `,"dispatch_info":`...)
	return appendDispatchInfo(b, d)
}

func appendCorrelation(b []byte, d *contract.Dispatch) []byte {
	b = append(b, `{"internal":`...)
	b = strconv.AppendUint(b, d.CorrelationID, 10)
	b = append(b, `,"external":`...)
	b = strconv.AppendUint(b, d.ExternalID, 10)
	return append(b, '}')
}

func appendDispatchInfo(b []byte, d *contract.Dispatch) []byte {
	b = append(b, `{"size":0,"agent_id":{"handle":`...)
	b = strconv.AppendUint(b, d.AgentID, 10)
	b = append(b, `},"queue_id":{"handle":`...)
	b = strconv.AppendUint(b, d.QueueID, 10)
	b = append(b, `},"kernel_id":`...)
	b = strconv.AppendUint(b, d.KernelID, 10)
	b = append(b, `,"dispatch_id":`...)
	b = strconv.AppendUint(b, d.DispatchID, 10)
	b = append(b, `,"private_segment_size":`...)
	b = strconv.AppendInt(b, d.Scratch, 10)
	b = append(b, `,"group_segment_size":`...)
	b = strconv.AppendInt(b, d.LDS, 10)
	b = append(b, `,"workgroup_size":`...)
	b = appendDim3(b, d.Workgroup)
	b = append(b, `,"grid_size":`...)
	b = appendDim3(b, d.Grid)
	return append(b, '}')
}

func appendDim3(b []byte, v [3]uint32) []byte {
	b = append(b, `{"x":`...)
	b = strconv.AppendUint(b, uint64(v[0]), 10)
	b = append(b, `,"y":`...)
	b = strconv.AppendUint(b, uint64(v[1]), 10)
	b = append(b, `,"z":`...)
	b = strconv.AppendUint(b, uint64(v[2]), 10)
	return append(b, '}')
}

// appendNumber appends a counter value. JSON has no NaN or infinity; such a value (a derived
// counter divided by zero) is written as null rather than as a made-up number. Whole numbers are
// written as integers.
func appendNumber(b []byte, f float64) []byte { return jsonnum.Append(b, f) }
