#!/usr/bin/env bash
# perch, with `--cpus ${PERCH_CPUS:-2}` added to every `perch run` that does
# not choose its own vCPUs: `make test-cpus` runs the Linux tests through
# it, so each also runs on several vCPUs. PERCH_REAL is the perch to run.
perch=${PERCH_REAL:-build/perch}
if [ "${1:-}" != run ]; then
    exec "$perch" "$@"
fi
shift
for a in "$@"; do
    case $a in
    --cpus | --cpus=* | -smp | --smp) exec "$perch" run "$@" ;;
    --) break ;;
    esac
done
exec "$perch" run --cpus "${PERCH_CPUS:-2}" "$@"
