// Device memory of the simulated agents: allocations in host memory with per-process serial numbers,
// a small caching layer that hands a freed address out again (as caching allocators do, which is what
// a stale restore must survive), module-scope globals, and snapshot backup storage.
#include "sim_internal.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace gorocprof::sim {
namespace {

constexpr size_t kAlignment = 256;
constexpr size_t kCacheMaxBlock = 64u << 20;   // larger blocks go straight back to the host
constexpr size_t kCacheMaxBytes = 256u << 20;  // per agent

struct Allocation {
    size_t size = 0;
    uint64_t serial = 0;
    simAllocationKind kind = SIM_ALLOCATION_DEVICE;
    int agent = 0;
    std::string name;
};

struct Backup {
    int agent = 0;
    size_t size = 0;
    simBackupPlace place = SIM_BACKUP_DEVICE;
};

struct AgentMemory {
    uint64_t used = 0;                              // live allocations + device backups
    std::map<size_t, std::vector<void*>> cache;     // freed blocks by exact size, newest last
    size_t cached_bytes = 0;
    std::map<std::string, void*> globals;
};

struct Memory {
    std::mutex mutex;
    std::map<uintptr_t, Allocation> live;  // by base address
    std::map<void*, Backup> backups;
    std::vector<AgentMemory> per_agent;
    uint64_t next_serial = 1;
    uint64_t pinned_used = 0;
    bool pinned_limit_read = false;
    uint64_t pinned_limit = UINT64_MAX;
};

Memory& memory() {
    static Memory* m = [] {
        auto* mem = new Memory;  // never destroyed: worker threads may still run at exit
        mem->per_agent.resize(agents().size());
        return mem;
    }();
    return *m;
}

void* host_alloc(size_t size) {
    void* p = nullptr;
    if (posix_memalign(&p, kAlignment, size ? size : 1) != 0) return nullptr;
    return p;
}

// Caller holds the lock. Records a new allocation (new serial even when the address is reused).
void track(Memory& m, void* p, size_t size, simAllocationKind kind, int agent, const std::string& name) {
    Allocation a;
    a.size = size;
    a.serial = m.next_serial++;
    a.kind = kind;
    a.agent = agent;
    a.name = name;
    m.live[reinterpret_cast<uintptr_t>(p)] = std::move(a);
    m.per_agent[static_cast<size_t>(agent)].used += size;
}

// Caller holds the lock.
const std::pair<const uintptr_t, Allocation>* find_containing(Memory& m, const void* ptr) {
    uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
    auto it = m.live.upper_bound(p);
    if (it == m.live.begin()) return nullptr;
    --it;
    if (p >= it->first + (it->second.size ? it->second.size : 1)) return nullptr;
    return &*it;
}

simAllocationInfo to_info(uintptr_t base, const Allocation& a) {
    simAllocationInfo info{};
    info.base = reinterpret_cast<void*>(base);
    info.size = a.size;
    info.serial = a.serial;
    info.kind = a.kind;
    info.agent = a.agent;
    info.name = a.kind == SIM_ALLOCATION_MODULE_GLOBAL ? a.name.c_str() : nullptr;
    return info;
}

uint64_t total_bytes(int agent) { return agents()[static_cast<size_t>(agent)].local_mem_size; }

}  // namespace

simError_t device_malloc(int agent, size_t size, void** out) {
    Memory& m = memory();
    std::lock_guard<std::mutex> lock(m.mutex);
    AgentMemory& am = m.per_agent[static_cast<size_t>(agent)];
    if (am.used + size > total_bytes(agent))
        return fail(simErrorOutOfMemory, "simMalloc",
                    std::to_string(size) + " bytes requested, " + std::to_string(total_bytes(agent) - am.used) +
                        " free on device " + std::to_string(agent));
    void* p = nullptr;
    auto hit = am.cache.find(size);
    if (hit != am.cache.end() && !hit->second.empty()) {
        p = hit->second.back();
        hit->second.pop_back();
        am.cached_bytes -= size;
    } else {
        p = host_alloc(size);
        if (!p) return fail(simErrorOutOfMemory, "simMalloc", "host allocation of " + std::to_string(size) + " bytes failed");
    }
    track(m, p, size, SIM_ALLOCATION_DEVICE, agent, std::string());
    *out = p;
    return simSuccess;
}

