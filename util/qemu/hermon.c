/*
 * QEMU "hermon" PCI device: a Mellanox Hermon-family InfiniBand HCA whose behaviour lives in the
 * hcasim model (libhcasim.so, dlopen'd at realize time), optionally attached to a fabsim fabric.
 *
 *   -device hermon,model=PATH/libhcasim.so[,device-id=0x1003][,guid=0x...][,port2=on|off]
 *                  [,fabric=SOCKET[,fabric-lib=PATH/libfabsim_client.so]]
 *                  [,port1-cable=on|off|auto][,port2-cable=on|off|auto][,msix=on|off]
 *                  [,log=FILE][,node-desc=TEXT]
 *
 * This file only translates between QEMU and the model's C interface (util/hcasim/include/hcasim.h):
 * PCI IDs, class and BAR layout come from the model, BAR accesses and config space above the standard
 * header are forwarded to it, its DMA goes through the PCI DMA API, a virtual-clock timer drives
 * hcasim_step(). The model and the fabric client are shared objects so that changing either never
 * rebuilds QEMU. Everything here runs under the BQL, which keeps the single-threaded model safe.
 *
 * Interrupts: the model decides when an armed EQ fires (PRM: once, then it needs re-arming). With
 * MSI-X enabled the device sends the message of the EQ's vector (QEMU's MSI-X emulation owns the
 * table and PBA at the place the model's capability names, so masking and pending bits behave as
 * PCI defines); otherwise the INTx pin follows the model's level, which the driver lowers through
 * the clear-interrupt register QUERY_FW reports. msix=off hides the capability (INTx only).
 *
 * Cabling (with fabric=): portN-cable=on attaches port N to fabsim and fails if fabsim has no cable
 * for it; auto attaches it when fabsim has one and otherwise leaves it unplugged with a warning;
 * off leaves it unplugged. Defaults: port 1 on, port 2 auto.
 *
 * Built into QEMU by util/qemu/build (which copies this file to hw/misc/hermon.c and the two
 * interface headers to hw/misc/hermon-ext/).
 *
 * SPDX-License-Identifier: MIT
 */
#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/module.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "qemu/bswap.h"
#include "qemu/error-report.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "sysemu/dma.h"
#include "qom/object.h"
#include <dlfcn.h>

#include "hermon-ext/hcasim.h"
#include "hermon-ext/fabsim_client.h"

#define TYPE_HERMON "hermon"
OBJECT_DECLARE_SIMPLE_TYPE(HermonState, HERMON)

#define HERMON_MAX_PORTS 2
#define HERMON_STEP_PERIOD_NS (1 * SCALE_MS)
/* Bound on back-to-back steps per tick, so a busy model cannot starve the guest. */
#define HERMON_STEPS_PER_TICK 64
/*
 * guid= is the node GUID; port p's GUID is guid + p (as on ConnectX: node ...0, ports ...1, ...2).
 * The device hands both port GUIDs to the model explicitly, so what it announces to fabsim and
 * what the model's SMA reports to the subnet manager cannot differ.
 */
#define HERMON_DEFAULT_GUID 0x0002c90300001000ULL

/* The model's entry points, resolved with dlsym; typed from the header's own prototypes. */
typedef struct HermonModelApi {
    __typeof__(hcasim_create) *create;
    __typeof__(hcasim_destroy) *destroy;
    __typeof__(hcasim_cfg_read) *cfg_read;
    __typeof__(hcasim_cfg_write) *cfg_write;
    __typeof__(hcasim_bar_read) *bar_read;
    __typeof__(hcasim_bar_write) *bar_write;
    __typeof__(hcasim_bar_size) *bar_size;
    __typeof__(hcasim_port_set_link) *port_set_link;
    __typeof__(hcasim_packet_in) *packet_in;
    __typeof__(hcasim_step) *step;
} HermonModelApi;

/* Optional diagnostics of the model (NULL when an older model lacks them). */
typedef struct HermonModelDiag {
    __typeof__(hcasim_mem_usage) *mem_usage;
    __typeof__(hcasim_irq_next) *irq_next;
    __typeof__(hcasim_intx) *intx;
} HermonModelDiag;

typedef struct HermonFabricApi {
    __typeof__(fabsim_client_connect_flags) *connect_flags;
    __typeof__(fabsim_client_fd) *fd;
    __typeof__(fabsim_client_send_packet) *send_packet;
    __typeof__(fabsim_client_recv) *recv;
    __typeof__(fabsim_client_close) *close;
    __typeof__(fabsim_client_send_link) *send_link;
} HermonFabricApi;

typedef struct HermonPort {
    struct HermonState *s;
    unsigned num;                       /* 1-based */
    struct fabsim_client *client;       /* NULL: unplugged */
    bool link_up;
    OnOffAuto cable;                    /* property portN-cable */
} HermonPort;

