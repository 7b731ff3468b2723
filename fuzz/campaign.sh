#!/usr/bin/env bash
# Runs the fuzz targets one after another and prints a table: target, executions, time, findings.
#
#   fuzz/campaign.sh                      # the long campaign: 10M executions per target
#   fuzz/campaign.sh --runs 1000000       # fewer executions per target
#   fuzz/campaign.sh --seconds 10 --seed 1   # a time box per target, fixed seed (CI uses this)
#   fuzz/campaign.sh --seconds 600        # 10M executions or 10 minutes, whichever comes first
#   fuzz/campaign.sh --seconds 60 wikidump_parse index_segment   # some targets only
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz --locked`); builds the
# targets first. Corpora grow in fuzz/corpus/<target> (seeded from testdata/ where it has
# inputs), crashes land in fuzz/artifacts/<target>, logs in fuzz/artifacts/logs/<target>.log. Exits 1
# when any target found something. Set FUZZ_BUILD_FLAGS to change the build (CI passes
# `--dev`: a faster build for short runs).
set -euo pipefail
cd "$(dirname "$0")"

runs=10000000
seconds=""
seed=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --seed) seed=(-seed="$2"); shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
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
  [dedup_inputs]=262144
  [dedup_jsonl]=262144
  [dedup_parquet]=131072
  [dedup_warc]=131072
  [index_files]=8192
  [index_segment]=65536
  [index_structure]=65536
  [minhash_sign]=65536
  [shingle_sentences]=262144
  [simhash_search]=4097
  [wikidump_clean]=262144
  [wikidump_multistream]=262144
  [wikidump_parse]=1048576
)
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  mapfile -t targets < <(printf '%s\n' "${!MAX_LEN[@]}" | sort)
fi

# Build everything once (the same build `cargo fuzz run` would start).
# shellcheck disable=SC2086
cargo +nightly fuzz build ${FUZZ_BUILD_FLAGS:-}

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
# Inputs that once crashed a target: every campaign starts from them again.
for d in ../testdata/fuzz/*/; do
  seed_corpus "$(basename "$d")" "$d"*
done

mkdir -p artifacts/logs
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
