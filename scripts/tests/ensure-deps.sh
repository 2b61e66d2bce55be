#!/usr/bin/env bash
# ensure-deps.sh refuses a Go older than go.mod's release with a message naming both, passes the
# go.mod release itself, and the README states the release go.mod names.
set -euo pipefail
cd "$(dirname "$0")/../.."
needed=$(sed -n 's/^go \([0-9][0-9.]*\)$/\1/p' go.mod)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL ensure-deps: $*" >&2; exit 1; }

# fake_go VERSION: a go that reports VERSION and cannot fetch another toolchain.
fake_go() {
  printf '#!/bin/sh\ncase "$*" in "env GOVERSION") echo go%s ;; *) exit 1 ;; esac\n' "$1" >"$tmp/go"
  chmod +x "$tmp/go"
}

fake_go 1.24.3
if GO=$tmp/go ./scripts/ensure-deps.sh go 2>"$tmp/err"; then fail "accepted go 1.24.3 for go.mod's $needed"; fi
grep -q "go $needed or newer" "$tmp/err" || fail "message does not name $needed: $(cat "$tmp/err")"
grep -q "1.24.3" "$tmp/err" || fail "message does not name the go found: $(cat "$tmp/err")"

fake_go "$needed"
GO=$tmp/go ./scripts/ensure-deps.sh go 2>"$tmp/err" || fail "refused go $needed itself: $(cat "$tmp/err")"

GO=$tmp/missing-go ./scripts/ensure-deps.sh go 2>"$tmp/err" && fail "accepted a missing go"
grep -q "$needed or newer" "$tmp/err" || fail "missing-go message does not name $needed"

grep -q "Go $needed or newer" README.md || fail "README.md does not state Go $needed"
echo "ok ensure-deps"
