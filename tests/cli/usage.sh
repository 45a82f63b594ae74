# perch's command line: --help tells the truth, and each mistake gets one
# 'perch: ...' line, status 2 (bad command line) and nothing left running.
. tests/cli/helpers.bash

# --- help and version ---
for args in --help -h help "run --help"; do
    name=help_${args// /_}
    perch_run "$name" $args
    expect_status "$name" 0
    expect_line "$name" out '^usage: perch run'
done
perch_run version --version
expect_status version 0
expect_line version out '^perch [0-9]'

# Every option cli.c accepts (the longopts table, getopt_long's short
# options, the ones cli_parse compares by hand) and `perch bench`'s (its
# own parser in bench.c) and `perch image`'s (image.c) is in --help ...
options=$( {
    sed -n 's/^ *{ *"\([^"]*\)", *[a-z_]*_argument.*/--\1/p' launcher/run/cli.c
    sed -n 's/.*getopt_long([^"]*"\([^"]*\)".*/\1/p' launcher/run/cli.c |
        tr -d : | grep -o . | sed 's/^/-/'
    grep -o 'strcmp(argv\[1\], "-[^"]*")' launcher/run/cli.c | cut -d'"' -f2
    grep -ho 'strcmp(a, "--[^"]*")' launcher/bench/bench.c launcher/image/image.c | cut -d'"' -f2
} | sort -u)
if [ "$(echo "$options" | grep -c '^--')" -ge 5 ]; then
    pass help/options_parsed
else
    fail help/options_parsed "found only '$options' in launcher/run/cli.c"
fi
for opt in $options; do
    if grep -Eq -- "(^|[^-[:alnum:]])$opt([^-[:alnum:]]|\$)" "$TMP/help_--help.out"; then
        pass "help/mentions/$opt"
    else
        fail "help/mentions/$opt" "cli.c accepts $opt but --help does not say so"
    fi
done
# ... and --help names no option that cli.c does not accept.
unknown=$(grep -Eo -- '--[a-z][-a-z0-9]*' "$TMP/help_--help.out" | sort -u |
          grep -vxF -- "$options")
if [ -z "$unknown" ]; then
    pass help/no_unknown_options
else
    fail help/no_unknown_options "--help mentions $unknown, which cli.c does not accept"
fi

# Every exit status of launcher/base/status.h is in --help's "exit status:" list.
statuses=$(sed -n 's/^ *STATUS_[A-Z_]* *= *\([0-9]*\),.*/\1/p' launcher/base/status.h)
[ -n "$statuses" ] || fail help/statuses_parsed "no STATUS_* = N in launcher/base/status.h"
sed -n '/^exit status:/,$p' "$TMP/help_--help.out" >"$TMP/help_statuses"
for n in $statuses; do
    if grep -Eq "(^|[[:space:]])$n[[:space:]]+[a-z]" "$TMP/help_statuses"; then
        pass "help/status/$n"
    else
        fail "help/status/$n" "exit status $n is not listed under 'exit status:'"
    fi
done

# --- mistakes ---
perch_run no_args
expect_error no_args 2 'no command'

perch_run unknown_command frobnicate "$HELLO"
expect_error unknown_command 2 "unknown command 'frobnicate'"

perch_run unknown_long_option run --bogus "$HELLO"
expect_error unknown_long_option 2 "unknown option '--bogus'"

# The usage hint rides on the one line.
expect_line unknown_long_option err "^perch: unknown option '--bogus' \\(try 'perch --help'\\)\$"

perch_run unknown_short_option run -q "$HELLO"
expect_error unknown_short_option 2 "unknown option '-q'"

# Unknown short options grouped in one word: the message names one of them.
perch_run unknown_short_options_grouped run -qz "$HELLO"
expect_error unknown_short_options_grouped 2 "unknown option '-[qz]"

# (`perch run` with no KERNEL is fine: it boots Debian's kernel.)
perch_run dashdash_without_command run --
expect_error dashdash_without_command 2 "nothing after '--'"

perch_run dashdash_without_command_with_kernel run --mem 64 "$HELLO" --
expect_error dashdash_without_command_with_kernel 2 "nothing after '--'"

perch_run initrd_with_command run --initrd "$HELLO" "$HELLO" -- /bin/true
expect_error initrd_with_command 2 "--initrd and -- CMD"

perch_run initrd_with_command_no_kernel run --initrd "$HELLO" -- ls -l
expect_error initrd_with_command_no_kernel 2 "--initrd and -- CMD"

# Options after -- are the command's, not perch's.
perch_run command_options_not_perchs run --bogus -- ls --bogus
expect_error command_options_not_perchs 2 "unknown option '--bogus'"

for bad in abc 12x -5 '' ' 64' 0x10; do
    name=mem_not_a_number_${bad:-empty}
    name=${name// /_}
    perch_run "$name" run --mem "$bad" "$HELLO"
    expect_error "$name" 2 "--mem.*number"
done

perch_run mem_empty_equals run --mem= "$HELLO"
expect_error mem_empty_equals 2 "--mem.*number"

perch_run mem_zero run --mem 0 "$HELLO"
expect_error mem_zero 2 "--mem.*at least 1"

for big in 65537 999999999999 99999999999999999999999999; do
    perch_run "mem_too_large_$big" run --mem "$big" "$HELLO"
    expect_error "mem_too_large_$big" 2 "--mem.*too large"
done

perch_run mem_missing_value run "$HELLO" --mem
expect_error mem_missing_value 2 "--mem.*needs a value"

perch_run m_missing_value run "$HELLO" -m
expect_error m_missing_value 2 "-m.*needs a value"

perch_run extra_argument run "$HELLO" extra
expect_error extra_argument 2 "unexpected argument 'extra'"

perch_run extra_argument_with_kernel_option run --kernel "$HELLO" extra
expect_error extra_argument_with_kernel_option 2 "unexpected argument 'extra'"

# A value option given twice is refused, whichever spelling: last-wins
# would quietly drop one of the values.
for args in "--mem 64 --mem 128" "-m 64 --mem 128" "--mem=64 -m128" \
            "--kernel $HELLO --kernel $HELLO" "--initrd $HELLO --initrd $HELLO" \
            "--cmdline a --cmdline b" "--cmdline= --cmdline="; do
    opt=${args%% *}
    opt=${opt%%=*}
    [ "$opt" = -m ] && opt=--mem
    name=twice_$(echo "$args" | tr -c 'a-z0-9\n' _)
    perch_run "$name" run $args "$HELLO"
    expect_error "$name" 2 "option $opt given twice"
done
