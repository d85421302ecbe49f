/* SPDX-License-Identifier: MIT */
/* MAD common header (IBA 13.4.2), SMP directed-route processing (14.2.2), SA header (15.2.1.1),
 * SA records (15.2.5.16/17), ClassPortInfo (13.4.8.1), SMInfo (14.2.5.13), PortCounters (16.1.3). */
#include <ibboot/wire/mad.h>
#include <ibboot/wire/bytes.h>

void iblib_mad_hdr_get(const uint8_t *mad, struct iblib_mad_hdr *h)
{
	h->base_version = mad[0];
	h->mgmt_class = mad[1];
	h->class_version = mad[2];
	h->method = mad[3];
	h->status = get_be16(mad + 4);
	h->class_specific = get_be16(mad + 6);
	h->tid = get_be64(mad + 8);
	h->attr_id = get_be16(mad + 16);
	h->attr_mod = get_be32(mad + 20);
}

void iblib_mad_hdr_put(uint8_t *mad, const struct iblib_mad_hdr *h)
{
	mad[0] = h->base_version;
	mad[1] = h->mgmt_class;
	mad[2] = h->class_version;
	mad[3] = h->method;
	put_be16(mad + 4, h->status);
	put_be16(mad + 6, h->class_specific);
	put_be64(mad + 8, h->tid);
	put_be16(mad + 16, h->attr_id);
	put_be16(mad + 18, 0);
	put_be32(mad + 20, h->attr_mod);
}

int iblib_mad_check(const uint8_t *mad, size_t len)
{
	if (!mad || len != IBLIB_MAD_BYTES)
		return IBLIB_E_MAD;
	if (mad[0] != IBLIB_MAD_BASE_VERSION)
		return IBLIB_E_MAD;
	if (mad[1] == IBLIB_MCLASS_SUBN_DR) {
		uint8_t ptr = iblib_smp_dr_hop_ptr(mad), cnt = iblib_smp_dr_hop_cnt(mad);

		if (cnt > IBLIB_SMP_MAX_HOPS || ptr > cnt + 1)
			return IBLIB_E_MAD;
	}
	return 0;
}

static uint8_t response_method(uint8_t method)
{
	switch (method) {
	case IBLIB_METHOD_GET:
	case IBLIB_METHOD_SET:
		return IBLIB_METHOD_GET_RESP;
	case IBLIB_METHOD_TRAP:
		return IBLIB_METHOD_TRAP_REPRESS;
	case IBLIB_METHOD_GET_TRACE_TABLE:
		return IBLIB_METHOD_GET_TABLE_RESP;
	default:
		return (uint8_t)(method | IBLIB_METHOD_RESP);
	}
}

void iblib_mad_make_response(uint8_t *resp, const uint8_t *req, uint16_t status)
{
	if (resp != req)
		iblib_memcpy(resp, req, IBLIB_MAD_BYTES);
	resp[3] = response_method(req[3]);
	if (req[1] == IBLIB_MCLASS_SUBN_DR)
		put_be16(resp + 4, (uint16_t)(IBLIB_SMP_DR_D_BIT | (status & 0x7FFF)));
	else
		put_be16(resp + 4, status);
}

uint64_t iblib_smp_mkey(const uint8_t *mad) { return get_be64(mad + IBLIB_SMP_MKEY_OFF); }
void iblib_smp_set_mkey(uint8_t *mad, uint64_t mkey) { put_be64(mad + IBLIB_SMP_MKEY_OFF, mkey); }

uint16_t iblib_smp_status(const uint8_t *mad)
{
	uint16_t st = get_be16(mad + 4);

	return iblib_smp_is_dr(mad) ? (uint16_t)(st & 0x7FFF) : st;
}

static bool dr_slid_permissive(const uint8_t *mad)
{
	return get_be16(mad + IBLIB_SMP_DR_SLID_OFF) == IBLIB_LID_PERMISSIVE;
}

static bool dr_dlid_permissive(const uint8_t *mad)
{
	return get_be16(mad + IBLIB_SMP_DR_DLID_OFF) == IBLIB_LID_PERMISSIVE;
}

