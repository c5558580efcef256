#!/usr/bin/env bash
# The one clang build of the whole tree with AddressSanitizer + UndefinedBehaviorSanitizer and
# libFuzzer's coverage (NEURONSIM_FUZZ=ON), in build-asan/ apart from the GCC build: it serves
# both the sanitized test suite (scripts/sanitize.sh) and the fuzz harnesses (scripts/fuzz*.sh).
# Installs clang and its runtimes from Debian when missing. Arguments: the targets to build.
# CLANG_BUILD_JOBS sets the parallelism (default: all cores).
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(clang libclang-rt-14-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "clang_build: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ ! -f build-asan/CMakeCache.txt ]; then
  CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g" \
    -DNEURONSIM_FUZZ=ON -DNEURONSIM_BUILD_BENCH=OFF >/dev/null
fi
cmake --build build-asan -j "${CLANG_BUILD_JOBS:-$(nproc)}" --target "$@"
