/* SPDX-License-Identifier: MIT */
/*
 * The efi platform's entry (bin/ibboot.efi, a UEFI application): the firmware calls efi_main with
 * our image handle and the system table (UEFI 2.10 §4.1). Boot services stay up the whole time:
 * the firmware keeps paging (identity-mapped, §2.3.4), interrupts and its timer; ibboot polls.
 * Here: the console on ConOut/ConIn, the TSC calibrated against Stall, the command line from
 * LoadOptions, leaving by ResetSystem.
 */
#include "efi_plat.h"
#include <arch/x86.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/string.h>
#include <ibboot/tsc_rate.h>

efi_handle efi_image;
struct efi_system_table *efi_st;
struct efi_boot_services *efi_bs;

static const efi_guid loaded_image_guid = EFI_LOADED_IMAGE_PROTOCOL_GUID;

const char *efi_strerror(efi_status s)
{
	static const char *const names[] = {
		[1] = "EFI_LOAD_ERROR", [2] = "EFI_INVALID_PARAMETER", [3] = "EFI_UNSUPPORTED",
		[4] = "EFI_BAD_BUFFER_SIZE", [5] = "EFI_BUFFER_TOO_SMALL", [6] = "EFI_NOT_READY",
		[7] = "EFI_DEVICE_ERROR", [9] = "EFI_OUT_OF_RESOURCES", [14] = "EFI_NOT_FOUND",
		[15] = "EFI_ACCESS_DENIED", [21] = "EFI_ABORTED",
		[26] = "EFI_SECURITY_VIOLATION",
	};
	uint64_t n = s & ~(1ull << 63);

	if (s == EFI_SUCCESS)
		return "EFI_SUCCESS";
	if (EFI_ERROR(s) && n < ARRAY_SIZE(names) && names[n])
		return names[n];
	return EFI_ERROR(s) ? "EFI error" : "EFI warning";
}

/* ---- console: ConOut (OVMF mirrors it to the serial port) and ConIn ---- */

/* Output is collected per line and written as one OutputString (each call crosses the
 * terminal driver's whole stack). UTF-8 becomes UCS-2 (§12.4: OutputString takes UCS-2). */
#define CON_BUF 256
static efi_char16 con_buf[CON_BUF + 1];
static unsigned con_len;
static uint32_t utf8_cp;
static unsigned utf8_more;

void efi_console_flush(void)
{
	if (!con_len)
		return;
	con_buf[con_len] = 0;
	con_len = 0;
	if (efi_st && efi_st->con_out)
		efi_st->con_out->output_string(efi_st->con_out, con_buf);
}

static void con_put16(efi_char16 c)
{
	if (con_len >= CON_BUF - 1)
		efi_console_flush();
	con_buf[con_len++] = c;
}