struct HermonState {
    PCIDevice parent_obj;
    MemoryRegion bar[PCI_NUM_REGIONS];
    QEMUTimer *step_timer;

    void *model_lib;
    HermonModelApi api;
    HermonModelDiag diag;
    struct hcasim *h;
    struct hcasim_config cfg;
    struct hcasim_host_ops ops;
    bool touched;                       /* guest accessed a BAR since the model was created */
    bool in_model;                      /* inside a model call (its DMA may hit our own BARs) */

    void *fabric_lib;
    HermonFabricApi fab;
    HermonPort port[HERMON_MAX_PORTS];
    struct fabsim_msg rx;               /* 4.6 KiB: kept off the stack */

    FILE *log;
    hwaddr last_read_off;               /* read de-duplication for the log (HCR polling) */
    uint64_t last_read_val;
    struct hcasim_mem_usage last_mem;   /* host memory given to the HCA, as last logged */
    uint64_t peak_mem;

    /* interrupts */
    bool msix_ready;                    /* QEMU's MSI-X emulation sits on the model's capability */
    unsigned msix_vectors;
    unsigned msix_tbir, msix_pbir;      /* the BARs QEMU's table and PBA regions sit in */
    uint8_t msix_cap;                   /* its offset in config space */
    int msix_hide_at;                   /* config byte whose value is patched to hide MSI-X, or -1 */
    uint8_t msix_hide_next;
    bool intx_level;                    /* as last driven */
    uint64_t msix_sent, intx_raised;

    /* properties */
    char *model_path;
    char *fabric_path;
    char *fabric_lib_path;
    char *log_path;
    char *node_desc;
    uint16_t device_id;
    uint64_t guid;
    bool port2;
    bool msix;
};

static void G_GNUC_PRINTF(2, 3) hermon_log(HermonState *s, const char *fmt, ...)
{
    int64_t ns, sec, usec;
    va_list ap;

    if (!s->log) {
        return;
    }
    ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    sec = ns / NANOSECONDS_PER_SECOND;
    usec = ns % NANOSECONDS_PER_SECOND / 1000;
    fprintf(s->log, "[%5" PRId64 ".%06" PRId64 "] ", sec, usec);
    va_start(ap, fmt);
    vfprintf(s->log, fmt, ap);
    va_end(ap);
    fputc('\n', s->log);
}

static void hermon_log_access(HermonState *s, const char *what, unsigned bar, hwaddr off,
                              const uint8_t *bytes, unsigned size)
{
    char hex[2 * 8 + 1];
    unsigned i;

    for (i = 0; i < size; i++) {
        snprintf(hex + 2 * i, 3, "%02x", bytes[i]);
    }
    hermon_log(s, "bar%u %s 0x%05" HWADDR_PRIx " %s", bar, what, off, hex);
}

/* ---- host services the model calls back ---- */

static int hermon_dma_read(void *ctx, uint64_t gpa, void *buf, size_t len)
{
    HermonState *s = ctx;
    return pci_dma_read(PCI_DEVICE(s), gpa, buf, len) == MEMTX_OK ? 0 : -EFAULT;
}

static int hermon_dma_write(void *ctx, uint64_t gpa, const void *buf, size_t len)
{
    HermonState *s = ctx;
    return pci_dma_write(PCI_DEVICE(s), gpa, buf, len) == MEMTX_OK ? 0 : -EFAULT;
}

static uint64_t hermon_now_ns(void *ctx)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static void hermon_model_log(void *ctx, const char *line)
{
    hermon_log(ctx, "model: %s", line);
}

/*
 * The model's link trained or dropped (cable plus INIT_PORT; a software reset drops it): fabsim
 * hears it (HELLO with FABSIM_HELLO_REPORTS_LINK), so the switch port goes Down at the HCA's reset
 * and back to Init when the driver's INIT_PORT trains it, with PortStateChange and trap 128, as on
 * a real fabric; the SM then sweeps the port again (an OS driver taking over after the firmware).
 */
static void hermon_link_change(void *ctx, unsigned port, bool up)
{
    HermonState *s = ctx;

    hermon_log(s, "port %u: link %s (model)", port, up ? "trained up" : "down");
    if (port >= 1 && port <= HERMON_MAX_PORTS && s->port[port - 1].client) {
        s->fab.send_link(s->port[port - 1].client, up);
    }
}

static void hermon_packet_out(void *ctx, unsigned port, const void *pkt, size_t len)
{
    HermonState *s = ctx;
    HermonPort *p;
    int rc;

    if (port < 1 || port > HERMON_MAX_PORTS || !s->port[port - 1].client) {
        return;                         /* no cable: the packet is lost, as on the wire */
    }
    p = &s->port[port - 1];
    rc = s->fab.send_packet(p->client, pkt, len);
    if (rc < 0) {
        hermon_log(s, "fabric port %u: packet of %zu bytes not sent: %s", port, len, strerror(-rc));
    }
}

/* ---- driving the model ---- */

