# Measures: N Elixir processes alive at once, each sleeping in :timer.sleep; mode "task" = Task.async
# for each, joined with Task.await_many; mode "spawn" = raw spawn_monitor, joined on one :DOWN per process.
defmodule Main do
  @usage "usage: elixir -pa ebin -e Main.main() -- task|spawn N [SLEEP_SECONDS]  (N >= 0; sleep default 10, may be fractional)"

  def main(argv \\ System.argv()) do
    {mode, n, ms} = parse_args(argv)

    # Counts the processes that have reached their sleep. Read from :persistent_term, which costs a
    # process no copy on its heap, so each fn captures nothing more than ms.
    waiting = :counters.new(1, [:write_concurrency])
    :persistent_term.put({__MODULE__, :waiting}, waiting)
    # The proof attack's switches (tasks/README.md, "Attacking the proofs"); measured runs have
    # neither. MEMRUN_TRACE_WAITS=1: each process also writes `start` just before it counts itself
    # and `end` after its sleep, through the group leader that writes `ready` (IO.write returns once
    # the line is written, so a counted process's line is out before main reads the counter).
    # MEMRUN_STALL_MS=K: main stalls K ms after the last spawn and again just before `ready`.
    :persistent_term.put({__MODULE__, :trace}, System.get_env("MEMRUN_TRACE_WAITS") == "1")
    :persistent_term.put({__MODULE__, :stall}, String.to_integer(System.get_env("MEMRUN_STALL_MS") || "0"))
    run(mode, n, ms, waiting)
    System.halt(0)
  end

  defp run("task", n, ms, waiting) do
    tasks = for _ <- 1..n//1, do: Task.async(fn -> sleep(ms) end)
    stall()
    await_waiting(waiting, n)
    stall()
    IO.puts("ready #{n}")
    books()
    Task.await_many(tasks, :infinity)
  end

  defp run("spawn", n, ms, waiting) do
    procs = for _ <- 1..n//1, do: spawn_monitor(fn -> sleep(ms) end)
    stall()
    await_waiting(waiting, n)
    stall()
    IO.puts("ready #{n}")
    books()
    # One :DOWN per handle, taken in the order they arrive: the processes end in whatever order
    # their timers fire across schedulers, and matching each ref in turn would rescan a long mailbox.
    Enum.each(procs, fn _ ->
      receive do
        {:DOWN, _ref, :process, _pid, _reason} -> :ok
      end
    end)
  end

  # A task's body: counted as waiting, then :timer.sleep(ms) (a tail call: no frame stays behind);
  # traced, the same between its two lines.
  defp sleep(ms) do
    if :persistent_term.get({__MODULE__, :trace}) do
      IO.write("start\n")
      count_and_sleep(ms)
      IO.write("end\n")
    else
      count_and_sleep(ms)
    end
  end

  defp count_and_sleep(ms) do
    :counters.add(:persistent_term.get({__MODULE__, :waiting}), 1, 1)
    :timer.sleep(ms)
  end

  defp stall do
    case :persistent_term.get({__MODULE__, :stall}) do
      0 -> :ok
      ms -> Process.sleep(ms)
    end
  end

  # The runtime's own books, for `memrun explain --books` only: with MEMRUN_BOOKS=1, once every
  # process waits (just after `ready`), :erlang.memory() and the process count to stderr as
  # `books NAME VALUE`. Off by default: a figure's run reads one environment variable after `ready`
  # and nothing more.
  defp books do
    if System.get_env("MEMRUN_BOOKS") == "1" do
      for {k, v} <- :erlang.memory(), do: IO.puts(:stderr, "books #{k} #{v}")
      IO.puts(:stderr, "books process_count #{:erlang.system_info(:process_count)}")
    end
  end

  # `ready` once every process has run up to its sleep, not merely been spawned.
  defp await_waiting(waiting, n) do
    if :counters.get(waiting, 1) < n do
      Process.sleep(1)
      await_waiting(waiting, n)
    end
  end

  defp parse_args([mode, n]), do: parse_args([mode, n, "10"])

  defp parse_args([mode, n, secs]) when mode in ["task", "spawn"] do
    with {n, ""} when n >= 0 <- Integer.parse(n),
         {secs, ""} <- Float.parse(secs),
         ms = round(secs * 1000),
         true <- ms in 0..0xFFFFFFFF do
      {mode, n, ms}
    else
      _ -> usage("invalid arguments: #{inspect([n, secs])}")
    end
  end

  defp parse_args([mode, _ | _]) when mode not in ["task", "spawn"],
    do: usage("mode must be 'task' or 'spawn': #{inspect(mode)}")

  defp parse_args(_), do: usage("wrong number of arguments")

  defp usage(message) do
    IO.puts(:stderr, message <> "\n" <> @usage)
    System.halt(2)
  end
end
