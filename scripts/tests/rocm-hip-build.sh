#!/usr/bin/env bash
# How `make` builds bin/hip-vector (tool/examples/CMakeLists.txt), without ROCm: the configure of
# this build says whether it found a HIP compiler, and bin/hip-vector exists exactly when it did;
# then a configure with GOROCPROF_HIPCC naming a stand-in hipcc (a script that records its
# arguments and writes a program) builds and installs hip-vector through it, with -ffp-contract=off.
set -euo pipefail
cd "$(dirname "$0")/../.."
fail() { echo "FAIL rocm-hip-build: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log=${BUILD:-build}/logs/tool-configure.log
[ -f "$log" ] || fail "$log is missing (make all)"
if grep -q 'gorocprof: no HIP compiler (ROCm.s clang or hipcc), bin/hip-vector is not built' "$log"; then
  [ ! -e bin/hip-vector ] || fail "no HIP compiler was found, yet bin/hip-vector exists"
elif grep -q 'building bin/hip-vector' "$log"; then
  [ -x bin/hip-vector ] || fail "a HIP compiler was found ($(grep 'building bin/hip-vector' "$log")), yet bin/hip-vector is missing"
else
  fail "$log says nothing of bin/hip-vector"
fi

cat >"$tmp/hipcc" <<'SH'
#!/bin/sh
echo "$@" >"$(dirname "$0")/hipcc.args"
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
printf '#!/bin/sh\necho "hip-vector: PASS: stand-in"\n' >"$out" && chmod +x "$out"
SH
chmod +x "$tmp/hipcc"
cmake -S tool -B "$tmp/b" -DGOROCPROF_WITH_CUDA=OFF -DGOROCPROF_HIPCC="$tmp/hipcc" >"$tmp/configure.log" 2>&1 ||
  { tail -n 20 "$tmp/configure.log" >&2; fail "configure with GOROCPROF_HIPCC"; }
grep -q "gorocprof: hipcc $tmp/hipcc, building bin/hip-vector" "$tmp/configure.log" || fail "the configure did not take GOROCPROF_HIPCC"
cmake --build "$tmp/b" --target hip-vector >"$tmp/build.log" 2>&1 || { tail -n 20 "$tmp/build.log" >&2; fail "building hip-vector"; }
grep -q -- '-ffp-contract=off' "$tmp/hipcc.args" || fail "hipcc was called without -ffp-contract=off: $(cat "$tmp/hipcc.args")"
grep -q 'tool/examples/hip/hip_vector.cpp' "$tmp/hipcc.args" || fail "hipcc did not compile hip_vector.cpp: $(cat "$tmp/hipcc.args")"
"$tmp/b/examples/hip-vector" | grep -q 'hip-vector: PASS' || fail "the built hip-vector does not run"
# Installed to bin/ by make's install step (the whole tree is not built here, so read the rule).
# shellcheck disable=SC2016 # the rule names the variable, unexpanded
grep -q 'DESTINATION "${CMAKE_INSTALL_PREFIX}/bin".*hip-vector' "$tmp/b/examples/cmake_install.cmake" ||
  fail "no install rule of hip-vector to bin/ in $tmp/b/examples/cmake_install.cmake"
echo "ok rocm-hip-build: the build's HIP detection, hip-vector through hipcc"
