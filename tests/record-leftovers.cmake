# Leftovers of issue 24 (branch cleanup): record -o's path as written, joined with one '/'
# (tests/record/record_into_test.sh).
set(ZT_RECORD ${CMAKE_CURRENT_SOURCE_DIR}/record)
add_test(NAME record_into COMMAND ${ZT_RECORD}/record_into_test.sh $<TARGET_FILE:zcast_cli>)
set_tests_properties(record_into PROPERTIES TIMEOUT 60)
# zcast.Bag(topics=...) takes the CLI's patterns (tests/python/bag_topics.py; ZT_PY_ENV is
# tests/python.cmake's).
if(TARGET zcast_python)
  add_test(NAME python_bag_topics COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider
    ${CMAKE_CURRENT_SOURCE_DIR}/python/bag_topics.py)
  set_tests_properties(python_bag_topics PROPERTIES TIMEOUT 300 LABELS python
    ENVIRONMENT "${ZT_PY_ENV};ZT_ZCAST=$<TARGET_FILE:zcast_cli>"
    REQUIRED_FILES $<TARGET_FILE:zcast_python>)
endif()
# --lossless: a refused publish, retried and recorded, is not counted dropped
# (tests/record/record_lossless_drops_test.sh).
add_test(NAME record_lossless_drops COMMAND ${ZT_RECORD}/record_lossless_drops_test.sh
  $<TARGET_FILE:zcast_cli>)
set_tests_properties(record_lossless_drops PROPERTIES TIMEOUT 120)
# bag_open passes over a long record it ignores, reading on only to check a Data End CRC
# (tests/record/test_bag_skip.c).
add_executable(test_bag_skip ${ZT_RECORD}/test_bag_skip.c)
target_link_libraries(test_bag_skip PRIVATE zcast_bag)
target_compile_options(test_bag_skip PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes)
add_test(NAME record_bag_skip COMMAND test_bag_skip)
set_tests_properties(record_bag_skip PROPERTIES TIMEOUT 120)
