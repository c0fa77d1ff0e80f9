set -u
b=build-device
$b/tests/mcprice_gpu_tests 2>&1 | tail -2
$b/apps/mcprice-bench
ncu --clock-control none --kernel-name regex:european --launch-count 1 --section ComputeWorkloadAnalysis --section InstructionStats --section Occupancy $b/apps/mcprice-bench 2048 262144 2>&1 | grep -E "Executed Ipc|Issue Slots|Achieved Occ|Executed Instructions|highest-utilized"