void plat_putc(char ch)
{
	uint8_t c = (uint8_t)ch;

	if (c < 0x80) {
		utf8_more = 0;
		con_put16(c);   /* (kputc already sends "\r\n" for a newline) */
		if (c == '\n' || c == '\r')
			efi_console_flush();
		return;
	}
	if ((c & 0xc0) == 0x80) {
		if (!utf8_more)
			return;
		utf8_cp = utf8_cp << 6 | (c & 0x3f);
		if (--utf8_more == 0)
			con_put16(utf8_cp <= 0xffff ? (efi_char16)utf8_cp : '?');
		return;
	}
	utf8_more = (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : 3;
	utf8_cp = c & (0x3f >> utf8_more);
}

/* §12.3: ReadKeyStroke returns EFI_NOT_READY when no key is waiting. Keys without a character
 * (scan codes: arrows, function keys) are not used by the console. */
int plat_getc(void)
{
	struct efi_input_key key;

	efi_console_flush();   /* a prompt without a newline must show before we wait */
	if (!efi_st->con_in || efi_st->con_in->read_key_stroke(efi_st->con_in, &key) != EFI_SUCCESS)
		return PLAT_GETC_NONE;
	if (key.unicode_char == 0 || key.unicode_char >= 0x80)
		return PLAT_GETC_NONE;
	return key.unicode_char;
}

void efi_console_init(void)
{
	struct efi_simple_text_output *out = efi_st->con_out;
	uint64_t cols, rows, best_cols = 0;
	int32_t best = -1;

	if (!out)
		return;
	/* The widest text mode the console offers, so the terminal does not wrap long lines
	 * (§12.4 QueryMode/SetMode; mode 0 is 80x25). */
	for (int32_t m = 0; out->mode && m < out->mode->max_mode; m++)
		if (out->query_mode(out, (uint64_t)m, &cols, &rows) == EFI_SUCCESS && cols > best_cols) {
			best_cols = cols;
			best = m;
		}
	if (best > 0 && best != out->mode->mode)
		out->set_mode(out, (uint64_t)best);
}

/* ---- time: the TSC, its rate measured against Stall (§7.5.2, microseconds) ---- */

static uint64_t tsc_hz = TSC_HZ_UPPER_BOUND;   /* until calibrated: waits only get longer */

void efi_time_init(void)
{
	/* 50 ms of Stall: long enough that the TSC's count dwarfs the call overhead. */
	uint64_t t0 = rdtsc();
	efi_status s = efi_bs->stall(50000);
	uint64_t t1 = rdtsc();

	if (s == EFI_SUCCESS && t1 > t0)
		tsc_hz = (t1 - t0) * 20;
	else
		kprintf("timer: Stall failed (%s); TSC rate assumed %llu MHz\n", efi_strerror(s),
			(unsigned long long)(tsc_hz / 1000000));
}

uint64_t plat_counter_hz(void)
{
	return tsc_hz;
}

void plat_poll(void)
{
}

/* ---- identity, command line, leaving ---- */

const char *plat_name(void)
{
	return "efi";
}

static char cmdline[1024];

/* LoadOptions are ours to read (§9.1); a shell or a Boot#### option with text there passes a
 * command line ("ibboot.efi ibboot.cmd=..."). Binary optional data (a boot manager's own) is not
 * text: ignored. */
void efi_cmdline_init(void)
{
	struct efi_loaded_image *li = NULL;
	unsigned k = 0;

	if (efi_bs->handle_protocol(efi_image, &loaded_image_guid, (void **)&li) != EFI_SUCCESS ||
	    !li || !li->load_options || li->load_options_size < 2)
		return;
	const efi_char16 *s = li->load_options;
	size_t n = li->load_options_size / 2;

	for (size_t i = 0; i < n && s[i]; i++) {
		if (s[i] < 0x20 || s[i] >= 0x7f) {
			k = 0;   /* not text */
			break;
		}
		if (k < sizeof(cmdline) - 1)
			cmdline[k++] = (char)s[i];
	}
	cmdline[k] = '\0';
}

const char *plat_cmdline(void)
{
	return cmdline;
}

void plat_print_info(void)
{
	char vendor[40];
	unsigned k = 0;

	for (const efi_char16 *v = efi_st->firmware_vendor; v && *v && k < sizeof(vendor) - 1; v++)
		vendor[k++] = *v < 0x80 ? (char)*v : '?';
	vendor[k] = '\0';
	kprintf("platform: UEFI %u.%u application (%s, firmware revision %#x); TSC %llu MHz "
		"(against Stall)\n", efi_st->hdr.revision >> 16, (efi_st->hdr.revision & 0xffff) / 10,
		vendor, efi_st->firmware_revision, (unsigned long long)(tsc_hz / 1000000));
}

int plat_boot_linux64(uint64_t entry __unused, void *boot_params __unused)
{
	/* Under UEFI Linux starts through its EFI stub (linux.c), never by a direct jump. */
	return -ENOTSUP;
}

void plat_poweroff(int status)
{
	efi_console_flush();
	efi_st->runtime_services->reset_system(EFI_RESET_SHUTDOWN,
					       status ? EFI_ERR(7) : EFI_SUCCESS, 0, NULL);
	kprintf("poweroff: ResetSystem returned; halted\n");
	efi_console_flush();
	cpu_halt_forever();
}

void plat_reboot(void)
{
	efi_console_flush();
	efi_st->runtime_services->reset_system(EFI_RESET_COLD, EFI_SUCCESS, 0, NULL);
	cpu_halt_forever();
}

/* An application that cannot boot returns to whoever started it (§7.4.5 Exit): the boot manager
 * then tries its next boot option (§3.1.1), the shell shows its prompt. The caller has quiesced
 * the devices; the buffer pool goes back to the firmware first. */
const char *plat_firmware_exit(void)
{
	return "the UEFI firmware (its next boot option)";
}

void (*efi_leave)(void);

int plat_exit_to_firmware(void)
{
	efi_memory_release();
	efi_console_flush();
	if (efi_leave)
		efi_leave();   /* the driver form: back to its LoadFile */
	efi_status s = efi_bs->exit(efi_image, EFI_NOT_FOUND, 0, NULL);
	/* Exit returns only when it refused (a bad image handle): nothing is left to use. */
	kprintf("efi: Exit failed (%s); halted\n", efi_strerror(s));
	efi_console_flush();
	cpu_halt_forever();
}

efi_status EFIAPI efi_main(efi_handle image, struct efi_system_table *st);
efi_status EFIAPI efi_main(efi_handle image, struct efi_system_table *st)
{
	efi_image = image;
	efi_st = st;
	efi_bs = st->boot_services;
	/* The boot manager arms a 5-minute watchdog before it starts an image (§3.1.2); a netboot
	 * can take longer, and ibboot bounds its own waits. */
	efi_bs->set_watchdog_timer(0, 0, 0, NULL);
	efi_console_init();
	efi_cmdline_init();
	efi_time_init();
	efi_memory_init();
	efi_pci_init();
	ibboot_main();
	return EFI_SUCCESS;
}
