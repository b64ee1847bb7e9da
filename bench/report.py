#!/usr/bin/env python3
"""bench/report.py: turns the JSON lines of one benchmark run into
results.md (Markdown tables) and SVG plots, with the standard library only.

    python3 bench/report.py results.jsonl OUT_DIR
    python3 bench/report.py --targets-page results.jsonl docs/performance.md [MORE.jsonl...]   (its targets table)

Every line is one measurement (bench/bench_util.h). Targets are copied as
the benchmarks judged them: this script never re-decides a target.
"""
import json
import math
import sys
from collections import OrderedDict


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    return rows


def num(x, digits=3):
    """A short human form: 1.23 G, 45.6 M, 789 k, or plain."""
    if x is None:
        return "-"
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e6):
        return f"{int(x):,}"
    a = abs(x)
    for scale, suffix in ((1e12, " T"), (1e9, " G"), (1e6, " M"), (1e3, " k")):
        if a >= scale:
            return f"{x / scale:.{digits}g}{suffix}"
    return f"{x:.{digits}g}"


def ratio(x):
    if x is None:
        return "-"
    if x == 0:
        return "0"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) >= 0.01:
        return f"{x:.3g}"
    return f"1/{1 / x:,.0f}"


def met(row):
    m = row.get("target_met")
    return "-" if m is None else ("met" if m else "**missed**")


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out) + "\n"


# ---- SVG line charts (log axes) -------------------------------------------------------

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf"]


def svg_chart(path, title, xlabel, ylabel, series, note=None):
    """series: [(label, [(x, y), ...])]; log-log; points with y <= 0 are skipped."""
    w, h, left, right, top, bottom = 760, 460, 80, 250, 40, 60
    pts = [(x, y) for _, s in series for x, y in s if x > 0 and y > 0]
    x0, x1 = math.floor(math.log10(min(p[0] for p in pts))), math.ceil(math.log10(max(p[0] for p in pts)))
    y0, y1 = math.floor(math.log10(min(p[1] for p in pts))), math.ceil(math.log10(max(p[1] for p in pts)))
    x1, y1 = max(x1, x0 + 1), max(y1, y0 + 1)
    pw, ph = w - left - right, h - top - bottom

    def px(x):
        return left + (math.log10(x) - x0) / (x1 - x0) * pw

    def py(y):
        return top + ph - (math.log10(y) - y0) / (y1 - y0) * ph

    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
         f'<rect width="{w}" height="{h}" fill="white"/>',
         f'<text x="{left}" y="22" font-size="15" font-weight="bold">{title}</text>']
    for d in range(x0, x1 + 1):
        x = px(10 ** d)
        o.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + ph}" stroke="#ddd"/>')
        o.append(f'<text x="{x:.1f}" y="{top + ph + 18}" text-anchor="middle">10^{d}</text>')
    for d in range(y0, y1 + 1):
        y = py(10 ** d)
        o.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#ddd"/>')
        o.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">10^{d}</text>')
    o.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>')
    o.append(f'<text x="{left + pw / 2:.1f}" y="{h - 15}" text-anchor="middle">{xlabel}</text>')
    o.append(f'<text x="18" y="{top + ph / 2:.1f}" text-anchor="middle" '
             f'transform="rotate(-90 18 {top + ph / 2:.1f})">{ylabel}</text>')
    ly = top + 10
    for i, (label, s) in enumerate(series):
        c = COLORS[i % len(COLORS)]
        good = [(x, y) for x, y in s if x > 0 and y > 0]
        if good:
            path_d = " ".join(f"{'M' if j == 0 else 'L'}{px(x):.1f},{py(y):.1f}" for j, (x, y) in enumerate(good))
            o.append(f'<path d="{path_d}" fill="none" stroke="{c}" stroke-width="2"/>')
            for x, y in good:
                o.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{c}"/>')
        o.append(f'<line x1="{left + pw + 12}" y1="{ly}" x2="{left + pw + 32}" y2="{ly}" stroke="{c}" stroke-width="2"/>')
        words, line = label.split(), ""
        lines = []
        for wd in words:
            if len(line) + len(wd) > 30:
                lines.append(line)
                line = wd
            else:
                line = (line + " " + wd).strip()
        lines.append(line)
        for k, t in enumerate(lines):
            o.append(f'<text x="{left + pw + 38}" y="{ly + 4 + 14 * k}">{t}</text>')
        ly += 14 * len(lines) + 8
    if note:
        o.append(f'<text x="{left + pw + 12}" y="{ly + 10}" font-size="11" fill="#555">{note}</text>')
    o.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")


