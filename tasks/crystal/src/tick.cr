# Tick workload (tasks/README.md, "Tick protocol"): N fibers (spawn), each with its own Bytes state,
# waking with sleep(due - Time.monotonic) at its absolute due times (Crystal has no sleep-until;
# see the loop in Tick.run for why it is a loop).
# Default single-threaded scheduler, as main.cr: plain class variables, no atomics.

T0 = Time.monotonic

USAGE = "usage: crystal-tick N SLEEP_SECONDS STATE_BYTES PERIOD_US  (N >= 0, SLEEP >= 0 may be fractional, STATE_BYTES >= 0, PERIOD_US >= 1)"

def usage(msg : String) : NoReturn
  STDERR.puts msg
  STDERR.puts USAGE
  exit 2
end

# Digits only: to_i? alone would accept "+1" and "-1".
def parse_uint(arg : String, what : String) : Int64
  v = arg.each_char.all?(&.ascii_number?) ? arg.to_i64? : nil
  usage("#{what} must be a non-negative integer: #{arg}") if v.nil?
  v
end

# µs since T0 (a Time::Span's whole seconds and nanoseconds, in integers).
def since_t0_us : Int64
  d = Time.monotonic - T0
  d.to_i * 1_000_000 + d.nanoseconds // 1000
end

# Exact below 256 µs, then 128 buckets per power of two (tasks/README.md).
def bucket(v : Int64) : Int32
  v = 0xFFFF_FFFF_i64 if v > 0xFFFF_FFFF_i64
  return v.to_i32 if v < 256
  m = 63 - v.leading_zeros_count
  (256 + (m - 8) * 128 + (v >> (m - 7)) - 128).to_i32
end

class Tick
  # W and E are 0 until main sets them (both are at least one period after T0), in µs since T0.
  class_property n = 0_i64, state_bytes = 0, period = 1_i64
  class_property ready_count = 0_i64, window_start = 0_i64, window_end = 0_i64
  class_property achieved = 0_i64, checksum_total = 0_u32
  class_getter hist = Array(UInt64).new(3328, 0_u64)
  # The fiber whose first wake is the N-th wakes main (capacity 1: the send never blocks); each
  # fiber sends on `done` when it stops, and main joins by receiving N times, as main.cr does.
  class_getter all_ready = Channel(Nil).new(1)
  class_getter done = Channel(Nil).new

  def self.run(i : Int64) : Nil
    state = Bytes.new(@@state_bytes) { |j| (1 + (i * 31 + j) % 251).to_u8 }
    off = i * @@period // @@n
    last = 0_u32
    k = 1_i64
    loop do
      due = off + k * @@period
      break if @@window_end != 0 && due >= @@window_end
      # Crystal's sleep (libevent 2.1 here) can return up to a clock tick early: libevent takes its
      # timers' deadlines from CLOCK_MONOTONIC_COARSE (libevent/libevent#1080; crystal-lang/crystal
      # #17232 saw it in Crystal's own spec), whose tick is 4 ms on this kernel (clock_getres).
      # Seen here (Crystal 1.6.0, libevent 2.1.12) at N=1000 and 10000: wakes up to about 1 ms
      # before their due time, which put `ready` before the last first due time and the window one
      # period early. So the fiber sleeps again for what is left; a due time already past wakes at
      # once. The same coarse clock makes wakes late by up to a tick (p50 about 2 ms here).
      at = T0 + due.microseconds
      while (left = at - Time.monotonic) > Time::Span.zero
        sleep left
      end
      now = since_t0_us
      late = now > due ? now - due : 0_i64
      c = 0_u32
      state.map! { |b| c &+= b; b &+ 1 }
      last = c
      if k == 1
        @@ready_count += 1
        @@all_ready.send(nil) if @@ready_count == @@n
      end
      if @@window_end != 0 # main may have set it during the sleep
        if due >= @@window_start && due < @@window_end
          @@hist[bucket(late)] += 1
          @@achieved += 1 if now < @@window_end
        end
        break if now >= @@window_end
      end
      k += 1
    end
    @@checksum_total &+= last
    @@done.send(nil)
  end
end

usage("wrong number of arguments") unless ARGV.size == 4
n = parse_uint(ARGV[0], "N")
seconds = ARGV[1].to_f?(whitespace: false) || Float64::NAN
usage("SLEEP_SECONDS must be a number from 0 to 9.2e6: #{ARGV[1]}") unless seconds >= 0 && seconds < 9.2e6
state_bytes = parse_uint(ARGV[2], "STATE_BYTES")
usage("STATE_BYTES must be under 2^31 (a Bytes' size is an Int32): #{ARGV[2]}") if state_bytes > Int32::MAX
period = parse_uint(ARGV[3], "PERIOD_US")
usage("PERIOD_US must be an integer from 1 to 10^12: #{ARGV[3]}") unless 1 <= period <= 1_000_000_000_000
sleep_us = (seconds * 1e6).round.to_i64
Tick.n = n
Tick.state_bytes = state_bytes.to_i32
Tick.period = period

n.times { |i| spawn Tick.run(i) }
Tick.all_ready.receive if n > 0
t_ready = since_t0_us
w = (t_ready // period + 1) * period
k = (t_ready + sleep_us - w) // period
k = 0_i64 if k < 0
Tick.window_start = w
Tick.window_end = w + k * period
STDOUT.puts "ready #{n}"
STDOUT.flush
n.times { Tick.done.receive }
STDOUT.print "tick periods #{k} asked #{n * k} achieved #{Tick.achieved} checksum #{Tick.checksum_total}\nlateness_us"
Tick.hist.each_with_index { |c, b| STDOUT.print " #{b}:#{c}" if c != 0 }
STDOUT.print "\n"
STDOUT.flush
