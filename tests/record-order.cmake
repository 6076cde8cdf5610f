# Recordings in publish-time order across topics (issue 24, branch rec-order): three topics
# burst-publishing into one recorder (tests/record/record_order_test.sh: order_pub publishes,
# order_check reads the pieces).
set(ZT_RECORD ${CMAKE_CURRENT_SOURCE_DIR}/record)
add_executable(order_check ${ZT_RECORD}/order_check.c ${ZT_RECORD}/pieces_check.c)
target_link_libraries(order_check PRIVATE zcast_bag)
target_compile_options(order_check PRIVATE ${ZCAST_WARNINGS})
add_executable(order_pub ${ZT_RECORD}/order_pub.c)
target_link_libraries(order_pub PRIVATE zcast)
target_compile_options(order_pub PRIVATE ${ZCAST_WARNINGS})
add_test(NAME record_order COMMAND ${ZT_RECORD}/record_order_test.sh
  $<TARGET_FILE:zcast_cli> $<TARGET_FILE:order_check> $<TARGET_FILE:order_pub>)
set_tests_properties(record_order PROPERTIES TIMEOUT 120)

# --max-bytes of compressed pieces: within 15 % of the limit, no message lost or in two pieces
# (tests/record/record_max_bytes_test.sh; split_check is tests/record-rate.cmake's).
add_executable(maxb_pub ${ZT_RECORD}/maxb_pub.c)
target_link_libraries(maxb_pub PRIVATE zcast)
target_compile_options(maxb_pub PRIVATE ${ZCAST_WARNINGS})
add_test(NAME record_max_bytes COMMAND ${ZT_RECORD}/record_max_bytes_test.sh
  $<TARGET_FILE:zcast_cli> $<TARGET_FILE:split_check> $<TARGET_FILE:maxb_pub>)
set_tests_properties(record_max_bytes PROPERTIES TIMEOUT 120)
