# Kernel and initrd files perch cannot use: each gets one 'perch: ...' line
# naming the file, status 1 and nothing left running.
. tests/cli/helpers.bash

# The bad files, made from hello.elf where possible.
mkdir "$TMP/a_directory"
: >"$TMP/empty"
echo 'just some text, not a kernel' >"$TMP/text"
printf '.globl _start\n_start: ret\n' >"$TMP/elf32.s"
as --32 -o "$TMP/elf32.o" "$TMP/elf32.s" && ld -m elf_i386 -o "$TMP/elf32" "$TMP/elf32.o" ||
    fail elf32_build "cannot build a 32-bit ELF with as/ld"
head -c 100 "$HELLO" >"$TMP/truncated_100"
# Cut in the middle of the first loadable segment's file bytes. (Cutting
# hello.elf in half only drops debug info and section headers, which a
# loader does not need.)
read -r off size < <(readelf -lW "$HELLO" | awk '$1 == "LOAD" && $5 !~ /^0x0*$/ { print $2, $5; exit }')
head -c $((off + size / 2)) "$HELLO" >"$TMP/truncated_segment"
cp "$HELLO" "$TMP/bad_magic"
printf 'X' | dd of="$TMP/bad_magic" bs=1 seek=1 conv=notrunc status=none

# check NAME FILE REGEX: perch run FILE fails with status 1 and a message
# naming FILE and matching REGEX.
check() {
    perch_run "$1" run "$2"
    expect_error "$1" 1 "${2##*/}.*($3)"
}

check kernel_missing "$TMP/no_such_file" 'No such file'
check kernel_directory "$TMP/a_directory" 'not a regular file'
mkfifo "$TMP/a_fifo"
check kernel_fifo "$TMP/a_fifo" 'not a regular file'
check kernel_empty "$TMP/empty" 'not an ELF'
check kernel_text "$TMP/text" 'not an ELF'
check kernel_elf32 "$TMP/elf32" '64-bit'
check kernel_without_xen_notes /bin/true 'Xen'
check kernel_truncated_100 "$TMP/truncated_100" 'truncated|past end'
check kernel_truncated_segment "$TMP/truncated_segment" 'truncated|past end'
check kernel_bad_magic "$TMP/bad_magic" 'not an ELF'

# hello.elf needs more than 1 MiB (image, page tables, 512 KiB padding).
perch_run mem_too_small run --mem 1 "$HELLO"
expect_error mem_too_small 1 'memory.*too small|too small.*memory'

perch_run initrd_missing run --initrd "$TMP/no_such_initrd" "$HELLO"
expect_error initrd_missing 1 "no_such_initrd.*No such file"

perch_run initrd_directory run --initrd "$TMP/a_directory" "$HELLO"
expect_error initrd_directory 1 "a_directory.*not a regular file"

perch_run initrd_fifo run --initrd "$TMP/a_fifo" "$HELLO"
expect_error initrd_fifo 1 "a_fifo.*not a regular file"

# Bytes perch does not control reach stderr only as printable text: a
# kernel's note strings (LOADER "generic" made an escape sequence, a
# newline and a forged line) and a file name with the same bytes.
expect_printable_line() {
    if [ "$(wc -l <"$TMP/$1.err")" -eq 1 ] && ! LC_ALL=C grep -q '[^ -~]' "$TMP/$1.err"; then
        pass "$1/printable_line"
    else
        fail "$1/printable_line" "stderr: $(od -c "$TMP/$1.err" | head -5)"
    fi
}
perl -0777 -pe 's/generic\0/\x1b[2J\n\rX\0/' "$HELLO" >"$TMP/escape_loader"
perch_run loader_escapes run "$TMP/escape_loader"
expect_error loader_escapes 1 "LOADER '\\\\x1b\\[2J\\\\x0a\\\\x0dX'"
expect_printable_line loader_escapes

evil=$TMP/$(printf 'k\033[2Jk\nX')
perch_run name_escapes run "$evil"
expect_error name_escapes 1 'k\\x1b\[2Jk\\x0aX.*No such file'
expect_printable_line name_escapes

# --cmdline longer than start_info's 1023 bytes: refused, not cut.
perch_run cmdline_too_long run --cmdline "$(head -c 1024 /dev/zero | tr '\0' x)" "$HELLO"
expect_error cmdline_too_long 1 'command line is 1024 bytes'

# One rule on segments, pv_image.c's: hello.elf's bss segment (no file
# bytes) with its offset far past the end of the file still boots.
cp "$HELLO" "$TMP/bss_offset"
printf '\x00\x00\x00\x10' | dd of="$TMP/bss_offset" bs=1 seek=$((64 + 56 + 8)) conv=notrunc status=none
if readelf -lW "$TMP/bss_offset" | grep -q '^  LOAD *0x10000000 .* 0x000000 0x0[0-9a-f]* '; then
    pass bss_offset/made
else
    fail bss_offset/made "readelf: $(readelf -lW "$TMP/bss_offset" | grep LOAD)"
fi
perch_run bss_offset run "$TMP/bss_offset"
expect_status bss_offset 0
expect_line bss_offset out '^hello: done'
