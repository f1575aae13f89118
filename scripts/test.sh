#!/usr/bin/env bash
# Builds Strata and runs every test that needs no GPU: unit tests, then the llama.cpp oracle.
# Usage: scripts/test.sh [extra ctest args]
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
jobs=$(nproc)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build -j"$jobs"
# The oracles' npm packages (llama.cpp, HF tokenizers, jinja); reinstalled only when the lock changes.
(cd tests/oracle && { cmp -s package-lock.json node_modules/.package-lock.json.ci 2>/dev/null ||
  { npm ci --no-audit --no-fund --loglevel=error &&
    cp package-lock.json node_modules/.package-lock.json.ci; }; })
ctest --test-dir build --output-on-failure -j"$jobs" -L 'unit|oracle' "$@"
