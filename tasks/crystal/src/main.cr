# Measures: memory of N Crystal fibers alive at once (spawn), each in sleep, joined by receiving N
# times from one Channel(Nil). Default single-threaded scheduler; each fiber has its own mmap'd stack.

USAGE = "usage: crystal-task N [SLEEP_SECONDS]  (N >= 0; sleep default 10, may be fractional)"

def usage(msg : String) : NoReturn
  STDERR.puts msg
  STDERR.puts USAGE
  exit 2
end

usage("wrong number of arguments") unless 1 <= ARGV.size <= 2
arg = ARGV[0]
# Digits only: to_i? alone would accept "+1" and "-1".
n = arg.each_char.all?(&.ascii_number?) ? arg.to_i? : nil
usage("N must be a non-negative integer: #{arg}") if n.nil?
seconds = 10.0
if sleep_arg = ARGV[1]?
  seconds = sleep_arg.to_f?(whitespace: false) || Float64::NAN
  # NaN fails both comparisons; Time::Span holds Int64 nanoseconds.
  usage("SLEEP_SECONDS must be a non-negative number: #{sleep_arg}") unless seconds >= 0 && seconds < 9.2e9
end
span = seconds.seconds

# The proof attack's switches (tasks/README.md, "Attacking the proofs"); measured runs have neither.
# MEMRUN_TRACE_WAITS=1: each fiber also writes `start` just before its sleep and `end` after it, on
# STDOUT, where `ready` goes. MEMRUN_STALL_MS=K: main holds the thread K ms (a spin: a Crystal
# `sleep` would let the scheduler run) after the last spawn and again just before `ready`.
TRACE = ENV["MEMRUN_TRACE_WAITS"]? == "1"
STALL = (ENV["MEMRUN_STALL_MS"]?.try(&.to_i?) || 0).milliseconds

def stall : Nil
  deadline = Time.monotonic + STALL
  while Time.monotonic < deadline
  end
end

done = Channel(Nil).new
n.times do
  if TRACE
    spawn do
      STDOUT.print "start\n"
      sleep span
      STDOUT.print "end\n"
      done.send(nil)
    end
  else
    spawn do
      sleep span
      done.send(nil)
    end
  end
end
stall
# The default scheduler is one thread and resumes runnable fibers in spawn order (FIFO), before it
# polls the event loop: when this fiber, spawned last, runs, each fiber above has run up to its
# `sleep`, so all N are waiting. And none has woken: a sleeping fiber is resumed only from the event
# loop, which runs only when no fiber is runnable, and main is runnable from the send below until
# it has printed `ready`. Self-contained.
started = Channel(Nil).new
spawn { started.send(nil) }
started.receive
stall
STDOUT.puts "ready #{n}"
STDOUT.flush
n.times { done.receive }