/*
 * The model is not re-entrant. A DMA address that points into our own BARs would call back into
 * it from inside a model call (QEMU 7.2 has no re-entrancy guard of its own): such an access is
 * refused here, like a transaction nobody decodes.
 */
static bool hermon_enter(HermonState *s, const char *what)
{
    if (s->in_model) {
        hermon_log(s, "refused: %s from inside the model (DMA aimed at the HCA's own BAR?)", what);
        return false;
    }
    s->in_model = true;
    return true;
}

static void hermon_leave(HermonState *s)
{
    s->in_model = false;
}

/*
 * Deliver what the model raised: each pending vector as an MSI-X message while MSI-X is enabled
 * (QEMU holds it in the PBA while masked), and the INTx level otherwise. Vectors raised while
 * MSI-X is off are not messages anyone asked for: dropped (the pin carried them).
 */
static void hermon_irq_update(HermonState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    bool level;
    int v;

    if (!s->h) {
        return;
    }
    /*
     * A software reset (BAR0 reset register) returns the model's config space to its defaults,
     * MSI-X Enable included, as the chip's does; QEMU's copy of the capability and its table
     * follow, so the two never disagree about how the function signals.
     */
    if (s->msix_ready && msix_enabled(pdev) &&
        !(s->api.cfg_read(s->h, s->msix_cap + PCI_MSIX_FLAGS, 2) & PCI_MSIX_FLAGS_ENABLE)) {
        hermon_log(s, "irq: MSI-X off in the model's config space (software reset): "
                   "QEMU's MSI-X state reset too");
        msix_reset(pdev);
    }
    while (s->diag.irq_next && (v = s->diag.irq_next(s->h)) >= 0) {
        if (!s->msix_ready || !msix_enabled(pdev)) {
            continue;
        }
        if ((unsigned)v >= s->msix_vectors) {
            hermon_log(s, "irq: EQ names MSI-X vector %d beyond the table (%u): not sent", v,
                       s->msix_vectors);
            continue;
        }
        s->msix_sent++;
        hermon_log(s, "irq: MSI-X vector %d (message %" PRIu64 ")", v, s->msix_sent);
        msix_notify(pdev, v);
    }
    level = s->diag.intx && s->diag.intx(s->h);
    if (level != s->intx_level) {
        s->intx_level = level;
        if (level) {
            s->intx_raised++;
        }
        hermon_log(s, "irq: INTx %s (raised %" PRIu64 " times)", level ? "asserted" : "deasserted",
                   s->intx_raised);
        pci_set_irq(pdev, level);
    }
}

static void hermon_run(HermonState *s, unsigned max_steps)
{
    if (!s->h || !hermon_enter(s, "step")) {
        return;
    }
    while (max_steps-- && s->api.step(s->h)) {
    }
    hermon_leave(s);
    hermon_irq_update(s);
}

/* The model's account of host memory the driver handed over (FA, ICM AUX, ICM), when it changes. */
static void hermon_log_memory(HermonState *s)
{
    struct hcasim_mem_usage u;

    if (!s->log || !s->h || !s->diag.mem_usage) {
        return;
    }
    s->diag.mem_usage(s->h, &u);
    if (!memcmp(&u, &s->last_mem, sizeof(u))) {
        return;
    }
    s->last_mem = u;
    s->peak_mem = MAX(s->peak_mem, u.total);
    hermon_log(s, "memory: fa %" PRIu64 " aux %" PRIu64 " icm %" PRIu64 " total %" PRIu64
               " peak %" PRIu64 " bytes of host memory held by the HCA",
               u.fa_bytes, u.aux_bytes, u.icm_bytes, u.total, s->peak_mem);
}

static void hermon_step_tick(void *opaque)
{
    HermonState *s = opaque;

    hermon_run(s, HERMON_STEPS_PER_TICK);
    hermon_log_memory(s);
    timer_mod(s->step_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + HERMON_STEP_PERIOD_NS);
}

