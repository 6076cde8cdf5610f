# Tests of the code's structure (issue 21): the layer rule the build enforces, and the exported
# symbols.
set(zt_layer_args)
foreach(layer ${ZCAST_LAYERS})
  # The layers it may use: itself and the closure of ZCAST_LAYER_DEPS_<layer>.
  set(below ${layer})
  set(todo ${ZCAST_LAYER_DEPS_${layer}})
  while(todo)
    list(POP_FRONT todo dep)
    if(NOT dep IN_LIST below)
      list(APPEND below ${dep})
      list(APPEND todo ${ZCAST_LAYER_DEPS_${dep}})
    endif()
  endwhile()
  string(REPLACE ";" "|" below "${below}")
  list(APPEND zt_layer_args "-DBELOW_${layer}=${below}"
    "-DINC_${layer}=$<JOIN:$<TARGET_PROPERTY:zcast_${layer},INCLUDE_DIRECTORIES>,|>")
endforeach()
string(REPLACE ";" "|" zt_layers "${ZCAST_LAYERS}")
add_test(NAME layer_rule COMMAND ${CMAKE_COMMAND} -DCC=${CMAKE_C_COMPILER} -DSRC=${PROJECT_SOURCE_DIR}
  "-DLAYERS=${zt_layers}" ${zt_layer_args} -DOUT=${CMAKE_CURRENT_BINARY_DIR}/layer_rule
  -P ${CMAKE_CURRENT_SOURCE_DIR}/structure/layer_rule.cmake)

# The exported symbols: src/zcast.map, the headers' ZCAST_API functions and nm -D agree.
add_test(NAME exports COMMAND ${CMAKE_COMMAND} -DSRC=${PROJECT_SOURCE_DIR} -DLIB=$<TARGET_FILE:zcast>
  -DNM=${CMAKE_NM} -P ${CMAKE_CURRENT_SOURCE_DIR}/structure/exports.cmake)
