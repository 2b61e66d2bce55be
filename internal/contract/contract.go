// Package contract holds the types of the versioned contract between the Go front end and the tool
// library inside the profiled process: the environment variables, the plan file and the record lines.
// docs/record-format.md is the prose version of this file; keep the two in step.
package contract

// Version is the contract version both sides must agree on.
const Version = 1

// Environment variables the launcher sets for the tool library.
const (
	EnvContract      = "GOROCPROF_CONTRACT"
	EnvRunDir        = "GOROCPROF_RUN_DIR"
	EnvPlan          = "GOROCPROF_PLAN"
	EnvLogLevel      = "GOROCPROF_LOG_LEVEL"
	EnvSimInjection  = "GOROCPROF_SIM_INJECTION_PATH"
	EnvCUDAInjection = "CUDA_INJECTION64_PATH"
	EnvSimAgents     = "GOROCPROF_SIM_AGENTS"
	// EnvCacheControl: CUDA backend, "all" (flush the L2 before every pass, the default) or "none".
	EnvCacheControl = "GOROCPROF_CACHE_CONTROL"
	// EnvGraphProfiling: CUDA backend, "node" (each kernel node of a graph launch a dispatch, the default)
	// or "graph" (each graph launch one dispatch).
	EnvGraphProfiling = "GOROCPROF_GRAPH_PROFILING"
	// EnvCUDAAvailabilityDir: CUDA backend, where the tool keeps each device's counter availability image
	// between processes (set by the front end inside its query cache; unset: read by every process).
	EnvCUDAAvailabilityDir = "GOROCPROF_CUDA_AVAILABILITY_DIR"
)

// File names inside the run directory.
const (
	PlanFile   = "plan.json"
	RecordsDir = "records"
)

// Replay modes as written in the plan.
const (
	ModeKernel      = "kernel"
	ModeApplication = "application"
	ModeNone        = "none"
	// ModeRotation: no replay; each selected dispatch of an agent collects one of its passes in
	// turn, Plan.GroupInterval dispatches each (rocprofv3's pmc_groups with pmc_group_interval).
	ModeRotation = "rotation"
)

// Filters select dispatches by kernel name and per-kernel iteration.
type Filters struct {
	IncludeRegex    string     `json:"include_regex"`
	ExcludeRegex    string     `json:"exclude_regex"`
	NameKind        string     `json:"name_kind"` // "demangled", "truncated" or "mangled": the name output displays
	IterationRanges [][2]int64 `json:"iteration_ranges"`
}

// Record types (the "t" field of each record line).
const (
	RecHeader   = "header"
	RecAgent    = "agent"
	RecKernel   = "kernel"
	RecDispatch = "dispatch"
	RecDecline  = "decline"
	RecWarning  = "warning"
	RecFatal    = "fatal"
	RecEnd      = "end"
	RecStopped  = "stopped"
	// Trace lines (docs/tracing.md).
	RecAPI    = "api"
	RecMarker = "marker"
	RecCopy   = "copy"
)

// Header is the first line of a record file.
type Header struct {
	Version  int      `json:"version"`
	PID      int64    `json:"pid"`
	PPID     int64    `json:"ppid"`
	Backend  string   `json:"backend"`
	Hostname string   `json:"hostname"`
	InitTime int64    `json:"init_time"`
	Cmdline  []string `json:"cmdline"`
}

// Agent describes one GPU (or simulated GPU) as the runtime reports it. The query helpers print the
// same object.
type Agent struct {
	ID          uint64            `json:"id"`
	Index       int               `json:"index"`
	Name        string            `json:"name"`
	ProductName string            `json:"product_name"`
	Vendor      string            `json:"vendor"`
	Type        string            `json:"type"`
	Props       map[string]int64  `json:"props"`
	Strings     map[string]string `json:"strings"`
}

// Kernel is one kernel symbol.
type Kernel struct {
	KernelID           uint64 `json:"kernel_id"`
	Name               string `json:"name"`
	Demangled          string `json:"demangled"`
	Truncated          string `json:"truncated"`
	AgentID            uint64 `json:"agent_id"`
	KernargSize        int64  `json:"kernarg_size"`
	GroupSegmentSize   int64  `json:"group_segment_size"`
	PrivateSegmentSize int64  `json:"private_segment_size"`
	SGPR               int64  `json:"sgpr"`
	VGPR               int64  `json:"vgpr"`
	AccumVGPR          int64  `json:"accum_vgpr"`
}

