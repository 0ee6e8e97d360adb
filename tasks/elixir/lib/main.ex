# Measures: N Elixir processes alive at once, each a Task.async sleeping in :timer.sleep.
defmodule Main do
  @usage "usage: elixir -pa ebin -e Main.main() -- N [SLEEP_SECONDS]  (N >= 0; sleep default 10, may be fractional)"

  def main(argv \\ System.argv()) do
    {n, ms} = parse_args(argv)
    tasks = for _ <- 1..n//1, do: Task.async(fn -> :timer.sleep(ms) end)
    IO.puts("ready #{n}")
    Task.await_many(tasks, :infinity)
    System.halt(0)
  end

  defp parse_args([n]), do: parse_args([n, "10"])

  defp parse_args([n, secs]) do
    with {n, ""} when n >= 0 <- Integer.parse(n),
         {secs, ""} <- Float.parse(secs),
         ms = round(secs * 1000),
         true <- ms in 0..0xFFFFFFFF do
      {n, ms}
    else
      _ -> usage("invalid arguments: #{inspect([n, secs])}")
    end
  end

  defp parse_args(_), do: usage("wrong number of arguments")

  defp usage(message) do
    IO.puts(:stderr, message <> "\n" <> @usage)
    System.halt(2)
  end
end
