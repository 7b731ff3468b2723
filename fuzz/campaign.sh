#!/usr/bin/env bash
# Runs the fuzz targets one after another and prints a table: target, executions, time, findings.
#
#   fuzz/campaign.sh                      # the long campaign: 10M executions per target
#   fuzz/campaign.sh --runs 1000000       # fewer executions per target
#   fuzz/campaign.sh --seconds 10 --seed 1   # a time box per target, fixed seed (CI uses this)
#   fuzz/campaign.sh --seconds 600        # 10M executions or 10 minutes, whichever comes first
#   fuzz/campaign.sh --seconds 60 wikidump_parse index_segment   # some targets only
#   fuzz/campaign.sh --plateau 30 [--max-minutes 90] TARGET...   # until 30 min without new features
#   fuzz/campaign.sh --minimize [TARGET...]   # cargo fuzz cmin, then refresh the committed corpora
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz --locked`); builds the
# targets first. Corpora grow in fuzz/corpus/<target> (seeded from testdata/ where it has
# inputs, and from the committed minimized corpora in testdata/fuzz-corpora/<target>, which
# libFuzzer therefore replays first in every run), crashes land in fuzz/artifacts/<target>,
# logs in fuzz/artifacts/logs/<target>.log. Exits 1 when any target found something. Set
# FUZZ_BUILD_FLAGS to change the build (CI passes `--dev`: a faster build for short runs).
#
# --plateau MINUTES runs each target (the built binary, directly) until libFuzzer's feature count
# (`ft:` in its status lines: edges, edge counters and value profiles; finer than `cov:`, the
# edges alone) has not grown for MINUTES minutes, then interrupts it, and appends a row per target
# (executions, cov and ft at the stop, libFuzzer's corpus as units/size and the files in the
# corpus directory, wall time, whether it stopped on the plateau, findings) to --table FILE (default fuzz/artifacts/plateau.md) as well as printing
# it. FUZZ_ARGS adds libFuzzer options (`-detect_leaks=0`). --max-minutes stops a target that has not reached the plateau by then (its row says "no").
# Plateau runs are niced (FUZZ_NICE, default 19) so that they can run in the background beside
# other work: `nohup fuzz/campaign.sh --plateau 30 TARGET... >plateau.out 2>&1 &`.
#
# --minimize merges each target's corpus into its smallest covering set (`cargo fuzz cmin`) and
# copies at most FUZZ_CORPUS_CAP_FILES files (default 300, fewer for slow targets: CORPUS_FILES
# below) and FUZZ_CORPUS_CAP_KB KiB (default 96) of it, the smallest files first, to
# testdata/fuzz-corpora/<target>/ for committing.
set -euo pipefail
cd "$(dirname "$0")"

runs=10000000
seconds=""
seed=()
plateau=""
max_minutes=""
table=artifacts/plateau.md
minimize=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --seed) seed=(-seed="$2"); shift 2 ;;
    --plateau) plateau="$2"; shift 2 ;;
    --max-minutes) max_minutes="$2"; shift 2 ;;
    --table) table="$2"; shift 2 ;;
    --minimize) minimize=1; shift ;;
    -h|--help) sed -n '2,33p' "$0"; exit 0 ;;
    --) shift; break ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done

# Largest input per target: past libFuzzer's 4 KB default wherever the real paths need more
# (whole dumps, many pages or rows, long documents), kept lower where a run is superlinear
# (alignment, the brute-force search simhash_search checks against).
declare -A MAX_LEN=(
  [align_pair]=16384
  [align_pan]=65536
  [align_prepared_bytes]=16384
  [cli_size]=256
  [corpus_html_depth]=65536
  [corpus_warc_framing]=131072
  [dedup_inputs]=262144
  [dedup_jsonl]=262144
  [dedup_parquet]=131072
  [dedup_warc]=131072
  [embed_vectors]=65536
  [explore_output]=65536
  [index_files]=8192
  [index_segment]=65536
  [index_structure]=65536
  [minhash_sign]=65536
  [shingle_sentences]=262144
  [simhash_paragraph]=65536
  [simhash_search]=4097
  [wikidump_clean]=262144
  [wikidump_multistream]=262144
  [wikidump_parse]=1048576
)
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  mapfile -t targets < <(printf '%s\n' "${!MAX_LEN[@]}" | sort)
fi

# Plateau runs stay out of the way of other work on the machine (builds, tests).
nice=()
if [[ -n $plateau || -n ${FUZZ_NICE:-} ]]; then
  nice=(nice -n "${FUZZ_NICE:-19}")
fi

# Build everything once (the same build `cargo fuzz run` would start).
# shellcheck disable=SC2086
"${nice[@]}" cargo +nightly fuzz build ${FUZZ_BUILD_FLAGS:-}

# Seeds: the fixtures that are inputs of a target.
seed_corpus() {
  local target=$1
  shift
  mkdir -p "corpus/$target"
  for f in "$@"; do
    [[ -f $f ]] && cp -n "$f" "corpus/$target/" || true
  done
}
# index_files reads a deletion file or a manifest: the reference index's.
seed_corpus index_files ../testdata/index/v2/MANIFEST ../testdata/index/v2/seg-*.del-*
seed_corpus wikidump_parse ../testdata/wikidump/*
seed_corpus wikidump_clean ../testdata/wikidump/*
seed_corpus align_pan ../testdata/align/truth/*.xml
seed_corpus embed_vectors ../testdata/embed/vectors.*
# The WARC targets: the sample file as it is and decompressed (structured targets read these as
# the bytes their records are built from); corpus_html_depth reads a leading 0 (no repetition)
# and the records as one page.
seed_corpus dedup_warc ../testdata/warc/*.warc.gz
seed_corpus corpus_warc_framing ../testdata/warc/*.warc.gz
for f in ../testdata/warc/*.warc.gz; do
  name=$(basename "$f" .gz)
  for t in dedup_warc corpus_warc_framing; do
    [[ -f corpus/$t/$name ]] || gzip -dc "$f" >"corpus/$t/$name"
  done
  mkdir -p corpus/corpus_html_depth
  [[ -f corpus/corpus_html_depth/$name ]] ||
    { printf '\000'; gzip -dc "$f"; } >"corpus/corpus_html_depth/$name"
done
# Minimized corpora of earlier campaigns (--minimize): replayed first by every run.
for d in ../testdata/fuzz-corpora/*/; do
  [[ -d $d ]] && seed_corpus "$(basename "$d")" "$d"*
done
# Inputs that once crashed a target: every campaign starts from them again.
for d in ../testdata/fuzz/*/; do
  seed_corpus "$(basename "$d")" "$d"*
done

mkdir -p artifacts/logs

for t in "${targets[@]}"; do
  [[ -n ${MAX_LEN[$t]:-} ]] || { echo "unknown target $t" >&2; exit 2; }
done

# Committed corpora per target, at most: CI's smoke run replays them with an unoptimized build
# (--dev), so they are capped to keep that to seconds per target. Files per target; slow
# targets (pages expanded to 256 KiB, whole dumps compressed and read three times, indexes
# written and compacted) get fewer.
declare -A CORPUS_FILES=(
  [corpus_html_depth]=12
  [index_segment]=20
  [wikidump_multistream]=20
)

if [[ -n $minimize ]]; then
  echo "| target | corpus files | bytes | minimized files | bytes | committed files | bytes |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  for t in "${targets[@]}"; do
    [[ -d corpus/$t ]] || continue
    cap_files=${FUZZ_CORPUS_CAP_FILES:-${CORPUS_FILES[$t]:-300}}
    cap_kb=${FUZZ_CORPUS_CAP_KB:-96}
    files0=$(find "corpus/$t" -type f | wc -l)
    bytes0=$(du -sb "corpus/$t" | cut -f1)
    # shellcheck disable=SC2086
    "${nice[@]}" cargo +nightly fuzz cmin ${FUZZ_BUILD_FLAGS:-} "$t" "corpus/$t" -- \
      -max_len="${MAX_LEN[$t]}" -timeout=120 >"artifacts/logs/$t.cmin.log" 2>&1 ||
      { echo "$t: cmin failed, see fuzz/artifacts/logs/$t.cmin.log" >&2; continue; }
    files1=$(find "corpus/$t" -type f | wc -l)
    bytes1=$(du -sb --apparent-size "corpus/$t" | cut -f1)
    # The committed subset: smallest files first, up to the caps.
    out=../testdata/fuzz-corpora/$t
    rm -rf "$out"
    mkdir -p "$out"
    n=0
    total=0
    while read -r size f; do
      (( n < cap_files && total + size <= cap_kb * 1024 )) || break
      cp "$f" "$out/"
      n=$((n + 1))
      total=$((total + size))
    done < <(find "corpus/$t" -type f -printf '%s %p\n' | sort -n -k1,1 -k2,2)
    echo "| $t | $files0 | $bytes0 | $files1 | $bytes1 | $n | $total |"
  done
  exit 0
fi

# The binaries `cargo fuzz build` wrote (plateau runs start them directly, to watch and stop them).
bin_dir() {
  local dir=${CARGO_TARGET_DIR:-target} profile=release prev=""
  for a in ${FUZZ_BUILD_FLAGS:-}; do
    [[ $prev == --target-dir ]] && dir=$a
    [[ $a == --dev || $a == -D ]] && profile=debug
    prev=$a
  done
  echo "$dir/$(rustc +nightly -vV | sed -n 's/^host: //p')/$profile"
}

# The last status line's value of a field (`cov`, `ft`, `corp`), or of the execution count (`#`).
status_field() {
  local line
  line=$(tail -c 65536 "$1" | grep -a -E '^#[0-9]+[[:space:]]' | tail -1)
  case $2 in
    '#') sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$line" ;;
    *) sed -n "s/.* $2: \([0-9]*\).*/\1/p" <<<"$line" ;;
  esac
}

