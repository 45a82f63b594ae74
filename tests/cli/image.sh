# `perch image`'s command line and FILE's folder, checked before any work:
# each mistake gets one 'perch: ...' line, status 2 (bad command line) or
# 1 (FILE cannot be written), and nothing is fetched or built (no network,
# no root needed). `make image-check` builds a real image.
. tests/cli/helpers.bash

# An empty cache: a case that got past its check would start fetching here.
export XDG_CACHE_HOME=$TMP/cache

perch_run image_help image --help
expect_status image_help 0
expect_line image_help out '^ +perch image debian FILE \[--size SIZE\] \[--force\]'

# bad NAME STATUS REGEX ARGS...: perch image ARGS fails so, and left no
# file, no aside file and no cache behind.
bad() {
    local name=$1 want=$2 regex=$3
    shift 3
    perch_run "$name" image "$@"
    expect_error "$name" "$want" "$regex"
    if [ ! -e "$TMP/cache" ] && [ -z "$(find "$TMP" -name '.*.perch-*')" ]; then
        pass "$name/no_work_done"
    else
        fail "$name/no_work_done" "$(find "$TMP" | head -5)"
    fi
}

bad no_words 2 'perch image debian FILE'
bad no_file 2 'needs a FILE' debian
bad empty_file 2 'needs a FILE' debian ''
bad unknown_system 2 "unknown image 'fedora'" fedora "$TMP/x.img"
bad extra_word 2 "unexpected argument 'more'" debian "$TMP/x.img" more
bad unknown_option 2 "unknown image option '--sise'" debian "$TMP/x.img" --sise 4G
for size in 4 4GB 4g G -1G 1.5G; do
    bad "size_${size//./_}" 2 "--size '$size' is not a size like 4G or 512M" \
        debian "$TMP/x.img" --size "$size"
done
bad size_empty 2 '--size needs a value' debian "$TMP/x.img" --size=
bad size_too_small 2 '--size 100M is too small \(at least 256M\)' debian "$TMP/x.img" --size 100M
bad size_too_large 2 '--size 17T is too large \(at most 16T\)' debian "$TMP/x.img" --size 17T
bad size_missing 2 '--size needs a value' debian "$TMP/x.img" --size
bad size_twice 2 '--size given twice' debian "$TMP/x.img" --size 1G --size=2G

# FILE exists: refused without --force; --force only over a regular file.
echo keep >"$TMP/exists.img"
bad file_exists 1 "exists.img already exists \(--force overwrites it\)" debian "$TMP/exists.img"
if [ "$(cat "$TMP/exists.img")" = keep ]; then
    pass file_exists/kept
else
    fail file_exists/kept "exists.img was changed"
fi
mkdir "$TMP/a_directory"
bad force_directory 1 'a_directory is not a regular file' debian "$TMP/a_directory" --force

# FILE's folder: missing, not a folder, not writable (root writes anyway,
# except where nothing can be made: /proc).
bad folder_missing 1 'no_such_folder: No such file' debian "$TMP/no_such_folder/x.img"
bad folder_is_a_file 1 'exists.img is not a folder' debian "$TMP/exists.img/x.img"
bad folder_proc 1 'cannot write /proc/perch-x.img' debian /proc/perch-x.img
if [ "$(id -u)" -ne 0 ]; then
    mkdir "$TMP/read_only" && chmod 555 "$TMP/read_only"
    bad folder_read_only 1 'read_only: Permission denied' debian "$TMP/read_only/x.img"
fi
