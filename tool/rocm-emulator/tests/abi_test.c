/*
 * The emulator's declarations against the real rocprofiler-sdk 1.4 ABI (LP64; the sizes, offsets and
 * values of shared/reference/rocprofiler-sdk-real-headers.md): every struct tool/rocm touches and
 * every enumerator it uses. Compiled as C11; a wrong layout fails the build of this test, and running
 * it prints what it checked. scripts/rocm-headers-check.sh compiles this same file against a copy of
 * the real headers, where the values that came with 1.4 are checked only if its version.h says 1.4.
 */
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>
#if __has_include(<rocprofiler-sdk/experimental/kernel_replay.h>)
#include <rocprofiler-sdk/experimental/kernel_replay.h>
#define ABI_KERNEL_REPLAY 1
#endif

#include <stddef.h>
#include <stdio.h>

#define OFF(type, member, expected) _Static_assert(offsetof(type, member) == (expected), #type "." #member)
#define SIZE(type, expected) _Static_assert(sizeof(type) == (expected), "sizeof " #type)
#define VAL(name, expected) _Static_assert((name) == (expected), #name)

/* handles and small unions */
SIZE(rocprofiler_context_id_t, 8);
SIZE(rocprofiler_agent_id_t, 8);
SIZE(rocprofiler_queue_id_t, 8);
SIZE(rocprofiler_counter_id_t, 8);
SIZE(rocprofiler_counter_config_id_t, 8);
SIZE(rocprofiler_user_data_t, 8);
SIZE(rocprofiler_address_t, 8);
SIZE(rocprofiler_dim3_t, 12);
SIZE(rocprofiler_version_triplet_t, 12);

OFF(rocprofiler_correlation_id_t, internal, 0);
OFF(rocprofiler_correlation_id_t, external, 8);
OFF(rocprofiler_correlation_id_t, ancestor, 16);
SIZE(rocprofiler_correlation_id_t, 24);
OFF(rocprofiler_async_correlation_id_t, external, 8);
SIZE(rocprofiler_async_correlation_id_t, 16);

OFF(rocprofiler_client_id_t, name, 8);
OFF(rocprofiler_client_id_t, handle, 16);
SIZE(rocprofiler_client_id_t, 24);
OFF(rocprofiler_tool_configure_result_t, initialize, 8);
OFF(rocprofiler_tool_configure_result_t, finalize, 16);
OFF(rocprofiler_tool_configure_result_t, tool_data, 24);
SIZE(rocprofiler_tool_configure_result_t, 32);

OFF(rocprofiler_kernel_dispatch_info_t, agent_id, 8);
OFF(rocprofiler_kernel_dispatch_info_t, queue_id, 16);
OFF(rocprofiler_kernel_dispatch_info_t, kernel_id, 24);
OFF(rocprofiler_kernel_dispatch_info_t, dispatch_id, 32);
OFF(rocprofiler_kernel_dispatch_info_t, private_segment_size, 40);
OFF(rocprofiler_kernel_dispatch_info_t, group_segment_size, 44);
OFF(rocprofiler_kernel_dispatch_info_t, workgroup_size, 48);
OFF(rocprofiler_kernel_dispatch_info_t, grid_size, 60);
OFF(rocprofiler_kernel_dispatch_info_t, reserved_padding, 72);
SIZE(rocprofiler_kernel_dispatch_info_t, 128);

OFF(rocprofiler_callback_tracing_record_t, thread_id, 8);
OFF(rocprofiler_callback_tracing_record_t, correlation_id, 16);
OFF(rocprofiler_callback_tracing_record_t, kind, 40);
OFF(rocprofiler_callback_tracing_record_t, operation, 44);
OFF(rocprofiler_callback_tracing_record_t, phase, 48);
OFF(rocprofiler_callback_tracing_record_t, payload, 56);
SIZE(rocprofiler_callback_tracing_record_t, 64);

OFF(rocprofiler_record_header_t, payload, 8);
SIZE(rocprofiler_record_header_t, 16);

