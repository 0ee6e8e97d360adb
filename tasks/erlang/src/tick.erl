%% Tick workload (tasks/README.md, "Tick protocol"): N Erlang processes (spawn_monitor, as main.erl),
%% each keeping its own state as a binary and waking with an absolute timer (erlang:start_timer/4,
%% {abs, true}) at its next due time; on each wake it checksums the binary and builds the next one with every byte plus one.
-module(tick).
-export([start/0]).

%% Shared, read through persistent_term (no copy on a process's heap, nothing captured by a fun):
%%   ?T0      t0, erlang:monotonic_time(microsecond) at start/0; every other time is µs since t0
%%   ?STATS   counters: 1 ready (processes past their first wake's work), 2 achieved,
%%            3 the sum of the last checksums (taken mod 2^32 at the end; N * (2^32 - 1) fits the
%%            counters' 64 bits for any N the VM can spawn)
%%   ?HIST    counters: the lateness histogram, bucket B at index B + 1
%%   ?WINDOW  atomics: 1 W, 2 E, in µs since t0; 0 means not set yet (both are at least one period
%%            after t0); main writes W, then E, so a process that sees E sees W
-define(T0, {?MODULE, t0}).
-define(STATS, {?MODULE, stats}).
-define(HIST, {?MODULE, hist}).
-define(WINDOW, {?MODULE, window}).
-define(BUCKETS, 3328).
-define(MAX_LATE, 16#FFFFFFFF).

-define(USAGE, "usage: erl -noshell -pa DIR -s tick -extra N SLEEP_SECONDS STATE_BYTES PERIOD_US  "
               "(N >= 0, SLEEP >= 0 may be fractional, STATE_BYTES >= 0, PERIOD_US >= 1)").

%% Called by `erl -s tick`; the arguments are the plain ones after -extra.
start() ->
    T0 = erlang:monotonic_time(microsecond),
    {N, SleepUs, Size, Period} = parse_args(init:get_plain_arguments()),
    persistent_term:put(?T0, T0),
    Stats = counters:new(3, [write_concurrency]),
    Hist = counters:new(?BUCKETS, [write_concurrency]),
    Window = atomics:new(2, [{signed, true}]),
    persistent_term:put(?STATS, Stats),
    persistent_term:put(?HIST, Hist),
    persistent_term:put(?WINDOW, Window),
    Procs = spawn_all(0, N, Size, Period, []),
    %% `ready` once every process has done its first wake's work.
    await_ready(Stats, N),
    TReady = now_us(),
    W = (TReady div Period + 1) * Period,
    K = max(0, (TReady + SleepUs - W) div Period),
    atomics:put(Window, 1, W),
    atomics:put(Window, 2, W + K * Period),
    io:format("ready ~b~n", [N]),
    await_all(Procs),
    Buckets = [[$\s, integer_to_list(B - 1), $:, integer_to_list(C)]
               || B <- lists:seq(1, ?BUCKETS), (C = counters:get(Hist, B)) > 0],
    io:format("tick periods ~b asked ~b achieved ~b checksum ~b~nlateness_us~s~n",
              [K, N * K, counters:get(Stats, 2), counters:get(Stats, 3) band 16#FFFFFFFF, Buckets]),
    erlang:halt(0).

%% Tail-recursive, as main.erl; returns the {Pid, MonitorRef} handles in spawn order. Each fun
%% captures its index, offset, size and period (small integers).
spawn_all(N, N, _Size, _Period, Acc) ->
    lists:reverse(Acc);
spawn_all(I, N, Size, Period, Acc) ->
    Off = I * Period div N,
    Proc = spawn_monitor(fun() -> task(I, Off, Size, Period) end),
    spawn_all(I + 1, N, Size, Period, [Proc | Acc]).

%% A process's state is a binary of Size bytes, byte J = 1 + (I*31 + J) rem 251. Binaries are
%% immutable: each wake builds the next one (the Erlang idiom), and the old one is garbage. Above
%% 64 bytes a binary is reference-counted and off the process heap; the old ones are freed when
%% the process next collects its heap.
task(I, Off, Size, Period) ->
    loop(init_state(I, 0, Size, <<>>), Off, Period, 1, 0).

%% Appended byte by byte: the VM grows one writable binary in place (no list of Size integers).
init_state(_I, Size, Size, Acc) -> Acc;
init_state(I, J, Size, Acc) -> init_state(I, J + 1, Size, <<Acc/binary, (1 + (I * 31 + J) rem 251)>>).

loop(State, Off, Period, K, Last) ->
    Due = Off + K * Period,
    Window = persistent_term:get(?WINDOW),
    case atomics:get(Window, 2) of
        E when E =/= 0, Due >= E ->
            stop(Last);
        _ ->
            Now = sleep_until(Due),
            Late = max(0, Now - Due),
            Sum = checksum(State, 0),
            Next = << <<(B + 1)>> || <<B>> <= State >>,   % an 8-bit segment keeps B + 1 mod 256
            K =:= 1 andalso counters:add(persistent_term:get(?STATS), 1, 1),
            %% Read again: main may have set the window during the sleep.
            case atomics:get(Window, 2) of
                0 ->
                    loop(Next, Off, Period, K + 1, Sum);
                E ->
                    W = atomics:get(Window, 1),
                    if
                        Due >= W, Due < E ->
                            counters:add(persistent_term:get(?HIST), bucket(Late) + 1, 1),
                            Now < E andalso counters:add(persistent_term:get(?STATS), 2, 1);
                        true ->
                            ok
                    end,
                    if
                        Now >= E -> stop(Sum);
                        true -> loop(Next, Off, Period, K + 1, Sum)
                    end
            end
    end.

stop(Last) ->
    counters:add(persistent_term:get(?STATS), 3, Last).

%% The BEAM's own sleep until an absolute time: a timer at a point of Erlang monotonic time, in
%% whole milliseconds (erlang:start_timer/4 with {abs, true}), the due time rounded up so that the
%% wake is never early. A wake that still comes before Due waits again. Returns the wake time in
%% µs since t0. (`receive after Ms`, the sleep program's relative wait, rounds twice, the ms left
%% up and then the timer wheel's tick: 1.5 ms late at the median with one process, against
%% 0.65 ms for this, OTP 25.2.3.)
sleep_until(Due) ->
    case now_us() of
        Now when Now >= Due ->
            Now;
        _ ->
            Ref = erlang:start_timer(ceil_div(persistent_term:get(?T0) + Due, 1000), self(), tick,
                                     [{abs, true}]),
            receive {timeout, Ref, tick} -> sleep_until(Due) end
    end.

%% Rounded up for either sign (monotonic time may be negative; div truncates toward zero).
ceil_div(A, B) when A rem B > 0 -> A div B + 1;
ceil_div(A, B) -> A div B.

now_us() ->
    erlang:monotonic_time(microsecond) - persistent_term:get(?T0).

%% The sum of the bytes, by matching the binary byte by byte (the compiler keeps one match context:
%% no sub-binary per byte).
checksum(<<B, Rest/binary>>, Acc) -> checksum(Rest, Acc + B);
checksum(<<>>, Acc) -> Acc band 16#FFFFFFFF.

%% Exact below 256 µs, then 128 buckets per power of two (tasks/README.md, "The histogram").
bucket(V) when V > ?MAX_LATE -> bucket(?MAX_LATE);
bucket(V) when V < 256 -> V;
bucket(V) ->
    M = log2(V, 0),
    256 + (M - 8) * 128 + (V bsr (M - 7)) - 128.

log2(1, M) -> M;
log2(V, M) -> log2(V bsr 1, M + 1).

%% `ready` once the counter reaches N: polled in 1 ms steps.
await_ready(Stats, N) ->
    case counters:get(Stats, 1) of
        N -> ok;
        _ -> receive after 1 -> await_ready(Stats, N) end
    end.

%% One 'DOWN' per handle, taken in the order they arrive (as main.erl).
await_all([]) ->
    ok;
await_all([_ | Rest]) ->
    receive {'DOWN', _Ref, process, _Pid, _Reason} -> await_all(Rest) end.

parse_args([NStr, SecsStr, SizeStr, PeriodStr] = Args) ->
    case {to_int(NStr), to_seconds(SecsStr), to_int(SizeStr), to_int(PeriodStr)} of
        {N, Secs, Size, Period} when is_integer(N), N >= 0, is_number(Secs), Secs >= 0,
                                     is_integer(Size), Size >= 0, is_integer(Period), Period >= 1 ->
            {N, round(Secs * 1000000), Size, Period};
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
