# Python benchmark (bench/py_bench.py): its C peer, bench/py_peer.c. The Python side runs the
# extension from the build tree (python/CMakeLists.txt).
add_executable(zcast-bench-pypeer py_peer.c)
target_link_libraries(zcast-bench-pypeer PRIVATE zcast)
target_compile_options(zcast-bench-pypeer PRIVATE -O2 -Wall -Wextra)
zcast_generate_messages(zcast-bench-pypeer TYPES sensor_msgs/Image)
