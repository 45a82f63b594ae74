/*
 * Unit tests of the network card's data path (launcher/netif*.c,
 * net_csum.c) against a fake front end (netif_guest.h): real guest memory
 * and grant table, the rings as netfront drives them, a link that records
 * what it is sent. Honest packets and frames first (one slot, chains,
 * extras, checksums filled in and checked by summing again here), then
 * each case of the policy: what stops the guest, and what is Xen's error
 * that the guest survives.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "netif_guest.h"

#include "../../launcher/net/net_csum.h"
#include "../../launcher/net/netif.h"

#define MAX_SENT 8

static struct netif_guest g;
static struct netif nif;
static struct error err;
static struct {
    uint8_t bytes[XEN_NETIF_MAX_TX_SIZE];
    size_t len;
} sent[MAX_SENT];
static unsigned nsent, notified;

static void send_frame(void *arg, const uint8_t *frame, size_t len)
{
    (void)arg;
    if (nsent < MAX_SENT) {
        memcpy(sent[nsent].bytes, frame, len);
        sent[nsent].len = len;
    }
    nsent++;
}

static void notify(void *arg)
{
    (void)arg;
    notified++;
}

/* A fresh guest with rings at `start`, pages 0..15 granted for reading as
 * grefs 0..15, pages 16..31 writable as grefs 16..31; the card open. */
static bool setup_at(uint32_t start, bool rx_sg)
{
    struct netif_config cfg = {
        .gt = &g.gt, .rx_sg = rx_sg, .send = send_frame, .notify = notify,
    };

    ng_setup(&g, start);
    for (uint32_t i = 0; i < 16; i++)
        ng_grant(&g, i, i, 0, GTF_permit_access | GTF_readonly);
    for (uint32_t i = 16; i < 32; i++)
        ng_grant(&g, i, i, 0, GTF_permit_access);
    cfg.tx_ring = g.tx_ring;
    cfg.rx_ring = g.rx_ring;
    nsent = notified = 0;
    err.msg[0] = '\0';
    if (netif_open(&nif, &cfg, &err)) {
        printf("netif_open: %s\n", err.msg);
        return false;
    }
    return true;
}

static bool setup(void)
{
    return setup_at(0, true);
}

/* Bytes (pfn * 31 + i) in every guest page. */
static void fill_pages(void)
{
    for (uint32_t p = 0; p < NG_PAGES; p++)
        for (unsigned i = 0; i < XEN_PAGE_SIZE; i++)
            ng_page(&g, p)[i] = (uint8_t)(p * 31 + i);
}

static bool no_grant_in_use(void)
{
    for (uint32_t i = 0; i < 64; i++)
        if (ng_grant_flags(&g, i) & (GTF_reading | GTF_writing))
            return false;
    return true;
}

#define EXPECT_TX(id_, status_)                                            \
    do {                                                                   \
        struct netif_tx_response r_ = { .status = 99 };                    \
        CHECK(ng_tx_response(&g, &r_));                                    \
        CHECK(r_.status == (status_));                                     \
        if ((status_) != NETIF_RSP_NULL)                                   \
            CHECK(r_.id == (id_));                                         \
    } while (0)

#define EXPECT_STOP(call, why)                                             \
    do {                                                                   \
        CHECK((call) < 0);                                                 \
        CHECK_CONTAINS(err.msg, (why));                                    \
    } while (0)

/* ---- frames with checksums, built and checked here ---- */

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* An Ethernet frame with IPv4 (10.0.2.15 to 10.0.2.2) and a TCP (proto
 * 6) or UDP (17) segment of `payload` bytes; the checksum field holds
 * junk, as a front end's partial sum would be to a wire. */
static size_t ip_frame(uint8_t *f, uint8_t proto, size_t payload)
{
    size_t l4 = proto == 6 ? 20 : 8, total = 20 + l4 + payload;

    memset(f, 0, 14 + total);
    memset(f, 0x52, 12);
    put16(f + 12, 0x0800);
    f[14] = 0x45;
    put16(f + 16, (uint16_t)total);
    f[22] = 64;
    f[23] = proto;
    memcpy(f + 26, (uint8_t[]){ 10, 0, 2, 15, 10, 0, 2, 2 }, 8);
    put16(f + 34, 40000);
    put16(f + 36, 80);
    if (proto == 6)
        f[46] = 5 << 4;
    else
        put16(f + 38, (uint16_t)(8 + payload));
    for (size_t i = 0; i < payload; i++)
        f[14 + 20 + l4 + i] = (uint8_t)(i * 7 + 3);
    put16(f + 14 + 20 + (proto == 6 ? 16 : 6), 0xdead);
    return 14 + total;
}

