#!/usr/bin/env bash
# Builds Strata, makes the demo model (random weights, Qwen3 shape, `tiny` preset) and runs it.
# Until the server lands this runs `strata generate`; afterwards it starts `strata serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build strata
if [ ! -f build/demo-model/hf/config.json ]; then
  build/src/cli/strata make-model --arch qwen3 --preset tiny --seed 1 --out build/demo-model
fi
exec build/src/cli/strata generate --card configs/models/demo.yaml --prompt-ids 1,2,3,4,5,6,7,8 \
  --max-tokens 32 "$@"
