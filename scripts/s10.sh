# The bench's third metric set, sourced by scripts/gpu-bench.sh and scripts/gpu-test.sh: S10 = ten groups of
# one metric each (10 replay passes for gorocprof; ncu gets the ten names in one --metrics and picks its own
# passes). Together they need two hardware passes on the H200, so gorocprof's configurations change between
# passes.
S10_METRICS=(sm__inst_executed.sum sm__warps_launched.sum smsp__inst_executed_op_global_ld.sum
    smsp__inst_executed_op_global_st.sum smsp__thread_inst_executed.sum lts__t_sectors.sum lts__t_requests.sum
    l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum dram__bytes_read.sum dram__bytes_write.sum)
S10_PMC=()  # gorocprof's arguments: one --pmc per metric
for m in "${S10_METRICS[@]}"; do S10_PMC+=(--pmc "$m"); done
S10_NCU=$(IFS=,; echo "${S10_METRICS[*]}")  # ncu's --metrics
# The counts that are the same from run to run, compared with ncu's exactly (L2/DRAM/L1 ones vary).
S10_DETERMINISTIC='^(sm__inst_executed|sm__warps_launched|smsp__inst_executed_op_global_(ld|st)|smsp__thread_inst_executed)\.sum$'
# The counts that vary but must not be 0 where ncu's are not (a pass measured with a configuration that lacks
# its group reads 0 on the H200). DRAM counts are left out: ncu flushes the caches before every replay pass
# (--cache-control all, its default), gorocprof does not (as rocprofv3 does not), so saxpy's inputs come from
# L2 under gorocprof (dram__bytes_read 0) and from DRAM under ncu (8.4 MB).
S10_NONZERO='^(lts__t_(sectors|requests)|l1tex__t_sectors_pipe_lsu_mem_global_op_ld)\.sum$'