/* RFC 1071's check: summed with its checksum, pseudo-header included, a
 * segment adds up to all ones. */
static bool l4_sums_right(const uint8_t *f)
{
    size_t total = get16(f + 16), n = total - 20;
    const uint8_t *l4 = f + 34;
    uint32_t sum = f[23] + (uint32_t)n;

    for (unsigned i = 0; i < 8; i += 2)
        sum += get16(f + 26 + i);
    for (size_t i = 0; i + 1 < n; i += 2)
        sum += get16(l4 + i);
    if (n & 1)
        sum += (uint32_t)l4[n - 1] << 8;
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return sum == 0xffff;
}

/* ---- tx: honest ---- */

static void tx_single_slot(void)
{
    CHECK(setup());
    fill_pages();
    ng_tx_request(&g, 3, 100, 0, 7, 60);
    ng_tx_publish(&g);
    CHECK(netif_tx_kick(&nif, &err) == 1);
    CHECK(nsent == 1 && sent[0].len == 60);
    CHECK(memcmp(sent[0].bytes, ng_page(&g, 3) + 100, 60) == 0);
    CHECK(netif_flush(&nif, &err) == 0);
    EXPECT_TX(7, NETIF_RSP_OKAY);
    CHECK(notified == 1);
    CHECK(nif.counts.tx_packets == 1);
    CHECK(ng_tx_header(&g)->req_event == 2);   /* told of the next one */
    CHECK(no_grant_in_use());
}

/* first (its own 1000 bytes at 3000), 4096 bytes of page 5, 500 at 10. */
static void tx_scatter_gather(void)
{
    CHECK(setup());
    fill_pages();
    ng_tx_request(&g, 4, 3000, NETTXF_more_data, 1, 1000 + 4096 + 500);
    ng_tx_request(&g, 5, 0, NETTXF_more_data, 2, 4096);
    ng_tx_request(&g, 6, 10, 0, 3, 500);
    ng_tx_publish(&g);
    CHECK(netif_tx_kick(&nif, &err) == 1);
    CHECK(nsent == 1 && sent[0].len == 5596);
    CHECK(memcmp(sent[0].bytes, ng_page(&g, 4) + 3000, 1000) == 0);
    CHECK(memcmp(sent[0].bytes + 1000, ng_page(&g, 5), 4096) == 0);
    CHECK(memcmp(sent[0].bytes + 5096, ng_page(&g, 6) + 10, 500) == 0);
    CHECK(netif_flush(&nif, &err) == 0);
    EXPECT_TX(1, NETIF_RSP_OKAY);
    EXPECT_TX(2, NETIF_RSP_OKAY);
    EXPECT_TX(3, NETIF_RSP_OKAY);
    CHECK(!ng_tx_response(&g, &(struct netif_tx_response){ 0 }));
}

/* 18 slots, the most: a first request of 4000 bytes and 17 pieces. */
static void tx_eighteen_slots(void)
{
    CHECK(setup());
    ng_tx_request(&g, 0, 0, NETTXF_more_data, 0, 4000 + 17 * 100);
    for (unsigned i = 1; i < 18; i++)
        ng_tx_request(&g, i % 16, 0, i < 17 ? NETTXF_more_data : 0, (uint16_t)i, 100);
    ng_tx_publish(&g);
    CHECK(netif_tx_kick(&nif, &err) == 1);
    CHECK(nsent == 1 && sent[0].len == 5700);
    CHECK(netif_flush(&nif, &err) == 0);
    for (unsigned i = 0; i < 18; i++)
        EXPECT_TX(i, NETIF_RSP_OKAY);
}

/* Extras of known types are read past; each is answered NULL, in its
 * place between the first request and the pieces. */