# ---- sections ---------------------------------------------------------------------------

def by(rows, bench):
    return [r for r in rows if r.get("bench") == bench]


def remap_section(rows):
    cfg = OrderedDict()
    for r in by(rows, "remap"):
        key = (r["pattern"], r["density"], r["deletions"])
        cfg.setdefault(key, {})[r["target"]] = r
    body = []
    for (pattern, d, dl), t in cfg.items():
        n = t.get("remap >= 10x naive")
        c = t.get("remap within 8x memcpy")
        body.append([pattern, f"{d * 100:g}%", f"{dl * 100:g}%", num(n["value"]), num(n["other_rows_per_s"]),
                     ratio(n["ratio"]), met(n), num(c["other_rows_per_s"]) if c else "-",
                     ratio(c["ratio"]) if c else "-", met(c) if c else "-", num(n["bitmap_bytes"])])
    head = ["pattern", "density", "deleted", "remap rows/s", "naive rows/s", "x naive", ">= 10x",
            "memcpy rows/s", "remap/memcpy time", "<= 8x", "bitmap bytes"]
    return "## a. Compaction remap\n\n" + table(head, body)


def design_section(rows):
    d = by(rows, "design")
    meta = [r for r in d if r["measure"] == "metadata bytes"]
    out = "## b. Design comparison: field assignment vs Boolean column + bitmap index\n\n"
    body = [[r["state"] + (f" ({r['variant']})" if r.get("variant") else ""), num(r["value"]),
             num(r["ours_bitmaps_run_form"] + r["ours_root"] + r["ours_descriptor"]),
             num(r["alt_column"]), num(r["alt_index"]), num(r["alt_manifest"]), num(r["alt_bytes"]),
             ratio(r["ratio"]), met(r)] for r in meta]
    out += "### Metadata bytes, 10^8 rows in 100 fragments\n\n"
    out += table(["state", "ours", "ours, run form", "alt column", "alt index", "alt manifest", "alt total",
                  "ours / alt", "target"], body)
    commit = [r for r in d if r["measure"] == "bytes written per commit"]
    body = [[r["state"], r["op"], num(r["value"]), num(r["ours_read"]), num(r["alt_column_written"]),
             num(r["alt_index_written"]), ratio(r["ratio"]), ratio(r["ratio_column_only"])] for r in commit]
    out += "\n### Bytes written per commit\n\n"
    out += table(["state", "commit", "ours written", "ours read", "alt column", "alt index rewrite",
                  "ours / alt", "ours / alt column only"], body)
    reads = [r for r in d if r["measure"] == "bytes read for is_assigned"]
    body = [[r["state"], r["query"], num(r["value"]), num(r["alt_index_read"]), num(r["alt_column_read"]),
             ratio(r["ratio"])] for r in reads]
    out += "\n### Bytes read to evaluate is_assigned over the whole table\n\n"
    out += table(["state", "query", "ours", "alt via index", "alt via column", "ours / alt"], body)
    return out


