/* SPDX-License-Identifier: MIT */
/* Platform services for the driver tests, over libhcasim. See hermon_rig.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/mmio.h>
#include <ibboot/pci.h>
#include <ibboot/platform.h>
#include <ibboot/timer.h>
#include <ibboot/wire/attrs.h>
#include <ibboot/wire/mad.h>
#include "hermon_rig.h"

#define RIG_MAX 4

static struct rig *rigs[RIG_MAX];
static uint64_t virt_ns = 1000000000ull;
static char logbuf[1 << 16];
static size_t loglen;
static bool quiet;

/* ---- console ---- */

const char *rig_log(void) { return logbuf; }
void rig_log_clear(void) { loglen = 0; logbuf[0] = 0; }
void rig_set_quiet(bool q) { quiet = q; }

int kvprintf(const char *fmt, va_list ap)
{
	char line[1024];
	int n = kvsnprintf(line, sizeof(line), fmt, ap);
	size_t len = strlen(line);

	if (loglen + len + 1 < sizeof(logbuf)) {
		memcpy(logbuf + loglen, line, len + 1);
		loglen += len;
	}
	if (!quiet)
		fputs(line, stdout);
	return n;
}

/* kprintf and ksnprintf are the library's (src/core/fmt.c), over the kvprintf above. */
void kputs(const char *s) { kprintf("%s", s); }
void kputc(char c) { kprintf("%c", c); }
/* No console input here (the shell and the script code reference it). */
int console_getline(char *buf, size_t size) { (void)buf; (void)size; return -1; }
bool console_input_closed(void) { return true; }

const char *ib_strerror(int err)
{
	switch (err < 0 ? -err : err) {
	case 0: return "success";
	case IB_EIO: return "I/O error";
	case IB_ENOMEM: return "out of memory";
	case IB_EBUSY: return "busy";
	case IB_EINVAL: return "invalid argument";
	case IB_ENOSPC: return "no space";
	case IB_ERANGE: return "out of range";
	case IB_ENOTSUP: return "not supported";
	case IB_ETIMEDOUT: return "timed out";
	case IB_ENODEV: return "no such device";
	case IB_ENOENT: return "not found";
	default: return "error";
	}
}

/* ---- memory: the process's addresses are the bus addresses ---- */

/* Every live DMA allocation, so tests can tell what the driver and the core still hold. The
 * table also keeps memory a failed teardown holds back reachable (not a leak to ASan). */
struct rig_dma_rec {
	uint8_t *p;
	size_t size;
};
static struct rig_dma_rec *dma_live;
static size_t dma_live_n, dma_live_cap;
static uint64_t dma_live_total;

void *dma_alloc(size_t size, size_t align)
{
	uint8_t *p;

	if (align < sizeof(void *))
		align = sizeof(void *);
	p = aligned_alloc(align, (size + align - 1) / align * align);
	if (p && dma_live_n == dma_live_cap) {
		size_t cap = dma_live_cap ? 2 * dma_live_cap : 256;
		struct rig_dma_rec *n = realloc(dma_live, cap * sizeof(*n));

		if (!n) {
			free(p);
			return NULL;
		}
		dma_live = n;
		dma_live_cap = cap;
	}
	if (p) {
		dma_live[dma_live_n++] = (struct rig_dma_rec){ p, size };
		dma_live_total += size;
	}
	return p;
}

void dma_free(void *p, size_t size)
{
	if (!p)
		return;
	for (size_t i = 0; i < dma_live_n; i++) {
		if (dma_live[i].p == p) {
			if (dma_live[i].size != size) {
				fprintf(stderr, "rig: dma_free(%p, %zu) of a %zu-byte buffer\n", p,
					size, dma_live[i].size);
				abort();
			}
			dma_live_total -= size;
			dma_live[i] = dma_live[--dma_live_n];
			free(p);
			return;
		}
	}
	fprintf(stderr, "rig: dma_free(%p, %zu) of memory dma_alloc did not hand out\n", p, size);
	abort();
}

bool rig_dma_live(const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < dma_live_n; i++)
		if (b >= dma_live[i].p && b + len <= dma_live[i].p + dma_live[i].size)
			return true;
	return false;
}

uint64_t rig_dma_live_bytes(void) { return dma_live_total; }
uint64_t virt_to_bus(const void *p) { return (uint64_t)(uintptr_t)p; }
void *bus_to_virt(uint64_t bus) { return (void *)(uintptr_t)bus; }
void *kzalloc(size_t size) { return calloc(1, size ? size : 1); }
void kfree(void *p) { free(p); }

