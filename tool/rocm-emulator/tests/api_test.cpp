// The emulator's API answers as the SDK documents them, called directly (no tool, no injection):
// agents, counter info and dimensions, instance ids, counter configs and their errors, callback
// tracing kinds, contexts and the replay domain's one-context rule.
#include "check.hpp"

#include <rocprofiler-sdk/experimental/kernel_replay.h>
#include <rocprofiler-sdk/rocprofiler.h>

#include <map>
#include <string>
#include <vector>

namespace {

std::vector<const rocprofiler_agent_v0_t*> agents() {
    std::vector<const rocprofiler_agent_v0_t*> out;
    auto collect = [](rocprofiler_agent_version_t, const void** list, size_t n, void* user) {
        auto* v = static_cast<std::vector<const rocprofiler_agent_v0_t*>*>(user);
        for (size_t i = 0; i < n; ++i) v->push_back(static_cast<const rocprofiler_agent_v0_t*>(list[i]));
        return ROCPROFILER_STATUS_SUCCESS;
    };
    CHECK_EQ(rocprofiler_query_available_agents(ROCPROFILER_AGENT_INFO_VERSION_0, collect, sizeof(rocprofiler_agent_v0_t), &out),
             ROCPROFILER_STATUS_SUCCESS);
    return out;
}

rocprofiler_counter_id_t counter(const rocprofiler_agent_v0_t* a, const std::string& name) {
    std::vector<rocprofiler_counter_id_t> ids;
    auto collect = [](rocprofiler_agent_id_t, rocprofiler_counter_id_t* c, size_t n, void* user) {
        static_cast<std::vector<rocprofiler_counter_id_t>*>(user)->assign(c, c + n);
        return ROCPROFILER_STATUS_SUCCESS;
    };
    CHECK_EQ(rocprofiler_iterate_agent_supported_counters(a->id, collect, &ids), ROCPROFILER_STATUS_SUCCESS);
    for (rocprofiler_counter_id_t id : ids) {
        rocprofiler_counter_info_v0_t info{};
        if (rocprofiler_query_counter_info(id, ROCPROFILER_COUNTER_INFO_VERSION_0, &info) == ROCPROFILER_STATUS_SUCCESS &&
            name == info.name)
            return id;
    }
    check::fail(__FILE__, __LINE__, "no counter " + name + " on " + a->name);
    return {};
}

}  // namespace

TEST_CASE(agents_cpu_and_gpus) {
    std::vector<const rocprofiler_agent_v0_t*> a = agents();
    CHECK_EQ(a.size(), size_t{3});
    if (a.size() != 3) return;
    CHECK_EQ(a[0]->type, ROCPROFILER_AGENT_TYPE_CPU);
    CHECK_EQ(std::string(a[1]->name), std::string("gfx90a"));
    CHECK_EQ(std::string(a[2]->name), std::string("gfx942"));
    CHECK_EQ(a[2]->node_id, 2u);
    CHECK_EQ(a[2]->logical_node_type_id, 1);
    CHECK(a[2]->id.handle != a[2]->node_id);  // handles are opaque
    CHECK_EQ(rocprofiler_query_available_agents(ROCPROFILER_AGENT_INFO_VERSION_0,
                                                [](rocprofiler_agent_version_t, const void**, size_t, void*) {
                                                    return ROCPROFILER_STATUS_SUCCESS;
                                                },
                                                sizeof(rocprofiler_agent_v0_t) + 8, nullptr),
             ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI);
}

