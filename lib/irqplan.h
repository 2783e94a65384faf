/*
 * NIC interrupt affinity matched to the workers (DESIGN.md "Connection
 * steering"; issue 18).  Workers are pinned one per CPU and the reuseport
 * program hands a new connection to the worker on the CPU that received
 * it; this module makes "the CPU that received it" a planned one instead
 * of whatever irqbalance chose.
 *
 * A plan is built from a root directory (normally "/", a fixture tree in
 * tests) and one interface:
 *
 *   ROOT/proc/interrupts                   which IRQ serves which queue,
 *                                          by its action name
 *   ROOT/sys/class/net/IFACE/device/msi_irqs/
 *                                          the device's own IRQ numbers
 *                                          (when present, only those count)
 *   ROOT/sys/devices/system/cpu/online     the online CPUs
 *
 * and a list of worker CPUs (worker W runs on cpus[W]; by default the
 * online CPUs in ascending order, as smbd pins them).  Queue number i
 * (the i-th distinct queue number in ascending order) goes to cpus[i % n].
 * When the NIC has fewer receive queues than workers, Receive Packet
 * Steering spreads the rest: rx queue k's rps_cpus holds every worker CPU
 * at a position j with j % queues == k, so every worker CPU still runs
 * the TCP receive path (and so the reuseport choice) for some flows.
 * Transmit Packet Steering (xps_cpus) is set the same way when there are
 * fewer transmit queues than workers (Documentation/networking/scaling.rst).
 *
 * Applying a plan writes ROOT/proc/irq/N/smp_affinity_list and the
 * queues/rx-N/rps_cpus and queues/tx-N/xps_cpus files.  Every target is
 * opened for writing before the first write, so a missing or unwritable
 * one is reported with nothing changed; a write the kernel refuses
 * afterwards (a managed IRQ answers EIO) puts back what was written.
 *
 * Only this knows the file formats; it knows nothing of SMB.  Errors are
 * errno values, with a message for the admin in *err.
 */
#ifndef LIB_IRQPLAN_H
#define LIB_IRQPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

/* The kernel's largest NR_CPUS (CONFIG_NR_CPUS range 2..8192). */
#define IRQPLAN_MAX_CPUS 8192
/* More queue interrupts than any NIC has; bounds what a parse may hold. */
#define IRQPLAN_MAX_IRQS 4096
/* Largest queue number accepted in a name (IFACE-TxRx-N). */
#define IRQPLAN_MAX_QUEUE 65535
/* /proc/interrupts of an 8192-CPU machine stays well under this. */
#define IRQPLAN_MAX_FILE (64u << 20)

struct irqplan_cpuset {
	uint64_t bits[IRQPLAN_MAX_CPUS / 64];
};

static inline bool irqplan_cpuset_has(const struct irqplan_cpuset *s,
				      unsigned cpu)
{
	return cpu < IRQPLAN_MAX_CPUS &&
	       (s->bits[cpu / 64] & ((uint64_t)1 << (cpu % 64))) != 0;
}

static inline void irqplan_cpuset_add(struct irqplan_cpuset *s, unsigned cpu)
{
	if (cpu < IRQPLAN_MAX_CPUS) {
		s->bits[cpu / 64] |= (uint64_t)1 << (cpu % 64);
	}
}

/*
 * A kernel CPU list ("0-3,6", "0-7:2" is not accepted; a trailing newline
 * is), Documentation/admin-guide/cputopology.rst.  len bytes of s, no NUL
 * needed.  0, or EINVAL (syntax, a range running backwards, empty) or
 * ERANGE (a CPU at or above IRQPLAN_MAX_CPUS).
 */
int irqplan_cpulist_parse(const char *s, size_t len, struct irqplan_cpuset *set);

/* The members of set in ascending order: count, *cpus allocated on mem_ctx. */
size_t irqplan_cpuset_list(TALLOC_CTX *mem_ctx,
			   const struct irqplan_cpuset *set,
			   unsigned **cpus);

