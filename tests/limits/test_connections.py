"""runner.limits.connections: each limit N connections meet, what N needs of it and whether N hits it."""

from __future__ import annotations

from runner.limits import connections, max_n, predict
from runner.limits.connections import EXEMPT, HIT, OK, SLOWS, UNUSED
from runner.workload import get
from tests.support.here import HERE_CONN, JAVA, PRIVILEGED

CONNECTIONS = get("connections")  # the workload, resolved from the name a user gives


def _by_limit(n: int, limits: dict) -> dict[str, connections.Check]:
    return {c.limit: c for c in connections.checks(n, limits)}


def test_a_million_connections_on_the_reference_machine():
    got = _by_limit(1_000_000, HERE_CONN)
    assert {name: c.status for name, c in got.items()} == {
        "RLIMIT_NOFILE (server)": HIT,  # hard limit 20,000, no CAP_SYS_RESOURCE to lift it
        "RLIMIT_NOFILE (client)": HIT,
        "fs.nr_open": OK,  # 1,048,576 >= 1,000,256
        "fs.file-max": EXEMPT,  # CAP_SYS_ADMIN goes past it
        "net.core.somaxconn": SLOWS,  # 4,096 < 65,535
        "net.ipv4.tcp_max_syn_backlog": UNUSED,  # tcp_syncookies=1
        "net.ipv4.ip_local_port_range": OK,  # 36 source addresses
        "net.netfilter.nf_conntrack_max": UNUSED,  # loopback not tracked
        "memory": OK,
    }
    server = got["RLIMIT_NOFILE (server)"].hit
    assert server is not None and (server.current, server.needed, server.target) == (20_000, 1_000_256, None)
    assert "no sysctl lifts it" in server.remedy
    backlog = got["net.core.somaxconn"].hit
    assert backlog is not None and (backlog.target, backlog.fails) == (65_535, False)
    assert "36 source address(es)" in got["net.ipv4.ip_local_port_range"].needed


def test_with_cap_sys_resource_fs_nr_open_is_what_stops_and_what_is_raised():
    got = _by_limit(1_100_000, PRIVILEGED)
    nr_open = got["fs.nr_open"]
    assert nr_open.status == HIT and nr_open.hit is not None
    assert nr_open.hit.target == 1_101_824  # N + 1,024 rounded up to 1,024, a multiple of 4,096 too
    assert "--raise-limits" in got["RLIMIT_NOFILE (server)"].hit.remedy  # type: ignore[union-attr]
    assert _by_limit(1_000_000, PRIVILEGED)["RLIMIT_NOFILE (server)"].status == OK


def test_fs_file_max_counts_both_ends_where_it_is_enforced():
    unprivileged = {**HERE_CONN, "file_max_enforced": 1, "file_max": 1_500_000}
    check = _by_limit(1_000_000, unprivileged)["fs.file-max"]
    assert check.status == HIT and check.hit is not None
    assert check.hit.needed == 633 + 2_000_000 + 1024 + 64
    assert check.hit.target == 2_002_944  # 2,001,721 + 1,024 headroom, rounded up to 4,096


def test_conntrack_counts_only_where_loopback_is_tracked():
    tracked = {**HERE_CONN, "conntrack_tracks": 1, "conntrack_count": 100}
    check = _by_limit(1_000_000, tracked)["net.netfilter.nf_conntrack_max"]
    assert check.status == HIT and check.hit is not None and check.hit.target == 1_003_520
    unknown = {k: v for k, v in tracked.items() if k != "conntrack_tracks"}
    assert _by_limit(1_000_000, unknown)["net.netfilter.nf_conntrack_max"].status == HIT
    assert _by_limit(100_000, tracked)["net.netfilter.nf_conntrack_max"].status == OK
    not_loaded = {**HERE_CONN, "conntrack_max": None}
    assert "net.netfilter.nf_conntrack_max" not in _by_limit(1_000_000, not_loaded)


def test_memory_counts_both_ends_kernel_and_the_buffer():
    small = {**HERE_CONN, "mem_available": 4 << 30}
    check = _by_limit(1_000_000, small)["memory"]
    assert check.status == HIT and check.hit is not None
    assert check.hit.needed == 1_000_000 * (7_500 + 1024)
    assert _by_limit(400_000, small)["memory"].status == OK


def test_predict_adds_a_connections_limits_to_a_thread_per_connection_variants():
    sleep = {hit.key for hit in predict(100_000, JAVA, HERE_CONN)}
    conn = {hit.key for hit in predict(100_000, JAVA, HERE_CONN, CONNECTIONS)}
    assert sleep == {"pid_max", "max_map_count"}
    assert conn == sleep | {"nofile_server", "nofile_client", "somaxconn"}
    assert {hit.key for hit in predict(1000, {}, HERE_CONN, CONNECTIONS)} == set()


def test_max_n_stops_at_the_first_limit_that_fails_not_at_the_backlog():
    n, hit = max_n({}, HERE_CONN, workload=CONNECTIONS)  # type: ignore[misc]
    assert (n, hit.key) == (19_744, "nofile_server")  # 20,000 less the least spare of 256
    n, hit = max_n(JAVA, HERE_CONN, workload=CONNECTIONS)  # type: ignore[misc]
    assert hit.key == "nofile_server"  # below pid_max's ~32k here
    assert max_n({}, HERE_CONN) is None  # the sleep workload: nothing caps async tasks
