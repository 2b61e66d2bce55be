package output

import (
	"sort"
	"strconv"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/output/bgwrite"
)

// agentNumbers are the integer agent fields of results.json in the schema's order, then the ones
// agent_info.csv adds. Values come from the agent record's props, 0 when the backend does not know.
var agentNumbers = []string{
	"cpu_cores_count", "simd_count", "mem_banks_count", "caches_count", "io_links_count",
	"cpu_core_id_base", "simd_id_base", "max_waves_per_simd", "lds_size_in_kb", "gds_size_in_kb",
	"num_gws", "wave_front_size", "num_xcc", "cu_count", "array_count", "num_shader_banks",
	"simd_arrays_per_engine", "cu_per_simd_array", "simd_per_cu", "max_slots_scratch_cu",
	"gfx_target_version", "vendor_id", "device_id", "location_id", "domain", "drm_render_minor",
	"num_sdma_engines", "num_sdma_xgmi_engines", "num_sdma_queues_per_engine", "num_cp_queues",
	"max_engine_clk_ccompute", "max_engine_clk_fcompute",
	"node_id", "logical_node_id", "cu_per_engine", "max_waves_per_cu", "family_id",
	"workgroup_max_size", "grid_max_size", "local_mem_size", "hive_id", "gpu_id",
}

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

// agentNodeID is the id output files give an agent: its KFD node id (node_id) when the backend
// reports one, else its handle. Agent_Id in the CSV files and Node_Id in agent_info.csv are both
// this value, so the files join on it.
func agentNodeID(a contract.Agent) uint64 {
	if n, ok := a.Props["node_id"]; ok && n > 0 {
		return uint64(n)
	}
	return a.ID
}

// agentNumber is one integer agent field: the record's props, with node_id and logical_node_id
// falling back to the agent's node id when the backend does not report them.
func agentNumber(a contract.Agent, key string) int64 {
	switch key {
	case "node_id":
		return int64(agentNodeID(a))
	case "logical_node_id":
		if n, ok := a.Props[key]; ok && n > 0 {
			return n
		}
		return int64(agentNodeID(a))
	}
	return a.Props[key]
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

func (v *view) agentObjects() []object {
	out := []object{}
	for _, a := range sortedAgents(v.proc) {
		o := object{{"size", 0}, {"id", handle{a.ID}}, {"type", agentTypeCode(a.Type)}}
		for _, k := range agentNumbers {
			o = append(o, kv{k, agentNumber(a, k)})
		}
		dim := func(prefix string) object {
			return object{{"x", a.Props[prefix+"_x"]}, {"y", a.Props[prefix+"_y"]}, {"z", a.Props[prefix+"_z"]}}
		}
		caps := object{}
		for _, c := range capabilityBits {
			caps = append(caps, kv{c, 0})
		}
		o = append(o,
			kv{"workgroup_max_dim", dim("workgroup_max_dim")},
			kv{"grid_max_dim", dim("grid_max_dim")},
			kv{"sdma_fw_version", object{{"uCodeSDMA", 0}, {"uCodeRes", 0}}},
			kv{"fw_version", object{{"uCode", 0}, {"Major", 0}, {"Minor", 0}, {"Stepping", 0}}},
			kv{"capability", caps},
		)
		for _, k := range []string{"name", "vendor_name", "product_name", "model_name"} {
			s, _ := agentText(a, k)
			o = append(o, kv{k, s})
		}
		o = append(o, kv{"agent_index", a.Index})
		keys := make([]string, 0, len(a.Strings))
		for k := range a.Strings {
			if k != "model_name" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			o = append(o, kv{k, a.Strings[k]})
		}
		out = append(out, o)
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
