#!/bin/bash
# Peak memory of a command, for `textreuse` runs whose texts are mapped files: /usr/bin/time -v
# reports one resident-set peak, which counts mapped file pages too; this tells them apart.
# peakmem.sh OUT CMD...: runs CMD, samples /proc/PID/status every 0.2 s, writes peak VmRSS,
# RssAnon and RssFile (KiB) and the wall time to OUT.
out=$1; shift
start=$(date +%s.%N)
"$@" & pid=$!
peak_rss=0; peak_anon=0; peak_file=0
while kill -0 $pid 2>/dev/null; do
  if [ -r /proc/$pid/status ]; then
    read rss anon file < <(awk '/^VmRSS/{r=$2} /^RssAnon/{a=$2} /^RssFile/{f=$2} END{print r+0, a+0, f+0}' /proc/$pid/status 2>/dev/null)
    [ "${rss:-0}" -gt $peak_rss ] && peak_rss=$rss
    [ "${anon:-0}" -gt $peak_anon ] && peak_anon=$anon
    [ "${file:-0}" -gt $peak_file ] && peak_file=$file
  fi
  sleep 0.2
done
wait $pid; rc=$?
end=$(date +%s.%N)
echo "rc=$rc wall=$(echo "$end - $start" | bc) peak_rss_kib=$peak_rss peak_anon_kib=$peak_anon peak_file_kib=$peak_file" > $out
