#!/usr/bin/env bash
# Decompression and extraction rates on one .xml.bz2 file, interleaved rounds, medians.
#
#   benches/scripts/bz2_rates.sh TEXTREUSE FILE.xml.bz2 [ROUNDS]
#
# Runs, in each round: `bzip2 -dc`, `lbzip2 -n1 -dc`, `lbzip2 -n2 -dc` (if installed),
# `textreuse --threads 1 extract` and `textreuse --threads 2 extract`, all to /dev/null, and
# prints per command the median wall and CPU (user+sys) seconds and MB of XML per wall second
# and per CPU second.
set -euo pipefail
bin=$1
file=$2
rounds=${3:-3}
load=$(cut -d" " -f1-3 /proc/loadavg)
xml=$(bzip2 -dc "$file" | wc -c)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmds=("bzip2 -dc" "lbzip2 -n1 -dc" "lbzip2 -n2 -dc" "$bin --threads 1 extract" "$bin --threads 2 extract")
for ((r = 0; r < rounds; r++)); do
    for i in "${!cmds[@]}"; do
        cmd=${cmds[$i]}
        if [[ $cmd == lbzip2* ]] && ! command -v lbzip2 >/dev/null; then
            continue
        fi
        /usr/bin/time -o "$tmp/t" -f "%e %U %S" $cmd "$file" >/dev/null
        echo "$(cat "$tmp/t")" >>"$tmp/$i"
    done
done
for i in "${!cmds[@]}"; do
    [[ -f $tmp/$i ]] && echo "${cmds[$i]##*/}" >"$tmp/name$i"
done
python3 - "$tmp" "$xml" <<'PY'
import os, statistics, sys
tmp, xml = sys.argv[1], int(sys.argv[2])
print(f"{'command':<36} {'wall_s':>7} {'cpu_s':>7} {'MB/s wall':>10} {'MB/s cpu':>9}")
for i in range(10):
    path = os.path.join(tmp, str(i))
    if not os.path.exists(path):
        continue
    rows = [list(map(float, line.split())) for line in open(path)]
    wall = statistics.median(r[0] for r in rows)
    cpu = statistics.median(r[1] + r[2] for r in rows)
    name = open(os.path.join(tmp, f"name{i}")).read().strip()
    print(f"{name:<36} {wall:7.2f} {cpu:7.2f} {xml / wall / 1e6:10.1f} {xml / cpu / 1e6:9.1f}")
PY
echo "XML bytes: $xml; rounds: $rounds; $(nproc) cores; load before: $load"
