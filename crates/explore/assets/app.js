// textreuse explore: a page per URL (the part after #), drawn from the JSON API.
// Routes: #/ (overview), #/t/TABLE?FILTERS (a sample), #/t/TABLE/ROW (one row), #/corpus.
"use strict";

const main = document.getElementById("main");
const nav = document.getElementById("nav");
let info = null;

const LABELS = { reuse: "Reuse cases", clusters: "Clusters", contradictions: "Contradictions" };

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "html") node.innerHTML = v; // only HTML the server escaped
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

async function api(path) {
  const response = await fetch(path, { headers: { Accept: "application/json" } });
  let body;
  try { body = await response.json(); } catch (e) { body = { error: `${response.status} ${response.statusText}` }; }
  if (!response.ok) throw new Error(body.error || `${response.status}`);
  return body;
}

function fmt(x) {
  if (x === null || x === undefined || Number.isNaN(x)) return "–";
  if (typeof x !== "number") return String(x);
  if (Number.isInteger(x)) return x.toLocaleString("en");
  return x.toFixed(3);
}

function badge(value) { return el("span", { class: `badge ${value}` }, value || "–"); }

function show(...nodes) {
  main.replaceChildren(...nodes.flat().filter((n) => n !== null && n !== undefined && n !== false));
}

// Each whole article opens scrolled to its passage.
function scrollContexts() {
  for (const box of document.querySelectorAll(".context")) {
    const passage = box.querySelector(".passage");
    if (passage) box.scrollTop = Math.max(0, passage.offsetTop - box.offsetTop - 40);
  }
}

function short(x) {
  if (x === null || x === undefined) return "";
  if (Number.isInteger(x)) return x >= 1e5 ? x.toExponential(1) : String(x);
  return String(+x.toPrecision(3));
}

function fail(error) {
  show(el("p", { class: "error", role: "alert" }, error.message || String(error)));
}

