#!/bin/sh
# run_fuzz.sh HARNESS SEEDS WORK SECONDS [libFuzzer options...]
# One fuzz session (ctest label fuzz, docs/reliability.md): the corpus it
# grows and any crash input go under WORK, never into the seeds in the tree.
set -e
harness=$1 seeds=$2 work=$3 seconds=$4
shift 4
mkdir -p "$work/corpus" "$work/artifacts"
exec "$harness" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$@" \
  "$work/corpus" "$seeds"