static uint64_t hermon_bar_read(HermonState *s, unsigned bar, hwaddr off, unsigned size)
{
    uint8_t bytes[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    uint64_t val;

    if (s->h && hermon_enter(s, "BAR read")) {
        s->touched = true;
        s->api.bar_read(s->h, bar, off, bytes, size);
        hermon_leave(s);
    }
    /* DEVICE_LITTLE_ENDIAN: the value's little-endian bytes are the bus-order bytes. */
    val = ldn_le_p(bytes, size);
    if (bar == 0 && s->log && (off != s->last_read_off || val != s->last_read_val)) {
        s->last_read_off = off;
        s->last_read_val = val;
        hermon_log_access(s, "read ", bar, off, bytes, size);
    }
    return val;
}

static void hermon_bar_write(HermonState *s, unsigned bar, hwaddr off, uint64_t val,
                             unsigned size)
{
    uint8_t bytes[8];

    if (!s->h || !hermon_enter(s, "BAR write")) {
        return;
    }
    stn_le_p(bytes, size, val);
    if (bar == 0) {
        /* BAR0 writes are rare (HCR, reset): all of them; doorbells in BAR2 would flood the log. */
        hermon_log_access(s, "write", bar, off, bytes, size);
        s->last_read_off = (hwaddr)-1;
    }
    s->touched = true;
    s->api.bar_write(s->h, bar, off, bytes, size);
    hermon_leave(s);
    hermon_run(s, 1);
}

static uint64_t hermon_bar0_read(void *opaque, hwaddr off, unsigned size)
{
    return hermon_bar_read(opaque, 0, off, size);
}

static void hermon_bar0_write(void *opaque, hwaddr off, uint64_t val, unsigned size)
{
    hermon_bar_write(opaque, 0, off, val, size);
}

static uint64_t hermon_bar2_read(void *opaque, hwaddr off, unsigned size)
{
    return hermon_bar_read(opaque, 2, off, size);
}

static void hermon_bar2_write(void *opaque, hwaddr off, uint64_t val, unsigned size)
{
    hermon_bar_write(opaque, 2, off, val, size);
}

static const MemoryRegionOps hermon_bar_ops[PCI_NUM_REGIONS] = {
    [0] = {
        .read = hermon_bar0_read,
        .write = hermon_bar0_write,
        .endianness = DEVICE_LITTLE_ENDIAN,
        .impl = { .min_access_size = 1, .max_access_size = 8 },
        .valid = { .min_access_size = 1, .max_access_size = 8 },
    },
    [2] = {
        .read = hermon_bar2_read,
        .write = hermon_bar2_write,
        .endianness = DEVICE_LITTLE_ENDIAN,
        .impl = { .min_access_size = 1, .max_access_size = 8 },
        .valid = { .min_access_size = 1, .max_access_size = 8 },
    },
};

/* ---- PCI configuration space ---- */

/*
 * QEMU owns the standard header (command, status, BARs: it must map them); the model's
 * capabilities and device-specific registers above it are the model's.
 */
static uint32_t hermon_config_read(PCIDevice *pdev, uint32_t addr, int len)
{
    HermonState *s = HERMON(pdev);

    if (addr >= PCI_CONFIG_HEADER_SIZE && s->h) {
        uint32_t val = s->api.cfg_read(s->h, addr, len);

        /* msix=off: the capability before MSI-X points past it */
        if (s->msix_hide_at >= (int)addr && s->msix_hide_at < (int)(addr + len)) {
            unsigned shift = 8 * (s->msix_hide_at - addr);

            val = (val & ~(0xffu << shift)) | ((uint32_t)s->msix_hide_next << shift);
        }
        return val;
    }
    return pci_default_read_config(pdev, addr, len);
}

static void hermon_config_write(PCIDevice *pdev, uint32_t addr, uint32_t val, int len)
{
    HermonState *s = HERMON(pdev);

    pci_default_write_config(pdev, addr, val, len);
    /* The model sees everything but the BARs (it may gate DMA on the command register). */
    if (s->h && (addr < PCI_BASE_ADDRESS_0 || addr >= PCI_CARDBUS_CIS)) {
        s->api.cfg_write(s->h, addr, val, len);
    }
}

static bool hermon_take_header(HermonState *s, Error **errp)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    uint8_t *c = pdev->config;
    uint16_t vendor = s->api.cfg_read(s->h, PCI_VENDOR_ID, 2);
    uint8_t cap = s->api.cfg_read(s->h, PCI_CAPABILITY_LIST, 1);

    if (vendor == 0 || vendor == 0xffff) {
        error_setg(errp, "hermon: model %s reports vendor ID 0x%04x: not a PCI function",
                   s->model_path, vendor);
        return false;
    }
    pci_set_word(c + PCI_VENDOR_ID, vendor);
    pci_set_word(c + PCI_DEVICE_ID, s->api.cfg_read(s->h, PCI_DEVICE_ID, 2));
    pci_set_byte(c + PCI_REVISION_ID, s->api.cfg_read(s->h, PCI_REVISION_ID, 1));
    pci_set_byte(c + PCI_CLASS_PROG, s->api.cfg_read(s->h, PCI_CLASS_PROG, 1));
    pci_set_word(c + PCI_CLASS_DEVICE, s->api.cfg_read(s->h, PCI_CLASS_DEVICE, 2));
    pci_set_word(c + PCI_SUBSYSTEM_VENDOR_ID,
                 s->api.cfg_read(s->h, PCI_SUBSYSTEM_VENDOR_ID, 2));
    pci_set_word(c + PCI_SUBSYSTEM_ID, s->api.cfg_read(s->h, PCI_SUBSYSTEM_ID, 2));
    pci_set_byte(c + PCI_INTERRUPT_PIN, s->api.cfg_read(s->h, PCI_INTERRUPT_PIN, 1));
    if ((s->api.cfg_read(s->h, PCI_STATUS, 2) & PCI_STATUS_CAP_LIST) &&
        cap >= PCI_CONFIG_HEADER_SIZE) {
        pci_set_byte(c + PCI_CAPABILITY_LIST, cap & ~3);
        pci_word_test_and_set_mask(c + PCI_STATUS, PCI_STATUS_CAP_LIST);
    }
    return true;
}

