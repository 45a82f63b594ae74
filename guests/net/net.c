/*
 * net: perch's netif back end (launcher/net/vif.c, netif*.c) driven by a front end of
 * the guest's own (frontend.c) on libslirp's network (--net user),
 * honestly and not. One boot per case; tests/guests/net.sh checks
 * perch's status and lines.
 *
 *   (no attack)   a full rx ring; ARP for the gateway; DHCP DISCOVER and
 *                 its OFFER; ICMP echoes split over 3, 18 and 17 slots (the
 *                 last a 65535-byte frame) answered in full; 300 ARP
 *                 round trips, so both rings wrap; every tx response
 *                 OKAY, every rx response sane, the canaries intact.
 *   attack=NAME   a corrupt ring or a tx frame beyond the rules (perch
 *                 stops the guest), tx slots or rx buffers whose grants
 *                 are wrong (each answered ERROR, then ARP still works),
 *                 or an event channel that is not the guest's to give.
 */
#include "frames.h"
#include "frontend.h"

#include "../../abi/xen/io/xenbus.h"
#include "xenbus.h"

const char guest_name[] = "net";

static uint8_t frame[FRAME_MAX], in[FRAME_MAX];
static struct ip4_datagram dgram;
static uint8_t gw_mac[ETH_ALEN];

/* Every tx response of the honest run: the first that was not OKAY. */
static unsigned tx_sends, tx_bad;
static char tx_why[96];

static bool sent(const char *what, struct net_tx_result r, unsigned n)
{
    bool ok = r.got == n && r.okay == n && r.ids_ok && r.pages_intact;

    tx_sends++;
    if (!ok && !tx_bad++)
        fmt_snprintf(tx_why, sizeof(tx_why),
                     "%s: %u of %u responses, %u OKAY, %u ERROR, ids %s, pages %s", what,
                     r.got, n, r.okay, r.error, r.ids_ok ? "ok" : "wrong",
                     r.pages_intact ? "intact" : "written");
    return ok;
}

/* ---- Receiving ------------------------------------------------------------- */

/* What a frame is to the one awaited: another, a part of it, or all. */
enum match { OTHER, PART, WHOLE };
typedef enum match frame_match(const uint8_t *f, unsigned len, void *arg);

/* slirp asks for an address it has not seen before it sends there. */
static void answer_arp(const uint8_t *f, unsigned len)
{
    struct arp_view a;
    uint8_t reply[64];
    unsigned n;

    if (!read_arp(f, len, &a) || a.op != ARPOP_REQUEST || a.tip != SLIRP_GUEST)
        return;
    n = frame_arp(reply, ARPOP_REPLY, vif.mac, SLIRP_GUEST, a.sha, a.sip);
    sent("arp_answer", net_send(reply, n, 1, NULL), 1);
}

/* Frames into in[] until the awaited one is whole or `ms` pass: the
 * length of its last frame, or 0. Others are answered (ARP for us) or
 * dropped. */
static unsigned await(frame_match *match, void *arg, uint64_t ms)
{
    uint64_t deadline = rt_now_ns() + ms * RT_NS_PER_MS;
    static unsigned ignored;

    for (uint64_t now; (now = rt_now_ns()) < deadline;) {
        int n = net_recv(in, sizeof(in), (deadline - now) / RT_NS_PER_MS + 1);
        enum match m;

        if (n <= 0)
            continue;               /* nothing yet, or a refused buffer */
        m = match(in, (unsigned)n, arg);
        if (m == WHOLE)
            return (unsigned)n;
        if (m == PART)
            continue;
        if (ignored++ < 8)
            printk("net: a frame of %d bytes, type %#x, not the one awaited\n", n,
                   in[12] << 8 | in[13]);
        answer_arp(in, (unsigned)n);
    }
    return 0;
}

/* ---- ARP ------------------------------------------------------------------------ */

static enum match is_gateway_arp_reply(const uint8_t *f, unsigned len, void *arg)
{
    struct arp_view a;

    (void)arg;
    return read_arp(f, len, &a) && a.op == ARPOP_REPLY && a.sip == SLIRP_GATEWAY ? WHOLE
                                                                                : OTHER;
}

