package output

import (
	"encoding/hex"
	"sort"
	"strconv"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/output/bgwrite"
)

// The integer agent fields of results.json, in the order rocprofv3 serializes an agent
// (rocprofiler_agent_v0_t): the ones before the firmware versions, the ones between the capability
// bits and the dimension objects, and the node ids after the names. Values come from the agent
// record's props, 0 when the backend does not know (agentNumber says which are derived).
var (
	agentNumbersHead = []string{
		"cpu_cores_count", "simd_count", "mem_banks_count", "caches_count", "io_links_count",
		"cpu_core_id_base", "simd_id_base", "max_waves_per_simd", "lds_size_in_kb", "gds_size_in_kb",
		"num_gws", "wave_front_size", "num_xcc", "cu_count", "array_count", "num_shader_banks",
		"simd_arrays_per_engine", "cu_per_simd_array", "simd_per_cu", "max_slots_scratch_cu",
		"gfx_target_version", "vendor_id", "device_id", "location_id", "domain", "drm_render_minor",
		"num_sdma_engines", "num_sdma_xgmi_engines", "num_sdma_queues_per_engine", "num_cp_queues",
		"max_engine_clk_ccompute", "max_engine_clk_fcompute",
	}
	agentNumbersMid = []string{
		"cu_per_engine", "max_waves_per_cu", "family_id", "workgroup_max_size", "grid_max_size",
		"local_mem_size", "hive_id", "gpu_id",
	}
	agentNumbersNode = []string{"node_id", "logical_node_id", "logical_node_type_id"}
	// agentNumbers is every integer field, for reading an agent object back.
	agentNumbers = append(append(append([]string{}, agentNumbersHead...), agentNumbersMid...), agentNumbersNode...)
)

var capabilityBits = []string{
	"HotPluggable", "HSAMMUPresent", "SharedWithGraphics", "QueueSizePowerOfTwo", "QueueSize32bit",
	"QueueIdleEvent", "VALimit", "WatchPointsSupported", "WatchPointsTotalBits", "DoorbellType",
	"AQLQueueDoubleMap", "DebugTrapSupported", "WaveLaunchTrapOverrideSupported", "WaveLaunchModeSupported",
	"PreciseMemoryOperationsSupported", "DEPRECATED_SRAM_EDCSupport", "Mem_EDCSupport", "RASEventNotify",
	"ASICRevision", "SRAM_EDCSupport", "SVMAPISupported", "CoherentHostAccess", "DebugSupportedFirmware",
	"Reserved",
}

// agentInfoColumns is agent_info.csv's header, verbatim from rocprofv3.
var agentInfoColumns = []string{
	"Node_Id", "Logical_Node_Id", "Agent_Type", "Cpu_Cores_Count", "Simd_Count", "Cpu_Core_Id_Base",
	"Simd_Id_Base", "Max_Waves_Per_Simd", "Lds_Size_In_Kb", "Gds_Size_In_Kb", "Num_Gws", "Wave_Front_Size",
	"Num_Xcc", "Cu_Count", "Array_Count", "Num_Shader_Banks", "Simd_Arrays_Per_Engine", "Cu_Per_Simd_Array",
	"Simd_Per_Cu", "Max_Slots_Scratch_Cu", "Gfx_Target_Version", "Vendor_Id", "Device_Id", "Location_Id",
	"Domain", "Drm_Render_Minor", "Num_Sdma_Engines", "Num_Sdma_Xgmi_Engines", "Num_Sdma_Queues_Per_Engine",
	"Num_Cp_Queues", "Max_Engine_Clk_Ccompute", "Max_Engine_Clk_Fcompute", "Sdma_Fw_Version", "Fw_Version",
	"Capability", "Cu_Per_Engine", "Max_Waves_Per_Cu", "Family_Id", "Workgroup_Max_Size", "Grid_Max_Size",
	"Local_Mem_Size", "Hive_Id", "Gpu_Id", "Workgroup_Max_Dim_X", "Workgroup_Max_Dim_Y", "Workgroup_Max_Dim_Z",
	"Grid_Max_Dim_X", "Grid_Max_Dim_Y", "Grid_Max_Dim_Z", "Name", "Vendor_Name", "Product_Name", "Model_Name",
}

