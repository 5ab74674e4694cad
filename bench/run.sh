#!/usr/bin/env bash
# Runs every benchmark (bundled with esbuild first) and prints their BENCH lines; results are also
# written to bench/results/latest.jsonl. BENCH_DATABASE_URL=postgres://… adds Postgres runs.
set -euo pipefail
cd "$(dirname "$0")/.."
export SLUICE_SECRET="${SLUICE_SECRET:-bench-secret-bench-secret-bench-secret-00}" LOG_LEVEL=silent NODE_ENV=test
mkdir -p bench/results
: > bench/results/latest.jsonl
run() {
  local out; out=$(bash bench/build.sh "$1")
  node "$out" | tee -a /dev/stderr | grep '^BENCH ' | sed 's/^BENCH //' >> bench/results/latest.jsonl || true
}
# PGlite first (BENCH_DATABASE_URL would switch every script to Postgres), then Postgres if given.
pg="${BENCH_DATABASE_URL:-}"
unset BENCH_DATABASE_URL
run bench/validate-hash.ts
run bench/executor-steps.ts
run bench/engine-runs.ts
run bench/webhook-accept.ts
run bench/parallel-fanout.ts
if [ -n "$pg" ]; then
  export BENCH_DATABASE_URL="$pg"
  run bench/executor-steps.ts
  run bench/engine-runs.ts
  run bench/webhook-accept.ts
  run bench/parallel-fanout.ts
fi
# Sluice ÷ DBOS Transact (bench/anchors/): Postgres only; without BENCH_DATABASE_URL it says it skipped.
run bench/anchor-compare.ts
for f in bench/*.ts; do
  case "$f" in bench/stats.ts|bench/profile-summary.ts|bench/validate-hash.ts|bench/executor-steps.ts|bench/engine-runs.ts|bench/webhook-accept.ts|bench/parallel-fanout.ts|bench/anchor-compare.ts) ;; *) run "$f" ;; esac
done
echo "results: bench/results/latest.jsonl"
