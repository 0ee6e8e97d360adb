%% Measures: N Erlang processes alive at once, each spawned with spawn_monitor and sleeping in
%% `receive after Ms -> ok end`; joined by waiting for one 'DOWN' message per process.
-module(main).
-export([start/0]).

-define(USAGE, "usage: erl -noshell -pa DIR -s main -extra N [SLEEP_SECONDS]  "
               "(N >= 0; sleep default 10, may be fractional)").

%% Called by `erl -s main`; the arguments are the plain ones after -extra.
start() ->
    {N, Ms} = parse_args(init:get_plain_arguments()),
    Procs = spawn_all(N, Ms, []),
    io:format("ready ~b~n", [N]),
    await_all(Procs),
    erlang:halt(0).

%% Tail-recursive (a list comprehension would keep N stack frames for the GC to scan on every
%% collection); returns the {Pid, MonitorRef} handles in spawn order.
spawn_all(0, _Ms, Acc) ->
    lists:reverse(Acc);
spawn_all(N, Ms, Acc) ->
    spawn_all(N - 1, Ms, [spawn_monitor(fun() -> receive after Ms -> ok end end) | Acc]).

%% One 'DOWN' per handle, taken in the order they arrive: the processes end in whatever order
%% their timers fire across schedulers, and matching each Ref in turn would rescan a long mailbox.
await_all([]) ->
    ok;
await_all([_ | Rest]) ->
    receive {'DOWN', _Ref, process, _Pid, _Reason} -> await_all(Rest) end.

parse_args([N]) ->
    parse_args([N, "10"]);
parse_args([NStr, SecsStr] = Args) ->
    case {to_int(NStr), to_seconds(SecsStr)} of
        {N, Secs} when is_integer(N), N >= 0, is_number(Secs), Secs >= 0, Secs * 1000 =< 16#FFFFFFFF ->
            {N, round(Secs * 1000)};
        _ ->
            usage(io_lib:format("invalid arguments: ~p", [Args]))
    end;
parse_args(_) ->
    usage("wrong number of arguments").

to_int(S) ->
    try list_to_integer(S) catch error:badarg -> error end.

%% "10" or "0.5".
to_seconds(S) ->
    try list_to_float(S)
    catch error:badarg -> to_int(S)
    end.

usage(Message) ->
    io:format(standard_error, "~s~n~s~n", [Message, ?USAGE]),
    erlang:halt(2).
