#!/usr/bin/env bash
# Bundles a benchmark script (tsx's per-module transform makes some dependencies ~15x slower;
# a bundle runs the code as the app does). Usage: bash bench/build.sh bench/<name>.ts
set -euo pipefail
mkdir -p bench/results/.build
out="bench/results/.build/$(basename "${1%.ts}").cjs"
node_modules/.bin/esbuild "$1" --bundle --platform=node --format=cjs --outfile="$out" --log-level=warning \
  --alias:server-only=./scripts/empty-module.ts \
  --external:@electric-sql/pglite --external:quickjs-emscripten --external:quickjs-emscripten-core \
  --external:@jitl/quickjs-wasmfile-release-sync --external:nodemailer --external:postgres \
  --external:@dbos-inc/dbos-sdk --external:pg
echo "$out"
