# zcast_generate_messages(<target> TYPES <pkg/Name>... [ROOTS <dir>...] [OUTPUT_DIR <dir>])
#
# Generates C headers for ROS 2 .msg types (and .srv types, as pkg/srv/Name) with zcast-msggen at
# build time and adds their directory to <target>'s include path (docs/TYPED.md). ROOTS are message
# roots laid out as <root>/<pkg>/msg/<Name>.msg (and <root>/<pkg>/srv/<Name>.srv); zcast's own
# definitions (std_msgs, sensor_msgs, std_srvs, ...) are always searched after them. Headers are
# rebuilt when a .msg or .srv file under a root changes.
#
# Found by find_package(zcast) from an installed zcast, or included from zcast's own source tree.
set(ZCAST_MSGGEN_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with Debian's python3-rosidl")
# ZCAST_MSGGEN and ZCAST_MSG_DIR: set by zcastConfig.cmake (installed) or cmake/typed.cmake.

function(zcast_generate_messages target)
  cmake_parse_arguments(Z "" "OUTPUT_DIR;LIBRARY_SOURCE" "TYPES;ROOTS" ${ARGN})
  if(NOT Z_TYPES)
    message(FATAL_ERROR "zcast_generate_messages(${target}): TYPES is empty")
  endif()
  if(NOT Z_OUTPUT_DIR)
    set(Z_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR}/${target}_msgs)
  endif()
  set(args)
  set(deps)
  foreach(root ${Z_ROOTS} ${ZCAST_MSG_DIR})
    get_filename_component(root ${root} ABSOLUTE)
    list(APPEND args -I ${root})
    file(GLOB_RECURSE msgs CONFIGURE_DEPENDS ${root}/*.msg ${root}/*.srv)
    list(APPEND deps ${msgs})
  endforeach()
  get_filename_component(gen_dir ${ZCAST_MSGGEN} DIRECTORY) # its modules: a changed generator regenerates
  file(GLOB gen_py CONFIGURE_DEPENDS ${gen_dir}/msggen/*.py ${gen_dir}/../share/zcast/msggen/*.py)
  list(APPEND deps ${gen_py})
  set(stamp ${Z_OUTPUT_DIR}/.stamp)
  string(REPLACE ";" " " names "${Z_TYPES}")
  set(lib_args)
  if(Z_LIBRARY_SOURCE)
    set(lib_args --library ${Z_LIBRARY_SOURCE})
  endif()
  add_custom_command(OUTPUT ${stamp} ${Z_LIBRARY_SOURCE}
    COMMAND ${ZCAST_MSGGEN_PYTHON} ${ZCAST_MSGGEN} ${args} -o ${Z_OUTPUT_DIR} ${lib_args} ${Z_TYPES}
    COMMAND ${CMAKE_COMMAND} -E touch ${stamp}
    DEPENDS ${deps} ${ZCAST_MSGGEN}
    COMMENT "zcast-msggen: ${names}" VERBATIM)
  add_custom_target(${target}_zcast_msgs DEPENDS ${stamp})
  add_dependencies(${target} ${target}_zcast_msgs)
  target_include_directories(${target} PRIVATE ${Z_OUTPUT_DIR})
endfunction()

# zcast_add_type_library(<name> TYPES <pkg/Name>... [ROOTS <dir>...] [DESTINATION <dir>] [NO_INSTALL])
#
# A type library (include/zcast/types.h, docs/TYPED.md): the MODULE library <name>.so exporting the
# tables of TYPES and of every type they use, installed to DESTINATION (default
# <libdir>/zcast/types, where zcast's tools look; elsewhere: list the directory in
# $ZCAST_TYPE_PATH). zcast's tool, bridge and Python then use these types without being rebuilt.
function(zcast_add_type_library name)
  cmake_parse_arguments(Z "NO_INSTALL" "DESTINATION" "TYPES;ROOTS" ${ARGN})
  if(NOT Z_DESTINATION)
    set(Z_DESTINATION ${CMAKE_INSTALL_LIBDIR}/zcast/types)
  endif()
  set(src ${CMAKE_CURRENT_BINARY_DIR}/${name}_types.c)
  add_library(${name} MODULE ${src})
  set_target_properties(${name} PROPERTIES PREFIX "" C_VISIBILITY_PRESET hidden)
  if(TARGET zcast::zcast)
    target_link_libraries(${name} PRIVATE zcast::zcast)
  else()
    target_link_libraries(${name} PRIVATE zcast)
  endif()
  zcast_generate_messages(${name} TYPES ${Z_TYPES} ROOTS ${Z_ROOTS} LIBRARY_SOURCE ${src})
  if(NOT Z_NO_INSTALL)
    install(TARGETS ${name} LIBRARY DESTINATION ${Z_DESTINATION})
  endif()
endfunction()