OFF(rocprofiler_counter_record_t, counter_value, 8);
OFF(rocprofiler_counter_record_t, dispatch_id, 16);
OFF(rocprofiler_counter_record_t, user_data, 24);
OFF(rocprofiler_counter_record_t, agent_id, 32);
SIZE(rocprofiler_counter_record_t, 40);

OFF(rocprofiler_dispatch_counting_service_data_t, correlation_id, 8);
OFF(rocprofiler_dispatch_counting_service_data_t, start_timestamp, 24);
OFF(rocprofiler_dispatch_counting_service_data_t, end_timestamp, 32);
OFF(rocprofiler_dispatch_counting_service_data_t, dispatch_info, 40);
SIZE(rocprofiler_dispatch_counting_service_data_t, 168);
OFF(rocprofiler_dispatch_counting_service_record_t, num_records, 8);
OFF(rocprofiler_dispatch_counting_service_record_t, correlation_id, 16);
OFF(rocprofiler_dispatch_counting_service_record_t, start_timestamp, 32);
OFF(rocprofiler_dispatch_counting_service_record_t, end_timestamp, 40);
OFF(rocprofiler_dispatch_counting_service_record_t, dispatch_info, 48);
SIZE(rocprofiler_dispatch_counting_service_record_t, 176);

/* counter info: the bit-field byte sits right after `expression` */
OFF(rocprofiler_counter_info_v0_t, name, 8);
OFF(rocprofiler_counter_info_v0_t, description, 16);
OFF(rocprofiler_counter_info_v0_t, block, 24);
OFF(rocprofiler_counter_info_v0_t, expression, 32);
SIZE(rocprofiler_counter_info_v0_t, 48);
OFF(rocprofiler_counter_info_v1_t, id, 8);
OFF(rocprofiler_counter_info_v1_t, name, 16);
OFF(rocprofiler_counter_info_v1_t, description, 24);
OFF(rocprofiler_counter_info_v1_t, block, 32);
OFF(rocprofiler_counter_info_v1_t, expression, 40);
OFF(rocprofiler_counter_info_v1_t, dimensions_count, 56);
OFF(rocprofiler_counter_info_v1_t, dimensions, 64);
OFF(rocprofiler_counter_info_v1_t, dimensions_instances_count, 72);
OFF(rocprofiler_counter_info_v1_t, dimensions_instances, 80);
SIZE(rocprofiler_counter_info_v1_t, 88);
OFF(rocprofiler_counter_record_dimension_info_t, instance_size, 8);
OFF(rocprofiler_counter_record_dimension_info_t, id, 16);
SIZE(rocprofiler_counter_record_dimension_info_t, 24);
OFF(rocprofiler_counter_dimension_info_t, dimension_name, 8);
OFF(rocprofiler_counter_dimension_info_t, index, 16);
SIZE(rocprofiler_counter_dimension_info_t, 24);
OFF(rocprofiler_counter_record_dimension_instance_info_t, instance_id, 8);
OFF(rocprofiler_counter_record_dimension_instance_info_t, counter_id, 16);
OFF(rocprofiler_counter_record_dimension_instance_info_t, dimensions_count, 24);
OFF(rocprofiler_counter_record_dimension_instance_info_t, dimensions, 32);
SIZE(rocprofiler_counter_record_dimension_instance_info_t, 40);

/* code object kernel symbol (order documented; offsets from that order under LP64) */
OFF(rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t, kernel_id, 8);
OFF(rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t, code_object_id, 16);
OFF(rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t, kernel_name, 24);
OFF(rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t, kernel_object, 32);
OFF(rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t, kernarg_segment_size, 40);
OFF(rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t, group_segment_size, 48);
OFF(rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t, private_segment_size, 52);
OFF(rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t, sgpr_count, 56);
OFF(rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t, arch_vgpr_count, 60);
OFF(rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t, accum_vgpr_count, 64);
OFF(rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t, kernel_code_entry_byte_offset, 72);
OFF(rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t, kernel_address, 80);
SIZE(rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t, 88);

