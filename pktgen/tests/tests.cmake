# Unit tests of libhomapkt and homa-pktgen (label quick), and the lab tests.
foreach(t test_frame test_msg test_wrap)
  add_executable(${t} tests/${t}.c)
  target_link_libraries(${t} PRIVATE homapkt)
  target_include_directories(${t} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/tests)
  add_test(NAME pktgen_${t} COMMAND ${t})
  set_tests_properties(pktgen_${t} PROPERTIES LABELS quick)
endforeach()

add_test(NAME pktgen_cli_flags
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_cli.sh
          $<TARGET_FILE:homa-pktgen>)
set_tests_properties(pktgen_cli_flags PROPERTIES LABELS quick)

# No dependency cycle among the runner's files (main.c, which only defines
# main(), cannot close one).
add_test(NAME pktgen_runner_acyclic
  COMMAND ${HOMA_REPO_DIR}/kernel/tests/file-deps
          $<TARGET_OBJECTS:homa_scenario_runner>
  COMMAND_EXPAND_LISTS)
set_tests_properties(pktgen_runner_acyclic PROPERTIES LABELS quick)

# Every scenario file parses: syntax and step keys only (--check builds
# and sends no packet). tcpdump reads the packets the scenarios write in
# pktgen_scenario_runner (test_runner.sh); the dissector decodes them from
# pcaps/crafted/.
# The kernel's scenarios live with its tests (kernel/selftests/scenarios/
# by feature, fuzz/ and fuzz-soak/); pcapgen/ is the crafter's own.
set(HP_KERNEL_SCN ${HOMA_REPO_DIR}/kernel/selftests)
add_test(NAME pktgen_scenarios_parse
  COMMAND homa-scenario --check ${HP_KERNEL_SCN}/scenarios ${CMAKE_CURRENT_SOURCE_DIR}/pcapgen
          ${HP_KERNEL_SCN}/fuzz ${HP_KERNEL_SCN}/fuzz-soak)
add_test(NAME pktgen_scenario_runner
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_runner.sh
          $<TARGET_FILE:homa-scenario> ${HP_KERNEL_SCN})
set_tests_properties(pktgen_scenarios_parse pktgen_scenario_runner
  PROPERTIES LABELS quick)

# The committed pcaps/crafted/ is what the scenarios write now.
add_test(NAME pktgen_crafted_pcaps_current
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/crafted_current.sh
          $<TARGET_FILE:homa-scenario> ${HOMA_REPO_DIR}
          ${HOMA_REPO_DIR}/pcaps/crafted)
set_tests_properties(pktgen_crafted_pcaps_current PROPERTIES LABELS quick)

# Writes pcaps/crafted/ (not a test: `cmake --build . -t pktgen_pcaps`).
add_custom_target(pktgen_pcaps
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/make-pcaps $<TARGET_FILE:homa-scenario>
  DEPENDS homa-scenario)

# The lab tests of the kernel's behaviour at the wire (the scenarios and
# fuzz runs) are kernel/selftests/lab/wire_*.sh. This one tests the
# crafter itself on a live tap, with an echo server on guest 0 (the
# selftests' one, which the top-level build defines before adding pktgen/).
if(TARGET homa_echo_server)
  set(HP_SERVERS
    "homa_echo_server --port 5000 --family 4 --daemon --pidfile /tmp/e4.pid && homa_echo_server --port 5001 --family 6 --daemon --pidfile /tmp/e6.pid")
  # The servers are stopped from the host step itself, so they stop even
  # when a case fails (a failed step ends the run's steps).
  set(HP_STOP "\"$HOMALAB_LAB\" exec 0 'kill $(cat /tmp/e4.pid) $(cat /tmp/e6.pid)'")
  # hp_lab_test(NAME KERNEL LAB_TIMEOUT CTEST_TIMEOUT LABELS CMD): one boot
  # of guest 0 with the echo servers, then CMD on the host.
  function(hp_lab_test name kernel lab_timeout ctest_timeout labels cmd)
    add_test(NAME ${name}
      COMMAND ${HOMA_LAB} run --kernel ${kernel} --guests 1 --timeout ${lab_timeout}
              --file $<TARGET_FILE:homa_echo_server> --on 0 "${HP_SERVERS}"
              --host "${cmd}; rc=$?; ${HP_STOP}; exit $rc")
    set_tests_properties(${name} PROPERTIES
      LABELS "${labels}" TIMEOUT ${ctest_timeout} RUN_SERIAL TRUE)
  endfunction()
  # -i delivers every frame and --pps paces, counted by the tap's own
  # statistics; homa-pktgen's transmit ring injects at least as fast as
  # tcpreplay --topspeed on the same tap (best of 5 rounds each; the ratio
  # is printed as measured), --qdisc-bypass delivers every frame, a capture
  # on the tap sees the injected frames; the -f/-C/-W capture works (an echo
  # server gives the guest a socket on port 5000 to answer UNKNOWN from).
  hp_lab_test(lab_pktgen_inject_rate_distro distro 300 600 "lab;bench"
    "sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/rate.sh $<TARGET_FILE:homa-pktgen>")
endif()
