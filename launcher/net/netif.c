/* The network card's data path: the rings attached, responses published. See netif.h. */
#include "netif.h"

#include <string.h>

int netif_open(struct netif *n, const struct netif_config *cfg, struct error *e)
{
    void *tx[1] = { cfg->tx_ring }, *rx[1] = { cfg->rx_ring };

    memset(&n->counts, 0, sizeof(n->counts));
    n->cfg = *cfg;
    n->broken = false;
    if (back_ring_attach(&n->tx, "tx", tx, 1, sizeof(union netif_tx_sring_entry), e) ||
        back_ring_attach(&n->rx, "rx", rx, 1, sizeof(union netif_rx_sring_entry), e))
        return -1;
    return 0;
}

/* One notification for both rings' news: Linux's netfront takes its tx
 * and rx responses on the one event channel perch offers. */
int netif_flush(struct netif *n, struct error *e)
{
    bool tx = back_ring_push(&n->tx);
    bool rx = back_ring_push(&n->rx);

    if (tx || rx)
        n->cfg.notify(n->cfg.arg);
    if (n->broken) {
        *e = n->problem;
        return -1;
    }
    return 0;
}