/* the agent: 312 bytes, uuid last (no firmware_info in 1.4) */
OFF(rocprofiler_agent_v0_t, id, 8);
OFF(rocprofiler_agent_v0_t, type, 16);
OFF(rocprofiler_agent_v0_t, cpu_cores_count, 20);
OFF(rocprofiler_agent_v0_t, simd_count, 24);
OFF(rocprofiler_agent_v0_t, max_waves_per_simd, 48);
OFF(rocprofiler_agent_v0_t, lds_size_in_kb, 52);
OFF(rocprofiler_agent_v0_t, wave_front_size, 64);
OFF(rocprofiler_agent_v0_t, num_xcc, 68);
OFF(rocprofiler_agent_v0_t, cu_count, 72);
OFF(rocprofiler_agent_v0_t, array_count, 76);
OFF(rocprofiler_agent_v0_t, num_shader_banks, 80);
OFF(rocprofiler_agent_v0_t, simd_arrays_per_engine, 84);
OFF(rocprofiler_agent_v0_t, cu_per_simd_array, 88);
OFF(rocprofiler_agent_v0_t, simd_per_cu, 92);
OFF(rocprofiler_agent_v0_t, max_slots_scratch_cu, 96);
OFF(rocprofiler_agent_v0_t, gfx_target_version, 100);
OFF(rocprofiler_agent_v0_t, vendor_id, 104);
OFF(rocprofiler_agent_v0_t, device_id, 106);
OFF(rocprofiler_agent_v0_t, location_id, 108);
OFF(rocprofiler_agent_v0_t, domain, 112);
OFF(rocprofiler_agent_v0_t, drm_render_minor, 116);
OFF(rocprofiler_agent_v0_t, num_sdma_engines, 120);
OFF(rocprofiler_agent_v0_t, num_cp_queues, 132);
OFF(rocprofiler_agent_v0_t, max_engine_clk_ccompute, 136);
OFF(rocprofiler_agent_v0_t, max_engine_clk_fcompute, 140);
OFF(rocprofiler_agent_v0_t, sdma_fw_version, 144);
OFF(rocprofiler_agent_v0_t, fw_version, 148);
OFF(rocprofiler_agent_v0_t, capability, 152);
OFF(rocprofiler_agent_v0_t, cu_per_engine, 156);
OFF(rocprofiler_agent_v0_t, max_waves_per_cu, 160);
OFF(rocprofiler_agent_v0_t, family_id, 164);
OFF(rocprofiler_agent_v0_t, workgroup_max_size, 168);
OFF(rocprofiler_agent_v0_t, grid_max_size, 172);
OFF(rocprofiler_agent_v0_t, local_mem_size, 176);
OFF(rocprofiler_agent_v0_t, hive_id, 184);
OFF(rocprofiler_agent_v0_t, gpu_id, 192);
OFF(rocprofiler_agent_v0_t, workgroup_max_dim, 200);
OFF(rocprofiler_agent_v0_t, grid_max_dim, 212);
OFF(rocprofiler_agent_v0_t, mem_banks, 224);
OFF(rocprofiler_agent_v0_t, caches, 232);
OFF(rocprofiler_agent_v0_t, io_links, 240);
OFF(rocprofiler_agent_v0_t, name, 248);
OFF(rocprofiler_agent_v0_t, vendor_name, 256);
OFF(rocprofiler_agent_v0_t, product_name, 264);
OFF(rocprofiler_agent_v0_t, model_name, 272);
OFF(rocprofiler_agent_v0_t, node_id, 280);
OFF(rocprofiler_agent_v0_t, logical_node_id, 284);
OFF(rocprofiler_agent_v0_t, logical_node_type_id, 288);
OFF(rocprofiler_agent_v0_t, runtime_visibility, 292);
OFF(rocprofiler_agent_v0_t, uuid, 296);
SIZE(rocprofiler_agent_runtime_visiblity_t, 4);
SIZE(rocprofiler_uuid_t, 16);
SIZE(rocprofiler_agent_v0_t, 312);

/* the typedefs of the dispatch ids */
SIZE(rocprofiler_kernel_id_t, 8);
SIZE(rocprofiler_dispatch_id_t, 8);