TEST_CASE(counter_dimensions_and_instance_ids) {
    std::vector<const rocprofiler_agent_v0_t*> a = agents();
    if (a.size() != 3) return check::fail(__FILE__, __LINE__, "want 3 agents");
    rocprofiler_counter_info_v1_t info{};
    rocprofiler_counter_id_t tcc = counter(a[2], "TCC_HIT");
    CHECK_EQ(rocprofiler_query_counter_info(tcc, ROCPROFILER_COUNTER_INFO_VERSION_1, &info), ROCPROFILER_STATUS_SUCCESS);
    CHECK_EQ(info.dimensions_count, uint64_t{2});
    CHECK_EQ(std::string((*info.dimensions)[0].name), std::string("DIMENSION_XCC"));
    CHECK_EQ((*info.dimensions)[0].instance_size, size_t{8});
    CHECK_EQ((*info.dimensions)[1].instance_size, size_t{16});
    CHECK_EQ(info.dimensions_instances_count, uint64_t{128});
    // Instance 37 = XCC 2, channel 5; its id decodes to the counter and those positions.
    const rocprofiler_counter_record_dimension_instance_info_t* inst = info.dimensions_instances[37];
    rocprofiler_counter_id_t back{};
    CHECK_EQ(rocprofiler_query_record_counter_id(inst->instance_id, &back), ROCPROFILER_STATUS_SUCCESS);
    CHECK_EQ(back.handle, tcc.handle);
    size_t pos = 99;
    CHECK_EQ(rocprofiler_query_record_dimension_position(inst->instance_id, (*info.dimensions)[0].id, &pos),
             ROCPROFILER_STATUS_SUCCESS);
    CHECK_EQ(pos, size_t{2});
    rocprofiler_query_record_dimension_position(inst->instance_id, (*info.dimensions)[1].id, &pos);
    CHECK_EQ(pos, size_t{5});
    CHECK_EQ(inst->dimensions[1]->index, size_t{5});
    rocprofiler_counter_info_v1_t derived{};
    rocprofiler_query_counter_info(counter(a[1], "AggSysCycles"), ROCPROFILER_COUNTER_INFO_VERSION_1, &derived);
    CHECK(derived.is_derived);
    CHECK(std::string(derived.expression).find("GRBM_GUI_ACTIVE") != std::string::npos);
}

TEST_CASE(counter_configs_and_their_errors) {
    std::vector<const rocprofiler_agent_v0_t*> a = agents();
    if (a.size() != 3) return check::fail(__FILE__, __LINE__, "want 3 agents");
    const char* sq[] = {"SQ_WAVES", "SQ_INSTS_VALU", "SQ_INSTS_SALU", "SQ_INSTS_LDS", "SQ_INSTS_SMEM",
                        "SQ_INSTS_BRANCH", "SQ_INSTS_VMEM_RD", "SQ_INSTS_VMEM_WR", "SQ_CYCLES"};
    std::vector<rocprofiler_counter_id_t> ids;
    for (const char* n : sq) ids.push_back(counter(a[1], n));
    rocprofiler_counter_config_id_t cfg{};
    CHECK_EQ(rocprofiler_create_counter_config(a[1]->id, ids.data(), 8, &cfg), ROCPROFILER_STATUS_SUCCESS);
    // In/out: a non-zero handle adds that config's counters, so one more SQ counter is one too many.
    rocprofiler_counter_config_id_t more = cfg;
    CHECK_EQ(rocprofiler_create_counter_config(a[1]->id, &ids[8], 1, &more), ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT);
    cfg = {};
    CHECK_EQ(rocprofiler_create_counter_config(a[1]->id, ids.data(), 9, &cfg), ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT);
    std::vector<rocprofiler_counter_id_t> dup{ids[0], ids[0], ids[0], ids[0], ids[0], ids[0], ids[0], ids[0], ids[0]};
    cfg = {};
    CHECK_EQ(rocprofiler_create_counter_config(a[1]->id, dup.data(), dup.size(), &cfg), ROCPROFILER_STATUS_SUCCESS);
    CHECK_EQ(rocprofiler_destroy_counter_config(cfg), ROCPROFILER_STATUS_SUCCESS);
    CHECK_EQ(rocprofiler_destroy_counter_config(cfg), ROCPROFILER_STATUS_ERROR_CONFIG_NOT_FOUND);
    cfg = {};
    CHECK_EQ(rocprofiler_create_counter_config(a[2]->id, ids.data(), 1, &cfg), ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT);
    rocprofiler_counter_id_t agg = counter(a[1], "AggSysCycles");
    cfg = {};
    CHECK_EQ(rocprofiler_create_counter_config(a[1]->id, &agg, 1, &cfg), ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED);
    rocprofiler_counter_id_t none{0xffff};
    CHECK_EQ(rocprofiler_create_counter_config(a[1]->id, &none, 1, &cfg), ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND);
}

