# Hardening round three (issue 22), the waits: items 2, 9, 12 and 16. Each test failed on the
# library before its fix.
set(ZCAST_HARD_WAITS_TESTS
  wait_other_pidns wait_rewritten_pid wait_no_pidfd          # 2: deaths the pidfd cannot show
  watcher_fork_spin                                          # 9: no spin after fork() without exec
  watch_by_file watcher_epoll_lost watcher_start_fds         # 16: file key, epoll failure, leaks
)
set_tests_properties(${ZCAST_HARD_WAITS_TESTS} PROPERTIES LABELS hardening TIMEOUT 300)
set(ZCAST_HARD_WAITS_TESTS_12 subfd_alloc_fail)               # 12: no abort, no dead descriptor
set_tests_properties(${ZCAST_HARD_WAITS_TESTS_12} PROPERTIES LABELS hardening TIMEOUT 300)
