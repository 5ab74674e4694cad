#!/usr/bin/env bash
# `npm test`: unit + database tests (PGlite always; real Postgres too when TEST_DATABASE_URL is
# set — each test file gets a fresh database), then a production build driven by Playwright.
# SKIP_E2E=1 runs only the vitest part.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== vitest (unit, pglite${TEST_DATABASE_URL:+, postgres}) =="
npx vitest run

if [ "${SKIP_E2E:-}" = "1" ]; then
  echo "SKIP_E2E=1: end-to-end tests skipped"
  exit 0
fi

echo "== build =="
npm run build

echo "== playwright (chromium) =="
npx playwright test