function parseHash() {
  const hash = location.hash.replace(/^#/, "") || "/";
  const [path, query] = hash.split("?");
  return { parts: path.split("/").filter(Boolean), params: new URLSearchParams(query || "") };
}

function drawNav(current) {
  nav.replaceChildren(
    ...info.tables.map((t) => el("a", { href: `#/t/${t.name}`, class: current === t.name ? "current" : null }, LABELS[t.name] || t.name)),
    el("a", { href: "#/corpus", class: current === "corpus" ? "current" : null }, "Corpus view"),
  );
}

async function route() {
  try {
    if (!info) info = await api("/api");
    const { parts, params } = parseHash();
    if (parts[0] === "t" && parts[1]) {
      drawNav(parts[1]);
      if (parts[2] !== undefined) await drawRow(parts[1], parts[2]);
      else await drawSample(parts[1], params);
    } else if (parts[0] === "corpus") {
      drawNav("corpus");
      drawCorpus();
    } else {
      drawNav(null);
      drawOverview();
    }
    main.focus({ preventScroll: true });
  } catch (e) {
    fail(e);
  }
}

function drawOverview() {
  const rows = info.tables.map((t) => el("tr", {},
    el("td", {}, el("a", { href: `#/t/${t.name}` }, LABELS[t.name] || t.name)),
    el("td", {}, t.file),
    el("td", { class: "num" }, fmt(t.rows)),
    el("td", { class: "num" }, fmt(t.titles)),
    el("td", {}, t.bad_lines ? el("span", { class: "warn" }, `${fmt(t.bad_lines)} lines could not be read (first: line ${t.bad_line_examples[0][0]}: ${t.bad_line_examples[0][1]})`) : "all lines read"),
  ));
  show(
    el("h1", {}, "Output ", el("code", {}, info.dir)),
    el("table", {}, el("tr", {}, ...["table", "file", "rows", "articles", "lines"].map((h) => el("th", {}, h))), rows),
    info.articles ? el("p", {}, `Inputs: ${fmt(info.articles.documents)} documents read, whole articles shown around passages.`)
      : el("p", { class: "muted" }, "No inputs given: passages show as the output wrote them (start with --inputs to see whole articles)."),
    el("p", {}, el("a", { href: "#/corpus" }, "The corpus view's plots"), " (the report of this directory)."),
  );
}

function drawCorpus() {
  show(el("h1", {}, "Corpus view"), el("iframe", { class: "report", src: "/report", title: "The report of this directory" }));
}

function tableInfo(name) {
  const t = info.tables.find((t) => t.name === name);
  if (!t) throw new Error(`this directory has no ${name}`);
  return t;
}

function filterForm(t, params) {
  const fields = [];
  for (const c of t.columns) {
    if (c.kind === "category") {
      const chosen = new Set((params.get(c.name) || "").split(",").filter(Boolean));
      fields.push(el("fieldset", { class: "cats" }, el("legend", { title: c.about }, c.name),
        ...(c.categories || []).map((cat) => el("label", {},
          el("input", { type: "checkbox", name: c.name, value: cat.name, checked: chosen.has(cat.name) }),
          ` ${cat.name || "(none)"} `, el("span", { class: "muted" }, `(${fmt(cat.rows)})`)))));
    } else if (c.kind === "id") {
      fields.push(el("fieldset", {}, el("legend", { title: c.about }, c.name),
        el("input", { type: "text", inputmode: "numeric", name: c.name, value: params.get(c.name) || "", "aria-label": c.name, size: 14 })));
    } else {
      const [lo, hi] = c.range || [null, null];
      const step = c.kind === "count" ? "1" : "any";
      fields.push(el("fieldset", { class: "range" }, el("legend", { title: c.about }, c.name),
        el("input", { type: "number", step, name: `${c.name}.min`, value: params.get(`${c.name}.min`) || "", placeholder: lo === null ? "min" : `≥ ${short(lo)}`, "aria-label": `${c.name} at least` }),
        " – ",
        el("input", { type: "number", step, name: `${c.name}.max`, value: params.get(`${c.name}.max`) || "", placeholder: hi === null ? "max" : `≤ ${short(hi)}`, "aria-label": `${c.name} at most` })));
    }
  }
  fields.push(el("fieldset", {}, el("legend", {}, "article title"),
    el("input", { type: "text", name: "title", id: "title-filter", value: params.get("title") || "", placeholder: "contains…", "aria-label": "article title contains" }),
    el("label", {}, " ", el("input", { type: "checkbox", name: "title_exact", value: "1", checked: params.get("title_exact") === "1" }), " exact")));
  if (t.websites > 0) {
    fields.push(el("fieldset", {}, el("legend", {}, "website"),
      el("input", { type: "text", name: "website", value: params.get("website") || "", placeholder: "contains…", "aria-label": "website contains" }),
      el("label", {}, " ", el("input", { type: "checkbox", name: "website_exact", value: "1", checked: params.get("website_exact") === "1" }), " exact")));
  }
  fields.push(el("fieldset", {}, el("legend", {}, "sample"),
    el("label", {}, "rows ", el("input", { type: "number", name: "n", min: 1, max: 500, value: params.get("n") || "20", style: "width:5em" })),
    el("label", {}, " seed ", el("input", { type: "number", name: "seed", min: 0, value: params.get("seed") || "1", style: "width:8em" }))));
  const form = el("form", { class: "filters", "aria-label": "Filters" }, ...fields,
    el("div", { class: "actions" },
      el("button", { type: "submit" }, "Sample"),
      el("button", { type: "button", id: "new-seed", onclick: () => { form.elements.seed.value = String(Math.floor(Math.random() * 1e9)); form.requestSubmit(); } }, "New seed"),
      el("a", { href: `#/t/${t.name}` }, "Clear filters")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const out = new URLSearchParams();
    const data = new FormData(form);
    const multi = {};
    for (const [k, v] of data.entries()) {
      if (v === "") continue;
      if (t.columns.some((c) => c.name === k && c.kind === "category")) (multi[k] = multi[k] || []).push(v);
      else out.set(k, v);
    }
    for (const [k, vs] of Object.entries(multi)) out.set(k, vs.join(","));
    location.hash = `#/t/${t.name}?${out.toString()}`;
  });
  return form;
}

function titlesOf(name, data) {
  if (name === "reuse") return [data.suspicious && data.suspicious.title, data.source && data.source.title];
  const list = name === "clusters" ? data.members : data.statements;
  return [...new Set((list || []).map((m) => m.title))];
}

function listRow(name, row) {
  const d = row.data;
  const link = el("a", { href: `#/t/${name}/${row.row}`, class: "open" }, `#${row.row}`);
  if (name === "reuse") {
    return el("tr", {}, el("td", {}, link), el("td", {}, badge(d.kind)),
      el("td", {}, d.suspicious && d.suspicious.title, el("span", { class: "muted" }, " ⟷ "), d.source && d.source.title),
      ...["suspicious_words", "source_words", "jaccard_2", "jaccard_10", "entity_jaccard", "suspicious_share", "source_share"].map((k) => el("td", { class: "num" }, fmt(d[k]))));
  }
  if (name === "clusters") {
    const first = (d.members || [])[d.representative || 0] || {};
    return el("tr", {}, el("td", {}, link), el("td", {}, badge(d.type)), el("td", { class: "num" }, fmt(d.size)),
      el("td", {}, titlesOf(name, d).slice(0, 4).join(" · ")), el("td", { class: "text" }, first.text || ""));
  }
  return el("tr", {}, el("td", {}, link), el("td", {}, d.rule || ""), el("td", { class: "num" }, fmt(d.confidence)),
    el("td", {}, (d.facts || []).map((f) => el("div", {}, el("span", { class: "badge" }, f.kind), " ", el("mark", {}, f.a), " vs ", el("mark", {}, f.b)))),
    el("td", {}, titlesOf(name, d).join(" · ")));
}

const HEADS = {
  reuse: ["case", "class", "articles (suspicious ⟷ source)", "words", "words", "J2", "J10", "entity J", "share", "share"],
  clusters: ["cluster", "type", "size", "articles", "representative"],
  contradictions: ["cluster", "rule", "confidence", "facts", "articles"],
};

async function drawSample(name, params) {
  const t = tableInfo(name);
  const form = filterForm(t, params);
  show(el("h1", {}, `${LABELS[name] || name}: a random sample`), form, el("p", { class: "muted", role: "status" }, "Sampling…"));
  const result = await api(`/api/${name}/sample?${params.toString()}`);
  const n = result.n, skip = result.skip;
  const pageLink = (s, label) => {
    const p = new URLSearchParams(params);
    if (s > 0) p.set("skip", String(s)); else p.delete("skip");
    return el("a", { href: `#/t/${name}?${p.toString()}` }, label);
  };
  const about = `${fmt(result.matched)}${result.exact ? "" : " (estimated)"} of ${fmt(t.rows)} rows match; rows ${fmt(skip + 1)}–${fmt(skip + result.rows.length)} of the sample with seed ${result.seed}`;
  const table = el("table", { class: "sample" },
    el("tr", {}, ...HEADS[name].map((h) => el("th", {}, h))),
    result.rows.map((r) => listRow(name, r)));
  show(el("h1", {}, `${LABELS[name] || name}: a random sample`), form,
    el("p", { id: "matched", role: "status" }, about),
    result.rows.length ? table : el("p", { class: "warn" }, "No row passes these filters."),
    el("div", { class: "pager" }, skip > 0 ? pageLink(Math.max(0, skip - n), "← previous") : null,
      result.rows.length === n ? pageLink(skip + n, "next →") : null));
}

function features(entries) {
  return el("dl", { class: "features" }, ...entries.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
}

function docLink(doc) {
  if (!doc) return "";
  const parts = [doc.title || "(untitled)"];
  const url = doc.url || (doc.revision ? null : null);
  const meta = [doc.revision ? `revision ${doc.revision}` : null, doc.timestamp, doc.source ? doc.source.split("/").pop() : null].filter(Boolean).join(" · ");
  return el("div", {}, el("strong", {}, url ? el("a", { href: url, rel: "noreferrer" }, parts[0]) : parts[0]), el("div", { class: "muted" }, meta));
}

function memberContext(article) {
  if (!article) return null;
  return el("details", { class: "member-article" }, el("summary", {}, "in the article"),
    el("div", { class: "context text" },
      article.cut_before ? "… " : "", article.before,
      el("span", { class: "passage" }, article.passage),
      article.after, article.cut_after ? " …" : ""));
}

function contextBlock(article) {
  if (!article) return null;
  return el("details", { open: true }, el("summary", {}, `The whole article (${fmt(article.chars)} characters)`),
    el("div", { class: "context text" },
      article.cut_before ? "… " : "", article.before,
      el("span", { class: "passage" }, article.passage),
      article.after, article.cut_after ? " …" : ""));
}

// A row's near-duplicates in the persistent index (--index), looked up when asked.
function similarBlock(name, row) {
  if (!info.index) return null;
  const box = el("div", { class: "similar" });
  const button = el("button", { type: "button", id: "similar", onclick: async () => {
    button.disabled = true;
    box.replaceChildren(el("p", { class: "muted", role: "status" }, "Looking up…"));
    try {
      const r = await api(`/api/${name}/${row}/similar`);
      const units = r.units.filter((u) => u.matches.length);
      box.replaceChildren(units.length ? el("table", { class: "similar" },
        el("tr", {}, ...["unit", "document", "estimated J", "text"].map((h) => el("th", {}, h))),
        units.flatMap((u) => u.matches.map((m, i) => el("tr", {},
          el("td", { class: "text" }, i === 0 ? u.text : ""),
          el("td", {}, m.url ? el("a", { href: m.url, rel: "noreferrer" }, m.title || m.doc) : (m.title || m.doc)),
          el("td", { class: "num" }, fmt(m.estimated_jaccard)),
          el("td", { class: "text" }, m.text || ""))))) : el("p", {}, "Nothing near it in the index."));
    } catch (e) {
      box.replaceChildren(el("p", { class: "error", role: "alert" }, e.message));
    }
  } }, `Near-duplicates in the index (${fmt(info.index.documents)} documents)`);
  return [el("h2", {}, "In the persistent index"), button, box];
}

async function drawRow(name, row) {
  const r = await api(`/api/${name}/${encodeURIComponent(row)}`);
  const d = r.data;
  const back = el("p", {}, el("a", { href: "#", onclick: (e) => { e.preventDefault(); history.back(); } }, "← back"),
    " · ", r.row > 0 ? el("a", { href: `#/t/${name}/${r.row - 1}` }, "previous row") : null,
    r.row + 1 < r.rows ? [" · ", el("a", { href: `#/t/${name}/${r.row + 1}` }, "next row")] : null);
  if (name === "reuse") {
    const arts = r.articles || {};
    const side = (key) => el("div", {}, docLink(d[key]),
      el("p", { class: "muted" }, `${fmt(d[`${key}_words`])} words at character ${fmt(d[`${key}_offset`])}, ${fmt(d[`${key}_length`])} characters; ${fmt(d[`${key}_share`])} of the document`),
      r[`${key}_html`] !== undefined ? el("div", { class: "text passage-text", html: r[`${key}_html`] })
        : el("p", { class: "muted" }, "The output has no passage texts: run reuse with --passage-texts, or start explore with --inputs."),
      contextBlock(arts[key]));
    show(el("h1", {}, `Reuse case #${r.row} `, badge(d.kind)), back,
      features([["score", fmt(d.score)], ["2-gram J", fmt(d.jaccard_2)], ["5-gram J", fmt(d.jaccard_5)], ["10-gram J", fmt(d.jaccard_10)], ["15-gram J", fmt(d.jaccard_15)], ["entity J", fmt(d.entity_jaccard)]]),
      el("h2", {}, "The two passages (shared words marked)"),
      el("div", { class: "pair" }, side("suspicious"), side("source")),
      similarBlock(name, r.row));
    scrollContexts();
  } else if (name === "clusters") {
    const members = (d.members || []).map((m, i) => el("tr", {},
      el("td", {}, i === d.representative ? el("span", { class: "badge", title: "representative" }, "rep") : String(i)),
      el("td", {}, m.url ? el("a", { href: m.url, rel: "noreferrer" }, m.title) : m.title,
        el("div", { class: "muted" }, [m.revision ? `rev ${m.revision}` : null, m.timestamp].filter(Boolean).join(" · "))),
      el("td", { class: "num" }, fmt(m.similarity)),
      el("td", {}, el("div", { class: "text member", html: (r.members_html || [])[i] || "" }),
        memberContext((r.members_articles || [])[i]))));
    const diffs = (d.differences || []).map((x) => el("li", {}, el("span", { class: "badge" }, x.kind), " ", el("mark", {}, x.a), " vs ", el("mark", {}, x.b)));
    show(el("h1", {}, `Cluster ${d.cluster} `, badge(d.type)), back,
      features([["size", fmt(d.size)], ["confidence", fmt(d.confidence)], ["rule", d.rule || "–"], ["rules' type", d.rule_type || d.type], ["articles", String(titlesOf(name, d).length)]]),
      diffs.length ? [el("h2", {}, "Differences"), el("ul", { class: "differences" }, diffs)] : null,
      el("h2", {}, `Members${r.members_total > (d.members || []).length ? ` (first ${d.members.length} of ${fmt(r.members_total)})` : ""}: words that differ from the representative marked`),
      el("table", {}, el("tr", {}, ...["", "article", "similarity", "text"].map((h) => el("th", {}, h))), members),
      similarBlock(name, r.row));
  } else {
    const cards = (d.statements || []).map((s, i) => el("div", {},
      el("strong", {}, s.url ? el("a", { href: s.url, rel: "noreferrer" }, s.title) : s.title),
      el("div", { class: "muted" }, [s.revision ? `rev ${s.revision}` : null, s.timestamp, s.newest ? "newest" : null].filter(Boolean).join(" · ")),
      el("p", { class: "text statement", html: (r.statements_html || [])[i] || "" })));
    const facts = (d.facts || []).map((f) => el("tr", {}, el("td", {}, el("span", { class: "badge" }, f.kind)), el("td", {}, el("mark", {}, f.a)), el("td", {}, el("mark", {}, f.b))));
    const cluster = el("a", { href: `#/t/clusters?cluster=${d.cluster}` }, `cluster ${d.cluster}`);
    show(el("h1", {}, `Contradiction in cluster ${d.cluster}`), back,
      features([["rule", d.rule || "–"], ["confidence", fmt(d.confidence)], ["cluster", cluster]]),
      el("h2", {}, "Conflicting facts"),
      el("table", { class: "facts" }, el("tr", {}, ...["kind", "one statement says", "another says"].map((h) => el("th", {}, h))), facts),
      el("h2", {}, "The statements side by side"),
      el("div", { class: "pair" }, cards),
      similarBlock(name, r.row));
  }
}

// Keyboard: j/k move between rows of a sample, Enter opens (links do), / focuses the title
// filter, s draws a new sample, Backspace goes back.
document.addEventListener("keydown", (event) => {
  const target = event.target;
  const typing = target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT");
  if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
  const links = [...document.querySelectorAll("table.sample a.open")];
  const at = links.indexOf(document.activeElement);
  if (event.key === "j" || event.key === "k") {
    if (!links.length) return;
    const next = event.key === "j" ? Math.min(links.length - 1, at + 1) : Math.max(0, at - 1);
    links.forEach((a) => a.closest("tr").classList.remove("focus"));
    links[next].focus();
    links[next].closest("tr").classList.add("focus");
    event.preventDefault();
  } else if (event.key === "/") {
    const input = document.getElementById("title-filter");
    if (input) { input.focus(); event.preventDefault(); }
  } else if (event.key === "s") {
    const button = document.getElementById("new-seed");
    if (button) { button.click(); event.preventDefault(); }
  } else if (event.key === "Backspace") {
    history.back();
    event.preventDefault();
  }
});

window.addEventListener("hashchange", route);
route();