/* Outgoing direction (D = 0), IBA 14.2.2.2 C14-6 .. C14-9. */
static int dr_outgoing(uint8_t *mad, bool is_switch, unsigned in_port, unsigned num_ports,
		       unsigned *out_port)
{
	uint8_t ptr = mad[6], cnt = mad[7];
	uint8_t *ipath = mad + IBLIB_SMP_INITIAL_PATH_OFF, *rpath = mad + IBLIB_SMP_RETURN_PATH_OFF;

	if (in_port == 0) {
		/* Originated here (by the local SM). */
		if (ptr != 0)
			return IBLIB_E_DR_PATH;
		if (cnt == 0)
			return dr_dlid_permissive(mad) ? IBLIB_DR_LOCAL : IBLIB_E_DR_PATH;
		if (ipath[1] == 0 || ipath[1] > num_ports)
			return IBLIB_E_DR_PATH;
		mad[6] = 1;
		*out_port = ipath[1];
		return IBLIB_DR_SEND;
	}
	if (cnt != 0 && ptr >= 1 && ptr < cnt) {
		/* Intermediate hop: only a switch relays. */
		if (!is_switch)
			return IBLIB_E_DR_PATH;
		if (ipath[ptr + 1] == 0 || ipath[ptr + 1] > num_ports)
			return IBLIB_E_DR_PATH;
		rpath[ptr] = (uint8_t)in_port;
		mad[6] = ++ptr;
		*out_port = ipath[ptr];
		return IBLIB_DR_FORWARD;
	}
	if (cnt != 0 && ptr == cnt) {
		/* End of the directed part of the path. */
		rpath[ptr] = (uint8_t)in_port;
		mad[6] = (uint8_t)(ptr + 1);
		if (dr_dlid_permissive(mad))
			return IBLIB_DR_LOCAL;
		return is_switch ? IBLIB_DR_LID_ROUTE : IBLIB_E_DR_PATH;
	}
	if (ptr == cnt + 1)
		return IBLIB_DR_LOCAL;  /* arrived over the LID-routed tail (C14-9:4) */
	return IBLIB_E_DR_PATH;
}

/* Returning direction (D = 1), IBA 14.2.2.3 C14-11 .. C14-13. */
static int dr_returning(uint8_t *mad, bool is_switch, unsigned in_port, unsigned num_ports,
			unsigned *out_port)
{
	uint8_t ptr = mad[6], cnt = mad[7];
	uint8_t *rpath = mad + IBLIB_SMP_RETURN_PATH_OFF;

	if (in_port == 0)
		return iblib_smp_dr_respond(mad, is_switch, num_ports, out_port);
	if (cnt != 0 && ptr >= 2 && ptr <= cnt) {
		if (!is_switch)
			return IBLIB_E_DR_PATH;
		if (rpath[ptr - 1] == 0 || rpath[ptr - 1] > num_ports)
			return IBLIB_E_DR_PATH;
		mad[6] = --ptr;
		*out_port = rpath[ptr];
		return IBLIB_DR_FORWARD;
	}
	if (cnt != 0 && ptr == 1) {
		mad[6] = 0;
		return dr_slid_permissive(mad) ? IBLIB_DR_LOCAL : IBLIB_E_DR_PATH;
	}
	if (ptr == 0)
		return IBLIB_DR_LOCAL;  /* came back LID-routed to the requester */
	return IBLIB_E_DR_PATH;
}

int iblib_smp_dr_recv(uint8_t *mad, bool is_switch, unsigned in_port, unsigned num_ports,
		      unsigned *out_port)
{
	unsigned dummy;

	if (!out_port)
		out_port = &dummy;
	*out_port = 0;
	if (!iblib_smp_is_dr(mad) || mad[7] > IBLIB_SMP_MAX_HOPS || in_port > num_ports)
		return IBLIB_E_DR_PATH;
	if (iblib_smp_dr_d(mad))
		return dr_returning(mad, is_switch, in_port, num_ports, out_port);
	return dr_outgoing(mad, is_switch, in_port, num_ports, out_port);
}

int iblib_smp_dr_respond(uint8_t *resp, bool is_switch, unsigned num_ports, unsigned *out_port)
{
	uint8_t ptr = resp[6], cnt = resp[7];
	unsigned dummy;

	if (!out_port)
		out_port = &dummy;
	*out_port = 0;
	if (!iblib_smp_is_dr(resp) || !iblib_smp_dr_d(resp) || cnt > IBLIB_SMP_MAX_HOPS)
		return IBLIB_E_DR_PATH;
	if (cnt == 0 && ptr == 0)
		return IBLIB_DR_LOCAL;
	if (cnt != 0 && ptr == cnt + 1) {
		if (!dr_slid_permissive(resp))
			return IBLIB_DR_LID_ROUTE;
		if (is_switch) {
			uint8_t port = resp[IBLIB_SMP_RETURN_PATH_OFF + cnt];

			if (port == 0 || port > num_ports)
				return IBLIB_E_DR_PATH;
			*out_port = port;
		}
		resp[6] = cnt;
		return IBLIB_DR_SEND;
	}
	return IBLIB_E_DR_PATH;
}

