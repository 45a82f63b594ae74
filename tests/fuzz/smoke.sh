#!/usr/bin/env bash
# The fuzz harnesses' smoke pass in `make test`: each runs for 2 seconds
# from its checked-in seeds alone (tests/fuzz/run.sh), so a harness that no
# longer builds, or an input that crashes, fails the test run; SKIP without
# clang (.ci/run installs it).
set -u
cd "$(dirname "$0")/../.."
if ! command -v clang >/dev/null 2>&1; then
    echo "SKIP fuzz: clang is not installed"
    exit 0
fi
make -s fuzz-build >build/fuzz-build.log 2>&1 || {
    echo "FAIL fuzz/build: make fuzz-build failed (log: build/fuzz-build.log)"
    exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tests/fuzz/run.sh 2 "$work" build/fuzz/fuzz_*