static unsigned arp_request_gateway(void)
{
    unsigned n = frame_arp(frame, ARPOP_REQUEST, vif.mac, SLIRP_GUEST, eth_broadcast,
                           SLIRP_GATEWAY);

    return sent("arp_request", net_send(frame, n, 1, NULL), 1);
}

/* Who has 10.0.2.2: slirp's answer, to us, from 52:55:0a:00:02:02. */
static void test_arp(void)
{
    struct arp_view a;
    unsigned n;

    check("arp_request_sent", arp_request_gateway(), "%s", tx_why);
    n = await(is_gateway_arp_reply, NULL, 2000);
    if (!check("arp_reply", n && read_arp(in, n, &a), "no ARP reply from 10.0.2.2 in 2 s"))
        return;
    check("arp_reply_fields", a.tip == SLIRP_GUEST && !memcmp(a.tha, vif.mac, ETH_ALEN) &&
          !memcmp(a.sha, gw_mac, ETH_ALEN) && !memcmp(in, vif.mac, ETH_ALEN) &&
          !memcmp(in + ETH_ALEN, gw_mac, ETH_ALEN),
          "target %#x, addresses not ours or not slirp's 52:55:0a:00:02:02", a.tip);
}

/* An ARP round trip with the gateway: the back end still serves. */
static bool arp_round_trip(void)
{
    return arp_request_gateway() && await(is_gateway_arp_reply, NULL, 1000);
}

/* 300 round trips: both rings' indices pass 256. */
static void test_ring_wraps(void)
{
    unsigned ok = 0;

    for (unsigned i = 0; i < 300 && ok == i; i++)
        ok += arp_round_trip();
    check("rings_wrap", ok == 300, "%u of 300 ARP round trips", ok);
}

/* ---- DHCP ------------------------------------------------------------------------ */

static enum match is_dhcp_reply(const uint8_t *f, unsigned len, void *arg)
{
    struct ip4_view ip;
    struct dhcp_view d;

    return read_ip4(f, len, &ip) && ip.proto == IPPROTO_UDP &&
           read_dhcp(ip.data, ip.len, &d) && d.xid == *(uint32_t *)arg ? WHOLE : OTHER;
}

static void test_dhcp(void)
{
    uint32_t xid = 0x7065726e;
    unsigned n = frame_dhcp_discover(frame, vif.mac, xid);
    struct ip4_view ip;
    struct dhcp_view d;

    check("dhcp_discover_sent", sent("dhcp", net_send(frame, n, 2, NULL), 2), "%s", tx_why);
    n = await(is_dhcp_reply, &xid, 3000);
    if (!check("dhcp_reply", n && read_ip4(in, n, &ip) && read_dhcp(ip.data, ip.len, &d),
               "no DHCP answer to xid %#x in 3 s", xid))
        return;
    check("dhcp_offer", d.type == DHCPOFFER && d.yiaddr == SLIRP_GUEST &&
          d.server == SLIRP_GATEWAY && !memcmp(d.chaddr, vif.mac, ETH_ALEN),
          "type %u, yiaddr %#x, server %#x", d.type, d.yiaddr, d.server);
}

/* ---- ICMP echo --------------------------------------------------------------------- */

/* Fragments of the gateway's next ICMP datagram gathered in dgram. */
static enum match is_echo_datagram(const uint8_t *f, unsigned len, void *arg)
{
    struct ip4_view ip;

    (void)arg;
    if (!read_ip4(f, len, &ip) || ip.src != SLIRP_GATEWAY || ip.proto != IPPROTO_ICMP ||
        ip.dst != SLIRP_GUEST)
        return OTHER;
    if (!dgram.have)
        ip4_datagram_start(&dgram, ip.src, IPPROTO_ICMP, ip.id);
    return ip4_datagram_add(&dgram, &ip) ? WHOLE : PART;
}

/* An echo of `payload` bytes to the gateway in `nslots` slots (grefs as
 * net_send takes them); true if its reply came whole and the same. */