static void tx_extras_answered_null(void)
{
    CHECK(setup());
    fill_pages();
    ng_tx_request(&g, 2, 0, NETTXF_extra_info | NETTXF_more_data, 9, 100);
    ng_tx_extra(&g, XEN_NETIF_EXTRA_TYPE_GSO, XEN_NETIF_EXTRA_FLAG_MORE);
    ng_tx_extra(&g, XEN_NETIF_EXTRA_TYPE_HASH, 0);
    ng_tx_request(&g, 3, 0, 0, 10, 40);
    ng_tx_publish(&g);
    CHECK(netif_tx_kick(&nif, &err) == 1);
    CHECK(nsent == 1 && sent[0].len == 100);
    CHECK(memcmp(sent[0].bytes + 60, ng_page(&g, 3), 40) == 0);
    CHECK(netif_flush(&nif, &err) == 0);
    EXPECT_TX(9, NETIF_RSP_OKAY);
    EXPECT_TX(0, NETIF_RSP_NULL);
    EXPECT_TX(0, NETIF_RSP_NULL);
    EXPECT_TX(10, NETIF_RSP_OKAY);
}

/* Many packets, one kick, one notification; indices that wrap. */
static void tx_batch_across_the_wrap(void)
{
    CHECK(setup_at(UINT32_MAX - 100, true));
    for (unsigned i = 0; i < 200; i++)
        ng_tx_request(&g, i % 16, 0, 0, (uint16_t)i, 64);
    ng_tx_publish(&g);
    CHECK(netif_tx_kick(&nif, &err) == 200);
    CHECK(nsent == 200);
    CHECK(netif_flush(&nif, &err) == 0);
    CHECK(notified == 1);
    for (unsigned i = 0; i < 200; i++)
        EXPECT_TX(i, NETIF_RSP_OKAY);
    CHECK(ng_tx_header(&g)->rsp_prod == UINT32_MAX - 100 + 200);
}

/* The guest has not asked to hear (rsp_event passed): no notification. */
static void tx_notify_follows_rsp_event(void)
{
    CHECK(setup());
    ng_tx_header(&g)->rsp_event = 50;
    ng_tx_request(&g, 1, 0, 0, 1, 64);
    ng_tx_publish(&g);
    CHECK(netif_tx_kick(&nif, &err) == 1);
    CHECK(netif_flush(&nif, &err) == 0);
    CHECK(notified == 0);
    CHECK(netif_flush(&nif, &err) == 0);   /* nothing new: nothing said */
    CHECK(notified == 0);
}

static void tx_fills_tcp_checksum(void)
{
    uint8_t f[3000];
    size_t len;

    CHECK(setup());
    len = ip_frame(f, 6, 2000);      /* in two pieces: 2000 bytes, the rest */
    memcpy(ng_page(&g, 8), f, 2000);
    memcpy(ng_page(&g, 9), f + 2000, len - 2000);
    ng_tx_request(&g, 8, 0, NETTXF_csum_blank | NETTXF_data_validated | NETTXF_more_data,
                  1, (uint16_t)len);
    ng_tx_request(&g, 9, 0, 0, 2, (uint16_t)(len - 2000));
    ng_tx_publish(&g);
    CHECK(netif_tx_kick(&nif, &err) == 1);
    CHECK(nsent == 1 && sent[0].len == len);
    CHECK(l4_sums_right(sent[0].bytes));
    CHECK(get16(sent[0].bytes + 14 + 20 + 16) != 0xdead);
    CHECK(memcmp(sent[0].bytes, f, 50) == 0);       /* only the field changed */
    CHECK(memcmp(sent[0].bytes + 52, f + 52, len - 52) == 0);
    CHECK(nif.counts.tx_packets == 1);
}

/* A fresh guest sends f (len bytes) in one slot of page 1, with flags:
 * the kick's result. */
static long send_one(const uint8_t *f, size_t len, uint16_t flags)
{
    if (!setup())
        return -2;
    memcpy(ng_page(&g, 1), f, len);
    ng_tx_request(&g, 1, 0, flags, 1, (uint16_t)len);
    ng_tx_publish(&g);
    return netif_tx_kick(&nif, &err);
}

static void tx_fills_udp_checksum_odd_length(void)
{
    uint8_t f[200];
    size_t len = ip_frame(f, 17, 101);

    CHECK(send_one(f, len, NETTXF_csum_blank) == 1);
    CHECK(nsent == 1 && l4_sums_right(sent[0].bytes));
}

/* Only data_validated: the front end says the checksum is right already,
 * and it goes out as it is. */
