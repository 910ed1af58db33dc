#!/bin/sh
# socket() loads the module by its alias, for each family (the run does
# not load it: --no-load). One guest.
. "$(dirname "$0")/lib.sh"
lab_on 0 "homa_test_autoload --family 4"
lab_on 0 "rmmod homa"
lab_on 0 "homa_test_autoload --family 6"
