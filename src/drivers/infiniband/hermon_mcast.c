/* SPDX-License-Identifier: MIT */
/*
 * Multicast attach/detach: the MCG table is a hash table whose buckets are the first 2^hash
 * entries; colliding groups are chained through next_mcg into the overflow (AMGM) entries that
 * follow (PRM "Multicast"; Linux mlx4 mcg.c). iPXE gives up on a collision (-EBUSY); here a chain
 * is followed and extended, so any number of groups up to the table size can be joined.
 */
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/hermon_prm.h>
#include <ibboot/string.h>
#include "hermon.h"

#define MCG_BYTES HERMONPRM_MCG_ENTRY_ST_BYTES

static void mcg_get_gid(const uint8_t *mcg, uint8_t gid[16])
{
	hermonprm_store_dword(gid, 0, hermonprm_mcg_hdr_st_get_gid3(mcg));
	hermonprm_store_dword(gid, 1, hermonprm_mcg_hdr_st_get_gid2(mcg));
	hermonprm_store_dword(gid, 2, hermonprm_mcg_hdr_st_get_gid1(mcg));
	hermonprm_store_dword(gid, 3, hermonprm_mcg_hdr_st_get_gid0(mcg));
}

static void mcg_set_gid(uint8_t *mcg, const uint8_t gid[16])
{
	hermonprm_mcg_hdr_st_set_gid3(mcg, hermonprm_load_dword(gid, 0));
	hermonprm_mcg_hdr_st_set_gid2(mcg, hermonprm_load_dword(gid, 1));
	hermonprm_mcg_hdr_st_set_gid1(mcg, hermonprm_load_dword(gid, 2));
	hermonprm_mcg_hdr_st_set_gid0(mcg, hermonprm_load_dword(gid, 3));
}

static uint8_t *mcg_qp(uint8_t *mcg, unsigned i)
{
	return mcg + HERMONPRM_MCG_HDR_ST_BYTES + i * HERMONPRM_MCG_QP_DW_ST_BYTES;
}

static bool gid_is_zero(const uint8_t gid[16])
{
	for (unsigned i = 0; i < 16; i++)
		if (gid[i])
			return false;
	return true;
}

/*
 * Walks the chain of gid's bucket. Returns 0 with *idx = the entry holding gid, or -ENOENT with
 * *idx = where a new entry goes (the empty bucket head) or, if *idx == -1, *prev = chain tail.
 */
static int mcg_find(struct hermon *h, const uint8_t gid[16], uint8_t *mcg, int *idx, int *prev,
		    unsigned *hash)
{
	unsigned table = 1u << h->plan.log_mcg_table, steps = 0;
	uint8_t egid[16];
	int rc;

	if ((rc = hermon_cmd_mgid_hash(h, gid, hash)) != 0)
		return rc;
	if (*hash >= (1u << h->plan.log_mcg_hash)) {
		hermon_err(h, "MGID_HASH: bucket %u of %u", *hash, 1u << h->plan.log_mcg_hash);
		return -ERANGE;
	}
	*idx = (int)*hash;
	*prev = -1;
	for (;;) {
		if ((rc = hermon_cmd_read_mcg(h, (unsigned)*idx, mcg)) != 0)
			return rc;
		mcg_get_gid(mcg, egid);
		if (gid_is_zero(egid) && hermonprm_mcg_hdr_st_get_members_count(mcg) == 0) {
			if (*idx == (int)*hash)   /* empty bucket head: free for us */
				return -ENOENT;
			hermon_err(h, "MCG bucket %u chain: empty entry %d", *hash, *idx);
			return -EIO;
		}
		if (memcmp(egid, gid, 16) == 0)
			return 0;
		unsigned next = hermonprm_mcg_hdr_st_get_next_mcg(mcg);

		if (next == 0) {
			*prev = *idx;
			*idx = -1;
			return -ENOENT;
		}
		if (next >= table || ++steps > table) {
			hermon_err(h, "MCG bucket %u chain corrupt (next %u)", *hash, next);
			return -EIO;
		}
		*prev = *idx;
		*idx = (int)next;
	}
}

/* The index among the entry's members of qpn, or *members (their number) when it is not one. */
static unsigned mcg_member(const uint8_t *mcg, uint32_t qpn, unsigned *members)
{
	unsigned i, n = MIN(hermonprm_mcg_hdr_st_get_members_count(mcg), (unsigned)HERMON_MCG_QPS);

	for (i = 0; i < n; i++)
		if (hermonprm_mcg_qp_dw_st_get_qpn(mcg_qp((uint8_t *)mcg, i)) == qpn)
			break;
	*members = n;
	return i;
}

int hermon_mcg_lookup(struct hermon *h, const uint8_t gid[16], uint32_t qpn, uint8_t *mcg,
		      unsigned *index)
{
	unsigned hash, members;
	int idx, prev, rc = mcg_find(h, gid, mcg, &idx, &prev, &hash);

	if (rc)
		return rc;
	*index = (unsigned)idx;
	return mcg_member(mcg, qpn, &members) < members ? 0 : -ENOENT;
}