void iblib_sa_hdr_get(const uint8_t *mad, struct iblib_sa_hdr *h)
{
	const uint8_t *r = mad + IBLIB_SA_RMPP_OFF;

	h->rmpp_version = r[0];
	h->rmpp_type = r[1];
	h->rmpp_resp_time = r[2] >> 3;
	h->rmpp_flags = r[2] & 7;
	h->rmpp_status = r[3];
	h->rmpp_data1 = get_be32(r + 4);
	h->rmpp_data2 = get_be32(r + 8);
	h->sm_key = get_be64(mad + IBLIB_SA_SMKEY_OFF);
	h->attr_offset = get_be16(mad + IBLIB_SA_ATTR_OFFSET_OFF);
	h->comp_mask = get_be64(mad + IBLIB_SA_COMP_MASK_OFF);
}

void iblib_sa_hdr_put(uint8_t *mad, const struct iblib_sa_hdr *h)
{
	uint8_t *r = mad + IBLIB_SA_RMPP_OFF;

	r[0] = h->rmpp_version;
	r[1] = h->rmpp_type;
	r[2] = (uint8_t)((h->rmpp_resp_time & 0x1F) << 3 | (h->rmpp_flags & 7));
	r[3] = h->rmpp_status;
	put_be32(r + 4, h->rmpp_data1);
	put_be32(r + 8, h->rmpp_data2);
	put_be64(mad + IBLIB_SA_SMKEY_OFF, h->sm_key);
	put_be16(mad + IBLIB_SA_ATTR_OFFSET_OFF, h->attr_offset);
	put_be16(mad + IBLIB_SA_ATTR_OFFSET_OFF + 2, 0);
	put_be64(mad + IBLIB_SA_COMP_MASK_OFF, h->comp_mask);
}

/* Selector (2 bits) + value (6 bits) bytes */
static uint8_t sel_val(uint8_t sel, uint8_t val) { return (uint8_t)((sel & 3) << 6 | (val & 0x3F)); }

void iblib_path_record_get(const uint8_t *p, struct iblib_path_record *r)
{
	uint32_t w = get_be32(p + 44);
	uint16_t q = get_be16(p + 52);

	r->service_id = get_be64(p);
	iblib_memcpy(r->dgid.raw, p + 8, 16);
	iblib_memcpy(r->sgid.raw, p + 24, 16);
	r->dlid = get_be16(p + 40);
	r->slid = get_be16(p + 42);
	r->raw_traffic = (w >> 31) != 0;
	r->flow_label = (w >> 8) & 0xFFFFF;
	r->hop_limit = (uint8_t)w;
	r->tclass = p[48];
	r->reversible = (p[49] & 0x80) != 0;
	r->numb_path = p[49] & 0x7F;
	r->pkey = get_be16(p + 50);
	r->qos_class = q >> 4;
	r->sl = q & 0xF;
	r->mtu_selector = p[54] >> 6;
	r->mtu = p[54] & 0x3F;
	r->rate_selector = p[55] >> 6;
	r->rate = p[55] & 0x3F;
	r->pkt_life_selector = p[56] >> 6;
	r->pkt_life = p[56] & 0x3F;
	r->preference = p[57];
}

void iblib_path_record_put(uint8_t *p, const struct iblib_path_record *r)
{
	iblib_memset(p, 0, IBLIB_PATH_RECORD_BYTES);
	put_be64(p, r->service_id);
	iblib_memcpy(p + 8, r->dgid.raw, 16);
	iblib_memcpy(p + 24, r->sgid.raw, 16);
	put_be16(p + 40, r->dlid);
	put_be16(p + 42, r->slid);
	put_be32(p + 44, (r->raw_traffic ? 1u << 31 : 0) | (r->flow_label & 0xFFFFF) << 8 |
				       r->hop_limit);
	p[48] = r->tclass;
	p[49] = (uint8_t)((r->reversible ? 0x80 : 0) | (r->numb_path & 0x7F));
	put_be16(p + 50, r->pkey);
	put_be16(p + 52, (uint16_t)((r->qos_class & 0xFFF) << 4 | (r->sl & 0xF)));
	p[54] = sel_val(r->mtu_selector, r->mtu);
	p[55] = sel_val(r->rate_selector, r->rate);
	p[56] = sel_val(r->pkt_life_selector, r->pkt_life);
	p[57] = r->preference;
}

