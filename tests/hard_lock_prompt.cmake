# A close ends a zcast_publish_wait waiting for a held topic lock at once, not at the end of the
# lock's 2 s try (the waiter sleeps on the lock word and on its publisher's `closed` word): with
# futex_waitv, and again with the fallback forced.
set_tests_properties(publish_wait_close_prompt PROPERTIES LABELS hardening TIMEOUT 300)
add_test(NAME publish_wait_close_prompt_nowaitv COMMAND test_publish_wait_close_prompt)
set_tests_properties(publish_wait_close_prompt_nowaitv PROPERTIES LABELS hardening TIMEOUT 300
  SKIP_RETURN_CODE 77 ENVIRONMENT ZCAST_NO_FUTEX_WAITV=1)