int hermon_mcast_attach(struct hermon *h, struct hermon_qp *qp, const uint8_t gid[16])
{
	uint8_t mcg[MCG_BYTES];
	unsigned hash, members, hash_size = 1u << h->plan.log_mcg_hash;
	int idx, prev, rc, amgm = -1;

	rc = mcg_find(h, gid, mcg, &idx, &prev, &hash);
	if (rc == -ENOENT) {
		if (idx < 0) {
			/* Bucket taken by other groups: a new overflow entry at the chain's end. */
			amgm = hermon_bitmap_alloc(h->amgm_inuse,
						   (1u << h->plan.log_mcg_table) - hash_size, 1);
			if (amgm < 0) {
				hermon_err(h, "MCG table full (%u)",
					   1u << h->plan.log_mcg_table);
				rc = -ENOSPC;
				goto out;
			}
			idx = (int)hash_size + amgm;
		}
		memset(mcg, 0, MCG_BYTES);
		mcg_set_gid(mcg, gid);
		rc = 0;
	} else if (rc != 0) {
		goto out;
	}

	if (mcg_member(mcg, qp->qpn, &members) < members)
		goto out;   /* already attached */
	if (members >= HERMON_MCG_QPS) {
		hermon_err(h, "MCG full (%u QPs)", members);
		rc = -ENOSPC;
		goto out;
	}
	hermonprm_mcg_qp_dw_st_set_qpn(mcg_qp(mcg, members), qp->qpn);
	hermonprm_mcg_hdr_st_set_members_count(mcg, members + 1);
	hermonprm_mcg_hdr_st_set_protocol(mcg, 0);   /* IB */
	if ((rc = hermon_cmd_write_mcg(h, (unsigned)idx, mcg)) != 0)
		goto out;
	if (amgm >= 0) {
		/* Link it in only now that it holds the group. */
		if ((rc = hermon_cmd_read_mcg(h, (unsigned)prev, mcg)) == 0) {
			hermonprm_mcg_hdr_st_set_next_mcg(mcg, (unsigned)idx);
			rc = hermon_cmd_write_mcg(h, (unsigned)prev, mcg);
		}
		if (rc) {
			memset(mcg, 0, MCG_BYTES);
			hermon_cmd_write_mcg(h, (unsigned)idx, mcg);
			goto out;
		}
		amgm = -1;
	}
	qp->mcast_groups++;
out:
	if (amgm >= 0)
		hermon_bitmap_free(h->amgm_inuse, (unsigned)amgm, 1);
	return rc;
}

int hermon_mcast_detach(struct hermon *h, struct hermon_qp *qp, const uint8_t gid[16])
{
	uint8_t mcg[MCG_BYTES], next_mcg[MCG_BYTES];
	unsigned hash, members, i, hash_size = 1u << h->plan.log_mcg_hash, next;
	int idx, prev, rc;

	if (h->catastrophic)   /* the firmware refuses everything until the reset */
		return -EIO;
	if ((rc = mcg_find(h, gid, mcg, &idx, &prev, &hash)) != 0)
		goto out;
	if ((i = mcg_member(mcg, qp->qpn, &members)) == members) {
		rc = -ENOENT;
		goto out;
	}
	/* Keep the QP list dense: the last member takes the leaving one's slot. */
	memcpy(mcg_qp(mcg, i), mcg_qp(mcg, members - 1), HERMONPRM_MCG_QP_DW_ST_BYTES);
	memset(mcg_qp(mcg, members - 1), 0, HERMONPRM_MCG_QP_DW_ST_BYTES);
	hermonprm_mcg_hdr_st_set_members_count(mcg, members - 1);
	if (members - 1 > 0) {
		rc = hermon_cmd_write_mcg(h, (unsigned)idx, mcg);
		goto done;
	}

	/* The group is empty: take the entry out of its chain. */
	next = hermonprm_mcg_hdr_st_get_next_mcg(mcg);
	if (prev < 0) {
		/* Bucket head: the next entry (if any) moves up into the head. */
		if (next) {
			if ((rc = hermon_cmd_read_mcg(h, next, next_mcg)) != 0)
				goto out;
			if ((rc = hermon_cmd_write_mcg(h, (unsigned)idx, next_mcg)) != 0)
				goto out;
			memset(next_mcg, 0, MCG_BYTES);
			if ((rc = hermon_cmd_write_mcg(h, next, next_mcg)) != 0)
				goto out;
			hermon_bitmap_free(h->amgm_inuse, next - hash_size, 1);
		} else {
			memset(mcg, 0, MCG_BYTES);
			rc = hermon_cmd_write_mcg(h, (unsigned)idx, mcg);
		}
	} else {
		if ((rc = hermon_cmd_read_mcg(h, (unsigned)prev, next_mcg)) != 0)
			goto out;
		hermonprm_mcg_hdr_st_set_next_mcg(next_mcg, next);
		if ((rc = hermon_cmd_write_mcg(h, (unsigned)prev, next_mcg)) != 0)
			goto out;
		memset(mcg, 0, MCG_BYTES);
		if ((rc = hermon_cmd_write_mcg(h, (unsigned)idx, mcg)) != 0)
			goto out;
		hermon_bitmap_free(h->amgm_inuse, (unsigned)idx - hash_size, 1);
	}
done:
	if (rc == 0 && qp->mcast_groups)
		qp->mcast_groups--;
out:
	return rc;
}