static void tx_data_validated_left_alone(void)
{
    uint8_t f[200];
    size_t len = ip_frame(f, 6, 30);

    CHECK(send_one(f, len, NETTXF_data_validated) == 1);
    CHECK(nsent == 1 && memcmp(sent[0].bytes, f, len) == 0);
}

/* csum_blank on what has no TCP/UDP checksum to fill (an ARP, a
 * fragment): answered OKAY, not sent, counted, as netback drops it. */
static void tx_blank_checksum_that_cannot_be_filled(void)
{
    uint8_t f[200];
    size_t len = ip_frame(f, 6, 30);

    CHECK(setup());
    f[20] = 0x20;                    /* more fragments */
    memcpy(ng_page(&g, 1), f, len);
    memset(ng_page(&g, 2), 0, 60);
    put16(ng_page(&g, 2) + 12, 0x0806);
    ng_tx_request(&g, 1, 0, NETTXF_csum_blank, 1, (uint16_t)len);
    ng_tx_request(&g, 2, 0, NETTXF_csum_blank, 2, 60);
    ng_tx_publish(&g);
    CHECK(netif_tx_kick(&nif, &err) == 2);
    CHECK(nsent == 0 && nif.counts.tx_dropped == 2);
    CHECK(netif_flush(&nif, &err) == 0);
    EXPECT_TX(1, NETIF_RSP_OKAY);
    EXPECT_TX(2, NETIF_RSP_OKAY);
}

/* ---- tx: Xen's errors, answered, the guest goes on ---- */

/* Not granted, granted to another domain, beyond the table, revoked:
 * every slot of the packet answered ERROR (its extra NULL), nothing sent,
 * and the next packet is served. */
static void tx_refused_grants(void)
{
    static const uint32_t bad[] = { 40, 41, 512, UINT32_MAX };

    CHECK(setup());
    ng_grant(&g, 41, 41, 7, GTF_permit_access);
    for (unsigned i = 0; i < 4; i++) {
        ng_tx_request(&g, 1, 0, NETTXF_more_data | NETTXF_extra_info, (uint16_t)(10 * i), 200);
        ng_tx_extra(&g, XEN_NETIF_EXTRA_TYPE_MCAST_ADD, 0);
        ng_tx_request(&g, bad[i], 0, 0, (uint16_t)(10 * i + 1), 100);
    }
    ng_tx_request(&g, 1, 0, 0, 99, 64);
    ng_tx_publish(&g);
    CHECK(netif_tx_kick(&nif, &err) == 5);
    CHECK(nsent == 1 && sent[0].len == 64);
    CHECK(netif_flush(&nif, &err) == 0);
    for (unsigned i = 0; i < 4; i++) {
        EXPECT_TX(10 * i, NETIF_RSP_ERROR);
        EXPECT_TX(0, NETIF_RSP_NULL);
        EXPECT_TX(10 * i + 1, NETIF_RSP_ERROR);
    }
    EXPECT_TX(99, NETIF_RSP_OKAY);
    CHECK(nif.counts.tx_errors == 4 && nif.counts.tx_packets == 1);
    CHECK(no_grant_in_use());
}

/* A runt shorter than an Ethernet header: netback's error too. */
static void tx_runt(void)
{
    CHECK(setup());
    ng_tx_request(&g, 1, 0, 0, 5, 13);
    ng_tx_publish(&g);
    CHECK(netif_tx_kick(&nif, &err) == 1);
    CHECK(nsent == 0);
    CHECK(netif_flush(&nif, &err) == 0);
    EXPECT_TX(5, NETIF_RSP_ERROR);
}

/* ---- tx: malformed, the guest is stopped ---- */

static void tx_req_prod_beyond_the_ring(void)
{
    CHECK(setup());
    ng_tx_header(&g)->req_prod = 257;
    EXPECT_STOP(netif_tx_kick(&nif, &err), "tx ring index corrupted (req_prod 257");
    CHECK(nsent == 0);
    ng_tx_header(&g)->req_prod = 0;
    EXPECT_STOP(netif_tx_kick(&nif, &err), "tx ring index corrupted");   /* stays so */
    EXPECT_STOP(netif_flush(&nif, &err), "tx ring index corrupted");
}

