#!/usr/bin/env bash
# CPU profile of the bundled engine bench (a 100-step no-op chain, 5 runs after a warm-up) and its
# summary by category. Postgres when BENCH_DATABASE_URL is set, PGlite otherwise.
#   BENCH_DATABASE_URL=postgres://… bash bench/profile.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export SLUICE_SECRET="${SLUICE_SECRET:-bench-secret-bench-secret-bench-secret-00}" LOG_LEVEL=silent NODE_ENV=test
out=$(bash bench/build.sh bench/engine-runs.ts)
dir=bench/results/profiles
mkdir -p "$dir"
BENCH_CHAIN_RUNS="${BENCH_CHAIN_RUNS:-5}" BENCH_THROUGHPUT_RUNS="${BENCH_THROUGHPUT_RUNS:-1}" \
  node --cpu-prof --cpu-prof-dir="$dir" --cpu-prof-name=engine-chain100.cpuprofile "$out"
# The first ~2.5 s are start-up (module load, database creation, migrations).
node_modules/.bin/tsx bench/profile-summary.ts "$dir/engine-chain100.cpuprofile" --skip-ms "${BENCH_PROFILE_SKIP_MS:-2500}"
