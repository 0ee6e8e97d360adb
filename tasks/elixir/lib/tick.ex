# Tick workload (tasks/README.md, "Tick protocol"): N Elixir processes, each keeping its own state
# as a binary and waking with an absolute timer (:erlang.start_timer/4, abs: true) at its next due
# time; on each wake it checksums the binary and builds the next one with every byte plus one.
# Mode "task" = Task.async for each, joined with Task.await_many; mode "spawn" = raw spawn_monitor,
# joined on one :DOWN per process (as Main's modes).
defmodule Tick do
  import Bitwise

  @usage "usage: elixir -pa ebin -e Tick.main() -- task|spawn N SLEEP_SECONDS STATE_BYTES PERIOD_US  (N >= 0, SLEEP >= 0 may be fractional, STATE_BYTES >= 0, PERIOD_US >= 1)"
  @buckets 3328
  @max_late 0xFFFFFFFF

  # Shared, read through :persistent_term (no copy on a process's heap, nothing captured by a fn):
  #   :t0      t0, :erlang.monotonic_time(:microsecond) at main/1; every other time is µs since t0
  #   :stats   :counters: 1 ready (processes past their first wake's work), 2 achieved, 3 the sum
  #            of the last checksums (taken mod 2^32 at the end; fits the counters' 64 bits)
  #   :hist    :counters: the lateness histogram, bucket b at index b + 1
  #   :window  :atomics: 1 W, 2 E, in µs since t0; 0 means not set yet (both are at least one
  #            period after t0); main writes W, then E, so a process that sees E sees W
  def main(argv \\ System.argv()) do
    t0 = :erlang.monotonic_time(:microsecond)
    {mode, n, sleep_us, size, period} = parse_args(argv)
    :persistent_term.put({__MODULE__, :t0}, t0)
    stats = :counters.new(3, [:write_concurrency])
    hist = :counters.new(@buckets, [:write_concurrency])
    window = :atomics.new(2, signed: true)
    :persistent_term.put({__MODULE__, :stats}, stats)
    :persistent_term.put({__MODULE__, :hist}, hist)
    :persistent_term.put({__MODULE__, :window}, window)

    # Each fn captures its index, offset, size and period (small integers).
    start = fn i -> fn -> task(i, div(i * period, n), size, period) end end
    join = run(mode, n, start)

    # `ready` once every process has done its first wake's work.
    await_ready(stats, n)
    t_ready = now_us()
    w = (div(t_ready, period) + 1) * period
    k = max(0, div(t_ready + sleep_us - w, period))
    :atomics.put(window, 1, w)
    :atomics.put(window, 2, w + k * period)
    IO.puts("ready #{n}")
    join.()

    buckets = for b <- 1..@buckets, (c = :counters.get(hist, b)) > 0, do: " #{b - 1}:#{c}"
    checksum = :counters.get(stats, 3) &&& 0xFFFFFFFF

    IO.write([
      "tick periods #{k} asked #{n * k} achieved #{:counters.get(stats, 2)} checksum #{checksum}\n",
      "lateness_us",
      buckets,
      "\n"
    ])

    System.halt(0)
  end

  # Spawns the N processes; returns the join, run after `ready`.
  defp run("task", n, start) do
    tasks = for i <- 0..(n - 1)//1, do: Task.async(start.(i))
    fn -> Task.await_many(tasks, :infinity) end
  end

  defp run("spawn", n, start) do
    procs = for i <- 0..(n - 1)//1, do: spawn_monitor(start.(i))

    # One :DOWN per handle, taken in the order they arrive (as Main).
    fn ->
      Enum.each(procs, fn _ ->
        receive do
          {:DOWN, _ref, :process, _pid, _reason} -> :ok
        end
      end)
    end
  end

  # A process's state is a binary of size bytes, byte j = 1 + rem(i*31 + j, 251), appended byte by
  # byte (the VM grows one writable binary in place). Binaries are immutable: each wake builds the
  # next one (the BEAM idiom), and the old one is garbage. Above 64 bytes a binary is
  # reference-counted and off the process heap; the old ones are freed when the process next
  # collects its heap.
  defp task(i, off, size, period) do
    loop(init_state(i, 0, size, <<>>), off, period, 1, 0)
  end

  defp init_state(_i, size, size, acc), do: acc
  defp init_state(i, j, size, acc), do: init_state(i, j + 1, size, <<acc::binary, 1 + rem(i * 31 + j, 251)>>)

  defp loop(state, off, period, k, last) do
    due = off + k * period
    window = :persistent_term.get({__MODULE__, :window})
    e = :atomics.get(window, 2)

    if e != 0 and due >= e do
      stop(last)
    else
      now = sleep_until(due)
      late = max(0, now - due)
      sum = checksum(state, 0)
      # An 8-bit segment keeps b + 1 mod 256.
      next = for <<b <- state>>, into: <<>>, do: <<b + 1>>
      if k == 1, do: :counters.add(:persistent_term.get({__MODULE__, :stats}), 1, 1)

      # Read again: main may have set the window during the sleep.
      case :atomics.get(window, 2) do
        0 ->
          loop(next, off, period, k + 1, sum)

        e ->
          if due >= :atomics.get(window, 1) and due < e do
            :counters.add(:persistent_term.get({__MODULE__, :hist}), bucket(late) + 1, 1)
            if now < e, do: :counters.add(:persistent_term.get({__MODULE__, :stats}), 2, 1)
          end

          if now >= e, do: stop(sum), else: loop(next, off, period, k + 1, sum)
      end
    end
  end

  defp stop(last), do: :counters.add(:persistent_term.get({__MODULE__, :stats}), 3, last)

  # The BEAM's own sleep until an absolute time: a timer at a point of Erlang monotonic time, in
  # whole milliseconds (:erlang.start_timer/4 with abs: true), the due time rounded up so that the
  # wake is never early. A wake that still comes before due waits again. Returns the wake time in
  # µs since t0. (Process.sleep, a relative `receive after`, rounds twice, the ms left up and then
  # the timer wheel's tick: 1.5 ms late at the median with one process, against 0.65 ms for this,
  # OTP 25.2.3, measured in Erlang.)
  defp sleep_until(due) do
    now = now_us()

    if now >= due do
      now
    else
      at = ceil_div(:persistent_term.get({__MODULE__, :t0}) + due, 1000)
      ref = :erlang.start_timer(at, self(), :tick, abs: true)

      receive do
        {:timeout, ^ref, :tick} -> sleep_until(due)
      end
    end
  end

  defp now_us, do: :erlang.monotonic_time(:microsecond) - :persistent_term.get({__MODULE__, :t0})

  # Rounded up for either sign (monotonic time may be negative; div truncates toward zero).
  defp ceil_div(a, b) when rem(a, b) > 0, do: div(a, b) + 1
  defp ceil_div(a, b), do: div(a, b)

  # The sum of the bytes, by matching the binary byte by byte (one match context: no sub-binary
  # per byte).
  defp checksum(<<b, rest::binary>>, acc), do: checksum(rest, acc + b)
  defp checksum(<<>>, acc), do: acc &&& 0xFFFFFFFF

  # Exact below 256 µs, then 128 buckets per power of two (tasks/README.md, "The histogram").
  defp bucket(v) when v > @max_late, do: bucket(@max_late)
  defp bucket(v) when v < 256, do: v

  defp bucket(v) do
    m = log2(v, 0)
    256 + (m - 8) * 128 + (v >>> (m - 7)) - 128
  end

  defp log2(1, m), do: m
  defp log2(v, m), do: log2(v >>> 1, m + 1)

  # `ready` once the counter reaches N: polled in 1 ms steps.
  defp await_ready(stats, n) do
    if :counters.get(stats, 1) < n do
      Process.sleep(1)
      await_ready(stats, n)
    end
  end

  defp parse_args([mode, n, secs, size, period]) when mode in ["task", "spawn"] do
    with {n, ""} when n >= 0 <- Integer.parse(n),
         {secs, ""} when secs >= 0 <- Float.parse(secs),
         {size, ""} when size >= 0 <- Integer.parse(size),
         {period, ""} when period >= 1 <- Integer.parse(period) do
      {mode, n, round(secs * 1_000_000), size, period}
    else
      _ -> usage("invalid arguments: #{inspect([n, secs, size, period])}")
    end
  end

  defp parse_args([mode | _]) when mode not in ["task", "spawn"],
    do: usage("mode must be 'task' or 'spawn': #{inspect(mode)}")

  defp parse_args(_), do: usage("wrong number of arguments")

  defp usage(message) do
    IO.puts(:stderr, message <> "\n" <> @usage)
    System.halt(2)
  end
end
