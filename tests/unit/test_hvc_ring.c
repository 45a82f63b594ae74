/*
 * Unit tests of the Launcher's end of the ring console (launcher/console/hvc_ring.c):
 * out[] is copied exactly and given back, in[] gets as much as fits, both
 * wrap around the ring and around 2^32, and every index the guest owns is
 * checked: a bad one is reported, never followed (AddressSanitizer watches
 * the page, which is a heap object of exactly its size here).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#include "../../launcher/console/hvc_ring.h"

static struct xencons_interface *page;
static struct hvc_ring ring;
static char problem[128];

static void setup(void)
{
    free(page);
    page = calloc(1, sizeof(*page));
    hvc_ring_init(&ring, page);
    problem[0] = '\0';
}

/* The guest writes n bytes of text starting at its out_prod. */
static void guest_write(const char *text, size_t n)
{
    for (size_t i = 0; i < n; i++)
        page->out[(page->out_prod + i) % XENCONS_OUT_BYTES] = text[i];
    page->out_prod += n;
}

static void pattern(char *buf, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)('a' + (i * 7 + seed) % 26);
}

/* Both indices start where the builder left them: the page zeroed. */
static void empty_ring_reads_nothing(void)
{
    uint8_t buf[XENCONS_OUT_BYTES];

    setup();
    CHECK(hvc_ring_read(&ring, buf, problem, sizeof(problem)) == 0);
    CHECK(page->out_cons == 0);
    CHECK(problem[0] == '\0');
}

static void read_copies_and_gives_back(void)
{
    uint8_t buf[XENCONS_OUT_BYTES];

    setup();
    guest_write("hello, hvc0\n", 12);
    CHECK(hvc_ring_read(&ring, buf, problem, sizeof(problem)) == 12);
    CHECK(memcmp(buf, "hello, hvc0\n", 12) == 0);
    CHECK(page->out_cons == 12);
    CHECK(ring.out_cons == 12);
    guest_write("more", 4);
    CHECK(hvc_ring_read(&ring, buf, problem, sizeof(problem)) == 4);
    CHECK(memcmp(buf, "more", 4) == 0);
    CHECK(page->out_cons == 16);
}

/* Bytes that straddle the end of out[] come out in order. */
static void read_wraps_around_the_ring(void)
{
    uint8_t buf[XENCONS_OUT_BYTES];
    char text[300];

    setup();
    page->out_prod = page->out_cons = XENCONS_OUT_BYTES - 100;
    ring.out_cons = XENCONS_OUT_BYTES - 100;
    pattern(text, sizeof(text), 1);
    guest_write(text, sizeof(text));
    CHECK(hvc_ring_read(&ring, buf, problem, sizeof(problem)) == 300);
    CHECK(memcmp(buf, text, 300) == 0);
    CHECK(page->out_cons == XENCONS_OUT_BYTES + 200);
}

/* Free-running indices: across 2^32 as well. */
static void read_wraps_around_2_to_the_32(void)
{
    uint8_t buf[XENCONS_OUT_BYTES];
    char text[XENCONS_OUT_BYTES];

    setup();
    page->out_prod = page->out_cons = ring.out_cons = UINT32_MAX - 9;
    pattern(text, sizeof(text), 2);
    guest_write(text, sizeof(text));
    CHECK(page->out_prod == XENCONS_OUT_BYTES - 10);
    CHECK(hvc_ring_read(&ring, buf, problem, sizeof(problem)) == XENCONS_OUT_BYTES);
    CHECK(memcmp(buf, text, sizeof(text)) == 0);
    CHECK(page->out_cons == XENCONS_OUT_BYTES - 10);
}

/* Exactly full is fine; one more is the guest lying. */
static void full_ring_is_valid(void)
{
    uint8_t buf[XENCONS_OUT_BYTES];
    char text[XENCONS_OUT_BYTES];

    setup();
    pattern(text, sizeof(text), 3);
    guest_write(text, sizeof(text));
    CHECK(hvc_ring_read(&ring, buf, problem, sizeof(problem)) == XENCONS_OUT_BYTES);
    CHECK(memcmp(buf, text, sizeof(text)) == 0);
}

static void producer_too_far_ahead_is_corrupt(void)
{
    uint8_t buf[XENCONS_OUT_BYTES];

    setup();
    page->out_prod = XENCONS_OUT_BYTES + 1;
    CHECK(hvc_ring_read(&ring, buf, problem, sizeof(problem)) == -1);
    CHECK_CONTAINS(problem, "hvc0 console ring index corrupted");
    CHECK_CONTAINS(problem, "out_prod 2049");
    CHECK_CONTAINS(problem, "out_cons 0");
    CHECK(ring.out_cons == 0);   /* nothing consumed */
}

static void producer_behind_consumer_is_corrupt(void)
{
    uint8_t buf[XENCONS_OUT_BYTES];

    setup();
    guest_write("abc", 3);
    CHECK(hvc_ring_read(&ring, buf, problem, sizeof(problem)) == 3);
    page->out_prod = 2;
    CHECK(hvc_ring_read(&ring, buf, problem, sizeof(problem)) == -1);
    CHECK_CONTAINS(problem, "out_prod 2, out_cons 3");
}

