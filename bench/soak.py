#!/usr/bin/env python3
"""Helpers of bench/soak (Python 3.11 standard library only; they talk to 127.0.0.1 only).

  prepare BASE KEY OUT FIXTURES NEW_VERSION
        write OUT/urls.txt (the mixed load, one URL a line, some with an If-None-Match header after a
        tab, in a shuffled order) and OUT/urls-meta.json (the class of each line, for the report)
  control OUT BIN DATA_DIR BASE PID GEN_PID SECS WARM ROTATE_EVERY NEW_FIXTURE
        the timeline of the run, started together with the load generator: samples the server's
        VmRSS and the CPU time of the server (PID) and of the generator (GEN_PID), every ROTATE_EVERY s creates a key, waits until the server takes it and starts
        using it, and revokes an older one; at SECS/2 imports NEW_FIXTURE into the live data dir and
        waits for the server to report it as latest. Writes OUT/events.jsonl and OUT/rss.tsv.
  report OUT
        read everything the run wrote to OUT, print the table, exit 1 unless every check passed
  prio NICE CMD [ARGS...]
        run CMD (exec, so with this process's id) in a session of its own whose scheduler
        autogroup has the nice value NICE. With autogroups (kernel.sched_autogroup_enabled, the
        default), a plain `nice` only ranks processes within their own session; against builds
        running in other sessions only the autogroup's nice counts. NICE 0 or not root: just exec.

OUT/keys.txt is the generator's keys file (bench/fixedrate.py --keys): `LABEL WEIGHT KEY` lines.
Labels: `main-N` (unlimited keys, most of the load), `limited` (a small per-minute limit that the
load exceeds), `rot-N` (created during the run, later revoked). bench/soak writes the first lines;
`control` rewrites the file (by rename) as keys come and go.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import re
import subprocess
import sys
import time
import urllib.parse
from collections import Counter, defaultdict
from pathlib import Path

from bench import pctl, print_table  # bench/bench.py, beside this script

# Weights in the keys file: the main keys carry most of the load; the limited key about 2 % of it,
# which at 5,000/s is far over its limit; each rotating key about 2 % while it is valid. After its
# revocation a key keeps a small weight for a few seconds (about 10 requests/s at 5,000/s): enough
# to see every answer turn to 401. That is more than the server's limit on failed authentications
# per address (20 at once, one more every 3 s), so some of them are 429s instead, as they should be.
MAIN_WEIGHT = 100
LIMITED_WEIGHT = 10
ROTATING_WEIGHT = 10
REVOKED_WEIGHT = 1
# Answers of a revoked key must be 401 from this long after `keys revoke` returned (the server
# reloads the accounts database every 0.25 s; the brief allows 1 s, plus margin).
REVOKE_GRACE_S = 1.5
# How long a revoked key stays in the mix after the grace period, then it is dropped.
REVOKED_TAIL_S = 3.0
# Rotating keys alive at once (the oldest is revoked when a new one makes one more).
ROTATING_LIVE = 2
# The limited key's limits (bench/soak creates it with these).
LIMITED_PER_MINUTE = 60
LIMITED_BURST = 10
PANIC_RE = re.compile(r"panicked at|\bpanic\b", re.I)


def now_us() -> int:
    return time.time_ns() // 1000


def get(base: str, key: str | None, path: str, extra: dict[str, str] | None = None, timeout: float = 30):
    u = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    headers = {"User-Agent": "tapster-soak"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    headers.update(extra or {})
    try:
        conn.request("GET", path, headers=headers)
        resp = conn.getresponse()
        body = resp.read()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, body
    finally:
        conn.close()


def evenly(xs: list, n: int) -> list:
    if len(xs) <= n:
        return list(xs)
    return [xs[i * len(xs) // n] for i in range(n)]


# ---------------------------------------------------------------- prepare ----------------------------


def candidate_paths(fx: Path) -> list[tuple[str, str]]:
    """(class, path) of a sample of every route, from one fixture version's files."""
    load = lambda f: json.loads((fx / f).read_text())  # noqa: E731
    q = urllib.parse.quote
    its = [i for i in load("items.json") if not i.get("unlisted")]
    sellable = [i for i in its if i.get("can_be_sold")]
    recs = load("recipes.json")
    out = [("item", f"/v1/items/{i['slug']}") for i in evenly(its, 60)]
    out += [("sources", f"/v1/items/{i['slug']}/sources") for i in evenly(its[7:], 12)]
    out += [("used-in", f"/v1/items/{i['slug']}/used-in") for i in evenly(its[3:], 12)]
    out += [("price", f"/v1/items/{i['slug']}/price") for i in evenly(sellable, 10)]
    out += [("price", f"/v1/items/{i['slug']}/price?ingredients=expensive&aging=aged") for i in evenly(sellable[1:], 5)]
    out += [("recipe", f"/v1/recipes/{r['slug']}") for r in evenly(recs, 40)]
    out += [("tree", f"/v1/recipes/{r['slug']}/tree") for r in evenly(recs[5:], 12)]
    out += [("crop", f"/v1/crops/{c['slug']}") for c in evenly(load("crops.json"), 15)]
    out += [("shop", f"/v1/shops/{s['slug']}") for s in evenly(load("shops.json"), 8)]
    out += [("group", f"/v1/ingredient-groups/{g['slug']}") for g in evenly(load("ingredient_groups.json"), 10)]
    for kind in ("quests", "perks", "spells", "talents", "reputation", "missions", "letters"):
        out += [("record", f"/v1/{kind}/{q(r['key'], safe='')}") for r in evenly(load(f"{kind}.json"), 4)]
    kinds = sorted({i.get("kind") for i in its if i.get("kind")})
    for off in (0, 100, 300):
        out.append(("list", f"/v1/items?limit=100&offset={off}"))
    for k in kinds[:6]:
        out.append(("list", f"/v1/items?limit=50&kind={q(k)}"))
    out += [("list", "/v1/items?limit=20&sort=-id"), ("list", "/v1/recipes?limit=50"),
            ("list", "/v1/recipes?limit=20&offset=40"), ("list", "/v1/crops?season=spring&sort=name"),
            ("list", "/v1/crops"), ("list", "/v1/shops"), ("list", "/v1/npcs"), ("list", "/v1/fish"),
            ("list", "/v1/crafters"), ("rankings", "/v1/rankings/products?food_type=drink&limit=10"),
            ("rankings", "/v1/rankings/products?limit=25")]
    words = sorted({w for i in its for w in i["slug"].split("-") if len(w) >= 4})
    out += [("search", f"/v1/search?q={q(w)}") for w in evenly(words, 25)]
    return out


