%% Measures: memory of N idle TCP connections, each owned by its own Erlang process (spawn_monitor)
%% that reads with gen_tcp:recv in passive mode into a socket buffer of BUFFER_BYTES
%% (tasks/README.md, "Connections protocol").
-module(server).
-export([start/0]).

-define(USAGE, "usage: erl -noshell -pa DIR -s server -extra PORT N BUFFER_BYTES  "
               "(PORT 1-65535, N >= 0, BUFFER_BYTES >= 1)").
%% The largest backlog gen_tcp passes on (its default is 5); the kernel caps it at somaxconn.
%% OTP 25 sends the backlog to the driver as 16 bits: strace showed 65536 reach listen(2) as 0 and
%% 70000 as 4464.
-define(BACKLOG, 16#FFFF).

%% Called by `erl -s server`; the arguments are the plain ones after -extra.
start() ->
    {Port, N, Size} = parse_args(init:get_plain_arguments()),
    %% Passive mode: each process asks for data with gen_tcp:recv. {buffer, Size} is the size of
    %% the driver's user-level buffer that recv reads into; accepted sockets inherit it (seen: with
    %% 5000 bytes waiting, recv(Socket, 0) returned 1024 with {buffer, 1024}, 1460 by default).
    {ok, Listen} = gen_tcp:listen(Port, [binary, {active, false}, {ip, {127, 0, 0, 1}},
                                         {reuseaddr, true}, {backlog, ?BACKLOG}, {buffer, Size}]),
    Procs = accept_all(Listen, N, self(), []),
    ok = gen_tcp:close(Listen),   % stop accepting; the accepted sockets stay open
    await_first_reads(N),
    io:format("ready ~b~n", [N]),
    await_all(Procs),
    erlang:halt(0).

%% Tail-recursive, as in main.erl; returns the {Pid, MonitorRef} handles in accept order. Each
%% process waits for `go` until the socket is handed to it (controlling_process), so it owns the
%% socket before its first recv and the socket closes if it dies.
accept_all(_Listen, 0, _Parent, Acc) ->
    lists:reverse(Acc);
accept_all(Listen, N, Parent, Acc) ->
    {ok, Socket} = gen_tcp:accept(Listen),
    {Pid, _Ref} = Handle = spawn_monitor(fun() -> receive go -> serve(Socket, Parent) end end),
    ok = gen_tcp:controlling_process(Socket, Pid),
    Pid ! go,
    accept_all(Listen, N - 1, Parent, [Handle | Acc]).

%% Length 0: whatever has arrived, up to the buffer. The first read that returns data is the
%% connection's first message; then read and discard until EOF ({error, closed}) or a reset.
serve(Socket, Parent) ->
    case gen_tcp:recv(Socket, 0) of
        {ok, _Data} ->
            Parent ! first_read,
            read_until_closed(Socket);
        {error, _} ->
            gen_tcp:close(Socket)
    end.

read_until_closed(Socket) ->
    case gen_tcp:recv(Socket, 0) of
        {ok, _Data} -> read_until_closed(Socket);
        {error, _} -> gen_tcp:close(Socket)
    end.

await_first_reads(0) ->
    ok;
await_first_reads(N) ->
    receive first_read -> await_first_reads(N - 1) end.

%% One 'DOWN' per handle, taken in the order they arrive (as in main.erl).
await_all([]) ->
    ok;
await_all([_ | Rest]) ->
    receive {'DOWN', _Ref, process, _Pid, _Reason} -> await_all(Rest) end.

parse_args([PortStr, NStr, SizeStr] = Args) ->
    case {to_int(PortStr), to_int(NStr), to_int(SizeStr)} of
        {Port, N, Size} when is_integer(Port), Port >= 1, Port =< 65535,
                             is_integer(N), N >= 0, is_integer(Size), Size >= 1 ->
            {Port, N, Size};
        _ ->
            usage(io_lib:format("invalid arguments: ~p", [Args]))
    end;
parse_args(_) ->
    usage("wrong number of arguments").

to_int(S) ->
    try list_to_integer(S) catch error:badarg -> error end.

usage(Message) ->
    io:format(standard_error, "~s~n~s~n", [Message, ?USAGE]),
    erlang:halt(2).
