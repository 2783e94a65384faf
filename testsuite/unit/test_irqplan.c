/*
 * lib/irqplan.c: the CPU list and /proc/interrupts parsers, the mask and
 * list formats, and plans made and applied on fixture trees written here
 * in a temporary directory (a 4-queue NIC, a 2-queue NIC with RPS/XPS,
 * the device's msi_irqs, a target that cannot be written).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <errno.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/irqplan.h"

static int cpulist(const char *s, unsigned **cpus, size_t *n)
{
	struct irqplan_cpuset set;
	int rc = irqplan_cpulist_parse(s, strlen(s), &set);

	if (rc == 0) {
		*n = irqplan_cpuset_list(NULL, &set, cpus);
	}
	return rc;
}

static void test_cpulist(void **state)
{
	static const char *const bad[] = {
		"", "\n", ",", "0,", ",0", "3-1", "1-2-3", " 0", "0 ", "a",
		"0-", "-1", "0,,1", "0\n\n", "0:2",
	};
	unsigned *c;
	size_t n, i;

	(void)state;
	assert_int_equal(cpulist("0-3,6\n", &c, &n), 0);
	assert_int_equal(n, 5);
	assert_int_equal(c[0], 0);
	assert_int_equal(c[3], 3);
	assert_int_equal(c[4], 6);
	talloc_free(c);
	assert_int_equal(cpulist("5", &c, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(c[0], 5);
	talloc_free(c);
	/* duplicates and overlaps make a set */
	assert_int_equal(cpulist("2,1-2,1", &c, &n), 0);
	assert_int_equal(n, 2);
	talloc_free(c);
	assert_int_equal(cpulist("0-8191", &c, &n), 0);
	assert_int_equal(n, IRQPLAN_MAX_CPUS);
	talloc_free(c);
	assert_int_equal(cpulist("8192", &c, &n), ERANGE);
	assert_int_equal(cpulist("0-99999999999999999999", &c, &n), ERANGE);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(cpulist(bad[i], &c, &n), EINVAL);
	}
}

static void test_formats(void **state)
{
	static const unsigned v[] = {0, 1, 2, 3, 6, 8, 9};
	static const unsigned w[] = {3, 1};
	struct irqplan_cpuset s;
	char *t;

	(void)state;
	t = irqplan_format_list(NULL, v, 7);
	assert_string_equal(t, "0-3,6,8-9");
	talloc_free(t);
	t = irqplan_format_list(NULL, w, 2);
	assert_string_equal(t, "3,1");
	talloc_free(t);
	t = irqplan_format_list(NULL, v, 0);
	assert_string_equal(t, "");
	talloc_free(t);

	memset(&s, 0, sizeof(s));
	t = irqplan_format_mask(NULL, &s);
	assert_string_equal(t, "0");
	talloc_free(t);
	irqplan_cpuset_add(&s, 0);
	irqplan_cpuset_add(&s, 2);
	t = irqplan_format_mask(NULL, &s);
	assert_string_equal(t, "5");
	talloc_free(t);
	irqplan_cpuset_add(&s, 33);
	irqplan_cpuset_add(&s, 64);
	t = irqplan_format_mask(NULL, &s);
	assert_string_equal(t, "1,00000002,00000005");
	talloc_free(t);
	memset(&s, 0, sizeof(s));
	irqplan_cpuset_add(&s, IRQPLAN_MAX_CPUS - 1);
	t = irqplan_format_mask(NULL, &s);
	assert_int_equal(strncmp(t, "80000000,00000000,", 18), 0);
	assert_int_equal(strlen(t), 9 * (IRQPLAN_MAX_CPUS / 32) - 1);
	talloc_free(t);
}

static bool match(const char *name, enum irqplan_kind *k, unsigned *q)
{
	return irqplan_name_match("eth9", name, strlen(name), k, q);
}

static void test_name_match(void **state)
{
	static const char *const no[] = {
		"eth9", "eth9-", "eth90-TxRx-0", "eth9-TxRx-", "eth9-TxRx-0x",
		"eth9-rx", "eth9-rx-", "eth9-rx--1", "eth9-xx-1", "eth-9",
		"xeth9-1", "eth9-TxRx-65536", "eth9-1 ", "eth9-TxRx-1-2",
	};
	enum irqplan_kind k;
	unsigned q;
	size_t i;

	(void)state;
	assert_true(match("eth9-TxRx-3", &k, &q));
	assert_int_equal(k, IRQPLAN_TXRX);
	assert_int_equal(q, 3);
	assert_true(match("eth9-txrx-1", &k, &q));
	assert_int_equal(k, IRQPLAN_TXRX);
	assert_true(match("eth9-rx-0", &k, &q));
	assert_int_equal(k, IRQPLAN_RX);
	assert_true(match("eth9-Tx-12", &k, &q));
	assert_int_equal(k, IRQPLAN_TX);
	assert_int_equal(q, 12);
	assert_true(match("eth9-5", &k, &q));
	assert_int_equal(k, IRQPLAN_PLAIN);
	assert_int_equal(q, 5);
	assert_true(match("eth9-TxRx-65535", &k, &q));
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		assert_false(match(no[i], &k, &q));
	}
	/* the length is the caller's */
	assert_true(irqplan_name_match("eth9", "eth9-rx-1, x", 9, &k, &q));
}

