# The benchmark driver and report generator on a tiny run (structure, not speed).
if(TARGET zcast-bench)
  add_test(NAME bench_smoke COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bench_smoke.sh
           $<TARGET_FILE:zcast-bench> ${PROJECT_SOURCE_DIR}/bench/report.py)
  set_tests_properties(bench_smoke PROPERTIES TIMEOUT 180)
endif()
