# Tick workload (tasks/README.md, "Tick protocol"): N async procs on the one global asyncdispatch
# dispatcher, each with its own seq[byte] state, waking with sleepAsync at its absolute due times.
# One thread: plain globals, no atomics.
import std/[asyncdispatch, bitops, math, monotimes, os, strutils, times]

let t0 = getMonoTime()

proc usage(msg: string) =
  stderr.writeLine msg
  stderr.writeLine "usage: nim-tick N SLEEP_SECONDS STATE_BYTES PERIOD_US  (N >= 0, SLEEP >= 0 may be fractional, STATE_BYTES >= 0, PERIOD_US >= 1)"
  quit 2

# Read-only once main has set them. Times are µs since t0; W and E are 0 until main sets them
# (both are at least one period after t0).
var nTasks, stateBytes: int
var period: int64
var readyCount = 0            # procs that finished their first wake's work
var allReady: Future[void]    # completed by the proc whose first wake is the N-th; main waits for it
var windowStart, windowEnd: int64
var achieved: int64
var checksumTotal: uint32     # unsigned: wraps mod 2^32
var hist: array[3328, uint64]

proc sinceT0Us(): int64 = (getMonoTime() - t0).inMicroseconds

# Exact below 256 µs, then 128 buckets per power of two (tasks/README.md).
proc bucket(late: int64): int =
  let v = min(late, 0xFFFF_FFFF'i64)
  if v < 256: return int(v)
  let m = fastLog2(v)
  256 + (m - 8) * 128 + int(v shr (m - 7)) - 128

proc ticker(i: int) {.async.} =
  var state = newSeq[byte](stateBytes)
  for j in 0 ..< stateBytes:
    state[j] = byte(1 + (i * 31 + j) mod 251)
  let off = int64(i) * period div int64(nTasks)
  var last = 0'u32
  var k = 1'i64
  while true:
    let due = off + k * period
    if windowEnd != 0 and due >= windowEnd: break
    # sleepAsync has no absolute form: it takes milliseconds, int or float; a float keeps
    # nanoseconds (its timer is getMonoTime() + ms * 10^6 ns), so the time left to the due time is
    # passed exactly and the timer is never set before the due time. The dispatcher's epoll_wait
    # timeout is whole ms, rounded up (processTimers: inMilliseconds + 1), so no wake is early
    # either; the sleep program passes a float too. A due time already past wakes at once.
    let left = due * 1000 - (getMonoTime() - t0).inNanoseconds
    if left > 0:
      await sleepAsync(float(left) / 1e6)
    let now = sinceT0Us()
    let late = max(now - due, 0)
    var c = 0'u32
    for b in state.mitems:    # unsigned arithmetic wraps: sum mod 2^32, byte + 1 mod 256
      c += uint32(b)
      b += 1
    last = c
    if k == 1:
      inc readyCount
      if readyCount == nTasks: allReady.complete()
    if windowEnd != 0:        # main may have set it during the sleep
      if due >= windowStart and due < windowEnd:
        inc hist[bucket(late)]
        if now < windowEnd: inc achieved
      if now >= windowEnd: break
    inc k
  checksumTotal += last

proc parseCount(arg, what: string): int =
  if arg.len == 0 or not arg.allCharsInSet(Digits):  # rejects "-1", "+1", " 1"
    usage what & " must be a non-negative integer: " & arg
  try:
    result = parseInt(arg)
  except ValueError:  # overflow
    usage what & " must be a non-negative integer: " & arg

proc main() =
  let args = commandLineParams()
  if args.len != 4:
    usage "wrong number of arguments"
  let n = parseCount(args[0], "N")
  var seconds = NaN
  try:
    seconds = parseFloat(args[1])
  except ValueError:
    discard
  if not (seconds >= 0 and seconds < 9.2e6):  # NaN fails both
    usage "SLEEP_SECONDS must be a number from 0 to 9.2e6: " & args[1]
  stateBytes = parseCount(args[2], "STATE_BYTES")
  let p = parseCount(args[3], "PERIOD_US")
  if p < 1 or p > 1_000_000_000_000:
    usage "PERIOD_US must be an integer from 1 to 10^12: " & args[3]
  period = int64(p)
  nTasks = n
  let sleepUs = int64(round(seconds * 1e6))

  allReady = newFuture[void]("allReady")
  var futures = newSeq[Future[void]](n)
  for i in 0 ..< n:
    futures[i] = ticker(i)
  if n > 0:
    waitFor allReady
  let tReady = sinceT0Us()
  let w = (tReady div period + 1) * period
  let k = max((tReady + sleepUs - w) div period, 0)
  windowStart = w
  windowEnd = w + k * period
  stdout.write "ready ", n, "\n"
  stdout.flushFile
  waitFor all(futures)
  var line = "tick periods " & $k & " asked " & $(int64(n) * k) & " achieved " & $achieved &
    " checksum " & $checksumTotal & "\nlateness_us"
  for b, c in hist:
    if c != 0: line.add " " & $b & ":" & $c
  stdout.write line, "\n"
  stdout.flushFile

main()
