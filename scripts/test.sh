#!/bin/sh
# `npm test` after the build: the tests' type check (tsc, about 25 s of one
# core) runs beside vitest instead of before it, since most of the suite's
# time is spent waiting on the processes its tests drive. Its output is
# printed once it is done, and the run fails if either fails.
set -u
log=$(mktemp)
tsc -p test/tsconfig.json --noEmit > "$log" 2>&1 &
typecheck=$!
vitest run "$@"
tests=$?
wait "$typecheck"
types=$?
if [ "$types" -ne 0 ]; then
	echo "npm test: the tests' type check (tsc -p test/tsconfig.json --noEmit) failed:" >&2
	cat "$log" >&2
fi
rm -f "$log"
[ "$tests" -eq 0 ] && [ "$types" -eq 0 ]
