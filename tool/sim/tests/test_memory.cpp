// Device memory: allocations and their serials (never reused, even when the address is), module
// globals, enumeration, backup storage limits and failure injection. Run with
// GOROCPROF_SIM_DEVICE_MEMORY=1M and GOROCPROF_SIM_PINNED_LIMIT=64K (see CMakeLists.txt).
#include "sim_check.hpp"

#include <gorocprof/sim_tool.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

struct Seen {
    std::vector<simAllocationInfo> list;
};

void collect(const simAllocationInfo* a, void* user) { static_cast<Seen*>(user)->list.push_back(*a); }

}  // namespace

int main() {
    size_t free_b = 0, total_b = 0;
    CHECK_OK(simMemGetInfo(&free_b, &total_b));
    CHECK(total_b == (1u << 20));
    CHECK(free_b == total_b);

    // Serials: a freed block is handed out again for the same size, with a new serial.
    void* a = nullptr;
    CHECK_OK(simMalloc(&a, 4096));
    uint64_t serial_a = 0;
    CHECK_OK(simToolAllocationSerial(a, &serial_a));
    CHECK(serial_a != 0);
    CHECK_OK(simFree(a));
    uint64_t gone = 123;
    CHECK(simToolAllocationSerial(a, &gone) == simErrorInvalidDevicePointer);
    CHECK(gone == 0);
    void* b = nullptr;
    CHECK_OK(simMalloc(&b, 4096));
    CHECK(b == a);  // the caching allocator reused the address
    uint64_t serial_b = 0;
    CHECK_OK(simToolAllocationSerial(b, &serial_b));
    CHECK(serial_b > serial_a);
    CHECK(simFree(b) == simSuccess);
    CHECK(simFree(b) == simErrorInvalidDevicePointer);  // double free is refused

    // Out of device memory, with a reason.
    void* big = nullptr;
    CHECK(simMalloc(&big, 2u << 20) == simErrorOutOfMemory);
    CHECK(std::string(simGetLastErrorMessage()).find("simMalloc: ") == 0);

    // Module globals: one per name and device, initialised, stable address.
    const int init = 7;
    void* g1 = nullptr;
    void* g2 = nullptr;
    CHECK_OK(simModuleGlobal("counter", sizeof(int), &init, &g1));
    CHECK(*static_cast<int*>(g1) == 7);
    *static_cast<int*>(g1) = 8;
    CHECK_OK(simModuleGlobal("counter", sizeof(int), &init, &g2));
    CHECK(g1 == g2);
    CHECK(*static_cast<int*>(g2) == 8);  // not re-initialised
    CHECK(simModuleGlobal("counter", 8, nullptr, &g2) == simErrorInvalidValue);
    void* g_dev1 = nullptr;
    CHECK_OK(simSetDevice(1));
    CHECK_OK(simModuleGlobal("counter", sizeof(int), &init, &g_dev1));
    CHECK(g_dev1 != g1);
    CHECK(*static_cast<int*>(g_dev1) == 7);
    CHECK_OK(simSetDevice(0));

    // Enumeration per agent, ascending serials; find by interior pointer.
    void *x = nullptr, *y = nullptr;
    CHECK_OK(simMalloc(&x, 1000));
    CHECK_OK(simMalloc(&y, 3000));
    Seen seen;
    CHECK_OK(simToolForEachAllocation(0, collect, &seen));
    CHECK(seen.list.size() == 3);  // counter, x, y
    if (seen.list.size() == 3) {
        CHECK(seen.list[0].base == g1 && seen.list[0].kind == SIM_ALLOCATION_MODULE_GLOBAL);
        CHECK(std::strcmp(seen.list[0].name, "counter") == 0);
        CHECK(seen.list[1].base == x && seen.list[1].size == 1000 && seen.list[1].kind == SIM_ALLOCATION_DEVICE);
        CHECK(seen.list[2].base == y && seen.list[1].serial < seen.list[2].serial);
        CHECK(seen.list[1].name == nullptr);
    }
    Seen dev1;
    CHECK_OK(simToolForEachAllocation(1, collect, &dev1));
    CHECK(dev1.list.size() == 1);
    simAllocationInfo found{};
    CHECK_OK(simToolFindAllocation(static_cast<char*>(y) + 2999, &found));
    CHECK(found.base == y);
    found.base = nullptr;
    if (simToolFindAllocation(static_cast<char*>(y) + 3000, &found) == simSuccess) CHECK(found.base != y);
    CHECK(simToolForEachAllocation(9, collect, &seen) == simErrorInvalidDevice);

    // Backups: device backups count against device memory; pinned ones against the pinned limit.
    CHECK_OK(simToolMemInfo(0, &free_b, &total_b));
    const size_t before = free_b;
    void* bk = nullptr;
    CHECK_OK(simToolBackupAlloc(0, 4096, SIM_BACKUP_DEVICE, &bk));
    CHECK_OK(simToolMemInfo(0, &free_b, &total_b));
    CHECK(free_b == before - 4096);
    CHECK_OK(simToolBackupFree(bk));
    CHECK_OK(simToolMemInfo(0, &free_b, &total_b));
    CHECK(free_b == before);
    CHECK(simToolBackupAlloc(0, 2u << 20, SIM_BACKUP_DEVICE, &bk) == simErrorOutOfMemory);
    void* pinned = nullptr;
    CHECK_OK(simToolBackupAlloc(0, 60u << 10, SIM_BACKUP_HOST_PINNED, &pinned));
    CHECK(simToolBackupAlloc(0, 8u << 10, SIM_BACKUP_HOST_PINNED, &bk) == simErrorOutOfMemory);
    CHECK_OK(simToolBackupFree(pinned));
    CHECK(simToolBackupFree(pinned) == simErrorInvalidDevicePointer);

    // Fail points.
    CHECK_OK(simToolSetFailSpec("restore@2,backup_device"));
    CHECK(simToolFailPoint("restore") == 0);
    CHECK(simToolFailPoint("restore") == 1);
    CHECK(simToolFailPoint("restore") == 0);
    CHECK(simToolFailPoint("snapshot") == 0);
    CHECK(simToolBackupAlloc(0, 16, SIM_BACKUP_DEVICE, &bk) == simErrorInjectedFailure);
    CHECK_OK(simToolSetFailSpec("snapshot@2+"));
    CHECK(simToolFailPoint("snapshot") == 0);
    CHECK(simToolFailPoint("snapshot") == 1);
    CHECK(simToolFailPoint("snapshot") == 1);
    CHECK(simToolSetFailSpec("snapshot@0") == simErrorInvalidValue);
    CHECK_OK(simToolSetFailSpec(nullptr));
    CHECK(simToolFailPoint("snapshot") == 0);

    CHECK_OK(simFree(x));
    CHECK_OK(simFree(y));
    return test_result("test_memory");
}
