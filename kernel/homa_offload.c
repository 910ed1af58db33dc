// SPDX-License-Identifier: BSD-2-Clause

/* Software GSO for Homa DATA on transmit: when the device cannot segment a
 * multi-segment skb, the stack calls homa_gso_segment() (registered for
 * IPv4 and IPv6). Whole GSO skbs that reach a receiver are split by
 * homa_softirq() (homa_incoming.c), which hands each segment on.
 */

#include <linux/skbuff.h>
#include <net/protocol.h>

#include "homa_impl.h"
#include "homa_pacer.h"

/* Software segmentation of a Homa GSO skb (the device cannot do it):
 * skb->data is at the Homa header. Each segment gets a copy of the 52-byte
 * prefix; its sequence is set to its own seg.offset.
 */
static struct sk_buff *homa_gso_segment(struct sk_buff *skb,
					netdev_features_t features)
{
	struct sk_buff *segs, *seg;
	struct homa_data_hdr *h;
	__be32 offset, *p;

	if (!pskb_may_pull(skb, sizeof(struct homa_data_hdr)))
		return ERR_PTR(-EINVAL);
	h = (struct homa_data_hdr *)skb->data;
	if (h->common.type != DATA)
		return ERR_PTR(-EINVAL);
	__skb_pull(skb, HOMA_DATA_PREFIX_LEN);
	segs = skb_segment(skb, features);
	if (IS_ERR_OR_NULL(segs))
		return segs;
	if (skb->destructor == homa_tx_skb_done)
		homa_tx_charge_segments(skb, segs);
	if (skb->dev)
		HOMA_INC(homa_net(dev_net(skb->dev)), gso_tx_segmented);
	for (seg = segs; seg; seg = seg->next) {
		p = skb_header_pointer(seg, skb_transport_offset(seg) +
				       HOMA_DATA_PREFIX_LEN, sizeof(offset),
				       &offset);
		if (!p)
			continue;
		h = (struct homa_data_hdr *)skb_transport_header(seg);
		h->common.sequence = *p;
	}
	return segs;
}

static const struct net_offload homa_offload = {
	.callbacks = {
		.gso_segment	= homa_gso_segment,
	},
};

/**
 * homa_offload_init() - register software GSO for IPv4 and IPv6.
 *
 * Return: 0 or a negative errno.
 */
int homa_offload_init(void)
{
	int err;

	/* Both return -1 when the slot is taken: say -EBUSY, not -EPERM. */
	err = inet_add_offload(&homa_offload, IPPROTO_HOMA);
	if (err)
		return -EBUSY;
	err = inet6_add_offload(&homa_offload, IPPROTO_HOMA);
	if (err) {
		inet_del_offload(&homa_offload, IPPROTO_HOMA);
		return -EBUSY;
	}
	return 0;
}

/**
 * homa_offload_exit() - unregister what homa_offload_init() registered.
 */
void homa_offload_exit(void)
{
	inet6_del_offload(&homa_offload, IPPROTO_HOMA);
	inet_del_offload(&homa_offload, IPPROTO_HOMA);
}
