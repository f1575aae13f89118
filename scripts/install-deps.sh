#!/usr/bin/env bash
# Installs the Debian 12 packages Strata builds and tests with. Idempotent; apt-get only.
set -euo pipefail
packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libabsl-dev libspdlog-dev libfmt-dev libyaml-cpp-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libboost-dev libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libpcre2-dev libutf8proc-dev libhiredis-dev libxxhash-dev redis-server
  python3-numpy
)
# Node.js (for the oracle tests) may come from elsewhere with its own npm; add Debian's only if absent.
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
