#!/usr/bin/env bash
# Checks tool/rocm and the emulator's headers against a copy of the real rocprofiler-sdk headers:
#   1. every tool/rocm source, and the emulator's own SDK clients (tests/*_tool.cpp),
#      compiles (-fsyntax-only, C++17) against them;
#   2. tool/rocm-emulator/tests/abi_test.c compiles (C11) against them: the sizes, offsets and values
#      the ABI test pins are the real ones;
#   3. no emulator header makes a name visible that the real header of the same name does not (so
#      code written against the emulator compiles against the SDK: the include graph matches). Names
#      of the kernel replay domain, and 1.4's names when the real tree is older, are reported but
#      allowed: they are what such an SDK lacks.
# Nothing is fetched: the headers are given. On a ROCm machine: scripts/rocm-headers-check.sh
# /opt/rocm/include. For a source tree, extra -I dirs bring HSA, HIP and hsakmt headers and, where the
# tree has no replay domain, a kernel replay header (docs/rocm.md, "Checking against the real SDK").
# Exit 0: all three hold; 1: one failed (what and where is printed); 2: bad arguments.
set -euo pipefail

usage() {
    echo "usage: $0 [-I DIR]... SDK_INCLUDE_DIR" >&2
    echo "  SDK_INCLUDE_DIR holds rocprofiler-sdk/rocprofiler.h (e.g. /opt/rocm/include);" >&2
    echo "  each -I DIR is searched after it (HSA, HIP, hsakmt, experimental/kernel_replay.h)." >&2
    exit 2
}

extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        -I) [ $# -ge 2 ] || usage; extra+=("-I$2"); shift 2 ;;
        -I*) extra+=("$1"); shift ;;
        -h|--help) usage ;;
        -*) echo "$0: unknown option $1" >&2; usage ;;
        *) break ;;
    esac
done
[ $# -eq 1 ] || usage
sdk=$1
if [ ! -f "$sdk/rocprofiler-sdk/rocprofiler.h" ]; then
    echo "$0: $sdk/rocprofiler-sdk/rocprofiler.h does not exist: give the directory that holds rocprofiler-sdk/" >&2
    exit 2
fi
for d in "${extra[@]+"${extra[@]}"}"; do
    [ -d "${d#-I}" ] || { echo "$0: -I ${d#-I}: not a directory" >&2; exit 2; }
done

root=$(cd "$(dirname "$0")/.." && pwd)
emu="$root/tool/rocm-emulator/include"
CXX=${CXX:-c++}
CC=${CC:-cc}
# The SDK's HIP headers need a platform; rocprofiler-sdk's own build defines this one.
defs=(-D__HIP_PLATFORM_AMD__)
incs=(-I"$sdk" "${extra[@]+"${extra[@]}"}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

echo "1. tool/rocm against $sdk"
for src in "$root"/tool/rocm/*.cpp "$root"/tool/rocm-emulator/tests/*_tool.cpp; do
    if "$CXX" -std=c++17 -fsyntax-only "${defs[@]}" -I"$root/tool/rocm" -I"$root/tool/core" -I"$root/tool/replay" \
        -I"$root/tool/include" "${incs[@]}" "$src" 2>"$tmp/err"; then
        echo "   ok     ${src#"$root"/}"
    else
        echo "   FAILED ${src#"$root"/}:"
        grep -m 5 'error' "$tmp/err" | sed 's/^/          /'
        failed=1
    fi
done

echo "2. the emulator's ABI test (C11) against $sdk"
if "$CC" -std=c11 -fsyntax-only "${defs[@]}" "${incs[@]}" "$root/tool/rocm-emulator/tests/abi_test.c" 2>"$tmp/err"; then
    echo "   ok     tool/rocm-emulator/tests/abi_test.c"
else
    echo "   FAILED tool/rocm-emulator/tests/abi_test.c:"
    grep -m 10 'error' "$tmp/err" | sed 's/^/          /'
    failed=1
fi

# The rocprofiler names a translation unit that includes only <rocprofiler-sdk/H> can see.
visible() {
    printf '#include <rocprofiler-sdk/%s>\n' "$2" |
        "$CXX" -std=c++17 -x c++ -E -dD "${defs[@]}" "${@:3}" -I"$1" - 2>/dev/null |
        grep -oE '\b(rocprofiler_[a-z0-9_]+|ROCPROFILER_[A-Z0-9_]+)\b' | grep -vE '^ROCPROFILER_SDK_.*_H$' | sort -u
}
real_version=$(printf '#include <rocprofiler-sdk/version.h>\nROCPROFILER_VERSION\n' |
    "$CC" -E -P "${incs[@]}" - 2>/dev/null | tail -n 1 | tr -d ' ()' || true)
# The macro expands to arithmetic (10000 * major + ...); evaluate it when it is nothing else.
if [[ "$real_version" =~ ^[0-9*+]+$ ]]; then real_version=$((real_version)); else real_version=""; fi
# 1.4's names, allowed when the real tree is older.
v14='^(ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH|ROCPROFILER_STATUS_ERROR_CONFIG_NOT_FOUND|ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_REGISTER_VERSION)$'
replay='KERNEL_REPLAY|kernel_replay'

echo "3. names each emulator header makes visible, against the real header (real ROCPROFILER_VERSION ${real_version:-unknown})"
while IFS= read -r h; do
    [ -f "$sdk/rocprofiler-sdk/$h" ] || [ -n "$(find "${extra[@]/#-I/}" -path "*/rocprofiler-sdk/$h" 2>/dev/null | head -n 1)" ] || {
        case "$h" in
            experimental/kernel_replay.h) echo "   allowed $h: the real tree has no replay header" ;;
            *) echo "   FAILED $h: the emulator has it, the real tree does not"; failed=1 ;;
        esac
        continue
    }
    visible "$emu" "$h" >"$tmp/emu"
    visible "$sdk" "$h" "${extra[@]+"${extra[@]}"}" >"$tmp/real"
    comm -23 "$tmp/emu" "$tmp/real" >"$tmp/extra"
    bad=$(grep -vE "$replay" "$tmp/extra" || true)
    if [ -n "${real_version}" ] && [ "${real_version}" -lt 10400 ] 2>/dev/null; then
        bad=$(printf '%s\n' "$bad" | grep -vE "$v14" || true)
    fi
    allowed=$(grep -cE "$replay" "$tmp/extra" || true)
    if [ -z "$bad" ]; then
        note=""
        [ "$allowed" -gt 0 ] && note=" ($allowed replay-domain names the real tree lacks)"
        echo "   ok     $h$note"
    else
        echo "   FAILED $h: visible through the emulator's, not through the real one:"
        printf '%s\n' "$bad" | sed 's/^/          /'
        failed=1
    fi
done < <(cd "$emu/rocprofiler-sdk" && find . -name '*.h' | sed 's|^\./||' | sort)

if [ "$failed" -ne 0 ]; then
    echo "rocm-headers-check: FAILED"
    exit 1
fi
echo "rocm-headers-check: ok"
