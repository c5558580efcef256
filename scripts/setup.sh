#!/usr/bin/env bash
# Set-up and main job on a fresh Debian 12 machine: installs the missing Debian packages,
# configures and builds neuronsim into build/, then runs the main job (the built-in demo trace
# on the default generation, outputs in build/run-demo/).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(g++ cmake ninja-build pkg-config libsystemc-dev libboost-program-options-dev
          libspdlog-dev libyaml-cpp-dev nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev
          libsqlite3-dev libopenmpi-dev openmpi-bin gnuplot-nox
          pybind11-dev python3-dev python3-numpy python3-pytest python3-pandas)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j "$(nproc)"
./build/neuronsim run --force --out build/run-demo
