#!/bin/sh
# socket() loads the module by its alias, for each family (the run does
# not load it: --no-load). The first socket of a program loads the module
# for the rest of it, so each family runs on its own (the harness's
# variant filter) with the module unloaded before it. One guest.
. "$(dirname "$0")/lib.sh"
lab_on 0 "homa_test_autoload -v ipv4"
lab_on 0 "rmmod homa"
lab_on 0 "homa_test_autoload -v ipv6"