// agentNumber is one integer agent field: the record's props, with node_id and logical_node_id
// falling back to the agent's node id and logical_node_type_id (the agent's ordinal among the
// agents of its type, which is what the plan's agent index is) to its index when the backend does
// not report them, and the SIMD fields of a device that counts in SMs derived (smNumber).
func agentNumber(a contract.Agent, key string) int64 {
	switch key {
	case "node_id":
		return int64(a.NodeID())
	case "logical_node_id":
		return a.LogicalNodeID()
	case "logical_node_type_id":
		if n, ok := a.Props[key]; ok {
			return n
		}
		return int64(a.Index)
	}
	if n, ok := a.Props[key]; ok {
		return n
	}
	if n, ok := smNumber(a, key); ok {
		return n
	}
	return 0
}

// smNumber derives the SIMD fields of an agent whose backend describes it in SMs (a CUDA device:
// its props have max_threads_per_sm and the SM count as cu_count) and does not report them. CUDA
// reports no unit below the SM with its own warp limit, so an SM counts as one SIMD: simd_per_cu 1,
// simd_count the SM count, and max_waves_per_simd = max_waves_per_cu the SM's warp limit, its
// thread limit over the warp size.
func smNumber(a contract.Agent, key string) (int64, bool) {
	threads, warp := a.Props["max_threads_per_sm"], a.Props["wave_front_size"]
	if threads <= 0 || warp <= 0 {
		return 0, false
	}
	switch key {
	case "simd_per_cu":
		return 1, true
	case "simd_count":
		return a.Props["cu_count"], true
	case "max_waves_per_simd", "max_waves_per_cu":
		return threads / warp, true
	}
	return 0, false
}

func agentTypeCode(t string) int {
	switch strings.ToUpper(t) {
	case "CPU":
		return 1
	case "GPU":
		return 2
	}
	return 0
}

// agentText returns the text columns; the contract names some of them differently.
func agentText(a contract.Agent, key string) (string, bool) {
	switch key {
	case "agent_type":
		return a.Type, true
	case "name":
		return a.Name, true
	case "vendor_name":
		return a.Vendor, true
	case "product_name":
		return a.ProductName, true
	case "model_name":
		return a.Strings["model_name"], true
	}
	return "", false
}

// agentObjects are the agents as rocprofv3 serializes them (every field of rocprofiler_agent_v0_t
// in its order, then gpu_index), followed by gorocprof's agent_index and the record's other text
// fields. What the records do not carry is 0 or empty: the firmware versions and capability bits,
// runtime_visibility, and the memory banks, caches and I/O links (their counts are the props', 0
// unless the backend reports them).
func (v *view) agentObjects() []object {
	out := []object{}
	for _, a := range sortedAgents(v.proc) {
		out = append(out, agentObject(a))
	}
	return out
}

// agentStringKeys are the record's text fields results.json writes under rocprofv3's own keys.
var agentStringKeys = map[string]bool{"model_name": true}

// gorocprofPrefix marks a record's text field whose name rocprofv3 uses for something else (uuid,
// an object of bytes there): it is written as gorocprof_<name>.
const gorocprofPrefix = "gorocprof_"