#ifdef ABI_KERNEL_REPLAY
/* the kernel replay payload: current_pass and total_passes before the callbacks */
OFF(rocprofiler_callback_tracing_kernel_replay_data_t, dispatch_info, 8);
OFF(rocprofiler_callback_tracing_kernel_replay_data_t, current_pass, 136);
OFF(rocprofiler_callback_tracing_kernel_replay_data_t, total_passes, 144);
OFF(rocprofiler_callback_tracing_kernel_replay_data_t, replay_pass_count, 152);
OFF(rocprofiler_callback_tracing_kernel_replay_data_t, replay_continue, 160);
OFF(rocprofiler_callback_tracing_kernel_replay_data_t, replay_start_context, 168);
OFF(rocprofiler_callback_tracing_kernel_replay_data_t, replay_stop_context, 176);
SIZE(rocprofiler_callback_tracing_kernel_replay_data_t, 184);
#endif

/* enumerators */
VAL(ROCPROFILER_STATUS_SUCCESS, 0);
VAL(ROCPROFILER_STATUS_ERROR, 1);
VAL(ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND, 4);
VAL(ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND, 7);
VAL(ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND, 8);
VAL(ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR, 9);
VAL(ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID, 10);
VAL(ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_STARTED, 11);
VAL(ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED, 15);
VAL(ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED, 16);
VAL(ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED, 17);
VAL(ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI, 18);
VAL(ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT, 19);
VAL(ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT, 20);
VAL(ROCPROFILER_STATUS_ERROR_DIM_NOT_FOUND, 23);
VAL(ROCPROFILER_STATUS_ERROR_PROFILE_NOT_FOUND, 30);
VAL(ROCPROFILER_STATUS_ERROR_NO_HARDWARE_COUNTERS, 35);
VAL(ROCPROFILER_STATUS_ERROR_NOT_AVAILABLE, 37);
VAL(ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT, 38);
VAL(ROCPROFILER_STATUS_ERROR_AGENT_ARCH_NOT_SUPPORTED, 39);
VAL(ROCPROFILER_STATUS_ERROR_PERMISSION_DENIED, 40);
#if ROCPROFILER_VERSION >= 10400
VAL(ROCPROFILER_STATUS_ERROR_CONFIG_NOT_FOUND, 30);
VAL(ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_REGISTER_VERSION, 41);
VAL(ROCPROFILER_STATUS_LAST, 42);
#endif
VAL(ROCPROFILER_AGENT_TYPE_CPU, 1);
VAL(ROCPROFILER_AGENT_TYPE_GPU, 2);
VAL(ROCPROFILER_AGENT_INFO_VERSION_0, 1);
VAL(ROCPROFILER_CALLBACK_PHASE_ENTER, 1);
VAL(ROCPROFILER_CALLBACK_PHASE_LOAD, 1);
VAL(ROCPROFILER_CALLBACK_PHASE_EXIT, 2);
VAL(ROCPROFILER_CALLBACK_PHASE_UNLOAD, 2);
VAL(ROCPROFILER_COUNTER_INFO_VERSION_0, 1);
VAL(ROCPROFILER_COUNTER_INFO_VERSION_1, 2);
VAL(ROCPROFILER_COUNTER_RECORD_VALUE, 2);
VAL(ROCPROFILER_BUFFER_CATEGORY_COUNTERS, 3);
VAL(ROCPROFILER_COUNTER_FLAG_APPEND_DEFINITION, 2);
VAL(ROCPROFILER_BUFFER_POLICY_LOSSLESS, 2);
VAL(ROCPROFILER_CODE_OBJECT_LOAD, 1);
VAL(ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER, 2);
VAL(ROCPROFILER_CODE_OBJECT_HOST_KERNEL_SYMBOL_REGISTER, 3);
VAL(ROCPROFILER_KERNEL_DISPATCH_COMPLETE, 2);
VAL(ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API, 5);
VAL(ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT, 10);
VAL(ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH, 12);
VAL(ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION, 17);
VAL(ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API, 21);
#if ROCPROFILER_VERSION >= 10400
/* 1.4's numbers; other builds differ, so tool/rocm still finds KERNEL_REPLAY by name */
VAL(ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH, 22);
VAL(ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY, 23);
VAL(ROCPROFILER_CALLBACK_TRACING_LAST, 24);
#endif
#ifdef ABI_KERNEL_REPLAY
VAL(ROCPROFILER_KERNEL_REPLAY_NONE, 0);
VAL(ROCPROFILER_KERNEL_REPLAY_CONFIG, 1);
VAL(ROCPROFILER_KERNEL_REPLAY_PASS, 2);
VAL(ROCPROFILER_KERNEL_REPLAY_LAST, 3);
#endif