/* Map every memory BAR the model declares, with the size and type it reports. */
static bool hermon_map_bars(HermonState *s, Error **errp)
{
    static const char *const names[PCI_NUM_REGIONS] = { [0] = "hermon-bar0", [2] = "hermon-uar" };
    unsigned bar;

    for (bar = 0; bar < PCI_ROM_SLOT; bar++) {
        uint64_t size = s->api.bar_size(s->h, bar);
        uint32_t reg = s->api.cfg_read(s->h, PCI_BASE_ADDRESS_0 + 4 * bar, 4);
        uint8_t type = reg & (PCI_BASE_ADDRESS_SPACE | PCI_BASE_ADDRESS_MEM_TYPE_MASK |
                              PCI_BASE_ADDRESS_MEM_PREFETCH);

        if (size == 0) {
            continue;
        }
        if (!hermon_bar_ops[bar].read) {
            error_setg(errp, "hermon: model declares BAR%u (%" PRIu64 " bytes); this device "
                       "forwards only BAR0 and BAR2", bar, size);
            return false;
        }
        if (size < 16 || (size & (size - 1)) || (type & PCI_BASE_ADDRESS_SPACE_IO)) {
            error_setg(errp, "hermon: model's BAR%u is not a memory BAR of a power-of-two size "
                       "(size %" PRIu64 ", register 0x%08x)", bar, size, reg);
            return false;
        }
        memory_region_init_io(&s->bar[bar], OBJECT(s), &hermon_bar_ops[bar], s,
                              names[bar], size);
        pci_register_bar(PCI_DEVICE(s), bar, type, &s->bar[bar]);
        if (type & PCI_BASE_ADDRESS_MEM_TYPE_64) {
            bar++;                      /* the next register holds the upper half */
        }
    }
    return true;
}

/* ---- MSI-X ---- */

/*
 * The model's MSI-X capability (PCI 3.0 6.8.2) names the table and PBA: QEMU's MSI-X emulation is
 * placed exactly there (its regions overlay the model's BAR), so the guest's view of config space
 * and of the table stays the model's layout. QEMU links the capability into its own copy of the
 * list; config reads above the header come from the model, so only the header's pointer needs
 * putting back. With msix=off, or when QEMU cannot do MSI-X, the capability is hidden instead: a
 * driver must not find an MSI-X capability that delivers nothing (Linux then uses INTx).
 */
static void hermon_hide_msix(HermonState *s, unsigned prev_next, uint8_t cap)
{
    s->msix_hide_next = s->api.cfg_read(s->h, cap + PCI_CAP_LIST_NEXT, 1) & ~3;
    if (prev_next == PCI_CAPABILITY_LIST) {
        pci_set_byte(PCI_DEVICE(s)->config + PCI_CAPABILITY_LIST, s->msix_hide_next);
    } else {
        s->msix_hide_at = prev_next;
    }
}

static void hermon_setup_msix(HermonState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    unsigned prev_next = PCI_CAPABILITY_LIST, seen;
    uint8_t cap = pci_get_byte(pdev->config + PCI_CAPABILITY_LIST), head = cap;
    uint32_t table, pba;
    unsigned n, tbir, pbir;
    Error *err = NULL;

    s->msix_hide_at = -1;
    for (seen = 0; cap >= PCI_CONFIG_HEADER_SIZE && seen < 48; seen++) {
        if (s->api.cfg_read(s->h, cap, 1) == PCI_CAP_ID_MSIX) {
            break;
        }
        prev_next = cap + PCI_CAP_LIST_NEXT;
        cap = s->api.cfg_read(s->h, prev_next, 1) & ~3;
    }
    if (cap < PCI_CONFIG_HEADER_SIZE || seen == 48) {
        hermon_log(s, "irq: the model has no MSI-X capability: INTx only");
        return;
    }
    n = (s->api.cfg_read(s->h, cap + PCI_MSIX_FLAGS, 2) & PCI_MSIX_FLAGS_QSIZE) + 1;
    table = s->api.cfg_read(s->h, cap + PCI_MSIX_TABLE, 4);
    pba = s->api.cfg_read(s->h, cap + PCI_MSIX_PBA, 4);
    tbir = table & PCI_MSIX_FLAGS_BIRMASK;
    pbir = pba & PCI_MSIX_FLAGS_BIRMASK;
    if (!s->msix) {
        hermon_log(s, "irq: msix=off: MSI-X capability at 0x%02x hidden, INTx only", cap);
        hermon_hide_msix(s, prev_next, cap);
        return;
    }
    if (tbir >= PCI_ROM_SLOT || pbir >= PCI_ROM_SLOT || !s->api.bar_size(s->h, tbir) ||
        !s->api.bar_size(s->h, pbir) ||
        msix_init(pdev, n, &s->bar[tbir], tbir, table & ~PCI_MSIX_FLAGS_BIRMASK, &s->bar[pbir],
                  pbir, pba & ~PCI_MSIX_FLAGS_BIRMASK, cap, &err) < 0) {
        warn_report("hermon: MSI-X capability at 0x%02x hidden, the device uses INTx: %s", cap,
                    err ? error_get_pretty(err) : "its table or PBA is in a BAR the model lacks");
        error_free(err);
        hermon_hide_msix(s, prev_next, cap);
        return;
    }
    pci_set_byte(pdev->config + PCI_CAPABILITY_LIST, head);
    s->msix_tbir = tbir;
    s->msix_pbir = pbir;
    s->msix_cap = cap;
    for (s->msix_vectors = 0; s->msix_vectors < n; s->msix_vectors++) {
        msix_vector_use(pdev, s->msix_vectors);
    }
    s->msix_ready = true;
    hermon_log(s, "irq: MSI-X capability at 0x%02x, %u vectors, table BAR%u+0x%x, PBA BAR%u+0x%x",
               cap, n, tbir, table & ~PCI_MSIX_FLAGS_BIRMASK, pbir,
               pba & ~PCI_MSIX_FLAGS_BIRMASK);
}

