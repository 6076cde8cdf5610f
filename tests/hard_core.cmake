# Hardening round three (issue 22), the core items: each test reproduces one finding and failed on
# the library before its fix. `ctest -L hardening` runs them with the earlier rounds' tests.
set(ZCAST_HARD_CORE_TESTS
  take_pool_gone take_lost_race exec_take_error             # 1: take errors
  dropold_pins_pool                                         # 4: DROP_OLD never stalls a loan
)
set_tests_properties(${ZCAST_HARD_CORE_TESTS} PROPERTIES LABELS hardening TIMEOUT 300)
set(ZCAST_HARD_CORE_TESTS_2
  owed_wake_live                                            # 13: a live publisher's mark
  close_no_pool_walk                                        # 14: a close walks no pool
  msg_info_copy                                             # 15: info from the take's copy
  lock_release_owner                                        # 17: release checks the word
  wait_max_held                                             # 19: wait at max_held
)
set_tests_properties(${ZCAST_HARD_CORE_TESTS_2} PROPERTIES LABELS hardening TIMEOUT 300)