static void tx_req_prod_moved_back(void)
{
    CHECK(setup());
    ng_tx_request(&g, 1, 0, 0, 1, 64);
    ng_tx_publish(&g);
    CHECK(netif_tx_kick(&nif, &err) == 1);
    ng_tx_header(&g)->req_prod = UINT32_MAX;    /* one behind what was taken */
    EXPECT_STOP(netif_tx_kick(&nif, &err), "tx ring index corrupted");
}

/* A full ring is fine; 256 ahead of the consumer is the most. */
static void tx_full_ring(void)
{
    CHECK(setup());
    for (unsigned i = 0; i < 256; i++)
        ng_tx_request(&g, 1, 0, 0, (uint16_t)i, 64);
    ng_tx_publish(&g);
    CHECK(netif_tx_kick(&nif, &err) == 256);
}

static void tx_nineteen_slots(void)
{
    CHECK(setup());
    ng_tx_request(&g, 0, 0, NETTXF_more_data, 0, 4000 + 18 * 10);
    for (unsigned i = 1; i < 19; i++)
        ng_tx_request(&g, 1, 0, i < 18 ? NETTXF_more_data : 0, (uint16_t)i, 10);
    ng_tx_publish(&g);
    EXPECT_STOP(netif_tx_kick(&nif, &err), "tx packet of more than 18 slots");
    CHECK(nsent == 0);
}

/* Extras count: a first request, one extra and 17 pieces are 19. */
static void tx_nineteen_slots_with_an_extra(void)
{
    CHECK(setup());
    ng_tx_request(&g, 0, 0, NETTXF_more_data | NETTXF_extra_info, 0, 4000 + 17 * 10);
    ng_tx_extra(&g, XEN_NETIF_EXTRA_TYPE_GSO, 0);
    for (unsigned i = 1; i < 18; i++)
        ng_tx_request(&g, 1, 0, i < 17 ? NETTXF_more_data : 0, (uint16_t)i, 10);
    ng_tx_publish(&g);
    EXPECT_STOP(netif_tx_kick(&nif, &err), "more than 18 slots");
}

static void tx_piece_beyond_its_page(void)
{
    CHECK(setup());
    ng_tx_request(&g, 0, 0, NETTXF_more_data, 0, 300);
    ng_tx_request(&g, 1, 4000, 0, 1, 200);
    ng_tx_publish(&g);
    EXPECT_STOP(netif_tx_kick(&nif, &err), "tx piece beyond its page (offset 4000, size 200)");
}

/* The first request's own bytes (the total less the rest) run past its
 * page, alone or after its pieces. */
static void tx_first_beyond_its_page(void)
{
    CHECK(setup());
    ng_tx_request(&g, 0, 4090, 0, 0, 60);
    ng_tx_publish(&g);
    EXPECT_STOP(netif_tx_kick(&nif, &err), "tx piece beyond its page (offset 4090, size 60)");
    CHECK(setup());
    ng_tx_request(&g, 0, 4000, NETTXF_more_data, 0, 4096 + 200);
    ng_tx_request(&g, 1, 0, 0, 1, 4096);
    ng_tx_publish(&g);
    EXPECT_STOP(netif_tx_kick(&nif, &err), "tx piece beyond its page (offset 4000, size 200)");
}

static void tx_first_smaller_than_the_rest(void)
{
    CHECK(setup());
    ng_tx_request(&g, 0, 0, NETTXF_more_data, 0, 100);
    ng_tx_request(&g, 1, 0, NETTXF_more_data, 1, 60);
    ng_tx_request(&g, 2, 0, 0, 2, 41);
    ng_tx_publish(&g);
    EXPECT_STOP(netif_tx_kick(&nif, &err), "tx packet of 100 bytes whose pieces after the first hold 101");
}

static void tx_unknown_extra_types(void)
{
    static const uint8_t types[] = { XEN_NETIF_EXTRA_TYPE_NONE, XEN_NETIF_EXTRA_TYPE_MAX, 255 };

    for (unsigned i = 0; i < 3; i++) {
        CHECK(setup());
        ng_tx_request(&g, 0, 0, NETTXF_extra_info, 0, 100);
        ng_tx_extra(&g, XEN_NETIF_EXTRA_TYPE_GSO, XEN_NETIF_EXTRA_FLAG_MORE);
        ng_tx_extra(&g, types[i], 0);
        ng_tx_publish(&g);
        EXPECT_STOP(netif_tx_kick(&nif, &err), "tx extra-info of unknown type");
    }
}

