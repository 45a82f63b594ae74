#!/bin/sh
# perch(1) from perch's own --help: the man page says what the binary says.
# Usage: tools/manpage.sh PERCH > perch.1
# The usage lines become the SYNOPSIS, the first paragraph the DESCRIPTION,
# and every other paragraph of --help follows verbatim (preformatted), so
# nothing in the page can drift from the program.
set -e
perch=$1
version=$("$perch" --version | sed -n '1s/^perch //p')
date=$(date -u -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}" +%Y-%m-%d)

# roff-escape a preformatted line: backslashes, and a leading . or '.
escape() { sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

cat <<HEAD
.TH PERCH 1 "$date" "perch $version" "User Commands"
.SH NAME
perch \\- run a Xen-PV kernel as a paravirtual guest on /dev/kvm, without VT-x
.SH SYNOPSIS
.nf
HEAD
"$perch" --help | awk '/^$/ { exit } { sub(/^usage: /, ""); sub(/^       /, ""); print }' | escape
cat <<'MID'
.fi
.SH DESCRIPTION
MID
# The rest of --help, a paragraph at a time: prose paragraphs flow, the
# option lists and tables (indented lines) stay as they are.
"$perch" --help | awk 'f { print } /^$/ && !f { f = 1 }' | escape | awk '
    function flush() {
        if (!n) return
        print (pre ? ".PP\n.nf" : ".PP")
        for (i = 1; i <= n; i++) print lines[i]
        if (pre) print ".fi"
        n = 0; pre = 0
    }
    /^$/ { flush(); next }
    { lines[++n] = $0; if ($0 ~ /^ / || $0 ~ /:$/) pre = 1 }
    END { flush() }'
cat <<'TAIL'
.SH FILES
.TP
.I $XDG_CACHE_HOME/perch \fRor\fP ~/.cache/perch
Debian's cloud kernel, its modules and busybox, fetched once with apt; the
root file systems perch image builds.
.SH SEE ALSO
.BR qemu-system-x86_64 (1),
.BR gdb (1),
.BR xl (1)
TAIL
