#!/usr/bin/env bash
# Runs a command and prints the CPU time the whole machine spent meanwhile (user + nice +
# system + irq + softirq, from /proc/stat) and the wall time, in seconds. Unlike
# `/usr/bin/time`, this counts processes the command does not wait for (Spark's JVM and its
# Python workers), so run it on an otherwise quiet machine: everything else running counts too.
#
#   benches/scripts/cpu_seconds.sh COMMAND [ARGS...]
set -euo pipefail
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
hz=$(getconf CLK_TCK)
before=$(busy); start=$(date +%s.%N)
status=0
"$@" || status=$?
after=$(busy); end=$(date +%s.%N)
awk -v b="$before" -v a="$after" -v hz="$hz" -v s="$start" -v e="$end" -v st="$status" \
    'BEGIN { printf "cpu_seconds %.1f wall_seconds %.1f status %d\n", (a - b) / hz, e - s, st }' >&2
exit "$status"
