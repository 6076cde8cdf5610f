# Python binding (python/, docs/PYTHON.md): pytest suites in tests/python/, run with the extension
# from the build tree (PYTHONPATH), one CTest test per file. Under ASan the interpreter (not
# instrumented) loads the sanitizer runtime first through LD_PRELOAD; leak detection is off, since
# CPython keeps its own allocations to the end by design.
if(NOT TARGET zcast_python)
  return()
endif()
set(ZT_PY ${CMAKE_CURRENT_SOURCE_DIR}/python)

add_executable(zt_py_peer ${ZT_PY}/peer.c)
target_link_libraries(zt_py_peer PRIVATE zcast)
target_compile_options(zt_py_peer PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes -Wno-conversion)
target_compile_definitions(zt_py_peer PRIVATE _GNU_SOURCE)
zcast_generate_messages(zt_py_peer TYPES sensor_msgs/Image)

add_library(zt_py_types MODULE ${ZT_PY}/types_lib.c)
zcast_generate_messages(zt_py_types TYPES zcast_test/Corner zcast_test/Fixed zcast_test/Nested
  ROOTS ${CMAKE_CURRENT_SOURCE_DIR}/typed/msg)
target_include_directories(zt_py_types PRIVATE ${PROJECT_SOURCE_DIR}/include)

set(ZT_PY_ENV
  PYTHONPATH=${CMAKE_BINARY_DIR}/python:${ZT_PY}
  PYTHONDONTWRITEBYTECODE=1
  ZT_PY_PEER=$<TARGET_FILE:zt_py_peer>
  ZT_PY_TYPES=$<TARGET_FILE:zt_py_types>
  ZT_SOURCE_DIR=${PROJECT_SOURCE_DIR})
if(ZCAST_SANITIZE MATCHES "address")
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
    OUTPUT_VARIABLE ZT_LIBASAN OUTPUT_STRIP_TRAILING_WHITESPACE)
  list(APPEND ZT_PY_ENV LD_PRELOAD=${ZT_LIBASAN} ASAN_OPTIONS=detect_leaks=0)
endif()

file(GLOB ZT_PY_TESTS CONFIGURE_DEPENDS ${ZT_PY}/test_*.py)
foreach(t ${ZT_PY_TESTS})
  get_filename_component(n ${t} NAME_WE)
  string(REGEX REPLACE "^test_" "python_" n ${n})
  add_test(NAME ${n} COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider ${t})
  set_tests_properties(${n} PROPERTIES TIMEOUT 600 ENVIRONMENT "${ZT_PY_ENV}" LABELS python
    REQUIRED_FILES $<TARGET_FILE:zcast_python>)
endforeach()
