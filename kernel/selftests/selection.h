/* SPDX-License-Identifier: GPL-2.0 */
/*
 * selection.h - which message recvmsg hands over: a given id returns
 * that response even when an older one is ready; with a request and a
 * response both queued, RESPONSE alone leaves the request queued and
 * REQUEST alone the response, and both flags take both.
 */
#ifndef HOMA_SELFTEST_SELECTION_H
#define HOMA_SELFTEST_SELECTION_H

#include "ktap.h"

#define SELECTION_CASES 4

void selection_tests(struct ktap *k, int family);

#endif /* HOMA_SELFTEST_SELECTION_H */