simError_t device_free(void* ptr) {
    Memory& m = memory();
    std::lock_guard<std::mutex> lock(m.mutex);
    auto it = m.live.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == m.live.end() || it->second.kind != SIM_ALLOCATION_DEVICE)
        return fail(simErrorInvalidDevicePointer, "simFree", "pointer was not returned by simMalloc or is already freed");
    AgentMemory& am = m.per_agent[static_cast<size_t>(it->second.agent)];
    size_t size = it->second.size;
    am.used -= size;
    m.live.erase(it);
    if (size <= kCacheMaxBlock && am.cached_bytes + size <= kCacheMaxBytes) {
        am.cache[size].push_back(ptr);
        am.cached_bytes += size;
    } else {
        std::free(ptr);
    }
    return simSuccess;
}

simError_t module_global(int agent, const char* name, size_t size, const void* init, void** out) {
    Memory& m = memory();
    std::lock_guard<std::mutex> lock(m.mutex);
    AgentMemory& am = m.per_agent[static_cast<size_t>(agent)];
    auto g = am.globals.find(name);
    if (g != am.globals.end()) {
        const Allocation& a = m.live[reinterpret_cast<uintptr_t>(g->second)];
        if (a.size != size)
            return fail(simErrorInvalidValue, "simModuleGlobal",
                        std::string("'") + name + "' already has " + std::to_string(a.size) + " bytes, not " +
                            std::to_string(size));
        *out = g->second;
        return simSuccess;
    }
    if (am.used + size > total_bytes(agent))
        return fail(simErrorOutOfMemory, "simModuleGlobal", std::string("no room for '") + name + "'");
    void* p = host_alloc(size);
    if (!p) return fail(simErrorOutOfMemory, "simModuleGlobal", "host allocation failed");
    if (init) std::memcpy(p, init, size);
    else std::memset(p, 0, size);
    track(m, p, size, SIM_ALLOCATION_MODULE_GLOBAL, agent, name);
    am.globals[name] = p;
    *out = p;
    return simSuccess;
}

int device_of(const void* p) {
    Memory& m = memory();
    std::lock_guard<std::mutex> lock(m.mutex);
    const auto* hit = find_containing(m, p);
    return hit ? hit->second.agent : -1;
}

simError_t mem_info(int agent, size_t* free_bytes, size_t* total) {
    Memory& m = memory();
    std::lock_guard<std::mutex> lock(m.mutex);
    uint64_t t = total_bytes(agent);
    uint64_t used = m.per_agent[static_cast<size_t>(agent)].used;
    if (free_bytes) *free_bytes = static_cast<size_t>(used < t ? t - used : 0);
    if (total) *total = static_cast<size_t>(t);
    return simSuccess;
}

}  // namespace gorocprof::sim

using namespace gorocprof::sim;

