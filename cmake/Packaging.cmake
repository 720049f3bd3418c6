# Packaging.cmake: man pages, documentation and examples to install, and the Debian package
# (CPack DEB) of priority_budget.so, job_submit_budget.so, sbudget and those files.
#
# Install layout (package prefix /usr):
#   BUDGET_SLURM_PLUGIN_DIR (/usr/lib/<multiarch>/slurm-wlm)  the plugins, Slurm's stock PluginDir
#   /usr/bin/sbudget
#   /usr/share/man/man{1,5,8}/*.gz         every docs/*.1, docs/*.5, docs/*.8, gzip -9n
#   /usr/share/man/man8/job_submit_budget.8.gz  a link to priority_budget.8.gz
#   /usr/share/doc/slurm-budget/           README.md, docs/*.md and the figures they show (docs/*.svg)
#   /usr/share/doc/slurm-budget/examples/  docs/examples/budget.conf and slurm.conf.example
#
# The package (`cmake --build BUILD --target package`, or `cpack` in BUILD) exists only with
# BUDGET_BUILD_PLUGIN=ON: it is named slurm-budget, and Depends on exactly the slurmctld version
# the plugins were built against (the dpkg version SlurmSource.cmake read), because Slurm loads
# a plugin only into the release it was built for. The other Depends (libc6, libstdc++6,
# libfmt9, ...) come from dpkg-shlibdeps when it is installed (dpkg-dev), else from a fixed
# list. The .deb is written into BUILD as slurm-budget_<version>-<release>_<arch>.deb, with
# release "1+slurm<slurmctld's version>" so that builds for two Slurm releases never share a
# version.
include_guard(GLOBAL)

set(BUDGET_DEB_MAINTAINER "slurm-budget maintainers <root@localhost>" CACHE STRING
  "Maintainer field of the Debian package (name <address>)")
set(BUDGET_DEB_RELEASE "1" CACHE STRING
  "Debian revision of the package, before the +slurm<version> suffix")

set(_budget_doc_dir ${CMAKE_INSTALL_DATAROOTDIR}/doc/slurm-budget)

# Man pages: compressed at build time, as Debian installs them. The glob picks up a page added
# later (sbudget.1) at the next configure.
file(GLOB _budget_man_sources CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/docs/*.1 ${PROJECT_SOURCE_DIR}/docs/*.5 ${PROJECT_SOURCE_DIR}/docs/*.8)
set(_budget_man_outputs "")
foreach(_page IN LISTS _budget_man_sources)
  get_filename_component(_name ${_page} NAME)
  string(REGEX REPLACE "^.*\\.([0-9])$" "\\1" _section ${_name})
  set(_copy ${CMAKE_BINARY_DIR}/man/man${_section}/${_name})
  add_custom_command(OUTPUT ${_copy}.gz
    COMMAND ${CMAKE_COMMAND} -E copy ${_page} ${_copy}
    COMMAND gzip -9nf ${_copy}
    DEPENDS ${_page}
    COMMENT "Compressing man page ${_name}"
    VERBATIM)
  list(APPEND _budget_man_outputs ${_copy}.gz)
  install(FILES ${_copy}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man${_section})
endforeach()
add_custom_target(budget_man_pages ALL DEPENDS ${_budget_man_outputs})

# priority_budget(8) documents job_submit_budget too (its NAME line): a symbolic link makes
# `man job_submit_budget` find it, as dh_link would. Not a ".so man8/priority_budget.8" stub:
# `man -l` cannot resolve that outside the man tree, so the page would not render on its own.
set(_budget_man_link ${CMAKE_BINARY_DIR}/man/man8/job_submit_budget.8.gz)
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/man/man8)
file(CREATE_LINK priority_budget.8.gz ${_budget_man_link} SYMBOLIC)
install(FILES ${_budget_man_link} DESTINATION ${CMAKE_INSTALL_MANDIR}/man8)

# Every man page renders without a groff or man warning (needs man-db).
find_program(BUDGET_MAN man)
if(BUDGET_BUILD_TESTS AND BUDGET_MAN AND _budget_man_sources)
  add_test(NAME ManPages.RenderWithoutWarnings
    COMMAND sh -c [[
      status=0
      for page in "$@"; do
        out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
        if [ -n "$out" ]; then echo "$page:"; echo "$out"; status=1; fi
      done
      exit $status]] sh ${_budget_man_sources})
endif()

file(GLOB _budget_docs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md ${PROJECT_SOURCE_DIR}/docs/*.svg)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${_budget_docs} DESTINATION ${_budget_doc_dir})
install(FILES ${PROJECT_SOURCE_DIR}/docs/examples/budget.conf ${PROJECT_SOURCE_DIR}/slurm.conf.example
  DESTINATION ${_budget_doc_dir}/examples)

if(NOT BUDGET_BUILD_PLUGIN)
  return()  # no plugin, no slurmctld version to pin: nothing worth a package
endif()

# The same query as SlurmSource.cmake (its variables live in src/slurm's scope).
execute_process(
  COMMAND ${BUDGET_DPKG_QUERY} -W --showformat=\${Version} slurmctld
  OUTPUT_VARIABLE _budget_deb_slurmctld
  RESULT_VARIABLE _budget_rc
  ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _budget_rc EQUAL 0 OR _budget_deb_slurmctld STREQUAL "")
  message(FATAL_ERROR "Packaging: cannot read the installed slurmctld version with dpkg-query")
endif()
# A Debian revision allows only alphanumerics and "+.~": 1:22.05.8-4+deb12u3 -> 22.05.8.4+deb12u3.
string(REGEX REPLACE "^[0-9]+:" "" _budget_slurm_tag "${_budget_deb_slurmctld}")
string(REPLACE "-" "." _budget_slurm_tag "${_budget_slurm_tag}")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME slurm-budget)
set(CPACK_PACKAGE_VENDOR "slurm-budget")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GPU-hour project budgets as Slurm scheduling priority")
# The extended description, wrapped for dpkg (CPack indents each line by one space).
string(JOIN "\n" CPACK_PACKAGE_DESCRIPTION
  "priority/budget replaces priority/multifactor in slurmctld: each project (a Slurm"
  "account) has a credit of GPU hours to spend along a linear monthly schedule with"
  "grace, and its position against that line is its fair-share factor."
  "job_submit/budget refuses or redirects the jobs of projects that have not"
  "started, have used up their credit or have ended. sbudget checks budget.conf,"
  "simulates schedules and imports past usage when deploying mid-project."
  "Built for slurmctld ${_budget_deb_slurmctld} only: rebuild after every Slurm upgrade.")
set(CPACK_PACKAGE_CONTACT "${BUDGET_DEB_MAINTAINER}")
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR})
# The plugin directory is absolute: install into a staging DESTDIR with prefix /usr, never
# into the live system.
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_PACKAGE_NAME slurm-budget)
set(CPACK_DEBIAN_PACKAGE_RELEASE "${BUDGET_DEB_RELEASE}+slurm${_budget_slurm_tag}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${BUDGET_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_DEPENDS "slurmctld (= ${_budget_deb_slurmctld})")
set(CPACK_DEBIAN_PACKAGE_ENHANCES "slurmctld")
find_program(BUDGET_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(BUDGET_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  message(STATUS "dpkg-shlibdeps not found (dpkg-dev): the package lists its libraries by hand")
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libc6, libstdc++6, libgcc-s1, libfmt9, zlib1g")
endif()

set(CPACK_SOURCE_GENERATOR TXZ)
set(CPACK_SOURCE_IGNORE_FILES "/build/" "/\\\\.git/")

include(CPack)