if [[ -n $plateau ]]; then
  bins=$(bin_dir)
  [[ -f $table ]] || {
    echo "| target | executions | cov | ft | corpus (units/size) | files on disk | time | at plateau | findings |"
    echo "|---|---:|---:|---:|---:|---:|---:|---|---|"
  } >"$table"
  found=0
  rows=()
  for t in "${targets[@]}"; do
    mkdir -p "corpus/$t" "artifacts/$t"
    log=artifacts/logs/$t.plateau.log
    before=$(find "artifacts/$t" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
    start=$(date +%s)
    # shellcheck disable=SC2086 # FUZZ_ARGS: more libFuzzer options, split on spaces
    "${nice[@]}" "$bins/$t" "corpus/$t" -artifact_prefix="artifacts/$t/" \
      -max_len="${MAX_LEN[$t]}" -timeout=120 -print_final_stats=1 "${seed[@]}" ${FUZZ_ARGS:-} \
      >"$log" 2>&1 &
    pid=$!
    last_ft=""
    changed=$start
    reason=ended
    while kill -0 "$pid" 2>/dev/null; do
      sleep 15
      now=$(date +%s)
      ft=$(status_field "$log" ft)
      if [[ -n $ft && $ft != "$last_ft" ]]; then
        last_ft=$ft
        changed=$now
      fi
      if (( now - changed >= plateau * 60 )); then
        reason=plateau
      elif [[ -n $max_minutes ]] && (( now - start >= max_minutes * 60 )); then
        reason=limit
      else
        continue
      fi
      kill -INT "$pid" 2>/dev/null || true
      break
    done
    wait "$pid" 2>/dev/null || true
    secs=$(( $(date +%s) - start ))
    execs=$(grep -a -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    execs=${execs:-$(status_field "$log" '#')}
    cov=$(status_field "$log" cov)
    ft=$(status_field "$log" ft)
    # libFuzzer's corpus (`corp: units/size`): what covers the features. The directory holds
    # more, since libFuzzer keeps the inputs that reduced ones replaced (--minimize drops them).
    corp=$(tail -c 65536 "$log" | grep -a -E '^#[0-9]+[[:space:]]' | tail -1 | sed -n 's/.* corp: \([^ ]*\).*/\1/p')
    files=$(find "corpus/$t" -type f | wc -l)
    after=$(find "artifacts/$t" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
    new=$((after - before))
    case $reason in
      plateau) at="yes (no new ft for $plateau min)" ;;
      limit) at="no (stopped after $max_minutes min)" ;;
      *) at="no (fuzzer exited)" ;;
    esac
    if [[ $new -gt 0 ]]; then
      found=1
      echo "$t: see fuzz/$log and fuzz/artifacts/$t" >&2
    fi
    row="| $t | ${execs:-?} | ${cov:-?} | ${ft:-?} | ${corp:-?} | $files | $(( secs / 60 )) min $(( secs % 60 )) s | $at | $new |"
    echo "$row" >>"$table"
    rows+=("$row")
    echo "$row"
  done
  echo
  echo "| target | executions | cov | ft | corpus (units/size) | files on disk | time | at plateau | findings |"
  echo "|---|---:|---:|---:|---:|---:|---:|---|---|"
  printf '%s\n' "${rows[@]}"
  exit $found
