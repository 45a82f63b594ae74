# perch's command line: --help tells the truth, and each mistake gets one
# 'perch: ...' line, status 2 (bad command line) and nothing left running.
. tests/cli/helpers.bash

# --- help and version ---
for args in --help -h help "run --help" "bench --help" "bench -h" "save --help" "restore -h" \
    "image --help" "cpu --help" "list --help" "shutdown --help" "mem-set --help"; do
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
# own parser in bench_parse.c) and `perch image`'s (image.c) is in --help ...
options=$( {
    sed -n 's/^ *{ *"\([^"]*\)", *[a-z_]*_argument.*/--\1/p' launcher/run/cli.c
    sed -n 's/.*getopt_long([^"]*"\([^"]*\)".*/\1/p' launcher/run/cli.c |
        tr -d : | grep -o . | sed 's/^/-/'
    grep -o 'strcmp(argv\[[a-z0-9]*\], "-[^"]*")' launcher/run/cli.c | cut -d'"' -f2
    grep -ho 'strcmp(a, "--[^"]*")' launcher/bench/bench.c launcher/bench/bench_parse.c \
        launcher/image/image.c | cut -d'"' -f2
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
expect_line unknown_long_option err "unknown option '--bogus' \\(try 'perch --help'\\)\$"

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

# QEMU's -m spellings: a fraction must still be whole MiB; above the
# limit, the limit is named.
perch_run mem_not_whole_mib run -m 1.0001G "$HELLO"
expect_error mem_not_whole_mib 2 "--mem 1.0001G is not a whole number of MiB"
perch_run mem_65g run -m 65G "$HELLO"
expect_error mem_65g 2 "--mem 65G is too large \(at most 65536 MiB\)"
# More than the host has is refused before anything is built, naming the
# host's figure.
host_mib=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
if [ "$host_mib" -lt 65536 ]; then
    perch_run mem_over_host run -m 64G "$HELLO"
    expect_error mem_over_host 1 "--mem 65536 MiB is more than this host's memory \($host_mib MiB\)"
fi

# --name, perch list and perch shutdown: their words checked first.
for bad in '' 123 'a b' 'a/b' "$(printf 'x%.0s' $(seq 1 33))"; do
    name=name_bad_${#bad}
    perch_run "$name" run --name "$bad" "$HELLO"
    expect_error "$name" 2 "--name '.*' is not 1 to 32"
done
perch_run list_extra list now
expect_error list_extra 2 "perch list takes no arguments"
perch_run shutdown_none shutdown
expect_error shutdown_none 2 "perch shutdown needs one GUEST"
perch_run shutdown_two shutdown a b
expect_error shutdown_two 2 "perch shutdown needs one GUEST"

perch_run mem_missing_value run "$HELLO" --mem
expect_error mem_missing_value 2 "--mem.*needs a value"

perch_run m_missing_value run "$HELLO" -m
expect_error m_missing_value 2 "-m.*needs a value"

# --cpus N, and QEMU's -smp N: 1 to MAX_CPUS vCPUs. --help ends the parse
# with status 0, so a count that parses is seen without booting a guest.
max_cpus=$(sed -n 's/^#define MAX_CPUS \([0-9]*\).*/\1/p' launcher/run/cli.h)
[ -n "$max_cpus" ] || fail cpus/max_parsed "no #define MAX_CPUS in launcher/run/cli.h"
expect_line help_--help out "^  --cpus N, -smp N +guest vCPUs, each on its own host thread \\(1 to $max_cpus,\$"
expect_line help_--help out '^ +default 1; -smp, or --smp, is QEMU'"'"'s spelling'
for args in "--cpus 1" "--cpus $max_cpus" "--cpus=2" "-smp 2" "-smp $max_cpus" "--smp 3"; do
    name=cpus_parses_$(echo "$args" | tr -c 'a-z0-9\n' _)
    perch_run "$name" run $args --help
    expect_status "$name" 0
    expect_line "$name" out '^usage: perch run'
done
# cpus_bad SPELLING VALUE REGEX: perch run SPELLING VALUE is refused.
cpus_bad() {
    local name=cpus_bad_$(echo "$1_$2" | tr -c 'a-z0-9\n' _)
    perch_run "$name" run "$1" "$2" "$HELLO"
    expect_error "$name" 2 "$3"
}
for spelling in --cpus -smp; do
    cpus_bad $spelling 0 "$spelling must be at least 1 vCPU"
    cpus_bad $spelling $((max_cpus + 1)) "$spelling $((max_cpus + 1)) is too many vCPUs \\(at most $max_cpus\\)"
    cpus_bad $spelling 99999999999999999999 "$spelling 99999999999999999999 is too many vCPUs"
    cpus_bad $spelling '' "$spelling needs a number of vCPUs \\(1 to $max_cpus\\)"
    for bad in x 2x -1 ' 2' 0x2 2,cores=2; do
        cpus_bad $spelling "$bad" "$spelling '$bad' is not a number of vCPUs \\(1 to $max_cpus\\)"
    done
done
perch_run cpus_empty_equals run --cpus= "$HELLO"
expect_error cpus_empty_equals 2 "--cpus needs a number of vCPUs"
perch_run cpus_missing_value run "$HELLO" --cpus
expect_error cpus_missing_value 2 "option --cpus needs a value"
perch_run smp_missing_value run "$HELLO" -smp
expect_error smp_missing_value 2 "option -smp needs a value"
# QEMU takes no -smp=N either: said so, not "unknown option '-s'".
perch_run smp_equals run -smp=2 "$HELLO"
expect_error smp_equals 2 "-smp takes its number as the next word"
# Another option's value stays as it is: this -smp is --cmdline's, and the
# second one is the option.
perch_run smp_as_a_value run --cmdline -smp -smp x "$HELLO"
expect_error smp_as_a_value 2 "-smp 'x' is not a number"
perch_run smp_as_mem_value run -m -smp "$HELLO"
expect_error smp_as_mem_value 2 "--mem '-smp' is not a number"
# --cpus is not an abbreviation of --cpu-profile's any more, nor the other
# way round: --cpu is both.
perch_run cpu_ambiguous run --cpu 2 "$HELLO"
expect_error cpu_ambiguous 2 "unknown option '--cpu'"
# One option, two spellings: given once each is twice.
perch_run cpus_and_smp run --cpus 2 -smp 2 "$HELLO"
expect_error cpus_and_smp 2 "option --cpus given twice \\(as --cpus and -smp\\)"
perch_run smp_and_cpus run -smp 2 --cpus=2 "$HELLO"
expect_error smp_and_cpus 2 "option --cpus given twice \\(as -smp and --cpus\\)"

# More vCPUs than the host's online cores: allowed, and said once, one line,
# before the launch goes on (here to a kernel that is not there: no guest).
cores=$(getconf _NPROCESSORS_ONLN)
if [ "$cores" -lt "$max_cpus" ]; then
    perch_run cpus_over_cores run --cpus $((cores + 1)) "$TMP/no_such_kernel"
    expect_status cpus_over_cores 1
    [ "$cores" -eq 1 ] && unit=core || unit=cores
    if [ "$(wc -l <"$TMP/cpus_over_cores.err")" -eq 2 ] &&
       [ "$(head -1 "$TMP/cpus_over_cores.err")" = "perch: note: $((cores + 1)) vCPUs on $cores host $unit: they will share them" ] &&
       sed -n 2p "$TMP/cpus_over_cores.err" | grep -q '^perch: .*no_such_kernel.*No such file'; then
        pass cpus_over_cores/note_then_error
    else
        fail cpus_over_cores/note_then_error "stderr was: $(head -c 300 "$TMP/cpus_over_cores.err")"
    fi
else
    echo "SKIP cpus_over_cores: $cores host cores, at least --cpus's $max_cpus"
fi
# As many as the cores: no note, only the launch's own error.
cpus=$((cores < max_cpus ? cores : max_cpus))
perch_run cpus_within_cores run --cpus "$cpus" "$TMP/no_such_kernel"
expect_error cpus_within_cores 1 'no_such_kernel.*No such file'

perch_run extra_argument run "$HELLO" extra
expect_error extra_argument 2 "unexpected argument 'extra'"

perch_run extra_argument_with_kernel_option run --kernel "$HELLO" extra
expect_error extra_argument_with_kernel_option 2 "unexpected argument 'extra'"

# A value option given twice is refused, whichever spelling: last-wins
# would quietly drop one of the values.
for args in "--mem 64 --mem 128" "-m 64 --mem 128" "--mem=64 -m128" \
            "--kernel $HELLO --kernel $HELLO" "--initrd $HELLO --initrd $HELLO" \
            "--cmdline a --cmdline b" "--cmdline= --cmdline=" \
            "--cpus 2 --cpus 2" "--cpus=1 --cpus 64" "-smp 2 -smp 2"; do
    opt=${args%% *}
    opt=${opt%%=*}
    [ "$opt" = -m ] && opt=--mem
    name=twice_$(echo "$args" | tr -c 'a-z0-9\n' _)
    perch_run "$name" run $args "$HELLO"
    expect_error "$name" 2 "option $opt given twice"
done
