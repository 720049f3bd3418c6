#!/usr/bin/env bash
# Tests of the trace readers in bench/lib/e2e_site.sh (cpu_of_threads, entry_to_return_each) on
# traces written in tracefs's format, and of children_cpu_ms on bash's `times`: the numbers the
# A/B scripts report come from them.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../bench/lib/e2e_site.sh
source "$here/../../bench/lib/e2e_site.sh"

failures=0
times_file=$(mktemp)
trap 'rm -f "$times_file" "$times_file.after"' EXIT
check() { # WHAT GOT WANT
  if [[ "$2" == "$3" ]]; then
    echo "ok: $1"
  else
    echo "FAIL: $1: got \"$2\", want \"$3\""
    failures=$((failures + 1))
  fi
}

# Thread 301 is born under its creator's name (rpcmgr), renames itself srvcn, leaves the CPU
# and comes back: 0.4 + 0.3 ms. Thread 302 runs 1.0 ms in one stretch and exits. The creator's
# own stretch (100) and a stretch of 303 still on a CPU when the trace ends do not count.
switches='# tracer: nop
#
# entries-in-buffer/entries-written: 9/9   #P:2
#
          <idle>-0       [000] d..2.  100.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=rpcmgr next_pid=100 next_prio=120
          rpcmgr-100     [000] d..2.  100.000200: sched_switch: prev_comm=rpcmgr prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=rpcmgr next_pid=301 next_prio=120
           srvcn-301     [000] d..2.  100.000600: sched_switch: prev_comm=srvcn prev_pid=301 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
          <idle>-0       [001] d..2.  100.001000: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=srvcn next_pid=301 next_prio=120
           srvcn-301     [001] d..2.  100.001300: sched_switch: prev_comm=srvcn prev_pid=301 prev_prio=120 prev_state=X ==> next_comm=swapper/1 next_pid=0 next_prio=120
          <idle>-0       [000] d..2.  100.002000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=rpcmgr next_pid=302 next_prio=120
           srvcn-302     [000] d..2.  100.003000: sched_switch: prev_comm=srvcn prev_pid=302 prev_prio=120 prev_state=X ==> next_comm=swapper/0 next_pid=0 next_prio=120
          <idle>-0       [001] d..2.  100.004000: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=srvcn next_pid=303 next_prio=120'
check "the CPU time of two short threads, first stretches included" \
  "$(cpu_of_threads srvcn <<<"$switches")" "1.700 2"
check "a stretch that began before the trace does not count" \
  "$(grep -v 'next_comm=rpcmgr next_pid=301 ' <<<"$switches" | cpu_of_threads srvcn)" "1.300 2"
check "a trace without the thread's switches reads zero" \
  "$(cpu_of_threads nosuch <<<"$switches")" "0.000 0"

lost=$(sed 's|9/9|9/12|' <<<"$switches" | cpu_of_threads srvcn 2>&1 >/dev/null)
check "a trace that lost events says so" "$lost" "cpu_of_threads: the trace lost 3 events"

# Two threads' calls interleaved: each return pairs with its own thread's entry.
calls='           srvcn-301     [000] ..... 200.000100: sel_in: (0x5555)
           srvcn-302     [001] ..... 200.000200: sel_in: (0x5555)
           srvcn-301     [000] ..... 200.000400: sel_out: (0x5555 <- 0x6666)
           srvcn-302     [001] ..... 200.001200: sel_out: (0x5555 <- 0x6666)'
check "entry to return, each thread its own" \
  "$(entry_to_return_each sel 1e6 %.1f <<<"$calls" | paste -sd' ')" "300.0 1000.0"

# bash's `times`: the shell's own line, then its waited-for children's (minutes and seconds).
printf '0m0.004s 0m0.004s\n1m2.500s 0m0.125s\n' >"$times_file"
check "the children's CPU from bash's times, minutes included" \
  "$(children_cpu_ms "$times_file")" "62625.0"
# And in this shell for real: a child that burns CPU adds to it, and the reading is this shell's.
times >"$times_file"
before=$(children_cpu_ms "$times_file")
(
  # EPOCHREALTIME in µs: SECONDS counts whole seconds and may turn over at once.
  end=$((${EPOCHREALTIME/./} + 1000000))
  while ((${EPOCHREALTIME/./} < end)); do :; done
)
times >"$times_file"
after=$(children_cpu_ms "$times_file")
check "a child that spins for a second adds at least 0.2 s" \
  "$(awk -v a="$before" -v b="$after" 'BEGIN { print (b - a >= 200) ? "yes" : "no: " b - a }')" "yes"
printf '0m0.000s 0m0.000s\n0m1.000s 0m0.500s\n' >"$times_file.after"
printf '0m0.000s 0m0.000s\n0m0.250s 0m0.050s\n' >"$times_file"
check "the children's CPU between two readings, per submission" \
  "$(children_cpu_per_run_ms "$times_file" "$times_file.after" 4)" "300.000"

((failures == 0)) || exit 1
