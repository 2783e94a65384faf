#!/usr/bin/python3
"""The crash handler (issue 2): a worker that dies of a signal writes a
libunwind backtrace to the log and runs `panic action` with %d replaced by
its pid; the master starts a new worker and the server goes on serving.
Runs once per event-loop backend.
"""

import glob
import os
import signal
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

PANIC_DIR = tempfile.mkdtemp(prefix="smbd-panic-")


class Crash:
    workers = 1
    global_options = {"panic action": "touch %s/panic-%%d" % PANIC_DIR}

    @classmethod
    def setUpClass(cls):
        if h.is_samba():
            raise unittest_skip("Samba's smbd has no workers")
        super().setUpClass()

    def test_segv_backtrace_and_restart(self):
        self.allow_worker_death = True
        with self.smbd.connect() as c:
            self.assertEqual(c.negotiate()["status"], h.STATUS_SUCCESS)
        kids = h.child_pids(self.smbd.pid)
        self.assertEqual(len(kids), 1)
        victim = kids[0]
        since = self.smbd.log_size()
        os.kill(victim, signal.SIGSEGV)
        panic = self.smbd.wait_log(r"PANIC: caught signal 11 in pid %d" %
                                   victim, 10.0, since)
        self.assertTrue(panic, "no PANIC line\n" + self.smbd.log_tail())
        bt = self.smbd.wait_log(r"BACKTRACE:", 5.0, since)
        self.assertTrue(bt, "no backtrace\n" + self.smbd.log_tail())
        frames = self.smbd.wait_log(r"#\d+ 0x[0-9a-f]+ \w+\+0x", 5.0,
                                     since)
        self.assertTrue(frames, "no frames\n" + self.smbd.log_tail())
        # the panic action ran, for this pid
        ok = h.wait_until(
            lambda: glob.glob(os.path.join(PANIC_DIR,
                                           "panic-%d" % victim)), 10.0)
        self.assertTrue(ok, "panic action did not run")

        def replaced():
            k = h.child_pids(self.smbd.pid)
            return k if k and victim not in k else None
        self.assertTrue(h.wait_until(replaced, 5.0),
                        "worker not replaced\n" + self.smbd.log_tail())
        # and the server still serves
        ok = h.wait_until(self._negotiates, 5.0)
        self.assertTrue(ok, "no service after the crash\n" +
                        self.smbd.log_tail())

    def _negotiates(self):
        try:
            with self.smbd.connect() as c:
                return c.negotiate()["status"] == h.STATUS_SUCCESS
        except Exception:
            return False


def unittest_skip(msg):
    import unittest
    return unittest.SkipTest(msg)


h.backend_variants(globals(), Crash)

if __name__ == "__main__":
    h.main()
