#!/usr/bin/env python3
"""The harness's exit status (smbd_harness.exit_status, issue 37 item 3): a
test file whose every test was skipped exits 77, which automake's test
driver reports as SKIP, never 0 (PASS); one where some tests ran exits 0;
any failure 1.  Each case runs a small suite of its own (classes made
inside the test, so the loader of this file does not see them) and checks
the status main() would exit with.  Needs no server, no root."""

import io
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smbd_harness as h  # noqa: E402


def run(*classes):
    """exit_status() of a quiet run of the given TestCase classes."""
    suite = unittest.TestSuite()
    loader = unittest.TestLoader()
    for c in classes:
        suite.addTests(loader.loadTestsFromTestCase(c))
    res = unittest.TextTestRunner(stream=io.StringIO(),
                                  resultclass=h._Result).run(suite)
    return h.exit_status(res)


def passing():
    class Passing(unittest.TestCase):
        def test_ok(self):
            pass
    return Passing


def skipped_in_test():
    class SkippedInTest(unittest.TestCase):
        def test_skip(self):
            raise unittest.SkipTest("not root")
    return SkippedInTest


def skipped_class():
    class SkippedClass(unittest.TestCase):
        @classmethod
        def setUpClass(cls):
            raise unittest.SkipTest("needs root to add the test user")

        def test_never(self):
            raise AssertionError("setUpClass skipped it")
    return SkippedClass


def failing():
    class Failing(unittest.TestCase):
        def test_fail(self):
            self.fail("a failure")
    return Failing


def erroring_class():
    class ErroringClass(unittest.TestCase):
        @classmethod
        def setUpClass(cls):
            raise RuntimeError("the server did not start")

        def test_never(self):
            pass
    return ErroringClass


def known_failure():
    class KnownFailure(unittest.TestCase):
        @unittest.expectedFailure
        def test_known(self):
            self.fail("known")
    return KnownFailure


def unexpected_success():
    class UnexpectedSuccess(unittest.TestCase):
        @unittest.expectedFailure
        def test_known(self):
            pass
    return UnexpectedSuccess


class ExitStatus(unittest.TestCase):
    def test_all_skipped_in_setupclass_is_77(self):
        self.assertEqual(run(skipped_class(), skipped_class()), 77)

    def test_all_skipped_in_tests_is_77(self):
        self.assertEqual(run(skipped_in_test(), skipped_class()), 77)

    def test_some_ran_is_0(self):
        self.assertEqual(run(passing(), skipped_class()), 0)
        self.assertEqual(run(passing()), 0)

    def test_failure_is_1(self):
        self.assertEqual(run(failing(), skipped_class()), 1)
        self.assertEqual(run(failing(), passing()), 1)

    def test_error_in_setupclass_is_1(self):
        self.assertEqual(run(erroring_class(), skipped_class()), 1)

    def test_known_failure_ran(self):
        self.assertEqual(run(known_failure(), skipped_class()), 0)
        self.assertEqual(run(unexpected_success(), passing()), 1)

    def test_no_test_is_1(self):
        self.assertEqual(run(), 1)


if __name__ == "__main__":
    h.main()
