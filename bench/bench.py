#!/usr/bin/env python3
"""Helpers of bench/run (Python 3.11 standard library only).

Subcommands (bench/run calls them; all talk to 127.0.0.1 only):

  fetch BASE KEY OUT          fetch every scenario once from tapster, write its body and headers to
                              OUT/scenarios/ and an nginx config serving the same bytes to OUT/nginx.conf
  floor BASE KEY OUT          after fetch: ask tapster each scenario's request as wrk sends it and write
                              OUT/floor/answers.json, what bench/floor answers from memory (the floor)
  uris BASE KEY OUT FIXTURES  write OUT/mix.txt (the latency mix) and OUT/sweep-*.txt (the RSS sweep)
  deepest BASE KEY OUT        find the recipe with the deepest tree (latest version), write its path
  wait BASE T0_NS TIMEOUT_S   poll BASE/healthz until 200; print milliseconds since T0_NS
  rss PID                     print VmRSS and VmHWM of PID in KiB
  cpu PID                     print utime+stime of PID in clock ticks
  report OUT                  read everything bench/run wrote to OUT and print the table
  target OUT SCENARIO         print a scenario's request target (the picture's from OUT/scenarios/icon.path,
                              which fetch writes), for bench/count and bench/pair
  pair OUT SCENARIO...        read bench/pair's runs in OUT and print each build's requests/s and CPU time
                              per request, round by round, with their medians
  count OUT N SCENARIO...     read bench/count's callgrind dumps in OUT (N requests each) and print
                              instructions per request, tapster against the floor, and the functions
                              the difference is made of (OUT/count-*.txt keep the whole lists)

With NGINX_TLS_PORT, TLS_CERT and TLS_KEY set, fetch also gives nginx an HTTPS server (TLS 1.3 and
HTTP/2) on that port with the same certificate, key and locations.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import statistics
import sys
import time
import urllib.parse
from pathlib import Path

# The picture's path names its hash, which the data decides: fetch asks the item for it (its
# `icon_url`, at 64 px) and writes it to scenarios/icon.path, which bench/run and the report read.
ICON = "icon_url of /v1/items/pale-ale, ?size=64"

# name, path, send If-None-Match, ratio target (issue 17: ahead of nginx; issue 33: a picture at par)
SCENARIOS = [
    ("item", "/v1/items/pale-ale", False, 1.05),
    ("item-304", "/v1/items/pale-ale", True, 1.05),
    ("list", "/v1/items?limit=100", False, 1.0),
    ("search", "/v1/search?q=ale", False, 1.0),
    ("tree", "/v1/recipes/pale-ale/tree", False, 1.0),
    ("icon", ICON, False, 1.0),
]
# over HTTPS (TLS 1.3, keep-alive, wrk) and HTTP/2 over TLS (h2load): name, ratio target
TLS_SCENARIOS = [("item", 1.2), ("item-304", 1.2), ("list", 1.2), ("tree", 1.2)]
H2_SCENARIOS = [("item", 1.2), ("list", 1.2)]

# Response headers nginx does not copy: it makes these itself (or they describe the connection).
NOT_COPIED = {"date", "content-length", "connection", "keep-alive", "transfer-encoding", "server", "content-type"}
# Response headers the floor does not copy: hyper writes them itself, as it does for tapster.
FLOOR_NOT_COPIED = {"date", "content-length", "connection", "keep-alive", "transfer-encoding"}
# The target of the floor's table: tapster's cached answers within reach of its own stack (issue 35).
FLOOR_TARGET = 0.8
# ... and with a log line written for every request (`--log-level info`).
FLOOR_LINES_TARGET = 0.65


def get(base: str, key: str, path: str, extra: dict[str, str] | None = None):
    u = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    headers = {"Authorization": f"Bearer {key}", "User-Agent": "tapster-bench"}
    headers.update(extra or {})
    conn.request("GET", path, headers=headers)
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp.status, resp.getheaders(), body


def nginx_str(s: str) -> str:
    if "'" in s:
        raise SystemExit(f"cannot quote {s!r} for nginx")
    return "'" + s + "'"


def tls_server(locations: str) -> str:
    """nginx's HTTPS server, when bench/run asks for one: the same locations, TLS 1.3 only."""
    port, cert, key = (os.environ.get(v) for v in ("NGINX_TLS_PORT", "TLS_CERT", "TLS_KEY"))
    if not (port and cert and key):
        return ""
    return f"""    server {{
        listen 127.0.0.1:{port} ssl http2 backlog=4096;
        ssl_certificate {cert};
        ssl_certificate_key {key};
        ssl_protocols TLSv1.3;
        http2_max_concurrent_streams 128;
{locations}    }}
"""


