/* SPDX-License-Identifier: MIT */
/*
 * Switch forwarding: unicast by the linear forwarding table, multicast by the multicast forwarding
 * table (IBA 18.2.4), directed-route SMPs by the hop pointer and the paths in the SMP (IBA 14.2.2),
 * and SMPs addressed to the switch itself answered by its SMA at port 0.
 */
#include "fabsim.h"
#include "mirror.h"
#include "smp.h"

#include <string.h>

#include <ibboot/wire/bytes.h>

static bool switch_owns_lid(const struct node *sw, uint16_t lid)
{
	const struct port_info_state *pi = &sw->ports[0].pi;

	return pi->lid && lid >= pi->lid && lid < pi->lid + (1u << pi->lmc);
}

/* SMPs (VL15) may cross a link that is up in any logical state; other traffic needs Active
 * (IBA 7.2, 18.2.4.4). */
static bool egress_ok(struct port *out, bool vl15)
{
	if (!out->link || !out->link->phys_up)
		return false;
	return vl15 || out->pi.state == PORT_ACTIVE;
}

static void drop(struct fabric *f, struct port *in, uint64_t *counter, const char *why)
{
	(*counter)++;
	f->dropped_total++;
	fabsim_log(f, 2, "%s:%u dropped a packet: %s", in->node->name, in->num, why);
}

static void switch_answer_lid_routed(struct fabric *f, struct node *sw, struct port *in,
				     uint8_t *pkt, const struct pkt_hdrs *h);

#define DROP(f, in, counter, why) \
	do { \
		drop(f, in, &(in)->cnt.counter, why); \
		return; \
	} while (0)

/* Forward a unicast packet by the LFT, from `in` (port 0 when the switch originates it). */
static void forward_unicast(struct fabric *f, struct node *sw, struct port *in, uint8_t *pkt,
			    size_t len, const struct pkt_hdrs *h)
{
	bool vl15 = h->vl == 15;
	unsigned out;

	if (switch_owns_lid(sw, h->dlid)) {
		if (in->num == 0)
			DROP(f, in, no_route, "switch sent a packet to itself");
		switch_answer_lid_routed(f, sw, in, pkt, h);
		return;
	}
	if (h->dlid == 0 || h->dlid >= FABSIM_LFT_SIZE)
		DROP(f, in, no_route, "DLID outside the unicast range");
	out = sw->lft[h->dlid];
	if (out == 0xff || out > sw->nports)
		DROP(f, in, no_route, "no LFT entry for DLID");
	if (out == 0) {
		switch_answer_lid_routed(f, sw, in, pkt, h);
		return;
	}
	if (out == in->num)
		DROP(f, in, no_route, "LFT points back out the arrival port");
	if (!egress_ok(&sw->ports[out], vl15))
		DROP(f, in, not_active, "egress port not up/active");
	/* Last use of the bytes here: the packet leaves in the event it arrived in. */
	port_forward(f, &sw->ports[out], pkt, len);
}

static void forward_multicast(struct fabric *f, struct node *sw, struct port *in, uint8_t *pkt,
			      size_t len, const struct pkt_hdrs *h)
{
	unsigned idx = h->dlid - LID_MCAST_FIRST;
	unsigned sent = 0;

	if (idx >= FABSIM_MFT_SIZE)
		DROP(f, in, no_route, "MLID beyond the MFT");
	/* IBA 18.2.4.3.2: copies go to every port in the MLID's mask except the arrival port. */
	for (unsigned p = 1; p <= sw->nports; p++) {
		if (p == in->num || !(sw->mft[idx][p / 16] & (1u << (p % 16))))
			continue;
		if (!egress_ok(&sw->ports[p], false))
			continue;
		port_transmit(f, &sw->ports[p], pkt, len);
		sent++;
	}
	if (!sent)
		fabsim_log(f, 2, "%s: MLID 0x%04x from port %u has no other member port", sw->name,
			   h->dlid, in->num);
}

/* An SMP that ends at this switch: the SMA answers, the response leaves by LID routing. */
static void switch_answer_lid_routed(struct fabric *f, struct node *sw, struct port *in,
				     uint8_t *pkt, const struct pkt_hdrs *h)
{
	uint8_t mad[MAD_BYTES], out[FABSIM_MAX_PKT];
	struct pkt_hdrs rh;
	size_t n;

	if (h->vl != 15 || !h->is_ud || h->dqpn != 0 || h->payload_len < MAD_BYTES)
		DROP(f, in, unknown_qp, "non-SMP to the switch (no PMA or GSI here)");
	memcpy(mad, pkt + h->payload_off, MAD_BYTES);
	if (mad[MAD_MGMT_CLASS] != MGMT_CLASS_SUBN_LID)
		DROP(f, in, malformed, "LID-routed SMP with a DR class");
	if (!sma_process(f, in, mad))
		return;
	n = pkt_build_ud(out, sizeof(out), 15, 0, h->slid, sw->ports[0].pi.lid, 0xffff, h->sqpn, 0,
			 0, sw->ports[0].psn++, mad, MAD_BYTES);
	if (!n || pkt_parse(out, n, &rh) != PKT_OK)
		return;
	forward_unicast(f, sw, &sw->ports[0], out, n, &rh);
}

/* Directed-route SMP hop processing at a switch (IBA 14.2.2.2 outgoing, 14.2.2.4 returning).
 * The switch rewrites hop pointer and return path, so it refreshes the CRCs before sending. */
