# Request/response: the benchmark case (bench/case_service.c) on a tiny run.
if(TARGET zcast-bench)
  add_test(NAME bench_service_smoke COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bench_service_smoke.sh
           $<TARGET_FILE:zcast-bench> ${PROJECT_SOURCE_DIR}/bench/report.py)
  set_tests_properties(bench_service_smoke PROPERTIES TIMEOUT 180)
endif()
