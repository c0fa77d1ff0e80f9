set -u
b=build-device
$b/tests/mcprice_gpu_tests 2>&1 | tail -2
for i in 1 2; do $b/apps/mcprice-bench; done
ncu --clock-control none --kernel-name regex:european --launch-count 1 --section SpeedOfLight --section Occupancy --section ComputeWorkloadAnalysis --section InstructionStats $b/apps/mcprice-bench 2048 262144 2>&1 | grep -E "Executed Ipc|Issue Slots|Achieved Occ|Executed Instructions|Duration|highest-utilized"
