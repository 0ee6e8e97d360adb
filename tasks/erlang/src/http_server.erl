%% HTTP workload (tasks/README.md, "HTTP protocol"): OTP's own HTTP server, inets' httpd, started
%% with inets:start(httpd, ...) as its User's Guide does, with one callback module (this one, its
%% do/1) in place of the file-serving modules. httpd runs a process per connection
%% (httpd_request_handler, {active, once}) that calls do/1 for each request. Keep-alive is httpd's
%% default (keep_alive true). K comes from rand:uniform/1 (the process's own rand state, seeded on
%% first use). All other settings are httpd's defaults; the ones that bear on many long keep-alive
%% connections, as OTP 25.2.3's inets 8.2.2 code reads them (httpd_request_handler,
%% httpd_manager, httpd_acceptor, http_transport):
%%   max_keep_alive_request  infinity: requests per connection are not limited
%%   keep_alive_timeout      150 s: a connection idle that long is closed
%%   max_clients             documented default 150, but only enforced when set: httpd_manager
%%                           compares the connection count with lookup(max_clients), which is
%%                           `undefined` when unset, and an integer =< an atom always holds
%%   backlog                 128 (http_transport's default; the kernel caps it at somaxconn)
%%   accept failing (emfile, enfile)  the acceptor sleeps 200 ms and accepts again, silently
-module(http_server).
-export([start/0, do/1]).

-include_lib("inets/include/httpd.hrl").

-define(USAGE, "usage: erl -noshell -pa DIR -s http_server -extra PORT IMAGES  "
               "(PORT 1-65535, IMAGES >= 1)").

%% Called by `erl -s http_server`; the arguments are the plain ones after -extra. The VM keeps
%% running httpd (under the inets application) after this returns.
start() ->
    {Port, Images} = parse_args(init:get_plain_arguments()),
    persistent_term:put({?MODULE, images}, Images),
    %% server_root and document_root are mandatory; nothing reads files from them here.
    Dir = filename:dirname(code:which(?MODULE)),
    ok = inets:start(),
    {ok, _Pid} = inets:start(httpd, [{port, Port},
                                     {bind_address, {127, 0, 0, 1}},
                                     {server_name, "memrun"},
                                     {server_root, Dir},
                                     {document_root, Dir},
                                     {modules, [?MODULE]}]),
    ok.

%% httpd's module callback, run in the connection's process for each request.
do(#mod{request_uri = "/"}) ->
    K = rand:uniform(persistent_term:get({?MODULE, images})),
    Location = "/Renard-" ++ integer_to_list(K) ++ ".png",
    {proceed, [{response, {response, [{code, 302}, {location, Location},
                                      {content_length, "0"}], []}}]};
do(#mod{}) ->
    {proceed, [{response, {response, [{code, 404}, {content_length, "0"}], []}}]}.

parse_args([PortStr, ImagesStr] = Args) ->
    case {to_int(PortStr), to_int(ImagesStr)} of
        {Port, Images} when is_integer(Port), Port >= 1, Port =< 65535,
                            is_integer(Images), Images >= 1 ->
            {Port, Images};
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
