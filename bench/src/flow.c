// SPDX-License-Identifier: GPL-2.0
/* flow.c - see flow.h. */
#include "flow.h"

#include <stdarg.h>
#include <stdio.h>

void flow_error(struct flow *f, const char *fmt, ...)
{
	va_list ap;

	if (f->res.error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(f->res.error, sizeof(f->res.error), fmt, ap);
	va_end(ap);
}

void flow_record(struct flow *f, uint64_t t_done, uint64_t lat_ns)
{
	if (t_done >= f->measure_from && t_done < f->measure_to)
		samples_add(&f->res.lat, lat_ns);
}
