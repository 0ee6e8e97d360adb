# Measures: memory of N asyncdispatch futures alive at once, each from sleepAsync on the one
# global dispatcher, joined with all() and waitFor.
import std/[asyncdispatch, os, strutils]

proc usage(msg: string) =
  stderr.writeLine msg
  stderr.writeLine "usage: nim-task N [SLEEP_SECONDS]  (N >= 0; sleep default 10, may be fractional)"
  quit 2

# The proof attack's switches (tasks/README.md, "Attacking the proofs"); measured runs have neither.
# MEMRUN_TRACE_WAITS=1: each future comes from traced, which writes `start` just before its
# sleepAsync and `end` once it completes, on stdout, where `ready` goes. MEMRUN_STALL_MS=K: main
# stalls K ms (os.sleep blocks the thread; the dispatcher does not run) after the last sleepAsync and
# again just before `ready`.
proc traced(ms: float) {.async.} =
  stdout.write "start\n"
  await sleepAsync(ms)
  stdout.write "end\n"

proc stall(ms: int) =
  if ms > 0:
    sleep(ms)

proc main() =
  let args = commandLineParams()
  if args.len notin 1..2:
    usage "wrong number of arguments"
  var n = 0
  if args[0].len == 0 or not args[0].allCharsInSet(Digits):  # rejects "-1", "+1", " 1"
    usage "N must be a non-negative integer: " & args[0]
  try:
    n = parseInt(args[0])
  except ValueError:  # overflow
    usage "N must be a non-negative integer: " & args[0]
  var seconds = 10.0
  if args.len == 2:
    try:
      seconds = parseFloat(args[1])
    except ValueError:
      seconds = NaN
    if not (seconds >= 0 and seconds < Inf):  # NaN fails both
      usage "SLEEP_SECONDS must be a non-negative number: " & args[1]

  let trace = getEnv("MEMRUN_TRACE_WAITS") == "1"
  var stallMs = 0
  try:
    stallMs = parseInt(getEnv("MEMRUN_STALL_MS", "0"))
  except ValueError:
    discard
  var futures = newSeq[Future[void]](n)
  for i in 0 ..< n:
    # float milliseconds
    futures[i] = if trace: traced(seconds * 1000) else: sleepAsync(seconds * 1000)
  stall(stallMs)
  # sleepAsync has put each timer in the dispatcher's heap, and a timer completes its future only
  # when the dispatcher polls (in waitFor below): no wait can end before `ready`. Self-contained.
  stall(stallMs)
  stdout.write "ready ", n, "\n"
  stdout.flushFile
  waitFor all(futures)

main()