def cmd_fetch(base: str, key: str, out: str) -> None:
    out_p = Path(out)
    sc = out_p / "scenarios"
    sc.mkdir(parents=True, exist_ok=True)
    locations: dict[str, list[str]] = {}
    maps = []
    for name, path, inm, _ in SCENARIOS:
        if path == ICON:
            status, _, item = get(base, key, "/v1/items/pale-ale")
            if status != 200:
                raise SystemExit(f"/v1/items/pale-ale: status {status}")
            url = json.loads(item)["data"]["icon_url"]
            path = urllib.parse.urlsplit(url).path + "?size=64"
            (sc / "icon.path").write_text(path)
        status, headers, body = get(base, key, path)
        if status != 200:
            raise SystemExit(f"{path}: status {status}: {body[:300]!r}")
        etag = dict((k.lower(), v) for k, v in headers).get("etag")
        if not etag:
            raise SystemExit(f"{path}: no ETag")
        (sc / f"{name}.body").write_bytes(body)
        (sc / f"{name}.headers.json").write_text(json.dumps(headers, indent=1))
        (sc / f"{name}.etag").write_text(etag)
        if inm:
            s304, h304, b304 = get(base, key, path, {"If-None-Match": etag})
            if s304 != 304:
                raise SystemExit(f"{path} with If-None-Match: status {s304}, not 304")
            (sc / f"{name}.304-headers.json").write_text(json.dumps(h304, indent=1))
        loc_path = urllib.parse.urlsplit(path).path
        if loc_path in locations:
            continue
        var = "$inm_" + re.sub(r"[^a-z0-9]", "_", name)
        maps.append(f"    map $http_if_none_match {var} {{ default 0; {nginx_str(etag)} 1; }}\n")
        ctype = dict((k.lower(), v) for k, v in headers)["content-type"]
        lines = [
            f"        location = {loc_path} {{\n",
            f"            alias {(sc / f'{name}.body').resolve()};\n",
            "            types { }\n",
            "            max_ranges 0;  # no Accept-Ranges header: tapster sends none\n",
            "            add_header Last-Modified \"\";  # nor Last-Modified\n",
            f"            default_type {nginx_str(ctype)};\n",
        ]
        for k, v in headers:
            if k.lower() in NOT_COPIED:
                continue
            lines.append(f"            add_header {k} {nginx_str(v)} always;\n")
        lines.append(f"            if ({var}) {{ return 304; }}\n")
        lines.append("        }\n")
        locations[loc_path] = lines
    port = int(os.environ.get("NGINX_PORT", "18081"))
    conf = f"""# Written by bench/bench.py: nginx serving the exact bytes and headers tapster answered.
worker_processes 1;
daemon off;
pid {out_p.resolve()}/nginx.pid;
error_log {out_p.resolve()}/nginx-error.log warn;
events {{ worker_connections 1024; multi_accept on; }}
http {{
    access_log off;
    server_tokens off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 65;
    keepalive_requests 100000000;
    open_file_cache max=64 inactive=600s;
    open_file_cache_valid 600s;
    etag off;
    map_hash_bucket_size 128;  # a picture's ETag is its SHA-256: 66 characters
    client_body_temp_path {out_p.resolve()}/nginx-tmp/body;
    proxy_temp_path {out_p.resolve()}/nginx-tmp/proxy;
    fastcgi_temp_path {out_p.resolve()}/nginx-tmp/fastcgi;
    uwsgi_temp_path {out_p.resolve()}/nginx-tmp/uwsgi;
    scgi_temp_path {out_p.resolve()}/nginx-tmp/scgi;
{''.join(maps)}    server {{
        listen 127.0.0.1:{port} backlog=4096;
{''.join(''.join(l) for l in locations.values())}    }}
{tls_server(''.join(''.join(l) for l in locations.values()))}}}
"""
    (out_p / "nginx-tmp").mkdir(exist_ok=True)
    (out_p / "nginx.conf").write_text(conf)


