/* gorocprof's emulation of rocprofiler-sdk: agents (the 1.4 layout: 312 bytes, ending with uuid). */
#ifndef ROCPROFILER_SDK_AGENT_H
#define ROCPROFILER_SDK_AGENT_H

#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

#include <stdint.h>

ROCPROFILER_EXTERN_C_INIT

/* The KFD types the agent struct embeds: 4 bytes each, as in hsakmttypes.h, which the SDK's agent.h
 * includes and this emulator does without. */
#ifndef GOROCPROF_EMULATOR_HSAKMT_TYPES
#define GOROCPROF_EMULATOR_HSAKMT_TYPES
typedef union HSA_ENGINE_VERSION { uint32_t Value; } HSA_ENGINE_VERSION;
typedef union HSA_ENGINE_ID { uint32_t Value; } HSA_ENGINE_ID;
typedef union HSA_CAPABILITY { uint32_t Value; } HSA_CAPABILITY;
#endif

typedef enum rocprofiler_agent_version_t
{
    ROCPROFILER_AGENT_INFO_VERSION_NONE = 0,
    ROCPROFILER_AGENT_INFO_VERSION_0,
    ROCPROFILER_AGENT_INFO_VERSION_LAST
} rocprofiler_agent_version_t;

typedef struct rocprofiler_agent_mem_bank_t rocprofiler_agent_mem_bank_t;
typedef struct rocprofiler_agent_cache_t rocprofiler_agent_cache_t;
typedef struct rocprofiler_agent_io_link_t rocprofiler_agent_io_link_t;

/* "visiblity" is the SDK's own spelling. */
typedef struct rocprofiler_agent_runtime_visiblity_t
{
    uint32_t hsa : 1;
    uint32_t hip : 1;
    uint32_t rccl : 1;
    uint32_t rocdecode : 1;
    uint32_t reserved : 28;
} rocprofiler_agent_runtime_visiblity_t;

typedef struct rocprofiler_agent_v0_t
{
    uint64_t                 size; /* set by the SDK */
    rocprofiler_agent_id_t   id;
    rocprofiler_agent_type_t type;
    uint32_t                 cpu_cores_count;
    uint32_t                 simd_count;
    uint32_t                 mem_banks_count;
    uint32_t                 caches_count;
    uint32_t                 io_links_count;
    uint32_t                 cpu_core_id_base;
    uint32_t                 simd_id_base;
    uint32_t                 max_waves_per_simd;
    uint32_t                 lds_size_in_kb;
    uint32_t                 gds_size_in_kb;
    uint32_t                 num_gws;
    uint32_t                 wave_front_size;
    uint32_t                 num_xcc;
    uint32_t                 cu_count;
    uint32_t                 array_count;
    uint32_t                 num_shader_banks;
    uint32_t                 simd_arrays_per_engine;
    uint32_t                 cu_per_simd_array;
    uint32_t                 simd_per_cu;
    uint32_t                 max_slots_scratch_cu;
    uint32_t                 gfx_target_version; /* major*10000 + minor*100 + stepping */
    uint16_t                 vendor_id;
    uint16_t                 device_id;
    uint32_t                 location_id;
    uint32_t                 domain;
    uint32_t                 drm_render_minor;
    uint32_t                 num_sdma_engines;
    uint32_t                 num_sdma_xgmi_engines;
    uint32_t                 num_sdma_queues_per_engine;
    uint32_t                 num_cp_queues;
    uint32_t                 max_engine_clk_ccompute;
    uint32_t                 max_engine_clk_fcompute;
    HSA_ENGINE_VERSION       sdma_fw_version;
    HSA_ENGINE_ID            fw_version;
    HSA_CAPABILITY           capability;
    uint32_t                 cu_per_engine;
    uint32_t                 max_waves_per_cu;
    uint32_t                 family_id;
    uint32_t                 workgroup_max_size;
    uint32_t                 grid_max_size;
    uint64_t                 local_mem_size;
    uint64_t                 hive_id;
    uint64_t                 gpu_id; /* KFD id */
    rocprofiler_dim3_t       workgroup_max_dim;
    rocprofiler_dim3_t       grid_max_dim;
    const rocprofiler_agent_mem_bank_t* mem_banks;
    const rocprofiler_agent_cache_t*    caches;
    const rocprofiler_agent_io_link_t*  io_links;
    const char*              name;         /* gfx target for a GPU, e.g. "gfx942" */
    const char*              vendor_name;  /* "AMD" for a GPU */
    const char*              product_name; /* marketing name */
    const char*              model_name;
    uint32_t                 node_id;              /* KFD topology node */
    int32_t                  logical_node_id;      /* 0..N-1 over all agents */
    int32_t                  logical_node_type_id; /* 0..N-1 among agents of this type */
    rocprofiler_agent_runtime_visiblity_t runtime_visibility;
    rocprofiler_uuid_t       uuid;
} rocprofiler_agent_v0_t;

typedef rocprofiler_agent_v0_t rocprofiler_agent_t;

/* `agents` is an array of pointers to the SDK's agent structs, valid until after tool finalization. */
typedef rocprofiler_status_t (*rocprofiler_query_available_agents_cb_t)(rocprofiler_agent_version_t version,
                                                                        const void**                agents,
                                                                        size_t                      num_agents,
                                                                        void*                       user_data);

rocprofiler_status_t rocprofiler_query_available_agents(rocprofiler_agent_version_t             version,
                                                        rocprofiler_query_available_agents_cb_t callback,
                                                        size_t                                  agent_size,
                                                        void* user_data) ROCPROFILER_API;

ROCPROFILER_EXTERN_C_FINI

#endif /* ROCPROFILER_SDK_AGENT_H */
