#!/usr/bin/python3
"""Master/worker process model (DESIGN.md "Process model").

With `smbd workers = 2`: one master with exactly two worker children, each
pinned to its own CPU; a SIGKILLed worker is replaced within 2 s while the
other worker's connections carry on; each accepted connection is logged
with its worker, CPU and SO_INCOMING_CPU; SIGHUP reloads without dropping
connections; SIGTERM stops everything and removes the pid file.

Log lines relied on (debug level >= 3):
    started worker N pid P on cpu C
    worker N (pid P) died
    worker N (cpu C): connection from ADDR:PORT, SO_INCOMING_CPU I
    ... reloaded ...
Samba's smbd has no workers: these tests are skipped against it.
Every test runs once per event-loop backend (io_uring, epoll).
"""

import os
import re
import signal
import socket
import subprocess
import threading
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402

STARTED = re.compile(r"started worker (\d+) pid (\d+) on cpu (\d+)")
DIED = r"worker %d \(pid %d\) died"
CONN = (r"worker (\d+) \(cpu (\d+)\): connection from "
        r"127\.0\.0\.1:%d, SO_INCOMING_CPU (-?\d+)")
NWORKERS = 2
RESTART_TIMEOUT = 2.0


def worker_table(srv):
    """{worker index: (pid, cpu)} from the latest 'started worker' lines."""
    table = {}
    for m in STARTED.finditer(srv.log_text()):
        table[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
    return table


def settled_affinity(pid, timeout=1.0):
    """The affinity of pid once it is a single CPU (the worker may pin
    itself just after the master logged it), or what it is at timeout."""
    h.wait_until(lambda: len(os.sched_getaffinity(pid)) == 1, timeout)
    return os.sched_getaffinity(pid)


def wait_workers(srv, n=NWORKERS, timeout=10.0):
    """Wait until n workers are logged as started and alive."""
    def probe():
        t = worker_table(srv)
        if len(t) >= n and all(h.pid_alive(p) for p, _ in t.values()):
            return t
        return None
    t = h.wait_until(probe, timeout)
    if not t:
        raise AssertionError("%d workers not started within %.0f s\n%s" %
                             (n, timeout, srv.log_tail()))
    return t


class Workers:

    workers = NWORKERS

    @classmethod
    def setUpClass(cls):
        if h.is_samba():
            raise unittest.SkipTest("Samba's smbd has no workers")
        if len(os.sched_getaffinity(0)) < NWORKERS:
            raise unittest.SkipTest("needs %d CPUs" % NWORKERS)
        super().setUpClass()
        wait_workers(cls.smbd)

    def setUp(self):
        super().setUp()
        self.server_alive()
        self.table = wait_workers(self.smbd)

    def connection_line(self, conn, timeout=5.0):
        """(worker, cpu, incoming_cpu) logged for conn's local port."""
        m = self.smbd.wait_log(CONN % conn.local_port, timeout)
        self.assertTrue(m, "no connection line for port %d\n%s" %
                        (conn.local_port, self.smbd.log_tail()))
        return tuple(int(x) for x in m[-1].groups())

    def negotiated(self):
        c = self.smbd.connect()
        self.assertEqual(c.negotiate()["status"], h.STATUS_SUCCESS)
        return c

    def test_processes(self):
        # `ps`: the master's children are exactly the workers
        kids = h.child_pids(self.smbd.pid)
        pids = sorted(p for p, _ in self.table.values())
        self.assertEqual(len(self.table), NWORKERS)
        self.assertEqual(kids, pids, "children %s, workers %s" %
                         (kids, pids))

    def test_affinity(self):
        cpus = []
        for n, (pid, cpu) in sorted(self.table.items()):
            aff = settled_affinity(pid)
            self.assertEqual(len(aff), 1, "worker %d affinity %s" %
                             (n, aff))
            self.assertEqual(aff, {cpu}, "worker %d logged cpu %d" %
                             (n, cpu))
            cpus.append(cpu)
        self.assertEqual(len(set(cpus)), len(cpus), "workers share a CPU")

    def test_connection_log_line(self):
        with self.negotiated() as c:
            worker, cpu, incoming = self.connection_line(c)
            self.assertIn(worker, self.table)
            self.assertEqual(cpu, self.table[worker][1])
            self.assertGreaterEqual(incoming, 0)
            self.assertEqual(c.echo(), h.STATUS_SUCCESS)

    def test_steering_loopback(self):
        # On loopback the receiving CPU is the client's: a client pinned to
        # CPU c lands on the worker pinned to c (CBPF reuseport steering)
        saved = os.sched_getaffinity(0)
        try:
            for n, (pid, cpu) in sorted(self.table.items()):
                os.sched_setaffinity(0, {cpu})
                with self.negotiated() as c:
                    worker, wcpu, incoming = self.connection_line(c)
                self.assertEqual(incoming, cpu)
                self.assertEqual((worker, wcpu), (n, cpu))
        finally:
            os.sched_setaffinity(0, saved)

    def test_kill_worker(self):
        self.allow_worker_death = True
        first = self.negotiated()
        try:
            mine, _, _ = self.connection_line(first)
            victim = next(n for n in self.table if n != mine)
            vpid, vcpu = self.table[victim]
            since = self.smbd.log_size()
            os.kill(vpid, signal.SIGKILL)
            died = self.smbd.wait_log(DIED % (victim, vpid),
                                      RESTART_TIMEOUT, since)
            self.assertTrue(died, "no 'died' line\n" + self.smbd.log_tail())

            def replaced():
                t = worker_table(self.smbd)
                p = t.get(victim, (vpid,))[0]
                return p if p != vpid and h.pid_alive(p) else None
            newpid = h.wait_until(replaced, RESTART_TIMEOUT)
            self.assertTrue(newpid, "worker %d not restarted within %.0f s"
                            "\n%s" % (victim, RESTART_TIMEOUT,
                                      self.smbd.log_tail()))
            self.assertEqual(settled_affinity(newpid), {vcpu})
            # the other worker's connection was not disturbed
            self.assertEqual(first.echo(), h.STATUS_SUCCESS)
            # new connections negotiate, including on the new worker
            saved = os.sched_getaffinity(0)
            try:
                os.sched_setaffinity(0, {vcpu})
                for _ in range(3):
                    with self.negotiated() as c:
                        self.assertEqual(c.echo(), h.STATUS_SUCCESS)
            finally:
                os.sched_setaffinity(0, saved)
            for _ in range(4):
                with self.negotiated() as c:
                    self.assertEqual(c.echo(), h.STATUS_SUCCESS)
            self.assertEqual(first.echo(), h.STATUS_SUCCESS)
            self.assertEqual(sorted(h.child_pids(self.smbd.pid)),
                             sorted(p for p, _ in
                                    worker_table(self.smbd).values()))
        finally:
            first.close()

    def test_reconnect_after_drop(self):
        # A client drops a connection that holds an open and at once
        # connects again, on the other worker: its new connection must not
        # see the old open (conn_barrier.c).  The old worker is stopped
        # while the old connection ends and continued 100 ms later, so
        # without the barrier the new connection's DELETE would only mark
        # the file delete-pending and its CREATE fail with DELETE_PENDING.
        from impacket.smbconnection import SMBConnection
        from impacket import smb3structs as s3
        user, password = "barrieruser", "Barrier-Pass-1"
        self.smbd.create_user(user, password)
        (a, (apid, acpu)), (b, (bpid, bcpu)) = sorted(self.table.items())
        saved = os.sched_getaffinity(0)

        def login():
            c = SMBConnection("127.0.0.1", "127.0.0.1",
                              sess_port=self.smbd.port,
                              timeout=h.NET_TIMEOUT)
            c.login(user, password)
            return c

        def worker_of(c):
            port = c.getSMBServer().get_socket().getsockname()[1]
            m = self.smbd.wait_log(CONN % port, 5.0)
            self.assertTrue(m, self.smbd.log_tail())
            return int(m[-1].group(1))

        timer = None
        try:
            os.sched_setaffinity(0, {acpu})
            old = login()
            self.assertEqual(worker_of(old), a)
            tid = old.connectTree("share")
            old.createFile(tid, "barrier.txt",
                           desiredAccess=s3.FILE_READ_DATA,
                           shareMode=(s3.FILE_SHARE_READ |
                                      s3.FILE_SHARE_WRITE |
                                      s3.FILE_SHARE_DELETE),
                           creationDisposition=s3.FILE_OVERWRITE_IF)
            os.kill(apid, signal.SIGSTOP)
            timer = threading.Timer(0.1, os.kill, (apid, signal.SIGCONT))
            sock = old.getSMBServer().get_socket()
            sock.shutdown(socket.SHUT_RDWR)
            sock.close()
            timer.start()
            os.sched_setaffinity(0, {bcpu})
            new = login()
            try:
                self.assertEqual(worker_of(new), b)
                new.deleteFile("share", "barrier.txt")
                tid = new.connectTree("share")
                fid = new.createFile(
                    tid, "barrier.txt", desiredAccess=s3.FILE_WRITE_DATA,
                    creationDisposition=s3.FILE_CREATE)
                new.closeFile(tid, fid)
            finally:
                new.close()
        finally:
            if timer is not None:
                timer.join()
            os.kill(apid, signal.SIGCONT)
            os.sched_setaffinity(0, saved)

    def test_sighup_reload(self):
        conns = [self.negotiated() for _ in range(4)]
        try:
            since = self.smbd.log_size()
            os.kill(self.smbd.pid, signal.SIGHUP)
            self.assertTrue(self.smbd.wait_log(r"reloaded", 5.0, since),
                            "no 'reloaded' line\n" + self.smbd.log_tail())
            for c in conns:
                self.assertEqual(c.echo(), h.STATUS_SUCCESS)
            with self.negotiated() as c:
                self.assertEqual(c.echo(), h.STATUS_SUCCESS)
            self.server_alive()
        finally:
            for c in conns:
                c.close()


class WorkersStop:
    """SIGTERM on its own server (it ends the server)."""

    start_server = False
    workers = NWORKERS

    @classmethod
    def setUpClass(cls):
        if h.is_samba():
            raise unittest.SkipTest("Samba's smbd has no workers")
        super().setUpClass()

    def test_sigterm(self):
        srv = self.new_server()
        try:
            srv.start()
            table = wait_workers(srv)
            self.assertTrue(h.wait_until(
                lambda: os.path.exists(srv.pid_file), 5.0),
                "no pid file %s" % srv.pid_file)
            with open(srv.pid_file) as f:
                self.assertEqual(int(f.read().split()[0]), srv.pid)
            c = srv.connect()
            c.negotiate()
            pids = [p for p, _ in table.values()] + [srv.pid]
            srv.proc.send_signal(signal.SIGTERM)
            try:
                srv.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.fail("master still running 10 s after SIGTERM")
            c.close()
            gone = h.wait_until(
                lambda: not any(h.pid_alive(p) for p in pids), 2.0)
            self.assertTrue(gone, "processes left: %s" %
                            [p for p in pids if h.pid_alive(p)])
            self.assertFalse(os.path.exists(srv.pid_file),
                             "pid file not removed")
        finally:
            srv.cleanup()


h.backend_variants(globals(), Workers)
h.backend_variants(globals(), WorkersStop)

if __name__ == "__main__":
    h.main()
