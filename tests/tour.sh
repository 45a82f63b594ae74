#!/usr/bin/env bash
# Prints the tour (`make tour`): every "tour PATH.N: text" marker in perch's
# code, path by path in docs/design.md's order, steps in number order, each
# with the file and line where it stands.
set -u
cd "$(dirname "$0")/.."

for path in syscall fault multicall; do
    echo "== $path"
    grep -rn --include='*.[chS]' "tour $path\.[0-9]*:" host switcher launcher abi |
        sed "s#^\([^:]*:[0-9]*\):.*tour $path\.\([0-9]*\): *\(.*\)#\2\t\1\t\3#; s# *\*/ *\$##" |
        sort -n -k1,1 | awk -F'\t' '{ printf "%3s  %-28s %s\n", $1, $2, $3 }'
done
