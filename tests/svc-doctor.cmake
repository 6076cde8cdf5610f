# zcast doctor and live services (issue 23, branch svc-doctor): tests/svc/test_doctor_transient.c
# runs the tool it builds.
set_tests_properties(doctor_transient PROPERTIES ENVIRONMENT "ZCAST_TOOL=$<TARGET_FILE:zcast_cli>")
