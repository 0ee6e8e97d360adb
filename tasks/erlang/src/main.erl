%% Measures: N Erlang processes alive at once, each spawned with spawn_monitor and sleeping in
%% `receive after Ms -> ok end`; joined by waiting for one 'DOWN' message per process.
-module(main).
-export([start/0]).

-define(WAITING, {?MODULE, waiting}).
-define(TRACE, {?MODULE, trace}).
-define(STALL, {?MODULE, stall}).

-define(USAGE, "usage: erl -noshell -pa DIR -s main -extra N [SLEEP_SECONDS]  "
               "(N >= 0; sleep default 10, may be fractional)").

%% Called by `erl -s main`; the arguments are the plain ones after -extra.
start() ->
    {N, Ms} = parse_args(init:get_plain_arguments()),
    %% Counts the processes that have reached their `receive after`. Read from persistent_term,
    %% which costs a process no copy on its heap, so the fun captures nothing more than Ms.
    Waiting = counters:new(1, [write_concurrency]),
    persistent_term:put(?WAITING, Waiting),
    %% The proof attack's switches (tasks/README.md, "Attacking the proofs"); measured runs have
    %% neither. MEMRUN_TRACE_WAITS=1: each process also writes `start` just before it counts itself
    %% and `end` after its wait, through the group leader that writes `ready` (io:put_chars returns
    %% once the line is written). MEMRUN_STALL_MS=K: main stalls K ms after the last spawn and again
    %% just before `ready`.
    persistent_term:put(?TRACE, os:getenv("MEMRUN_TRACE_WAITS") =:= "1"),
    persistent_term:put(?STALL, list_to_integer(os:getenv("MEMRUN_STALL_MS", "0"))),
    Procs = spawn_all(N, Ms, []),
    stall(),
    await_waiting(Waiting, N),
    stall(),
    io:format("ready ~b~n", [N]),
    books(),
    await_all(Procs),
    erlang:halt(0).

%% Tail-recursive (a list comprehension would keep N stack frames for the GC to scan on every
%% collection); returns the {Pid, MonitorRef} handles in spawn order.
spawn_all(0, _Ms, Acc) ->
    lists:reverse(Acc);
spawn_all(N, Ms, Acc) ->
    Proc = spawn_monitor(fun() -> wait(Ms) end),
    spawn_all(N - 1, Ms, [Proc | Acc]).

%% A process's body (a tail call from its fun: no frame stays behind): counted, then its wait;
%% traced, the same between its two lines.
wait(Ms) ->
    case persistent_term:get(?TRACE) of
        false ->
            count_and_wait(Ms);
        true ->
            io:put_chars("start\n"),
            count_and_wait(Ms),
            io:put_chars("end\n")
    end.

count_and_wait(Ms) ->
    counters:add(persistent_term:get(?WAITING), 1, 1),
    receive after Ms -> ok end.

stall() ->
    case persistent_term:get(?STALL) of
        0 -> ok;
        Ms -> receive after Ms -> ok end
    end.

%% The runtime's own books, for `memrun explain --books` only: with MEMRUN_BOOKS=1, once every
%% process waits (just after `ready`), erlang:memory() and the process count to stderr as
%% `books NAME VALUE`. Off by default: a figure's run reads one environment variable after `ready`
%% and nothing more.
books() ->
    case os:getenv("MEMRUN_BOOKS") of
        "1" ->
            [io:format(standard_error, "books ~s ~b~n", [K, V]) || {K, V} <- erlang:memory()],
            io:format(standard_error, "books process_count ~b~n", [erlang:system_info(process_count)]);
        _ ->
            ok
    end.

%% `ready` once every process has run up to its sleep, not merely been spawned.
await_waiting(Waiting, N) ->
    case counters:get(Waiting, 1) of
        N -> ok;
        _ -> receive after 1 -> await_waiting(Waiting, N) end
    end.

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
