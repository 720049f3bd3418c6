# Packaging.cmake: man pages, documentation and examples to install, and the two Debian packages
# (CPack DEB, one component each) that `package` builds from this tree.
#
# Install layout (package prefix /usr), by package:
#   slurm-budget-client (component client): what sbudget needs, on any host with Slurm's clients
#     /usr/bin/sbudget
#     /usr/share/man/man1/sbudget.1.gz, /usr/share/man/man5/budget.conf.5.gz   (gzip -9n)
#     /usr/share/doc/slurm-budget-client/  docs/user-guide.md and its figure (user-guide-plot.svg)
#   slurm-budget (component plugins): what slurmctld loads, and the admins' documentation
#     BUDGET_SLURM_PLUGIN_DIR (/usr/lib/<multiarch>/slurm-wlm)  the plugins, Slurm's stock PluginDir
#     /usr/share/man/man8/*.gz             every docs/*.8, and job_submit_budget.8.gz: a link to
#                                          priority_budget.8.gz
#     /usr/share/doc/slurm-budget/         README.md, the other docs/*.md and their figures
#     /usr/share/doc/slurm-budget/examples/  docs/examples/budget.conf and slurm.conf.example
# Every install() in the tree names one of these two components; one without would add a third
# package, slurm-budget-Unspecified (tests/integration/package_install.sh fails on it).
#
# The packages (`cmake --build BUILD --target package`, or `cpack` in BUILD) exist only with
# BUDGET_BUILD_PLUGIN=ON. slurm-budget Depends on exactly the slurmctld version the plugins were
# built against (the dpkg version SlurmSource.cmake read), because Slurm loads a plugin only into
# the release it was built for, and on exactly its own version of slurm-budget-client: the admin
# commands the controller needs (sbudget check-config, sbudget ledger import) live in sbudget.
# slurm-budget-client does not depend on slurmctld, so login nodes can have sbudget without a
# controller; it Recommends slurm-client, whose sacct, sacctmgr, scontrol, sprio and squeue its
# views run. The other Depends (libc6, libstdc++6, libfmt9, ...) come from dpkg-shlibdeps when it
# is installed (dpkg-dev), else from a fixed list per package. The .debs are written into BUILD as
# <package>_<version>-<release>_<arch>.deb, both with release "1+slurm<slurmctld's version>" so
# that builds for two Slurm releases never share a version. sbudget itself does not depend on
# Slurm's version, but one version for both packages, from the same tree, keeps slurm-budget's
# "slurm-budget-client (= ...)" exact and simple: a controller always runs the sbudget built with
# its plugins (same core, same ledger format), and a login node may run any build.
#
# budget.conf(5) goes with sbudget, not with the plugins: sbudget reads budget.conf too
# (check-config, the views, ledger import, replay --config) and sbudget(1) points to
# budget.conf(5), so a login node needs the page; a controller still gets it, since slurm-budget
# depends on the client. The user guide goes with sbudget for the same reason (sbudget(1) names
# it); the admins' guides stay with the plugins.
include_guard(GLOBAL)

set(BUDGET_DEB_MAINTAINER "slurm-budget maintainers <root@localhost>" CACHE STRING
  "Maintainer field of the Debian package (name <address>)")
set(BUDGET_DEB_RELEASE "1" CACHE STRING
  "Debian revision of the package, before the +slurm<version> suffix")

set(_budget_doc_dir ${CMAKE_INSTALL_DATAROOTDIR}/doc/slurm-budget)
set(_budget_client_doc_dir ${CMAKE_INSTALL_DATAROOTDIR}/doc/slurm-budget-client)
# What goes into slurm-budget-client besides sbudget (src/cli); the rest is slurm-budget's.
set(_budget_client_man_pages sbudget.1 budget.conf.5)
set(_budget_client_docs ${PROJECT_SOURCE_DIR}/docs/user-guide.md
  ${PROJECT_SOURCE_DIR}/docs/user-guide-plot.svg)

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
  if(_name IN_LIST _budget_client_man_pages)
    set(_component client)
  else()
    set(_component plugins)
  endif()
  install(FILES ${_copy}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man${_section}
    COMPONENT ${_component})
endforeach()
add_custom_target(budget_man_pages ALL DEPENDS ${_budget_man_outputs})

# priority_budget(8) documents job_submit_budget too (its NAME line): a symbolic link makes
# `man job_submit_budget` find it, as dh_link would. Not a ".so man8/priority_budget.8" stub:
# `man -l` cannot resolve that outside the man tree, so the page would not render on its own.
set(_budget_man_link ${CMAKE_BINARY_DIR}/man/man8/job_submit_budget.8.gz)
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/man/man8)
file(CREATE_LINK priority_budget.8.gz ${_budget_man_link} SYMBOLIC)
install(FILES ${_budget_man_link} DESTINATION ${CMAKE_INSTALL_MANDIR}/man8 COMPONENT plugins)

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

