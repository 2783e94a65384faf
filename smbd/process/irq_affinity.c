/*
 * `smbd irq affinity = yes`: at start, once the workers are forked and
 * pinned, the master places the queue interrupts of each interface of
 * `smbd irq interfaces` on the workers' CPUs (lib/irqplan.h, the plan
 * smbd-irq(8) prints) and logs the plan.  Connection steering hands a new
 * connection to the worker on the CPU that received it, so this is what
 * makes that CPU the one a queue was given to.  A failure is logged and
 * the server runs on: interrupts left where they were cost locality, not
 * correctness.
 *
 * SMBD_IRQ_ROOT (tests only, like SMBD_FAULT_INJECT) reads and writes
 * the files under another root, a fixture tree.
 */
#include "smbd/smbd.h"
#include "smbd/process/process.h"
#include "conf/loadparm.h"
#include "lib/irqplan.h"
#include "lib/log.h"

#include <stdlib.h>
#include <string.h>

/*
 * The workers' CPUs, each once, in worker order: with more workers than
 * CPUs (smbd workers), a CPU's queue belongs to its first worker.
 */
static size_t irq_worker_cpus(TALLOC_CTX *mem_ctx,
			      const struct smbd_server *srv, unsigned **cpus)
{
	size_t n = 0, i, j;

	*cpus = talloc_array(mem_ctx, unsigned,
			     srv->nworkers > 0 ? srv->nworkers : 1);
	if (*cpus == NULL) {
		return 0;
	}
	for (i = 0; i < (size_t)srv->nworkers; i++) {
		unsigned c = (unsigned)srv->worker_cpus[i];

		for (j = 0; j < n && (*cpus)[j] != c; j++) {
		}
		if (j == n) {
			(*cpus)[n++] = c;
		}
	}
	return n;
}

static void irq_log_plan(TALLOC_CTX *mem_ctx, const struct irqplan *plan)
{
	char *text = irqplan_describe(mem_ctx, plan);
	char *line, *save = NULL;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		DBG_NOTICE("smbd irq affinity: %s\n", line);
	}
}

void smbd_irq_affinity_apply(struct smbd_server *srv)
{
	TALLOC_CTX *tmp;
	const char **ifaces;
	const char *root = getenv("SMBD_IRQ_ROOT");
	unsigned *cpus;
	size_t ncpus, i;

	if (!lp_bool(srv->lp, LP_GLOBAL, LP_SMBD_IRQ_AFFINITY)) {
		return;
	}
	tmp = talloc_new(srv);
	ifaces = lp_list(tmp, srv->lp, LP_GLOBAL, LP_SMBD_IRQ_INTERFACES);
	ncpus = irq_worker_cpus(tmp, srv, &cpus);
	if (root != NULL) {
		DBG_ERR("smbd irq affinity under SMBD_IRQ_ROOT=%s "
			"(tests only)\n", root);
	}
	if (ifaces == NULL || ifaces[0] == NULL || ncpus == 0) {
		DBG_ERR("smbd irq affinity = yes, but no smbd irq interfaces "
			"are set: no interrupts placed\n");
		talloc_free(tmp);
		return;
	}
	for (i = 0; ifaces[i] != NULL; i++) {
		struct irqplan *plan;
		char *err = NULL;
		int rc = irqplan_make(tmp, root, ifaces[i], cpus, ncpus, &plan,
				      &err);

		if (rc == 0) {
			rc = irqplan_apply(tmp, plan, &err);
		}
		if (rc != 0) {
			DBG_ERR("smbd irq affinity: %s: %s (its interrupts "
				"stay where they were)\n",
				ifaces[i], err ? err : strerror(rc));
			continue;
		}
		irq_log_plan(tmp, plan);
	}
	if (irqplan_irqbalance_running(root)) {
		DBG_WARNING("smbd irq affinity: irqbalance is running and will "
			    "move these interrupts again\n");
	}
	talloc_free(tmp);
}