/* The guest cannot move the Launcher's consumer: a scribbled out_cons is
 * neither believed nor left standing. */
static void guest_written_out_cons_is_ignored(void)
{
    uint8_t buf[XENCONS_OUT_BYTES];

    setup();
    guest_write("0123456789", 10);
    page->out_cons = 7;
    CHECK(hvc_ring_read(&ring, buf, problem, sizeof(problem)) == 10);
    CHECK(memcmp(buf, "0123456789", 10) == 0);
    CHECK(page->out_cons == 10);
    page->out_cons = 0xdeadbeef;
    CHECK(hvc_ring_read(&ring, buf, problem, sizeof(problem)) == 0);
    CHECK(page->out_cons == 10);
}

/* ---- in[] ---- */

static void write_puts_bytes_and_index(void)
{
    setup();
    CHECK(hvc_ring_write(&ring, (const uint8_t *)"ls\r", 3, problem, sizeof(problem)) == 3);
    CHECK(page->in_prod == 3);
    CHECK(memcmp(page->in, "ls\r", 3) == 0);
    CHECK(hvc_ring_input_queued(&ring) == 3);
    page->in_cons = 3;
    CHECK(hvc_ring_input_queued(&ring) == 0);
}

/* Never more than the room: a partial write, then none, then the rest
 * once the guest has taken some. */
static void write_is_partial_when_short_of_room(void)
{
    uint8_t text[1500];

    setup();
    pattern((char *)text, sizeof(text), 4);
    CHECK(hvc_ring_write(&ring, text, 1000, problem, sizeof(problem)) == 1000);
    CHECK(hvc_ring_write(&ring, text + 1000, 500, problem, sizeof(problem)) == 24);
    CHECK(page->in_prod == XENCONS_IN_BYTES);
    CHECK(hvc_ring_write(&ring, text + 1024, 476, problem, sizeof(problem)) == 0);
    page->in_cons = 300;
    CHECK(hvc_ring_write(&ring, text + 1024, 476, problem, sizeof(problem)) == 300);
    CHECK(page->in_prod == XENCONS_IN_BYTES + 300);
    /* The ring now holds text[300..1324) in order, wrapped. */
    for (uint32_t i = 300; i < XENCONS_IN_BYTES + 300; i++)
        CHECK((uint8_t)page->in[i % XENCONS_IN_BYTES] == text[i]);
}

static void write_wraps_around_2_to_the_32(void)
{
    uint8_t text[100];

    setup();
    page->in_cons = page->in_prod = ring.in_prod = UINT32_MAX - 49;
    pattern((char *)text, sizeof(text), 5);
    CHECK(hvc_ring_write(&ring, text, 100, problem, sizeof(problem)) == 100);
    CHECK(page->in_prod == 50);
    for (uint32_t i = 0; i < 100; i++)
        CHECK((uint8_t)page->in[(UINT32_MAX - 49 + i) % XENCONS_IN_BYTES] == text[i]);
}

static void consumer_ahead_of_producer_is_corrupt(void)
{
    setup();
    CHECK(hvc_ring_write(&ring, (const uint8_t *)"x", 1, problem, sizeof(problem)) == 1);
    page->in_cons = 2;
    CHECK(hvc_ring_write(&ring, (const uint8_t *)"y", 1, problem, sizeof(problem)) == -1);
    CHECK_CONTAINS(problem, "hvc0 console ring index corrupted (in_prod 1, in_cons 2)");
    CHECK(page->in[1] == 0);   /* nothing written */
    CHECK(hvc_ring_input_queued(&ring) == 0);
}

static void consumer_too_far_behind_is_corrupt(void)
{
    setup();
    page->in_cons = (uint32_t)-(XENCONS_IN_BYTES + 1);
    CHECK(hvc_ring_write(&ring, (const uint8_t *)"y", 1, problem, sizeof(problem)) == -1);
    CHECK_CONTAINS(problem, "in_cons");
}

/* A scribbled in_prod: the Launcher writes where its own says and puts
 * its own back. */
static void guest_written_in_prod_is_ignored(void)
{
    setup();
    CHECK(hvc_ring_write(&ring, (const uint8_t *)"ab", 2, problem, sizeof(problem)) == 2);
    page->in_prod = 900;
    CHECK(hvc_ring_write(&ring, (const uint8_t *)"cd", 2, problem, sizeof(problem)) == 2);
    CHECK(page->in_prod == 4);
    CHECK(memcmp(page->in, "abcd", 4) == 0);
}

int main(void)
{
    RUN(empty_ring_reads_nothing);
    RUN(read_copies_and_gives_back);
    RUN(read_wraps_around_the_ring);
    RUN(read_wraps_around_2_to_the_32);
    RUN(full_ring_is_valid);
    RUN(producer_too_far_ahead_is_corrupt);
    RUN(producer_behind_consumer_is_corrupt);
    RUN(guest_written_out_cons_is_ignored);
    RUN(write_puts_bytes_and_index);
    RUN(write_is_partial_when_short_of_room);
    RUN(write_wraps_around_2_to_the_32);
    RUN(consumer_ahead_of_producer_is_corrupt);
    RUN(consumer_too_far_behind_is_corrupt);
    RUN(guest_written_in_prod_is_ignored);
    free(page);
    return check_exit_status();
}