static bool ping(const char *name, unsigned payload, unsigned nslots, const grant_ref_t *grefs,
                 struct net_tx_result *r)
{
    static uint16_t seq;
    struct echo_view e;
    unsigned n = frame_icmp_echo(frame, vif.mac, gw_mac, SLIRP_GATEWAY, 0x6e74, ++seq, payload);
    unsigned frames_before = net_rx_stats.frames;
    bool same;

    *r = net_send(frame, n, nslots, grefs);
    dgram.have = 0;
    if (!await(is_echo_datagram, NULL, 3000))
        return false;
    same = read_echo_reply(dgram.data, dgram.total, &e) && e.id == 0x6e74 && e.seq == seq &&
           e.len == payload;
    for (unsigned i = 0; same && i < payload; i++)
        same = e.payload[i] == echo_pattern(seq, i);
    printk("net: %s: %u-byte frame in %u slots, reply of %u bytes in %u frames\n", name, n,
           nslots, dgram.total, net_rx_stats.frames - frames_before);
    return same;
}

static void test_ping(const char *name, unsigned payload, unsigned nslots)
{
    struct net_tx_result r;
    bool answered = ping(name, payload, nslots, NULL, &r);

    check(name, sent(name, r, nslots) && answered,
          "tx: %u of %u responses, %u OKAY, ids %s, pages %s; reply %s", r.got, nslots, r.okay,
          r.ids_ok ? "ok" : "wrong", r.pages_intact ? "intact" : "written",
          answered ? "same" : "missing or different");
}

/* ---- The honest run -------------------------------------------------------------- */

static void test_honest(void)
{
    char why[96];

    check("rx_ring_full", net_rx_outstanding() == NET_RX_SLOTS &&
          net_rx_ring()->sring->req_prod == NET_RX_SLOTS,
          "%u posted, req_prod %u", net_rx_outstanding(), net_rx_ring()->sring->req_prod);
    test_arp();
    test_dhcp();
    test_ping("icmp_3_slots", 1000, 3);
    test_ping("icmp_18_slots", 8000, XEN_NETIF_NR_SLOTS_MIN);
    test_ping("icmp_65535_byte_frame", XEN_NETIF_MAX_TX_SIZE - ETH_HLEN - IP_HLEN - 8, 17);
    test_ring_wraps();
    printk("net: %u frames in %u rx slots (%u frames over several), %u error responses\n",
           net_rx_stats.frames, net_rx_stats.slots, net_rx_stats.multi_slot,
           net_rx_stats.errors);
    check("tx_responses_okay", !tx_bad, "%u of %u sends: %s", tx_bad, tx_sends, tx_why);
    check("rx_responses_sane", !net_rx_stats.insane && !net_rx_stats.errors,
          "%u insane (%s), %u errors", net_rx_stats.insane, net_rx_stats.why,
          net_rx_stats.errors);
    check("canaries_intact", net_canaries_intact(why, sizeof(why)), "%s", why);
}

/* ---- Frames beyond the rules: perch stops the guest ------------------------------ */

/* Slots of page `page`: size bytes at offset, more to come or not. */
static void slot(unsigned page, uint16_t offset, bool more, uint16_t size)
{
    net_tx_queue(NET_GREF_TX(page), offset, more ? NETTXF_more_data : 0, size);
}

