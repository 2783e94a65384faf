/*
 * smbd-irq: put a NIC's queue interrupts on the CPUs smbd's workers are
 * pinned to, one queue per worker in turn, with RPS/XPS where the NIC has
 * fewer queues than workers (lib/irqplan.h; smbd-irq(8)).  The reuseport
 * program hands each new connection to the worker on the CPU that received
 * it, so this decides which worker serves which flows and keeps a
 * connection's interrupt, TCP and SMB work on one CPU.
 */
#include "config.h"
#include "lib/irqplan.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

/* Exit status, as smbd-irq(8) documents them. */
enum {
	IRQ_EXIT_OK = 0,
	IRQ_EXIT_APPLY = 1,	/* a target not writable, or a write refused */
	IRQ_EXIT_USAGE = 2,
	IRQ_EXIT_PLAN = 3,	/* no interface, no queues, unreadable files */
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: smbd-irq [--root DIR] --interface IFACE [--dry-run] "
		"[--cpus LIST]\n"
		"  -r, --root DIR         read and write under DIR (default /)\n"
		"  -i, --interface IFACE  the NIC whose queue interrupts to "
		"place\n"
		"  -n, --dry-run          print the plan, write nothing\n"
		"  -c, --cpus LIST        worker CPUs, e.g. 0-3,6 (default: "
		"the online CPUs)\n");
}

struct irq_args {
	const char *root;
	const char *iface;
	const char *cpus;
	bool dry_run;
};

static int parse_args(int argc, char **argv, struct irq_args *a)
{
	static const struct option opts[] = {
		{"root", required_argument, NULL, 'r'},
		{"interface", required_argument, NULL, 'i'},
		{"dry-run", no_argument, NULL, 'n'},
		{"cpus", required_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "r:i:nc:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			a->root = optarg;
			break;
		case 'i':
			a->iface = optarg;
			break;
		case 'n':
			a->dry_run = true;
			break;
		case 'c':
			a->cpus = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(IRQ_EXIT_OK);
		default:
			usage(stderr);
			return IRQ_EXIT_USAGE;
		}
	}
	if (optind != argc || a->iface == NULL) {
		fprintf(stderr, "smbd-irq: %s\n",
			optind != argc ? "unexpected argument"
				       : "--interface is required");
		usage(stderr);
		return IRQ_EXIT_USAGE;
	}
	return IRQ_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct irq_args a = {.root = "/"};
	TALLOC_CTX *ctx = talloc_new(NULL);
	unsigned *cpus = NULL;
	size_t ncpus = 0;
	struct irqplan *plan;
	char *err, *text;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc != IRQ_EXIT_OK || ctx == NULL) {
		return ctx == NULL ? IRQ_EXIT_PLAN : rc;
	}
	if (a.cpus != NULL) {
		struct irqplan_cpuset set;

		if (irqplan_cpulist_parse(a.cpus, strlen(a.cpus), &set) != 0) {
			fprintf(stderr, "smbd-irq: --cpus %s: not a CPU list "
				"(e.g. 0-3,6; CPUs below %d)\n",
				a.cpus, IRQPLAN_MAX_CPUS);
			return IRQ_EXIT_USAGE;
		}
		ncpus = irqplan_cpuset_list(ctx, &set, &cpus);
	}
	rc = irqplan_make(ctx, a.root, a.iface, cpus, ncpus, &plan, &err);
	if (rc != 0) {
		fprintf(stderr, "smbd-irq: %s\n", err ? err : strerror(rc));
		talloc_free(ctx);
		return IRQ_EXIT_PLAN;
	}
	if (irqplan_irqbalance_running(a.root)) {
		fprintf(stderr, "smbd-irq: warning: irqbalance is running and "
			"will move these interrupts again; stop it, or keep "
			"it off them (--banirq)\n");
	}
	if (!a.dry_run && irqplan_apply(ctx, plan, &err) != 0) {
		fprintf(stderr, "smbd-irq: %s\n", err);
		talloc_free(ctx);
		return IRQ_EXIT_APPLY;
	}
	text = irqplan_describe(ctx, plan);
	if (text != NULL) {
		fputs(text, stdout);
	}
	talloc_free(ctx);
	return text != NULL ? IRQ_EXIT_OK : IRQ_EXIT_PLAN;
}
