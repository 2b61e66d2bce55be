/* gorocprof's emulation of rocprofiler-sdk: buffers, which collect the records of buffered services
 * and hand them to the tool's callback in batches. */
#ifndef ROCPROFILER_SDK_BUFFER_H
#define ROCPROFILER_SDK_BUFFER_H

#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

ROCPROFILER_EXTERN_C_INIT

/* Called on the SDK's callback thread with the records collected since the last call; the headers and
 * their payloads are valid during the call only. drop_count: records a DISCARD buffer dropped. */
typedef void (*rocprofiler_buffer_tracing_cb_t)(rocprofiler_context_id_t      context,
                                                rocprofiler_buffer_id_t       buffer_id,
                                                rocprofiler_record_header_t** headers,
                                                size_t                        num_headers,
                                                void*                         data,
                                                uint64_t                      drop_count);

/* size: bytes the buffer holds; watermark: bytes at which the callback gets the records. */
rocprofiler_status_t rocprofiler_create_buffer(rocprofiler_context_id_t        context,
                                               size_t                          size,
                                               size_t                          watermark,
                                               rocprofiler_buffer_policy_t     policy,
                                               rocprofiler_buffer_tracing_cb_t callback,
                                               void*                           callback_data,
                                               rocprofiler_buffer_id_t*        buffer_id) ROCPROFILER_API;

rocprofiler_status_t rocprofiler_destroy_buffer(rocprofiler_buffer_id_t buffer_id) ROCPROFILER_API;

/* Hands every record collected so far to the callback and returns once it has run. */
rocprofiler_status_t rocprofiler_flush_buffer(rocprofiler_buffer_id_t buffer_id) ROCPROFILER_API;

ROCPROFILER_EXTERN_C_FINI

#endif /* ROCPROFILER_SDK_BUFFER_H */
