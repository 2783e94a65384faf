# testsuite/: cmocka unit tests (make check), integration tests, fuzzing.
