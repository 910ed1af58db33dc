/* SPDX-License-Identifier: GPL-2.0 */
/*
 * selection.h - which message recvmsg hands over: a given id returns
 * that response even when others are ready first; RESPONSE alone leaves
 * requests waiting and REQUEST alone leaves responses waiting.
 */
#ifndef HOMA_SELFTEST_SELECTION_H
#define HOMA_SELFTEST_SELECTION_H

#include "ktap.h"

#define SELECTION_CASES 4

void selection_tests(struct ktap *k, int family);

#endif /* HOMA_SELFTEST_SELECTION_H */
