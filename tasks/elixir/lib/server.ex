# Measures: N idle TCP connections, each owned by its own Elixir process that reads with
# :gen_tcp.recv in passive mode into a socket buffer of BUFFER_BYTES (tasks/README.md, "Connections
# protocol"); mode "task" = Task.async per connection, joined with Task.await_many; mode "spawn" =
# raw spawn_monitor, joined on one :DOWN per process (as Main's modes).
defmodule Server do
  @usage "usage: elixir -pa ebin -e Server.main() -- task|spawn PORT N BUFFER_BYTES  (PORT 1-65535, N >= 0, BUFFER_BYTES >= 1)"
  # The largest backlog :gen_tcp passes on (its default is 5); the kernel caps it at somaxconn.
  # OTP 25 sends the backlog to the driver as 16 bits: strace showed 65536 reach listen(2) as 0 and
  # 70000 as 4464.
  @backlog 0xFFFF

  def main(argv \\ System.argv()) do
    {mode, port, n, size} = parse_args(argv)
    # Passive mode: each process asks for data with :gen_tcp.recv. `buffer: size` is the size of
    # the driver's user-level buffer that recv reads into; accepted sockets inherit it (seen: with
    # 5000 bytes waiting, recv(socket, 0) returned 1024 with buffer: 1024, 1460 by default).
    {:ok, listen} =
      :gen_tcp.listen(port, [
        :binary,
        active: false,
        ip: {127, 0, 0, 1},
        reuseaddr: true,
        backlog: @backlog,
        buffer: size
      ])

    run(mode, listen, n)
    System.halt(0)
  end

  defp run("task", listen, n) do
    parent = self()

    tasks =
      for _ <- 1..n//1 do
        {:ok, socket} = :gen_tcp.accept(listen)
        task = Task.async(fn -> handed(socket, parent) end)
        hand_over(socket, task.pid)
        task
      end

    :ok = :gen_tcp.close(listen)
    await_first_reads(n)
    IO.puts("ready #{n}")
    Task.await_many(tasks, :infinity)
  end

  defp run("spawn", listen, n) do
    parent = self()

    procs =
      for _ <- 1..n//1 do
        {:ok, socket} = :gen_tcp.accept(listen)
        {pid, _ref} = proc = spawn_monitor(fn -> handed(socket, parent) end)
        hand_over(socket, pid)
        proc
      end

    :ok = :gen_tcp.close(listen)
    await_first_reads(n)
    IO.puts("ready #{n}")
    # One :DOWN per handle, taken in the order they arrive (as in Main).
    Enum.each(procs, fn _ ->
      receive do
        {:DOWN, _ref, :process, _pid, _reason} -> :ok
      end
    end)
  end

  # The process started for a connection waits for :go until the socket is handed to it, so it
  # owns the socket before its first recv and the socket closes if it dies.
  defp hand_over(socket, pid) do
    :ok = :gen_tcp.controlling_process(socket, pid)
    send(pid, :go)
  end

  defp handed(socket, parent) do
    receive do
      :go -> serve(socket, parent)
    end
  end

  # Length 0: whatever has arrived, up to the buffer. The first read that returns data is the
  # connection's first message; then read and discard until EOF ({:error, :closed}) or a reset.
  defp serve(socket, parent) do
    case :gen_tcp.recv(socket, 0) do
      {:ok, _data} ->
        send(parent, :first_read)
        read_until_closed(socket)

      {:error, _} ->
        :gen_tcp.close(socket)
    end
  end

  defp read_until_closed(socket) do
    case :gen_tcp.recv(socket, 0) do
      {:ok, _data} -> read_until_closed(socket)
      {:error, _} -> :gen_tcp.close(socket)
    end
  end

  defp await_first_reads(0), do: :ok

  defp await_first_reads(n) do
    receive do
      :first_read -> await_first_reads(n - 1)
    end
  end

  defp parse_args([mode, port, n, size]) when mode in ["task", "spawn"] do
    with {port, ""} when port in 1..65535 <- Integer.parse(port),
         {n, ""} when n >= 0 <- Integer.parse(n),
         {size, ""} when size >= 1 <- Integer.parse(size) do
      {mode, port, n, size}
    else
      _ -> usage("invalid arguments: #{inspect([port, n, size])}")
    end
  end

  defp parse_args([mode, _, _, _]), do: usage("mode must be 'task' or 'spawn': #{inspect(mode)}")

  defp parse_args(_), do: usage("wrong number of arguments")

  defp usage(message) do
    IO.puts(:stderr, message <> "\n" <> @usage)
    System.halt(2)
  end
end
