#!/usr/bin/env python3
"""micro_report.py: tables and the scaling plot of the core's microbenchmarks.

Reads the JSON that budget_bench and budget_bench_memory write (--benchmark_out), prints the
markdown tables of docs/performance.md (per item, scaling, targets) to --md and draws the
scaling plot (time per item against size, log-log) as a self-contained SVG to --svg.
Standard library only, so that the plot is the same on every machine that has python3.
"""
import argparse
import json
import math
import re

# Families plotted and tabulated: name -> (label, what an item is).
FAMILIES = {
    "BM_PriorityPass": ("job priority, Engine::Priority", "job"),
    "BM_PriorityPassCApi": ("job priority, C ABI (the plugin's call)", "job"),
    "BM_AccruePass": ("accrual pass, Engine::Accrue", "running job"),
    "BM_FairShare/users:1": ("fair-share, 1 user a project", "project"),
    "BM_FairShare/users:10": ("fair-share, 10 users a project", "project"),
    "BM_AdvancePass": ("Engine::Advance (decay, states)", "project"),
    "BM_CloseMonths": ("month close, Ledger::CloseMonths", "project"),
}
COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2"]
TARGET_NS_PER_JOB = 100.0
TARGET_FAIRSHARE_MS = 5.0
TARGET_BYTES_PER_PROJECT = 1024.0


def load(path):
    with open(path) as f:
        return json.load(f)


def to_seconds(value, unit):
    return value * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


def family_and_size(name):
    """("BM_FairShare/users:1", 10000) for "BM_FairShare/projects:10000/users:1"."""
    parts = name.split("/")
    base = parts[0]
    size, rest = None, []
    for p in parts[1:]:
        m = re.fullmatch(r"(?:(\w+):)?(\d+)", p)
        if m and size is None and m.group(1) in (None, "projects"):
            size = int(m.group(2))
        elif p.startswith("iterations:"):
            continue
        else:
            rest.append(p)
    return "/".join([base] + rest), size


def runs(doc):
    out = []
    for b in doc.get("benchmarks", []):
        if b.get("run_type") != "iteration" or b.get("error_occurred"):
            continue
        fam, size = family_and_size(b["name"])
        cpu = to_seconds(b["cpu_time"], b["time_unit"])
        out.append({
            "name": b["name"], "family": fam, "size": size, "cpu_s": cpu,
            "per_item_s": b.get("per_item"), "counters": b,
        })
    return out


def fits(doc):
    """Google Benchmark's O(N) fits: family -> (CPU seconds per item, RMS as a fraction)."""
    coef, rms = {}, {}
    for b in doc.get("benchmarks", []):
        if b.get("run_type") != "aggregate":
            continue
        if b.get("aggregate_name") == "BigO" and b.get("big_o") == "N":
            coef[b["run_name"]] = to_seconds(b["cpu_coefficient"], b["time_unit"])
        elif b.get("aggregate_name") == "RMS":
            rms[b["run_name"]] = b["rms"]
    return {k: (v, rms.get(k)) for k, v in coef.items()}


def fmt_time(seconds):
    if seconds is None:
        return "n/a"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale or unit == "ns":
            return "%.3g %s" % (seconds / scale, unit)
    return "n/a"


