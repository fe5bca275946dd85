#!/usr/bin/env python3
"""A small open-loop, fixed-rate HTTP/1.1 load generator (Python 3.11 standard library only).

    fixedrate.py --rate 20000 --duration 15 --conns 64 --urls mix.txt --header 'Authorization: Bearer ...' --log out.log

Request i is due at start + i/rate, whatever happened to the requests before it (open loop): it is
sent on a free keep-alive connection as soon as it is due, and when every connection is busy it
waits for one, its latency still counted from when it was due. So a stall of the server shows up in
the percentiles instead of silently lowering the rate (no coordinated omission). The URLs of the
file are asked for in turn. The loop polls without sleeping, so it keeps its core busy: run it on a
core of its own. Only 127.0.0.1 (or another loopback address) is accepted as a target.

The log has one line per request, like h2load's --log-file: due time (microseconds since the
epoch), status (-1: error), microseconds from due to the end of the response. A summary is printed.
Bounded: it sends for --duration seconds and then waits at most --drain seconds for answers.
"""

from __future__ import annotations

import argparse
import collections
import errno
import gc
import select
import socket
import sys
import time
import urllib.parse


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", type=float, required=True)
    ap.add_argument("--duration", type=float, required=True)
    ap.add_argument("--warmup", type=float, default=2.0, help="seconds at the rate before measuring")
    ap.add_argument("--conns", type=int, default=64)
    ap.add_argument("--urls", required=True)
    ap.add_argument("--header", action="append", default=[])
    ap.add_argument("--log", required=True)
    ap.add_argument("--drain", type=float, default=5.0)
    a = ap.parse_args()

    urls = [u.strip() for u in open(a.urls) if u.strip()]
    first = urllib.parse.urlsplit(urls[0])
    host, port = first.hostname, first.port or 80
    if not host.startswith("127.") and host not in ("localhost", "::1"):
        sys.exit("only loopback targets")
    extra = "".join(h + "\r\n" for h in a.header)
    reqs = []
    for u in urls:
        s = urllib.parse.urlsplit(u)
        path = s.path + ("?" + s.query if s.query else "")
        reqs.append(f"GET {path} HTTP/1.1\r\nHost: {s.netloc}\r\nUser-Agent: tapster-bench\r\n{extra}\r\n".encode())

    gc.disable()  # a collection pauses the loop for milliseconds, which would show as latency
    ep = select.epoll()
    conns = {}
    idle = collections.deque()
    for _ in range(a.conns):
        c = socket.create_connection((host, port))
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        c.setblocking(False)
        fd = c.fileno()
        conns[fd] = [c, bytearray(), 0, 0]  # socket, buffer, due ns of the request in flight, measured?
        ep.register(fd, select.EPOLLIN)
        idle.append(fd)

    interval = 1e9 / a.rate
    total_secs = a.warmup + a.duration
    n_total = int(total_secs * a.rate)
    n_warm = int(a.warmup * a.rate)
    log_lines = []
    gaps = []  # pauses of the generator's own loop longer than 1 ms (it was descheduled or overloaded)
    prev = 0
    backlog = collections.deque()  # (due_ns, index) waiting for a free connection
    errors = 0
    statuses = collections.Counter()
    t0 = time.monotonic_ns()
    wall0 = time.time_ns()
    sent = 0
    done = 0
    in_flight = 0
    deadline = t0 + int((total_secs + a.drain) * 1e9)
    poll = ep.poll
    mono = time.monotonic_ns

    def send(fd: int, due: int, i: int) -> None:
        nonlocal in_flight, errors
        st = conns[fd]
        st[2] = due
        st[3] = i >= n_warm
        try:
            st[0].send(reqs[i % len(reqs)])
            in_flight += 1
        except OSError:
            errors += 1
            if st[3]:
                log_lines.append(f"{(wall0 + due - t0) // 1000}\t-1\t0\n")
            idle.append(fd)

    next_i = 0
    while True:
        now = mono()
        if now - prev > 1_000_000 and prev and now - t0 > a.warmup * 1e9:
            gaps.append(now - prev)
        prev = now
        # send everything that is due
        while next_i < n_total and t0 + int(next_i * interval) <= now:
            due = t0 + int(next_i * interval)
            if idle:
                send(idle.popleft(), due, next_i)
            else:
                backlog.append((due, next_i))
            next_i += 1
            sent += 1
        if next_i >= n_total and in_flight == 0 and not backlog:
            break
        if now > deadline:
            break
        for fd, ev in poll(0):
            st = conns[fd]
            try:
                chunk = st[0].recv(262144)
            except OSError as e:
                if e.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
                    continue
                chunk = b""
            if not chunk:
                # closed: count the request in flight as an error and reconnect
                errors += 1
                in_flight -= 1
                if st[3]:
                    log_lines.append(f"{(wall0 + st[2] - t0) // 1000}\t-1\t{(mono() - st[2]) // 1000}\n")
                ep.unregister(fd)
                st[0].close()
                del conns[fd]
                c = socket.create_connection((host, port))
                c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                c.setblocking(False)
                nfd = c.fileno()
                conns[nfd] = [c, bytearray(), 0, 0]
                ep.register(nfd, select.EPOLLIN)
                idle.append(nfd)
                continue
            buf = st[1]
            buf += chunk
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                continue
            head = bytes(buf[:end]).lower()
            k = head.find(b"\ncontent-length:")
            length = 0
            if k >= 0:
                e = head.find(b"\n", k + 1)
                length = int(head[k + 16 : e if e >= 0 else len(head)])
            elif b"transfer-encoding: chunked" in head:
                if not buf.endswith(b"0\r\n\r\n"):
                    continue
                length = len(buf) - end - 4
            if len(buf) < end + 4 + length:
                continue
            status = int(head[9:12])
            fin = mono()
            del buf[: end + 4 + length]
            in_flight -= 1
            done += 1
            if st[3]:
                statuses[status] += 1
                log_lines.append(f"{(wall0 + st[2] - t0) // 1000}\t{status}\t{(fin - st[2]) // 1000}\n")
            if backlog:
                due, i = backlog.popleft()
                send(fd, due, i)
            else:
                idle.append(fd)

    elapsed = (mono() - t0) / 1e9
    lost = in_flight + len(backlog) + (n_total - next_i)
    with open(a.log, "w") as f:
        f.writelines(log_lines)
    for c in list(conns.values()):
        c[0].close()
    measured = sum(statuses.values())
    bad = sum(v for k, v in statuses.items() if not 200 <= k < 400)
    print(f"fixedrate: {a.rate:.0f}/s for {a.duration:g}s (+{a.warmup:g}s warm-up) on {a.conns} connections, "
          f"{len(urls)} URLs; {sent} sent, {done} answered in {elapsed:.2f}s")
    stalled = sum(gaps) / 1e9
    span = max(elapsed - a.warmup, 1e-9)
    print(f"generator stalls (own loop paused > 1 ms): {len(gaps)}, {stalled:.3f} s in all "
          f"({stalled / span:.1%} of the measured time), longest {max(gaps, default=0) / 1e6:.2f} ms")
    print(f"measured: {measured} answers, status {dict(sorted(statuses.items()))}; "
          f"errors: {errors} connection, {bad} status, {lost} unanswered")


if __name__ == "__main__":
    main()