file(GLOB _budget_docs CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/docs/*.md ${PROJECT_SOURCE_DIR}/docs/*.svg)
list(REMOVE_ITEM _budget_docs ${_budget_client_docs})
install(FILES ${_budget_client_docs} DESTINATION ${_budget_client_doc_dir} COMPONENT client)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${_budget_docs} DESTINATION ${_budget_doc_dir}
  COMPONENT plugins)
install(FILES
  ${PROJECT_SOURCE_DIR}/docs/examples/budget.conf ${PROJECT_SOURCE_DIR}/slurm.conf.example
  DESTINATION ${_budget_doc_dir}/examples COMPONENT plugins)

if(NOT BUDGET_BUILD_PLUGIN)
  return()  # no plugin, no slurmctld version to pin: no package
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
set(CPACK_DEB_COMPONENT_INSTALL ON)  # one .deb per component
set(CPACK_PACKAGE_NAME slurm-budget)
set(CPACK_PACKAGE_VENDOR "slurm-budget")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${BUDGET_DEB_MAINTAINER}")
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR})
# The plugin directory is absolute: install into a staging DESTDIR with prefix /usr, never
# into the live system.
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)

# Common to both packages.
set(CPACK_DEBIAN_PACKAGE_RELEASE "${BUDGET_DEB_RELEASE}+slurm${_budget_slurm_tag}")
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${BUDGET_DEB_MAINTAINER}")
find_program(BUDGET_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(BUDGET_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  set(_budget_plugin_libs "")
else()
  message(STATUS "dpkg-shlibdeps not found (dpkg-dev): the packages list their libraries by hand")
  set(CPACK_DEBIAN_CLIENT_PACKAGE_DEPENDS "libc6, libstdc++6, libgcc-s1, libfmt9, zlib1g")
  # The plugins carry their own C++ runtime (src/slurm/CMakeLists.txt): libc alone.
  set(_budget_plugin_libs ", libc6")
endif()

# slurm-budget-client: sbudget, for login nodes as well as controllers.
set(CPACK_DEBIAN_CLIENT_PACKAGE_NAME slurm-budget-client)
set(CPACK_DEBIAN_CLIENT_FILE_NAME DEB-DEFAULT)
# Each description: the summary line, then the extended text wrapped for dpkg (CPack indents
# each of its lines by one space).
string(JOIN "\n" CPACK_DEBIAN_CLIENT_DESCRIPTION
  "GPU-hour project budgets on Slurm: the sbudget command"
  "sbudget shows where a project stands against its linear monthly schedule of"
  "GPU hours, why a job waits, and each project's months; it checks budget.conf,"
  "simulates schedules, replays workloads and imports past usage into the ledger"
  "of priority/budget. It runs on any host with Slurm's client commands (a login"
  "node is enough); the plugins themselves are in slurm-budget.")
set(CPACK_DEBIAN_CLIENT_PACKAGE_RECOMMENDS "slurm-client")
# Before the split, slurm-budget held /usr/bin/sbudget and its man pages, at this same version:
# let the client take them over when a controller installs both new packages over the old one.
set(CPACK_DEBIAN_CLIENT_PACKAGE_REPLACES "slurm-budget")

# slurm-budget: the plugins, for slurmctld hosts; they need sbudget for the admin commands.
set(CPACK_DEBIAN_PLUGINS_PACKAGE_NAME slurm-budget)
set(CPACK_DEBIAN_PLUGINS_FILE_NAME DEB-DEFAULT)
string(JOIN "\n" CPACK_DEBIAN_PLUGINS_DESCRIPTION
  "GPU-hour project budgets as Slurm scheduling priority"
  "priority/budget replaces priority/multifactor in slurmctld: each project (a Slurm"
  "account) has a credit of GPU hours to spend along a linear monthly schedule with"
  "grace, and its position against that line is its fair-share factor."
  "job_submit/budget refuses or redirects the jobs of projects that have not"
  "started, have used up their credit or have ended. The sbudget command is in"
  "slurm-budget-client."
  "Built for slurmctld ${_budget_deb_slurmctld} only: rebuild after every Slurm upgrade.")
set(CPACK_DEBIAN_PLUGINS_PACKAGE_DEPENDS
  "slurmctld (= ${_budget_deb_slurmctld})${_budget_plugin_libs}")
# CPack adds "slurm-budget-client (= <this version>-<this release>)" in front of those.
set(CPACK_COMPONENT_PLUGINS_DEPENDS client)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_DEBIAN_PLUGINS_PACKAGE_ENHANCES "slurmctld")

set(CPACK_SOURCE_GENERATOR TXZ)
set(CPACK_SOURCE_IGNORE_FILES "/build/" "/\\\\.git/")

include(CPack)
