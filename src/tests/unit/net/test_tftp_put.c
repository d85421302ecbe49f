/* SPDX-License-Identifier: MIT */
/* The TFTP put's reply parser (tftp_put.c): ACK n, ERROR with its text, everything else refused. */
#include "test.h"
#include <ibboot/errno.h>
#include <ibboot/tftp_put.h>

TEST(tftp_put_reply_parser)
{
	static const uint8_t ack3[] = { 0, 4, 0, 3 };
	static const uint8_t ack_long[] = { 0, 4, 0, 3, 0 };
	static const uint8_t err2[] = { 0, 5, 0, 2, 'A', 'c', 'c', 'e', 's', 's', 0 };
	static const uint8_t data[] = { 0, 3, 0, 1, 'x' };
	char msg[64];

	CHECK_EQ(tftp_put_parse_reply(ack3, sizeof(ack3), msg, sizeof(msg)), 3);
	CHECK_EQ(tftp_put_parse_reply(ack_long, sizeof(ack_long), msg, sizeof(msg)), -EINVAL);
	CHECK_EQ(tftp_put_parse_reply(ack3, 3, msg, sizeof(msg)), -EINVAL);
	CHECK_EQ(tftp_put_parse_reply(err2, sizeof(err2), msg, sizeof(msg)), -EIO);
	CHECK(strcmp(msg, "error 2: Access") == 0);
	CHECK_EQ(tftp_put_parse_reply(data, sizeof(data), msg, sizeof(msg)), -EINVAL);
}
