// The results explorer (docs/explorer.md): every page of the site is drawn here from window.SB
// (data.js, written by schedbench.hall.site). Plain browser JavaScript, no library, no network:
// tables that sort, filters kept in the address (#problem=load&eps=0.25), plots drawn as SVG, and
// CSV downloads whose rows are the table's rows as they are in the parquet file.
"use strict";

// ------------------------------------------------------------------ the tables

function decode(t) {
  // one table of data.js: {columns, kinds, data, rows} -> {columns, kinds, rows, col: {name: values}}
  const col = {};
  t.columns.forEach((name, j) => {
    const d = t.data[j];
    let values;
    if (t.kinds[j] === "s") values = d.codes.map((c) => (c < 0 ? null : d.values[c]));
    else if (t.kinds[j] === "f") values = d.map((x) => (x === "inf" ? Infinity : x === "-inf" ? -Infinity : x));
    else values = d;
    col[name] = values;
  });
  return { columns: t.columns, kinds: t.kinds, rows: t.rows, col };
}

const T = {};
for (const [name, t] of Object.entries(window.SB.tables)) T[name] = decode(t);
const META = window.SB.meta || {};
const RECORD = window.SB.record;
const RUNS = T.runs;

function has(name) {
  return T[name] && T[name].rows > 0;
}
function rowsOf(name, idx) {
  // table rows as objects (all rows, or those of idx)
  const t = T[name];
  if (!t) return [];
  const ix = idx || [...Array(t.rows).keys()];
  return ix.map((i) => {
    const r = { _i: i };
    for (const c of t.columns) r[c] = t.col[c][i];
    return r;
  });
}

// the explorer's derived keys of a run
const CLASS = { rejection: "rejection policy", speed: "speed baseline", plain: "plain" };
const OPT = { optimal: "proven", bound: "bound" };
function runKey(key, i) {
  const c = RUNS.col;
  if (key === "class") return CLASS[c.model[i]] || c.model[i];
  if (key === "opt") return OPT[c.opt_status[i]] || c.opt_status[i] || "none";
  if (key === "eps") return c.eps[i] === null ? "none" : String(c.eps[i]);
  return c[key] ? (c[key][i] === null ? "none" : String(c[key][i])) : "none";
}
const FILTERS = [
  ["problem", "problem"],
  ["family", "family"],
  ["experiment", "experiment"],
  ["eps", "ε"],
  ["class", "algorithm class"],
  ["algorithm", "algorithm"],
  ["opt", "OPT status"],
];

// ------------------------------------------------------------------ small helpers

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "on") for (const [ev, f] of Object.entries(v)) e.addEventListener(ev, f);
    else if (v !== null && v !== undefined) e.setAttribute(k, v);
  }
  for (const ch of children.flat(Infinity)) if (ch !== null && ch !== undefined) e.append(ch instanceof Node ? ch : String(ch));
  return e;
}
function fmt(x) {
  if (x === null || x === undefined) return "";
  if (typeof x === "number") {
    if (!isFinite(x)) return String(x);
    if (Number.isInteger(x)) return String(x);
    return Math.abs(x) >= 1e4 || Math.abs(x) < 1e-3 ? x.toExponential(3) : String(+x.toPrecision(4));
  }
  return String(x);
}
function geomean(xs) {
  const v = xs.filter((x) => x > 0 && isFinite(x));
  return v.length ? Math.exp(v.reduce((s, x) => s + Math.log(x), 0) / v.length) : null;
}
function mean(xs) {
  const v = xs.filter((x) => x !== null && isFinite(x));
  return v.length ? v.reduce((s, x) => s + x, 0) / v.length : null;
}
function groupBy(idx, keyf) {
  const m = new Map();
  for (const i of idx) {
    const k = keyf(i);
    if (!m.has(k)) m.set(k, []);
    m.get(k).push(i);
  }
  return m;
}
function params() {
  return new URLSearchParams(location.search);
}
function hashState() {
  return Object.fromEntries(new URLSearchParams(location.hash.slice(1)));
}
function link(page, name, text) {
  return el("a", { href: `${page}.html?name=${encodeURIComponent(name)}` }, text || name);
}
function explore(filters, text) {
  return el("a", { href: "runs.html#" + new URLSearchParams(filters).toString() }, text);
}
function section(title, ...body) {
  return el("section", {}, el("h2", {}, title), ...body);
}

// ------------------------------------------------------------------ CSV: the parquet rows as text

