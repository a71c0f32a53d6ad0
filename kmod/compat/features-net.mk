# SPDX-License-Identifier: GPL-2.0
# Kernel differences of the net family (see features.mk).
#
# None so far.  The five tracepoints it hooks (include/trace/events/net.h)
# have kept their prototypes from 5.10 through 6.12:
#   net_dev_queue(skb), netif_rx(skb), netif_receive_skb(skb),
#   net_dev_start_xmit(const skb, const dev),
#   net_dev_xmit(skb, int rc, dev, unsigned int skb_len).
# Only their TP_fast_assign bodies changed (__assign_str lost its source
# argument in 6.10).  netif_rx still fires in netif_rx_internal(), which
# 5.10's netif_rx_ni() and 6.x's __netif_rx() both reach.
# GPULAT_CHECK_PROBE() in probe_net.c fails the build on any drift.