/* A packet whose chain (or extras) goes on past what is published. */
static void tx_packet_past_req_prod(void)
{
    CHECK(setup());
    ng_tx_request(&g, 0, 0, NETTXF_more_data, 0, 100);
    ng_tx_publish(&g);
    EXPECT_STOP(netif_tx_kick(&nif, &err), "tx packet runs past req_prod");
    CHECK(setup());
    ng_tx_request(&g, 0, 0, 0, 0, 100);
    ng_tx_request(&g, 0, 0, NETTXF_extra_info, 1, 100);
    ng_tx_publish(&g);
    EXPECT_STOP(netif_tx_kick(&nif, &err), "tx packet runs past req_prod");
    CHECK(nsent == 1);               /* the whole packet before it went */
}

/* ---- rx ---- */

static void rx_one_page(void)
{
    uint8_t f[1000];
    struct netif_rx_response r;

    CHECK(setup());
    for (unsigned i = 0; i < sizeof(f); i++)
        f[i] = (uint8_t)(i ^ 0x5a);
    ng_rx_post(&g, 33, 20);
    netif_rx_deliver(&nif, f, sizeof(f));
    CHECK(netif_flush(&nif, &err) == 0);
    CHECK(ng_rx_response(&g, &r));
    CHECK(r.id == 33 && r.offset == 0 && r.flags == 0 && r.status == 1000);
    CHECK(memcmp(ng_page(&g, 20), f, sizeof(f)) == 0);
    CHECK(notified == 1 && nif.counts.rx_packets == 1);
    CHECK(no_grant_in_use());
}

/* 9000 bytes over three pages, chained with more_data. */
static void rx_chain(void)
{
    static uint8_t f[9000];
    struct netif_rx_response r;

    CHECK(setup());
    for (unsigned i = 0; i < sizeof(f); i++)
        f[i] = (uint8_t)(i * 13);
    for (unsigned i = 0; i < 4; i++)
        ng_rx_post(&g, (uint16_t)(100 + i), 20 + i);
    netif_rx_deliver(&nif, f, sizeof(f));
    CHECK(netif_flush(&nif, &err) == 0);
    CHECK(ng_rx_response(&g, &r) && r.id == 100 && r.flags == NETRXF_more_data && r.status == 4096);
    CHECK(ng_rx_response(&g, &r) && r.id == 101 && r.flags == NETRXF_more_data && r.status == 4096);
    CHECK(ng_rx_response(&g, &r) && r.id == 102 && r.flags == 0 && r.status == 808);
    CHECK(!ng_rx_response(&g, &r));
    CHECK(memcmp(ng_page(&g, 20), f, 4096) == 0);
    CHECK(memcmp(ng_page(&g, 21), f + 4096, 4096) == 0);
    CHECK(memcmp(ng_page(&g, 22), f + 8192, 808) == 0);
}

/* A front end without feature-sg takes frames of one page only. */
static void rx_chain_needs_sg(void)
{
    static uint8_t f[5000];
    struct netif_rx_response r;

    CHECK(setup_at(0, false));
    ng_rx_post(&g, 1, 20);
    ng_rx_post(&g, 2, 21);
    netif_rx_deliver(&nif, f, sizeof(f));
    netif_rx_deliver(&nif, f, 4096);
    CHECK(netif_flush(&nif, &err) == 0);
    CHECK(ng_rx_response(&g, &r) && r.id == 1 && r.status == 4096);
    CHECK(!ng_rx_response(&g, &r));
    CHECK(nif.counts.rx_dropped == 1 && nif.counts.rx_packets == 1);
}

/* Too few pages posted: the frame is dropped whole, nothing consumed. */
static void rx_too_few_pages(void)
{
    static uint8_t f[9000];
    struct netif_rx_response r;

    CHECK(setup());
    netif_rx_deliver(&nif, f, 100);               /* none posted */
    ng_rx_post(&g, 1, 20);
    ng_rx_post(&g, 2, 21);
    netif_rx_deliver(&nif, f, sizeof(f));         /* needs three */
    CHECK(nif.counts.rx_dropped == 2);
    CHECK(netif_flush(&nif, &err) == 0);
    CHECK(!ng_rx_response(&g, &r) && notified == 0);
    netif_rx_deliver(&nif, f, 8000);              /* two will do */
    CHECK(netif_flush(&nif, &err) == 0);
    CHECK(ng_rx_response(&g, &r) && r.id == 1);
    CHECK(ng_rx_response(&g, &r) && r.id == 2 && r.status == 8000 - 4096);
}