function csvCell(v, kind) {
  if (v === null || v === undefined) return "";
  if (kind === "b" || typeof v === "boolean") return v ? "True" : "False";
  const s = String(v);
  return /[",\n\r]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}
function tableCsv(name, idx) {
  // every column of the table, in its order; one line per row of idx
  const t = T[name];
  const lines = [t.columns.map((c) => csvCell(c)).join(",")];
  for (const i of idx) lines.push(t.columns.map((c, j) => csvCell(t.col[c][i], t.kinds[j])).join(","));
  return lines.join("\n") + "\n";
}
function download(filename, text) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv" }));
  const a = el("a", { href: url, download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
function csvButton(name, idx, filename, label) {
  return el(
    "button",
    { class: "csv", "data-rows": idx.length, on: { click: () => download(filename, tableCsv(name, idx)) } },
    label || `CSV (${idx.length} rows)`
  );
}

// ------------------------------------------------------------------ a sortable table

function sortable(rows, cols, opts) {
  // cols: [{key, label, f (cell -> Node|text), num}]; a click on a header sorts by it
  opts = opts || {};
  const limit = opts.limit || 200;
  let key = opts.sort || null;
  let dir = opts.desc ? -1 : 1;
  const wrap = el("div", { class: "table" });
  const draw = () => {
    wrap.textContent = "";
    let rs = rows.slice();
    if (key !== null) {
      rs.sort((a, b) => {
        const x = a[key], y = b[key];
        if (x === y) return 0;
        if (x === null || x === undefined) return 1;
        if (y === null || y === undefined) return -1;
        return (x < y ? -1 : 1) * dir;
      });
    }
    const head = el(
      "tr",
      {},
      cols.map((c) =>
        el(
          "th",
          {
            "data-key": c.key,
            class: c.key === key ? (dir > 0 ? "asc" : "desc") : null,
            on: {
              click: () => {
                dir = key === c.key ? -dir : 1;
                key = c.key;
                draw();
              },
            },
          },
          c.label || c.key
        )
      )
    );
    const body = rs
      .slice(0, limit)
      .map((r) =>
        el("tr", {}, cols.map((c) => el("td", { class: typeof r[c.key] === "number" ? "n" : null }, c.f ? c.f(r) : fmt(r[c.key]))))
      );
    wrap.append(el("table", {}, el("thead", {}, head), el("tbody", {}, body)));
    if (rs.length > limit) wrap.append(el("p", { class: "note" }, `first ${limit} of ${rs.length} rows (sort to see others)`));
  };
  draw();
  return wrap;
}
function plainTable(name, idx, cols, opts) {
  const t = T[name];
  cols = cols ? cols.filter((c) => t.columns.includes(c)) : t.columns;
  return sortable(rowsOf(name, idx), cols.map((k) => ({ key: k })), opts);
}

// ------------------------------------------------------------------ SVG plots

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"];
const SVGNS = "http://www.w3.org/2000/svg";
function svg(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
function ticks(lo, hi, log) {
  if (log) {
    // powers of 2 over a short range (ε = 1/2^k reads as itself), of 10 over more than 2.5 decades
    const base = Math.log10(hi / lo) > 2.5 ? 10 : 2;
    const lg = (v) => Math.log(v) / Math.log(base);
    const [e0, e1] = [Math.floor(lg(lo) + 1e-9), Math.ceil(lg(hi) - 1e-9)];
    const every = Math.max(1, Math.ceil((e1 - e0) / 6));
    const out = [];
    for (let e = e0; e <= e1; e += every) out.push(base ** e);
    return out.filter((t) => t >= lo * 0.999 && t <= hi * 1.001);
  }
  const step = 10 ** Math.floor(Math.log10((hi - lo) / 4 || 1));
  const s = [1, 2, 5, 10].map((k) => k * step).find((k) => (hi - lo) / k <= 6) || step * 10;
  const out = [];
  for (let t = Math.ceil(lo / s) * s; t <= hi + 1e-12; t += s) out.push(+t.toPrecision(6));
  return out;
}
function tickText(t) {
  // a power of ten far from 1 as 1e-7, anything else as a number
  const e = Math.round(Math.log10(t));
  return (t < 1e-3 || t >= 1e5) && Math.abs(t / 10 ** e - 1) < 1e-9 ? `1e${e}` : fmt(t);
}
function plot(title, series, o) {
  // series: [{name, points: [{x, y, lo, hi}], line}]; o: {xlabel, ylabel, logx, logy, ref, kind}
  const W = 560, H = 300, L = 60, R = 170, TOP = 24, B = 40;
  const box = el("figure", { class: "plot", "data-title": title });
  box.append(el("figcaption", {}, title));
  const pts = series.flatMap((s) => s.points);
  if (!pts.length) {
    box.append(el("p", { class: "note" }, "nothing to draw in this view"));
    return box;
  }
  const xs = pts.map((p) => p.x), ys = pts.flatMap((p) => [p.y, p.lo ?? p.y, p.hi ?? p.y]).concat(o.ref !== undefined ? [o.ref] : []);
  let [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  if (x0 === x1) [x0, x1] = o.logx ? [x0 / 2, x1 * 2] : [x0 - 1, x1 + 1];
  if (y0 === y1) [y0, y1] = o.logy ? [y0 / 2, y1 * 2] : [y0 - 1, y1 + 1];
  const tx = (v) => (o.logx ? Math.log(v) : v), ty = (v) => (o.logy ? Math.log(v) : v);
  const X = (v) => L + ((tx(v) - tx(x0)) / (tx(x1) - tx(x0))) * (W - L - R);
  const Y = (v) => H - B - ((ty(v) - ty(y0)) / (ty(y1) - ty(y0))) * (H - TOP - B);
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img" });
  s.append(svg("rect", { x: L, y: TOP, width: W - L - R, height: H - TOP - B, class: "frame" }));
  for (const t of ticks(x0, x1, o.logx)) {
    s.append(svg("line", { x1: X(t), x2: X(t), y1: H - B, y2: H - B + 4, class: "axis" }));
    s.append(svg("text", { x: X(t), y: H - B + 15, "text-anchor": "middle" }, tickText(t)));
  }
  for (const t of ticks(y0, y1, o.logy)) {
    s.append(svg("line", { x1: L - 4, x2: L, y1: Y(t), y2: Y(t), class: "axis" }));
    s.append(svg("text", { x: L - 6, y: Y(t) + 4, "text-anchor": "end" }, tickText(t)));
  }
  s.append(svg("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", class: "label" }, o.xlabel || ""));
  s.append(svg("text", { x: 12, y: TOP + (H - TOP - B) / 2, transform: `rotate(-90 12 ${TOP + (H - TOP - B) / 2})`, "text-anchor": "middle", class: "label" }, o.ylabel || ""));
  if (o.ref !== undefined && o.ref >= y0 && o.ref <= y1)
    s.append(svg("line", { x1: L, x2: W - R, y1: Y(o.ref), y2: Y(o.ref), class: "ref" }));
  series.slice(0, COLORS.length).forEach((ser, k) => {
    const c = COLORS[k];
    const g = svg("g", { class: "series", "data-name": ser.name });
    const p = ser.points.slice().sort((a, b) => a.x - b.x);
    if (ser.line && p.length > 1) {
      const d = ser.step
        ? p.map((q, j) => (j ? `H${X(q.x)}V${Y(q.y)}` : `M${X(q.x)},${Y(q.y)}`)).join("")
        : p.map((q, j) => `${j ? "L" : "M"}${X(q.x)},${Y(q.y)}`).join("");
      g.append(svg("path", { d, stroke: c, fill: "none", "stroke-width": 1.6 }));
    }
    for (const q of p) {
      if (q.lo !== undefined && q.lo !== null) g.append(svg("line", { x1: X(q.x), x2: X(q.x), y1: Y(q.lo), y2: Y(q.hi), stroke: c }));
      if (!ser.step) g.append(svg("circle", { cx: X(q.x), cy: Y(q.y), r: 3, fill: c }, undefined));
    }
    s.append(g);
    s.append(svg("rect", { x: W - R + 10, y: TOP + 14 * k, width: 10, height: 10, fill: c }));
    s.append(svg("text", { x: W - R + 24, y: TOP + 9 + 14 * k }, ser.name.length > 24 ? ser.name.slice(0, 23) + "…" : ser.name));
  });
  if (series.length > COLORS.length) box.append(el("p", { class: "note" }, `${COLORS.length} of ${series.length} series drawn`));
  box.prepend(s);
  return box;
}
function forest(title, items, o) {
  // one interval per item: {label, y, lo, hi}; a log axis with a line at 1
  const box = el("figure", { class: "plot", "data-title": title });
  box.append(el("figcaption", {}, title));
  if (!items.length) {
    box.append(el("p", { class: "note" }, "nothing to draw in this view"));
    return box;
  }
  const W = 600, L = 300, R = 20, row = 16, TOP = 10, B = 34, H = TOP + B + row * items.length;
  const vals = items.flatMap((d) => [d.y, d.lo, d.hi]).filter((v) => v > 0).concat([1]);
  let [x0, x1] = [Math.min(...vals) * 0.95, Math.max(...vals) * 1.05];
  const X = (v) => L + ((Math.log(v) - Math.log(x0)) / (Math.log(x1) - Math.log(x0))) * (W - L - R);
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img" });
  s.append(svg("line", { x1: X(1), x2: X(1), y1: TOP, y2: H - B, class: "ref" }));
  items.forEach((d, k) => {
    const y = TOP + row * k + row / 2;
    s.append(svg("text", { x: L - 6, y: y + 4, "text-anchor": "end" }, d.label.length > 50 ? d.label.slice(0, 49) + "…" : d.label));
    s.append(svg("line", { x1: X(d.lo), x2: X(d.hi), y1: y, y2: y, stroke: d.y < 1 ? COLORS[2] : COLORS[1], "stroke-width": 2 }));
    s.append(svg("circle", { cx: X(d.y), cy: y, r: 3, fill: "#000" }));
  });
  for (const t of ticks(x0, x1, true).length > 1 ? ticks(x0, x1, true) : [x0, 1, x1]) {
    s.append(svg("text", { x: X(t), y: H - B + 15, "text-anchor": "middle" }, tickText(t)));
  }
  s.append(svg("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", class: "label" }, o.xlabel || ""));
  box.prepend(s);
  return box;
}

// ------------------------------------------------------------------ plots and summaries of runs

function okRatio(i) {
  const r = RUNS.col.ratio[i];
  return RUNS.col.status[i] === "ok" && r !== null && r > 0 && isFinite(r);
}
function byAlgorithm(idx) {
  return [...groupBy(idx, (i) => RUNS.col.algorithm[i]).entries()].sort((a, b) => b[1].length - a[1].length);
}
// A mean, a band or an ECDF is drawn over at least MIN_INSTANCES distinct instances (never fewer)
const MIN_INSTANCES = 10;
function enoughInstances(ix) {
  return new Set(ix.map((i) => RUNS.col.instance[i])).size >= MIN_INSTANCES;
}
function perEps(ix, value) {
  // one point per ε with enough instances; value(jx) -> {y, lo?, hi?}
  return [...groupBy(ix, (i) => RUNS.col.eps[i]).entries()].filter(([, jx]) => enoughInstances(jx)).map(([e, jx]) => ({ x: e, ...value(jx) }));
}
function ratioVsEps(idx) {
  // over proven optima only: a ratio to a lower bound is not averaged with ratios to an optimum
  const proven = idx.filter((i) => okRatio(i) && RUNS.col.eps[i] > 0 && RUNS.col.opt_status[i] === "optimal");
  const series = byAlgorithm(proven)
    .map(([alg, ix]) => ({ name: alg, line: true, points: perEps(ix, (jx) => ({ y: geomean(jx.map((i) => RUNS.col.ratio[i])) })) }))
    .filter((ser) => ser.points.length);
  const bound = idx.filter((i) => okRatio(i) && RUNS.col.eps[i] > 0).length - proven.length;
  const title = `ALG/OPT against ε (geometric mean over ≥ ${MIN_INSTANCES} instances, runs with a proven OPT${bound ? `; ${bound} runs over a bound left out` : ""})`;
  return plot(title, series, { xlabel: "ε", ylabel: "ALG/OPT", logx: true, logy: true, ref: 1 });
}
function ecdf(idx) {
  const series = byAlgorithm(idx.filter(okRatio))
    .filter(([, ix]) => enoughInstances(ix))
    .map(([alg, ix]) => {
      const v = ix.map((i) => RUNS.col.ratio[i]).sort((a, b) => a - b);
      return { name: `${alg} (${v.length})`, line: true, step: true, points: v.map((x, k) => ({ x, y: (k + 1) / v.length })) };
    });
  return plot(`ECDF of ALG/OPT (algorithms with ≥ ${MIN_INSTANCES} instances in this view)`, series, { xlabel: "ALG/OPT", ylabel: "fraction of runs", logx: true });
}
function budgetUsed(idx) {
  const runs = idx.filter((i) => RUNS.col.budget_used && RUNS.col.budget_used[i] !== null && RUNS.col.eps[i] > 0);
  const series = byAlgorithm(runs)
    .map(([alg, ix]) => ({
      name: alg,
      line: true,
      points: perEps(ix, (jx) => {
        const v = jx.map((i) => RUNS.col.budget_used[i]);
        return { y: mean(v), lo: Math.min(...v), hi: Math.max(...v) };
      }),
    }))
    .filter((ser) => ser.points.length);
  return plot(`Rejection budget used against ε (mean, min–max, ≥ ${MIN_INSTANCES} instances)`, series, { xlabel: "ε", ylabel: "budget used", logx: true });
}
function summaryRows(idx) {
  const c = RUNS.col;
  return [...groupBy(idx, (i) => `${c.experiment[i]}\u0000${c.algorithm[i]}\u0000${c.eps[i]}`).values()].map((ix) => {
    const i = ix[0];
    const ok = ix.filter(okRatio);
    return {
      experiment: c.experiment[i],
      algorithm: c.algorithm[i],
      eps: c.eps[i],
      class: runKey("class", i),
      runs: ix.length,
      geo_ratio: geomean(ok.map((j) => c.ratio[j])),
      max_ratio: ok.length ? Math.max(...ok.map((j) => c.ratio[j])) : null,
      rejected_frac: mean(ix.map((j) => c.rejected_frac[j])),
      budget_used: c.budget_used ? mean(ix.map((j) => c.budget_used[j])) : null,
      proven: ix.filter((j) => c.opt_status[j] === "optimal").length,
      _idx: ix,
    };
  });
}
function summaryTable(idx, opts) {
  return sortable(
    summaryRows(idx),
    [
      { key: "experiment", f: (r) => link("experiment", r.experiment) },
      { key: "algorithm", f: (r) => link("algorithm", r.algorithm) },
      { key: "eps", label: "ε" },
      { key: "class" },
      {
        key: "runs",
        f: (r) =>
          el("button", {
            class: "rows",
            title: "download these runs as CSV",
            on: { click: () => download(`runs-${r.experiment}-${r.algorithm}-eps${r.eps}.csv`, tableCsv("runs", r._idx)) },
          }, String(r.runs)),
      },
      { key: "geo_ratio", label: "ALG/OPT (geo. mean)" },
      { key: "max_ratio", label: "max ALG/OPT" },
      { key: "rejected_frac", label: "rejected" },
      { key: "budget_used", label: "budget used" },
      { key: "proven", label: "OPT proven" },
    ],
    Object.assign({ sort: "geo_ratio", desc: true }, opts || {})
  );
}

// ------------------------------------------------------------------ pages

function pageIndex(app) {
  const c = RUNS.col;
  const all = [...Array(RUNS.rows).keys()];
  app.append(
    el("h1", {}, "Results"),
    el(
      "p",
      {},
      `${RUNS.rows} runs of ${new Set(c.algorithm).size} algorithms in ${new Set(c.experiment).size} experiments; `,
      explore({}, "explore them"),
      RECORD ? [" · ", el("a", { href: "run.html" }, `pipeline record (commit ${String(RECORD.git && RECORD.git.commit).slice(0, 10)})`)] : ""
    )
  );
  const byProblem = [...groupBy(all, (i) => c.problem[i]).entries()].sort();
  const pairs = has("practice_pairs") ? rowsOf("practice_pairs").filter((r) => r.headline) : [];
  app.append(
    section(
      "Per problem",
      sortable(
        byProblem.map(([p, ix]) => ({
          problem: p,
          runs: ix.length,
          algorithms: new Set(ix.map((i) => c.algorithm[i])).size,
          // over proven optima only: a ratio over a lower bound is not mixed in (its own column)
          geo_ratio: geomean(ix.filter((i) => okRatio(i) && c.opt_status[i] === "optimal").map((i) => c.ratio[i])),
          proven: ix.filter((i) => c.opt_status[i] === "optimal").length,
          bound: ix.filter((i) => c.opt_status[i] !== "optimal").length,
        })),
        [
          { key: "problem", f: (r) => explore({ problem: r.problem }, r.problem) },
          { key: "runs" },
          { key: "algorithms" },
          { key: "geo_ratio", label: "ALG/OPT (geo. mean, runs with a proven OPT)" },
          { key: "proven", label: "OPT proven" },
          { key: "bound", label: "OPT a bound" },
        ]
      ),
      pairs.length
        ? [
            el("h3", {}, "Headline: rejection policy against speed baseline (paired, 95% intervals)"),
            forest(
              "policy/baseline objective, geometric mean over paired instances",
              pairs.map((r) => ({ label: `${r.practice_family} ε=${r.eps}: ${r.policy} vs ${r.baseline}`, y: r.geo_ratio, lo: r.geo_ratio_lo, hi: r.geo_ratio_hi })),
              { xlabel: "policy / baseline (below 1: the policy wins)" }
            ),
          ]
        : ""
    )
  );
  if (has("claims")) {
    const v = groupBy([...Array(T.claims.rows).keys()], (i) => T.claims.col.verdict[i]);
    app.append(
      section(
        "Claims",
        el("p", {}, [...v.entries()].map(([k, ix]) => `${k}: ${ix.length}`).join(" · "), " — ", el("a", { href: "claims.html" }, "every claim"))
      )
    );
  }
  const algs = [...new Set(c.algorithm)].sort();
  const fams = [...new Set(c.family)].sort();
  const exps = [...new Set(c.experiment)].sort();
  app.append(
    section("Algorithms", el("p", { class: "links" }, algs.map((a) => [link("algorithm", a), " "]))),
    section("Families", el("p", { class: "links" }, fams.map((a) => [link("family", a), " "]))),
    section("Experiments", el("p", { class: "links" }, exps.map((a) => [link("experiment", a), " "]))),
    section("Sweeps and checks", el("p", {}, el("a", { href: "sweeps.html" }, VIEWS.length ? VIEWS.map((v) => v.title).join(" · ") : "none in this run")))
  );
}

function pageRuns(app) {
  app.append(el("h1", {}, "Explore the runs"));
  const bar = el("form", { class: "filters", id: "filters" });
  const out = el("div", { id: "view" });
  app.append(bar, out);
  const all = [...Array(RUNS.rows).keys()];
  const state = hashState();
  for (const [key, label] of FILTERS) {
    const values = [...new Set(all.map((i) => runKey(key, i)))].sort((a, b) => (isNaN(a) || isNaN(b) ? (a < b ? -1 : 1) : a - b));
    const sel = el(
      "select",
      { name: key, id: `f-${key}` },
      el("option", { value: "" }, "all"),
      values.map((v) => el("option", { value: v }, v))
    );
    sel.value = state[key] && values.includes(state[key]) ? state[key] : "";
    sel.addEventListener("change", () => {
      const st = Object.fromEntries(FILTERS.map(([k]) => [k, bar.elements[k].value]).filter(([, v]) => v));
      history.replaceState(null, "", "#" + new URLSearchParams(st).toString());
      draw();
    });
    bar.append(el("label", {}, label, " ", sel));
  }
  const draw = () => {
    const st = Object.fromEntries(FILTERS.map(([k]) => [k, bar.elements[k].value]).filter(([, v]) => v));
    const idx = all.filter((i) => Object.entries(st).every(([k, v]) => runKey(k, i) === v));
    const name = "runs" + Object.entries(st).map(([k, v]) => `-${k}-${v}`).join("") + ".csv";
    out.textContent = "";
    out.append(
      el("p", { id: "count" }, `${idx.length} of ${RUNS.rows} runs `, csvButton("runs", idx, name, `download these ${idx.length} runs (CSV)`)),
      el("div", { class: "plots" }, ratioVsEps(idx), ecdf(idx), budgetUsed(idx), pairedPlot(st)),
      el("h2", {}, "Per experiment, algorithm and ε"),
      el("p", { class: "note" }, "click a header to sort; click a run count to download those runs"),
      summaryTable(idx)
    );
  };
  draw();
}

function pairedRows(st) {
  if (!has("practice_pairs")) return [];
  return rowsOf("practice_pairs").filter(
    (r) =>
      (!st.problem || r.problem === st.problem) &&
      (!st.family || r.family === st.family) &&
      (!st.eps || String(r.eps) === st.eps) &&
      (!st.algorithm || r.policy_algorithm === st.algorithm || r.baseline_algorithm === st.algorithm)
  );
}
function pairedPlot(st) {
  let rows = pairedRows(st);
  const n = rows.length;
  if (rows.length > 30) rows = rows.filter((r) => r.selected || r.headline);
  const f = forest(
    `Paired: rejection policy / speed baseline (practice comparison, 95% intervals)${n > rows.length ? `; ${rows.length} selected pairs of ${n}` : ""}`,
    rows.slice(0, 40).map((r) => ({ label: `${r.practice_family} ε=${r.eps}: ${r.policy} / ${r.baseline}`, y: r.geo_ratio, lo: r.geo_ratio_lo, hi: r.geo_ratio_hi })),
    { xlabel: "policy / baseline objective (below 1: the policy wins)" }
  );
  return f;
}

function pageAlgorithm(app) {
  const name = params().get("name");
  const c = RUNS.col;
  const idx = [...Array(RUNS.rows).keys()].filter((i) => c.algorithm[i] === name);
  const m = (META.algorithms || {})[name];
  if (!m && !idx.length) {
    app.append(el("h1", {}, "Algorithm"), el("p", {}, `no algorithm named ${name}`));
    return;
  }
  app.append(el("h1", {}, name));
  if (m) {
    const dl = el("dl", {});
    for (const [k, label] of [["problems", "problem"], ["model", "model"], ["label", "rule label"], ["rule", "rule"], ["bound", "proven bound"], ["cites", "source paper"], ["source", "source file"]]) {
      if (m[k] === undefined || m[k] === "") continue;
      dl.append(el("dt", {}, label), el("dd", {}, k === "source" ? el("a", { href: m.source_href || m[k] }, m[k]) : m[k]));
    }
    app.append(dl);
  }
  const pcols = RUNS.columns.filter((k) => k.startsWith("p_") && idx.some((i) => c[k][i] !== null));
  if (pcols.length)
    app.append(
      section(
        "Parameters in its runs",
        sortable(
          pcols.map((k) => ({ parameter: k.slice(2), values: [...new Set(idx.map((i) => c[k][i]).filter((v) => v !== null))].sort().join(", ") })),
          [{ key: "parameter" }, { key: "values" }]
        )
      )
    );
  const tuned = has("practice_pairs")
    ? rowsOf("practice_pairs").filter((r) => r.policy_algorithm === name || r.baseline_algorithm === name)
    : [];
  if (tuned.length)
    app.append(
      section(
        "Tuned values and paired results (practice comparison)",
        sortable(
          tuned.map((r) => ({ ...r, role: r.policy_algorithm === name ? "policy" : "baseline", tuned: r.policy_algorithm === name ? r.policy_params : r.baseline_params })),
          ["practice_family", "eps", "role", "tuned", "policy", "baseline", "geo_ratio", "geo_ratio_lo", "geo_ratio_hi", "win_rate", "budget_used"].map((k) => ({ key: k })),
          { limit: 100 }
        )
      )
    );
  // where it wins and loses: its rank by geometric-mean ratio among the algorithms of each (experiment, ε)
  const groups = groupBy([...Array(RUNS.rows).keys()].filter(okRatio), (i) => `${c.experiment[i]}\u0000${c.eps[i]}`);
  const standing = [];
  for (const ix of groups.values()) {
    const algs = [...groupBy(ix, (i) => c.algorithm[i]).entries()].map(([a, jx]) => [a, geomean(jx.map((i) => c.ratio[i]))]);
    const mine = algs.find(([a]) => a === name);
    if (!mine || algs.length < 2) continue;
    const better = algs.filter(([, g]) => g < mine[1] - 1e-12).length;
    const worse = algs.filter(([, g]) => g > mine[1] + 1e-12).length;
    standing.push({ experiment: c.experiment[ix[0]], eps: c.eps[ix[0]], algorithms: algs.length, geo_ratio: mine[1], rank: better + 1, verdict: better === 0 ? "best" : worse === 0 ? "worst" : "between", best: algs.sort((a, b) => a[1] - b[1])[0][0] });
  }
  if (standing.length)
    app.append(
      section(
        "Where it wins and loses",
        el("p", {}, `best in ${standing.filter((s) => s.verdict === "best").length}, worst in ${standing.filter((s) => s.verdict === "worst").length} of ${standing.length} (experiment, ε) groups it shares with other algorithms (geometric-mean ALG/OPT)`),
        sortable(standing, [{ key: "experiment", f: (r) => link("experiment", r.experiment) }, { key: "eps", label: "ε" }, { key: "verdict" }, { key: "rank" }, { key: "algorithms" }, { key: "geo_ratio" }, { key: "best", f: (r) => link("algorithm", r.best) }], { sort: "rank" })
      )
    );
  const ok = idx.filter(okRatio);
  if (ok.length) {
    const w = ok.reduce((a, b) => (c.ratio[b] > c.ratio[a] ? b : a));
    app.append(section("Worst instance in its runs", plainTable("runs", [w], ["experiment", "instance", "eps", "n_jobs", "m", "objective", "opt", "opt_status", "ratio", "rejected_frac"])));
  }
  if (has("practice_runs")) {
    // the practice comparison's runs (results/practice_runs.parquet): its own table, not runs.parquet
    const pr = T.practice_runs.col;
    const mine = [...Array(T.practice_runs.rows).keys()].filter((i) => pr.algorithm[i] === name);
    if (mine.length) {
      const test = mine.filter((i) => pr.split[i] === "test");
      app.append(
        section(
          "Its runs in the practice comparison",
          el(
            "p",
            {},
            `${test.length} runs on held-out test instances (chosen settings) `,
            csvButton("practice_runs", test, `practice-runs-test-${name}.csv`),
            ` · ${mine.length - test.length} tuning runs on training instances `,
            csvButton("practice_runs", mine.filter((i) => pr.split[i] !== "test"), `practice-runs-train-${name}.csv`)
          )
        )
      );
    }
  }
  if (has("worst_cases")) {
    const wc = [...Array(T.worst_cases.rows).keys()].filter((i) => T.worst_cases.col.algorithm[i] === name);
    if (wc.length) app.append(section("Worst cases found by the search", plainTable("worst_cases", wc)));
  }
  app.append(
    section(
      "Its runs",
      el("p", {}, `${idx.length} runs `, csvButton("runs", idx, `runs-algorithm-${name}.csv`), " ", explore({ algorithm: name }, "explore them")),
      el("div", { class: "plots" }, ratioVsEps(idx), ecdf(idx)),
      summaryTable(idx)
    )
  );
}

function pageGroup(app, key, title) {
  const name = params().get("name");
  const c = RUNS.col;
  const idx = [...Array(RUNS.rows).keys()].filter((i) => c[key][i] === name);
  app.append(el("h1", {}, `${title} ${name}`));
  if (!idx.length) {
    app.append(el("p", {}, `no runs of ${key} ${name}`));
    return;
  }
  const info = key === "experiment" ? `family ${c.family[idx[0]]}, problem ${c.problem[idx[0]]}` : `experiments: ${[...new Set(idx.map((i) => c.experiment[i]))].join(", ")}`;
  app.append(
    el("p", {}, info, ` · ${idx.length} runs, ${new Set(idx.map((i) => c.instance[i])).size} instances `, csvButton("runs", idx, `runs-${key}-${name}.csv`), " ", explore({ [key]: name }, "explore them")),
    el("div", { class: "plots" }, ratioVsEps(idx), ecdf(idx), budgetUsed(idx)),
    summaryTable(idx)
  );
  if (key === "family") {
    const pr = pairedRows({ family: name });
    if (pr.length) app.append(section("Paired comparison", pairedPlot({ family: name })));
  }
}

const VIEWS = (window.SB.views || []).filter((v) => has(v.table));
function viewPlots(v) {
  // one plot per value of v.per, one line per setting (the v.lines columns): points of two
  // settings are never joined; a column constant within a plot does not name its lines
  const c = T[v.table].col;
  const ok = (i) => (!v.logx || c[v.x][i] > 0) && (!v.logy || c[v.y][i] > 0) && c[v.x][i] !== null && c[v.y][i] !== null;
  const shown = [...Array(T[v.table].rows).keys()].filter(ok);
  const label = (col, name, i) => (name ? `${name}=${c[col][i]}` : `${c[col][i]}`);
  return [...groupBy(shown, (i) => c[v.per][i]).entries()].map(([key, ix]) => {
    const varying = v.lines.filter(([col]) => new Set(ix.map((i) => c[col][i])).size > 1);
    const name = (i) => varying.map(([col, lab]) => label(col, lab, i)).join(" ") || "all";
    return plot(
      `${key}: ${v.ylabel || v.y} against ${v.xlabel || v.x}`,
      [...groupBy(ix, name).entries()].map(([k, jx]) => ({
        name: k,
        line: true,
        points: jx.map((i) => {
          const q = { x: c[v.x][i], y: c[v.y][i] };
          if (v.lo) Object.assign(q, { lo: v.logy && !(c[v.lo][i] > 0) ? q.y : c[v.lo][i], hi: c[v.hi][i] });
          return q;
        }),
      })),
      { xlabel: v.xlabel || v.x, ylabel: v.ylabel || v.y, logx: v.logx, logy: v.logy }
    );
  });
}
function pageSweeps(app) {
  // the wings' own tables, each as its wing describes it (hall.site.SiteView)
  app.append(el("h1", {}, "Sweeps and checks"));
  if (!VIEWS.length) return app.append(el("p", {}, "no sweep or check table in this run"));
  for (const v of VIEWS) {
    const all = [...Array(T[v.table].rows).keys()];
    const body = v.x ? [el("div", { class: "plots" }, ...viewPlots(v))] : [];
    app.append(section(v.title, ...body, plainTable(v.table, all, v.columns), csvButton(v.table, all, `${v.table}.csv`)));
  }
}

function pageClaims(app) {
  app.append(el("h1", {}, "Claims and verdicts"));
  if (!has("claims")) return app.append(el("p", {}, "no claims table in this run"));
  app.append(plainTable("claims", [...Array(T.claims.rows).keys()], null, { limit: 1000 }));
}

function pageRun(app) {
  app.append(el("h1", {}, "Pipeline record"));
  if (!RECORD) return app.append(el("p", {}, "no pipeline record (results/pipeline_record.json) in this site"));
  const dl = el("dl", {});
  const item = (k, v) => dl.append(el("dt", {}, k), el("dd", {}, v));
  item("command", el("code", {}, RECORD.command || ""));
  item("config", `${(RECORD.config && RECORD.config.files || []).join(", ")} (hash ${RECORD.config && RECORD.config.hash})`);
  item("commit", `${RECORD.git.commit}${RECORD.git.dirty ? " (uncommitted changes)" : ""}`);
  item("started", RECORD.started || "");
  item("ended", RECORD.ended || "");
  item("machine", Object.entries(RECORD.machine || {}).map(([k, v]) => `${k}: ${v}`).join(" · "));
  app.append(dl);
  app.append(
    section(
      "Per rule (Snakemake benchmark files)",
      sortable(RECORD.rules || [], ["rule", "jobs", "ran_this_run", "wall_s", "cpu_s", "max_job_s", "max_rss_mb"].map((k) => ({ key: k })), { sort: "wall_s", desc: true, limit: 1000 })
    ),
    section("Package versions and plug-ins", sortable(Object.entries(RECORD.packages || {}).map(([k, v]) => ({ package: k, version: v })), [{ key: "package" }, { key: "version" }], { limit: 1000 })),
    section("Config", el("pre", {}, JSON.stringify(RECORD.config && RECORD.config.resolved, null, 1)))
  );
}

const PAGE = {
  index: pageIndex,
  runs: pageRuns,
  algorithm: pageAlgorithm,
  family: (app) => pageGroup(app, "family", "Family"),
  experiment: (app) => pageGroup(app, "experiment", "Experiment"),
  sweeps: pageSweeps,
  claims: pageClaims,
  run: pageRun,
};
const app = document.getElementById("app");
app.textContent = "";
PAGE[document.body.dataset.page](app);