def root_section(rows, out_dir):
    g = by(rows, "root_growth")
    pts = [r for r in g if r["measure"] == "root bytes per append"]
    variants = list(OrderedDict.fromkeys(r["variant"] for r in pts))
    ks = sorted({r["fragments"] for r in pts})
    val = {(r["variant"], r["fragments"]): r for r in pts}
    body = []
    for k in ks:
        line = [num(k)] + [num(val[(v, k)]["value"]) for v in variants]
        line.append(num(val[(variants[0], k)]["manifest_bytes"]))
        body.append(line)
    out = "## c. Root rewrite cost vs table size (bytes written per append, one tracked field)\n\n"
    out += table(["fragments"] + variants + ["manifest (context)"], body)
    out += "\nObjects read per append: ours storing f 1 (the root, bytes as in the previous row's root), "
    out += "ours omitting f 0, upstream 1 per tracked field, segmented 2 (top level + last segment), inline 0.\n\n"
    growth = [r for r in g if r["measure"] == "root bytes per append, growth"]
    body = [[r["variant"], num(r["bytes_small"]), num(r["value"]), ratio(r["ratio"]) if r["ratio"] >= 0 else "inf",
             met(r)] for r in growth]
    out += table(["variant", f"bytes at {num(ks[0])}", f"bytes at {num(ks[-1])}", "growth",
                  "independent of fragment count"], body)
    real = [r for r in g if r["measure"] == "real writer, bytes per append"]
    if real:
        body = [[num(r["fragments"]), num(r["value"]), num(r["model_bytes_storing_f"]),
                 num(r["writer_bytes_omitting_f"]), num(r["writer_manifest_bytes"])] for r in real]
        out += "\nThe real writer (lfa/history.h) against the encoder model, same table shape (4-row fragments):\n\n"
        out += table(["fragments", "writer, storing f", "model, storing f", "writer, omitting f",
                      "writer manifest"], body)
    series = [(v, [(k, val[(v, k)]["value"]) for k in ks]) for v in variants if v != "ours, append omitting f"]
    series.append(("manifest per commit (context)", [(k, val[(variants[0], k)]["manifest_bytes"]) for k in ks]))
    svg_chart(f"{out_dir}/root_growth.svg", "Root bytes written per append", "fragments in the table",
              "bytes", series, note="ours, append omitting f: 0 bytes (not drawn)")
    out += "\n![root bytes per append](root_growth.svg)\n"
    return out


def op_costs_section(rows):
    body = [[r["op"], num(r["value"]), num(r["objects_written"]), num(r["upstream_bytes"]),
             num(r["upstream_extra_roots"])] for r in by(rows, "op_costs")]
    if not body:
        return ""
    k = by(rows, "op_costs")[0]["fragments"]
    return (f"## Assignment bytes written per commit, every operation (real writer, {num(k)} fragments of 4 rows, "
            "f 90% all_assigned / 10% partial, g all_assigned)\n\n" +
            table(["commit", "ours bytes", "objects", "upstream bytes", "roots upstream rewrites on top"], body))


def materialize_section(rows):
    body = [[r["state"], num(r["value"]), num(r["memcpy_rows_per_s"]), ratio(r["ratio"]), met(r),
             num(r.get("per_row_rows_per_s"))] for r in by(rows, "materialize")]
    return "## d. is_assigned materialization, 10^8 rows\n\n" + table(
        ["state", "rows/s", "memcpy rows/s (same output)", "speed / memcpy", ">= 1/2", "per-row loop rows/s"], body)


def decode_section(rows):
    body = [[r["object"], num(r["bytes"]), num(r["value"]), num(r["raw_mb_per_s"]), ratio(r["ratio"])]
            for r in by(rows, "decode")]
    return "## e. Decoding\n\n" + table(["object", "bytes", "ours MB/s", "raw unpack MB/s", "ours / raw"], body)


def hostile_section(rows):
    body = [[r["case"], r["size"], num(r["seconds"]), num(r["peak_mb"]), "yes" if r["answered_as_specified"] else "NO"]
            for r in by(rows, "hostile_sizes")]
    return "## Hostile sizes\n\n" + table(["case", "size", "seconds", "peak MB", "answered as the spec says"], body)


def verify_section(rows, out_dir):
    v = by(rows, "verify_scaling")
    ks = sorted({r["fragments"] for r in v})
    get = {(r["mode"], r["fragments"]): r for r in v}
    body = []
    for k in ks:
        i, f, q = get.get(("incremental", k)), get.get(("full", k)), get.get(("full / incremental", k))
        if not (i and f and q):
            continue
        body.append([num(k), num(i["commits"]), f"{i['value']:.2f}", f"{f['value']:.2f}", ratio(q["ratio"]),
                     num(i["objects_decoded"]), num(f["objects_decoded"]), ratio(q["decoded_ratio"])])
    out = "## f. Verification: incremental vs --full, time per commit as the table grows\n\n"
    out += table(["fragments", "commits", "incremental ms/commit", "full ms/commit", "full / incremental",
                  "objects decoded, incremental", "objects decoded, full", "decoded ratio"], body)
    series = [(m, [(k, get[(m, k)]["value"]) for k in ks if (m, k) in get]) for m in ("incremental", "full")]
    if all(s for _, s in series):
        svg_chart(f"{out_dir}/verify_scaling.svg", "lfa verify: CPU ms per commit", "fragments in the table",
                  "ms per commit", series)
        out += "\n![verify time per commit](verify_scaling.svg)\n"
    return out


