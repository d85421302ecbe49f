/* SPDX-License-Identifier: MIT */
/*
 * Capture in the classic pcap format with LINKTYPE_INFINIBAND (247): each record is one whole IB
 * packet from the LRH through the VCRC, as it crossed a cable (corrupted ones included, so a
 * capture shows what the receiver then dropped). Written in host byte order with the native magic,
 * which every pcap reader accepts; flushed per packet so a capture survives a kill.
 */
#include "fabsim.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#define LINKTYPE_INFINIBAND 247

struct pcap_file_hdr {
	uint32_t magic;
	uint16_t version_major, version_minor;
	int32_t thiszone;
	uint32_t sigfigs, snaplen, linktype;
};

struct pcap_rec_hdr {
	uint32_t ts_sec, ts_usec, incl_len, orig_len;
};

int pcap_open(struct fabric *f, const char *path, char *err, size_t errlen)
{
	struct pcap_file_hdr h = { .magic = 0xa1b2c3d4, .version_major = 2, .version_minor = 4,
				   .snaplen = 65535, .linktype = LINKTYPE_INFINIBAND };

	f->pcap = fopen(path, "wb");
	if (!f->pcap) {
		snprintf(err, errlen, "pcap %s: %s", path, strerror(errno));
		return -errno;
	}
	if (fwrite(&h, sizeof(h), 1, f->pcap) != 1 || fflush(f->pcap)) {
		snprintf(err, errlen, "pcap %s: write failed", path);
		fclose(f->pcap);
		f->pcap = NULL;
		return -EIO;
	}
	return 0;
}

void pcap_write(struct fabric *f, const uint8_t *pkt, size_t len)
{
	struct timespec ts;
	struct pcap_rec_hdr r;

	clock_gettime(CLOCK_REALTIME, &ts);
	r.ts_sec = (uint32_t)ts.tv_sec;
	r.ts_usec = (uint32_t)(ts.tv_nsec / 1000);
	r.incl_len = r.orig_len = (uint32_t)len;
	if (fwrite(&r, sizeof(r), 1, f->pcap) != 1 || fwrite(pkt, len, 1, f->pcap) != 1 ||
	    fflush(f->pcap)) {
		fabsim_log(f, 0, "pcap write failed; capture stopped");
		fclose(f->pcap);
		f->pcap = NULL;
	}
}