fi

rows=()
found=0
for t in "${targets[@]}"; do
  [[ -n ${MAX_LEN[$t]:-} ]] || { echo "unknown target $t" >&2; exit 2; }
  mkdir -p "corpus/$t" "artifacts/$t"
  before=$(find "artifacts/$t" -type f | wc -l)
  limit=(-runs="$runs")
  [[ -n $seconds ]] && limit+=(-max_total_time="$seconds")
  start=$(date +%s)
  # shellcheck disable=SC2086
  cargo +nightly fuzz run ${FUZZ_BUILD_FLAGS:-} "$t" "corpus/$t" -- \
    "${limit[@]}" "${seed[@]}" -max_len="${MAX_LEN[$t]}" -timeout=120 -print_final_stats=1 \
    >"artifacts/logs/$t.log" 2>&1 || true
  secs=$(( $(date +%s) - start ))
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "artifacts/logs/$t.log" | grep -o '[0-9]*$' | tail -1)
  after=$(find "artifacts/$t" -type f | wc -l)
  new=$((after - before))
  if [[ $new -gt 0 ]] || ! grep -q 'Done [0-9]* runs' "artifacts/logs/$t.log"; then
    found=1
    [[ $new -gt 0 ]] || new="run failed"
    echo "$t: see fuzz/artifacts/logs/$t.log and fuzz/artifacts/$t" >&2
  fi
  rows+=("| $t | ${execs:-?} | ${secs} s | ${execs:+$(( ${execs:-0} / (secs > 0 ? secs : 1) ))/s} | $new |")
done

echo
echo "| target | executions | time | executions/s | findings |"
echo "|---|---:|---:|---:|---|"
printf '%s\n' "${rows[@]}"
exit $found
