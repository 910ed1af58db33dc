/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * scen.h - scenarios: one text file per behaviour (see README.md).
 *
 * A scenario is a list of steps, each one line: a command and its tokens.
 * Tokens keep their $VARIABLES; they are expanded when the step runs, once
 * per IP family.
 */
#ifndef HP_SCEN_H
#define HP_SCEN_H

#include <stddef.h>
#include <stdint.h>

enum step_kind {
	STEP_SEND,		/* send KEY=VALUE...            */
	STEP_EXPECT,		/* expect [within=] [count=] MATCH... */
	STEP_EXPECT_NONE,	/* expect-none [within=] [until=end] MATCH... */
	STEP_EXPECT_MSG,	/* expect-msg [within=] msg-size= MATCH... */
	STEP_RPC,		/* rpc KEY=VALUE...: request, response, ACK */
	STEP_METRIC,		/* metric [delta] NAME OP VALUE */
	STEP_WAIT,		/* wait [within=] metric [delta] NAME OP VALUE */
	STEP_MARK,		/* mark: new baseline for metric deltas */
	STEP_GUEST,		/* guest [status=] [contains=] [lacks=] CMD */
	STEP_SLEEP,		/* sleep DURATION */
	STEP_SET,		/* set NAME VALUE */
	STEP_FUZZ,		/* fuzz count= seed= time= [keys] */
	STEP_FLUSH,		/* flush: forget captured, unmatched frames */
	STEP_SYSCTL,		/* sysctl NAME VALUE: net.homa.NAME, restored after */
};

/*
 * struct step - one line of a scenario.
 * @loop_var: "for VAR FROM TO STEP...": run the step with $VAR = FROM..TO
 * (NULL: once).
 */
struct step {
	enum step_kind kind;
	int line;
	char **tok;
	size_t ntok;
	char *loop_var;
	long loop_from, loop_to;
};

/* struct scenario - one parsed file. */
struct scenario {
	char *path;
	char *name;
	int families;		/* bit 4: IPv4, bit 6: IPv6 */
	struct step *steps;
	size_t nsteps;
};

#define FAM_BIT(f)	(1 << (f))

/*
 * Parse the file @path. 0, or -1 after printing "PATH:LINE: reason" to
 * stderr.
 */
int scen_parse(const char *path, struct scenario *s);
void scen_free(struct scenario *s);

/*
 * A duration: "N" or "Nms", "Ns", "Nus" (wall time, into *@ms), or
 * "Nticks" (N >= 1 runs of the guest's Homa timer, into *@ticks; *@ms is
 * then 0). 0, or -1 if malformed.
 */
int scen_parse_duration(const char *s, uint64_t *ms, uint64_t *ticks);

/* Split "KEY=VALUE" in place: returns VALUE, or NULL if no '='. */
char *scen_split_kv(char *tok);

#endif /* HP_SCEN_H */