/* ---- time: virtual, advanced by delays ---- */

uint64_t rig_now_ns(void) { return virt_ns; }
uint64_t plat_counter(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
uint64_t clock_ms(void) { return virt_ns / 1000000ull; }
uint64_t clock_us(void) { return virt_ns / 1000ull; }

void udelay(uint64_t us)
{
	virt_ns += us * 1000ull;
	for (unsigned i = 0; i < RIG_MAX; i++)
		if (rigs[i])
			rig_step(rigs[i]);
}

void mdelay(uint64_t ms)
{
	while (ms--)
		udelay(1000);
}

/* ---- PCI and MMIO ---- */

static struct rig *rig_of_bdf(uint32_t bdf)
{
	for (unsigned i = 0; i < RIG_MAX; i++)
		if (rigs[i] && rigs[i]->pdev.bdf == bdf)
			return rigs[i];
	return NULL;
}

uint32_t plat_pci_read(uint32_t bdf, unsigned off, unsigned size)
{
	struct rig *r = rig_of_bdf(bdf);

	if (!r)
		return size == 4 ? 0xffffffffu : (1u << (8 * size)) - 1;
	uint32_t v = hcasim_cfg_read(r->sim, off, size);
	rig_step(r);
	return v;
}

void plat_pci_write(uint32_t bdf, unsigned off, unsigned size, uint32_t val)
{
	struct rig *r = rig_of_bdf(bdf);

	if (r) {
		hcasim_cfg_write(r->sim, off, val, size);
		rig_step(r);
	}
}

void pci_enable_device(struct pci_device *pdev)
{
	uint16_t cmd = pci_read16(pdev, PCI_COMMAND);

	pci_write16(pdev, PCI_COMMAND, cmd | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
}

int pci_map_bar(struct pci_device *pdev, unsigned bar, struct mmio *m)
{
	struct rig *r = rig_of_bdf(pdev->bdf);

	if (!r || (bar != 0 && bar != 2))
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->ctx = r;
	m->bar = bar;
	m->phys = pdev->bar[bar].addr;
	m->size = hcasim_bar_size(r->sim, bar);
	return 0;
}

void plat_mmio_unmap(struct mmio *m) { m->ctx = NULL; }

static struct rig *mmio_rig(const struct mmio *m, uint64_t off, unsigned size)
{
	struct rig *r = m->ctx;

	if (!r || off + size > m->size) {
		fprintf(stderr, "rig: MMIO access outside BAR%u: 0x%llx+%u\n", m->bar,
			(unsigned long long)off, size);
		abort();
	}
	return r;
}

uint32_t readl_be(const struct mmio *m, uint64_t off)
{
	struct rig *r = mmio_rig(m, off, 4);
	uint8_t b[4];

	hcasim_bar_read(r->sim, m->bar, off, b, 4);
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

void writel_be(const struct mmio *m, uint64_t off, uint32_t v)
{
	struct rig *r = mmio_rig(m, off, 4);
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };

	hcasim_bar_write(r->sim, m->bar, off, b, 4);
	rig_step(r);
}

/* ---- the model's host side ---- */

static int rig_dma_read(void *ctx, uint64_t gpa, void *buf, size_t len)
{
	(void)ctx;
	if (gpa < 4096)
		return -1;
	memcpy(buf, (const void *)(uintptr_t)gpa, len);
	return 0;
}

static int rig_dma_write(void *ctx, uint64_t gpa, const void *buf, size_t len)
{
	struct rig *r = ctx;

	if (gpa < 4096 || (gpa < r->dma_fail_hi && gpa + len > r->dma_fail_lo))
		return -1;
	memcpy((void *)(uintptr_t)gpa, buf, len);
	return 0;
}

static void rig_packet_out(void *ctx, unsigned port, const void *pkt, size_t len)
{
	struct rig *r = ctx;

	r->packets_out++;
	if (len <= sizeof(r->last)) {
		memcpy(r->last, pkt, len);
		r->last_len = len;
	}
	if (!r->cabled || r->npkts == RIG_MAX_PKTS || len > sizeof(r->pkts[0].data))
		return;
	r->pkts[r->npkts].port = port == 1 ? 2 : 1;
	r->pkts[r->npkts].len = len;
	memcpy(r->pkts[r->npkts].data, pkt, len);
	r->npkts++;
}

static uint64_t rig_now(void *ctx) { (void)ctx; return virt_ns; }

static void rig_model_log(void *ctx, const char *line)
{
	(void)ctx;
	if (!quiet)
		printf("  [model] %s\n", line);
}

void rig_step(struct rig *r)
{
	static int depth;

	if (depth)   /* the model calls back into us: never re-enter it */
		return;
	depth++;
	for (unsigned guard = 0; guard < 1000; guard++) {
		bool busy = hcasim_step(r->sim);

		while (r->npkts) {
			struct rig_pkt *p = &r->pkts[--r->npkts];

			hcasim_packet_in(r->sim, p->port, p->data, p->len);
			busy = true;
		}
		if (!busy)
			break;
	}
	depth--;
}

int rig_create(struct rig *r, uint16_t device_id, bool cabled)
{
	static const struct hcasim_host_ops ops_template = {
		.dma_read = rig_dma_read, .dma_write = rig_dma_write,
		.packet_out = rig_packet_out, .now_ns = rig_now, .log = rig_model_log,
	};
	struct hcasim_host_ops ops = ops_template;
	struct hcasim_config cfg = { .device_id = device_id, .num_ports = 2,
				     .node_desc = "hermon driver test" };
	unsigned slot;

	memset(r, 0, sizeof(*r));
	for (slot = 0; slot < RIG_MAX && rigs[slot]; slot++)
		;
	if (slot == RIG_MAX)
		return -ENOSPC;
	ops.ctx = r;
	cfg.node_guid = 0x0002c90300001000ull + 0x100ull * slot;
	r->sim = hcasim_create(&cfg, &ops);
	if (!r->sim)
		return -ENOMEM;
	r->cabled = cabled;
	r->pdev.bdf = PCI_BDF(1 + slot, 0, 0);
	r->pdev.vendor = 0x15b3;
	r->pdev.device = device_id ? device_id : 0x1003;
	rigs[slot] = r;
	/* What a BIOS does: place the BARs and turn on decoding. */
	r->pdev.bar[0] = (struct pci_bar){ PCI_BAR_MEM64, false, 0xf0000000ull + 0x10000000ull * slot,
					   hcasim_bar_size(r->sim, 0) };
	r->pdev.bar[2] = (struct pci_bar){ PCI_BAR_MEM64, true, 0x100000000ull * (slot + 1),
					   hcasim_bar_size(r->sim, 2) };
	plat_pci_write(r->pdev.bdf, PCI_BAR0, 4, (uint32_t)r->pdev.bar[0].addr | PCI_BAR_MEM_64);
	plat_pci_write(r->pdev.bdf, PCI_BAR0 + 4, 4, (uint32_t)(r->pdev.bar[0].addr >> 32));
	plat_pci_write(r->pdev.bdf, PCI_BAR0 + 8, 4,
		       (uint32_t)r->pdev.bar[2].addr | PCI_BAR_MEM_64 | PCI_BAR_PREFETCH);
	plat_pci_write(r->pdev.bdf, PCI_BAR0 + 12, 4, (uint32_t)(r->pdev.bar[2].addr >> 32));
	pci_enable_device(&r->pdev);
	return 0;
}

int rig_probe(struct rig *r)
{
	int rc = hermon_init(&r->h, &r->pdev);

	r->up = rc == 0;
	if (rc == 0 && r->cabled) {
		hcasim_port_set_link(r->sim, 1, true);
		hcasim_port_set_link(r->sim, 2, true);
		rig_step(r);
	}
	return rc;
}

int rig_register(struct rig *r)
{
	int rc = hermon_ib_register(&r->h);

	r->registered = rc == 0;
	return rc;
}

int rig_up(struct rig *r)
{
	int rc;

	rig_set_quiet(true);
	rig_log_clear();
	if ((rc = rig_create(r, 0, true)) != 0 || (rc = rig_probe(r)) != 0)
		return rc;
	return rig_register(r);
}

void rig_poll(struct rig *r, unsigned n)
{
	while (n--) {
		rig_step(r);
		if (r->registered)
			ib_poll_device(&r->h.ib);
		udelay(1000);
	}
}

int rig_sm_set_port(struct ib_device *dev, unsigned port, uint16_t lid, bool rereg)
{
	uint8_t mad[IB_MAD_SIZE], reply[IB_MAD_SIZE], *pi = mad + IBLIB_SMP_DATA_OFF;
	int rc;

	for (unsigned step = 0; step < 2; step++) {
		memset(mad, 0, sizeof(mad));
		mad[0] = IBLIB_MAD_BASE_VERSION;
		mad[1] = IBLIB_MCLASS_SUBN_LID;
		mad[2] = IBLIB_SMP_CLASS_VERSION;
		mad[3] = IBLIB_METHOD_GET;
		put_be16(mad + 16, IBLIB_SM_ATTR_PORT_INFO);
		put_be32(mad + 20, port);
		if ((rc = dev->ops->mad(dev, port, mad, reply)) != 0)
			return rc;
		memcpy(pi, reply + IBLIB_SMP_DATA_OFF, IBLIB_SMP_DATA_BYTES);
		mad[3] = IBLIB_METHOD_SET;
		iblib_portinfo_set_lid(pi, lid);
		iblib_portinfo_set_master_sm_lid(pi, 1);
		iblib_portinfo_set_port_state(pi, step == 0 ? IB_PORT_ARMED : IB_PORT_ACTIVE);
		iblib_portinfo_set_port_phys_state(pi, 0);   /* no change */
		iblib_portinfo_set_client_reregister(pi, rereg && step == 1);
		if ((rc = dev->ops->mad(dev, port, mad, reply)) != 0)
			return rc;
	}
	return 0;
}

/* ---- a recording QP owner and a pair of UD QPs ---- */

static void rig_on_recv(struct ib_qp *qp, const struct ib_wc *wc, const uint8_t *grh,
			uint8_t *data, size_t len)
{
	struct rig_got *g = qp->owner_priv;

	g->recvs++;
	g->src_qpn = wc->src_qpn;
	g->slid = wc->slid;
	g->grh = grh != NULL;
	if (grh)
		memcpy(g->dgid, grh + 24, 16);
	g->len = len;
	memcpy(g->data, data, len < sizeof(g->data) ? len : sizeof(g->data));
}

static void rig_on_sent(struct ib_qp *qp, void *cookie, int status)
{
	struct rig_got *g = qp->owner_priv;

	(void)cookie;
	g->sends++;
	if (status)
		g->send_errors++;
}

const struct ib_qp_owner_ops rig_owner = { .recv = rig_on_recv, .sent = rig_on_sent };

int rig_make_pair(struct ib_device *dev, struct rig_pair *p)
{
	struct ib_qp_config cfg = { .type = IB_QPT_UD, .qkey = 0x1234, .send_wqes = 4,
				    .recv_wqes = 4, .recv_payload = 512, .send_bufs = 4,
				    .send_buf_size = 512, .owner = &rig_owner };

	memset(p, 0, sizeof(*p));
	p->cqa = ib_create_cq(dev, 16);
	p->cqb = ib_create_cq(dev, 16);
	if (!p->cqa || !p->cqb)
		return -ENOMEM;
	cfg.send_cq = cfg.recv_cq = p->cqa;
	cfg.owner_priv = &p->ga;
	p->qa = ib_create_qp(&dev->port[0], &cfg);
	cfg.send_cq = cfg.recv_cq = p->cqb;
	cfg.owner_priv = &p->gb;
	p->qb = ib_create_qp(&dev->port[1], &cfg);
	if (!p->qa || !p->qb)
		return -EIO;
	p->to_b = (struct ib_address_vector){ .qpn = p->qb->qpn, .qkey = 0x1234,
					      .lid = dev->port[1].attr.lid };
	return 0;
}

int rig_send(struct ib_qp *qp, const struct ib_address_vector *av, const void *msg, size_t len)
{
	struct ib_buf *b = ib_send_buf_get(qp);

	if (!b)
		return -ENOSPC;
	memcpy(b->va, msg, len);
	return ib_post_send(qp, av, b, len, NULL);
}

void rig_destroy(struct rig *r)
{
	if (r->registered)
		hermon_ib_unregister(&r->h);
	r->registered = false;
	if (r->up)
		hermon_fini(&r->h);
	r->up = false;
	for (unsigned i = 0; i < RIG_MAX; i++)
		if (rigs[i] == r)
			rigs[i] = NULL;
	if (r->sim)
		hcasim_destroy(r->sim);
	r->sim = NULL;
}