/* "0-3,6" for a sorted array of numbers; "" for none. */
char *irqplan_format_list(TALLOC_CTX *mem_ctx, const unsigned *v, size_t n);

/*
 * The hex mask the kernel's bitmap files take: 32-bit words, most
 * significant first, comma-separated, the first without leading zeros
 * ("f", "1,00000000"); "0" for none.
 */
char *irqplan_format_mask(TALLOC_CTX *mem_ctx, const struct irqplan_cpuset *s);

enum irqplan_kind {
	IRQPLAN_TXRX,	/* IFACE-TxRx-N: one vector for both directions */
	IRQPLAN_RX,	/* IFACE-rx-N */
	IRQPLAN_TX,	/* IFACE-tx-N */
	IRQPLAN_PLAIN,	/* IFACE-N: a queue vector named by number only */
};

struct irqplan_irq {
	char *name;		/* the action name in /proc/interrupts */
	unsigned irq;
	unsigned queue;		/* N of the name */
	enum irqplan_kind kind;
	/* Filled by the plan: */
	unsigned cpu;
	unsigned worker;
};

/*
 * Whether name (len bytes) is a queue interrupt of iface, and which.
 * The words TxRx/rx/tx are matched without regard to case, as drivers
 * spell them differently.
 */
bool irqplan_name_match(const char *iface, const char *name, size_t len,
			enum irqplan_kind *kind, unsigned *queue);

/*
 * The queue interrupts of iface listed in a /proc/interrupts text (len
 * bytes): each line "IRQ: counts... chip hwirq name[, name...]" whose IRQ
 * is a number and one of whose names matches.  Lines of other shapes
 * (the CPU header, NMI:, LOC:) are skipped; an IRQ seen twice counts once.
 * At most IRQPLAN_MAX_IRQS (then E2BIG).  *irqs allocated on mem_ctx.
 */
int irqplan_interrupts_parse(TALLOC_CTX *mem_ctx, const char *text,
			     size_t len, const char *iface,
			     struct irqplan_irq **irqs, size_t *nirqs);

/* RPS or XPS for one queue. */
struct irqplan_steer {
	bool rps;		/* rx-N/rps_cpus, else tx-N/xps_cpus */
	unsigned queue;
	unsigned *cpus;		/* ascending */
	size_t ncpus;
	unsigned *workers;	/* the workers on those CPUs, same order */
};

struct irqplan {
	char *root;		/* without trailing slash; "" for "/" */
	char *iface;
	unsigned *cpus;		/* worker W runs on cpus[W] */
	size_t ncpus;
	struct irqplan_irq *irqs;	/* by queue, then rx before tx */
	size_t nirqs;
	struct irqplan_steer *steer;
	size_t nsteer;
};

/*
 * Read the tree under root and plan iface over the worker CPUs cpus[0..n)
 * (cpus NULL: the online CPUs).  Every worker CPU must be online.
 * ENODEV: no such interface, or it has no queue interrupts; ENOENT and
 * others: a file could not be read; EINVAL: a bad argument or file.
 */
int irqplan_make(TALLOC_CTX *mem_ctx, const char *root, const char *iface,
		 const unsigned *cpus, size_t ncpus, struct irqplan **plan,
		 char **err);

/* The plan, one line each: the queue lines, then RPS, then XPS. */
char *irqplan_describe(TALLOC_CTX *mem_ctx, const struct irqplan *plan);

/*
 * Write the plan (see the head comment); 0, or errno with *err (on
 * mem_ctx) saying which file and why.
 */
int irqplan_apply(TALLOC_CTX *mem_ctx, const struct irqplan *plan,
		  char **err);

/* Whether a process named irqbalance runs (ROOT/proc/PID/comm). */
bool irqplan_irqbalance_running(const char *root);

#endif
