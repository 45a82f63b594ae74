# launcher/ is in rooms (issue: the Launcher's files in rooms): no source
# file beside main.c at its top, a README.md in every room saying what it
# owns and what it may call, every include across rooms named in that
# README, and no circle between rooms.
. tests/lib.sh

loose=$(find launcher -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' -o -name '*.S' \) ! -name main.c)
if [ -z "$loose" ]; then pass rooms/top_level; else fail rooms/top_level "files outside a room: $loose"; fi

: >"$TMP/edges"
for dir in launcher/*/; do
    room=$(basename "$dir")
    if [ -s "$dir/README.md" ]; then pass "rooms/$room/readme"; else fail "rooms/$room/readme" "no README.md"; fi
    for other in $(grep -ho '#include "\.\./[a-z_]*/' "$dir"*.[chS] 2>/dev/null | sed 's|#include "\.\./||; s|/$||' | sort -u); do
        [ "$other" = "$room" ] && continue
        echo "$room $other" >>"$TMP/edges"
        if grep -q "\b$other/" "$dir/README.md"; then
            pass "rooms/$room/calls_$other"
        else
            fail "rooms/$room/calls_$other" "includes from $other/, which its README does not name"
        fi
    done
done
if tsort "$TMP/edges" >/dev/null 2>"$TMP/tsort.err"; then
    pass rooms/no_circle
else
    fail rooms/no_circle "$(tr '\n' ' ' <"$TMP/tsort.err")"
fi