func agentObject(a contract.Agent) object {
	o := object{{"size", 0}, {"id", handle{a.ID}}, {"type", agentTypeCode(a.Type)}}
	numbers := func(keys []string) {
		for _, k := range keys {
			o = append(o, kv{k, agentNumber(a, k)})
		}
	}
	dim := func(prefix string) object {
		return object{{"x", a.Props[prefix+"_x"]}, {"y", a.Props[prefix+"_y"]}, {"z", a.Props[prefix+"_z"]}}
	}
	caps := object{}
	for _, c := range capabilityBits {
		caps = append(caps, kv{c, 0})
	}
	numbers(agentNumbersHead)
	o = append(o,
		kv{"sdma_fw_version", object{{"uCodeSDMA", 0}, {"uCodeRes", 0}}},
		kv{"fw_version", object{{"uCode", 0}, {"Major", 0}, {"Minor", 0}, {"Stepping", 0}}},
		kv{"capability", caps})
	numbers(agentNumbersMid)
	o = append(o, kv{"workgroup_max_dim", dim("workgroup_max_dim")}, kv{"grid_max_dim", dim("grid_max_dim")})
	for _, k := range []string{"name", "vendor_name", "product_name", "model_name"} {
		s, _ := agentText(a, k)
		o = append(o, kv{k, s})
	}
	numbers(agentNumbersNode)
	gpuIndex := int64(-1)
	if agentTypeCode(a.Type) == 2 {
		gpuIndex = agentNumber(a, "logical_node_type_id")
	}
	o = append(o,
		kv{"runtime_visibility", object{{"hsa", 0}, {"hip", 0}, {"rccl", 0}, {"rocdecode", 0}}},
		kv{"uuid", object{{"bytes", uuidBytes(a.Strings["uuid"])}}},
		kv{"mem_banks", []object{}}, kv{"caches", []object{}}, kv{"io_links", []object{}},
		kv{"gpu_index", gpuIndex},
		kv{"agent_index", a.Index})
	keys := make([]string, 0, len(a.Strings))
	for k := range a.Strings {
		if !agentStringKeys[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	taken := map[string]bool{}
	for _, f := range o {
		taken[f.k] = true
	}
	for _, k := range keys {
		name := k
		if taken[k] {
			name = gorocprofPrefix + k
		}
		o = append(o, kv{name, a.Strings[k]})
	}
	return o
}

// uuidBytes are the 16 bytes of an agent's UUID text ("GPU-" and 32 hex digits, with or without
// dashes, as the ROCm and CUDA backends write it); all zero when it has none.
func uuidBytes(s string) []int {
	out := make([]int, 16)
	hexDigits := strings.ReplaceAll(strings.TrimPrefix(s, "GPU-"), "-", "")
	b, err := hex.DecodeString(hexDigits)
	if err != nil || len(b) != 16 {
		return out
	}
	for i, x := range b {
		out[i] = int(x)
	}
	return out
}

// writeAgentInfo writes a row per agent of the process that seen does not hold yet, and adds it:
// processes of one file that share their agents list them once.
func (v *view) writeAgentInfo(w *bgwrite.Writer, seen map[string]bool) {
	for _, a := range sortedAgents(v.proc) {
		cells := make([]string, len(agentInfoColumns))
		for i, col := range agentInfoColumns {
			key := strings.ToLower(col)
			if s, ok := agentText(a, key); ok {
				cells[i] = csvString(s)
			} else {
				cells[i] = strconv.FormatInt(agentNumber(a, key), 10)
			}
		}
		line := strings.Join(cells, ",")
		if seen[line] {
			continue
		}
		seen[line] = true
		w.WriteString(line)
		w.WriteByte('\n')
	}
}

func writeHeader(w *bgwrite.Writer, cols []string) {
	for i, c := range cols {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString(csvString(c))
	}
	w.WriteByte('\n')
}

// AgentIndexes are the ways --agent-index numbers agents, as rocprofv3 has them: absolute is the
// agent's node id (KFD's, the CPUs included), relative (the default) its logical node id, and
// type-relative its ordinal among the agents of its type, labelled with the type.
var AgentIndexes = []string{"absolute", "relative", "type-relative"}

func agentIndexOrDefault(s string) string {
	if s == "" {
		return "relative"
	}
	return s
}

// agentIndexLabel is an agent's name in the CSV files (Agent_Id) and the trace's track names:
// "Agent <n>" by node id (absolute) or logical node id (relative), "<type> <n>" by the ordinal
// among its type (type-relative), as rocprofv3 writes it; sep stands between the two.
func agentIndexLabel(a contract.Agent, indexing, sep string) string {
	label, key := "Agent", "logical_node_id"
	switch indexing {
	case "absolute":
		key = "node_id"
	case "type-relative":
		label, key = strings.ToUpper(a.Type), "logical_node_type_id"
		if label == "" {
			label = "UNK"
		}
	}
	return label + sep + strconv.FormatInt(agentNumber(a, key), 10)
}
