#!/usr/bin/env bash
# The builds `make test` ran printed no compiler warning: the tool build and the ASan+UBSan and TSan
# builds (their logs under build/logs hold what each compiled this time; a clean clone compiles all).
set -euo pipefail
cd "$(dirname "$0")/../.."
logs=${BUILD:-build}/logs
status=0
for log in "$logs"/tool-build.log "$logs"/asan-build.log "$logs"/tsan-build.log; do
  [ -f "$log" ] || { echo "FAIL build-warnings: $log is missing (run make test)" >&2; exit 1; }
  if grep -q "warning:" "$log"; then
    grep -m 5 "warning:" "$log" >&2
    echo "FAIL build-warnings: $log has $(grep -c "warning:" "$log") warning lines" >&2
    status=1
  fi
done
[ $status -eq 0 ] && echo "ok build-warnings (tool, asan, tsan)"
exit $status
