/* SPDX-License-Identifier: BSD-2-Clause */
/* send.h - homa-pktgen's output paths: print, pcap file, interface. */
#ifndef HP_CLI_SEND_H
#define HP_CLI_SEND_H

#include "hp_msg.h"
#include "opts.h"

/* Total frames to send for @n built frames under -c/-l. */
uint64_t cli_total(const struct cli_opts *o, size_t n);

/* Print one line per frame. */
void cli_print(const struct cli_opts *o, const struct hp_list *l);

/* Write the frames to o->wfile. 0, or 1 after an error line. */
int cli_write(const struct cli_opts *o, const struct hp_list *l);

/* Inject on o->iface at the rate asked, then capture. 0, or 1. */
int cli_inject(const struct cli_opts *o, const struct hp_list *l);

#endif /* HP_CLI_SEND_H */
