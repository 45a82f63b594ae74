#!/usr/bin/env bash
# perch, with the options PERCH_WITH names added to every `perch run` whose
# own options do not already choose the first of them (for --cpus, QEMU's
# -smp too): `make test-cpus` (PERCH_WITH="--cpus N") and `make
# test-trap-hypercalls` (PERCH_WITH=--trap-hypercalls) run the Linux tests
# through it. PERCH_REAL is the perch to run.
perch=${PERCH_REAL:-build/perch}
read -r -a with <<<"${PERCH_WITH:-}"
if [ "${1:-}" != run ] || [ ${#with[@]} -eq 0 ]; then
    exec "$perch" "$@"
fi
shift
for a in "$@"; do
    case $a in
    --) break ;;
    "${with[0]}" | "${with[0]}"=*) exec "$perch" run "$@" ;;
    -smp | --smp) [ "${with[0]}" = --cpus ] && exec "$perch" run "$@" ;;
    esac
done
exec "$perch" run "${with[@]}" "$@"
