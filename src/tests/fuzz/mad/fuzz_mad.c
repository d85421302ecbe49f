/* SPDX-License-Identifier: MIT */
/* libFuzzer target: MAD checks, directed-route processing and SA/PMA record codecs. */
#include <stdlib.h>
#include <string.h>

#include <ibboot/wire/attrs.h>
#include <ibboot/wire/mad.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mad[IBLIB_MAD_BYTES], copy[IBLIB_MAD_BYTES], rec[IBLIB_MAD_BYTES];
	struct iblib_mad_hdr h;
	unsigned out = 0;

	if (size < 3)
		return 0;
	bool is_switch = data[0] & 1;
	unsigned in_port = data[1] % 40, num_ports = 1 + data[2] % 36;
	data += 3;
	size -= 3;
	memset(mad, 0, sizeof(mad));
	memcpy(mad, data, size < sizeof(mad) ? size : sizeof(mad));

	(void)iblib_mad_check(mad, sizeof(mad));
	iblib_mad_hdr_get(mad, &h);
	memcpy(copy, mad, sizeof(copy));
	iblib_mad_hdr_put(copy, &h);
	if (memcmp(copy, mad, 18) != 0 || memcmp(copy + 20, mad + 20, 4) != 0)
		abort();

	memcpy(copy, mad, sizeof(copy));
	int rc = iblib_smp_dr_recv(copy, is_switch, in_port, num_ports, &out);
	/* A switch only ever sends out of a port it has; a CA never relays, and its own sends
	 * leave by the port the caller knows (out 0) or by InitialPath[1]. */
	if (is_switch && (rc == IBLIB_DR_FORWARD || rc == IBLIB_DR_SEND) && (out == 0 || out > num_ports))
		abort();
	if (!is_switch && (rc == IBLIB_DR_FORWARD || out > num_ports))
		abort();
	if (copy[6] > IBLIB_SMP_MAX_HOPS + 1 && rc >= 0 && rc != IBLIB_DR_LOCAL)
		abort();
	iblib_mad_make_response(copy, copy, 0x1C);
	rc = iblib_smp_dr_respond(copy, is_switch, num_ports, &out);
	if (is_switch && rc == IBLIB_DR_SEND && (out == 0 || out > num_ports))
		abort();

	/* decode(encode(decode(x))) == decode(x) for every record */
	struct iblib_path_record pr, pr2;
	memset(&pr, 0, sizeof(pr));
	memset(&pr2, 0, sizeof(pr2));
	iblib_path_record_get(mad + 56, &pr);
	iblib_path_record_put(rec, &pr);
	iblib_path_record_get(rec, &pr2);
	if (memcmp(&pr, &pr2, sizeof(pr)) != 0)
		abort();
	struct iblib_mcmember_record mr, mr2;
	memset(&mr, 0, sizeof(mr));
	memset(&mr2, 0, sizeof(mr2));
	iblib_mcmember_record_get(mad + 56, &mr);
	iblib_mcmember_record_put(rec, &mr);
	iblib_mcmember_record_get(rec, &mr2);
	if (memcmp(&mr, &mr2, sizeof(mr)) != 0)
		abort();
	struct iblib_sa_hdr sh, sh2;
	memset(&sh, 0, sizeof(sh));
	memset(&sh2, 0, sizeof(sh2));
	iblib_sa_hdr_get(mad, &sh);
	memcpy(rec, mad, sizeof(rec));
	iblib_sa_hdr_put(rec, &sh);
	iblib_sa_hdr_get(rec, &sh2);
	if (memcmp(&sh, &sh2, sizeof(sh)) != 0)
		abort();
	struct iblib_class_port_info c, c2;
	memset(&c, 0, sizeof(c));
	memset(&c2, 0, sizeof(c2));
	iblib_class_port_info_get(mad + 64, &c);
	iblib_class_port_info_put(rec, &c);
	iblib_class_port_info_get(rec, &c2);
	if (memcmp(&c, &c2, sizeof(c)) != 0)
		abort();
	struct iblib_port_counters pc, pc2;
	memset(&pc, 0, sizeof(pc));
	memset(&pc2, 0, sizeof(pc2));
	iblib_port_counters_get(mad + 64, &pc);
	iblib_port_counters_put(rec, &pc);
	iblib_port_counters_get(rec, &pc2);
	if (memcmp(&pc, &pc2, sizeof(pc)) != 0)
		abort();
	(void)iblib_portinfo_lmc(mad + 64);
	(void)iblib_get_bits(mad, (unsigned)(mad[0] % 480), 1 + (unsigned)(size % 32));
	return 0;
}
