#!/usr/bin/env bash
# One device call for the STAC-A2-style figures: the early-exercise GPU tests, the workloads with
# the Greeks' spot legs walked together and each Greek walked on its own (interleaved, same
# binary), and ncu on the Greek-combination kernel in both ways.
# Usage (from the repo root, on the GPU machine, .devcarry carried):
#   make device-bundle BUNDLE_BINARIES="tests/mcprice_gpu_tests apps/mcprice-stac-bench"
#   bash apps/bench/stac_run.sh [full]     (full: also the large workload)
set -u
B=/tmp/bundle
rm -rf "$B" && tar xzf .devcarry/bundle.tgz -C /tmp || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== gpu tests (early exercise)"; "$B/tests/mcprice_gpu_tests" "GPU early*" 2>&1 | tail -3
echo "== small"
for r in 1 2; do
  for w in shared per-greek; do "$B/apps/mcprice-stac-bench" 9 gpu small "$w" 2>&1 | tail -1; done
done
if [ "${1:-}" = full ]; then
  echo "== large"
  for w in shared per-greek; do "$B/apps/mcprice-stac-bench" 2 gpu large "$w" 2>&1 | tail -1; done
fi
for w in shared per-greek; do
  echo "== ncu: the combination kernel, $w"
  ncu --kernel-name regex:combination_blocks --launch-count 1 \
    --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats \
    --metrics smsp__thread_inst_executed_per_inst_executed.ratio,smsp__inst_executed.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum \
    "$B/apps/mcprice-stac-bench" 0 gpu small "$w" 2>&1 | grep -vE "^==PROF==|^ *-+ *$|^ *$" | tail -60
done
