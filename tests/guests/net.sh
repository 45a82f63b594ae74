# The netif back end (launcher/net/vif.c, netif*.c) on libslirp's network (--net user)
# against the net guest's own front end (guests/net): an honest boot (ARP,
# DHCP, ICMP echoes over 3, 18 and 17 slots, a 65535-byte frame, both
# rings wrapping, every response checked, canary pages intact), then one
# hostile case per boot (attack=NAME): a corrupt ring or a tx frame beyond
# the rules stops the guest (status 5, one "perch: guest stopped: vif0:"
# line); wrong grants are answered ERROR and the guest goes on; a bad event
# channel closes the device only.
. tests/lib.sh

NET=$GUESTS/net.elf

# quiet NAME: perch said nothing on stderr (what Xen answers with an error
# is no reason for a line).
quiet() {
    if [ -s "$TMP/$1.err" ]; then
        fail "$1/stderr_empty" "$(head -c 300 "$TMP/$1.err")"
    else
        pass "$1/stderr_empty"
    fi
}

# ---- The honest boot ----
guest_run honest 90 --net user "$NET"
guest_lines net honest
expect_status honest 0
guest_passed net honest
quiet honest

# ---- Corrupt rings and frames beyond the rules: stopped, one line ----
stopped() {
    local attack=$1 regex=$2
    guest_run "$attack" 60 --net user --cmdline "attack=$attack" "$NET"
    expect_status "$attack" 5
    expect_one_line_error "$attack"
    expect_line "$attack" err "^perch: guest stopped: vif0: $regex"
}
stopped tx_req_prod 'tx ring index corrupted \(req_prod [0-9]+, req_cons [0-9]+, '
stopped rx_req_prod 'rx ring index corrupted \(req_prod [0-9]+, req_cons [0-9]+, '
stopped tx_slots_19 'tx packet of more than 18 slots$'
stopped tx_crosses_page 'tx piece beyond its page \(offset 4000, size 200\)$'
stopped tx_first_short 'tx packet of 100 bytes whose pieces after the first hold 150$'
stopped tx_total_big 'tx packet of 65535 bytes whose pieces after the first hold 65536$'
stopped tx_extra_unknown 'tx extra-info of unknown type 5$'

# ---- Wrong grants: ERROR responses, the guest goes on ----
for attack in tx_gref_ungranted tx_gref_other_domain tx_gref_beyond rx_grefs; do
    guest_run "$attack" 60 --net user --cmdline "attack=$attack" "$NET"
    guest_lines net "$attack"
    expect_status "$attack" 0
    guest_passed net "$attack"
    quiet "$attack"
done

# ---- An event channel that is not the guest's for domain 0 ----
for attack in evtchn_console evtchn_other; do
    guest_run "$attack" 60 --net user --cmdline "attack=$attack" "$NET"
    guest_lines net "$attack"
    expect_status "$attack" 0
    guest_passed net "$attack"
    expect_line "$attack" err '^perch: vif0: .*event-channel is not a port for domain 0'
done
