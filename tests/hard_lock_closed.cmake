# A wait that keeps trying for a held topic lock ends when its publisher is closed (the other side
# of tests/hard_lock_held.cmake's publish_wait_lock_held).
set_tests_properties(publish_wait_lock_closed PROPERTIES LABELS hardening TIMEOUT 300)
