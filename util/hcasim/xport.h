/* SPDX-License-Identifier: MIT */
/* Work-queue and transport internals shared by wqe.c, ud.c, rc.c, mcg.c. */
#ifndef HCASIM_XPORT_H
#define HCASIM_XPORT_H

#include "hcasim_int.h"

#define HCASIM_MAX_WQE 1024u

struct hcasim_wq {
	uint64_t mtt, base;
	unsigned log_page, size, stride;
};

enum { GATHER_OK = 0, GATHER_LENGTH = 1, GATHER_PROT = 2, GATHER_ICM = 3 };
enum { XMIT_DONE = 0, XMIT_WAIT = 1, XMIT_ERROR = 2 };

void hcasim_wq_geom(const uint8_t *qpc, bool sq, struct hcasim_wq *w);
int hcasim_wq_read(struct hcasim *h, const struct hcasim_wq *w, uint32_t idx, void *buf, size_t len);
int hcasim_gather(struct hcasim *h, const uint8_t *qpc, const uint8_t *wqe, size_t off, size_t end,
		  uint8_t *out, size_t cap, size_t *len);
int hcasim_scatter(struct hcasim *h, const uint8_t *qpc, const uint8_t *wqe, size_t wqe_len,
		   const uint8_t *data, size_t len, size_t skip, size_t *written);
int hcasim_rq_posted(struct hcasim *h, const uint8_t *qpc);
int hcasim_rq_take(struct hcasim *h, uint8_t *qpc, uint16_t *counter, uint8_t *wqe, size_t *wqe_len);
void hcasim_sq_complete(struct hcasim *h, uint32_t qpn, uint8_t *qpc, const uint8_t *ctrl,
			uint32_t bytes, unsigned syndrome);

/* Send one WQE on its transport (ud.c for UD/MLX, rc.c for RC). */
int hcasim_xport_send(struct hcasim *h, uint32_t qpn, uint8_t *qpc, const uint8_t *wqe, size_t len);
int hcasim_ud_send(struct hcasim *h, uint32_t qpn, uint8_t *qpc, const uint8_t *wqe, size_t len);
int hcasim_mlx_send(struct hcasim *h, uint32_t qpn, uint8_t *qpc, const uint8_t *wqe, size_t len);
int hcasim_rc_send(struct hcasim *h, uint32_t qpn, uint8_t *qpc, const uint8_t *wqe, size_t len);

/* Receive side */
struct iblib_pkt;
void hcasim_rc_receive(struct hcasim *h, unsigned port, const struct iblib_pkt *p,
		       const uint8_t *buf);
/* Port attributes */
uint16_t hcasim_port_lid(struct hcasim *h, unsigned port);
unsigned hcasim_mtu_bytes(unsigned ib_mtu);
bool hcasim_pkey_ok(uint16_t a, uint16_t b);

#endif
