# Measures: N Elixir processes alive at once, each sleeping in :timer.sleep; mode "task" = Task.async
# for each, joined with Task.await_many; mode "spawn" = raw spawn_monitor, joined on one :DOWN per process.
defmodule Main do
  @usage "usage: elixir -pa ebin -e Main.main() -- task|spawn N [SLEEP_SECONDS]  (N >= 0; sleep default 10, may be fractional)"

  def main(argv \\ System.argv()) do
    {mode, n, ms} = parse_args(argv)
    run(mode, n, ms)
    System.halt(0)
  end

  defp run("task", n, ms) do
    tasks = for _ <- 1..n//1, do: Task.async(fn -> :timer.sleep(ms) end)
    IO.puts("ready #{n}")
    Task.await_many(tasks, :infinity)
  end

  defp run("spawn", n, ms) do
    procs = for _ <- 1..n//1, do: spawn_monitor(fn -> :timer.sleep(ms) end)
    IO.puts("ready #{n}")
    # One :DOWN per handle, taken in the order they arrive: the processes end in whatever order
    # their timers fire across schedulers, and matching each ref in turn would rescan a long mailbox.
    Enum.each(procs, fn _ ->
      receive do
        {:DOWN, _ref, :process, _pid, _reason} -> :ok
      end
    end)
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