/* buffer tracing (the public tree's numbering and layouts) */
VAL(ROCPROFILER_BUFFER_TRACING_HSA_CORE_API, 1);
VAL(ROCPROFILER_BUFFER_TRACING_HSA_AMD_EXT_API, 2);
VAL(ROCPROFILER_BUFFER_TRACING_HSA_IMAGE_EXT_API, 3);
VAL(ROCPROFILER_BUFFER_TRACING_HSA_FINALIZE_EXT_API, 4);
VAL(ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API, 5);
VAL(ROCPROFILER_BUFFER_TRACING_HIP_COMPILER_API, 6);
VAL(ROCPROFILER_BUFFER_TRACING_MEMORY_COPY, 10);
VAL(ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, 11);
VAL(ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API_EXT, 21);
VAL(ROCPROFILER_BUFFER_TRACING_MARKER_CORE_RANGE_API, 32);
VAL(ROCPROFILER_BUFFER_TRACING_LAST, 33);
VAL(ROCPROFILER_MEMORY_COPY_NONE, 0);
VAL(ROCPROFILER_MEMORY_COPY_HOST_TO_HOST, 1);
VAL(ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE, 2);
VAL(ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST, 3);
VAL(ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE, 4);
VAL(ROCPROFILER_MEMORY_COPY_LAST, 5);
VAL(ROCPROFILER_BUFFER_CATEGORY_TRACING, 1);
VAL(ROCPROFILER_BUFFER_POLICY_LOSSLESS, 2);
SIZE(rocprofiler_buffer_id_t, 8);
SIZE(rocprofiler_record_header_t, 16);
OFF(rocprofiler_record_header_t, payload, 8);
OFF(rocprofiler_buffer_tracing_hip_api_record_t, kind, 8);
OFF(rocprofiler_buffer_tracing_hip_api_record_t, operation, 12);
OFF(rocprofiler_buffer_tracing_hip_api_record_t, correlation_id, 16);
OFF(rocprofiler_buffer_tracing_hip_api_record_t, start_timestamp, 40);
OFF(rocprofiler_buffer_tracing_hip_api_record_t, end_timestamp, 48);
OFF(rocprofiler_buffer_tracing_hip_api_record_t, thread_id, 56);
SIZE(rocprofiler_buffer_tracing_hip_api_record_t, 64);
OFF(rocprofiler_buffer_tracing_hsa_api_record_t, correlation_id, 16);
OFF(rocprofiler_buffer_tracing_hsa_api_record_t, thread_id, 56);
SIZE(rocprofiler_buffer_tracing_hsa_api_record_t, 64);
SIZE(rocprofiler_buffer_tracing_marker_api_record_t, 64);
OFF(rocprofiler_buffer_tracing_memory_copy_record_t, kind, 8);
OFF(rocprofiler_buffer_tracing_memory_copy_record_t, operation, 12);
OFF(rocprofiler_buffer_tracing_memory_copy_record_t, correlation_id, 16);
OFF(rocprofiler_buffer_tracing_memory_copy_record_t, thread_id, 32);
OFF(rocprofiler_buffer_tracing_memory_copy_record_t, start_timestamp, 40);
OFF(rocprofiler_buffer_tracing_memory_copy_record_t, end_timestamp, 48);
OFF(rocprofiler_buffer_tracing_memory_copy_record_t, dst_agent_id, 56);
OFF(rocprofiler_buffer_tracing_memory_copy_record_t, src_agent_id, 64);
OFF(rocprofiler_buffer_tracing_memory_copy_record_t, bytes, 72);
OFF(rocprofiler_buffer_tracing_memory_copy_record_t, dst_address, 80);
OFF(rocprofiler_buffer_tracing_memory_copy_record_t, src_address, 88);
SIZE(rocprofiler_buffer_tracing_memory_copy_record_t, 96);

