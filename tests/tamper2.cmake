# Hostile wake-up state (issue 22, item 3). Waits end every sleep after a 1 s guard slice, which
# would also hide a lost wake: the lost-wake tests run with the slices off (test builds only), so
# that a lost wake is still a hang their watchdog catches.
set_property(TEST lost_wake wait_wakeups APPEND PROPERTY ENVIRONMENT ZCAST_NO_GUARD_SLICE=1)