TEST_CASE(tracing_kinds_and_one_replay_context) {
    struct Found {
        rocprofiler_callback_tracing_kind_t replay = ROCPROFILER_CALLBACK_TRACING_NONE;
    } found;
    rocprofiler_iterate_callback_tracing_kinds(
        [](rocprofiler_callback_tracing_kind_t k, void* data) {
            const char* name = nullptr;
            if (rocprofiler_query_callback_tracing_kind_name(k, &name, nullptr) == ROCPROFILER_STATUS_SUCCESS &&
                std::string(name) == "KERNEL_REPLAY")
                static_cast<Found*>(data)->replay = k;
            return 0;
        },
        &found);
    CHECK_EQ(found.replay, ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY);
    auto cb = [](rocprofiler_callback_tracing_record_t, rocprofiler_user_data_t*, void*) {};
    rocprofiler_context_id_t one{}, two{};
    CHECK_EQ(rocprofiler_create_context(&one), ROCPROFILER_STATUS_SUCCESS);
    CHECK_EQ(rocprofiler_create_context(&two), ROCPROFILER_STATUS_SUCCESS);
    CHECK_EQ(rocprofiler_configure_callback_tracing_service(one, found.replay, nullptr, 0, cb, nullptr), ROCPROFILER_STATUS_SUCCESS);
    CHECK_EQ(rocprofiler_configure_callback_tracing_service(one, found.replay, nullptr, 0, cb, nullptr),
             ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED);
    CHECK_EQ(rocprofiler_configure_callback_tracing_service(two, found.replay, nullptr, 0, cb, nullptr),
             ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED);
    rocprofiler_tracing_operation_t symbols = ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER;
    CHECK_EQ(rocprofiler_configure_callback_tracing_service(two, ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT, &symbols, 1, cb, nullptr),
             ROCPROFILER_STATUS_SUCCESS);
    CHECK_EQ(rocprofiler_configure_callback_tracing_service(two, ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API, nullptr, 0, cb,
                                                            nullptr),
             ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED);
    int valid = 0;
    rocprofiler_context_is_valid(one, &valid);
    CHECK_EQ(valid, 1);
    rocprofiler_context_is_valid(rocprofiler_context_id_t{60}, &valid);
    CHECK_EQ(valid, 0);
    CHECK_EQ(std::string(rocprofiler_get_status_name(ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT)),
             std::string("ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT"));
}

namespace {

// The emulated operations of a buffer tracing kind, by number, as the SDK's queries name them.
std::map<int, std::string> buffer_operations(rocprofiler_buffer_tracing_kind_t kind) {
    std::map<int, std::string> ops;
    CHECK_EQ(rocprofiler_iterate_buffer_tracing_kind_operations(
                 kind,
                 [](rocprofiler_buffer_tracing_kind_t k, rocprofiler_tracing_operation_t op, void* data) {
                     const char* name = nullptr;
                     CHECK_EQ(rocprofiler_query_buffer_tracing_kind_operation_name(k, op, &name, nullptr),
                              ROCPROFILER_STATUS_SUCCESS);
                     (*static_cast<std::map<int, std::string>*>(data))[op] = name != nullptr ? name : "";
                     return 0;
                 },
                 &ops),
             ROCPROFILER_STATUS_SUCCESS);
    return ops;
}

}  // namespace

// The sim calls are reported under the HIP and HSA names they stand for, with the SDK's numbers for
// those names (the public tree's, tool/rocm-emulator/README.md), so a tool that names operations by
// the SDK's queries sees what it would see on a HIP application.
TEST_CASE(tracing_operations_by_name) {
    std::map<int, std::string> hip = buffer_operations(ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API);
    CHECK_EQ(hip[259], std::string("hipMemcpy"));
    CHECK_EQ(hip[268], std::string("hipMemcpyAsync"));
    CHECK_EQ(hip[214], std::string("hipLaunchKernel"));
    CHECK_EQ(hip[215], std::string("hipMalloc"));
    CHECK_EQ(hip[90], std::string("hipFree"));
    CHECK_EQ(hip[346], std::string("hipStreamSynchronize"));
    CHECK_EQ(hip.size(), size_t{16});
    std::map<int, std::string> compiler = buffer_operations(ROCPROFILER_BUFFER_TRACING_HIP_COMPILER_API);
    CHECK_EQ(compiler[3], std::string("__hipRegisterFunction"));
    CHECK_EQ(compiler[7], std::string("__hipRegisterVar"));
    std::map<int, std::string> core = buffer_operations(ROCPROFILER_BUFFER_TRACING_HSA_CORE_API);
    CHECK_EQ(core[42], std::string("hsa_signal_store_screlease"));
    CHECK_EQ(core[44], std::string("hsa_signal_wait_scacquire"));
    std::map<int, std::string> amd = buffer_operations(ROCPROFILER_BUFFER_TRACING_HSA_AMD_EXT_API);
    CHECK_EQ(amd[15], std::string("hsa_amd_memory_async_copy"));
    CHECK(buffer_operations(ROCPROFILER_BUFFER_TRACING_HSA_IMAGE_EXT_API).empty());  // no sim call stands for one
    std::map<int, std::string> copies = buffer_operations(ROCPROFILER_BUFFER_TRACING_MEMORY_COPY);
    CHECK_EQ(copies.size(), size_t{4});
    CHECK_EQ(copies[ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE], std::string("MEMORY_COPY_HOST_TO_DEVICE"));
    CHECK_EQ(copies[ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE], std::string("MEMORY_COPY_DEVICE_TO_DEVICE"));
    const char* name = nullptr;
    CHECK_EQ(rocprofiler_query_buffer_tracing_kind_name(ROCPROFILER_BUFFER_TRACING_MEMORY_COPY, &name, nullptr),
             ROCPROFILER_STATUS_SUCCESS);
    CHECK_EQ(std::string(name), std::string("MEMORY_COPY"));
    CHECK_EQ(rocprofiler_query_buffer_tracing_kind_operation_name(ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API, 1, &name, nullptr),
             ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND);
    CHECK_EQ(rocprofiler_query_callback_tracing_kind_operation_name(ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API,
                                                                    ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxThreadRangeA, &name,
                                                                    nullptr),
             ROCPROFILER_STATUS_SUCCESS);
    CHECK_EQ(std::string(name), std::string("roctxThreadRangeA"));
}

