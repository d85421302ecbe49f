/* SPDX-License-Identifier: MIT */
/* libFuzzer target: whole-packet parser. Whatever the bytes, parsing must not crash, offsets must
 * stay inside the buffer, and a packet rebuilt from what was parsed must parse back the same. */
#include <stdlib.h>
#include <string.h>

#include <ibboot/wire/crc.h>
#include <ibboot/wire/packet.h>

static void check_offsets(const struct iblib_pkt *p, size_t len)
{
	if (p->payload_off + p->payload_len > p->icrc_off || p->icrc_off + 4 != p->vcrc_off ||
	    p->vcrc_off + 2 != len || p->bth_off >= p->payload_off + 1 || p->len != len)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[IBLIB_PKT_MAX];
	struct iblib_pkt p, q;

	if (iblib_pkt_parse(data, size, &p, 0) == 0)
		check_offsets(&p, size);
	if (iblib_pkt_parse(data, size, &p, IBLIB_PARSE_NO_ICRC | IBLIB_PARSE_NO_VCRC) != 0)
		return 0;
	check_offsets(&p, size);
	int n = iblib_pkt_build(out, sizeof(out), &p, data + p.payload_off, p.payload_len);
	if (n < 0)
		return 0;  /* e.g. payload on an opcode that takes none is refused by the builder */
	if (iblib_pkt_parse(out, (size_t)n, &q, 0) != 0)
		abort();
	if (q.payload_len != p.payload_len || q.bth.opcode != p.bth.opcode ||
	    q.lrh.dlid != p.lrh.dlid || q.has_grh != p.has_grh ||
	    memcmp(out + q.payload_off, data + p.payload_off, p.payload_len) != 0)
		abort();
	/* seal() of the rebuilt headers+payload reproduces the same CRCs */
	if (iblib_pkt_seal(out, (size_t)n - 6, sizeof(out)) != n || iblib_pkt_parse(out, (size_t)n, &q, 0))
		abort();
	return 0;
}