extern "C" {

static simError_t simMalloc_body(void** ptr, size_t size) {
    if (simError_t e = enter_app("simMalloc")) return e;
    if (!ptr) return fail(simErrorInvalidValue, "simMalloc", "ptr is NULL");
    if (size == 0) return fail(simErrorInvalidValue, "simMalloc", "size is 0");
    return device_malloc(current_device(), size, ptr);
}

static simError_t simFree_body(void* ptr) {
    if (simError_t e = enter_app("simFree")) return e;
    if (!ptr) return simSuccess;
    // Like a device free: waits for the device's work, and never frees under a replay's snapshot.
    return with_device_idle([ptr] { return device_free(ptr); });
}

static simError_t simMemGetInfo_body(size_t* free_bytes, size_t* total_bytes) {
    if (simError_t e = enter_app("simMemGetInfo")) return e;
    return mem_info(current_device(), free_bytes, total_bytes);
}

static simError_t simModuleGlobal_body(const char* name, size_t size, const void* init, void** devptr) {
    if (simError_t e = enter_app("simModuleGlobal")) return e;
    if (!name || !*name || !devptr || size == 0)
        return fail(simErrorInvalidValue, "simModuleGlobal", "name, devptr and a non-zero size are required");
    return module_global(current_device(), name, size, init, devptr);
}

simError_t simToolForEachAllocation(int agent, simToolAllocationFn fn, void* user) {
    if (simError_t e = enter_tool("simToolForEachAllocation")) return e;
    if (!fn) return fail(simErrorInvalidValue, "simToolForEachAllocation", "fn is NULL");
    if (!valid_agent(agent))
        return fail(simErrorInvalidDevice, "simToolForEachAllocation", "no agent " + std::to_string(agent));
    // Infos built under the lock: a module global's name points into the live table, where it stays
    // (globals are never freed), so it outlives the copy.
    std::vector<simAllocationInfo> copy;
    {
        Memory& m = memory();
        std::lock_guard<std::mutex> lock(m.mutex);
        for (const auto& [base, a] : m.live)
            if (a.agent == agent) copy.push_back(to_info(base, a));
    }
    std::sort(copy.begin(), copy.end(),
              [](const simAllocationInfo& x, const simAllocationInfo& y) { return x.serial < y.serial; });
    for (const simAllocationInfo& info : copy) fn(&info, user);
    return simSuccess;
}

simError_t simToolFindAllocation(const void* ptr, simAllocationInfo* out) {
    if (simError_t e = enter_tool("simToolFindAllocation")) return e;
    if (!out) return fail(simErrorInvalidValue, "simToolFindAllocation", "out is NULL");
    Memory& m = memory();
    std::lock_guard<std::mutex> lock(m.mutex);
    const auto* hit = find_containing(m, ptr);
    if (!hit) return fail(simErrorInvalidDevicePointer, "simToolFindAllocation", "no live allocation contains the address");
    // The name pointer stays valid: module globals are never freed.
    *out = to_info(hit->first, hit->second);
    return simSuccess;
}

simError_t simToolAllocationSerial(const void* base, uint64_t* serial) {
    if (simError_t e = enter_tool("simToolAllocationSerial")) return e;
    if (!serial) return fail(simErrorInvalidValue, "simToolAllocationSerial", "serial is NULL");
    Memory& m = memory();
    std::lock_guard<std::mutex> lock(m.mutex);
    auto it = m.live.find(reinterpret_cast<uintptr_t>(base));
    if (it == m.live.end()) {
        *serial = 0;
        return fail(simErrorInvalidDevicePointer, "simToolAllocationSerial", "no live allocation starts at the address");
    }
    *serial = it->second.serial;
    return simSuccess;
}

simError_t simToolMemInfo(int agent, size_t* free_bytes, size_t* total) {
    if (simError_t e = enter_tool("simToolMemInfo")) return e;
    if (!valid_agent(agent)) return fail(simErrorInvalidDevice, "simToolMemInfo", "no agent " + std::to_string(agent));
    return mem_info(agent, free_bytes, total);
}

simError_t simToolBackupAlloc(int agent, size_t size, simBackupPlace place, void** out) {
    const char* call = "simToolBackupAlloc";
    if (simError_t e = enter_tool(call)) return e;
    if (!out || size == 0) return fail(simErrorInvalidValue, call, "out and a non-zero size are required");
    if (!valid_agent(agent)) return fail(simErrorInvalidDevice, call, "no agent " + std::to_string(agent));
    if (place != SIM_BACKUP_DEVICE && place != SIM_BACKUP_HOST_PINNED)
        return fail(simErrorInvalidValue, call, "place must be SIM_BACKUP_DEVICE or SIM_BACKUP_HOST_PINNED");
    const bool device = place == SIM_BACKUP_DEVICE;
    if (simToolFailPoint(device ? "backup_device" : "backup_host"))
        return fail(simErrorInjectedFailure, call,
                    std::string("GOROCPROF_SIM_FAIL=") + (device ? "backup_device" : "backup_host"));
    Memory& m = memory();
    std::lock_guard<std::mutex> lock(m.mutex);
    if (device) {
        AgentMemory& am = m.per_agent[static_cast<size_t>(agent)];
        uint64_t total = total_bytes(agent);
        if (am.used + size > total)
            return fail(simErrorOutOfMemory, call,
                        std::to_string(size) + " bytes of device backup, " + std::to_string(total - am.used) +
                            " free on device " + std::to_string(agent));
    } else {
        if (!m.pinned_limit_read) {
            m.pinned_limit_read = true;
            const char* env = std::getenv("GOROCPROF_SIM_PINNED_LIMIT");
            uint64_t v = 0;
            if (env && *env) {
                if (parse_bytes(env, &v)) m.pinned_limit = v;
                else std::fprintf(stderr, "gorocprof-sim: GOROCPROF_SIM_PINNED_LIMIT: '%s' is not a byte count; no limit\n", env);
            }
        }
        if (m.pinned_used + size > m.pinned_limit)
            return fail(simErrorOutOfMemory, call,
                        std::to_string(size) + " bytes of pinned host backup, " +
                            std::to_string(m.pinned_limit - m.pinned_used) + " left under GOROCPROF_SIM_PINNED_LIMIT");
    }
    void* p = host_alloc(size);
    if (!p) return fail(simErrorOutOfMemory, call, "host allocation of " + std::to_string(size) + " bytes failed");
    if (device) m.per_agent[static_cast<size_t>(agent)].used += size;
    else m.pinned_used += size;
    m.backups[p] = Backup{agent, size, place};
    *out = p;
    return simSuccess;
}

simError_t simToolBackupFree(void* ptr) {
    if (!ptr) return simSuccess;
    Memory& m = memory();
    std::lock_guard<std::mutex> lock(m.mutex);
    auto it = m.backups.find(ptr);
    if (it == m.backups.end()) return fail(simErrorInvalidDevicePointer, "simToolBackupFree", "not a live backup");
    if (it->second.place == SIM_BACKUP_DEVICE) m.per_agent[static_cast<size_t>(it->second.agent)].used -= it->second.size;
    else m.pinned_used -= it->second.size;
    m.backups.erase(it);
    std::free(ptr);
    return simSuccess;
}

}  // extern "C"

// The reported faces of the calls above (sim_tool.h, "API and copy tracing").
extern "C" {

simError_t simMalloc(void** ptr, size_t size) {
    ApiScope api(SIM_API_ID_simMalloc);
    api.enter([&](simToolApiCall& c) { c.bytes = size; });
    return api.ret(simMalloc_body(ptr, size));
}

simError_t simFree(void* ptr) {
    ApiScope api(SIM_API_ID_simFree);
    api.enter([&](simToolApiCall& c) { c.dst = ptr; });
    return api.ret(simFree_body(ptr));
}

simError_t simMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
    ApiScope api(SIM_API_ID_simMemGetInfo);
    api.enter();
    return api.ret(simMemGetInfo_body(free_bytes, total_bytes));
}

simError_t simModuleGlobal(const char* name, size_t size, const void* init, void** devptr) {
    ApiScope api(SIM_API_ID_simModuleGlobal);
    api.enter([&](simToolApiCall& c) {
        c.kernel_name = name;
        c.bytes = size;
    });
    return api.ret(simModuleGlobal_body(name, size, init, devptr));
}

}  // extern "C"
