/*
 * libFuzzer harness of the network card's data path (netif*.c,
 * netif_packet.c, net_csum.c) on the fake front end of the unit tests
 * (tests/unit/netif_guest.h: real guest memory and grant table): any tx
 * slots, any rx requests, any grants, any req_prod. Whatever comes, a
 * broken ring is one line and stays broken, and otherwise every request
 * taken is answered, no grant is left in use, and what is sent on is a
 * frame a link may carry.
 */
#include "fuzz.h"

#include "../../launcher/net/net_link.h"
#include "../../launcher/net/netif.h"
#include "../unit/netif_guest.h"

/* The input: a flags byte (bit 0: the front end takes rx chains), the
 * rings' start index (4 bytes), which of grefs 0-31 are granted (4
 * bytes), of those which read-only (4) and which to domain 1 (4); the
 * rounds (1 byte, at most 4), each a tx req_prod step and an rx req_prod
 * step (2 bytes each) and the length of a frame for the guest (2); then
 * the bytes of the first data page (tiled over all 32), the tx ring's
 * slots and the rx ring's. Gref i is page i. */
#define GREFS 32
#define MAX_ROUNDS 4

static struct netif_guest g;
static struct netif nif;
static uint8_t frame[NET_LINK_MAX_FRAME];

static void send_frame(void *arg, const uint8_t *f, size_t len)
{
    (void)arg;
    FUZZ_ASSERT(f == nif.frame && len >= 14 && len <= XEN_NETIF_MAX_TX_SIZE);
}

static void notify(void *arg)
{
    (void)arg;
}

static void grant_all(struct fuzz_in *in)
{
    uint32_t granted = (uint32_t)fuzz_uint(in, 4), ro = (uint32_t)fuzz_uint(in, 4);
    uint32_t other = (uint32_t)fuzz_uint(in, 4);

    for (uint32_t i = 0; i < GREFS; i++)
        ng_grant(&g, i, i, other >> i & 1,
                 (granted >> i & 1 ? GTF_permit_access : 0) | (ro >> i & 1 ? GTF_readonly : 0));
}

/* dst (len bytes) tiled with the n bytes at p (zeros if none). */
static void tile(uint8_t *dst, size_t len, const uint8_t *p, size_t n)
{
    if (!n) {
        memset(dst, 0, len);
        return;
    }
    for (size_t at = 0; at < len; at += n)
        memcpy(dst + at, p, len - at < n ? len - at : n);
}

static void fill(struct fuzz_in *in, size_t frame_len)
{
    size_t n;
    const uint8_t *p = fuzz_bytes(in, XEN_PAGE_SIZE, &n);

    for (uint32_t pg = 0; pg < GREFS; pg++)
        tile(ng_page(&g, pg), XEN_PAGE_SIZE, p, n);
    tile(frame, frame_len, p, n);
    p = fuzz_bytes(in, XEN_PAGE_SIZE - sizeof(struct xen_sring_header), &n);
    memcpy(g.tx_ring + sizeof(struct xen_sring_header), p, n);
    p = fuzz_bytes(in, XEN_PAGE_SIZE - sizeof(struct xen_sring_header), &n);
    memcpy(g.rx_ring + sizeof(struct xen_sring_header), p, n);
}

static bool no_grant_in_use(void)
{
    for (uint32_t i = 0; i < GREFS; i++)
        if (ng_grant_flags(&g, i) & (GTF_reading | GTF_writing))
            return false;
    return true;
}

static uint64_t tx_outcomes(void)
{
    return nif.counts.tx_packets + nif.counts.tx_errors + nif.counts.tx_dropped;
}

static uint64_t rx_outcomes(void)
{
    return nif.counts.rx_packets + nif.counts.rx_errors + nif.counts.rx_dropped;
}

/* One round: what the front end published, a kick, a frame, a flush.
 * False once a ring is broken. */
static bool round(uint16_t tx_step, uint16_t rx_step, size_t len)
{
    struct error e;
    uint64_t tx_before = tx_outcomes(), rx_before = rx_outcomes();
    long packets;

    ng_tx_header(&g)->req_prod += tx_step;
    ng_rx_header(&g)->req_prod += rx_step;
    packets = netif_tx_kick(&nif, &e);
    if (packets < 0) {
        FUZZ_ASSERT(fuzz_one_line(e.msg) && nif.broken);
        FUZZ_ASSERT(netif_tx_kick(&nif, &e) < 0 && netif_flush(&nif, &e) < 0);
        return false;
    }
    FUZZ_ASSERT(back_ring_unanswered(&nif.tx) == 0);
    FUZZ_ASSERT(tx_outcomes() - tx_before == (uint64_t)packets);
    netif_rx_deliver(&nif, frame, len);
    FUZZ_ASSERT(rx_outcomes() - rx_before == 1);
    FUZZ_ASSERT(no_grant_in_use());
    if (netif_flush(&nif, &e) < 0) {
        FUZZ_ASSERT(fuzz_one_line(e.msg) && nif.broken);
        return false;
    }
    FUZZ_ASSERT(back_ring_unanswered(&nif.rx) == 0);
    FUZZ_ASSERT(ng_tx_header(&g)->rsp_prod == nif.tx.req_cons);
    FUZZ_ASSERT(ng_rx_header(&g)->rsp_prod == nif.rx.req_cons);
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    struct fuzz_in in = { bytes, size };
    unsigned flags = (unsigned)fuzz_uint(&in, 1);
    uint32_t start = (uint32_t)fuzz_uint(&in, 4);
    uint16_t steps[MAX_ROUNDS][3];
    unsigned rounds;
    struct netif_config cfg = { .rx_sg = flags & 1, .send = send_frame, .notify = notify };
    struct error e;
    size_t longest = 0;

    if (!g.tx_ring)
        ng_setup(&g, start);   /* once: the memory and the table are kept */
    ng_reset(&g, start);
    grant_all(&in);
    rounds = (unsigned)fuzz_uint(&in, 1) % MAX_ROUNDS + 1;
    for (unsigned r = 0; r < rounds; r++) {
        for (unsigned i = 0; i < 3; i++)
            steps[r][i] = (uint16_t)fuzz_uint(&in, 2);
        longest = steps[r][2] > longest ? steps[r][2] : longest;
    }
    fill(&in, longest);
    cfg.gt = &g.gt;
    cfg.tx_ring = g.tx_ring;
    cfg.rx_ring = g.rx_ring;
    FUZZ_ASSERT(netif_open(&nif, &cfg, &e) == 0);   /* req_prod == rsp_prod */
    for (unsigned r = 0; r < rounds && round(steps[r][0], steps[r][1], steps[r][2]); r++)
        ;
    return 0;
}
