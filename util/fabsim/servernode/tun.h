/* SPDX-License-Identifier: MIT */
/* tun — the layer-3 TUN device the server node bridges to (IFF_TUN | IFF_NO_PI: each read or
 * write is one bare IP datagram, which is exactly an IPoIB payload without its 4-byte header). */
#ifndef SERVERNODE_TUN_H
#define SERVERNODE_TUN_H

#include <stddef.h>

/* Attach to (or create) TUN device `name` in the calling process's network namespace.
 * Returns a non-blocking fd, or a negative errno with a message in err. */
int tun_open(const char *name, char *err, size_t errlen);

#endif
