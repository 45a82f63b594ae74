#!/usr/bin/env bash
# The fuzz harnesses' smoke pass in `make test`: each runs for 2 seconds
# from its checked-in seeds alone (tests/fuzz/run.sh, into
# build/fuzz-smoke/, apart from make fuzz's build/fuzz/), so a harness that
# no longer builds, or an input that crashes, fails the test run; SKIP
# without clang (make test installs it, as root: tools/install-deps.sh).
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
rm -rf build/fuzz-smoke
tests/fuzz/run.sh 2 build/fuzz-smoke build/fuzz/fuzz_*