def missed_section(rows):
    """One entry per (benchmark, target): how often, the ratio range, and
    the reason the benchmark gave for its first miss (later ones differ
    only in their numbers, which the tables above show)."""
    groups = OrderedDict()
    for r in rows:
        if r.get("target_met") is False:
            groups.setdefault((r["bench"], r["target"]), []).append(r)
    if not groups:
        return "## Missed targets\n\nNone.\n"
    body = []
    for (bench, target), miss in groups.items():
        ratios = [m["ratio"] for m in miss if isinstance(m.get("ratio"), (int, float)) and m["ratio"] >= 0]
        span = f"ratio {ratio(min(ratios))} to {ratio(max(ratios))}" if len(ratios) > 1 else \
            (f"ratio {ratio(ratios[0])}" if ratios else "")
        body.append(f"- **{bench}: {target}**: missed {len(miss)} time{'s' if len(miss) > 1 else ''} ({span}); "
                    f"first: {describe(miss[0])}. {miss[0].get('reason', 'no reason given')}.")
    return "## Missed targets, with reasons\n\n" + "\n".join(body) + "\n"


def describe(r):
    parts = [f"{k} {r[k]}" for k in ("state", "pattern", "density", "deletions", "variant", "fragments") if k in r
             and r[k] not in ("", None)]
    return ", ".join(parts)


def targets_summary(rows):
    counts = OrderedDict()
    for r in rows:
        m = r.get("target_met")
        if m is None:
            continue
        key = (r["bench"], r["target"])
        c = counts.setdefault(key, [0, 0])
        c[0 if m else 1] += 1
    body = [[b, t, c[0], c[1]] for (b, t), c in counts.items()]
    return "## Targets\n\n" + table(["benchmark", "target", "met", "missed"], body)


# Every target of the issue the benchmarks answer, in the table's order, with
# the direction its threshold is read in. A target no line of the run
# carries is shown as "not measured", never dropped. alt_real_* stands for
# one line per comparison interop/design_compare_lance.mjs measures.
TARGETS = [
    ("remap_vs_memcpy", "<="), ("remap_vs_naive", ">="), ("materialize_vs_memcpy", ">="),
    ("verify_newest_commit", None), ("verify_vs_lance", None), ("verify_vs_decode", None),
    ("dump_memory_flat", None), ("alt_real_*", "<="),
]
TARGETS_BEGIN, TARGETS_END = "<!-- targets:begin -->", "<!-- targets:end -->"


def short(text, limit=150):
    text = (text or "").replace("|", "/").replace("\n", " ")
    return text if len(text) <= limit else text[:limit - 3].rstrip() + "..."


def target_row(r, sense):
    d = r.get("detail") or {}
    if sense is None and isinstance(d.get("met_when"), str):  # "ratio <= threshold" or "ratio >= threshold"
        sense = "<=" if "<=" in d["met_when"] else ">=" if ">=" in d["met_when"] else None
    size = [f"{d['rows']:,} rows" if isinstance(d.get("rows"), int) else None,
            d.get("state"), f"{d['fragments']} fragments" if d.get("fragments") else None]
    bound = f"{sense} {ratio(r['threshold'])}" if sense else ratio(r["threshold"])
    verdict = "met" if r["met"] else ("**lost**" if r["target"].startswith("alt_real_") else "**missed**")
    why = "" if r["met"] else short(d.get("reason") or r.get("reason"))
    model = d.get("model_ratio")
    extra = f"model {ratio(model)}" if isinstance(model, (int, float)) else ""
    if d.get("source"):
        extra = "; ".join(x for x in (extra, f"from {d['source']}") if x)
    return [f"`{r['target']}`", ratio(r["ratio"]), bound, verdict, ", ".join(x for x in size if x),
            "; ".join(x for x in (extra, why) if x)]


