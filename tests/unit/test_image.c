/*
 * Unit tests of `perch image`'s command line (launcher/image/image.c): sizes,
 * the words, the options; and mmdebstrap's arguments (image_recipe.c),
 * quoting included. Nothing runs and nothing is built here.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "../../launcher/image/image.h"

static void sizes_with_units(void)
{
    uint64_t b;
    struct error e;

    CHECK(image_parse_size("4G", &b, &e) == 0 && b == 4ull << 30);
    CHECK(image_parse_size("512M", &b, &e) == 0 && b == 512ull << 20);
    CHECK(image_parse_size("1T", &b, &e) == 0 && b == 1ull << 40);
    CHECK(image_parse_size("300000K", &b, &e) == 0 && b == 300000ull << 10);
    CHECK(image_parse_size("16T", &b, &e) == 0 && b == 16ull << 40);
}

static void bad_sizes(void)
{
    static const char *const bad[] = { "", "4", "G", "4g", "4GB", "-4G", " 4G",
                                       "4.5G", "0x10G", "4G ", NULL };
    uint64_t b = 7;
    struct error e = { "" };

    for (int i = 0; bad[i]; i++) {
        CHECK(image_parse_size(bad[i], &b, &e) == -1);
        CHECK_CONTAINS(e.msg, "is not a size like 4G");
    }
    CHECK(image_parse_size("255M", &b, &e) == -1);
    CHECK_CONTAINS(e.msg, "too small");
    CHECK(image_parse_size("17T", &b, &e) == -1);
    CHECK_CONTAINS(e.msg, "too large");
    CHECK(image_parse_size("99999999999999999999999G", &b, &e) == -1);
    CHECK_CONTAINS(e.msg, "too large");
    CHECK(b == 7);
}

static int parse(struct image_options *o, struct error *e, const char *a0,
                 const char *a1, const char *a2, const char *a3)
{
    char *argv[] = { (char *)a0, (char *)a1, (char *)a2, (char *)a3, NULL };
    int argc = 0;

    while (argv[argc])
        argc++;
    return image_parse(argc, argv, o, e);
}

static void words_and_options(void)
{
    struct image_options o;
    struct error e = { "" };

    CHECK(parse(&o, &e, "debian", "x.img", NULL, NULL) == 0);
    CHECK(!strcmp(o.file, "x.img") && o.size == 4ull << 30 && !o.force);
    CHECK(!strcmp(o.size_text, "4G"));
    CHECK(parse(&o, &e, "--size", "512M", "debian", "x.img") == 0);
    CHECK(o.size == 512ull << 20 && !strcmp(o.size_text, "512M"));
    CHECK(parse(&o, &e, "debian", "--size=8G", "x.img", "--force") == 0);
    CHECK(o.size == 8ull << 30 && o.force);
    CHECK(parse(&o, &e, "--help", NULL, NULL, NULL) == 0 && o.help);
}

static void mistakes(void)
{
    struct image_options o;
    struct error e = { "" };

    CHECK(parse(&o, &e, NULL, NULL, NULL, NULL) == -1);
    CHECK_CONTAINS(e.msg, "perch image debian FILE");
    CHECK(parse(&o, &e, "fedora", "x", NULL, NULL) == -1);
    CHECK_CONTAINS(e.msg, "unknown image 'fedora'");
    CHECK(parse(&o, &e, "debian", NULL, NULL, NULL) == -1);
    CHECK_CONTAINS(e.msg, "needs a FILE");
    CHECK(parse(&o, &e, "debian", "", NULL, NULL) == -1);
    CHECK_CONTAINS(e.msg, "needs a FILE");
    CHECK(parse(&o, &e, "debian", "x", "y", NULL) == -1);
    CHECK_CONTAINS(e.msg, "unexpected argument 'y'");
    CHECK(parse(&o, &e, "debian", "x", "--size", NULL) == -1);
    CHECK_CONTAINS(e.msg, "--size needs a value");
    CHECK(parse(&o, &e, "debian", "x", "--size=", NULL) == -1);
    CHECK_CONTAINS(e.msg, "--size needs a value");
    CHECK(parse(&o, &e, "--size=1G", "debian", "x", "--size=2G") == -1);
    CHECK_CONTAINS(e.msg, "--size given twice");
    CHECK(parse(&o, &e, "debian", "x", "--forse", NULL) == -1);
    CHECK_CONTAINS(e.msg, "unknown image option '--forse'");
}

/* The files folder reaches mmdebstrap's sync-in hook quoted for its
 * shellwords, quotes and spaces included; the tarball is the last word. */
static void mmdebstrap_arguments(void)
{
    static char buf[8192];
    char *argv[IMAGE_ARGV_MAX];
    struct error e = { "" };
    bool sync = false, depmod = false;
    int n = 0;

    CHECK(image_recipe_argv("/c/it's here", "6.1.0-57-cloud-amd64", "/c/root.tar",
                            argv, buf, sizeof(buf), &e) == 0);
    while (argv[n])
        n++;
    CHECK(n < IMAGE_ARGV_MAX);
    CHECK(!strcmp(argv[0], "mmdebstrap"));
    CHECK(!strcmp(argv[n - 1], "/c/root.tar") && !strcmp(argv[n - 2], "bookworm"));
    for (int i = 0; i < n; i++) {
        sync |= !strcmp(argv[i], "--customize-hook=sync-in '/c/it'\\''s here' "
                                 "/tmp/perch-files");
        depmod |= strstr(argv[i], "depmod 6.1.0-57-cloud-amd64") != NULL;
        CHECK(strncmp(argv[i], "--include=", 10) || strstr(argv[i], "systemd-sysv"));
    }
    CHECK(sync);
    CHECK(depmod);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    RUN(sizes_with_units);
    RUN(bad_sizes);
    RUN(words_and_options);
    RUN(mistakes);
    RUN(mmdebstrap_arguments);
    return check_exit_status();
}
