/*
 * libFuzzer target: lib/irqplan.c's parsers of the kernel's text.  The
 * same input is read as a CPU list (ROOT/sys/devices/system/cpu/online,
 * smbd-irq --cpus) and as /proc/interrupts.  A CPU list that parses
 * formats back ("0-3,6") to one that parses to the same set, and its mask
 * has a word for each 32 CPUs up to the highest; every queue interrupt
 * found has a name of the interface's that names the same queue, a
 * distinct IRQ, and there are at most IRQPLAN_MAX_IRQS of them.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include "lib/irqplan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void cpulist(TALLOC_CTX *ctx, const char *s, size_t size)
{
	struct irqplan_cpuset set, again;
	unsigned *cpus;
	size_t n;
	char *text, *mask;

	if (irqplan_cpulist_parse(s, size, &set) != 0) {
		return;
	}
	n = irqplan_cpuset_list(ctx, &set, &cpus);
	if (cpus == NULL || n == 0) {
		abort();
	}
	text = irqplan_format_list(ctx, cpus, n);
	if (text == NULL ||
	    irqplan_cpulist_parse(text, strlen(text), &again) != 0 ||
	    memcmp(&set, &again, sizeof(set)) != 0) {
		abort();
	}
	mask = irqplan_format_mask(ctx, &set);
	if (mask == NULL ||
	    strlen(mask) > 9 * (cpus[n - 1] / 32) + 8 ||
	    strlen(mask) < 9 * (cpus[n - 1] / 32) + 1) {
		abort();
	}
}

static void interrupts(TALLOC_CTX *ctx, const char *s, size_t size)
{
	struct irqplan_irq *irqs;
	size_t n, i, j;

	if (irqplan_interrupts_parse(ctx, s, size, "eth9", &irqs, &n) != 0) {
		return;
	}
	if (n > IRQPLAN_MAX_IRQS) {
		abort();
	}
	for (i = 0; i < n; i++) {
		enum irqplan_kind kind;
		unsigned queue;

		if (!irqplan_name_match("eth9", irqs[i].name,
					strlen(irqs[i].name), &kind, &queue) ||
		    kind != irqs[i].kind || queue != irqs[i].queue) {
			abort();
		}
		for (j = 0; j < i; j++) {
			if (irqs[j].irq == irqs[i].irq) {
				abort();
			}
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	TALLOC_CTX *ctx = talloc_new(NULL);

	if (ctx == NULL) {
		abort();
	}
	cpulist(ctx, (const char *)data, size);
	interrupts(ctx, (const char *)data, size);
	talloc_free(ctx);
	return 0;
}
