# testsuite/bench/: the benchmark harness (issue 5).
