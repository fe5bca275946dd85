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

A line of the URL file may carry extra request headers after the URL, separated by tabs
(`http://127.0.0.1:8080/v1/items/x<TAB>If-None-Match: "abc"`); a line without a tab is just a URL.

For long runs whose credentials change while they run (bench/soak):

  --keys FILE     each request carries `Authorization: Bearer KEY` of one key of FILE, whose lines
                  are `LABEL WEIGHT KEY` (blank lines and `#` comments skipped); a key with weight w
                  gets w/(sum of weights) of the requests. The file is read again whenever it changes
                  (checked every 0.2 s; replace it by rename so that it is never read half-written),
                  so keys can be added and dropped during the run. Each log line then has four more
                  columns: the key's label, the index of the URL's line in the URL file, 1 when the
                  answer carried a Retry-After header (else 0), and the microseconds from due to
                  sent (the key is chosen when the request is sent, which is late when every
                  connection was busy).
  --stream-log    write the log while running (about once a second) instead of holding it in memory
  --progress S    print a progress line to stderr every S seconds
  --block         when nothing is due, wait in epoll until the next request is due instead of
                  polling: the generator then uses only the CPU it needs (on a machine shared with
                  other work), at the price of sending up to 1 ms late (epoll's resolution), which
                  the latencies, measured from the due time, include
"""

from __future__ import annotations

import argparse
import collections
import errno
import gc
import os
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
    ap.add_argument("--keys", help="file of `LABEL WEIGHT KEY` lines, read again when it changes")
    ap.add_argument("--stream-log", action="store_true", help="write the log while running")
    ap.add_argument("--progress", type=float, default=0.0, help="seconds between progress lines (0: none)")
    ap.add_argument("--block", action="store_true", help="wait in epoll when nothing is due, instead of polling")
    a = ap.parse_args()

    lines = [line.rstrip("\r\n").split("\t") for line in open(a.urls) if line.strip()]
    urls = [f[0].strip() for f in lines]
    first = urllib.parse.urlsplit(urls[0])
    host, port = first.hostname, first.port or 80
    if not host.startswith("127.") and host not in ("localhost", "::1"):
        sys.exit("only loopback targets")
    extra = "".join(h + "\r\n" for h in a.header)
    # Without --keys a request is complete here; with it, each request is this head plus the
    # Authorization line of the key chosen when it is sent, plus the blank line.
    end_of_head = "" if a.keys else "\r\n"
    reqs = []
    for u, *own in lines:
        s = urllib.parse.urlsplit(u.strip())
        if s.hostname != host or (s.port or 80) != port:
            sys.exit(f"every URL must go to {host}:{port}: {u}")
        path = s.path + ("?" + s.query if s.query else "")
        own_hdr = "".join(h.strip() + "\r\n" for h in own if h.strip())
        reqs.append(f"GET {path} HTTP/1.1\r\nHost: {s.netloc}\r\nUser-Agent: tapster-bench\r\n{extra}{own_hdr}"
                    f"{end_of_head}".encode())

    keys = KeySet(a.keys) if a.keys else None
    no_retry = "\t0" if keys else ""  # the Retry-After column of a request that got no answer

    gc.disable()  # a collection pauses the loop for milliseconds, which would show as latency
    ep = select.epoll()
    conns = {}
    idle = collections.deque()

    def connect() -> None:
        """Opens one more keep-alive connection and puts it among the idle ones."""
        c = socket.create_connection((host, port))
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        c.setblocking(False)
        fd = c.fileno()
        # socket, buffer, due ns of the request in flight, measured?, its extra log columns (--keys):
        # label and URL index, then microseconds from due to sent
        conns[fd] = [c, bytearray(), 0, 0, "", ""]
        ep.register(fd, select.EPOLLIN)
        idle.append(fd)

    for _ in range(a.conns):
        connect()

    interval = 1e9 / a.rate
    total_secs = a.warmup + a.duration
    n_total = int(total_secs * a.rate)
    n_warm = int(a.warmup * a.rate)
    log_lines = []
    gaps = []  # pauses of the generator's own loop longer than 1 ms (it was descheduled or overloaded)
    prev = 0
    asleep = 0  # how long the last epoll wait was allowed to sleep (--block)
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
    log_file = open(a.log, "w")
    next_flush = t0 + 1_000_000_000
    next_progress = t0 + int(a.progress * 1e9) if a.progress > 0 else None
    next_keys_check = t0 + 200_000_000

    def send(fd: int, due: int, i: int) -> None:
        nonlocal in_flight, errors
        st = conns[fd]
        st[2] = due
        st[3] = i >= n_warm
        u = i % len(reqs)
        if keys is not None:
            label, auth = keys.pick(i)
            st[4] = f"\t{label}\t{u}"
            st[5] = f"\t{(mono() - due) // 1000}"
            data = reqs[u] + auth
        else:
            data = reqs[u]
        try:
            st[0].send(data)
            in_flight += 1
        except OSError:
            errors += 1
            if st[3]:
                log_lines.append(f"{(wall0 + due - t0) // 1000}\t-1\t0{st[4]}{no_retry}{st[5]}\n")
            idle.append(fd)

    next_i = 0
    while True:
        now = mono()
        if now - prev - asleep > 1_000_000 and prev and now - t0 > a.warmup * 1e9:
            gaps.append(now - prev - asleep)
        prev = now
        if keys is not None and now >= next_keys_check:
            keys.refresh()
            next_keys_check = now + 200_000_000
        if a.stream_log and now >= next_flush:
            log_file.writelines(log_lines)
            log_file.flush()
            log_lines.clear()
            next_flush = now + 1_000_000_000
        if next_progress is not None and now >= next_progress:
            print(f"fixedrate: {(now - t0) / 1e9:.0f} s, {sent} sent, {done} answered, {errors} connection errors, "
                  f"{in_flight} in flight, {len(backlog)} waiting for a connection", file=sys.stderr, flush=True)
            next_progress = now + int(a.progress * 1e9)
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
        timeout = 0
        if a.block:
            # nothing can be sent before the next due time or an answer (which frees a connection):
            # sleep until then; with requests waiting for a connection only an answer matters
            if backlog:
                wait_ns = 10_000_000
            elif next_i < n_total:
                wait_ns = t0 + int(next_i * interval) - mono()
            else:
                wait_ns = 100_000_000
            wait_ns = max(0, min(wait_ns, 100_000_000))
            timeout = wait_ns / 1e9
            # the longest pause that is this sleep and not a stall (epoll rounds up to whole ms)
            asleep = -(-wait_ns // 1_000_000) * 1_000_000
        for fd, ev in poll(timeout):
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
                    log_lines.append(f"{(wall0 + st[2] - t0) // 1000}\t-1\t{(mono() - st[2]) // 1000}"
                                     f"{st[4]}{no_retry}{st[5]}\n")
                ep.unregister(fd)
                st[0].close()
                del conns[fd]
                connect()
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
                if keys is not None:
                    retry_after = "1" if b"\nretry-after:" in head else "0"
                    log_lines.append(f"{(wall0 + st[2] - t0) // 1000}\t{status}\t{(fin - st[2]) // 1000}"
                                     f"{st[4]}\t{retry_after}{st[5]}\n")
                else:
                    log_lines.append(f"{(wall0 + st[2] - t0) // 1000}\t{status}\t{(fin - st[2]) // 1000}\n")
            if backlog:
                due, i = backlog.popleft()
                send(fd, due, i)
            else:
                idle.append(fd)

    elapsed = (mono() - t0) / 1e9
    lost = in_flight + len(backlog) + (n_total - next_i)
    log_file.writelines(log_lines)
    log_file.close()
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
    if keys is not None:
        print(f"keys file read {keys.reads} times, {keys.bad_lines} bad lines skipped")


class KeySet:
    """The keys of a --keys file and the weighted order in which requests use them."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.stamp = None
        self.order: list[tuple[str, bytes]] = []
        self.reads = 0
        self.bad_lines = 0
        self.refresh()
        if not self.order:
            sys.exit(f"{path}: no key with a positive weight")

    def refresh(self) -> None:
        """Reads the file again if it changed; a file without any usable key keeps the keys it had."""
        try:
            st = os.stat(self.path)
            stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
            if stamp == self.stamp:
                return
            text = open(self.path).read()
        except OSError:
            return
        self.stamp = stamp
        self.reads += 1
        weighted = []
        for line in text.splitlines():
            f = line.split("#", 1)[0].split()
            if not f:
                continue
            if len(f) != 3 or not f[1].isdigit():
                self.bad_lines += 1
                continue
            if int(f[1]) > 0:
                weighted.append((f[0], int(f[1]), f"Authorization: Bearer {f[2]}\r\n\r\n".encode()))
        if not weighted:
            return
        # smooth weighted round robin: each key's requests spread evenly over the cycle
        total = sum(w for _, w, _ in weighted)
        credit = [0] * len(weighted)
        order = []
        for _ in range(total):
            for j, (_, w, _) in enumerate(weighted):
                credit[j] += w
            best = max(range(len(weighted)), key=lambda j: credit[j])
            credit[best] -= total
            order.append((weighted[best][0], weighted[best][2]))
        self.order = order

    def pick(self, i: int) -> tuple[str, bytes]:
        """The label and Authorization line (with the blank line ending the head) of request i."""
        return self.order[i % len(self.order)]


if __name__ == "__main__":
    main()
