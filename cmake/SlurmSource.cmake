# SlurmSource.cmake: provides `slurm_headers`, the configured Slurm source tree that matches the
# installed slurmctld, so priority_budget.so is built against the exact release it loads into.
#
# Slurm refuses a plugin whose plugin_version differs from its own in major, minor or micro, and
# the plugin needs internal headers (src/slurmctld, src/common) that no package ships. So:
#  - the installed version comes from dpkg (`slurmctld`); a slurmctld upgrade re-runs CMake;
#  - by default the matching source package is fetched with apt-get into
#    ${CMAKE_BINARY_DIR}/slurm-source/ (a cache: kept across configures) and only its two
#    generated headers are configured (scripts/slurm-source.sh);
#  - BUDGET_SLURM_SOURCE_DIR points at an already configured tree instead (nothing is fetched);
#  - either way, configuration stops with FATAL_ERROR unless the tree's SLURM_VERSION_NUMBER and
#    SLURM_VERSION_STRING equal the installed upstream version.
#
# Results:
#  - INTERFACE target `slurm_headers`: includes the tree root and tree/src/common (as SYSTEM,
#    so Slurm's own warnings do not fail a -Werror build). No compile definitions. Its custom
#    property BUDGET_SLURM_VERSION_NUMBER holds the installed version number.
#  - BUDGET_SLURM_TREE: the tree in use. BUDGET_SLURM_VERSION: the installed upstream version
#    (e.g. 22.05.8). BUDGET_SLURM_VERSION_NUMBER: its number as Slurm writes it (e.g. 0x160508).
#  - BUDGET_SLURM_PLUGIN_DIR (cache): Slurm's plugin directory, where libslurmfull.so lives and
#    where priority_budget.so is installed.

include_guard(GLOBAL)

set(BUDGET_SLURM_SOURCE_DIR "" CACHE PATH
  "A configured Slurm source tree (config.h present) to use instead of fetching one; must match the installed slurmctld")
set(BUDGET_SLURM_PLUGIN_DIR "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/slurm-wlm" CACHE PATH
  "Slurm's plugin directory (PluginDir, holds libslurmfull.so); priority_budget.so is installed here")

find_program(BUDGET_DPKG_QUERY dpkg-query)
if(NOT BUDGET_DPKG_QUERY)
  message(FATAL_ERROR "BUDGET_BUILD_PLUGIN needs dpkg-query to read the installed slurmctld version")
endif()
execute_process(
  COMMAND ${BUDGET_DPKG_QUERY} -W --showformat=\${Version} slurmctld
  OUTPUT_VARIABLE _budget_slurm_deb_version
  RESULT_VARIABLE _budget_rc
  ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _budget_rc EQUAL 0 OR _budget_slurm_deb_version STREQUAL "")
  message(FATAL_ERROR
    "BUDGET_BUILD_PLUGIN: slurmctld is not installed, so there is no version to build against "
    "(run scripts/install-deps.sh)")
endif()
# Re-run CMake when the package changes: the plugin must then be rebuilt against the new source.
if(EXISTS /var/lib/dpkg/info/slurmctld.list)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS /var/lib/dpkg/info/slurmctld.list)
endif()

# Debian version [epoch:]upstream-revision -> upstream; Slurm's number is 0xMMmmuu.
string(REGEX REPLACE "^[0-9]+:" "" BUDGET_SLURM_VERSION "${_budget_slurm_deb_version}")
string(REGEX REPLACE "-[^-]*$" "" BUDGET_SLURM_VERSION "${BUDGET_SLURM_VERSION}")
if(NOT BUDGET_SLURM_VERSION MATCHES "^([0-9]+)\\.([0-9]+)\\.([0-9]+)")
  message(FATAL_ERROR "Cannot parse the slurmctld version '${_budget_slurm_deb_version}'")
endif()
math(EXPR BUDGET_SLURM_VERSION_NUMBER
  "(${CMAKE_MATCH_1} << 16) + (${CMAKE_MATCH_2} << 8) + ${CMAKE_MATCH_3}" OUTPUT_FORMAT HEXADECIMAL)
