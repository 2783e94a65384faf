/* Unit-test helper: a connected TCP pair over 127.0.0.1, the server end
 * non-blocking as the worker's accepted sockets are (cmocka asserts). */
#ifndef TESTSUITE_TCP_PAIR_H
#define TESTSUITE_TCP_PAIR_H

void test_tcp_pair(int *server, int *client);

#endif