def markdown(micro, memory, context):
    rows = runs(micro)
    lines = []
    ctx = micro.get("context", {})
    lines.append("Host: %s CPUs at %s MHz, load average %s at the start; library build: %s."
                 % (ctx.get("num_cpus"), ctx.get("mhz_per_cpu"),
                    ", ".join("%.2f" % x for x in ctx.get("load_avg", [])),
                    ctx.get("library_build_type")))
    lines.append("")
    lines.append("Times are CPU time (the machine is shared; CPU time is what the controller "
                 "spends). Per item = CPU time of one iteration / items in it.")
    lines.append("")
    lines.append("| benchmark | size | CPU time / iteration | per item |")
    lines.append("|---|---:|---:|---:|")
    for r in rows:
        lines.append("| %s | %s | %s | %s |" % (r["family"], "" if r["size"] is None else
                                                "{:,}".format(r["size"]), fmt_time(r["cpu_s"]),
                                                fmt_time(r["per_item_s"])))
    lines.append("")

    # Scaling: per item at the smallest and the largest size of each family.
    lines.append("| family | sizes | per item, smallest | per item, largest | largest / smallest |")
    lines.append("|---|---|---:|---:|---:|")
    scaling = {}
    for fam in FAMILIES:
        pts = sorted((r["size"], r["per_item_s"]) for r in rows
                     if r["family"] == fam and r["size"] and r["per_item_s"])
        if len(pts) < 2:
            continue
        growth = pts[-1][1] / pts[0][1]
        scaling[fam] = growth
        lines.append("| %s | %s..%s | %s | %s | %.2f |" % (
            fam, "{:,}".format(pts[0][0]), "{:,}".format(pts[-1][0]), fmt_time(pts[0][1]),
            fmt_time(pts[-1][1]), growth))
    lines.append("")

    fit = fits(micro)
    if fit:
        lines.append("Least-squares fit of CPU time = c x N over every size (Google Benchmark's "
                     "Complexity(oN)); RMS is the fit's relative error, small when the cost is "
                     "linear.")
        lines.append("")
        lines.append("| family | c: per item | RMS of the fit |")
        lines.append("|---|---:|---:|")
        for fam, (c, r) in fit.items():
            lines.append("| %s | %s | %s |" % (fam, fmt_time(c),
                                               "n/a" if r is None else "%.1f %%" % (r * 100)))
        lines.append("")

    # Targets.
    def per_item(fam, size=None):
        pts = [r for r in rows if r["family"] == fam and r["per_item_s"] and
               (size is None or r["size"] == size)]
        return max((r["per_item_s"] for r in pts), default=None)

    def cpu(fam, size):
        pts = [r["cpu_s"] for r in rows if r["family"] == fam and r["size"] == size]
        return pts[0] if pts else None

    # Per job: the slope of the fit when there is one (a pass also recomputes each
    # project once, which weighs on 1,000 jobs and not on 1,000,000), else the worst size.
    worst_job = fit["BM_PriorityPass"][0] if "BM_PriorityPass" in fit else per_item(
        "BM_PriorityPass")
    worst_capi = fit["BM_PriorityPassCApi"][0] if "BM_PriorityPassCApi" in fit else per_item(
        "BM_PriorityPassCApi")
    fs10k = cpu("BM_FairShare/users:1", 10000)
    fs10k_u10 = cpu("BM_FairShare/users:10", 10000)
    mem = {}
    for b in (memory or {}).get("benchmarks", []):
        m = re.search(r"projects:(\d+)/users:(\d+)", b["name"])
        if m and "bytes_per_project" in b:
            mem[(int(m.group(1)), int(m.group(2)))] = b["bytes_per_project"]
    mem1 = max((v for (p, u), v in mem.items() if u == 1), default=None)
    mem_users = sorted({u for (_, u) in mem})
    per_user = None
    if len(mem_users) >= 2:
        lo, hi = mem_users[0], mem_users[-1]
        diffs = [(mem[(p, hi)] - mem[(p, lo)]) / (hi - lo) for (p, u) in mem
                 if u == lo and (p, hi) in mem]
        per_user = max(diffs) if diffs else None
    linear_rms = [fit[f][1] for f in FAMILIES if f in fit and fit[f][1] is not None]
    lin = max(linear_rms) if linear_rms else None

    def verdict(ok):
        return "n/a" if ok is None else ("met" if ok else "missed")

    lines.append("| target | measured | verdict |")
    lines.append("|---|---|---|")
    lines.append("| ≤ 100 ns per job priority (Engine::Priority, slope of the fit) | %s "
                 "(through the C ABI: %s) | %s |"
                 % (fmt_time(worst_job), fmt_time(worst_capi),
                    verdict(None if worst_job is None else worst_job * 1e9 <= TARGET_NS_PER_JOB)))
    lines.append("| linear scaling (worst RMS of the O(N) fits) | %s | %s |"
                 % ("n/a" if lin is None else "%.1f %%" % (lin * 100),
                    verdict(None if lin is None else lin <= 0.10)))
    lines.append("| fair-share of 10,000 projects ≤ 5 ms | %s (10 users a project: %s) | %s |"
                 % (fmt_time(fs10k), fmt_time(fs10k_u10),
                    verdict(None if fs10k is None else fs10k * 1e3 <= TARGET_FAIRSHARE_MS)))
    lines.append("| ≤ 1 KiB per project (1 user) | %s bytes, worst size; each further user %s "
                 "bytes | %s |"
                 % ("n/a" if mem1 is None else "%.0f" % mem1,
                    "n/a" if per_user is None else "%.0f" % per_user,
                    verdict(None if mem1 is None else mem1 <= TARGET_BYTES_PER_PROJECT)))
    if mem:
        lines.append("")
        lines.append("| projects | users a project | heap bytes per project |")
        lines.append("|---:|---:|---:|")
        for (p, u), v in sorted(mem.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            lines.append("| {:,} | {} | {:.0f} |".format(p, u, v))
    return "\n".join(lines) + "\n"


def series_of(doc):
    rows = runs(doc)
    series = []
    for i, (fam, (label, item)) in enumerate(FAMILIES.items()):
        pts = sorted((r["size"], r["per_item_s"] * 1e9) for r in rows
                     if r["family"] == fam and r["size"] and r["per_item_s"])
        if pts:
            series.append((label + " (per " + item + ")", COLORS[i % len(COLORS)], pts))
    return series


def svg(micro, baseline=None, baseline_label=""):
    series = series_of(micro)
    before = series_of(baseline) if baseline else []
    if not series:
        return "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'/>\n"
    xs = [x for _, _, pts in series + before for x, _ in pts]
    ys = [y for _, _, pts in series + before for _, y in pts] + [TARGET_NS_PER_JOB]
    x0, x1 = math.floor(math.log10(min(xs))), math.ceil(math.log10(max(xs)))
    y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    if x1 == x0:
        x1 += 1
    if y1 == y0:
        y1 += 1
    w, h, left, right, top, bottom = 1000, 500, 70, 440, 30, 50
    pw, ph = w - left - right, h - top - bottom

    def px(x):
        return left + (math.log10(x) - x0) / (x1 - x0) * pw

    def py(y):
        return top + ph - (math.log10(y) - y0) / (y1 - y0) * ph

    out = ["<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
           "font-family='sans-serif' font-size='12'>" % (w, h),
           "<rect width='100%' height='100%' fill='white'/>",
           "<text x='%d' y='18' font-size='14'>Core cost per item against size "
           "(CPU time, log-log): flat = linear scaling</text>" % left]
    for e in range(x0, x1 + 1):
        x = px(10 ** e)
        out.append("<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#ddd'/>"
                   % (x, top, x, top + ph))
        out.append("<text x='%.1f' y='%d' text-anchor='middle'>1e%d</text>"
                   % (x, top + ph + 16, e))
    for e in range(y0, y1 + 1):
        y = py(10 ** e)
        out.append("<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#ddd'/>"
                   % (left, y, left + pw, y))
        out.append("<text x='%d' y='%.1f' text-anchor='end'>%s</text>"
                   % (left - 6, y + 4, fmt_time(10 ** e * 1e-9).replace(" ", "\u00a0")))
    out.append("<rect x='%d' y='%d' width='%d' height='%d' fill='none' stroke='#333'/>"
               % (left, top, pw, ph))
    out.append("<text x='%d' y='%d' text-anchor='middle'>size: jobs, running jobs or "
               "projects</text>" % (left + pw / 2, h - 10))
    ty = py(TARGET_NS_PER_JOB)
    out.append("<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#d62728' "
               "stroke-dasharray='6,4'/>" % (left, ty, left + pw, ty))
    out.append("<text x='%d' y='%.1f' fill='#d62728' text-anchor='end'>target: 100 ns a job"
               "</text>" % (left + pw - 4, ty - 4))
    for _label, color, pts in before:
        path = " ".join("%s%.1f,%.1f" % ("M" if k == 0 else "L", px(x), py(y))
                        for k, (x, y) in enumerate(pts))
        out.append("<path d='%s' fill='none' stroke='%s' stroke-width='1.5' "
                   "stroke-dasharray='4,3' opacity='0.6'/>" % (path, color))
    if before:
        ly = top + 10 + len(series) * 20
        out.append("<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#555' stroke-width='1.5' "
                   "stroke-dasharray='4,3'/>" % (left + pw + 12, ly, left + pw + 32, ly))
        out.append("<text x='%d' y='%d'>%s</text>" % (left + pw + 38, ly + 4,
                                                      baseline_label.replace("&", "&amp;")))
    for i, (label, color, pts) in enumerate(series):
        path = " ".join("%s%.1f,%.1f" % ("M" if k == 0 else "L", px(x), py(y))
                        for k, (x, y) in enumerate(pts))
        out.append("<path d='%s' fill='none' stroke='%s' stroke-width='2'/>" % (path, color))
        for x, y in pts:
            out.append("<circle cx='%.1f' cy='%.1f' r='3' fill='%s'/>" % (px(x), py(y), color))
        ly = top + 10 + i * 20
        out.append("<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='%s' stroke-width='2'/>"
                   % (left + pw + 12, ly, left + pw + 32, ly, color))
        out.append("<text x='%d' y='%d'>%s</text>" % (left + pw + 38, ly + 4,
                                                      label.replace("&", "&amp;")))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--micro", required=True, help="budget_bench --benchmark_out JSON")
    ap.add_argument("--memory", help="budget_bench_memory --benchmark_out JSON")
    ap.add_argument("--md", required=True)
    ap.add_argument("--svg", required=True)
    ap.add_argument("--baseline", help="an earlier budget_bench JSON, drawn dashed")
    ap.add_argument("--baseline-label", default="dashed: baseline")
    args = ap.parse_args()
    micro = load(args.micro)
    memory = load(args.memory) if args.memory else None
    with open(args.md, "w") as f:
        f.write(markdown(micro, memory, None))
    with open(args.svg, "w") as f:
        f.write(svg(micro, load(args.baseline) if args.baseline else None,
                    args.baseline_label))


if __name__ == "__main__":
    main()
