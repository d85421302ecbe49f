/* SPDX-License-Identifier: MIT */
/*
 * The hosted platform: ibboot as a Linux process. Console on stdin/stdout, time from
 * CLOCK_MONOTONIC, "physical" memory from one heap arena whose virtual addresses serve as bus
 * addresses, PCI from the software device registry (pci.c).
 */
#include <ibboot/platform.h>
#include <ibboot/hosted.h>
#define IBBOOT_NO_SHORT_ERRNO
#include <ibboot/errno.h>

#include <poll.h>
#include <termios.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char hosted_cmdline[1024];
static uint64_t ram_size = 64ull << 20;
static void *ram_arena;

const char *plat_name(void)
{
	return "hosted";
}

void hosted_set_cmdline(const char *s)
{
	snprintf(hosted_cmdline, sizeof(hosted_cmdline), "%s", s);
}

const char *plat_cmdline(void)
{
	return hosted_cmdline;
}

void plat_print_info(void)
{
	printf("platform: Linux process, %llu MiB buffer arena, software PCI devices\n",
	       (unsigned long long)(ram_size >> 20));
}

void plat_poweroff(int status)
{
	fflush(stdout);
	exit(status);
}

void plat_reboot(void)
{
	printf("(hosted: reboot ends the process)\n");
	fflush(stdout);
	exit(0);
}

void plat_putc(char c)
{
	/* The console layer sends CR LF for serial terminals; a Linux terminal or pipe wants LF. */
	if (c == '\r')
		return;
	putchar(c);
	if (c == '\n')
		fflush(stdout);
}

/* On a terminal, ibboot reads keys one by one and echoes them itself, as on a serial line: the
 * tty's own line editing and echo are switched off meanwhile, and restored at exit. */
static struct termios saved_tty;
static bool tty_raw;

static void tty_restore(void)
{
	if (tty_raw)
		tcsetattr(0, TCSANOW, &saved_tty);
}

static void tty_setup(void)
{
	static bool done;
	struct termios t;

	if (done)
		return;
	done = true;
	if (!isatty(0) || tcgetattr(0, &saved_tty))
		return;
	t = saved_tty;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(0, TCSANOW, &t) == 0) {
		tty_raw = true;
		atexit(tty_restore);
	}
}

int plat_getc(void)
{
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	unsigned char c;

	tty_setup();
	fflush(stdout);
	if (poll(&pfd, 1, 1) <= 0)
		return PLAT_GETC_NONE;
	if (read(0, &c, 1) != 1)
		return PLAT_GETC_EOF;
	return c;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* After this long without device work, a clock read dozes briefly (see plat_counter). */
#define IDLE_DOZE_AFTER_NS 1000000ull

static bool busy_poll;   /* --busy-poll: never doze */

void hosted_set_busy_poll(bool on)
{
	busy_poll = on;
}

/*
 * Hardware runs concurrently with the CPU; the software devices of this single-threaded platform
 * (the HCA model and its fabric socket) run whenever the firmware reads the clock instead. Every
 * loop that waits for the outside world has a timeout and so reads the clock, whatever layer it
 * is in (link wait, ping, DHCP, TFTP, ...), so none can starve the model. A device sees nothing
 * here that it could not see on silicon, where it may act between any two instructions.
 * With devices present and none busy for a while, a clock read also dozes 20 us, so a run that waits for a
 * subnet manager does not burn a whole CPU.
 */
uint64_t plat_counter(void)
{
	static uint64_t last_work_ns;
	uint64_t now = monotonic_ns();
	int work = hosted_poll_devices();

	if (work > 0) {
		last_work_ns = now;
	} else if (work == 0 && !busy_poll && now - last_work_ns > IDLE_DOZE_AFTER_NS) {
		struct timespec nap = { 0, 20000 };

		nanosleep(&nap, NULL);
		now = monotonic_ns();
	}
	return now;
}

uint64_t plat_counter_hz(void)
{
	return 1000000000ull;
}

uint64_t plat_counter_mask(void)
{
	return UINT64_MAX;
}

/* Waiting loops spin on plat_poll() + plat_cpu_relax(). While a device is busy, stay hot (the
 * driver is in a handshake with it); otherwise doze a little, so a hosted run waiting for a
 * subnet manager does not burn a whole CPU. */
void plat_cpu_relax(void)
{
	if (busy_poll || hosted_devices_busy()) {
		__builtin_ia32_pause();
		return;
	}
	struct timespec nap = { 0, 20000 };

	nanosleep(&nap, NULL);
}

void hosted_set_ram_size(uint64_t bytes)
{
	if (!ram_arena)
		ram_size = bytes;
}

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#else
#define ASAN_POISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#endif

void plat_mem_handout(void *p, size_t len)
{
	ASAN_UNPOISON_MEMORY_REGION(p, len);
}

void plat_mem_takeback(void *p, size_t len)
{
	ASAN_POISON_MEMORY_REGION(p, len);
}

static struct plat_mem_region ram_region;

static void ram_setup(void)
{
	if (ram_arena)
		return;
	/* 2 MiB alignment so naturally aligned multi-MiB buffers are possible, as on hardware. */
	if (posix_memalign(&ram_arena, 2u << 20, ram_size)) {
		fprintf(stderr, "hosted: cannot allocate %llu MiB of buffer memory\n",
			(unsigned long long)(ram_size >> 20));
		exit(1);
	}
	ram_region = (struct plat_mem_region){ (uintptr_t)ram_arena, ram_size, PLAT_MEM_RAM };
	/* Nothing is handed out yet. */
	ASAN_POISON_MEMORY_REGION(ram_arena, ram_size);
}

unsigned plat_memmap(const struct plat_mem_region **map)
{
	ram_setup();
	*map = &ram_region;
	return 1;
}

unsigned plat_usable_ram(struct plat_mem_region *out, unsigned max)
{
	ram_setup();
	if (max == 0)
		return 0;
	out[0] = ram_region;
	return 1;
}

void *hosted_dma_ptr(uint64_t bus, size_t len)
{
	uint64_t base = (uintptr_t)ram_arena;

	if (!ram_arena || bus < base || bus - base > ram_size || len > ram_size - (bus - base))
		return NULL;
	return (void *)(uintptr_t)bus;
}

int plat_boot_linux64(uint64_t entry __unused, void *boot_params __unused)
{
	return -IB_ENOTSUP;
}

unsigned plat_boot_modules(const struct plat_mem_region **mods)
{
	*mods = NULL;
	return 0;
}

uint64_t plat_virt_to_bus(const void *p)
{
	return (uintptr_t)p;
}

void *plat_bus_to_virt(uint64_t bus)
{
	return (void *)(uintptr_t)bus;
}
