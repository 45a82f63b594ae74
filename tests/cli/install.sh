# `make install` and `make uninstall` into a scratch DESTDIR: the binary
# runs from there, outside the source tree; perch(1) renders without a
# warning and names every option --help names; bash completion offers
# the installed perch's own options; uninstall leaves nothing behind.
. tests/lib.sh

dest=$TMP/dest
bin=$dest/usr/bin/perch
man=$dest/usr/share/man/man1/perch.1
comp=$dest/usr/share/bash-completion/completions/perch

if make --no-print-directory install-files DESTDIR="$dest" PREFIX=/usr >"$TMP/install.log" 2>&1 &&
   [ -x "$bin" ] && [ -f "$man" ] && [ -f "$comp" ]; then
    pass install/files
else
    fail install/files "$(tail -c 300 "$TMP/install.log")"
fi
if (cd "$TMP" && "$bin" --version) | grep -q '^perch [0-9]'; then
    pass install/runs_outside_the_tree
else
    fail install/runs_outside_the_tree "$bin --version from $TMP"
fi

if command -v groff >/dev/null; then
    if groff -man -Tutf8 -ww "$man" >"$TMP/man.txt" 2>"$TMP/man.err" && [ ! -s "$TMP/man.err" ]; then
        pass install/man_renders
    else
        fail install/man_renders "$(head -c 300 "$TMP/man.err")"
    fi
    # Every --option of --help, as the reader sees it on the page.
    missing=$("$bin" --help | grep -o -- '--[a-z0-9-]*' | sort -u | while read -r o; do
        grep -q -- "$o" "$TMP/man.txt" || echo "$o"; done)
    if [ -z "$missing" ]; then pass install/man_names_every_option
    else fail install/man_names_every_option "missing: $missing"; fi
else
    echo "SKIP install/man_renders: no groff"
fi

# complete WORDS...: what _perch offers for the last word, the installed
# perch first in PATH.
complete_words() {
    PATH=$dest/usr/bin:$PATH bash -c '. "$1"; shift; COMP_WORDS=("$@");
        COMP_CWORD=$(($# - 1)); _perch; printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$@"
}
got=$(complete_words perch ru | tr '\n' ' ')
if [ "$got" = "run " ]; then pass install/complete_subcommand
else fail install/complete_subcommand "got '$got'"; fi
got=$(complete_words perch run --trap | tr '\n' ' ')
if [ "$got" = "--trap-hypercalls " ]; then pass install/complete_run_option
else fail install/complete_run_option "got '$got'"; fi
got=$(complete_words perch bench --q | tr '\n' ' ')
if [ "$got" = "--quick --qemu " ]; then pass install/complete_bench_option
else fail install/complete_bench_option "got '$got'"; fi

if make --no-print-directory uninstall DESTDIR="$dest" PREFIX=/usr >"$TMP/uninstall.log" 2>&1 &&
   [ -z "$(find "$dest" -type f)" ]; then
    pass install/uninstall_leaves_nothing
else
    fail install/uninstall_leaves_nothing "left: $(find "$dest" -type f | head -c 300)"
fi
