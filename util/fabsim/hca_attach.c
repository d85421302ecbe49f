/* SPDX-License-Identifier: MIT */
#include "hca_attach.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsim_client_ref.h"
#include "hcasim.h"

struct hca_port_attach {
	struct fabsim_client *c;   /* NULL: refused or gone */
	char why[256];
};

struct hca_attach {
	struct hcasim *h;
	unsigned num_ports;
	struct hca_port_attach port[HCA_ATTACH_MAX_PORTS];
};

struct hca_attach *hca_attach_open(struct hcasim *h, const char *path, unsigned num_ports,
				   const uint64_t *port_guid, const char *name, char *err,
				   size_t errlen)
{
	return hca_attach_open_flags(h, path, num_ports, port_guid, name, 0, err, errlen);
}

struct hca_attach *hca_attach_open_flags(struct hcasim *h, const char *path, unsigned num_ports,
					 const uint64_t *port_guid, const char *name, unsigned flags,
					 char *err, size_t errlen)
{
	struct hca_attach *a;
	unsigned attached = 0;

	if (num_ports < 1 || num_ports > HCA_ATTACH_MAX_PORTS) {
		snprintf(err, errlen, "num_ports %u: an HCA has 1 or 2 ports", num_ports);
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	a->h = h;
	a->num_ports = num_ports;
	for (unsigned i = 0; i < num_ports; i++) {
		struct hca_port_attach *p = &a->port[i];

		p->c = fabsim_client_connect_flags(path, port_guid[i], i + 1, name,
						   (flags & HCA_ATTACH_REPORTS_LINK) ?
						   FABSIM_HELLO_REPORTS_LINK : 0, p->why, sizeof(p->why));
		if (p->c) {
			attached++;
			continue;
		}
		/* An uncabled port is normal (a 2-port HCA with one cable): it stays down. But if
		 * fabsim is not there at all, say so. */
		if (!strstr(p->why, "refused port GUID")) {
			snprintf(err, errlen, "port %u: %s", i + 1, p->why);
			hca_attach_close(a);
			return NULL;
		}
		hcasim_port_set_link(h, i + 1, false);
	}
	(void)attached;
	return a;
}

void hca_attach_link_change(struct hca_attach *a, unsigned port, bool up)
{
	if (!a || port < 1 || port > a->num_ports || !a->port[port - 1].c)
		return;
	fabsim_client_send_link(a->port[port - 1].c, up);
}

void hca_attach_packet_out(struct hca_attach *a, unsigned port, const void *pkt, size_t len)
{
	if (!a || port < 1 || port > a->num_ports || !a->port[port - 1].c)
		return;
	fabsim_client_send_packet(a->port[port - 1].c, pkt, len);
}

bool hca_attach_port_status(const struct hca_attach *a, unsigned port, const char **why)
{
	if (port < 1 || port > a->num_ports) {
		if (why)
			*why = "no such port";
		return false;
	}
	if (why)
		*why = a->port[port - 1].c ? "attached" : a->port[port - 1].why;
	return a->port[port - 1].c != NULL;
}

int hca_attach_pollfds(const struct hca_attach *a, struct pollfd *pfd, int max)
{
	int n = 0;

	for (unsigned i = 0; i < a->num_ports && n < max; i++)
		if (a->port[i].c)
			pfd[n++] = (struct pollfd){ .fd = fabsim_client_fd(a->port[i].c),
						    .events = POLLIN };
	return n;
}

int hca_attach_poll_max(struct hca_attach *a, int max)
{
	int handled = 0, err = 0;

	for (unsigned i = 0; i < a->num_ports; i++) {
		struct hca_port_attach *p = &a->port[i];
		int r;

		struct fabsim_msg_ref m;

		/* The packet goes from the client's receive batch into the model's receive FIFO (its
		 * one copy before the DMA write). */
		while (handled < max && p->c && (r = fabsim_client_recv_ref(p->c, &m)) != 0) {
			if (r < 0) {
				snprintf(p->why, sizeof(p->why), "fabsim connection lost: %s",
					 strerror(-r));
				fabsim_client_close(p->c);
				p->c = NULL;
				hcasim_port_set_link(a->h, i + 1, false);
				err = r;
				break;
			}
			if (m.type == FABSIM_MSG_PACKET)
				hcasim_packet_in(a->h, i + 1, m.data, m.len);
			else if (m.type == FABSIM_MSG_LINK)
				hcasim_port_set_link(a->h, i + 1, m.flags == FABSIM_LINK_UP);
			handled++;
		}
	}
	return err ? err : handled;
}

int hca_attach_poll(struct hca_attach *a)
{
	return hca_attach_poll_max(a, INT_MAX);
}

void hca_attach_close(struct hca_attach *a)
{
	if (!a)
		return;
	for (unsigned i = 0; i < a->num_ports; i++)
		fabsim_client_close(a->port[i].c);
	free(a);
}