void iblib_mcmember_record_get(const uint8_t *p, struct iblib_mcmember_record *r)
{
	uint32_t w = get_be32(p + 44);

	iblib_memcpy(r->mgid.raw, p, 16);
	iblib_memcpy(r->port_gid.raw, p + 16, 16);
	r->qkey = get_be32(p + 32);
	r->mlid = get_be16(p + 36);
	r->mtu_selector = p[38] >> 6;
	r->mtu = p[38] & 0x3F;
	r->tclass = p[39];
	r->pkey = get_be16(p + 40);
	r->rate_selector = p[42] >> 6;
	r->rate = p[42] & 0x3F;
	r->pkt_life_selector = p[43] >> 6;
	r->pkt_life = p[43] & 0x3F;
	r->sl = (uint8_t)(w >> 28);
	r->flow_label = (w >> 8) & 0xFFFFF;
	r->hop_limit = (uint8_t)w;
	r->scope = p[48] >> 4;
	r->join_state = p[48] & 0xF;
	r->proxy_join = (p[49] & 0x80) != 0;
}

void iblib_mcmember_record_put(uint8_t *p, const struct iblib_mcmember_record *r)
{
	iblib_memset(p, 0, IBLIB_MCMEMBER_RECORD_BYTES);
	iblib_memcpy(p, r->mgid.raw, 16);
	iblib_memcpy(p + 16, r->port_gid.raw, 16);
	put_be32(p + 32, r->qkey);
	put_be16(p + 36, r->mlid);
	p[38] = sel_val(r->mtu_selector, r->mtu);
	p[39] = r->tclass;
	put_be16(p + 40, r->pkey);
	p[42] = sel_val(r->rate_selector, r->rate);
	p[43] = sel_val(r->pkt_life_selector, r->pkt_life);
	put_be32(p + 44, (uint32_t)(r->sl & 0xF) << 28 | (r->flow_label & 0xFFFFF) << 8 |
				       r->hop_limit);
	p[48] = (uint8_t)((r->scope & 0xF) << 4 | (r->join_state & 0xF));
	p[49] = r->proxy_join ? 0x80 : 0;
}

void iblib_class_port_info_get(const uint8_t *p, struct iblib_class_port_info *c)
{
	uint32_t w;

	c->base_version = p[0];
	c->class_version = p[1];
	c->cap_mask = get_be16(p + 2);
	w = get_be32(p + 4);
	c->cap_mask2 = w >> 5;
	c->resp_time_value = w & 0x1F;
	iblib_memcpy(c->redirect_gid.raw, p + 8, 16);
	w = get_be32(p + 24);
	c->redirect_tc = (uint8_t)(w >> 24);
	c->redirect_sl = (w >> 20) & 0xF;
	c->redirect_fl = w & 0xFFFFF;
	c->redirect_lid = get_be16(p + 28);
	c->redirect_pkey = get_be16(p + 30);
	c->redirect_qp = get_be24(p + 33);
	c->redirect_qkey = get_be32(p + 36);
	iblib_memcpy(c->trap_gid.raw, p + 40, 16);
	w = get_be32(p + 56);
	c->trap_tc = (uint8_t)(w >> 24);
	c->trap_sl = (w >> 20) & 0xF;
	c->trap_fl = w & 0xFFFFF;
	c->trap_lid = get_be16(p + 60);
	c->trap_pkey = get_be16(p + 62);
	c->trap_hl = p[64];
	c->trap_qp = get_be24(p + 65);
	c->trap_qkey = get_be32(p + 68);
}

void iblib_class_port_info_put(uint8_t *p, const struct iblib_class_port_info *c)
{
	iblib_memset(p, 0, IBLIB_CLASS_PORT_INFO_BYTES);
	p[0] = c->base_version;
	p[1] = c->class_version;
	put_be16(p + 2, c->cap_mask);
	put_be32(p + 4, (c->cap_mask2 & 0x7FFFFFF) << 5 | (c->resp_time_value & 0x1F));
	iblib_memcpy(p + 8, c->redirect_gid.raw, 16);
	put_be32(p + 24, (uint32_t)c->redirect_tc << 24 | (uint32_t)(c->redirect_sl & 0xF) << 20 |
				       (c->redirect_fl & 0xFFFFF));
	put_be16(p + 28, c->redirect_lid);
	put_be16(p + 30, c->redirect_pkey);
	put_be24(p + 33, c->redirect_qp);
	put_be32(p + 36, c->redirect_qkey);
	iblib_memcpy(p + 40, c->trap_gid.raw, 16);
	put_be32(p + 56, (uint32_t)c->trap_tc << 24 | (uint32_t)(c->trap_sl & 0xF) << 20 |
				       (c->trap_fl & 0xFFFFF));
	put_be16(p + 60, c->trap_lid);
	put_be16(p + 62, c->trap_pkey);
	p[64] = c->trap_hl;
	put_be24(p + 65, c->trap_qp);
	put_be32(p + 68, c->trap_qkey);
}

