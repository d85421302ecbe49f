/* SPDX-License-Identifier: MIT */
/*
 * hca_attach — connect the ports of one hcasim instance to fabsim (QEMU device, hosted ibboot,
 * tests). Packets the model emits go to fabsim; packets and link changes from fabsim go into the
 * model. A port fabsim refuses (no cable for its GUID) simply stays down.
 *
 * Usage: create the model with host ops whose packet_out calls hca_attach_packet_out() (the
 * attachment may still be NULL then: packets before attaching are dropped, as on an unplugged
 * port), then hca_attach_open(), then in the poll loop hca_attach_pollfds()/hca_attach_poll()
 * followed by hcasim_step(). No threads, no globals.
 */
#ifndef HCA_ATTACH_H
#define HCA_ATTACH_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hcasim;
struct hca_attach;

#define HCA_ATTACH_MAX_PORTS 2

/* Attach ports 1..num_ports (GUIDs in port_guid[0..]) under node name `name`. Returns NULL with a
 * reason in err only when fabsim cannot be reached at all; per-port refusals are reported by
 * hca_attach_port_status(). */
struct hca_attach *hca_attach_open(struct hcasim *h, const char *path, unsigned num_ports,
				   const uint64_t *port_guid, const char *name, char *err,
				   size_t errlen);

/* The same, with HCA_ATTACH_REPORTS_LINK: the host forwards the model's ops->link_change to
 * hca_attach_link_change(), and the switch port at the far end stays Down until the model's end
 * trained (cable + INIT_PORT), as on a real cable. */
#define HCA_ATTACH_REPORTS_LINK 1
struct hca_attach *hca_attach_open_flags(struct hcasim *h, const char *path, unsigned num_ports,
					 const uint64_t *port_guid, const char *name, unsigned flags,
					 char *err, size_t errlen);

/* For hcasim_host_ops.link_change (with HCA_ATTACH_REPORTS_LINK). Safe with a == NULL. */
void hca_attach_link_change(struct hca_attach *a, unsigned port, bool up);

/* For hcasim_host_ops.packet_out. Safe with a == NULL (dropped). */
void hca_attach_packet_out(struct hca_attach *a, unsigned port, const void *pkt, size_t len);

/* True if fabsim accepted the port; otherwise *why (if not NULL) says why not. */
bool hca_attach_port_status(const struct hca_attach *a, unsigned port, const char **why);

/* Fill pfd with the sockets to wait on; returns how many (at most max). */
int hca_attach_pollfds(const struct hca_attach *a, struct pollfd *pfd, int max);

/* Move everything fabsim sent into the model (hcasim_packet_in / hcasim_port_set_link). Returns
 * the number of messages handled, or a negative errno if fabsim went away (the ports are then
 * set down). */
int hca_attach_poll(struct hca_attach *a);
/* The same, handling at most `max` messages (a host that must act after each one). */
int hca_attach_poll_max(struct hca_attach *a, int max);

void hca_attach_close(struct hca_attach *a);

#endif