static const char interrupts_4[] =
	"           CPU0       CPU1       CPU2       CPU3\n"
	"  0:         36          0          0          0   IO-APIC   "
	"2-edge      timer\n"
	" 59:          1          0          0          0   PCI-MSI "
	"524288-edge      eth9\n"
	" 60:        100          0          0          0   PCI-MSI "
	"524289-edge      eth9-TxRx-0\n"
	" 61:          0        100          0          0   PCI-MSI "
	"524290-edge      eth9-TxRx-1\n"
	" 62:          0          0        100          0   PCI-MSI "
	"524291-edge      eth9-TxRx-2\n"
	" 63:          0          0          0        100   PCI-MSI "
	"524292-edge      eth9-TxRx-3\n"
	" 64:          0          0          0          0   PCI-MSI "
	"524293-edge      eth10-TxRx-0, eth1-TxRx-0\n"
	" 61:          0          0          0          0   dup      "
	"eth9-TxRx-7\n"
	"NMI:          0          0          0          0   "
	"Non-maskable interrupts\n"
	"LOC:        123        456        789        101   Local timer "
	"interrupts\n"
	"ERR:          0\n";

static void test_interrupts_parse(void **state)
{
	static const char shared[] =
		" 70:   1   2   PCI-MSI 1-edge      ahci, eth9-rx-1\n"
		"71: 0 x eth9-tx-1,\n"
		"72 : eth9-2\n"		/* no colon right after the number */
		"73:eth9-3";		/* no newline at the end */
	struct irqplan_irq *irqs;
	size_t n;

	(void)state;
	assert_int_equal(irqplan_interrupts_parse(NULL, interrupts_4,
						  strlen(interrupts_4), "eth9",
						  &irqs, &n),
			 0);
	assert_int_equal(n, 4);
	assert_int_equal(irqs[0].irq, 60);
	assert_string_equal(irqs[0].name, "eth9-TxRx-0");
	assert_int_equal(irqs[3].irq, 63);
	assert_int_equal(irqs[3].queue, 3);
	assert_int_equal(irqs[3].kind, IRQPLAN_TXRX);
	talloc_free(irqs);

	assert_int_equal(irqplan_interrupts_parse(NULL, shared, strlen(shared),
						  "eth9", &irqs, &n),
			 0);
	assert_int_equal(n, 3);
	assert_string_equal(irqs[0].name, "eth9-rx-1");
	assert_int_equal(irqs[0].kind, IRQPLAN_RX);
	assert_string_equal(irqs[1].name, "eth9-tx-1");
	assert_int_equal(irqs[1].irq, 71);
	assert_int_equal(irqs[2].irq, 73);
	assert_int_equal(irqs[2].kind, IRQPLAN_PLAIN);
	talloc_free(irqs);

	assert_int_equal(irqplan_interrupts_parse(NULL, "", 0, "eth9", &irqs,
						  &n),
			 0);
	assert_int_equal(n, 0);
	talloc_free(irqs);
}

/* ------------------------------------------------------------------ */
/* Fixture trees */

