# Request/response: the benchmark case (bench/case_service.c) on a tiny run.
if(TARGET zcast-bench)
  add_test(NAME bench_service_smoke COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bench_service_smoke.sh
           $<TARGET_FILE:zcast-bench> ${PROJECT_SOURCE_DIR}/bench/report.py)
  set_tests_properties(bench_service_smoke PROPERTIES TIMEOUT 180)
endif()
# The SPIN model of the request/response handshake (model/service.pml), apart from spin_model so
# that each keeps its own time budget.
add_test(NAME spin_model_service COMMAND bash ${PROJECT_SOURCE_DIR}/model/check.sh --service)
set_tests_properties(spin_model_service PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77)
# The crash points of the services layer (src/svc/svc_crash_points.def): in a test build an
# unreached point fails the test instead of skipping it.
if(ZCAST_TEST_BUILD AND TARGET test_svc_crash_points)
  target_compile_definitions(test_svc_crash_points PRIVATE ZT_FAULT_INJECTION_BUILT)
endif()