static void attack_stop(const char *a)
{
    struct rt_ring *t = net_tx_ring(), *r = net_rx_ring();
    unsigned n = frame_arp(frame, ARPOP_REQUEST, vif.mac, SLIRP_GUEST, eth_broadcast,
                           SLIRP_GATEWAY);

    memcpy(net_tx_page[0], frame, n);
    if (!strcmp(a, "tx_req_prod")) {
        t->sring->req_prod = t->sring->rsp_prod + 1000;
        rt_evtchn_send(vif.port);
    } else if (!strcmp(a, "rx_req_prod")) {
        r->sring->req_prod = r->sring->rsp_prod + 1000;
        rt_evtchn_send(vif.port);
        arp_request_gateway();          /* and a frame to deliver */
    } else if (!strcmp(a, "tx_slots_19")) {
        n = frame_icmp_echo(frame, vif.mac, gw_mac, SLIRP_GATEWAY, 1, 1, 2000);
        net_send(frame, n, XEN_NETIF_NR_SLOTS_MIN + 1, NULL);
    } else if (!strcmp(a, "tx_crosses_page")) {
        memcpy(net_tx_page[0] + 4000, frame, 96);
        slot(0, 4000, false, 200);
        net_tx_wait(1, 2000);
    } else if (!strcmp(a, "tx_first_short")) {
        slot(0, 0, true, 100);
        slot(1, 0, false, 150);
        net_tx_wait(2, 2000);
    } else if (!strcmp(a, "tx_total_big")) {
        /* 17 full pages after a first slot that says 65535 in all. */
        slot(0, 0, true, XEN_NETIF_MAX_TX_SIZE);
        for (unsigned i = 1; i < 18; i++)
            slot(i, 0, i < 17, 4096);
        net_tx_wait(18, 2000);
    } else if (!strcmp(a, "tx_extra_unknown")) {
        net_tx_queue(NET_GREF_TX(0), 0, NETTXF_extra_info, (uint16_t)n);
        net_tx_queue_extra(XEN_NETIF_EXTRA_TYPE_MAX, 0);
        net_tx_wait(2, 2000);
    } else {
        test_fail("attack", "unknown attack %s", a);
        return;
    }
    printk("net: %s done\n", a);
    test_expect_stop("stopped");
}

/* ---- Wrong grants: answered ERROR, the guest goes on ----------------------------- */

static enum match echo_seen(const uint8_t *f, unsigned len, void *arg)
{
    struct ip4_view ip;

    (void)arg;
    return read_ip4(f, len, &ip) && ip.src == SLIRP_GATEWAY && ip.proto == IPPROTO_ICMP
               ? WHOLE : OTHER;
}

/* An ARP request through `gref`, then a 3-slot echo whose middle slot
 * names it: each slot answered ERROR, nothing sent on. */
static void bad_tx_gref(const char *name, grant_ref_t gref)
{
    unsigned n = frame_arp(frame, ARPOP_REQUEST, vif.mac, SLIRP_GUEST, eth_broadcast,
                           SLIRP_GATEWAY);
    grant_ref_t grefs[3] = { NET_GREF_TX(0), gref, NET_GREF_TX(2) };
    struct net_tx_result r = net_send(frame, n, 1, &gref);
    char what[48];

    fmt_snprintf(what, sizeof(what), "%s_one_slot", name);
    check(what, r.got == 1 && r.error == 1 && r.ids_ok, "%u responses, %u ERROR, %u OKAY",
          r.got, r.error, r.okay);
    n = frame_icmp_echo(frame, vif.mac, gw_mac, SLIRP_GATEWAY, 0x6e74, 999, 1000);
    r = net_send(frame, n, 3, grefs);
    fmt_snprintf(what, sizeof(what), "%s_middle_slot", name);
    check(what, r.got == 3 && r.error == 3 && r.ids_ok, "%u responses, %u ERROR, %u OKAY",
          r.got, r.error, r.okay);
    fmt_snprintf(what, sizeof(what), "%s_not_sent", name);
    check(what, !await(echo_seen, NULL, 500), "the gateway answered the refused echo");
}

static void attack_grant(const char *a)
{
    if (!strcmp(a, "tx_gref_ungranted")) {
        bad_tx_gref("ungranted", 400);
    } else if (!strcmp(a, "tx_gref_other_domain")) {
        rt_gnttab_grant(401, 5, rt_virt_to_mfn(net_tx_page[1]), true);
        bad_tx_gref("other_domain", 401);
    } else if (!strcmp(a, "tx_gref_beyond")) {
        bad_tx_gref("beyond_guest_table", RT_GNTTAB_ENTRIES + 100);
        bad_tx_gref("beyond_table", 32 * 512);
        bad_tx_gref("gref_max", 0xffffffffu);
    } else {
        test_fail("attack", "unknown attack %s", a);
        return;
    }
    check("still_serves", arp_round_trip(), "no ARP round trip after the refused sends");
}

/* rx slot 0 names a read-only grant of its buffer, slot 1 one never made. */
#define RX_GREF_RO         420u
#define RX_GREF_UNGRANTED  421u

