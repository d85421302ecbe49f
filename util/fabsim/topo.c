/* SPDX-License-Identifier: MIT */
/*
 * Topology file. One statement per line, '#' starts a comment, fields separated by blanks, text in
 * double quotes may hold blanks:
 *
 *   switch   NAME GUID NPORTS ["description"]   a switch; ports 1..NPORTS, enhanced port 0
 *   sm-host  NAME GUID ["description"]          a 1-port CA hosted inside fabsim, where OpenSM and
 *                                               the diags attach through umad2sim (SIM_HOST=NAME);
 *                                               its port GUID is GUID + 1
 *   hca-port NAME PORTGUID                      an HCA port that attaches over --hca-socket; fabsim
 *                                               models nothing of the HCA itself
 *   cable    END END                            END = SWITCH:N, or an sm-host / hca-port NAME
 *
 * See util/fabsim/README.md for an example.
 */
#include "fabsim.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 8

struct parse_ctx {
	const char *path;
	unsigned line;
	char *err;
	size_t errlen;
};

static int perr(struct parse_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(struct parse_ctx *c, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(c->err, c->errlen, "%s:%u: ", c->path, c->line);

	if (n < 0 || (size_t)n >= c->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Split a line into fields in place; quotes group words. Returns the count or -1 on an open quote
 * or too many fields. */
static int split_fields(char *s, char **field, int max)
{
	int n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
			s++;
		if (!*s || *s == '#')
			return n;
		if (n == max)
			return -1;
		if (*s == '"') {
			field[n++] = ++s;
			s = strchr(s, '"');
			if (!s)
				return -1;
			*s++ = 0;
			continue;
		}
		field[n++] = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
			s++;
		if (*s)
			*s++ = 0;
	}
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return (errno || end == s || *end || *s == '-') ? -1 : 0;
}

struct node *fabric_find_node(struct fabric *f, const char *name)
{
	for (unsigned i = 0; i < f->nnodes; i++)
		if (!strcmp(f->nodes[i]->name, name))
			return f->nodes[i];
	return NULL;
}

struct node *fabric_find_hca_port(struct fabric *f, uint64_t guid)
{
	for (unsigned i = 0; i < f->nnodes; i++)
		if (f->nodes[i]->kind == NODE_HCAPORT && f->nodes[i]->guid == guid)
			return f->nodes[i];
	return NULL;
}

static bool guid_in_use(struct fabric *f, uint64_t guid)
{
	for (unsigned i = 0; i < f->nnodes; i++)
		for (unsigned p = 0; p <= f->nodes[i]->nports; p++)
			if (f->nodes[i]->guid == guid || f->nodes[i]->ports[p].guid == guid)
				return true;
	return false;
}

struct port *fabric_find_port(struct fabric *f, const char *spec)
{
	char name[64];
	const char *colon = strchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
	struct node *node;
	uint64_t num = 1;

	if (n == 0 || n >= sizeof(name))
		return NULL;
	memcpy(name, spec, n);
	name[n] = 0;
	node = fabric_find_node(f, name);
	if (!node)
		return NULL;
	if (colon && parse_u64(colon + 1, &num))
		return NULL;
	if (!colon && node->kind == NODE_SWITCH)
		return NULL;          /* a switch port needs its number */
	if (num > node->nports || (num == 0 && node->kind != NODE_SWITCH))
		return NULL;
	return &node->ports[num];
}

static struct node *node_new(struct fabric *f, enum node_kind kind, const char *name,
			     uint64_t guid, unsigned nports, const char *desc)
{
	struct node *n = calloc(1, sizeof(*n));
	struct node **nodes = realloc(f->nodes, (f->nnodes + 1) * sizeof(*nodes));

	if (!n || !nodes) {
		free(n);
		if (nodes)
			f->nodes = nodes;
		return NULL;
	}
	f->nodes = nodes;
	n->kind = kind;
	snprintf(n->name, sizeof(n->name), "%s", name);
	snprintf(n->desc, sizeof(n->desc), "%s", desc ? desc : name);
	n->guid = guid;
	n->nports = nports;
	n->ports = calloc(nports + 1, sizeof(*n->ports));
	if (!n->ports) {
		free(n);
		return NULL;
	}
	for (unsigned i = 0; i <= nports; i++) {
		struct port *p = &n->ports[i];

		p->node = n;
		p->num = i;
		/* Switch ports share the node GUID (IBA 14.2.5.3); the SM host's port is GUID + 1. */
		p->guid = kind == NODE_SWITCH ? guid : kind == NODE_SMHOST ? guid + i : guid;
		p->pi.state = PORT_DOWN;
		p->pi.phys = PHYS_POLLING;
		p->pi.link_down_default = PHYS_POLLING;
		p->pi.oper_vls = 1;
		p->pi.width_enabled = 3;
		p->pi.speed_enabled = 7;
		p->pi.gid_prefix = 0xfe80000000000000ull;
		p->pkeys[0] = 0xffff;   /* default partition, full member (IBA 10.9.1.2) */
	}
	if (kind == NODE_SWITCH) {
		/* Enhanced switch port 0 is always up: it has no physical link (IBA 14.2.5.6). */
		n->ports[0].pi.state = PORT_ACTIVE;
		n->ports[0].pi.phys = PHYS_LINKUP;
		n->port_state_change = true;
		n->lft = malloc(FABSIM_LFT_SIZE);
		n->mft = calloc(FABSIM_MFT_SIZE, sizeof(*n->mft));
		n->sl2vl = calloc((size_t)(nports + 1) * (nports + 1), 8);
		if (!n->lft || !n->mft || !n->sl2vl) {
			free(n->lft);
			free(n->mft);
			free(n->sl2vl);
			free(n->ports);
			free(n);
			return NULL;
		}
		memset(n->lft, 0xff, FABSIM_LFT_SIZE);
		n->default_port = 0xff;
		n->default_mc_primary = n->default_mc_not_primary = 0xff;
	}
	f->nodes[f->nnodes++] = n;
	return n;
}

static int add_cable(struct fabric *f, struct parse_ctx *c, const char *a, const char *b)
{
	struct port *pa = fabric_find_port(f, a), *pb = fabric_find_port(f, b);
	struct link *l;
	struct link **links;

	if (!pa)
		return perr(c, "cable end '%s' names no port (SWITCH:N, or an sm-host/hca-port name)", a);
	if (!pb)
		return perr(c, "cable end '%s' names no port (SWITCH:N, or an sm-host/hca-port name)", b);
	if (pa->num == 0 || pb->num == 0)
		return perr(c, "switch port 0 is internal and cannot be cabled");
	if (pa == pb)
		return perr(c, "cable from '%s' to itself", a);
	if (pa->link)
		return perr(c, "'%s' is already cabled", a);
	if (pb->link)
		return perr(c, "'%s' is already cabled", b);
	l = calloc(1, sizeof(*l));
	links = realloc(f->links, (f->nlinks + 1) * sizeof(*links));
	if (!l || !links) {
		free(l);
		if (links)
			f->links = links;
		return perr(c, "out of memory");
	}
	f->links = links;
	l->index = f->nlinks;
	l->end[0] = pa;
	l->end[1] = pb;
	pa->link = pb->link = l;
	f->links[f->nlinks++] = l;
	return 0;
}

static int parse_line(struct fabric *f, struct parse_ctx *c, char *line)
{
	char *fld[MAX_FIELDS];
	int n = split_fields(line, fld, MAX_FIELDS);
	uint64_t guid, nports;

	if (n < 0)
		return perr(c, "unterminated quote or too many fields");
	if (n == 0)
		return 0;
	if (!strcmp(fld[0], "cable")) {
		if (n != 3)
			return perr(c, "usage: cable END END");
		return add_cable(f, c, fld[1], fld[2]);
	}
	if (strcmp(fld[0], "switch") && strcmp(fld[0], "sm-host") && strcmp(fld[0], "hca-port"))
		return perr(c, "unknown statement '%s' (switch, sm-host, hca-port, cable)", fld[0]);
	if (n < 3)
		return perr(c, "'%s' needs a NAME and a GUID", fld[0]);
	if (strlen(fld[1]) >= sizeof(((struct node *)0)->name) || strchr(fld[1], ':'))
		return perr(c, "bad node name '%s' (no ':', under 64 characters)", fld[1]);
	if (fabric_find_node(f, fld[1]))
		return perr(c, "node '%s' defined twice", fld[1]);
	if (parse_u64(fld[2], &guid) || guid == 0)
		return perr(c, "bad GUID '%s'", fld[2]);
	if (guid_in_use(f, guid) || (!strcmp(fld[0], "sm-host") && guid_in_use(f, guid + 1)))
		return perr(c, "GUID %s is already used", fld[2]);
	if (!strcmp(fld[0], "switch")) {
		if (n < 4 || n > 5 || parse_u64(fld[3], &nports) || nports < 1 ||
		    nports > FABSIM_MAX_SWITCH_PORTS - 1)
			return perr(c, "usage: switch NAME GUID NPORTS(1..%d) [\"description\"]",
				    FABSIM_MAX_SWITCH_PORTS - 1);
		return node_new(f, NODE_SWITCH, fld[1], guid, (unsigned)nports, n == 5 ? fld[4] : NULL)
			? 0 : perr(c, "out of memory");
	}
	if (!strcmp(fld[0], "sm-host")) {
		if (n > 4)
			return perr(c, "usage: sm-host NAME GUID [\"description\"]");
		return node_new(f, NODE_SMHOST, fld[1], guid, 1, n == 4 ? fld[3] : NULL)
			? 0 : perr(c, "out of memory");
	}
	if (!strcmp(fld[0], "hca-port")) {
		if (n != 3)
			return perr(c, "usage: hca-port NAME PORTGUID");
		return node_new(f, NODE_HCAPORT, fld[1], guid, 1, NULL) ? 0 : perr(c, "out of memory");
	}
	return perr(c, "unknown statement '%s' (switch, sm-host, hca-port, cable)", fld[0]);
}

int topo_load(struct fabric *f, const char *path, char *err, size_t errlen)
{
	struct parse_ctx c = { .path = path, .err = err, .errlen = errlen };
	char line[512];
	FILE *fp = fopen(path, "r");
	int r = 0;

	if (!fp) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), fp)) {
		c.line++;
		if (!strchr(line, '\n') && !feof(fp)) {
			r = perr(&c, "line too long");
			break;
		}
		r = parse_line(f, &c, line);
		if (r)
			break;
	}
	fclose(fp);
	if (!r && f->nnodes == 0) {
		snprintf(err, errlen, "%s: no nodes defined", path);
		r = -EINVAL;
	}
	return r;
}

void fabric_free(struct fabric *f)
{
	while (f->queue) {
		struct pkt_event *e = f->queue;

		f->queue = e->next;
		free(e);
		f->queued--;
	}
	f->queue_tail = NULL;
	while (f->spare) {
		struct pkt_event *e = f->spare;

		f->spare = e->next;
		free(e);
		f->nspare--;
	}
	for (unsigned i = 0; i < f->nlinks; i++) {
		free(f->links[i]->held);
		free(f->links[i]);
	}
	for (unsigned i = 0; i < f->nnodes; i++) {
		struct node *n = f->nodes[i];

		free(n->lft);
		free(n->mft);
		free(n->sl2vl);
		free(n->ports);
		free(n);
	}
	free(f->links);
	free(f->nodes);
	if (f->pcap)
		fclose(f->pcap);
	memset(f, 0, sizeof(*f));
}