// Buffers and buffer tracing services: what the SDK accepts and refuses.
TEST_CASE(buffers_and_their_services) {
    auto cb = [](rocprofiler_context_id_t, rocprofiler_buffer_id_t, rocprofiler_record_header_t**, size_t, void*, uint64_t) {};
    rocprofiler_context_id_t ctx{};
    CHECK_EQ(rocprofiler_create_context(&ctx), ROCPROFILER_STATUS_SUCCESS);
    rocprofiler_buffer_id_t buf{};
    CHECK_EQ(rocprofiler_create_buffer(ctx, 1024, 2048, ROCPROFILER_BUFFER_POLICY_LOSSLESS, cb, nullptr, &buf),
             ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT);  // a watermark above the size
    CHECK_EQ(rocprofiler_create_buffer(rocprofiler_context_id_t{63}, 4096, 2048, ROCPROFILER_BUFFER_POLICY_LOSSLESS, cb, nullptr,
                                       &buf),
             ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND);
    CHECK_EQ(rocprofiler_create_buffer(ctx, 4096, 2048, ROCPROFILER_BUFFER_POLICY_LOSSLESS, cb, nullptr, &buf),
             ROCPROFILER_STATUS_SUCCESS);
    CHECK(buf.handle != 0);
    CHECK_EQ(rocprofiler_configure_buffer_tracing_service(ctx, ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API, nullptr, 0, buf),
             ROCPROFILER_STATUS_SUCCESS);
    CHECK_EQ(rocprofiler_configure_buffer_tracing_service(ctx, ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API, nullptr, 0, buf),
             ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED);
    rocprofiler_tracing_operation_t unknown = 1;
    CHECK_EQ(rocprofiler_configure_buffer_tracing_service(ctx, ROCPROFILER_BUFFER_TRACING_HSA_CORE_API, &unknown, 1, buf),
             ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND);
    CHECK_EQ(rocprofiler_configure_buffer_tracing_service(ctx, ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, nullptr, 0, buf),
             ROCPROFILER_STATUS_SUCCESS);
    CHECK_EQ(rocprofiler_configure_buffer_tracing_service(ctx, ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY, nullptr, 0, buf),
             ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED);
    CHECK_EQ(rocprofiler_configure_buffer_tracing_service(ctx, ROCPROFILER_BUFFER_TRACING_MEMORY_COPY, nullptr, 0,
                                                          rocprofiler_buffer_id_t{60}),
             ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND);
    CHECK_EQ(rocprofiler_flush_buffer(buf), ROCPROFILER_STATUS_SUCCESS);  // nothing collected: the callback is not called
    CHECK_EQ(rocprofiler_flush_buffer(rocprofiler_buffer_id_t{60}), ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND);
    auto marker = [](rocprofiler_callback_tracing_record_t, rocprofiler_user_data_t*, void*) {};
    CHECK_EQ(rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API, nullptr, 0,
                                                            marker, nullptr),
             ROCPROFILER_STATUS_SUCCESS);
    CHECK_EQ(rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API, nullptr, 0,
                                                            marker, nullptr),
             ROCPROFILER_STATUS_SUCCESS);
    CHECK_EQ(rocprofiler_configure_callback_tracing_service(ctx, ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API, nullptr, 0,
                                                            marker, nullptr),
             ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED);
}
