#!/usr/bin/env python3
"""Kernel totals from an ncu --csv run: launches, summed duration, instructions and registers per
kernel, with each kernel's time a launch over the first's. Kernels are named by the first match
of PATTERN in ncu's name (default: the first identifier followed by its template or parameter
list, the function's own name).

A whole bench run profiled this way compares kernels over the same jobs (the European price and
Greek kernels over the same book's chunks), where one ncu job of each may be different chunks.
Usage: ncu --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__registers_per_thread \\
           -k regex:european --csv BENCH ... > run.csv
       ncu_kernel_totals.py run.csv [PATTERN]
"""
import collections
import csv
import re
import sys


def totals(path, pattern):
    rows = [line for line in open(path) if line.startswith('"')]
    table = collections.OrderedDict()
    for row in csv.DictReader(rows):
        match = re.search(pattern, row["Kernel Name"])
        name = match.group(0) if match else row["Kernel Name"]
        entry = table.setdefault(name, {"launches": 0, "time_us": 0.0, "inst": 0.0, "registers": ""})
        metric = row["Metric Name"]
        value = row["Metric Value"].replace(",", "")
        if metric == "gpu__time_duration.sum":
            entry["launches"] += 1
            entry["time_us"] += float(value) / 1e3
        elif metric == "smsp__inst_executed.sum":
            entry["inst"] += float(value)
        elif metric == "launch__registers_per_thread":
            entry["registers"] = value
    return table


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    pattern = sys.argv[2] if len(sys.argv) > 2 else r"\w+(?=\s*[<(])"
    table = totals(sys.argv[1], pattern)
    first = None
    for name, e in table.items():
        per_launch = e["time_us"] / e["launches"] if e["launches"] else 0.0
        first = first or per_launch
        print(f"{name} launches {e['launches']} time_us {e['time_us']:.1f} per_launch_us {per_launch:.2f} "
              f"ratio {per_launch / first if first else 0.0:.3f} inst_M_per_launch "
              f"{e['inst'] / 1e6 / max(e['launches'], 1):.2f} registers {e['registers']}")


if __name__ == "__main__":
    main()