def targets_table(rows):
    """The targets table of docs/performance.md: every "targets" line, and every expected
    target the run did not measure, with the reason the run gives."""
    lines = [r for r in rows if r.get("bench") == "targets"]
    skip = {r.get("program"): r.get("reason") for r in rows if r.get("bench") == "meta_skip"}
    body = []
    for name, sense in TARGETS:
        if name.endswith("*"):
            got = [r for r in lines if r["target"].startswith(name[:-1])]
        else:
            got = [r for r in lines if r["target"] == name]
        for r in got:
            body.append(target_row(r, sense))
        if not got:
            why = skip.get(name[:-2]) if name.endswith("_*") else None
            body.append([f"`{name}`", "-", "-", "not measured", "-", why or "no line in this run"])
    known = {n for n, _ in TARGETS}
    for r in lines:  # a target this list does not name yet: shown all the same
        if r["target"] not in known and not r["target"].startswith("alt_real_"):
            body.append(target_row(r, None))
    met_n = sum(1 for r in lines if r["met"])
    head = f"{met_n} of {len(lines)} measured targets met.\n\n"
    return head + table(["target", "measured", "threshold", "verdict", "size", "model / reason when missed"], body)


def targets_page(src, path, extra=()):
    """Replaces the table between the targets markers of `path`
    (docs/performance.md). Lines of
    `extra` files (targets another program measured in a run of its own)
    are shown too, each with its file named, unless the run has them."""
    rows = load(src)
    have = {r["target"] for r in rows if r.get("bench") == "targets"}
    for e in extra:
        for r in load(e):
            if r.get("bench") == "targets" and r["target"] not in have:
                r.setdefault("detail", {})["source"] = e
                rows.append(r)
    meta = next((r for r in rows if r.get("bench") == "meta"), {})
    note = (f"Run {meta.get('date', '?')}, {meta.get('cpu', '?')}, {meta.get('cores', '?')} cores, load "
            f"{meta.get('load', '?')}, commit {meta.get('commit', '?')}; `bench/results/results.jsonl`.\n\n")
    with open(path) as f:
        text = f.read()
    a, b = text.index(TARGETS_BEGIN) + len(TARGETS_BEGIN), text.index(TARGETS_END)
    with open(path, "w") as f:
        f.write(text[:a] + "\n" + note + targets_table(rows) + text[b:])


def main():
    if sys.argv[1] == "--targets-page":
        targets_page(sys.argv[2], sys.argv[3], sys.argv[4:])
        return
    src, out_dir = sys.argv[1], sys.argv[2]
    rows = load(src)
    meta = next((r for r in rows if r.get("bench") == "meta"), {})
    md = ["# Benchmark results\n"]
    if meta:
        md.append(f"Run {meta.get('date', '?')} on {meta.get('cpu', '?')} ({meta.get('cores', '?')} cores, "
                  f"load average {meta.get('load', '?')} at the start), commit {meta.get('commit', '?')}, "
                  f"`scripts/bench.sh` wall time {meta.get('wall_seconds', '?')} s. Operations are timed in thread "
                  "CPU time, best of several runs; every ratio is measured side by side in one run.\n")
    times = [r for r in rows if r.get("bench") == "meta_time"]
    if times:
        md.append("Wall seconds per program: " + ", ".join(
            f"{t['program']}{(' ' + t['args']) if t['args'] else ''} {t['wall_seconds']}" for t in times) + ".\n")
    md += ["## Targets of the run\n\n" + targets_table(rows), targets_summary(rows), remap_section(rows), design_section(rows), root_section(rows, out_dir),
           op_costs_section(rows),
           materialize_section(rows), decode_section(rows), hostile_section(rows), verify_section(rows, out_dir),
           missed_section(rows)]
    with open(f"{out_dir}/results.md", "w") as f:
        f.write("\n".join(md))


if __name__ == "__main__":
    main()