set(_budget_slurm_version_string "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}.${CMAKE_MATCH_3}")

if(BUDGET_SLURM_SOURCE_DIR)
  get_filename_component(BUDGET_SLURM_TREE "${BUDGET_SLURM_SOURCE_DIR}" ABSOLUTE)
  if(NOT EXISTS "${BUDGET_SLURM_TREE}/config.h" OR NOT EXISTS "${BUDGET_SLURM_TREE}/slurm/slurm_version.h")
    message(FATAL_ERROR
      "BUDGET_SLURM_SOURCE_DIR=${BUDGET_SLURM_TREE} is not configured (no config.h or "
      "slurm/slurm_version.h); run: ${PROJECT_SOURCE_DIR}/scripts/slurm-source.sh configure ${BUDGET_SLURM_TREE}")
  endif()
else()
  message(STATUS "Slurm source for slurmctld ${_budget_slurm_deb_version}: ${CMAKE_BINARY_DIR}/slurm-source")
  execute_process(
    COMMAND ${PROJECT_SOURCE_DIR}/scripts/slurm-source.sh fetch
            ${CMAKE_BINARY_DIR}/slurm-source ${_budget_slurm_deb_version}
    OUTPUT_VARIABLE _budget_fetch_out
    RESULT_VARIABLE _budget_rc
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _budget_rc EQUAL 0)
    message(FATAL_ERROR "Could not fetch and configure the Slurm ${_budget_slurm_deb_version} source (see above)")
  endif()
  string(REGEX REPLACE "^.*\n" "" BUDGET_SLURM_TREE "${_budget_fetch_out}")
endif()

# The version the tree was configured for: the number from slurm/slurm_version.h, the string
# from config.h (slurm_version.h carries only the number).
file(STRINGS "${BUDGET_SLURM_TREE}/slurm/slurm_version.h" _budget_line
  REGEX "^#define SLURM_VERSION_NUMBER ")
string(REGEX REPLACE "^#define SLURM_VERSION_NUMBER +" "" _budget_tree_number "${_budget_line}")
file(STRINGS "${BUDGET_SLURM_TREE}/config.h" _budget_line REGEX "^#define SLURM_VERSION_STRING ")
string(REGEX REPLACE "^#define SLURM_VERSION_STRING +\"([^\"]*)\".*" "\\1" _budget_tree_string "${_budget_line}")
string(TOLOWER "${_budget_tree_number}" _budget_tree_number)
string(TOLOWER "${BUDGET_SLURM_VERSION_NUMBER}" BUDGET_SLURM_VERSION_NUMBER)
if(NOT _budget_tree_number STREQUAL BUDGET_SLURM_VERSION_NUMBER
   OR NOT _budget_tree_string STREQUAL _budget_slurm_version_string)
  message(FATAL_ERROR
    "Slurm source ${BUDGET_SLURM_TREE} is version ${_budget_tree_string} "
    "(SLURM_VERSION_NUMBER ${_budget_tree_number}) but the installed slurmctld is "
    "${_budget_slurm_deb_version} (upstream ${BUDGET_SLURM_VERSION}, ${BUDGET_SLURM_VERSION_NUMBER}): "
    "slurmctld would refuse the plugin. Point BUDGET_SLURM_SOURCE_DIR at a matching tree or clear it.")
endif()
message(STATUS "Slurm headers: ${BUDGET_SLURM_TREE} (${_budget_tree_string}, ${_budget_tree_number})")

add_library(slurm_headers INTERFACE)
# For tests that compare a plugin with the installed release (read with get_target_property).
set_target_properties(slurm_headers PROPERTIES
  BUDGET_SLURM_VERSION_NUMBER ${BUDGET_SLURM_VERSION_NUMBER})
target_include_directories(slurm_headers SYSTEM INTERFACE
  ${BUDGET_SLURM_TREE} ${BUDGET_SLURM_TREE}/src/common)
