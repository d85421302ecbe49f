/* SPDX-License-Identifier: MIT */
/*
 * Run-time control: one command per message on a SOCK_SEQPACKET socket (--control PATH; the
 * fabsimctl tool speaks it), one reply message each. The same commands are accepted on the command
 * line (--fault, --link-down) before the fabric starts. Commands:
 *
 *   fault LINK|all [loss=P] [dup=P] [reorder=P] [corrupt=P] [delay=MS] | clear
 *   link LINK up|down
 *   counters [LINK]          link and port counters (all cabled links when LINK is omitted)
 *   ports                    every port fabsim owns: state, physical state, LID
 *   lft SWITCH               the unicast routes OpenSM programmed (LID -> port)
 *   mft SWITCH               the multicast groups programmed (MLID -> port list)
 *   help | quit
 *
 * LINK is either end of a cable: SWITCH:N, an sm-host name or an hca-port name. P is a probability
 * between 0 and 1.
 */
#include "fabsim.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_CTL_CONNS 8
#define CTL_MSG_MAX 65536

static struct {
	struct listener l;
	int conn[MAX_CTL_CONNS];
} cs = { .l.fd = -1 };

struct outbuf {
	char *p;
	size_t cap, len;
};

static void out(struct outbuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(struct outbuf *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->len >= o->cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->p + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len = o->len + (size_t)n < o->cap ? o->len + (size_t)n : o->cap - 1;
}

static const char *state_name(unsigned s)
{
	static const char *names[] = { "NOP", "Down", "Init", "Armed", "Active" };

	return s < 5 ? names[s] : "?";
}

static const char *phys_name(unsigned s)
{
	switch (s) {
	case PHYS_SLEEP: return "Sleep";
	case PHYS_POLLING: return "Polling";
	case PHYS_DISABLED: return "Disabled";
	case PHYS_LINKUP: return "LinkUp";
	}
	return "?";
}

static void port_label(const struct port *p, char *buf, size_t len)
{
	if (p->node->kind == NODE_SWITCH)
		snprintf(buf, len, "%s:%u", p->node->name, p->num);
	else
		snprintf(buf, len, "%s", p->node->name);
}

static void link_line(struct outbuf *o, const struct link *l)
{
	char a[80], b[80];

	port_label(l->end[0], a, sizeof(a));
	port_label(l->end[1], b, sizeof(b));
	out(o, "link %s <-> %s %s sent %llu delivered %llu lost %llu duplicated %llu reordered %llu "
	       "corrupted %llu delayed %llu\n",
	    a, b, l->phys_up ? "up" : "down", (unsigned long long)l->cnt.sent,
	    (unsigned long long)l->cnt.delivered, (unsigned long long)l->cnt.lost,
	    (unsigned long long)l->cnt.duplicated, (unsigned long long)l->cnt.reordered,
	    (unsigned long long)l->cnt.corrupted, (unsigned long long)l->cnt.delayed);
	for (int i = 0; i < 2; i++) {
		const struct port *p = l->end[i];
		char n[80];

		port_label(p, n, sizeof(n));
		out(o, "port %s rx %llu tx %llu bad_crc %llu malformed %llu not_active %llu "
		       "no_route %llu dr_dropped %llu unknown_qp %llu host_dropped %llu\n",
		    n, (unsigned long long)p->cnt.rx, (unsigned long long)p->cnt.tx,
		    (unsigned long long)p->cnt.bad_crc, (unsigned long long)p->cnt.malformed,
		    (unsigned long long)p->cnt.not_active, (unsigned long long)p->cnt.no_route,
		    (unsigned long long)p->cnt.dr_dropped, (unsigned long long)p->cnt.unknown_qp,
		    (unsigned long long)p->cnt.host_dropped);
	}
}

static int parse_prob(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return (errno || end == s || *end || !(*v >= 0 && *v <= 1)) ? -1 : 0;
}

static int cmd_fault(struct fabric *f, char **arg, int n, struct outbuf *o)
{
	struct link *l = NULL;
	struct fault_cfg c;

	if (n < 2) {
		out(o, "error: usage: fault LINK|all [loss=P] [dup=P] [reorder=P] [corrupt=P] "
		       "[delay=MS] | clear\n");
		return -EINVAL;
	}
	if (strcmp(arg[1], "all")) {
		struct port *p = fabric_find_port(f, arg[1]);

		if (!p || !p->link) {
			out(o, "error: '%s' is not a cabled port (SWITCH:N, sm-host or hca-port)\n",
			    arg[1]);
			return -EINVAL;
		}
		l = p->link;
	}
	c = l ? l->fault : f->global_fault;
	for (int i = 2; i < n; i++) {
		char *eq = strchr(arg[i], '=');
		double *knob = NULL;

		if (!strcmp(arg[i], "clear")) {
			memset(&c, 0, sizeof(c));
			continue;
		}
		if (!eq) {
			out(o, "error: '%s' is not KNOB=VALUE\n", arg[i]);
			return -EINVAL;
		}
		*eq++ = 0;
		if (!strcmp(arg[i], "loss"))
			knob = &c.loss;
		else if (!strcmp(arg[i], "dup"))
			knob = &c.dup;
		else if (!strcmp(arg[i], "reorder"))
			knob = &c.reorder;
		else if (!strcmp(arg[i], "corrupt"))
			knob = &c.corrupt;
		if (knob) {
			if (parse_prob(eq, knob)) {
				out(o, "error: %s=%s: need a probability between 0 and 1\n", arg[i], eq);
				return -EINVAL;
			}
		} else if (!strcmp(arg[i], "delay")) {
			char *end;
			unsigned long ms = strtoul(eq, &end, 10);

			if (end == eq || *end || ms > 60000) {
				out(o, "error: delay=%s: need milliseconds 0..60000\n", eq);
				return -EINVAL;
			}
			c.delay_ms = (unsigned)ms;
		} else {
			out(o, "error: unknown fault knob '%s' (loss, dup, reorder, corrupt, delay)\n",
			    arg[i]);
			return -EINVAL;
		}
	}
	fault_set(f, l, &c);
	out(o, "ok fault %s loss=%g dup=%g reorder=%g corrupt=%g delay=%u\n", arg[1], c.loss, c.dup,
	    c.reorder, c.corrupt, c.delay_ms);
	return 0;
}

static int cmd_link(struct fabric *f, char **arg, int n, struct outbuf *o)
{
	struct port *p = n == 3 ? fabric_find_port(f, arg[1]) : NULL;

	if (n != 3 || (strcmp(arg[2], "up") && strcmp(arg[2], "down"))) {
		out(o, "error: usage: link LINK up|down\n");
		return -EINVAL;
	}
	if (!p || !p->link) {
		out(o, "error: '%s' is not a cabled port\n", arg[1]);
		return -EINVAL;
	}
	link_set_admin(f, p->link, !strcmp(arg[2], "down"));
	out(o, "ok link %s %s (physical %s)\n", arg[1], arg[2], p->link->phys_up ? "up" : "down");
	return 0;
}

static int cmd_counters(struct fabric *f, char **arg, int n, struct outbuf *o)
{
	if (n == 2) {
		struct port *p = fabric_find_port(f, arg[1]);

		if (!p || !p->link) {
			out(o, "error: '%s' is not a cabled port\n", arg[1]);
			return -EINVAL;
		}
		link_line(o, p->link);
		return 0;
	}
	for (unsigned i = 0; i < f->nlinks; i++)
		link_line(o, f->links[i]);
	out(o, "total dropped %llu (in-flight overflow %llu)\n", (unsigned long long)f->dropped_total,
	    (unsigned long long)f->overflow);
	return 0;
}

static int cmd_ports(struct fabric *f, struct outbuf *o)
{
	for (unsigned i = 0; i < f->nnodes; i++) {
		struct node *nd = f->nodes[i];

		if (nd->kind == NODE_HCAPORT) {
			out(o, "%s hca-port guid 0x%016llx %s%s\n", nd->name,
			    (unsigned long long)nd->guid,
			    nd->local ? "attached (inside fabsim)" : nd->hca ? "attached" : "absent",
			    !nd->hca || !nd->hca_reports_link ? "" :
			    nd->hca_trained ? ", its end trained" : ", its end not trained yet");
			continue;
		}
		for (unsigned p = nd->kind == NODE_SWITCH ? 0 : 1; p <= nd->nports; p++) {
			struct port *pt = &nd->ports[p];
			const struct port_info_state *pi = nd->kind == NODE_SWITCH ?
				&nd->ports[0].pi : &pt->pi;

			out(o, "%s:%u %s/%s lid %u smlid %u%s\n", nd->name, p, state_name(pt->pi.state),
			    phys_name(pt->pi.phys), pi->lid, pi->smlid, pt->is_sm ? " SM" : "");
		}
	}
	return 0;
}

static struct node *switch_arg(struct fabric *f, char **arg, int n, struct outbuf *o)
{
	struct node *sw = n == 2 ? fabric_find_node(f, arg[1]) : NULL;

	if (!sw || sw->kind != NODE_SWITCH)
		out(o, "error: usage: %s SWITCH (a switch name from the topology)\n", arg[0]);
	return sw && sw->kind == NODE_SWITCH ? sw : NULL;
}

static int cmd_lft(struct fabric *f, char **arg, int n, struct outbuf *o)
{
	struct node *sw = switch_arg(f, arg, n, o);

	if (!sw)
		return -EINVAL;
	for (unsigned lid = 0; lid < FABSIM_LFT_SIZE; lid++)
		if (sw->lft[lid] != 0xff)
			out(o, "lid %u port %u\n", lid, sw->lft[lid]);
	return 0;
}

static int cmd_mft(struct fabric *f, char **arg, int n, struct outbuf *o)
{
	struct node *sw = switch_arg(f, arg, n, o);

	if (!sw)
		return -EINVAL;
	for (unsigned i = 0; i < FABSIM_MFT_SIZE; i++) {
		bool any = false;

		for (unsigned p = 0; p <= sw->nports; p++) {
			if (!(sw->mft[i][p / 16] & (1u << (p % 16))))
				continue;
			if (!any)
				out(o, "mlid 0x%04x ports", LID_MCAST_FIRST + i);
			out(o, " %u", p);
			any = true;
		}
		if (any)
			out(o, "\n");
	}
	return 0;
}

int control_exec(struct fabric *f, const char *line, char *buf, size_t buflen)
{
	struct outbuf o = { buf, buflen, 0 };
	char copy[1024], *arg[16], *save = NULL;
	int n = 0, r = 0;

	buf[0] = 0;
	snprintf(copy, sizeof(copy), "%s", line);
	for (char *t = strtok_r(copy, " \t\r\n", &save); t && n < 16;
	     t = strtok_r(NULL, " \t\r\n", &save))
		arg[n++] = t;
	if (n == 0) {
		out(&o, "error: empty command (try 'help')\n");
		return -EINVAL;
	}
	if (!strcmp(arg[0], "fault"))
		r = cmd_fault(f, arg, n, &o);
	else if (!strcmp(arg[0], "link"))
		r = cmd_link(f, arg, n, &o);
	else if (!strcmp(arg[0], "counters"))
		r = cmd_counters(f, arg, n, &o);
	else if (!strcmp(arg[0], "ports"))
		r = cmd_ports(f, &o);
	else if (!strcmp(arg[0], "lft"))
		r = cmd_lft(f, arg, n, &o);
	else if (!strcmp(arg[0], "mft"))
		r = cmd_mft(f, arg, n, &o);
	else if (!strcmp(arg[0], "quit")) {
		out(&o, "ok bye\n");
		return 1;
	} else if (!strcmp(arg[0], "help"))
		out(&o, "commands: fault LINK|all [loss=P] [dup=P] [reorder=P] [corrupt=P] "
			"[delay=MS] | clear; link LINK up|down; counters [LINK]; ports; lft SWITCH; "
			"mft SWITCH; quit\n");
	else {
		out(&o, "error: unknown command '%s' (try 'help')\n", arg[0]);
		r = -EINVAL;
	}
	return r;
}

int control_open(const char *path, char *err, size_t errlen)
{
	for (unsigned i = 0; i < MAX_CTL_CONNS; i++)
		cs.conn[i] = -1;
	return listener_open(&cs.l, path, 4, "control", err, errlen);
}

void control_close(void)
{
	for (unsigned i = 0; i < MAX_CTL_CONNS; i++)
		if (cs.conn[i] >= 0) {
			close(cs.conn[i]);
			cs.conn[i] = -1;
		}
	listener_close(&cs.l);
}

int control_pollfds(struct pollfd *pfd, int max)
{
	int n = listener_pollfds(&cs.l, pfd, max, MAX_CTL_CONNS);

	for (unsigned i = 0; n && i < MAX_CTL_CONNS; i++)
		pfd[1 + i] = (struct pollfd){ .fd = cs.conn[i], .events = POLLIN };
	return n;
}

int control_handle(struct fabric *f, const struct pollfd *pfd, int n)
{
	static char reply[CTL_MSG_MAX];
	int quit = 0;

	if (n < 1 + MAX_CTL_CONNS)
		return 0;
	for (unsigned i = 0; i < MAX_CTL_CONNS; i++) {
		char line[1024];
		ssize_t len;

		if (cs.conn[i] < 0 || pfd[1 + i].fd != cs.conn[i] || !pfd[1 + i].revents)
			continue;
		len = recv(cs.conn[i], line, sizeof(line) - 1, MSG_DONTWAIT);
		if (len <= 0) {
			close(cs.conn[i]);
			cs.conn[i] = -1;
			continue;
		}
		line[len] = 0;
		if (control_exec(f, line, reply, sizeof(reply)) == 1)
			quit = 1;
		send(cs.conn[i], reply, strlen(reply), MSG_DONTWAIT | MSG_NOSIGNAL);
	}
	int fd = listener_accept(&cs.l, pfd);

	if (fd >= 0) {
		unsigned i;

		for (i = 0; i < MAX_CTL_CONNS && cs.conn[i] >= 0; i++)
			;
		if (i < MAX_CTL_CONNS)
			cs.conn[i] = fd;
		else
			close(fd);
	}
	return quit;
}
