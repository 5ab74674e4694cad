#!/usr/bin/env bash
# `npm test`: unit + database tests (PGlite always; real Postgres too when TEST_DATABASE_URL is
# set — each test file gets a fresh database), the engine conformance suite, then a production
# build driven by Playwright. SKIP_E2E=1 runs only the vitest part.
set -euo pipefail
cd "$(dirname "$0")/.."

# The conformance suite (inngest/conformance: real Inngest servers, cron ticks) mostly waits on
# its engines, so it runs beside the other vitest projects instead of after them; its output is
# printed when it ends.
conformance_log="$(mktemp)"
echo "== vitest conformance (embedded, inngest dev, inngest start) — in the background =="
npx vitest run --project conformance >"$conformance_log" 2>&1 &
conformance_pid=$!
finish_conformance() {
  local status=0
  wait "$conformance_pid" || status=$?
  echo "== vitest conformance: output =="
  cat "$conformance_log"
  rm -f "$conformance_log"
  if [ "$status" -ne 0 ]; then
    echo "conformance suite failed (exit $status)" >&2
    exit "$status"
  fi
}
trap 'kill "$conformance_pid" 2>/dev/null || true' EXIT

echo "== vitest (unit, pglite${TEST_DATABASE_URL:+, postgres}) =="
npx vitest run --project unit --project pglite ${TEST_DATABASE_URL:+--project postgres}

if [ "${SKIP_E2E:-}" = "1" ]; then
  finish_conformance
  trap - EXIT
  echo "SKIP_E2E=1: end-to-end tests skipped"
  exit 0
fi

echo "== build =="
# CI (.ci/run) ran `npm run typecheck` already: the build skips its own pass over the same files.
if [ -n "${CI:-}" ]; then export SLUICE_BUILD_SKIP_TYPECHECK=1; fi
npm run build

finish_conformance
trap - EXIT

echo "== playwright (chromium) =="
npx playwright test