/* ---- model lifetime ---- */

static bool hermon_load_model(HermonState *s, Error **errp)
{
    static const char *const names[] = {
        "hcasim_create", "hcasim_destroy", "hcasim_cfg_read", "hcasim_cfg_write",
        "hcasim_bar_read", "hcasim_bar_write", "hcasim_bar_size", "hcasim_port_set_link",
        "hcasim_packet_in", "hcasim_step",
    };
    void **slot = (void **)&s->api;
    size_t i;

    QEMU_BUILD_BUG_ON(sizeof(s->api) != sizeof(names) / sizeof(names[0]) * sizeof(void *));
    if (!s->model_path || !*s->model_path) {
        error_setg(errp, "hermon: model= is required: the path of libhcasim.so "
                   "(built by `make bin/libhcasim.so`)");
        return false;
    }
    s->model_lib = dlopen(s->model_path, RTLD_NOW | RTLD_LOCAL);
    if (!s->model_lib) {
        error_setg(errp, "hermon: cannot load the model %s: %s", s->model_path, dlerror());
        return false;
    }
    for (i = 0; i < ARRAY_SIZE(names); i++) {
        slot[i] = dlsym(s->model_lib, names[i]);
        if (!slot[i]) {
            error_setg(errp, "hermon: model %s lacks %s: is it libhcasim.so?",
                       s->model_path, names[i]);
            return false;
        }
    }
    s->diag.mem_usage = dlsym(s->model_lib, "hcasim_mem_usage");
    s->diag.irq_next = dlsym(s->model_lib, "hcasim_irq_next");
    s->diag.intx = dlsym(s->model_lib, "hcasim_intx");
    return true;
}

static bool hermon_create_model(HermonState *s, Error **errp)
{
    unsigned p;

    s->h = s->api.create(&s->cfg, &s->ops);
    if (!s->h) {
        error_setg(errp, "hermon: the model %s refused to create a device (device-id 0x%04x)",
                   s->model_path, s->cfg.device_id);
        return false;
    }
    s->touched = false;
    memset(&s->last_mem, 0, sizeof(s->last_mem));
    for (p = 0; p < s->cfg.num_ports; p++) {
        s->api.port_set_link(s->h, p + 1, s->port[p].link_up);
    }
    return true;
}

/* ---- fabric ---- */

static void hermon_port_detach(HermonPort *p)
{
    HermonState *s = p->s;

    if (!p->client) {
        return;
    }
    qemu_set_fd_handler(s->fab.fd(p->client), NULL, NULL, NULL);
    s->fab.close(p->client);
    p->client = NULL;
    p->link_up = false;
    if (s->h) {
        s->api.port_set_link(s->h, p->num, false);
    }
}

static void hermon_fabric_readable(void *opaque)
{
    HermonPort *p = opaque;
    HermonState *s = p->s;
    int rc;

    while (p->client && (rc = s->fab.recv(p->client, &s->rx)) != 0) {
        if (rc < 0) {
            warn_report("hermon: fabric port %u: %s; the port is now unplugged", p->num,
                        rc == -ECONNRESET ? "fabsim closed the connection" : strerror(-rc));
            hermon_log(s, "fabric port %u: detached (%s)", p->num, strerror(-rc));
            hermon_port_detach(p);
            return;
        }
        if (!s->h || !hermon_enter(s, "fabric message")) {
            continue;
        }
        if (s->rx.type == FABSIM_MSG_PACKET) {
            s->api.packet_in(s->h, p->num, s->rx.data, s->rx.len);
        } else if (s->rx.type == FABSIM_MSG_LINK) {
            p->link_up = s->rx.flags == FABSIM_LINK_UP;
            hermon_log(s, "fabric port %u: link %s", p->num, p->link_up ? "up" : "down");
            s->api.port_set_link(s->h, p->num, p->link_up);
        }
        hermon_leave(s);
        hermon_run(s, 1);
    }
}

