# launcher/ and host/ are in rooms (issues: the Launcher's files in rooms,
# the Host in rooms): no source file at a tree's top but the one it allows
# (launcher/main.c, host/host.lds.S), a README.md in every room saying what
# it owns and what it may call, every include across rooms named in that
# README, and no circle between rooms: includes point down one order.
. tests/lib.sh

# check_rooms TREE PREFIX ALLOWED: the checks above for TREE/*/, named
# PREFIX/...; ALLOWED is the one source file TREE's top may hold. The rooms'
# edges ("room other", one per line) are left in $TMP/TREE.edges.
check_rooms() {
    local tree=$1 prefix=$2 allowed=$3 loose dir room other
    loose=$(find "$tree" -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' -o -name '*.S' \) ! -name "$allowed")
    if [ -z "$loose" ]; then pass "$prefix/top_level"; else fail "$prefix/top_level" "files outside a room: $loose"; fi

    : >"$TMP/$tree.edges"
    for dir in "$tree"/*/; do
        room=$(basename "$dir")
        if [ -s "$dir/README.md" ]; then pass "$prefix/$room/readme"; else fail "$prefix/$room/readme" "no README.md"; fi
        for other in $(grep -ho '#include "\.\./[a-z0-9_]*/' "$dir"*.[chS] 2>/dev/null | sed 's|#include "\.\./||; s|/$||' | sort -u); do
            [ "$other" = "$room" ] && continue
            echo "$room $other" >>"$TMP/$tree.edges"
            if grep -q "\b$other/" "$dir/README.md"; then
                pass "$prefix/$room/calls_$other"
            else
                fail "$prefix/$room/calls_$other" "includes from $other/, which its README does not name"
            fi
        done
    done
}

# no_circle TREE PREFIX: TREE's rooms, as check_rooms left their edges, in
# an order where each includes only from rooms below it.
no_circle() {
    local tree=$1 prefix=$2
    if tsort "$TMP/$tree.edges" >/dev/null 2>"$TMP/$tree.tsort"; then
        pass "$prefix/no_circle"
    else
        fail "$prefix/no_circle" "$(tr '\n' ' ' <"$TMP/$tree.tsort")"
    fi
}

check_rooms launcher rooms main.c
no_circle launcher rooms
check_rooms host rooms/host host.lds.S
no_circle host rooms/host
