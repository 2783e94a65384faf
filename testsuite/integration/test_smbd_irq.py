#!/usr/bin/python3
"""smbd-irq (issue 18, NIC IRQ affinity matched to workers) on fixture
trees this test writes in a temporary directory: /proc/interrupts,
/proc/irq/N/smp_affinity_list, the interface's msi_irqs and queues, the
online CPUs.  A 4-queue NIC on 4 CPUs (IRQs 60-63, eth9-TxRx-0..3: --dry-run
prints four lines, one queue per CPU, and writes nothing; without it the
files are written), a 2-queue NIC on 4 CPUs (RPS and XPS written), names in
the -rx-/-tx- style, --cpus, a missing interface, a target that cannot be
written (a directory where the file should be: root writes any file, so
this is what "read-only" can mean here) with nothing written, and the
irqbalance warning.  Ours only in what it runs; the server is not started.
MasterIrqAffinity: the same done by the master at start (`smbd irq
affinity`), and smbstatus --workers.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

LINE_RE = re.compile(r"^(\S+) queue (\S+) irq (\d+) -> cpu (\d+) "
                     r"\(worker (\d+)\)$")


def smbd_irq_binary():
    build = os.environ.get("BUILDDIR", os.getcwd())
    return os.path.join(build, "utils", "smbd-irq")


def put(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def get(root, rel):
    with open(os.path.join(root, rel)) as f:
        return f.read()


class Fixture:
    """A root with one NIC eth9: irqs is [(number, name)], CPUs 0..ncpus-1,
    queues rx-0..nqueues-1 and tx-0..nqueues-1 (rps_cpus, xps_cpus "0")."""

    def __init__(self, root, irqs, ncpus=4, nqueues=4, iface="eth9"):
        self.root = root
        self.irqs = irqs
        cpus = "".join("%11s" % ("CPU%d" % c) for c in range(ncpus))
        lines = [" " * 4 + cpus,
                 "  0: " + " 0" * ncpus + "   IO-APIC   2-edge      timer",
                 # the link vector: the device's, but no queue
                 " 59: " + " 0" * ncpus + "   PCI-MSI 0-edge      " + iface]
        for n, name in irqs:
            lines.append("%3d: %s   PCI-MSI %d-edge      %s"
                         % (n, " 1" * ncpus, 524288 + n, name))
        lines.append("NMI: " + " 0" * ncpus + "   Non-maskable interrupts")
        put(root, "proc/interrupts", "\n".join(lines) + "\n")
        put(root, "sys/devices/system/cpu/online", "0-%d\n" % (ncpus - 1))
        dev = "sys/class/net/%s/" % iface
        put(root, dev + "device/msi_irqs/59", "msix\n")
        for n, _ in irqs:
            put(root, "proc/irq/%d/smp_affinity_list" % n,
                "0-%d\n" % (ncpus - 1))
            put(root, dev + "device/msi_irqs/%d" % n, "msix\n")
        for q in range(nqueues):
            put(root, dev + "queues/rx-%d/rps_cpus" % q, "0\n")
            put(root, dev + "queues/tx-%d/xps_cpus" % q, "0\n")

    def affinity(self):
        return {n: get(self.root, "proc/irq/%d/smp_affinity_list" % n)
                for n, _ in self.irqs}

    def steering(self):
        out = {}
        base = os.path.join(self.root, "sys/class/net/eth9/queues")
        for q in sorted(os.listdir(base)):
            for f in os.listdir(os.path.join(base, q)):
                p = os.path.join(base, q, f)
                if os.path.isfile(p):
                    out[q] = get(base, os.path.join(q, f))
        return out

    def snapshot(self):
        """Every file under the root and its contents."""
        out = {}
        for d, _, files in os.walk(self.root):
            for f in files:
                p = os.path.join(d, f)
                with open(p) as fh:
                    out[os.path.relpath(p, self.root)] = fh.read()
        return out


TXRX_4 = [(60 + q, "eth9-TxRx-%d" % q) for q in range(4)]


class SmbdIrq(unittest.TestCase):

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="smbd-irq-")
        self.addCleanup(shutil.rmtree, self.root, ignore_errors=True)

    def run_irq(self, *args):
        r = subprocess.run([smbd_irq_binary(), "--root", self.root]
                           + list(args), capture_output=True, text=True,
                           timeout=30)
        return r.returncode, r.stdout, r.stderr

    def queue_lines(self, out):
        lines = [ln for ln in out.splitlines() if " queue " in ln]
        parsed = []
        for ln in lines:
            m = LINE_RE.match(ln)
            self.assertIsNotNone(m, ln)
            parsed.append((m.group(2), int(m.group(3)), int(m.group(4)),
                           int(m.group(5))))
        return parsed

    def test_four_queues_dry_run_then_write(self):
        fx = Fixture(self.root, TXRX_4)
        before = fx.snapshot()
        rc, out, err = self.run_irq("--interface", "eth9", "--dry-run")
        self.assertEqual(rc, 0, err)
        self.assertEqual(err, "")
        self.assertEqual(out.count("\n"), 4, out)
        lines = self.queue_lines(out)
        self.assertEqual([(n, irq) for n, irq, _, _ in lines],
                         [(name, irq) for irq, name in TXRX_4])
        self.assertEqual(sorted(c for _, _, c, _ in lines), [0, 1, 2, 3])
        for _, _, cpu, worker in lines:
            self.assertEqual(cpu, worker)
        self.assertEqual(fx.snapshot(), before)

        rc, out2, err = self.run_irq("--interface", "eth9")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out2, out)
        self.assertEqual(fx.affinity(),
                         {irq: "%d\n" % cpu for _, irq, cpu, _ in lines})
        # four queues for four CPUs: no RPS/XPS written
        self.assertEqual(set(fx.steering().values()), {"0\n"})

    def test_cpus_option(self):
        fx = Fixture(self.root, TXRX_4)
        rc, out, err = self.run_irq("--interface", "eth9", "--cpus", "1,3")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.queue_lines(out),
                         [("eth9-TxRx-0", 60, 1, 0), ("eth9-TxRx-1", 61, 3, 1),
                          ("eth9-TxRx-2", 62, 1, 0), ("eth9-TxRx-3", 63, 3, 1)])
        self.assertEqual(fx.affinity(),
                         {60: "1\n", 61: "3\n", 62: "1\n", 63: "3\n"})
        # an offline CPU: refused before anything is written
        rc, out, err = self.run_irq("--interface", "eth9", "--cpus", "0-4")
        self.assertEqual(rc, 3)
        self.assertIn("cpu 4 is not online", err)
        rc, out, err = self.run_irq("--interface", "eth9", "--cpus", "3-1")
        self.assertEqual(rc, 2)
        self.assertIn("not a CPU list", err)

    def test_two_queues_rps_xps(self):
        fx = Fixture(self.root, [(70, "eth9-TxRx-0"), (71, "eth9-TxRx-1")],
                     nqueues=2)
        rc, out, err = self.run_irq("--interface", "eth9")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.queue_lines(out),
                         [("eth9-TxRx-0", 70, 0, 0), ("eth9-TxRx-1", 71, 1, 1)])
        self.assertIn("eth9 rps rx-0 -> cpus 0,2 (workers 0,2)\n", out)
        self.assertIn("eth9 rps rx-1 -> cpus 1,3 (workers 1,3)\n", out)
        self.assertIn("eth9 xps tx-0 -> cpus 0,2 (workers 0,2)\n", out)
        self.assertIn("eth9 xps tx-1 -> cpus 1,3 (workers 1,3)\n", out)
        self.assertEqual(fx.affinity(), {70: "0\n", 71: "1\n"})
        # every worker CPU receives: the masks cover 0-3 once each
        self.assertEqual(fx.steering(), {"rx-0": "5\n", "rx-1": "a\n",
                                         "tx-0": "5\n", "tx-1": "a\n"})

    def test_rx_tx_names(self):
        irqs = [(80 + q, "eth9-rx-%d" % q) for q in range(4)] + \
               [(90 + q, "eth9-tx-%d" % q) for q in range(4)]
        fx = Fixture(self.root, irqs)
        rc, out, err = self.run_irq("-i", "eth9")
        self.assertEqual(rc, 0, err)
        lines = self.queue_lines(out)
        self.assertEqual(len(lines), 8)
        cpu_of = {name: cpu for name, _, cpu, _ in lines}
        for q in range(4):
            # both vectors of a queue on one CPU, each queue on its own
            self.assertEqual(cpu_of["eth9-rx-%d" % q], q)
            self.assertEqual(cpu_of["eth9-tx-%d" % q], q)
        self.assertEqual(fx.affinity()[83], "3\n")
        self.assertEqual(fx.affinity()[91], "1\n")
        self.assertNotIn(" rps ", out)

    def test_rx_tx_names_two_queues(self):
        irqs = [(40, "eth9-rx-0"), (41, "eth9-rx-1"), (42, "eth9-tx-0"),
                (43, "eth9-tx-1")]
        fx = Fixture(self.root, irqs, nqueues=2)
        rc, out, err = self.run_irq("-i", "eth9")
        self.assertEqual(rc, 0, err)
        self.assertEqual(fx.affinity(),
                         {40: "0\n", 41: "1\n", 42: "0\n", 43: "1\n"})
        self.assertEqual(fx.steering(), {"rx-0": "5\n", "rx-1": "a\n",
                                         "tx-0": "5\n", "tx-1": "a\n"})

    def test_missing_interface(self):
        fx = Fixture(self.root, TXRX_4)
        before = fx.snapshot()
        rc, out, err = self.run_irq("--interface", "eth7")
        self.assertEqual(rc, 3)
        self.assertEqual(out, "")
        self.assertIn("no interface eth7", err)
        # an interface that exists but has no queue interrupts
        os.makedirs(os.path.join(self.root, "sys/class/net/lo"))
        rc, out, err = self.run_irq("--interface", "lo")
        self.assertEqual(rc, 3)
        self.assertIn("lo has no queue interrupts", err)
        self.assertEqual(fx.snapshot(), before)
        rc, out, err = self.run_irq()
        self.assertEqual(rc, 2)
        self.assertIn("--interface is required", err)

    def test_unwritable_target_writes_nothing(self):
        fx = Fixture(self.root, TXRX_4)
        target = os.path.join(self.root, "proc/irq/63/smp_affinity_list")
        os.unlink(target)
        os.mkdir(target)
        before = fx.snapshot()
        rc, out, err = self.run_irq("--interface", "eth9")
        self.assertEqual(rc, 1)
        self.assertEqual(out, "")
        self.assertIn("cannot write %s" % target, err)
        self.assertIn("nothing was written", err)
        self.assertEqual(fx.snapshot(), before)
        # --dry-run does not touch the files, so it still plans
        rc, out, err = self.run_irq("--interface", "eth9", "--dry-run")
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(self.queue_lines(out)), 4)

    def test_unwritable_rps_writes_no_affinity(self):
        fx = Fixture(self.root, [(70, "eth9-TxRx-0"), (71, "eth9-TxRx-1")],
                     nqueues=2)
        target = os.path.join(self.root,
                              "sys/class/net/eth9/queues/rx-1/rps_cpus")
        os.unlink(target)
        os.mkdir(target)
        before = fx.snapshot()
        rc, out, err = self.run_irq("--interface", "eth9")
        self.assertEqual(rc, 1)
        self.assertIn("cannot write %s" % target, err)
        # the IRQ files come first in the plan and are still untouched
        self.assertEqual(fx.snapshot(), before)
        self.assertEqual(fx.affinity(), {70: "0-3\n", 71: "0-3\n"})

    def test_refused_write_restores(self):
        # /dev/full opens for writing but refuses every write, as the
        # kernel refuses a managed IRQ's affinity (EIO) after the open
        Fixture(self.root, TXRX_4)
        target = os.path.join(self.root, "proc/irq/63/smp_affinity_list")
        os.unlink(target)
        os.symlink("/dev/full", target)
        rc, out, err = self.run_irq("--interface", "eth9")
        self.assertEqual(rc, 1)
        self.assertIn("writing %s" % target, err)
        self.assertIn("the 3 file(s) written before were restored", err)
        # (not fx.affinity(): /dev/full reads without end)
        self.assertEqual([get(self.root, "proc/irq/%d/smp_affinity_list" % n)
                          for n in (60, 61, 62)], ["0-3\n"] * 3)

    def test_irqbalance_warning(self):
        Fixture(self.root, TXRX_4)
        put(self.root, "proc/1/comm", "systemd\n")
        rc, out, err = self.run_irq("--interface", "eth9", "--dry-run")
        self.assertEqual((rc, err), (0, ""))
        put(self.root, "proc/4242/comm", "irqbalance\n")
        rc, out, err = self.run_irq("--interface", "eth9", "--dry-run")
        self.assertEqual(rc, 0)
        self.assertIn("warning: irqbalance is running", err)
        self.assertEqual(len(self.queue_lines(out)), 4)



def smbstatus_binary():
    build = os.environ.get("BUILDDIR", os.getcwd())
    return os.path.join(build, "utils", "smbstatus")


PLAN_LOG = (r"smbd irq affinity: eth9 queue eth9-TxRx-(\d) irq (\d+) -> "
            r"cpu (\d+) \(worker (\d+)\)")
STARTED = re.compile(r"started worker (\d+) pid (\d+) on cpu (\d+)")


class MasterIrqAffinity(h.SmbdTestCase):
    """`smbd irq affinity = yes` and `smbd irq interfaces`: the master
    applies the plan after pinning its two workers (on a fixture tree
    given by SMBD_IRQ_ROOT, tests only) and logs it; a failure is logged
    and the server serves on; smbstatus --workers shows per worker the
    connections accepted and those received on its CPU."""

    start_server = False
    workers = 2

    @classmethod
    def setUpClass(cls):
        if h.is_samba():
            raise unittest.SkipTest("ours only: Samba's smbd has no workers")
        if len(os.sched_getaffinity(0)) < 2:
            raise unittest.SkipTest("needs 2 CPUs")
        super().setUpClass()

    def server(self, ifaces, root=None):
        srv = self.new_server(global_options=[
            ("smbd irq affinity", "yes"),
            ("smbd irq interfaces", ifaces)])
        if root is not None:
            srv.env = {"SMBD_IRQ_ROOT": root}
        self.addCleanup(srv.cleanup)
        srv.start()
        self.smbd = srv
        return srv

    def workers_of(self, srv):
        def probe():
            t = {int(m.group(1)): int(m.group(3))
                 for m in STARTED.finditer(srv.log_text())}
            return t if len(t) == 2 else None
        t = h.wait_until(probe, 10.0)
        self.assertTrue(t, srv.log_tail())
        return t

    def test_master_applies_plan(self):
        root = tempfile.mkdtemp(prefix="smbd-irq-")
        self.addCleanup(shutil.rmtree, root, ignore_errors=True)
        fx = Fixture(root, TXRX_4,
                     ncpus=max(os.sched_getaffinity(0)) + 1)
        srv = self.server("eth9", root)
        m = srv.wait_log(PLAN_LOG, timeout=10.0, count=4)
        self.assertTrue(m, srv.log_tail())
        cpus = self.workers_of(srv)
        for x in m:
            q, irq, cpu, worker = (int(g) for g in x.groups())
            self.assertEqual((irq, worker), (60 + q, q % 2))
            self.assertEqual(cpu, cpus[worker])
        self.assertEqual(fx.affinity(),
                         {60 + q: "%d\n" % cpus[q % 2] for q in range(4)})
        with srv.connect() as c:
            c.negotiate()

    def test_failure_is_logged_not_fatal(self):
        srv = self.server("eth7 lo")
        m = srv.wait_log(r"smbd irq affinity: eth7: no interface eth7 .*"
                         r"stay where they were", timeout=10.0)
        self.assertTrue(m, srv.log_tail())
        self.assertTrue(srv.wait_log(r"smbd irq affinity: lo: lo has no "
                                     r"queue interrupts", timeout=10.0),
                        srv.log_tail())
        with srv.connect() as c:
            c.negotiate()

    def status_workers(self, srv):
        r = subprocess.run([smbstatus_binary(), "-s", srv.conf, "--workers"],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = {}
        for ln in r.stdout.splitlines():
            f = ln.split()
            if len(f) == 5 and f[0].isdigit():
                rows[int(f[0])] = tuple(int(x) for x in f[1:])
        return rows

    def test_smbstatus_workers(self):
        srv = self.server("")
        cpus = self.workers_of(srv)
        rows = h.wait_until(lambda: len(self.status_workers(srv)) == 2 and
                            self.status_workers(srv), 10.0)
        self.assertTrue(rows)
        for w, (pid, cpu, acc, local) in rows.items():
            self.assertEqual(cpu, cpus[w])
        # (the harness's own probe of the port counts too: take deltas)
        base = {w: (v[2], v[3]) for w, v in rows.items()}
        # on loopback the receiving CPU is the client's: a client pinned
        # to a worker's CPU is received there and steered to that worker
        saved = os.sched_getaffinity(0)
        try:
            for w in (0, 1, 1):
                os.sched_setaffinity(0, {cpus[w]})
                with srv.connect() as c:
                    c.negotiate()
        finally:
            os.sched_setaffinity(0, saved)

        def counted():
            r = self.status_workers(srv)
            got = {w: (v[2] - base[w][0], v[3] - base[w][1])
                   for w, v in r.items()}
            return got if got == {0: (1, 1), 1: (2, 2)} else None
        self.assertTrue(h.wait_until(counted, 10.0),
                        self.status_workers(srv))


if __name__ == "__main__":
    h.main()