def cmd_prepare(base: str, key: str, out: str, fixtures: str, new_version: str) -> None:
    out_p = Path(out)
    rng = random.Random(20261122)
    status, _, body = get(base, key, "/v1/versions")
    if status != 200:
        raise SystemExit(f"/v1/versions: status {status}")
    versions = [v["version"] for v in json.loads(body)["data"]]
    lines: list[tuple[str, str, str]] = []  # (class, path, extra header or "")

    def add(cls: str, path: str, header: str = "", times: int = 1) -> None:
        lines.extend([(cls, path, header)] * times)

    # every sampled path of each imported version, pinned to it, in every language; and the same
    # paths of the newest imported version unpinned (so `latest`, which the import moves)
    per_version = {}
    for v in versions:
        ok = []
        for cls, p in candidate_paths(Path(fixtures) / v):
            sep = "&" if "?" in p else "?"
            s, _, _ = get(base, key, f"{p}{sep}version={v}")
            if s == 200:
                ok.append((cls, p))
        langs = [x["code"] for x in json.loads(get(base, key, f"/v1/languages?version={v}")[2])["data"]]
        per_version[v] = (ok, langs)
        print(f"{v}: {len(ok)} paths answer 200, {len(langs)} languages", file=sys.stderr)
    for v, (ok, langs) in per_version.items():
        for cls, p in ok:
            sep = "&" if "?" in p else "?"
            for lang in langs:
                add(cls, f"{p}{sep}version={v}&lang={lang}")
    newest = versions[0]
    ok, langs = per_version[newest]
    for cls, p in ok:
        sep = "&" if "?" in p else "?"
        for lang in langs:
            add(cls, f"{p}{sep}lang={lang}")
    for v in versions:
        add("versions", f"/v1/versions/{v}", times=20)
        add("versions", f"/v1/versions/{v}/changes", times=10)
    add("versions", "/v1/versions", times=40)
    add("versions", "/v1/versions/latest", times=40)
    add("languages", "/v1/languages", times=20)
    n_ok = len(lines)

    # 304: If-None-Match with the ETag the server gave, for a sample of pinned answers (these stay
    # the same across the import); about 5 % of the requests
    sample = [ln for ln in lines if "version=" in ln[1]]
    etagged = []
    for cls, p, _ in rng.sample(sample, 200):
        s, h, _ = get(base, key, p)
        if s == 200 and h.get("etag"):
            etagged.append((p, h["etag"]))
    for p, etag in etagged:
        add("304", p, f"If-None-Match: {etag}", times=max(1, n_ok // 20 // max(1, len(etagged))))
    # 404s (unknown records, an unknown version) and 422s (bad parameters), about 3 % each
    bad404 = ["/v1/items/no-such-item", "/v1/recipes/no-such-recipe", "/v1/items/no-such-item/price",
              "/v1/crops/no-such-crop", "/v1/items/pale-ale?version=v0.0.0.0.1", "/v1/shops/nope",
              "/v1/versions/v9.9.9.9.9", "/v1/no-such-route"]
    bad422 = ["/v1/items?limit=0", "/v1/items?limit=100000", "/v1/items?bogus=1", "/v1/items?sort=nope",
              "/v1/items/pale-ale?lang=xx-XX", "/v1/items/pale-ale?version=latest-ish",
              "/v1/items?kind=food&kind=drink", "/v1/search?q=", "/v1/items/pale-ale?fields=nope"]
    for p in bad404:
        add("404", p, times=max(1, n_ok * 3 // 100 // len(bad404)))
    for p in bad422:
        add("422", p, times=max(1, n_ok * 3 // 100 // len(bad422)))
    # the version the import brings, pinned: 404 until it is served, then 200; about 1 %
    new_paths = [p for cls, p in per_version[newest][0] if cls in ("item", "recipe", "list")][:20]
    for p in new_paths:
        sep = "&" if "?" in p else "?"
        add("new-version", f"{p}{sep}version={new_version}", times=max(1, n_ok // 100 // len(new_paths)))

    rng.shuffle(lines)
    with open(out_p / "urls.txt", "w") as f:
        for _, p, h in lines:
            f.write(base + p + ("\t" + h if h else "") + "\n")
    classes = [cls for cls, _, _ in lines]
    (out_p / "urls-meta.json").write_text(json.dumps({"classes": classes, "new_version": new_version,
                                                      "distinct": len(set((p, h) for _, p, h in lines))}))
    c = Counter(classes)
    print(f"{len(lines)} lines, {len(set((p, h) for _, p, h in lines))} distinct requests: "
          + ", ".join(f"{k} {v}" for k, v in sorted(c.items())), file=sys.stderr)


# ---------------------------------------------------------------- control ----------------------------


def python_under(pid: int) -> int:
    """The generator's own process: bench/soak starts it as prio -> taskset -> timeout -> python3."""
    top = pid
    for _ in range(250):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if len(argv) > 1 and b"python" in argv[0] and argv[1].endswith(b"fixedrate.py"):
                return pid
            kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except OSError:
            return top
        if kids:
            pid = int(kids[0])
        else:
            time.sleep(0.02)
    return top


def cpu_ticks(pid: int) -> int:
    """utime + stime of a process in clock ticks (-1 when it is gone)."""
    try:
        f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return -1
    return int(f[11]) + int(f[12])


class Control:
    def __init__(self, out: str, bin_: str, data_dir: str, base: str, pid: str, gen_pid: str, secs: str,
                 warm: str, rotate_every: str, new_fixture: str) -> None:
        self.out = Path(out)
        self.bin = bin_
        self.data_dir = data_dir
        self.base = base
        self.pid = int(pid)
        self.gen_pid = python_under(int(gen_pid))
        self.secs = float(secs)
        self.warm = float(warm)
        self.rotate_every = float(rotate_every)
        self.new_fixture = new_fixture
        self.new_version = Path(new_fixture).name
        self.events = open(self.out / "events.jsonl", "a")
        self.rss = open(self.out / "rss.tsv", "w")
        # the keys file as bench/soak wrote it: label -> [weight, key]
        self.keys: dict[str, list] = {}
        for line in (self.out / "keys.txt").read_text().splitlines():
            label, weight, key = line.split()
            self.keys[label] = [int(weight), key]
        self.live = [label for label in self.keys if label.startswith("rot-")]
        self.next_rot = len(self.live)
        self.drop_at: dict[str, float] = {}  # revoked label -> when to drop it from the keys file
        self.main_key = self.keys["main-0"][1]

    def event(self, name: str, **kw) -> None:
        self.events.write(json.dumps({"t_us": now_us(), "event": name, **kw}) + "\n")
        self.events.flush()

    def write_keys(self) -> None:
        tmp = self.out / "keys.txt.tmp"
        tmp.write_text("".join(f"{label} {w} {k}\n" for label, (w, k) in self.keys.items()))
        os.replace(tmp, self.out / "keys.txt")

    def admin(self, *args: str) -> tuple[int, str]:
        r = subprocess.run([self.bin, *args, "--data-dir", self.data_dir], capture_output=True, text=True,
                           timeout=120)
        return r.returncode, (r.stdout + r.stderr).strip()

    def sample_rss(self, t: float) -> None:
        """One line of rss.tsv: seconds into the run, server VmRSS (KiB), CPU ticks of server and generator."""
        try:
            st = Path(f"/proc/{self.pid}/status").read_text()
        except OSError:
            self.event("server-gone")
            return
        rss = int(re.search(r"VmRSS:\s+(\d+)", st).group(1))
        self.rss.write(f"{t:.1f}\t{rss}\t{cpu_ticks(self.pid)}\t{cpu_ticks(self.gen_pid)}\n")
        self.rss.flush()

    def create_key(self) -> None:
        label = f"rot-{self.next_rot}"
        self.next_rot += 1
        code, text = self.admin("keys", "create", "--account", "soak-rotating@localhost", "--name", label,
                                "--per-minute", "1000000000", "--burst", "1000000000", "--per-day", "1000000000")
        key = text.splitlines()[-1].strip() if text else ""
        if code != 0 or not key.startswith("tap_"):
            self.event("create-failed", label=label, output=text[-500:])
            return
        created = now_us()
        self.event("created", label=label)
        # use it only once the server takes it (admin commands reach the running server within 1 s)
        deadline = time.monotonic() + 10
        status = None
        while time.monotonic() < deadline:
            try:
                status = get(self.base, key, "/v1/versions/latest", timeout=5)[0]
            except OSError:
                status = None
            if status == 200:
                break
            time.sleep(0.05)
        if status != 200:
            self.event("not-accepted", label=label, last_status=status)
            return
        self.event("accepted", label=label, after_ms=(now_us() - created) / 1000)
        self.keys[label] = [ROTATING_WEIGHT, key]
        self.write_keys()
        self.event("in-use", label=label)
        self.live.append(label)

    def revoke_oldest(self, t: float) -> None:
        # revoke only when the checks after it fit before the end of the load
        if len(self.live) <= ROTATING_LIVE or t + REVOKE_GRACE_S + REVOKED_TAIL_S + 5 > self.secs:
            return
        label = self.live.pop(0)
        self.event("revoke-start", label=label)
        code, text = self.admin("keys", "revoke", self.keys[label][1])
        if code != 0:
            self.event("revoke-failed", label=label, output=text[-500:])
            return
        self.event("revoke-done", label=label)
        self.keys[label][0] = REVOKED_WEIGHT
        self.write_keys()
        self.drop_at[label] = time.monotonic() + REVOKE_GRACE_S + REVOKED_TAIL_S

    def latest(self) -> str | None:
        try:
            s, _, body = get(self.base, self.main_key, "/v1/versions", timeout=5)
        except OSError:
            return None
        if s != 200:
            return None
        return next((v["version"] for v in json.loads(body)["data"] if v.get("latest")), None)

    def run(self) -> None:
        t0 = time.monotonic()
        self.event("start", secs=self.secs, warm=self.warm, rotate_every=self.rotate_every)
        next_rss = 0.0
        next_rotate = self.rotate_every
        import_proc = None
        import_done = None
        import_served = False
        while True:
            t = time.monotonic() - t0
            if t >= self.secs - 1.0:
                break
            if t >= next_rss:
                self.sample_rss(t)
                next_rss += 5.0 if self.secs > 120 else 2.0
            for label, when in list(self.drop_at.items()):
                if time.monotonic() >= when:
                    del self.keys[label]
                    del self.drop_at[label]
                    self.write_keys()
                    self.event("dropped", label=label)
            if t >= next_rotate:
                next_rotate += self.rotate_every
                if t + 10 < self.secs:
                    self.create_key()
                self.revoke_oldest(t)
            if import_proc is None and import_done is None and t >= self.secs / 2:
                self.event("import-start", version=self.new_version)
                import_proc = subprocess.Popen([self.bin, "import", self.new_fixture, "--data-dir", self.data_dir],
                                               stdout=open(self.out / "import-live.log", "w"), stderr=subprocess.STDOUT)
            if import_proc is not None and import_proc.poll() is not None:
                self.event("import-done", code=import_proc.returncode)
                import_done = time.monotonic()
                import_proc = None
            if import_done is not None and not import_served:
                if self.latest() == self.new_version:
                    import_served = True
                    self.event("import-served", after_ms=(time.monotonic() - import_done) * 1000)
                elif time.monotonic() - import_done > 30:
                    import_served = True  # stop asking; the report sees no import-served event
                    self.event("import-not-served", waited_s=30)
            time.sleep(0.1)
        self.sample_rss(time.monotonic() - t0)
        if import_proc is not None:
            self.event("import-unfinished")
        self.event("end")


# ---------------------------------------------------------------- report -----------------------------


def cmd_report(out: str) -> None:
    o = Path(out)
    meta = json.loads((o / "urls-meta.json").read_text())
    classes = meta["classes"]
    events = [json.loads(line) for line in (o / "events.jsonl").read_text().splitlines() if line.strip()]
    ev = defaultdict(list)
    for e in events:
        ev[e["event"]].append(e)
    start = ev["start"][0]
    secs, warm = start["secs"], start["warm"]
    per_label: dict[str, dict[str, int]] = defaultdict(dict)
    for e in events:
        if "label" in e:
            per_label[e["label"]].setdefault(e["event"], e["t_us"])
    served = ev["import-served"][0]["t_us"] if ev["import-served"] else None

    status = Counter()
    by_class = defaultdict(Counter)
    lat: list[int] = []
    first_due = last_end = None
    n = 0
    no_retry_after = 0
    main_bad = Counter()
    limited = Counter()
    rot_before = Counter()      # status of rotating keys' answers completed before their revocation began
    rot_after = Counter()       # ... of requests sent from revocation + grace on
    rot_between = Counter()
    new_after_served = Counter()
    with open(o / "load.log") as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) < 7:
                continue
            due, st, us, label, idx, ra = int(p[0]), int(p[1]), int(p[2]), p[3], int(p[4]), p[5]
            sent_at = due + int(p[6])  # the key was chosen then
            n += 1
            status[st] += 1
            cls = classes[idx]
            by_class[cls][st] += 1
            if st >= 0:
                lat.append(us)
            first_due = due if first_due is None else min(first_due, due)
            last_end = due + us if last_end is None else max(last_end, due + us)
            if st == 429 and ra != "1":
                no_retry_after += 1
            if label.startswith("main-") and st in (401, 403, 429):
                main_bad[st] += 1
            elif label == "limited":
                limited[st] += 1
            elif label.startswith("rot-"):
                le = per_label.get(label, {})
                rs, rd = le.get("revoke-start"), le.get("revoke-done")
                if rs is None or due + us < rs:
                    rot_before[st] += 1
                elif rd is not None and sent_at >= rd + REVOKE_GRACE_S * 1e6:
                    rot_after[st] += 1
                else:
                    rot_between[st] += 1
            if cls == "new-version" and served is not None and sent_at > served and label.startswith("main-"):
                new_after_served[st] += 1
    lat.sort()

    summ = (o / "load-summary.txt").read_text() if (o / "load-summary.txt").exists() else ""
    m = re.search(r"errors: (\d+) connection, (\d+) status, (\d+) unanswered", summ)
    conn_err, unanswered = (int(m.group(1)), int(m.group(3))) if m else (None, None)
    m = re.search(r"generator stalls .*: (\d+), ([\d.]+) s in all \(([\d.]+)% of the measured time\), longest ([\d.]+) ms",
                  summ)
    stalls = f"{m.group(3)} % of the time, longest {m.group(4)} ms" if m else "?"
    m = re.search(r"fixedrate: (\d+)/s for ([\d.]+)s .*; (\d+) sent, (\d+) answered in ([\d.]+)s", summ)
    target_rate = int(m.group(1)) if m else 0
    sent = int(m.group(3)) if m else 0

    samples = [tuple(map(float, line.split("\t"))) for line in (o / "rss.tsv").read_text().splitlines() if line.strip()]
    rss = [(s[0], s[1]) for s in samples]
    after_warm = [r for t, r in rss if t >= warm]
    rss_warm = after_warm[0] if after_warm else None
    rss_end = rss[-1][1] if rss else None
    rss_max = max((r for t, r in rss if t >= warm), default=None)
    hz = os.sysconf("SC_CLK_TCK")
    busy = ("?", "?")
    if len(samples) >= 2 and samples[-1][3] >= 0 and samples[-1][0] > samples[0][0]:
        dt = samples[-1][0] - samples[0][0]
        busy = tuple(f"{(samples[-1][k] - samples[0][k]) / hz / dt:.0%}" for k in (2, 3))
    growth = (rss_end - rss_warm) / rss_warm if rss_warm and rss_end else None

    server_log = (o / "tapster.log").read_text(errors="replace") if (o / "tapster.log").exists() else ""
    panics = [line for line in server_log.splitlines() if PANIC_RE.search(line)]
    alive = (o / "server-alive.txt").read_text().strip() == "yes" if (o / "server-alive.txt").exists() else False

    rows = []  # (check, result, target, ok)

    def add(check: str, result: str, target: str = "", ok: bool | None = None) -> None:
        rows.append((check, result, target, ok))

    fivexx = sum(v for k, v in status.items() if k >= 500)
    span = (last_end - first_due) / 1e6 if n else 0
    add("requests answered (log lines)", f"{n:,} of {sent:,} sent", "all", n == sent and n > 0)
    add("achieved rate", f"{n / span:,.0f}/s over {span:.0f} s" if span else "?", f"{target_rate:,}/s",
        span > 0 and n / span >= 0.95 * target_rate)
    add("status counts", ", ".join(f"{k}: {v:,}" for k, v in sorted(status.items())))
    add("5xx answers", f"{fivexx}", "0", fivexx == 0)
    add("connection errors (closed, reset, refused)", f"{conn_err}", "0", conn_err == 0)
    add("unanswered at the end (timeouts)", f"{unanswered}", "0", unanswered == 0)
    add("latency p50 / p99 / p99.9 (from due time)",
        f"{pctl(lat, 50) / 1000:.2f} / {pctl(lat, 99) / 1000:.2f} / {pctl(lat, 99.9) / 1000:.2f} ms")
    add("  max", f"{lat[-1] / 1000 if lat else float('nan'):.1f} ms")
    add("  generator stalled (own loop paused > 1 ms)", stalls)
    add("CPU used (share of one core): server, generator", f"{busy[0]}, {busy[1]}")
    add("main keys: 401/403/429", f"{sum(main_bad.values())}" + (f" {dict(main_bad)}" if main_bad else ""), "0",
        not main_bad)
    lim_ok = sum(v for k, v in limited.items() if k != 429)
    bound = LIMITED_PER_MINUTE * (secs / 60 + 1) + LIMITED_BURST
    add(f"limited key ({LIMITED_PER_MINUTE}/min, burst {LIMITED_BURST}): answers",
        ", ".join(f"{k}: {v:,}" for k, v in sorted(limited.items())), "429s present",
        limited[429] > 0 and not any(k >= 500 or k == -1 for k in limited))
    add("  answered without 429 (within the limit)", f"{lim_ok:,}", f"<= {bound:,.0f}", lim_ok <= bound)
    add("429 answers without Retry-After", f"{no_retry_after}", "0", no_retry_after == 0)
    created = [e for e in ev["in-use"]]
    revoked = [e for e in ev["revoke-done"]]
    acc = sorted(e["after_ms"] for e in ev["accepted"])
    add("keys created and put to use during the run", f"{len(created)}"
        + (f" (taken by the server after {acc[0]:.0f}-{acc[-1]:.0f} ms)" if acc else ""), ">= 1",
        len(created) >= 1 and not ev["not-accepted"] and not ev["create-failed"])
    add("keys revoked during the run", f"{len(revoked)}", ">= 1", len(revoked) >= 1 and not ev["revoke-failed"])
    before_bad = sum(v for k, v in rot_before.items() if k in (-1, 401, 403, 429) or k >= 500)
    add("  their answers before revocation", ", ".join(f"{k}: {v:,}" for k, v in sorted(rot_before.items())),
        "200 (or the URL's 304/404/422), no 401", rot_before[200] > 0 and before_bad == 0)
    add(f"  their answers from revocation + {REVOKE_GRACE_S} s",
        ", ".join(f"{k}: {v:,}" for k, v in sorted(rot_after.items())) or "none",
        "all 401 (429 past the failed-authentication limit)",
        (rot_after[401] > 0 or not revoked) and sum(rot_after.values()) == rot_after[401] + rot_after[429])
    between_bad = sum(v for k, v in rot_between.items() if k == -1 or k >= 500)
    add("  their answers during the grace period", ", ".join(f"{k}: {v:,}" for k, v in sorted(rot_between.items()))
        or "none", "no 5xx", between_bad == 0)
    imp_done = ev["import-done"][0] if ev["import-done"] else None
    add(f"live import of {meta['new_version']} at {secs / 2:.0f} s",
        ("exit " + str(imp_done["code"]) if imp_done else "did not finish")
        + (f", latest {ev['import-served'][0]['after_ms']:.0f} ms after it returned" if served else ", never latest"),
        "served", bool(imp_done) and imp_done["code"] == 0 and served is not None)
    add("  pinned to the new version, sent after it was served (main keys)",
        ", ".join(f"{k}: {v:,}" for k, v in sorted(new_after_served.items())) or "none", "200",
        new_after_served[200] > 0 and sum(new_after_served.values()) == new_after_served[200])
    if rss_warm and rss_end:
        add(f"RSS after warm-up ({warm:.0f} s) -> end (max after warm-up)",
            f"{rss_warm / 1024:.1f} -> {rss_end / 1024:.1f} MiB ({rss_max / 1024:.1f})", "")
        add("  RSS growth", f"{growth:+.1%}", "< 10 %", growth < 0.10)
        imp = ev["import-start"][0]["t_us"] if ev["import-start"] else None
        if imp is not None:
            t_imp = (imp - start["t_us"]) / 1e6
            before = [r for t, r in rss if warm <= t < t_imp]
            settled = [r for t, r in rss if t >= t_imp + 60]
            if before:
                add("  of which warm-up -> just before the import", f"{(before[-1] - rss_warm) / rss_warm:+.1%}"
                    f" ({before[-1] / 1024:.1f} MiB at {max(t for t, _ in rss if t < t_imp):.0f} s)")
            if len(settled) >= 2:
                add("  of which 60 s after the import -> end", f"{(settled[-1] - settled[0]) / settled[0]:+.1%}"
                    f" ({settled[0] / 1024:.1f} -> {settled[-1] / 1024:.1f} MiB)")
    else:
        add("RSS growth", "no samples", "< 10 %", False)
    add("server alive at the end, no panic in its log", f"{'alive' if alive else 'NOT RUNNING'}, {len(panics)} panics",
        "", alive and not panics)
    add("answers by class", "; ".join(f"{c} {dict(sorted(v.items()))}" for c, v in sorted(by_class.items())))

    # The long last row ("answers by class") may overflow.
    print_table(("check", "result", "target", "met"), rows, fit=len(rows) - 1)
    failed = [r for r in rows if r[3] is False]
    print(f"\n{sum(1 for r in rows if r[3] is True)} checks passed, {len(failed)} failed"
          + (": " + "; ".join(r[0].strip() for r in failed) if failed else ""))
    sys.exit(1 if failed else 0)


def cmd_prio(nice: str, *cmd: str) -> None:
    n = int(nice)
    if n != 0 and os.geteuid() == 0:
        try:
            os.setsid()
            Path(f"/proc/{os.getpid()}/autogroup").write_text(str(n))
        except OSError as e:
            print(f"prio: no autogroup of its own ({e}); setting the process's nice", file=sys.stderr)
            os.setpriority(os.PRIO_PROCESS, 0, n)
    os.execvp(cmd[0], list(cmd))


def main() -> None:
    cmd, *args = sys.argv[1:]
    if cmd == "prio":
        cmd_prio(*args)
    elif cmd == "prepare":
        cmd_prepare(*args)
    elif cmd == "control":
        Control(*args).run()
    elif cmd == "report":
        cmd_report(*args)
    else:
        raise SystemExit(f"unknown subcommand {cmd}")


if __name__ == "__main__":
    main()