/* A page granted read-only, not granted, another domain's: that response
 * is ERROR and the frame is dropped; the next frame takes the next page. */
static void rx_refused_pages(void)
{
    uint8_t f[100] = { 1, 2, 3 };
    struct netif_rx_response r;

    CHECK(setup());
    ng_grant(&g, 42, 42, 3, GTF_permit_access);
    ng_rx_post(&g, 1, 5);       /* read-only */
    ng_rx_post(&g, 2, 40);      /* not granted */
    ng_rx_post(&g, 3, 42);      /* domain 3's */
    ng_rx_post(&g, 4, 20);
    for (unsigned i = 0; i < 4; i++)
        netif_rx_deliver(&nif, f, sizeof(f));
    CHECK(netif_flush(&nif, &err) == 0);
    for (unsigned i = 1; i <= 3; i++)
        CHECK(ng_rx_response(&g, &r) && r.id == i && r.status == NETIF_RSP_ERROR && r.flags == 0);
    CHECK(ng_rx_response(&g, &r) && r.id == 4 && r.status == 100);
    CHECK(nif.counts.rx_errors == 3 && nif.counts.rx_packets == 1);
    CHECK(memcmp(ng_page(&g, 20), f, sizeof(f)) == 0);
    CHECK(no_grant_in_use());
}

/* A refused page in the middle of a chain ends it there. */
static void rx_refused_mid_chain(void)
{
    static uint8_t f[9000];
    struct netif_rx_response r;

    CHECK(setup());
    ng_rx_post(&g, 1, 20);
    ng_rx_post(&g, 2, 3);       /* read-only */
    ng_rx_post(&g, 3, 22);
    netif_rx_deliver(&nif, f, sizeof(f));
    CHECK(netif_flush(&nif, &err) == 0);
    CHECK(ng_rx_response(&g, &r) && r.id == 1 && r.flags == NETRXF_more_data);
    CHECK(ng_rx_response(&g, &r) && r.id == 2 && r.status == NETIF_RSP_ERROR && r.flags == 0);
    CHECK(!ng_rx_response(&g, &r));
    CHECK(nif.counts.rx_errors == 1 && nif.counts.rx_packets == 0);
}

static void rx_req_prod_beyond_the_ring(void)
{
    uint8_t f[100] = { 0 };

    CHECK(setup());
    ng_rx_header(&g)->req_prod = 300;
    netif_rx_deliver(&nif, f, sizeof(f));
    CHECK(nif.counts.rx_dropped == 1);
    EXPECT_STOP(netif_flush(&nif, &err), "rx ring index corrupted (req_prod 300");
    ng_rx_header(&g)->req_prod = 0;
    netif_rx_deliver(&nif, f, sizeof(f));          /* stays broken */
    CHECK(nif.counts.rx_dropped == 2);
    EXPECT_STOP(netif_tx_kick(&nif, &err), "rx ring index corrupted");
}

/* Found at the guest's next notification too, frame or none. */
static void rx_req_prod_beyond_the_ring_at_a_kick(void)
{
    CHECK(setup());
    ng_rx_header(&g)->req_prod = 257;
    ng_tx_request(&g, 1, 0, 0, 1, 64);
    ng_tx_publish(&g);
    EXPECT_STOP(netif_tx_kick(&nif, &err), "rx ring index corrupted (req_prod 257");
    CHECK(nsent == 0);
}

static void rx_notify_follows_rsp_event(void)
{
    uint8_t f[100] = { 0 };

    CHECK(setup());
    ng_rx_header(&g)->rsp_event = 3;
    for (unsigned i = 0; i < 4; i++)
        ng_rx_post(&g, (uint16_t)i, 20 + i);
    netif_rx_deliver(&nif, f, sizeof(f));
    CHECK(netif_flush(&nif, &err) == 0 && notified == 0);
    netif_rx_deliver(&nif, f, sizeof(f));
    netif_rx_deliver(&nif, f, sizeof(f));
    CHECK(netif_flush(&nif, &err) == 0 && notified == 1);   /* 3 reached */
}