static void switch_directed_route(struct fabric *f, struct node *sw, struct port *in, uint8_t *pkt,
				  size_t len, const struct pkt_hdrs *h)
{
	uint8_t *mad = pkt + h->payload_off;
	unsigned hp = mad[MAD_HOP_PTR], hc = mad[MAD_HOP_CNT], out;
	bool returning = get_be16(mad + MAD_STATUS) & SMP_DIRECTION;

	if (hc >= 64)
		DROP(f, in, dr_dropped, "DR hop count beyond 63");
	if (!returning) {
		if (hp == 0 || hp > hc)
			DROP(f, in, dr_dropped, "DR hop pointer out of range");
		mad[SMP_RETURN_PATH + hp] = (uint8_t)in->num;      /* C14-9:2, C14-9:3 */
		if (hp < hc) {
			out = mad[SMP_INITIAL_PATH + hp + 1];
			mad[MAD_HOP_PTR] = (uint8_t)(hp + 1);
		} else {
			/* End of the directed path: this switch is the destination. LID-routed tails
			 * (DrDLID not permissive) are not modelled. */
			if (get_be16(mad + SMP_DR_DLID) != LID_PERMISSIVE)
				DROP(f, in, dr_dropped, "DR SMP with a LID-routed tail");
			if (!sma_process(f, in, mad))
				return;
			put_be16(mad + MAD_STATUS,
				       (uint16_t)(get_be16(mad + MAD_STATUS) | SMP_DIRECTION));
			/* C14-13:1: the response leaves through ReturnPath[HopCount] = arrival port. */
			mad[MAD_HOP_PTR] = (uint8_t)hc;
			out = in->num;
		}
	} else {
		if (hp < 2 || hp > hc)
			DROP(f, in, dr_dropped,
			     "returning DR SMP with hop pointer out of range (LID-routed head?)");
		out = mad[SMP_RETURN_PATH + hp - 1];                 /* C14-13:2 */
		mad[MAD_HOP_PTR] = (uint8_t)(hp - 1);
	}
	if (out == 0 || out > sw->nports)
		DROP(f, in, dr_dropped, "DR path names no physical port");
	if (!egress_ok(&sw->ports[out], true))
		DROP(f, in, dr_dropped, "DR path leaves through a down port");
	pkt_refresh_crcs(pkt, len);
	port_transmit(f, &sw->ports[out], pkt, len);
}

/* Trap 128 "link state of a switch port changed" (a generic Notice, IBA 14.2.5.1 / 14.3: Urgent,
 * producer type switch, DataDetails = the switch's LID), LID-routed to the SM so it sweeps at once
 * instead of at its next periodic sweep. Sent once; a lost trap only delays the SM. */
void switch_send_trap128(struct fabric *f, struct node *sw)
{
	const struct port_info_state *pi = &sw->ports[0].pi;
	uint8_t mad[MAD_BYTES] = { 0 }, out[FABSIM_MAX_PKT];
	struct pkt_hdrs h;
	size_t n;

	if (!pi->lid || !pi->smlid || switch_owns_lid(sw, pi->smlid))
		return;
	mad[MAD_BASE_VERSION] = 1;
	mad[MAD_MGMT_CLASS] = MGMT_CLASS_SUBN_LID;
	mad[MAD_CLASS_VERSION] = 1;
	mad[MAD_METHOD] = METHOD_TRAP;
	put_be64(mad + MAD_TID, 0x7472617000000000ull | sw->ports[0].psn);
	put_be16(mad + MAD_ATTR_ID, ATTR_NOTICE);
	mad[SMP_DATA + 0] = 0x80 | 1;                 /* IsGeneric, Type 1 (urgent) */
	put_be24(mad + SMP_DATA + 1, 2);        /* ProducerType: switch */
	put_be16(mad + SMP_DATA + 4, 128);      /* TrapNumber */
	put_be16(mad + SMP_DATA + 6, pi->lid);  /* IssuerLID */
	put_be16(mad + SMP_DATA + 10, pi->lid); /* DataDetails: LIDADDR */
	n = pkt_build_ud(out, sizeof(out), 15, 0, pi->smlid, pi->lid, 0xffff, 0, 0, 0,
			 sw->ports[0].psn++, mad, MAD_BYTES);
	if (!n || pkt_parse(out, n, &h) != PKT_OK)
		return;
	fabsim_log(f, 1, "%s: trap 128 to SM LID %u", sw->name, pi->smlid);
	forward_unicast(f, sw, &sw->ports[0], out, n, &h);
}

void switch_receive(struct fabric *f, struct port *in, uint8_t *pkt, size_t len,
		    const struct pkt_hdrs *h)
{
	struct node *sw = in->node;

	if (!h->has_bth)
		DROP(f, in, malformed, "raw packet (no BTH)");
	if (h->vl == 15) {
		if (!h->is_ud || h->dqpn != 0 || h->payload_len < MAD_BYTES)
			DROP(f, in, malformed, "VL15 packet that is not an SMP");
		if (pkt[h->payload_off + MAD_MGMT_CLASS] == MGMT_CLASS_SUBN_DR &&
		    h->dlid == LID_PERMISSIVE)
			switch_directed_route(f, sw, in, pkt, len, h);
		else
			forward_unicast(f, sw, in, pkt, len, h);
		return;
	}
	/* Data VLs flow only through Active ports (IBA 7.2.5.2). */
	if (in->pi.state != PORT_ACTIVE)
		DROP(f, in, not_active, "data packet at a port that is not Active");
	mirror_sa_request(f, in, pkt, len, h);
	if (h->dlid >= LID_MCAST_FIRST && h->dlid != LID_PERMISSIVE) {
		forward_multicast(f, sw, in, pkt, len, h);
		return;
	}
	if (h->dlid == LID_PERMISSIVE)
		DROP(f, in, no_route, "permissive DLID on a data VL");
	forward_unicast(f, sw, in, pkt, len, h);
}