static void put(const char *root, const char *rel, const char *text)
{
	char path[4096];
	char *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash != NULL;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		(void)mkdir(path, 0755);
		*slash = '/';
	}
	if (text == NULL) {
		assert_int_equal(mkdir(path, 0755), 0);
		return;
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *get(const char *root, const char *rel)
{
	char path[4096];
	static char buf[256];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static char *fixture(const char *interrupts, const char *online,
		     const unsigned *irqs, size_t nirqs)
{
	char *root = talloc_strdup(NULL, "/tmp/test_irqplan.XXXXXX");
	char rel[128];
	size_t i;

	assert_non_null(mkdtemp(root));
	put(root, "proc/interrupts", interrupts);
	put(root, "sys/devices/system/cpu/online", online);
	put(root, "sys/class/net/eth9/device/msi_irqs/59", "msi\n");
	for (i = 0; i < nirqs; i++) {
		snprintf(rel, sizeof(rel), "proc/irq/%u/smp_affinity_list",
			 irqs[i]);
		put(root, rel, "0-3\n");
		snprintf(rel, sizeof(rel), "sys/class/net/eth9/device/"
			 "msi_irqs/%u", irqs[i]);
		put(root, rel, "msix\n");
	}
	for (i = 0; i < 4; i++) {
		snprintf(rel, sizeof(rel), "sys/class/net/eth9/queues/rx-%zu/"
			 "rps_cpus", i);
		put(root, rel, "0\n");
		snprintf(rel, sizeof(rel), "sys/class/net/eth9/queues/tx-%zu/"
			 "xps_cpus", i);
		put(root, rel, "0\n");
	}
	return root;
}

static void rmtree(char *root)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	talloc_free(root);
}

static const unsigned irqs_4[] = {60, 61, 62, 63};

static void test_plan_4_queues(void **state)
{
	char *root = fixture(interrupts_4, "0-3\n", irqs_4, 4);
	struct irqplan *p;
	char *err, *text;
	size_t i;

	(void)state;
	assert_int_equal(irqplan_make(NULL, root, "eth9", NULL, 0, &p, &err),
			 0);
	/* eth9 (IRQ 59, the link vector) is the device's but no queue */
	assert_int_equal(p->nirqs, 4);
	assert_int_equal(p->nsteer, 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(p->irqs[i].irq, 60 + i);
		assert_int_equal(p->irqs[i].cpu, i);
		assert_int_equal(p->irqs[i].worker, i);
	}
	text = irqplan_describe(p, p);
	assert_string_equal(text,
			    "eth9 queue eth9-TxRx-0 irq 60 -> cpu 0 (worker 0)\n"
			    "eth9 queue eth9-TxRx-1 irq 61 -> cpu 1 (worker 1)\n"
			    "eth9 queue eth9-TxRx-2 irq 62 -> cpu 2 (worker 2)\n"
			    "eth9 queue eth9-TxRx-3 irq 63 -> cpu 3 (worker 3)\n");
	assert_string_equal(get(root, "proc/irq/62/smp_affinity_list"),
			    "0-3\n");
	assert_int_equal(irqplan_apply(p, p, &err), 0);
	assert_string_equal(get(root, "proc/irq/60/smp_affinity_list"), "0\n");
	assert_string_equal(get(root, "proc/irq/62/smp_affinity_list"), "2\n");
	talloc_free(p);

	/* two workers: queues 0,2 on the first, 1,3 on the second */
	static const unsigned two[] = {1, 3};
	assert_int_equal(irqplan_make(NULL, root, "eth9", two, 2, &p, &err),
			 0);
	assert_int_equal(p->irqs[2].cpu, 1);
	assert_int_equal(p->irqs[2].worker, 0);
	assert_int_equal(p->irqs[3].cpu, 3);
	assert_int_equal(p->irqs[3].worker, 1);
	talloc_free(p);

	static const unsigned offline[] = {1, 4};
	assert_int_equal(irqplan_make(NULL, root, "eth9", offline, 2, &p,
				      &err),
			 EINVAL);
	assert_non_null(strstr(err, "cpu 4 is not online"));
	talloc_free(err);
	rmtree(root);
}

static void test_plan_rps(void **state)
{
	static const char text[] =
		"   CPU0 CPU1 CPU2 CPU3\n"
		" 40: 0 0 0 0 PCI-MSI 1-edge eth9-rx-0\n"
		" 41: 0 0 0 0 PCI-MSI 2-edge eth9-rx-1\n"
		" 42: 0 0 0 0 PCI-MSI 3-edge eth9-tx-0\n"
		" 43: 0 0 0 0 PCI-MSI 4-edge eth9-tx-1\n";
	static const unsigned irqs[] = {40, 41, 42, 43};
	char *root = fixture(text, "0-3\n", irqs, 4);
	struct irqplan *p;
	char *err;

	(void)state;
	assert_int_equal(irqplan_make(NULL, root, "eth9", NULL, 0, &p, &err),
			 0);
	assert_int_equal(p->nirqs, 4);
	/* rx before tx of the same queue, both on the queue's worker */
	assert_string_equal(p->irqs[0].name, "eth9-rx-0");
	assert_string_equal(p->irqs[1].name, "eth9-tx-0");
	assert_int_equal(p->irqs[1].cpu, 0);
	assert_string_equal(p->irqs[3].name, "eth9-tx-1");
	assert_int_equal(p->irqs[3].cpu, 1);
	assert_int_equal(p->nsteer, 4);
	assert_string_equal(irqplan_describe(p, p) + strlen(
		"eth9 queue eth9-rx-0 irq 40 -> cpu 0 (worker 0)\n"
		"eth9 queue eth9-tx-0 irq 42 -> cpu 0 (worker 0)\n"
		"eth9 queue eth9-rx-1 irq 41 -> cpu 1 (worker 1)\n"
		"eth9 queue eth9-tx-1 irq 43 -> cpu 1 (worker 1)\n"),
			    "eth9 rps rx-0 -> cpus 0,2 (workers 0,2)\n"
			    "eth9 rps rx-1 -> cpus 1,3 (workers 1,3)\n"
			    "eth9 xps tx-0 -> cpus 0,2 (workers 0,2)\n"
			    "eth9 xps tx-1 -> cpus 1,3 (workers 1,3)\n");
	assert_int_equal(irqplan_apply(p, p, &err), 0);
	assert_string_equal(get(root, "sys/class/net/eth9/queues/rx-0/"
				"rps_cpus"), "5\n");
	assert_string_equal(get(root, "sys/class/net/eth9/queues/rx-1/"
				"rps_cpus"), "a\n");
	assert_string_equal(get(root, "sys/class/net/eth9/queues/tx-1/"
				"xps_cpus"), "a\n");
	assert_string_equal(get(root, "sys/class/net/eth9/queues/rx-2/"
				"rps_cpus"), "0\n");
	assert_string_equal(get(root, "proc/irq/43/smp_affinity_list"), "1\n");
	talloc_free(p);
	rmtree(root);
}

static void test_plan_errors(void **state)
{
	char *root = fixture(interrupts_4, "0-3\n", irqs_4, 4);
	struct irqplan *p;
	char path[4200];
	char *err;

	(void)state;
	assert_int_equal(irqplan_make(NULL, root, "eth7", NULL, 0, &p, &err),
			 ENODEV);
	assert_non_null(strstr(err, "no interface eth7"));
	talloc_free(err);
	assert_int_equal(irqplan_make(NULL, root, "../x", NULL, 0, &p, &err),
			 EINVAL);
	talloc_free(err);

	/* an interface without queue interrupts */
	put(root, "sys/class/net/eth1/device/msi_irqs/64", "msix\n");
	assert_int_equal(irqplan_make(NULL, root, "eth1", NULL, 0, &p, &err),
			 0);
	assert_int_equal(p->nirqs, 1);	/* 64 names eth1-TxRx-0 too */
	talloc_free(p);
	put(root, "sys/class/net/lo", NULL);
	assert_int_equal(irqplan_make(NULL, root, "lo", NULL, 0, &p, &err),
			 ENODEV);
	assert_non_null(strstr(err, "lo has no queue interrupts"));
	talloc_free(err);

	/* msi_irqs leaves out IRQs of other devices named alike */
	snprintf(path, sizeof(path), "%s/sys/class/net/eth9/device/msi_irqs/62",
		 root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(irqplan_make(NULL, root, "eth9", NULL, 0, &p, &err),
			 0);
	assert_int_equal(p->nirqs, 3);
	assert_int_equal(p->irqs[2].irq, 63);
	talloc_free(p);
	put(root, "sys/class/net/eth9/device/msi_irqs/62", "msix\n");

	/* a directory where IRQ 63's file should be: refused, none written */
	snprintf(path, sizeof(path), "%s/proc/irq/63/smp_affinity_list", root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(irqplan_make(NULL, root, "eth9", NULL, 0, &p, &err),
			 0);
	assert_int_not_equal(irqplan_apply(p, p, &err), 0);
	assert_non_null(strstr(err, "proc/irq/63/smp_affinity_list"));
	assert_non_null(strstr(err, "nothing was written"));
	assert_string_equal(get(root, "proc/irq/60/smp_affinity_list"),
			    "0-3\n");
	talloc_free(p);

	/* no file for IRQ 63 at all */
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(irqplan_make(NULL, root, "eth9", NULL, 0, &p, &err),
			 0);
	assert_int_equal(irqplan_apply(p, p, &err), ENOENT);
	assert_string_equal(get(root, "proc/irq/61/smp_affinity_list"),
			    "0-3\n");
	talloc_free(p);

	/* a root without the CPU list */
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/online", root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(irqplan_make(NULL, root, "eth9", NULL, 0, &p, &err),
			 ENOENT);
	assert_non_null(strstr(err, "cpu/online"));
	talloc_free(err);
	rmtree(root);
}

static void test_irqbalance(void **state)
{
	char *root = fixture(interrupts_4, "0-3\n", irqs_4, 4);

	(void)state;
	put(root, "proc/1/comm", "systemd\n");
	assert_false(irqplan_irqbalance_running(root));
	put(root, "proc/812/comm", "irqbalance\n");
	assert_true(irqplan_irqbalance_running(root));
	rmtree(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_name_match),
		cmocka_unit_test(test_interrupts_parse),
		cmocka_unit_test(test_plan_4_queues),
		cmocka_unit_test(test_plan_rps),
		cmocka_unit_test(test_plan_errors),
		cmocka_unit_test(test_irqbalance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