def evenly(xs: list, n: int) -> list:
    if len(xs) <= n:
        return list(xs)
    return [xs[i * len(xs) // n] for i in range(n)]


def cmd_uris(base: str, key: str, out: str, fixtures: str) -> None:
    out_p = Path(out)
    status, _, body = get(base, key, "/v1/versions")
    versions = [v.get("version") or v.get("name") for v in json.loads(body)["data"]]
    q = urllib.parse.quote
    # --- the latency mix: hot routes a client would ask for, in several languages -----------------
    fx = Path(fixtures) / sorted(p.name for p in Path(fixtures).iterdir() if p.name.startswith("v"))[-1]
    items = [i for i in json.loads((fx / "items.json").read_text()) if not i.get("unlisted")]
    langs_all = [l["code"] for l in json.loads(get(base, key, "/v1/languages")[2])["data"]]
    mix = [
        "/v1/items/pale-ale",
        "/v1/items?limit=100",
        "/v1/search?q=ale",
        "/v1/recipes/pale-ale/tree",
        "/v1/items/pale-ale?lang=de",
        "/v1/items?limit=50&offset=50&kind=food&lang=de",
        "/v1/search?q=biere&lang=fr",
        "/v1/recipes/pale-ale",
        "/v1/items/pale-ale/price?ingredients=expensive&aging=aged",
        "/v1/items/pale-ale/sources",
        "/v1/items/pale-ale/used-in",
        "/v1/rankings/products?food_type=drink&limit=10",
        "/v1/versions",
        "/v1/languages?lang=ja",
        "/v1/shops",
        "/v1/crops?season=spring&sort=name",
    ]
    for i, it in enumerate(evenly(items, 24)):
        mix.append(f"/v1/items/{it['slug']}?lang={langs_all[i % len(langs_all)]}")
    (out_p / "mix.txt").write_text("".join(base + p + "\n" for p in mix))
    # --- the RSS sweep: a sample of every single-record route, x every version x every language ---
    per_version = []
    for v in versions:
        fxv = Path(fixtures) / v
        load = lambda f: json.loads((fxv / f).read_text())  # noqa: E731
        its = [i for i in load("items.json") if not i.get("unlisted")]
        sellable = [i for i in its if i.get("can_be_sold")]
        recs = load("recipes.json")
        paths = [f"/v1/items/{i['slug']}" for i in evenly(its, 60)]
        paths += [f"/v1/items/{i['slug']}/sources" for i in evenly(its[7:], 10)]
        paths += [f"/v1/items/{i['slug']}/used-in" for i in evenly(its[3:], 10)]
        paths += [f"/v1/items/{i['slug']}/price" for i in evenly(sellable, 10)]
        paths += [f"/v1/recipes/{r['slug']}" for r in evenly(recs, 40)]
        paths += [f"/v1/recipes/{r['slug']}/tree" for r in evenly(recs[5:], 10)]
        paths += [f"/v1/crops/{c['slug']}" for c in evenly(load("crops.json"), 20)]
        paths += [f"/v1/shops/{s['slug']}" for s in load("shops.json")]
        paths += [f"/v1/ingredient-groups/{g['slug']}" for g in load("ingredient_groups.json")]
        for kind in ("quests", "perks", "spells", "talents", "reputation", "missions", "letters"):
            paths += [f"/v1/{kind}/{q(r['key'], safe='')}" for r in evenly(load(f"{kind}.json"), 10)]
        # check each path once (English) so that the sweep only asks for records that exist
        ok = []
        for p in paths:
            sep = "&" if "?" in p else "?"
            s, _, _ = get(base, key, f"{p}{sep}version={v}")
            if s == 200:
                ok.append(p)
        if len(ok) < len(paths):
            print(f"note: {len(paths) - len(ok)} of {len(paths)} sampled paths of {v} are not 200; left out", file=sys.stderr)
        langs = [l["code"] for l in json.loads(get(base, key, f"/v1/languages?version={v}")[2])["data"]]
        per_version.append((v, ok, langs))
    urls = [f"{base}/v1/versions/{v}" for v, _, _ in per_version]  # these take no version or lang
    # SWEEP_SEARCHES=n adds n name searches per version and language (bench/versions: so that every
    # version's name index is built)
    searches = ["ale", "stew", "bread", "wine"][: int(os.environ.get("SWEEP_SEARCHES", "0"))]
    for v, ok, langs in per_version:
        for lang in langs:
            for p in ok + [f"/v1/search?q={s}" for s in searches]:
                sep = "&" if "?" in p else "?"
                urls.append(f"{base}{p}{sep}version={v}&lang={lang}")
    parts = int(os.environ.get("SWEEP_PARTS", "4"))
    for i in range(parts):
        (out_p / f"sweep-{i}.txt").write_text("".join(u + "\n" for u in urls[i::parts]))
    (out_p / "sweep-summary.json").write_text(json.dumps({
        "versions": len(per_version),
        "languages": sorted({len(l) for _, _, l in per_version}),
        "paths_per_version": [len(ok) for _, ok, _ in per_version],
        "requests": len(urls),
    }))
    print(len(urls))


def depth(node) -> int:
    if isinstance(node, dict):
        kids = [depth(v) for k, v in node.items() if isinstance(v, (dict, list))]
        own = 1 if node.get("kind") == "item" else 0
        return own + max(kids, default=0)
    if isinstance(node, list):
        return max((depth(x) for x in node), default=0)
    return 0


def cmd_deepest(base: str, key: str, out: str) -> None:
    """The recipe whose tree nests deepest (ties: the biggest answer), found by asking for all."""
    best = None
    offset = 0
    slugs = []
    while True:
        s, _, body = get(base, key, f"/v1/recipes?limit=100&offset={offset}")
        doc = json.loads(body)
        slugs += [r["slug"] for r in doc["data"]]
        if not doc.get("pagination", {}).get("next"):
            break
        offset += 100
    for slug in slugs:
        s, _, body = get(base, key, f"/v1/recipes/{slug}/tree")
        if s != 200:
            continue
        d = depth(json.loads(body)["data"])
        cand = (d, len(body), slug)
        if best is None or cand > best:
            best = cand
    (Path(out) / "deepest.json").write_text(json.dumps({"slug": best[2], "depth": best[0], "bytes": best[1]}))
    print(f"/v1/recipes/{best[2]}/tree")


def cmd_wait(base: str, t0_ns: str, timeout: str) -> None:
    u = urllib.parse.urlsplit(base)
    deadline = time.monotonic() + float(timeout)
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection(u.hostname, u.port, timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                print(f"{(time.time_ns() - int(t0_ns)) / 1e6:.1f}")
                return
        except (OSError, http.client.HTTPException):
            pass
        time.sleep(0.002)
    raise SystemExit(f"{base}/healthz did not answer 200 within {timeout} s")


def cmd_rss(pid: str) -> None:
    st = Path(f"/proc/{pid}/status").read_text()
    rss = re.search(r"VmRSS:\s+(\d+)", st).group(1)
    hwm = re.search(r"VmHWM:\s+(\d+)", st).group(1)
    print(rss, hwm)


def cmd_cpu(pid: str) -> None:
    f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    print(int(f[11]) + int(f[12]))


# ---------------------------------------------------------------- report -------------------------

UNIT = {"us": 1e-3, "ms": 1.0, "s": 1e3}


def parse_wrk(text: str) -> dict:
    r = {}
    m = re.search(r"Requests/sec:\s+([\d.]+)", text)
    r["rps"] = float(m.group(1)) if m else None
    m = re.search(r"(\d+) requests in", text)
    r["requests"] = int(m.group(1)) if m else 0
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    r["bad"] = int(m.group(1)) if m else 0
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    r["sock"] = sum(map(int, m.groups())) if m else 0
    for pct in ("50", "99"):
        m = re.search(rf"^\s+{pct}%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
        r[f"p{pct}_ms"] = float(m.group(1)) * UNIT[m.group(2)] if m else None
    return r


def parse_h2load(text: str) -> dict:
    """h2load's summary in parse_wrk's terms (no latency percentiles)."""
    r = {"p50_ms": None, "p99_ms": None}
    m = re.search(r"finished in [\d.]+\w*, ([\d.]+) req/s", text)
    r["rps"] = float(m.group(1)) if m else None
    m = re.search(r"requests: (\d+) total, \d+ started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout", text)
    r["requests"] = int(m.group(2)) if m else 0
    r["sock"] = int(m.group(4)) + int(m.group(5)) + int(m.group(6)) if m else 1
    m = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", text)
    r["bad"] = int(m.group(3)) + int(m.group(4)) if m else 1
    return r


def read(p: Path) -> str:
    return p.read_text() if p.exists() else ""


def pctl(sorted_xs: list[float], p: float) -> float:
    if not sorted_xs:
        return float("nan")
    k = min(len(sorted_xs) - 1, max(0, int(round(p / 100 * len(sorted_xs) + 0.5)) - 1))
    return sorted_xs[k]


def cmd_floor(base: str, key: str, out: str) -> None:
    out_p = Path(out)
    sc, floor = out_p / "scenarios", out_p / "floor"
    floor.mkdir(parents=True, exist_ok=True)
    answers = []
    for name, path, inm, _ in SCENARIOS:
        if path == ICON:
            path = (sc / "icon.path").read_text().strip()
        extra = {"If-None-Match": (sc / f"{name}.etag").read_text().strip()} if inm else {}
        status, headers, body = get(base, key, path, extra)
        (floor / f"{name}.body").write_bytes(body)
        answers.append({
            "target": path,
            "if_none_match": inm,
            "status": status,
            "headers": [[k, v] for k, v in headers if k.lower() not in FLOOR_NOT_COPIED],
            "body_file": f"{name}.body",
        })
    (floor / "answers.json").write_text(json.dumps(answers, indent=1))


def cmd_report(out: str) -> None:
    o = Path(out)
    rows = []  # (measure, tapster, nginx, value, target, ok)
    floors = []  # (case, tapster, floor, tapster / floor, CPU per request, target, ok)

    def add(measure, value, target, ok, t="", n=""):
        rows.append((measure, t, n, value, target, ok))

    cpu_hz = os.sysconf("SC_CLK_TCK")

    def throughput(run: str, label: str, target: float, parse=parse_wrk, out_prefix: str = "wrk"):
        """One row: tapster against nginx over the runs named `run` (best run of each)."""
        t_runs = sorted(o.glob(f"{out_prefix}-tapster-{run}-r*.txt"))
        n_runs = sorted(o.glob(f"{out_prefix}-nginx-{run}-r*.txt"))
        if not t_runs or not n_runs:
            return
        tp = [parse(read(p)) for p in t_runs]
        nx = [parse(read(p)) for p in n_runs]
        t_best = max(r["rps"] or 0 for r in tp)
        n_best = max(r["rps"] or 0 for r in nx)
        bad = sum(r["bad"] + r["sock"] for r in tp + nx)
        ratio = t_best / n_best if n_best else 0.0

        def cpu(server):
            """CPU microseconds per request and the share of its core the server used (best run)."""
            vals = []
            for p in sorted(o.glob(f"cpu-{server}-{run}-r*.txt")):
                ticks, reqs = map(float, p.read_text().split())
                secs = re.search(r"requests in ([\d.]+)s|finished in ([\d.]+)s",
                                 read(o / p.name.replace("cpu-", f"{out_prefix}-")))
                if reqs and secs:
                    vals.append((ticks / cpu_hz / reqs * 1e6, ticks / cpu_hz / float(secs.group(1) or secs.group(2))))
            return min(vals) if vals else None

        tc, nc = cpu("tapster"), cpu("nginx")
        cpu_note = (f"; CPU/req {tc[0]:.0f} vs {nc[0]:.0f} us, core busy {tc[1]:.0%} vs {nc[1]:.0%}"
                    if tc and nc else "")
        add(label, f"{ratio:.2f}{cpu_note}" + (f", {bad} errors" if bad else ""),
            f">= {target}" if target else "reported", (ratio >= target if target else None) if not bad else False,
            f"{t_best:,.0f}/s", f"{n_best:,.0f}/s")
        f_runs = sorted(o.glob(f"{out_prefix}-floor-{run}-r*.txt"))
        if f_runs:
            fl = [parse(read(p)) for p in f_runs]
            f_best = max(r["rps"] or 0 for r in fl)
            f_bad = sum(r["bad"] + r["sock"] for r in fl)
            fc = cpu("floor")
            f_ratio = t_best / f_best if f_best else 0.0
            # The issue's targets against the floor are the plain HTTP/1.1 ones; over TLS and HTTP/2
            # the floor is reported beside nginx, whose targets those are.
            plain = not run.startswith(("tls-", "h2-"))
            floors.append((label, f"{t_best:,.0f}/s", f"{f_best:,.0f}/s",
                           f"{f_ratio:.2f}" + (f", {f_bad} errors" if f_bad else ""),
                           f"{tc[0]:.1f} vs {fc[0]:.1f} us" if tc and fc else "",
                           f">= {FLOOR_TARGET}" if plain else "reported",
                           (f_ratio >= FLOOR_TARGET if plain else None) if not (bad or f_bad) else False))

    def lines_on(name: str, label: str) -> None:
        """A row of the floor's table: tapster with request lines on against the floor's runs."""
        t_runs = sorted(o.glob(f"wrk-tapster-lines-{name}-r*.txt"))
        f_runs = sorted(o.glob(f"wrk-floor-{name}-r*.txt"))
        if not t_runs or not f_runs:
            return
        tp, fl = [parse_wrk(read(p)) for p in t_runs], [parse_wrk(read(p)) for p in f_runs]
        t_best, f_best = max(r["rps"] or 0 for r in tp), max(r["rps"] or 0 for r in fl)
        bad = sum(r["bad"] + r["sock"] for r in tp + fl)

        def cpu(run: str) -> float | None:
            vals = []
            for p in sorted(o.glob(f"cpu-{run}-r*.txt")):
                ticks, reqs = map(float, p.read_text().split())
                if reqs:
                    vals.append(ticks / cpu_hz / reqs * 1e6)
            return min(vals) if vals else None

        tc, fc = cpu(f"tapster-lines-{name}"), cpu(f"floor-{name}")
        ratio = t_best / f_best if f_best else 0.0
        floors.append((label, f"{t_best:,.0f}/s", f"{f_best:,.0f}/s",
                       f"{ratio:.2f}" + (f", {bad} errors" if bad else ""),
                       f"{tc:.1f} vs {fc:.1f} us" if tc and fc else "",
                       f">= {FLOOR_LINES_TARGET}", ratio >= FLOOR_LINES_TARGET and not bad))

    def resolved(path: str) -> str:
        return read(o / "scenarios" / "icon.path").strip() if path == ICON else path

    for name, path, inm, target in SCENARIOS:
        throughput(name, f"throughput {name}: {'304 ' if inm else ''}{resolved(path)}", target)
    for name, path, inm, _ in SCENARIOS[:2]:
        lines_on(name, f"throughput {name}: {'304 ' if inm else ''}{path}, request lines on")
    paths = {name: (path, inm) for name, path, inm, _ in SCENARIOS}
    for name, target in TLS_SCENARIOS:
        path, inm = paths[name]
        throughput(f"tls-{name}", f"HTTPS {name}: {'304 ' if inm else ''}{path}", target)
    throughput("tls-handshake", f"HTTPS, a new connection per request: {paths['item'][0]}", 0)
    for name, target in H2_SCENARIOS:
        throughput(f"h2-{name}", f"HTTP/2 {name}: {paths[name][0]} (16 connections x 16 streams)", target,
                   parse_h2load, "h2load")
    # latency at a fixed rate
    def lat(log: Path):
        durs, starts, errs = [], [], 0
        for line in log.read_text().splitlines():
            f = line.split("\t")
            if len(f) < 3:
                continue
            starts.append(int(f[0]))
            st = int(f[1])
            if not 200 <= st < 400:
                errs += 1
            if st >= 0:
                durs.append(int(f[2]) / 1000.0)
        durs.sort()
        summ = read(log.with_name(log.stem + "-summary.txt"))
        m = re.search(r"errors: (\d+) connection, (\d+) status, (\d+) unanswered", summ)
        if m:
            errs = max(errs, sum(map(int, m.groups())))
        else:
            errs = max(errs, 1)
        m = re.search(r"generator stalls .*: (\d+), ([\d.]+) s in all \(([\d.]+)% of the measured time\), longest ([\d.]+) ms", summ)
        stall = f"{m.group(3)}% of the time, longest {m.group(4)} ms" if m else None
        return [pctl(durs, p) for p in (50, 99, 99.9)], errs, len(starts), stall

    if (o / "latency.json").exists():
        target_rate = float(read(o / "latency-rate.txt") or 0)
        (p50, p99, p999), errs, n, achieved, _, _ = oha_result(o / "latency.json")
        nx = oha_result(o / "latency-nginx.json") if (o / "latency-nginx.json").exists() else None
        ng = (lambda i: f"{nx[0][i]:.2f} ms") if nx else (lambda i: "")
        add(f"latency at {target_rate:,.0f}/s (oha, achieved {achieved:,.0f}/s), mix: p50 (nginx: its 4 URLs)",
            f"{p50:.2f} ms", "", None, "", ng(0))
        add("  p99", f"{p99:.2f} ms", "< 2 ms", p99 < 2.0, "", ng(1))
        add("  p99.9", f"{p999:.2f} ms", "< 5 ms", p999 < 5.0, "", ng(2))
        add("  errors (answers)", f"{errs} ({n})", "0", errs == 0, "", f"{nx[1]} ({nx[2]})" if nx else "")
    elif (o / "latency.log").exists():
        target_rate = float(read(o / "latency-rate.txt") or 0)
        (p50, p99, p999), errs, n, lag = lat(o / "latency.log")
        nx = lat(o / "latency-nginx.log") if (o / "latency-nginx.log").exists() else None
        ng = (lambda i: f"{nx[0][i]:.2f} ms") if nx else (lambda i: "")
        add(f"latency at {target_rate:,.0f}/s, mix: p50 (nginx: its 4 URLs)", f"{p50:.2f} ms", "", None, "", ng(0))
        add("  p99", f"{p99:.2f} ms", "< 2 ms", p99 < 2.0, "", ng(1))
        add("  p99.9", f"{p999:.2f} ms", "< 5 ms", p999 < 5.0, "", ng(2))
        add("  errors (measured answers)", f"{errs} ({n})", "0", errs == 0, "", f"{nx[1]} ({nx[2]})" if nx else "")
        if lag is not None:
            add("  generator stalled (own loop paused > 1 ms)", lag, "", None, "", nx[3] if nx and nx[3] else "")
    # uncached
    skip = read(o / "uncached-skipped.txt").strip()
    if skip:
        add("uncached (--cache-mib 0)", "skipped: " + skip, "", None)
    else:
        deep = read(o / "deepest-path.txt").strip()
        for name in [s[0] for s in SCENARIOS] + ["tree-deepest"]:
            p = o / f"wrk-uncached-{name}.txt"
            if not p.exists():
                continue
            r = parse_wrk(read(p))
            limit = 5.0 if name.startswith("tree") else 1.0
            what = {"tree-deepest": f"tree-deepest {deep}"}.get(name, name)
            v = r["p50_ms"]
            bad = r["bad"] + r["sock"]
            add(f"uncached median {what}", (f"{v:.3f} ms" if v is not None else "?") + (f", {bad} errors" if bad else ""),
                f"< {limit:g} ms", v is not None and v < limit and bad == 0)
    # memory
    rs = read(o / "rss.txt").split()
    if len(rs) >= 4:
        start_rss, _, after_rss, hwm = map(int, rs[:4])
        end = read(o / "rss-end.txt").split()
        if end:
            hwm = max(hwm, int(end[1]))
        summ = json.loads(read(o / "sweep-summary.json") or "{}")
        sweep_bad = read(o / "sweep-bad.txt").strip() or "0"
        add("RSS after start", f"{start_rss / 1024:.0f} MiB", "< 300 MiB", start_rss / 1024 < 300)
        add(f"RSS after sweep ({summ.get('requests', '?')} single-record answers, {sweep_bad} non-200)",
            f"{after_rss / 1024:.0f} MiB (peak of run {hwm / 1024:.0f})", "< 300 MiB", hwm / 1024 < 300)
    st = [float(x) for x in read(o / "startup.txt").split()]
    if st:
        med = statistics.median(st)
        add("start-up to /healthz 200 (median of " + str(len(st)) + ")",
            f"{med:.0f} ms ({', '.join(f'{x:.0f}' for x in st)})", "< 2000 ms", med < 2000)

    # shared limits: the same binary with --redis-url against the in-process limiter, same run
    for load, what in (("one-key", "one key"), ("keys", "32 keys")):
        memory = [parse_wrk(read(p)) for p in sorted(o.glob(f"wrk-limits-{load}-memory-r*.txt"))]
        shared = [parse_wrk(read(p)) for p in sorted(o.glob(f"wrk-limits-{load}-redis-r*.txt"))]
        if not (memory and shared):
            continue
        best_memory = max(memory, key=lambda r: r["rps"] or 0)
        best_shared = max(shared, key=lambda r: r["rps"] or 0)
        bad = sum(r["bad"] + r["sock"] for r in memory + shared)
        ratio = (best_shared["rps"] or 0) / best_memory["rps"] if best_memory["rps"] else 0.0
        add(f"item, {what}, limits in Redis (tapster column) / in memory (nginx column), throughput",
            f"{ratio:.2f}x" + (f", {bad} errors" if bad else ""), ">= 0.70x", ratio >= 0.7 and bad == 0,
            f"{best_shared['rps'] or 0:,.0f}/s", f"{best_memory['rps'] or 0:,.0f}/s")
        p99_memory, p99_shared = best_memory["p99_ms"], best_shared["p99_ms"]
        if p99_memory is not None and p99_shared is not None:
            added = p99_shared - p99_memory
            add(f"item, {what}, limits in Redis: p99 added (columns as above)", f"{added:+.3f} ms", "< 1 ms",
                added < 1.0, f"{p99_shared:.3f} ms", f"{p99_memory:.3f} ms")
    skip = read(o / "limits-skipped.txt").strip()
    if skip:
        add("shared limits", "skipped: " + skip, "", None)

    print_table(("measure", "tapster", "nginx", "result", "target", "met"), rows)
    missed = [r for r in rows if r[5] is False]
    print(f"\n{sum(1 for r in rows if r[5] is True)} targets met, {len(missed)} not met")
    if floors:
        print("\nAgainst the floor (bench/floor: hyper alone answering tapster's bytes from memory, same core):\n")
        print_table(("case", "tapster", "floor", "tapster / floor", "CPU per request", "target", "met"), floors)


def print_table(head: tuple, rows: list, fit: int | None = None) -> None:
    """Prints `rows` under `head` as a Markdown table; the last column is a verdict (True, False or
    None), shown as yes, NO or -. Columns are as wide as the first `fit` rows need (all by default),
    so that one long row can overflow instead of widening every other."""
    table = [head] + [(*r[:-1], {True: "yes", False: "NO", None: "-"}[r[-1]]) for r in rows]
    widths = [max(len(r[i]) for r in table[: None if fit is None else fit + 1]) for i in range(len(head))]
    fmt = "| " + " | ".join("{:<%d}" % w for w in widths) + " |"
    print(fmt.format(*head))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in table[1:]:
        print(fmt.format(*r))


def oha_result(path: Path):
    """Latency percentiles (ms), errors and answers of an oha --output-format json run. Requests oha
    itself abandons at the end of its run ("aborted due to deadline") are not the server's errors."""
    d = json.loads(path.read_text())
    pct = d.get("latencyPercentiles") or {}
    statuses = {int(k): v for k, v in (d.get("statusCodeDistribution") or {}).items()}
    errors = {k: v for k, v in (d.get("errorDistribution") or {}).items() if "deadline" not in k}
    answered = sum(statuses.values())
    bad = sum(v for k, v in statuses.items() if not 200 <= k < 400) + sum(errors.values())
    ms = [1000.0 * (pct.get(k) or 0.0) for k in ("p50", "p99", "p99.9")]
    return ms, bad, answered, d.get("summary", {}).get("requestsPerSec", 0.0), statuses, errors


def callgrind_dumps(out: Path, server: str) -> dict[str, Path]:
    """bench/count's dumps of one server by scenario: each names the scenario as its trigger."""
    dumps = {}
    for f in sorted(out.glob(f"callgrind.{server}.*")):
        m = re.search(r"^desc: Trigger: (?:Client Request: |dump )(\S+)$", read(f), re.M)
        if m:
            dumps[m.group(1)] = f
    return dumps


def callgrind_total(f: Path) -> int:
    m = re.search(r"^(?:summary|totals): (\d+)", read(f), re.M)
    if not m:
        raise SystemExit(f"{f}: no instruction total")
    return int(m.group(1))


def callgrind_functions(f: Path) -> dict[str, int]:
    """Instructions of each function itself (not of what it calls), by name (its inlined parts, which
    callgrind files under their own source files, added up), from callgrind_annotate. The frames that
    were running when the counters were zeroed (`main`, the runtime, the accept loop) are left out:
    callgrind gives them the whole dump."""
    import subprocess
    text = subprocess.run(
        ["callgrind_annotate", "--inclusive=no", "--auto=no", "--threshold=100", str(f)],
        check=True, capture_output=True, text=True,
    ).stdout
    total = callgrind_total(f)
    functions: dict[str, int] = {}
    for line in text.splitlines():
        m = re.match(r"^\s*([\d,]+) \([\s\d.]+%\)\s+(.*?)(?: \[[^\]]*\])?(?: \([\d,]+x\))?$", line)
        if not m or ":" not in m.group(2):
            continue
        cost, name = int(m.group(1).replace(",", "")), m.group(2).split(":", 1)[1]
        if cost > total // 2:
            continue
        functions[name] = functions.get(name, 0) + cost
    return functions


def cmd_count(out: str, n: str, *scenarios: str) -> None:
    o, n_req = Path(out), int(n)
    tapster, floor = callgrind_dumps(o, "tapster"), callgrind_dumps(o, "floor")
    rows = []
    for name in scenarios:
        t = callgrind_total(tapster[name]) / n_req if name in tapster else None
        f = callgrind_total(floor[name]) / n_req if name in floor else None
        ratio = f"{f / t:.2f}" if t and f else "-"
        rows.append((name, f"{t:,.0f}" if t else "-", f"{f:,.0f}" if f else "-",
                     f"{t - f:,.0f}" if t and f else "-", ratio))
    # User-space instructions only: not the throughput target (the kernel's share is the same for both).
    head = ("case", "tapster", "floor", "difference", "floor / tapster")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    for r in [head, tuple("-" * w for w in widths), *rows]:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")
    for name in scenarios:
        if name not in tapster or name not in floor:
            continue
        t, f = callgrind_functions(tapster[name]), callgrind_functions(floor[name])
        diff = sorted(((t.get(k, 0) - f.get(k, 0)) / n_req, k) for k in set(t) | set(f))
        diff.reverse()
        lines = [f"{d:10,.1f}  {t.get(k, 0) / n_req:10,.1f}  {f.get(k, 0) / n_req:10,.1f}  {k}" for d, k in diff]
        head = f"{'tapster-floor':>10}  {'tapster':>10}  {'floor':>10}  function (instructions per request, itself)"
        (o / f"count-{name}.txt").write_text("\n".join([head, *lines]) + "\n")
        print(f"\n{name}: where tapster's extra instructions are (whole list: {o / f'count-{name}.txt'})")
        print(head)
        for line in lines[:20]:
            print(line)


def cmd_target(out: str, name: str) -> None:
    for scenario, path, _, _ in SCENARIOS:
        if scenario == name:
            print(read(Path(out) / "scenarios" / "icon.path").strip() if path == ICON else path)
            return
    raise SystemExit(f"unknown scenario: {name}")


def cmd_pair(out: str, *scenarios: str) -> None:
    o = Path(out)
    cpu_hz = os.sysconf("SC_CLK_TCK")
    rows = []
    for name in scenarios:
        runs = {}
        for build in ("before", "after"):
            rps, cpu = [], []
            for f in sorted(o.glob(f"cpu-{build}-{name}-r*.txt")):
                ticks, reqs, secs = map(float, f.read_text().split())
                if not reqs:
                    continue  # a failed run: its wrk output says why
                rps.append(reqs / secs)
                cpu.append(ticks / cpu_hz / reqs * 1e6)
            runs[build] = (rps, cpu)
        (b_rps, b_cpu), (a_rps, a_cpu) = runs["before"], runs["after"]
        if not (b_rps and a_rps):
            continue
        med = statistics.median
        rows.append((
            name,
            " / ".join(f"{x:,.0f}" for x in b_rps), " / ".join(f"{x:,.0f}" for x in a_rps),
            f"{med(a_rps) / med(b_rps):.2f}",
            " / ".join(f"{x:.2f}" for x in b_cpu), " / ".join(f"{x:.2f}" for x in a_cpu),
            f"{med(a_cpu) / med(b_cpu):.2f}",
        ))
    head = ("case", "before, requests/s", "after, requests/s", "after / before",
            "before, CPU us/request", "after, CPU us/request", "after / before")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    for r in [head, tuple("-" * w for w in widths), *rows]:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")


def cmd_oha_summary(path: str) -> None:
    ms, bad, answered, rate, statuses, errors = oha_result(Path(path))
    print(f"oha: {answered} answers at {rate:,.0f}/s; p50 {ms[0]:.2f} ms, p99 {ms[1]:.2f} ms, "
          f"p99.9 {ms[2]:.2f} ms; statuses {statuses}; errors {errors or 'none'}")


def main() -> None:
    cmd, *args = sys.argv[1:]
    {
        "fetch": cmd_fetch,
        "floor": cmd_floor,
        "uris": cmd_uris,
        "deepest": cmd_deepest,
        "wait": cmd_wait,
        "rss": cmd_rss,
        "cpu": cmd_cpu,
        "report": cmd_report,
        "oha-summary": cmd_oha_summary,
        "count": cmd_count,
        "pair": cmd_pair,
        "target": cmd_target,
    }[cmd](*args)


if __name__ == "__main__":
    main()
