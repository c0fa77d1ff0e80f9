#!/usr/bin/env bash
# One device call for the Heston figures: the GPU tests, the Heston European (252 steps, QE)
# three times, the PyTorch peers and the roofline in the same run, the STAC-A2-style workloads
# (whose multi-asset walks take the same QE step) and an ncu summary of the Heston kernel.
# Usage (from the repo root, on the GPU machine, .devcarry carried):
#   make device-bundle BUNDLE_BINARIES="tests/mcprice_gpu_tests apps/mcprice-throughput apps/mcprice-stac-bench"
#   bash apps/bench/heston_run.sh            (unpacks .devcarry/bundle.tgz into /tmp/bundle)
set -u
B=/tmp/bundle
rm -rf "$B" && tar xzf .devcarry/bundle.tgz -C /tmp || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== gpu tests"; "$B/tests/mcprice_gpu_tests" 2>&1 | tail -3
for r in 1 2 3; do echo "== heston European, run $r"; "$B/apps/mcprice-throughput" models | grep heston; done
echo "== peers"; python3 "$B/peers/torch_peers.py" 2>&1 | grep heston
echo "== roofline"; (cd /tmp && "$B/peers/roofline") 2>&1 | tail -3
echo "== STAC-A2-style"
for r in 1 2; do "$B/apps/mcprice-stac-bench" 9 gpu small 2>&1 | tail -1; done
"$B/apps/mcprice-stac-bench" 2 gpu large 2>&1 | tail -1
echo "== ncu: the Heston kernel"
ncu --kernel-name regex:heston_blocks --launch-count 1 --metrics gpu__time_duration.sum,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread \
  "$B/apps/mcprice-throughput" models 2>&1 | grep -E "duration|ratio|inst_executed|warps_active|issue_active|registers"