static void open_refuses_corrupt_rings(void)
{
    struct netif_config cfg = { .gt = &g.gt, .send = send_frame, .notify = notify };

    ng_setup(&g, 0);
    ng_rx_header(&g)->req_prod = 1000;
    cfg.tx_ring = g.tx_ring;
    cfg.rx_ring = g.rx_ring;
    CHECK(netif_open(&nif, &cfg, &err) < 0);
    CHECK_CONTAINS(err.msg, "rx ring index corrupted at attach");
}

/* ---- net_csum on its own ---- */

static void csum_refuses_what_it_cannot_fill(void)
{
    uint8_t f[200], copy[200];
    size_t len = ip_frame(f, 6, 30);

    memcpy(copy, f, len);
    CHECK(!net_csum_fill(f, 14 + 19));             /* no room for an IP header */
    CHECK(!net_csum_fill(f, len - 1));             /* IP's length beyond the frame */
    f[14] = 0x44;                                  /* IHL 16 bytes */
    CHECK(!net_csum_fill(f, len));
    f[14] = 0x65;                                  /* version 6 */
    CHECK(!net_csum_fill(f, len));
    f[14] = 0x45;
    f[23] = 1;                                     /* ICMP */
    CHECK(!net_csum_fill(f, len));
    f[23] = 6;
    put16(f + 16, 20 + 19);                        /* a TCP header cut short */
    CHECK(!net_csum_fill(f, len));
    put16(f + 16, (uint16_t)(len - 14));
    f[21] = 1;                                     /* a fragment's offset */
    CHECK(!net_csum_fill(f, len));
    f[21] = 0;
    CHECK(memcmp(f, copy, len) == 0);              /* never touched */
    CHECK(net_csum_fill(f, len + 10) && l4_sums_right(f));   /* padding after */
}

/* A UDP sum that comes out 0 is sent as all ones (0 means "none"). */
static void csum_udp_zero_is_all_ones(void)
{
    uint8_t f[200];
    size_t len = ip_frame(f, 17, 20);

    CHECK(net_csum_fill(f, len));
    /* Add the sum to the last payload word: the new total comes to 0. */
    {
        uint32_t last = get16(f + len - 2) + get16(f + 40);

        put16(f + len - 2, (uint16_t)((last & 0xffff) + (last >> 16)));
    }
    CHECK(net_csum_fill(f, len));
    CHECK(get16(f + 40) == 0xffff && l4_sums_right(f));
}

int main(void)
{
    RUN(tx_single_slot);
    RUN(tx_scatter_gather);
    RUN(tx_eighteen_slots);
    RUN(tx_extras_answered_null);
    RUN(tx_batch_across_the_wrap);
    RUN(tx_notify_follows_rsp_event);
    RUN(tx_fills_tcp_checksum);
    RUN(tx_fills_udp_checksum_odd_length);
    RUN(tx_data_validated_left_alone);
    RUN(tx_blank_checksum_that_cannot_be_filled);
    RUN(tx_refused_grants);
    RUN(tx_runt);
    RUN(tx_req_prod_beyond_the_ring);
    RUN(tx_req_prod_moved_back);
    RUN(tx_full_ring);
    RUN(tx_nineteen_slots);
    RUN(tx_nineteen_slots_with_an_extra);
    RUN(tx_piece_beyond_its_page);
    RUN(tx_first_beyond_its_page);
    RUN(tx_first_smaller_than_the_rest);
    RUN(tx_unknown_extra_types);
    RUN(tx_packet_past_req_prod);
    RUN(rx_one_page);
    RUN(rx_chain);
    RUN(rx_chain_needs_sg);
    RUN(rx_too_few_pages);
    RUN(rx_refused_pages);
    RUN(rx_refused_mid_chain);
    RUN(rx_req_prod_beyond_the_ring);
    RUN(rx_req_prod_beyond_the_ring_at_a_kick);
    RUN(rx_notify_follows_rsp_event);
    RUN(open_refuses_corrupt_rings);
    RUN(csum_refuses_what_it_cannot_fill);
    RUN(csum_udp_zero_is_all_ones);
    ng_release(&g);
    return check_exit_status();
}