static grant_ref_t hostile_rx_gref(unsigned slot)
{
    if (slot == 0) {
        rt_gnttab_grant(RX_GREF_RO, 0, rt_virt_to_mfn(net_rx.buf[0]), true);
        return RX_GREF_RO;
    }
    return slot == 1 ? RX_GREF_UNGRANTED : NET_GREF_RX(slot);
}

/* The first two frames land in slots 0 and 1: ERROR each, buffers kept. */
static void attack_rx_grefs(void)
{
    int st[2];

    for (unsigned i = 0; i < 2; i++) {
        arp_request_gateway();
        st[i] = net_recv(in, sizeof(in), 2000);
    }
    check("rx_readonly_gref", st[0] == NETIF_RSP_ERROR, "slot 0's response: %d", st[0]);
    check("rx_ungranted_gref", st[1] == NETIF_RSP_ERROR, "slot 1's response: %d", st[1]);
    check("rx_buffers_unwritten", !net_rx_stats.insane, "%s", net_rx_stats.why);
    check("rx_ro_grant_released", rt_gnttab_end(RX_GREF_RO), "GTF_reading/writing still set: %#x",
          rt_gnttab[RX_GREF_RO].flags);
    check("still_serves", arp_round_trip(), "no ARP round trip after the refused buffers");
}

/* ---- The handshake ------------------------------------------------------------------- */

/* The console's port (or one not ours) as event-channel: refused,
 * "error" written, the device closed; then a proper handshake connects. */
static void attack_evtchn(const char *which)
{
    uint32_t port = !strcmp(which, "console") ? rt_start_info->console.domU.evtchn : 4000;
    char path[160], why[160];
    int s = net_connect(port, NULL);

    check("evtchn_refused", s == XenbusStateClosing || s == XenbusStateClosed,
          "event-channel %u: back end state %d, want 5 or 6", port, s);
    fmt_snprintf(path, sizeof(path), "%s/error", vif.be);
    check("evtchn_error_node", !rt_xs_read(path, why, sizeof(why)) && why[0], "no %s", path);
    printk("net: back end error: %s\n", why);
    if (!check("evtchn_restart", net_restart(), "state 1 not written"))
        return;
    s = net_connect(0, NULL);
    if (check("evtchn_reconnected", s == XenbusStateConnected, "back end state %d", s)) {
        slirp_mac(gw_mac, SLIRP_GATEWAY);
        check("evtchn_still_serves", arp_round_trip(), "no ARP round trip");
    }
}

static bool is_stop_attack(const char *a)
{
    return !strcmp(a, "tx_req_prod") || !strcmp(a, "rx_req_prod") ||
           !strcmp(a, "tx_slots_19") || !strcmp(a, "tx_crosses_page") ||
           !strcmp(a, "tx_first_short") || !strcmp(a, "tx_total_big") ||
           !strcmp(a, "tx_extra_unknown");
}

void guest_main(const struct start_info *si)
{
    const char *attack = cmdline_get(si, "attack");
    int s;

    if (!attack)
        attack = "none";
    if (!rt_xenbus_init(si) || !net_probe())
        goto out;
    check("backend_features", vif.sg == 1 && vif.rx_copy == 1 && !vif.split &&
          vif.queues <= 1 && !vif.gso, "sg %u, rx-copy %u, split %u, queues %u, gso %u",
          vif.sg, vif.rx_copy, vif.split, vif.queues, vif.gso);
    if (!strncmp(attack, "evtchn_", 7)) {
        attack_evtchn(attack + 7);
        goto out;
    }
    s = net_connect(0, !strcmp(attack, "rx_grefs") ? hostile_rx_gref : NULL);
    if (!check("connected", s == XenbusStateConnected, "back end state %d", s))
        goto out;
    slirp_mac(gw_mac, SLIRP_GATEWAY);
    if (!strcmp(attack, "none"))
        test_honest();
    else if (is_stop_attack(attack))
        attack_stop(attack);
    else if (!strcmp(attack, "rx_grefs"))
        attack_rx_grefs();
    else
        attack_grant(attack);
out:
    printk("net: %u passed, %u failed\n", tests_passed, tests_failed);
}
