#include "device_info.hpp"

#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <cstdio>
#include <mutex>

namespace gorocprof::cuda {
namespace {

std::string format_uuid(const CUuuid& u) {
    // nvidia-smi's form: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx
    static const int groups[] = {4, 2, 2, 2, 6};
    std::string s = "GPU-";
    int k = 0;
    char buf[3];
    for (int g = 0; g < 5; ++g) {
        if (g) s += '-';
        for (int i = 0; i < groups[g]; ++i) {
            std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned char>(u.bytes[k++]));
            s += buf;
        }
    }
    return s;
}

}  // namespace

PortStatus ensure_profiler_initialized() {
    static std::once_flag once;
    static PortStatus result;
    std::call_once(once, [] {
        CUpti_Profiler_Initialize_Params p{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
        result = cupti(cuptiProfilerInitialize(&p), "cuptiProfilerInitialize");
    });
    return result;
}

PortStatus chip_name(int ordinal, std::string* out) {
    PortStatus st = ensure_profiler_initialized();
    if (!st.ok) return st;
    CUpti_Device_GetChipName_Params p{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    p.deviceIndex = static_cast<size_t>(ordinal);
    st = cupti(cuptiDeviceGetChipName(&p), "cuptiDeviceGetChipName");
    if (st.ok) *out = p.pChipName ? p.pChipName : "";
    return st;
}

PortStatus describe_device(int ordinal, DeviceInfo* out) {
    CUdevice dev = 0;
    PortStatus st = cu(cuDeviceGet(&dev, ordinal), "cuDeviceGet");
    if (!st.ok) return st;
    char name[256] = {0};
    if (!(st = cu(cuDeviceGetName(name, sizeof name, dev), "cuDeviceGetName")).ok) return st;
    size_t total_mem = 0;
    if (!(st = cu(cuDeviceTotalMem(&total_mem, dev), "cuDeviceTotalMem")).ok) return st;
    CUuuid uuid{};
    if (!(st = cu(cuDeviceGetUuid(&uuid, dev), "cuDeviceGetUuid")).ok) return st;
    char pci[64] = {0};
    if (!(st = cu(cuDeviceGetPCIBusId(pci, sizeof pci, dev), "cuDeviceGetPCIBusId")).ok) return st;

    struct Attr {
        const char* key;
        CUdevice_attribute attr;
    };
    // Keys follow rocprofv3's agent_info columns where one means the same thing (an SM is the CU's
    // counterpart); the rest are NVIDIA's own.
    static const Attr attrs[] = {
        {"cu_count", CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
        {"sm_count", CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
        {"wave_front_size", CU_DEVICE_ATTRIBUTE_WARP_SIZE},
        {"workgroup_max_size", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
        {"max_threads_per_sm", CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR},
        {"max_shared_memory_per_sm", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR},
        {"max_registers_per_sm", CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR},
        {"l2_cache_size", CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE},
        {"memory_bus_width", CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH},
        {"compute_capability_major", CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR},
        {"compute_capability_minor", CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR},
        {"pci_domain_id", CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID},
        {"pci_bus_id", CU_DEVICE_ATTRIBUTE_PCI_BUS_ID},
        {"pci_device_id", CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID},
    };
    out->props.clear();
    int major = 0, minor = 0;
    for (const Attr& a : attrs) {
        int v = 0;
        if (!(st = cu(cuDeviceGetAttribute(&v, a.attr, dev), "cuDeviceGetAttribute")).ok) {
            st.reason += std::string(" (") + a.key + ")";
            return st;
        }
        out->props.emplace_back(a.key, v);
        if (a.attr == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) major = v;
        if (a.attr == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR) minor = v;
    }
    int shared_kb = 0;
    for (auto& p : out->props)
        if (p.first == "max_shared_memory_per_sm") shared_kb = static_cast<int>(p.second / 1024);
    out->props.emplace_back("lds_size_in_kb", shared_kb);
    out->props.emplace_back("local_mem_size", static_cast<int64_t>(total_mem));
    out->props.emplace_back("location_id", 0);
    int64_t pci_domain = 0, pci_bus = 0, pci_device = 0;
    for (auto& p : out->props) {
        if (p.first == "pci_bus_id") out->props.back().second = pci_bus = p.second;
        if (p.first == "pci_domain_id") pci_domain = p.second;
        if (p.first == "pci_device_id") pci_device = p.second;
    }
    // rocprofv3's node ids number the CPU 0 and the GPUs from 1: the agent's id (ordinal + 1) is
    // its node, so Agent_Id in the CSV files joins agent_info.csv. gpu_id, KFD's per-GPU number, is
    // the PCI location here: unique on the machine and stable across runs.
    out->props.emplace_back("node_id", static_cast<int64_t>(ordinal) + 1);
    out->props.emplace_back("logical_node_id", static_cast<int64_t>(ordinal) + 1);
    out->props.emplace_back("gpu_id", (pci_domain << 16) | (pci_bus << 8) | (pci_device << 3));

    out->ordinal = ordinal;
    out->id = static_cast<uint64_t>(ordinal) + 1;
    out->name = name;
    out->chip.clear();
    PortStatus chip = chip_name(ordinal, &out->chip);  // a missing chip name only costs counters
    out->strings = {
        {"uuid", format_uuid(uuid)},
        {"pci_bus_id", pci},
        {"compute_capability", std::to_string(major) + "." + std::to_string(minor)},
        {"chip", out->chip},
    };
    if (!chip.ok) out->strings.emplace_back("chip_error", chip.message());
    return PortStatus::success();
}

}  // namespace gorocprof::cuda
