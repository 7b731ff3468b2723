#!/bin/bash
# Time and peak memory of `textreuse align` and `textreuse check` on the adversarial inputs of
# adversarial_align.py at 1, 4 and 16 MB, median of 3 runs each (docs/performance.md "align").
#
#   benches/scripts/align_caps.sh TEXTREUSE [SIZES] [RUNS]
#   benches/scripts/align_caps.sh target/dist/textreuse "1 4 16" 3
#
# Cases (all by default, or those named in $CASES): align and check on `vocab` (source and
# suspicious from different seeds), `repeat` and `copies` (each aligned with itself); the
# `index-*` cases run `check --index` against the source in a chunk index built beforehand.
# Prints one line per case and size: wall seconds and peak RSS (MB) of each run, then the
# medians. Inputs are written to $TMPDIR (default /tmp), about 100 MB for sizes 1 4 16.
# A run is stopped after $LIMIT_S seconds (default 600) or when it maps more than $LIMIT_MB
# of memory (default 4000), so that the uncapped binary's quadratic runs end; such a run is
# reported as "killed" with the time it had used.
set -u
bin=$(realpath "$1")
sizes=${2:-"1 4 16"}
runs=${3:-3}
limit_s=${LIMIT_S:-600}
limit_mb=${LIMIT_MB:-4000}
here=$(dirname "$(realpath "$0")")
dir=${TMPDIR:-/tmp}/align-caps
mkdir -p "$dir"

gen() { # file args...: writes the input once
  local f=$dir/$1; shift
  [ -s "$f" ] || python3 "$here/adversarial_align.py" "$@" > "$f"
}

# One run: prints "wall_s peak_rss_mb" or "killed wall_s".
measure() {
  local t
  t=$(mktemp)
  # ulimit -v bounds the address space, so a quadratic run fails an allocation instead of
  # taking the machine's memory; timeout bounds its time. Output is discarded.
  ( ulimit -v $((limit_mb * 1024)); exec timeout "$limit_s" /usr/bin/time -v "$@" ) \
    > /dev/null 2> "$t"
  local rc=$?
  local wall rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/{n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$t")
  rss=$(awk -F': ' '/Maximum resident set size/{printf "%.0f", $2/1024}' "$t")
  rm -f "$t"
  if [ $rc -ne 0 ]; then echo "killed(rc=$rc) ${wall:-?}"; else echo "$wall $rss"; fi
}

median() { sort -g | awk '{a[NR]=$1} END{print (NR ? a[int((NR+1)/2)] : "-")}'; }

for mb in $sizes; do
  gen "vocab-src-$mb.txt" vocab "$mb" 1
  gen "vocab-susp-$mb.txt" vocab "$mb" 2
  gen "repeat-$mb.txt" repeat "$mb"
  gen "copies-$mb.txt" copies "$mb"
  # check reads a corpus directory of *.txt files: the source alone.
  for c in vocab repeat copies; do mkdir -p "$dir/corpus-$c-$mb"; done
  ln -sf "$dir/vocab-src-$mb.txt" "$dir/corpus-vocab-$mb/src.txt"
  ln -sf "$dir/repeat-$mb.txt" "$dir/corpus-repeat-$mb/src.txt"
  ln -sf "$dir/copies-$mb.txt" "$dir/corpus-copies-$mb/src.txt"
  for case in ${CASES:-align-vocab align-repeat align-copies check-vocab check-repeat check-copies index-vocab index-repeat index-copies}; do
    case $case in
      index-*)
        # check --index: the corpus in a persistent chunk index, built once (not timed).
        c=${case#index-}
        ix=$dir/index-$c-$mb
        [ -d "$ix" ] || { "$bin" -q index create "$ix" --unit chunk &&
          "$bin" -q index add "$ix" "$dir/corpus-$c-$mb"; } || exit 1
        susp=$dir/$c-$mb.txt
        [ "$c" = vocab ] && susp=$dir/vocab-susp-$mb.txt
        cmd=("$bin" check --index "$ix" "$susp") ;;
      align-vocab) cmd=("$bin" align "$dir/vocab-src-$mb.txt" "$dir/vocab-susp-$mb.txt") ;;
      align-repeat) cmd=("$bin" align "$dir/repeat-$mb.txt" "$dir/repeat-$mb.txt") ;;
      check-vocab) cmd=("$bin" check --corpus "$dir/corpus-vocab-$mb" "$dir/vocab-susp-$mb.txt") ;;
      check-repeat) cmd=("$bin" check --corpus "$dir/corpus-repeat-$mb" "$dir/repeat-$mb.txt") ;;
      align-copies) cmd=("$bin" align "$dir/copies-$mb.txt" "$dir/copies-$mb.txt") ;;
      check-copies) cmd=("$bin" check --corpus "$dir/corpus-copies-$mb" "$dir/copies-$mb.txt") ;;
    esac
    results=()
    killed=""
    for _ in $(seq "$runs"); do
      r=$(measure "${cmd[@]}")
      results+=("$r")
      case $r in killed*) killed=1; break ;; esac # no need to repeat a run that hit a limit
    done
    if [ -n "$killed" ]; then
      echo "$case ${mb}MB runs: ${results[*]}"
    else
      wall=$(printf '%s\n' "${results[@]}" | awk '{print $1}' | median)
      rss=$(printf '%s\n' "${results[@]}" | awk '{print $2}' | median)
      echo "$case ${mb}MB runs: ${results[*]// /s,}MB median: ${wall}s ${rss}MB"
    fi
  done
done