VAL(ROCPROFILER_KERNEL_DISPATCH_COMPLETE, 2);
OFF(rocprofiler_buffer_tracing_kernel_dispatch_record_t, operation, 12);
OFF(rocprofiler_buffer_tracing_kernel_dispatch_record_t, correlation_id, 16);
OFF(rocprofiler_buffer_tracing_kernel_dispatch_record_t, thread_id, 32);
OFF(rocprofiler_buffer_tracing_kernel_dispatch_record_t, start_timestamp, 40);
OFF(rocprofiler_buffer_tracing_kernel_dispatch_record_t, end_timestamp, 48);
OFF(rocprofiler_buffer_tracing_kernel_dispatch_record_t, dispatch_info, 56);
SIZE(rocprofiler_buffer_tracing_kernel_dispatch_record_t, 184);

/* markers: the operations of MARKER_CORE_RANGE_API (from 0) and the callback payload */
VAL(ROCPROFILER_MARKER_CORE_RANGE_API_ID_NONE, -1);
VAL(ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxMarkA, 0);
VAL(ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxThreadRangeA, 1);
VAL(ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxProcessRangeA, 2);
VAL(ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxGetThreadId, 3);
VAL(ROCPROFILER_MARKER_CORE_RANGE_API_ID_LAST, 4);
VAL(ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA, 0);
VAL(ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA, 1);
VAL(ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop, 2);
VAL(ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA, 3);
VAL(ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop, 4);
VAL(ROCPROFILER_MARKER_CORE_API_ID_LAST, 6);
VAL(ROCPROFILER_MARKER_CONTROL_API_ID_roctxProfilerPause, 0);
VAL(ROCPROFILER_MARKER_CONTROL_API_ID_LAST, 2);
VAL(ROCPROFILER_MARKER_NAME_API_ID_LAST, 4);
SIZE(rocprofiler_marker_api_args_t, 16);
SIZE(rocprofiler_marker_api_retval_t, 8);
OFF(rocprofiler_callback_tracing_marker_api_data_t, args, 8);
OFF(rocprofiler_callback_tracing_marker_api_data_t, retval, 24);
SIZE(rocprofiler_callback_tracing_marker_api_data_t, 32);

/* record headers of buffered mode: category low, kind high */
_Static_assert(sizeof(rocprofiler_record_header_compute_hash(0, 0)) == 8, "the header hash is 64 bits");

int main(void) {
    /* Enums passed in records are 4 bytes, as the record's offsets assume. */
    if (sizeof(rocprofiler_callback_tracing_kind_t) != 4 || sizeof(rocprofiler_callback_phase_t) != 4 ||
        sizeof(rocprofiler_agent_type_t) != 4) {
        printf("rocprofiler-sdk emulator ABI: an enum is not 4 bytes\n");
        return 1;
    }
    /* The bit-fields of counter info share one byte right after `expression`. */
    rocprofiler_counter_info_v1_t info = {0};
    info.is_derived = 1;
    const unsigned char* bytes = (const unsigned char*)&info;
    if (bytes[48] != 2) {
        printf("rocprofiler-sdk emulator ABI: is_derived is not bit 1 of byte 48\n");
        return 1;
    }
    if (rocprofiler_record_header_compute_hash(3, 2) != ((uint64_t)2 << 32 | 3)) {
        printf("rocprofiler-sdk emulator ABI: rocprofiler_record_header_compute_hash is not category | kind << 32\n");
        return 1;
    }
    printf("rocprofiler-sdk emulator ABI: layouts and enumerators as documented\n");
    return 0;
}
