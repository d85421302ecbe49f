/* SPDX-License-Identifier: MIT */
/* tun — the layer-3 TUN device the server node bridges to (IFF_TUN | IFF_NO_PI: each read or
 * write is one IP datagram, which is exactly an IPoIB payload without its 4-byte header; with
 * offloads, after a virtio-net header, and a read may be a TCP super-segment: tun_gso.h). */
#ifndef SERVERNODE_TUN_H
#define SERVERNODE_TUN_H

#include <stdbool.h>
#include <stddef.h>

/* Attach to (or create) TUN device `name` in the calling process's network namespace.
 * *offload true asks for a virtio-net header with checksum and TCPv4 segmentation offload
 * (reads then go through tun_gso_split, writes carry a zeroed header); it is false on return when
 * the kernel refused that and the device was opened plain. Returns a non-blocking fd, or a
 * negative errno with a message in err. */
int tun_open(const char *name, bool *offload, char *err, size_t errlen);

#endif