static bool hermon_load_fabric(HermonState *s, Error **errp)
{
    static const char *const names[] = {
        "fabsim_client_connect_flags", "fabsim_client_fd", "fabsim_client_send_packet",
        "fabsim_client_recv", "fabsim_client_close", "fabsim_client_send_link",
    };
    void **slot = (void **)&s->fab;
    g_autofree char *dir = NULL;
    g_autofree char *path = NULL;
    size_t i;

    QEMU_BUILD_BUG_ON(sizeof(s->fab) != sizeof(names) / sizeof(names[0]) * sizeof(void *));
    if (s->fabric_lib_path && *s->fabric_lib_path) {
        path = g_strdup(s->fabric_lib_path);
    } else {
        dir = g_path_get_dirname(s->model_path);
        path = g_build_filename(dir, "libfabsim_client.so", NULL);
    }
    s->fabric_lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!s->fabric_lib) {
        error_setg(errp, "hermon: fabric= needs the fabsim client library: cannot load %s: %s "
                   "(set fabric-lib=PATH)", path, dlerror());
        return false;
    }
    for (i = 0; i < ARRAY_SIZE(names); i++) {
        slot[i] = dlsym(s->fabric_lib, names[i]);
        if (!slot[i]) {
            error_setg(errp, "hermon: %s lacks %s", path, names[i]);
            return false;
        }
    }
    return true;
}

/*
 * Each port as its portN-cable property says: on = fabsim must accept it, auto = a refusal leaves
 * the port unplugged (a dual-port HCA with one cable) with a warning, off = never attached. At
 * least one port must end up cabled when a fabric is named.
 */
static bool hermon_attach_fabric(HermonState *s, Error **errp)
{
    const char *name = s->node_desc && *s->node_desc ? s->node_desc : "qemu-hermon";
    unsigned i, attached = 0;

    if (!hermon_load_fabric(s, errp)) {
        return false;
    }
    for (i = 0; i < s->cfg.num_ports; i++) {
        HermonPort *p = &s->port[i];
        uint64_t guid = s->cfg.port_guid[i];
        char err[256] = "";

        if (p->cable == ON_OFF_AUTO_OFF) {
            hermon_log(s, "fabric port %u: not cabled (port%u-cable=off)", p->num, p->num);
            continue;
        }
        p->client = s->fab.connect_flags(s->fabric_path, guid, p->num, name,
                                         FABSIM_HELLO_REPORTS_LINK, err, sizeof(err));
        if (!p->client) {
            if (p->cable == ON_OFF_AUTO_ON) {
                error_setg(errp, "hermon: fabric %s refused port %u (GUID 0x%016" PRIx64 "): %s "
                           "(port%u-cable=on)", s->fabric_path, p->num, guid, err, p->num);
                return false;
            }
            warn_report("hermon: port %u (GUID 0x%016" PRIx64 ") stays unplugged: %s",
                        p->num, guid, err);
            continue;
        }
        attached++;
        hermon_log(s, "fabric port %u: attached to %s as GUID 0x%016" PRIx64, p->num,
                   s->fabric_path, guid);
        qemu_set_fd_handler(s->fab.fd(p->client), hermon_fabric_readable, NULL, p);
    }
    if (!attached) {
        error_setg(errp, "hermon: fabric=%s is named but no port is cabled (portN-cable)",
                   s->fabric_path);
        return false;
    }
    return true;
}

/* ---- QOM ---- */

static void hermon_release(HermonState *s)
{
    unsigned i;

    if (s->step_timer) {
        timer_free(s->step_timer);
        s->step_timer = NULL;
    }
    for (i = 0; i < HERMON_MAX_PORTS; i++) {
        hermon_port_detach(&s->port[i]);
    }
    if (s->msix_ready) {
        msix_uninit(PCI_DEVICE(s), &s->bar[s->msix_tbir], &s->bar[s->msix_pbir]);
        s->msix_ready = false;
    }
    if (s->h) {
        s->api.destroy(s->h);
        s->h = NULL;
    }
    if (s->fabric_lib) {
        dlclose(s->fabric_lib);
        s->fabric_lib = NULL;
    }
    if (s->model_lib) {
        dlclose(s->model_lib);
        s->model_lib = NULL;
    }
    if (s->log) {
        fclose(s->log);
        s->log = NULL;
    }
}

