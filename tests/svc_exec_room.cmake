# The executor's room entries of servers and clients, and the refusals owed, also with the wait
# sets' futex_waitv fallback forced (as tests/CMakeLists.txt's ZCAST_NO_WAITV_TESTS): a server's
# room entry sleeps on three words per client.
foreach(t svc_exec_server_room svc_exec_client_room svc_exec_room_threads svc_refused_no_room)
  add_test(NAME ${t}_nowaitv COMMAND test_${t})
  set_tests_properties(${t}_nowaitv PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
    ENVIRONMENT ZCAST_NO_FUTEX_WAITV=1)
endforeach()