// Dispatch is one executed pass of one logical dispatch.
type Dispatch struct {
	DispatchID    uint64         `json:"dispatch_id"`
	Pass          int            `json:"pass"`
	Passes        int            `json:"passes"`
	CorrelationID uint64         `json:"correlation_id"`
	ExternalID    uint64         `json:"external_id"`
	AgentID       uint64         `json:"agent_id"`
	QueueID       uint64         `json:"queue_id"`
	StreamID      uint64         `json:"stream_id"`
	ThreadID      uint64         `json:"thread_id"`
	KernelID      uint64         `json:"kernel_id"`
	Grid          [3]uint32      `json:"grid"`
	Workgroup     [3]uint32      `json:"workgroup"`
	LDS           int64          `json:"lds"`
	Scratch       int64          `json:"scratch"`
	Start         int64          `json:"start"`
	End           int64          `json:"end"`
	Counters      []CounterValue `json:"counters"`
}

// CounterValue is one base counter on one pass: one value per hardware instance. A nil element is a
// value the hardware did not deliver.
type CounterValue struct {
	Name   string     `json:"name"`
	Values []*float64 `json:"values"`
}

// Decline reports a dispatch whose replay was asked for but could not be done.
type Decline struct {
	DispatchID uint64 `json:"dispatch_id"`
	Reason     string `json:"reason"`
}

// Message is a warning or fatal line.
type Message struct {
	Message string `json:"message"`
}

// End is the last line of a record file of a process that exited normally.
type End struct {
	FiniTime   int64  `json:"fini_time"`
	Dispatches uint64 `json:"dispatches"`
	Replayed   uint64 `json:"replayed"`
	Declined   uint64 `json:"declined"`
}

// Stopped is the last line of a record file whose writes failed (disk full, file size limit): the
// tool wrote nothing after it, the process ran on.
type Stopped struct {
	Reason string `json:"reason"`
}

// Trace is one trace line (docs/tracing.md): an API call (Kind "api"), a marker range or mark
// ("marker") or a memory copy ("copy"). Fields a kind does not use are zero.
type Trace struct {
	Kind          string `json:"-"`      // RecAPI, RecMarker or RecCopy: the line's "t"
	Domain        string `json:"domain"` // api, marker: the domain (HIP_RUNTIME_API, ...); copy: empty, read as MEMORY_COPY
	Op            string `json:"op"`
	Message       string `json:"message,omitempty"` // marker
	CorrelationID uint64 `json:"correlation_id"`
	ThreadID      uint64 `json:"thread_id"`
	Start         int64  `json:"start"`
	End           int64  `json:"end"`
	// copy
	SrcAgentID uint64 `json:"src_agent_id,omitempty"`
	DstAgentID uint64 `json:"dst_agent_id,omitempty"`
	QueueID    uint64 `json:"queue_id,omitempty"`
	StreamID   uint64 `json:"stream_id,omitempty"`
	Size       uint64 `json:"size,omitempty"`
	SrcAddress uint64 `json:"src_address,omitempty"`
	DstAddress uint64 `json:"dst_address,omitempty"`
}

// DomainMemoryCopy is the domain of every copy line.
const DomainMemoryCopy = "MEMORY_COPY"

// TraceDomain is t's domain: its Domain, or MEMORY_COPY for a copy.
func (t *Trace) TraceDomain() string {
	if t.Kind == RecCopy {
		return DomainMemoryCopy
	}
	return t.Domain
}

// AgentsReply is what `gorocprof-query-<backend> agents` prints. The CUDA helper's `agents --only A,B
// [--passes A,B]...` adds, for the first agent of each chip, what `metrics --agent N --only ...` answers.
type AgentsReply struct {
	Version  int            `json:"version"`
	Backend  string         `json:"backend"`
	Agents   []Agent        `json:"agents"`
	Catalogs []MetricsReply `json:"catalogs,omitempty"`
}

// MetricsReply is what `gorocprof-query-cuda metrics --agent N` prints: the chip's whole catalog. With
// `--only A,B [--passes A,B]...` Metrics holds the named metrics the chip has, Missing the others, and
// Passes the pass count of each --passes set whose metrics the chip all has (a set CUPTI refuses is left
// out).
type MetricsReply struct {
	Version int         `json:"version"`
	Agent   int         `json:"agent"`
	Chip    string      `json:"chip"`
	Metrics []Metric    `json:"metrics"`
	Missing []string    `json:"missing,omitempty"`
	Passes  []SetPasses `json:"passes,omitempty"`
}

// SetPasses is the hardware passes one set of metrics needs together.
type SetPasses struct {
	Metrics []string `json:"metrics"`
	Passes  int      `json:"passes"`
}

// Metric is one NVIDIA metric of the catalog.
type Metric struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Unit        string `json:"unit"`
}

// PassesReply is what `gorocprof-query-cuda passes --agent N a,b,c` prints.
type PassesReply struct {
	Version int      `json:"version"`
	Agent   int      `json:"agent"`
	Metrics []string `json:"metrics"`
	Passes  int      `json:"passes"`
}