static void hermon_realize(PCIDevice *pdev, Error **errp)
{
    HermonState *s = HERMON(pdev);
    unsigned i;

    s->cfg = (struct hcasim_config) {
        .device_id = s->device_id,
        .node_guid = s->guid ? s->guid : HERMON_DEFAULT_GUID,
        .num_ports = s->port2 ? 2 : 1,
        .node_desc = s->node_desc,
    };
    for (i = 0; i < HERMON_MAX_PORTS; i++) {
        s->cfg.port_guid[i] = s->cfg.node_guid + i + 1;
    }
    s->ops = (struct hcasim_host_ops) {
        .ctx = s,
        .dma_read = hermon_dma_read,
        .dma_write = hermon_dma_write,
        .packet_out = hermon_packet_out,
        .now_ns = hermon_now_ns,
        .log = hermon_model_log,
        .link_change = hermon_link_change,
    };
    for (i = 0; i < HERMON_MAX_PORTS; i++) {
        s->port[i].s = s;
        s->port[i].num = i + 1;
        s->port[i].client = NULL;
        s->port[i].link_up = false;
    }
    s->msix_hide_at = -1;
    s->last_read_off = (hwaddr)-1;
    if (s->log_path && *s->log_path) {
        s->log = fopen(s->log_path, "w");
        if (!s->log) {
            error_setg_errno(errp, errno, "hermon: cannot open log=%s", s->log_path);
            return;
        }
        setvbuf(s->log, NULL, _IOLBF, 0);
    }
    if (!hermon_load_model(s, errp) || !hermon_create_model(s, errp) ||
        !hermon_take_header(s, errp) || !hermon_map_bars(s, errp)) {
        goto fail;
    }
    hermon_setup_msix(s);
    hermon_log(s, "model %s: %04x:%04x class %06x, %u port(s), GUID 0x%016" PRIx64,
               s->model_path, pci_get_word(pdev->config + PCI_VENDOR_ID),
               pci_get_word(pdev->config + PCI_DEVICE_ID),
               pci_get_long(pdev->config + PCI_CLASS_REVISION) >> 8, s->cfg.num_ports,
               s->cfg.node_guid);
    if (s->fabric_path && *s->fabric_path && !hermon_attach_fabric(s, errp)) {
        goto fail;
    }
    s->step_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, hermon_step_tick, s);
    timer_mod(s->step_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + HERMON_STEP_PERIOD_NS);
    return;

fail:
    hermon_release(s);
}

static void hermon_exit(PCIDevice *pdev)
{
    hermon_release(HERMON(pdev));
}

/* A PCI reset reboots the adapter: a fresh model with the cables as they are. */
static void hermon_reset(DeviceState *dev)
{
    HermonState *s = HERMON(dev);
    Error *err = NULL;

    if (!s->h || !s->touched) {
        return;
    }
    hermon_log(s, "PCI reset: the model starts afresh");
    s->api.destroy(s->h);
    s->h = NULL;
    if (!hermon_create_model(s, &err)) {
        error_report_err(err);
    }
    hermon_irq_update(s);
}

static Property hermon_properties[] = {
    DEFINE_PROP_STRING("model", HermonState, model_path),
    DEFINE_PROP_UINT16("device-id", HermonState, device_id, 0x1003),
    DEFINE_PROP_UINT64("guid", HermonState, guid, 0),
    DEFINE_PROP_BOOL("port2", HermonState, port2, true),
    DEFINE_PROP_ON_OFF_AUTO("port1-cable", HermonState, port[0].cable, ON_OFF_AUTO_ON),
    DEFINE_PROP_ON_OFF_AUTO("port2-cable", HermonState, port[1].cable, ON_OFF_AUTO_AUTO),
    DEFINE_PROP_BOOL("msix", HermonState, msix, true),
    DEFINE_PROP_STRING("fabric", HermonState, fabric_path),
    DEFINE_PROP_STRING("fabric-lib", HermonState, fabric_lib_path),
    DEFINE_PROP_STRING("log", HermonState, log_path),
    DEFINE_PROP_STRING("node-desc", HermonState, node_desc),
    DEFINE_PROP_END_OF_LIST(),
};

static void hermon_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = hermon_realize;
    k->exit = hermon_exit;
    k->config_read = hermon_config_read;
    k->config_write = hermon_config_write;
    /* Placeholders until realize copies the model's own IDs into config space. */
    k->vendor_id = 0x15b3;
    k->device_id = 0x1003;
    k->class_id = PCI_CLASS_SERIAL_IB;
    dc->desc = "Mellanox Hermon InfiniBand HCA (hcasim model)";
    dc->reset = hermon_reset;
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
    device_class_set_props(dc, hermon_properties);
}

static const TypeInfo hermon_info = {
    .name = TYPE_HERMON,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(HermonState),
    .class_init = hermon_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static void hermon_register_types(void)
{
    type_register_static(&hermon_info);
}

type_init(hermon_register_types)