void iblib_sminfo_get(const uint8_t *p, struct iblib_sminfo *s)
{
	s->guid = get_be64(p);
	s->sm_key = get_be64(p + 8);
	s->act_count = get_be32(p + 16);
	s->priority = p[20] >> 4;
	s->state = p[20] & 0xF;
}

void iblib_sminfo_put(uint8_t *p, const struct iblib_sminfo *s)
{
	put_be64(p, s->guid);
	put_be64(p + 8, s->sm_key);
	put_be32(p + 16, s->act_count);
	p[20] = (uint8_t)((s->priority & 0xF) << 4 | (s->state & 0xF));
}

void iblib_port_counters_get(const uint8_t *p, struct iblib_port_counters *c)
{
	c->port_select = p[1];
	c->counter_select = get_be16(p + 2);
	c->symbol_errors = get_be16(p + 4);
	c->link_error_recovery = p[6];
	c->link_downed = p[7];
	c->rcv_errors = get_be16(p + 8);
	c->rcv_remote_phys_errors = get_be16(p + 10);
	c->rcv_switch_relay_errors = get_be16(p + 12);
	c->xmit_discards = get_be16(p + 14);
	c->xmit_constraint_errors = p[16];
	c->rcv_constraint_errors = p[17];
	c->counter_select2 = p[18];
	c->local_link_integrity_errors = p[19] >> 4;
	c->excessive_buffer_overrun = p[19] & 0xF;
	c->vl15_dropped = get_be16(p + 22);
	c->xmit_data = get_be32(p + 24);
	c->rcv_data = get_be32(p + 28);
	c->xmit_pkts = get_be32(p + 32);
	c->rcv_pkts = get_be32(p + 36);
	c->xmit_wait = get_be32(p + 40);
}

void iblib_port_counters_put(uint8_t *p, const struct iblib_port_counters *c)
{
	iblib_memset(p, 0, 44);
	p[1] = c->port_select;
	put_be16(p + 2, c->counter_select);
	put_be16(p + 4, c->symbol_errors);
	p[6] = c->link_error_recovery;
	p[7] = c->link_downed;
	put_be16(p + 8, c->rcv_errors);
	put_be16(p + 10, c->rcv_remote_phys_errors);
	put_be16(p + 12, c->rcv_switch_relay_errors);
	put_be16(p + 14, c->xmit_discards);
	p[16] = c->xmit_constraint_errors;
	p[17] = c->rcv_constraint_errors;
	p[18] = c->counter_select2;
	p[19] = (uint8_t)((c->local_link_integrity_errors & 0xF) << 4 |
			  (c->excessive_buffer_overrun & 0xF));
	put_be16(p + 22, c->vl15_dropped);
	put_be32(p + 24, c->xmit_data);
	put_be32(p + 28, c->rcv_data);
	put_be32(p + 32, c->xmit_pkts);
	put_be32(p + 36, c->rcv_pkts);
	put_be32(p + 40, c->xmit_wait);
}

void iblib_port_counters_ext_get(const uint8_t *p, struct iblib_port_counters_ext *c)
{
	c->port_select = p[1];
	c->counter_select = get_be16(p + 2);
	c->xmit_data = get_be64(p + 8);
	c->rcv_data = get_be64(p + 16);
	c->xmit_pkts = get_be64(p + 24);
	c->rcv_pkts = get_be64(p + 32);
	c->ucast_xmit_pkts = get_be64(p + 40);
	c->ucast_rcv_pkts = get_be64(p + 48);
	c->mcast_xmit_pkts = get_be64(p + 56);
	c->mcast_rcv_pkts = get_be64(p + 64);
}

void iblib_port_counters_ext_put(uint8_t *p, const struct iblib_port_counters_ext *c)
{
	iblib_memset(p, 0, 72);
	p[1] = c->port_select;
	put_be16(p + 2, c->counter_select);
	put_be64(p + 8, c->xmit_data);
	put_be64(p + 16, c->rcv_data);
	put_be64(p + 24, c->xmit_pkts);
	put_be64(p + 32, c->rcv_pkts);
	put_be64(p + 40, c->ucast_xmit_pkts);
	put_be64(p + 48, c->ucast_rcv_pkts);
	put_be64(p + 56, c->mcast_xmit_pkts);
	put_be64(p + 64, c->mcast_rcv_pkts);
}
