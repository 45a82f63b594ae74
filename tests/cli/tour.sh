# `make tour` (tests/tour.sh): every path's steps are numbered 1..N with no
# gap or repeat, each path has steps, and each marker stands at the file and
# line the tour names.
. tests/lib.sh

tests/tour.sh >"$TMP/tour.out" 2>&1
for path in syscall fault multicall; do
    steps=$(sed -n "/^== $path\$/,/^== /{/^ *[0-9]/p}" "$TMP/tour.out" | awk '{ print $1 }')
    n=$(echo "$steps" | grep -c .)
    want=$(seq 1 "$n")
    if [ "$n" -ge 5 ] && [ "$steps" = "$want" ]; then
        pass "tour/$path/steps_1_to_$n"
    else
        fail "tour/$path/steps" "steps are: $(echo $steps)"
    fi
done
bad=0
while read -r step where text; do
    file=${where%:*} line=${where##*:}
    sed -n "${line}p" "$file" 2>/dev/null | grep -q "tour [a-z]*\.$step:" || bad=$((bad + 1))
done < <(grep -E '^ *[0-9]+ ' "$TMP/tour.out")
if [ "$bad" -eq 0 ]; then pass tour/markers_where_named; else fail tour/markers_where_named "$bad markers not at their line"; fi
