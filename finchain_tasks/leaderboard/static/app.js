/* finchain-tasks leaderboard pages. Plain JS, no dependencies, works from file://.
 * Every string from the data is untrusted (model output, names from logs): it is only ever set as text
 * (text nodes, textContent, attribute values through setAttribute); nothing here assigns HTML. */
(function () {
  "use strict";
  var LB = window.LB || { rows: [], reported: { rows: [], sources: {} }, cells: {}, board: { metrics: [] } };

  function el(tag, attrs) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, String(attrs[k])); });
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined) continue;
      node.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
    }
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function fmt(v, d) { return v === null || v === undefined ? "—" : Number(v).toFixed(d === undefined ? 3 : d); }
  function $(id) { return document.getElementById(id); }
  var primary = LB.board.primary || (LB.board.metrics || [])[0];

  /* ------------------------------------------------------------------ main table */
  function columns() {
    var cols = [
      /* sorting by tie group keeps the board's own order (table.ordered): partial rows after full ones in a group */
      { key: "tie_group", label: "tie group", value: function (r) { return r.tie_group === null ? null : LB.rows.indexOf(r); },
        text: function (r) {
          if (r.tie_group !== null && r.tie_group !== undefined) return String(r.tie_group) + (r.partial ? " †" : "");
          return r.partial ? "not comparable †" : "—";
        } },
      { key: "display_name", label: "model", value: function (r) { return r.display_name; } },
      { key: "category", label: "category", opt: true, value: function (r) { return r.category; } },
      { key: "open_weights", label: "open", opt: true, value: function (r) { return r.open_weights; },
        text: function (r) { return r.open_weights === null ? "—" : (r.open_weights ? "yes" : "no"); } },
      { key: "params_b", label: "size (B)", num: true, opt: true, value: function (r) { return r.params_b; },
        text: function (r) { return r.params_b === null ? "—" : String(r.params_b); } },
      { key: "harness", label: "harness", opt: true, value: function (r) { return r.harness + " " + (r.harness_version || ""); } },
      { key: "n", label: "n", num: true, opt: true, value: function (r) { return r.n; } },
      { key: "ranks", label: "ranks (95%)", num: true, opt: true, value: function (r) { return r.rank_low === undefined ? null : r.rank_low; },
        text: function (r) { return r.rank_low === null || r.rank_low === undefined ? "—" : r.rank_low + "–" + r.rank_high; } }
    ];
    (LB.board.metrics || []).forEach(function (m) {
      cols.push({ key: m, label: m, num: true, metric: true, opt: m !== primary,
        value: function (r) { var s = r.metrics[m]; return s ? s.mean : null; },
        text: function (r) {
          var s = r.metrics[m];
          if (!s || s.mean === null) return "—";
          return fmt(s.mean) + " [" + fmt(s.low) + ", " + fmt(s.high) + "]";
        } });
    });
    cols.push({ key: "tokens", label: "tokens in/out", num: true, opt: true,
      value: function (r) { return r.input_tokens === null ? null : r.input_tokens + r.output_tokens; },
      text: function (r) { return r.input_tokens === null ? "unknown" : r.input_tokens + "/" + r.output_tokens; } });
    cols.push({ key: "cost_usd", label: "cost (USD)", num: true, opt: true, value: function (r) { return r.cost_usd; },
      text: function (r) { return r.cost_usd === null ? "unknown" : fmt(r.cost_usd, 6); } });
    cols.push({ key: "date", label: "date", opt: true, value: function (r) { return r.date; } });
    cols.forEach(function (c) { c.canHide = c.key !== "tie_group" && c.key !== "display_name" && c.key !== primary; });
    return cols;
  }
  function cellText(col, r) {
    if (col.text) return col.text(r);
    var v = col.value(r);
    return v === null || v === undefined ? "—" : String(v);
  }

  var state = { sortKey: "tie_group", dir: 1, model: null, hidden: [] };
  /* column show/hide: every column but the tie group, the model and the primary metric can be hidden; the
   * hidden ones are in the URL (#hide=category,tokens), and the CSV keeps every column */
  function shownColumns(cols) {
    return cols.filter(function (c) { return !c.canHide || state.hidden.indexOf(c.key) < 0; });
  }
  function renderColumnBoxes() {
    var box = $("column-boxes");
    clear(box);
    columns().filter(function (c) { return c.canHide; }).forEach(function (c) {
      var input = el("input", { type: "checkbox", "data-column": c.key });
      input.checked = state.hidden.indexOf(c.key) < 0;
      input.addEventListener("change", function () {
        state.hidden = state.hidden.filter(function (k) { return k !== c.key; });
        if (!input.checked) state.hidden.push(c.key);
        renderTable(); writeHash();
      });
      box.appendChild(el("label", {}, input, " " + c.label));
    });
  }
  function filtered() {
    var cat = $("f-category").value, open = $("f-open").value, harness = $("f-harness").value;
    var size = parseFloat($("f-size").value), q = $("f-search").value.toLowerCase();
    return LB.rows.filter(function (r) {
      if (cat && r.category !== cat) return false;
      if (open === "open" && r.open_weights !== true) return false;
      if (open === "closed" && r.open_weights !== false) return false;
      if (harness && r.harness !== harness) return false;
      if (!isNaN(size) && !(r.params_b !== null && r.params_b <= size)) return false;
      if (q && (r.display_name + " " + r.model).toLowerCase().indexOf(q) < 0) return false;
      return true;
    });
  }
  function sorted(rows, cols) {
    var col = cols.filter(function (c) { return c.key === state.sortKey; })[0] || cols[0];
    return rows.slice().sort(function (a, b) {
      var x = col.value(a), y = col.value(b);
      if (x === y) return (b.metrics[primary] || {}).mean - (a.metrics[primary] || {}).mean || 0;
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      return (x < y ? -1 : 1) * state.dir;
    });
  }
  function currentView() {
    var all = columns(), cols = shownColumns(all);
    var rows = sorted(filtered(), all);  /* a hidden column still sorts, as the URL says */
    return { cols: cols, rows: rows, cells: rows.map(function (r) { return cols.map(function (c) { return cellText(c, r); }); }) };
  }
  function renderTable() {
    var view = currentView(), table = $("board");
    var thead = table.tHead, tbody = table.tBodies[0];
    clear(thead); clear(tbody);
    var tr = el("tr");
    view.cols.forEach(function (c) {
      /* the label is a button: focusable, Enter and Space sort; aria-sort says the order to a screen reader */
      var sortedBy = c.key === state.sortKey;
      var th = el("th", { "data-key": c.key, scope: "col", "class": (c.opt ? "opt " : "") + (sortedBy ? (state.dir > 0 ? "sorted-asc" : "sorted-desc") : ""),
        "aria-sort": sortedBy ? (state.dir > 0 ? "ascending" : "descending") : "none" },
        el("button", { type: "button", "class": "sort" }, c.label));
      th.addEventListener("click", function () {
        state.dir = state.sortKey === c.key ? -state.dir : (c.metric || c.num ? -1 : 1);
        state.sortKey = c.key; renderTable(); writeHash();
        var again = document.querySelector("#board th[data-key='" + c.key + "'] button");
        if (again) again.focus();  /* the header was rebuilt: keep the keyboard where it was */
      });
      tr.appendChild(th);
    });
    thead.appendChild(tr);
    view.rows.forEach(function (r) {
      var row = el("tr", { "data-model": r.model, "data-harness": r.harness });
      view.cols.forEach(function (c) {
        var td = el("td", { "class": (c.num ? "num" : "") + (c.opt ? " opt" : "") });
        if (c.key === "display_name") {
          td.appendChild(modelButton(r));
          td.appendChild(el("span", { "class": "harness-tag" }, r.harness));  /* shown when the harness column is not */
        } else if (c.key === "tie_group") {
          td.appendChild(el("span", { "class": "tie" + (r.tie_group === 1 ? " g1" : "") }, cellText(c, r)));
        } else if (c.metric && r.metrics[c.key] && r.metrics[c.key].mean !== null) {
          var s = r.metrics[c.key];
          td.appendChild(document.createTextNode(fmt(s.mean) + " [" + fmt(s.low) + ", " + fmt(s.high) + "]"));
          td.appendChild(el("span", { "class": "naive", title: "per-sample bootstrap interval (ignores templates)" },
            "per-sample [" + fmt(s.naive_low) + ", " + fmt(s.naive_high) + "]"));
          td.setAttribute("data-text", cellText(c, r));
        } else {
          td.appendChild(document.createTextNode(cellText(c, r)));
        }
        if (!td.hasAttribute("data-text")) td.setAttribute("data-text", cellText(c, r));
        row.appendChild(td);
      });
      tbody.appendChild(row);
    });
    $("table-note").textContent = view.rows.length + " of " + LB.rows.length + " rows. Intervals: " +
      Math.round((LB.board.statistics || {}).confidence * 100) + "% bootstrap over templates; tie group 1 = " +
      "not distinguishable from the leader on " + primary + " at " + (LB.board.statistics || {}).alpha +
      " (paired tests, " + (LB.board.statistics || {}).correction + " correction). Ranks: simultaneous 95% bootstrap " +
      "range of ranks over templates. †: partial coverage; not comparable: too few templates shared with the leader." +
      (LB.rows.length ? "" : " No reproduced row on this board" + ((LB.reported_samples || []).length ? ": its rows are reported per sample, below." : "."));
  }
  /* CSV: the build's own lines (finchain_tasks/leaderboard/table_csv.py, the release's leaderboard.csv writer),
   * the rows shown, in the order shown; the page writes no CSV field itself */
  function viewCSV() {
    var csvData = LB.csv || { header: "model", lines: [] };
    return [csvData.header].concat(currentView().rows.map(function (r) { return csvData.lines[LB.rows.indexOf(r)]; }))
      .join("\r\n") + "\r\n";
  }
  function viewJSON() { return JSON.stringify(currentView().rows, null, 2); }
  function download(name, text, type) {
    var url = URL.createObjectURL(new Blob([text], { type: type }));
    var a = el("a", { href: url, download: name });
    document.body.appendChild(a); a.click(); document.body.removeChild(a);
    setTimeout(function () { URL.revokeObjectURL(url); }, 5000);
  }
  function options(select, values) {
    values.forEach(function (v) { select.appendChild(el("option", { value: v }, v)); });
  }
  function uniq(list) { return list.filter(function (v, i) { return v !== null && v !== undefined && list.indexOf(v) === i; }).sort(); }
  function renderReported() {
    /* one table per source: sources measure different things on their own scales */
    var box = $("reported"), sources = LB.reported.sources || {};
    Object.keys(sources).forEach(function (key) {
      var rows = (LB.reported.rows || []).filter(function (r) { return r.source === key; });
      var metrics = [];
      rows.forEach(function (r) { Object.keys(r.scores).forEach(function (k) { if (metrics.indexOf(k) < 0) metrics.push(k); }); });
      var head = el("tr", {}, el("th", {}, "model"), el("th", {}, "as printed"));
      metrics.forEach(function (m) { head.appendChild(el("th", {}, m + " (±spread)")); });
      head.appendChild(el("th", {}, "status"));
      var body = el("tbody");
      rows.slice().sort(function (a, b) { return (b.scores[metrics[0]] || 0) - (a.scores[metrics[0]] || 0); }).forEach(function (r) {
        var tr = el("tr", { "data-model": r.model }, el("td", {}, r.display_name), el("td", {}, r.reported_name));
        metrics.forEach(function (m) {
          tr.appendChild(el("td", { "class": "num" }, r.scores[m] === undefined ? "—" :
            fmt(r.scores[m], 2) + (r.spread && r.spread[m] !== undefined ? " ±" + fmt(r.spread[m], 2) : "")));
        });
        tr.appendChild(el("td", {}, r.status));
        body.appendChild(tr);
      });
      box.appendChild(el("h3", {}, sources[key].title || key));
      box.appendChild(el("p", { "class": "note" }, "Source: ", el("a", { href: sources[key].url || "#", rel: "noopener noreferrer" }, sources[key].url || key),
        ". " + (sources[key].note || "")));
      box.appendChild(el("div", { "class": "scroll" }, el("table", { "class": "reported", "data-source": key }, el("thead", {}, head), body)));
    });
  }
  /* ------------------------------------------------------------------ reported per sample: a source's own table,
   * with the intervals, tie groups and ranks computed among its rows only (never with the reproduced rows) */
  function sampleBlockColumns(b) {
    var cols = [
      { head: "tie_group", label: "tie group", value: function (r) { return r.tie_group; } },
      { head: "display_name", label: "model", value: function (r) { return r.display_name; } },
      { head: "reported_name", label: "as named", value: function (r) { return r.reported_name; } },
      { head: "model", label: "registry name", csvOnly: true, value: function (r) { return r.model; } },
      { head: "n", label: "n", num: true, value: function (r) { return r.n; } },
      { head: "templates", label: "templates", num: true, csvOnly: true, value: function (r) { return r.templates; } },
      { head: "rank_low", label: "ranks (95%)", num: true, value: function (r) { return r.rank_low; },
        text: function (r) { return r.rank_low === null || r.rank_low === undefined ? "—" : r.rank_low + "–" + r.rank_high; } },
      { head: "rank_high", csvOnly: true, value: function (r) { return r.rank_high; } }
    ];
    b.metrics.forEach(function (m) {
      ["mean", "low", "high"].forEach(function (k) {
        cols.push({ head: k === "mean" ? m : m + "_" + k, label: m, num: true, metric: m, csvOnly: k !== "mean",
          value: function (r) { return (r.metrics[m] || {})[k]; } });
      });
      cols.push({ head: m + "_published", csvOnly: true, value: function (r) { return r.published[m]; } });
      cols.push({ head: m + "_delta", csvOnly: true, value: function (r) { return r.delta[m]; } });
    });
    cols.push({ head: "status", label: "status", value: function (r) { return r.status; } });
    return cols;
  }
  function blockCSV(b) {
    var lines = ((LB.csv || {}).blocks || {})[b.source] || { header: "model", lines: [] };
    return [lines.header].concat(lines.lines).join("\r\n") + "\r\n";
  }
  function renderReportedSamples() {
    var box = $("reported-samples"), blocks = LB.reported_samples || [];
    clear(box);
    if (!blocks.length) return;
    box.appendChild(el("h2", {}, "Reported per sample, not reproduced"));
    box.appendChild(el("p", { "class": "note" }, "Per-sample results published by others, scored by their own code and " +
      "not re-run here. Because every sample's score is published, each mean has the same " +
      Math.round((LB.board.statistics || {}).confidence * 100) + "% template-bootstrap interval, tie group and range " +
      "of ranks as the rows above, computed among this source's rows only: never mixed with reproduced rows. " +
      "Under each mean: the mean the source published."));
    blocks.forEach(function (b) {
      var cols = sampleBlockColumns(b).filter(function (c) { return !c.csvOnly; });
      var head = el("tr");
      cols.forEach(function (c) { head.appendChild(el("th", { scope: "col" }, c.label)); });
      var body = el("tbody");
      b.rows.forEach(function (r) {
        var tr = el("tr", { "data-model": r.model, "data-source": b.source });
        cols.forEach(function (c) {
          var td = el("td", { "class": c.num ? "num" : "" });
          if (c.metric) {
            var s = r.metrics[c.metric] || {};
            td.appendChild(document.createTextNode(fmt(s.mean) + " [" + fmt(s.low) + ", " + fmt(s.high) + "]"));
            var d = r.delta[c.metric];
            td.appendChild(el("span", { "class": "naive", title: "the mean the source published; Δ = recomputed − published" },
              "published " + fmt(r.published[c.metric], 4) + (d === null || d === undefined ? "" : " (Δ " + (Math.abs(d) < 1e-12 ? "0" : Number(d).toExponential(1)) + ")")));
          } else if (c.head === "tie_group") {
            td.appendChild(el("span", { "class": "tie" + (r.tie_group === 1 ? " g1" : "") }, r.tie_group === null ? "—" : String(r.tie_group)));
          } else {
            var v = c.text ? c.text(r) : c.value(r);
            td.appendChild(document.createTextNode(v === null || v === undefined ? "—" : String(v)));
          }
          tr.appendChild(td);
        });
        body.appendChild(tr);
      });
      var csv = el("button", { type: "button", "class": "dl-block", "data-source": b.source }, "Download CSV");
      var json = el("button", { type: "button", "class": "dl-block-json", "data-source": b.source }, "Download JSON");
      csv.addEventListener("click", function () { download(LB.board.name + "-" + b.source + ".csv", blockCSV(b), "text/csv"); });
      json.addEventListener("click", function () { download(LB.board.name + "-" + b.source + ".json", JSON.stringify(b, null, 2), "application/json"); });
      box.appendChild(el("h3", {}, b.title || b.source));
      box.appendChild(el("p", { "class": "note" }, "Source: ", el("a", { href: b.url || "#", rel: "noopener noreferrer" }, b.url || b.source),
        ". " + (b.note || "") + " Ordered by " + b.primary + "; " + b.unscored_samples + " sample(s) without a score left out."));
      box.appendChild(el("p", {}, csv, " ", json));
      box.appendChild(el("div", { "class": "scroll" }, el("table", { "class": "reported-samples", "data-source": b.source },
        el("thead", {}, head), body)));
    });
  }
  function initIndex() {
    options($("f-category"), uniq(LB.rows.map(function (r) { return r.category; })));
    options($("f-harness"), uniq(LB.rows.map(function (r) { return r.harness; })));
    Object.keys(FILTERS).forEach(function (k) {
      function changed() { renderTable(); writeHash(); }
      $(FILTERS[k]).addEventListener("input", changed); $(FILTERS[k]).addEventListener("change", changed);
    });
    $("dl-csv").addEventListener("click", function () { download(LB.board.name + "-leaderboard.csv", viewCSV(), "text/csv"); });
    $("dl-json").addEventListener("click", function () { download(LB.board.name + "-leaderboard.json", viewJSON(), "application/json"); });
    $("details-close").addEventListener("click", function () { state.model = null; renderDetails(); writeHash(); });
    window.addEventListener("hashchange", function () { readHash(); renderColumnBoxes(); renderTable(); renderDetails(); });
    readHash(); renderColumnBoxes(); renderTable(); renderDetails(); renderVersus(); renderReportedSamples(); renderReported();
  }

  /* ------------------------------------------------------------------ permalinks: the table's filters, sort and
   * open model live in the URL's fragment (#harness=lm-eval&sort=chaineval&dir=desc&model=…), as the sample page's
   * id does, so a view can be linked; the fragment works from file:// and any static host */
  var FILTERS = { category: "f-category", open: "f-open", harness: "f-harness", size: "f-size", q: "f-search" };
  function readHash() {
    var p = new URLSearchParams(location.hash.slice(1));
    Object.keys(FILTERS).forEach(function (k) { $(FILTERS[k]).value = p.get(k) || ""; });
    state.sortKey = p.get("sort") || "tie_group";
    state.dir = p.get("dir") === "desc" ? -1 : (p.get("dir") === "asc" ? 1 : (p.get("sort") ? -1 : 1));
    state.model = p.get("model") || null;
    state.hidden = (p.get("hide") || "").split(",").filter(function (k) { return k; });
  }
  function writeHash() {
    var p = new URLSearchParams();
    Object.keys(FILTERS).forEach(function (k) { var v = $(FILTERS[k]).value; if (v) p.set(k, v); });
    if (state.sortKey !== "tie_group" || state.dir !== 1) { p.set("sort", state.sortKey); p.set("dir", state.dir > 0 ? "asc" : "desc"); }
    if (state.model) p.set("model", state.model);
    if (state.hidden.length) p.set("hide", state.hidden.join(","));
    var hash = p.toString() ? "#" + p.toString() : location.pathname.split("/").pop();
    try { history.replaceState(null, "", hash); } catch (e) { location.replace("#" + p.toString()); }
  }

  /* ------------------------------------------------------------------ model details */
  function modelButton(r) {
    var b = el("button", { type: "button", "class": "model-link", "data-model": r.model, title: "details of " + r.model }, r.display_name);
    b.addEventListener("click", function () { state.model = r.model; renderDetails(); writeHash(); $("details").focus(); });
    return b;
  }
  function renderDetails() {
    var box = $("details"), body = $("details-body"), d = (LB.models || {})[state.model];
    clear(body);
    if (!d) { box.hidden = true; return; }
    box.hidden = false;
    $("details-title").textContent = d.display_name || d.model;
    var gen = Object.keys(d.generation || {}).map(function (k) {
      var v = d.generation[k]; return k + " = " + (typeof v === "object" ? JSON.stringify(v) : v);
    });
    var facts = [["registry name", d.model], ["Hugging Face id", d.hf_id], ["litellm id", d.litellm_model],
      ["category", d.category], ["open weights", d.open_weights === null || d.open_weights === undefined ? null : (d.open_weights ? "yes" : "no")],
      ["size (B)", d.params_b], ["generation settings (registry)", gen.length ? gen.join(", ") : "the task's defaults"],
      ["notes", d.notes]];
    var dl = el("dl", { "class": "facts" });
    facts.forEach(function (f) { dl.appendChild(el("dt", {}, f[0])); dl.appendChild(el("dd", { "data-fact": f[0] }, f[1] === null || f[1] === undefined ? "—" : f[1])); });
    body.appendChild(dl);
    if (!d.in_registry) body.appendChild(el("p", { "class": "note" }, "Not in the registry this board was built with: only what the logs say is shown."));
    var runs = el("tbody");
    d.runs.forEach(function (r) {
      runs.appendChild(el("tr", { "data-harness": r.harness }, el("td", {}, r.harness + " " + (r.harness_version || "")), el("td", {}, r.task),
        el("td", {}, r.task_version === null ? "—" : r.task_version), el("td", {}, r.profile === null ? "—" : r.profile),
        el("td", {}, r.date === null ? "—" : r.date), el("td", { "class": "num" }, r.n)));
    });
    body.appendChild(el("table", { "class": "runs" }, el("thead", {}, el("tr", {}, el("th", {}, "harness"), el("th", {}, "task"),
      el("th", {}, "task version"), el("th", {}, "profile"), el("th", {}, "run date"), el("th", {}, "n"))), runs));
  }

  /* ------------------------------------------------------------------ reproduced beside published */
  function renderVersus() {
    var box = $("versus"), rows = LB.versus_published || [];
    clear(box);
    if (!rows.length) { box.appendChild(el("p", { "class": "note" }, "No reproduced row has a published figure of the same metric to compare with.")); return; }
    var body = el("tbody");
    rows.forEach(function (v) {
      var diff = el("td", { "class": "num diff" + (v.diff_low > 0 || v.diff_high < 0 ? " differs" : "") },
        (v.difference >= 0 ? "+" : "") + fmt(v.difference, 2), el("span", { "class": "ci" }, "[" + fmt(v.diff_low, 2) + ", " + fmt(v.diff_high, 2) + "]"));
      body.appendChild(el("tr", { "data-model": v.model, "data-harness": v.harness, "data-metric": v.metric },
        el("td", {}, v.display_name), el("td", { "class": "opt" }, v.harness), el("td", {}, v.metric),
        el("td", { "class": "num" }, fmt(v.reproduced, 2), el("span", { "class": "ci" }, "[" + fmt(v.low, 2) + ", " + fmt(v.high, 2) + "]")),
        el("td", { "class": "num" }, fmt(v.published, 2) + (v.spread === null || v.spread === undefined ? "" : " ±" + fmt(v.spread, 2))),
        diff, el("td", { "class": "opt" }, v.profile === null ? "—" : v.profile)));
    });
    box.appendChild(el("div", { "class": "scroll" }, el("table", { id: "versus-table" }, el("thead", {}, el("tr", {}, el("th", {}, "model"),
      el("th", { "class": "opt" }, "harness"), el("th", {}, "metric"), el("th", {}, "reproduced [interval]"), el("th", {}, "published (±spread)"),
      el("th", {}, "difference [interval]"), el("th", { "class": "opt" }, "our profile"))), body)));
  }

  /* ------------------------------------------------------------------ heat map */
  function color(v) {
    if (v === null || v === undefined) return "#f1f1f1";
    return "hsl(" + Math.round(120 * Math.max(0, Math.min(1, v))) + ", 65%, 78%)";
  }
  function renderHeatmap() {
    var key = $("hm-model").value, grid = LB.cells[key] || {}, table = $("heatmap");
    clear(table.tHead); clear(table.tBodies[0]); clear($("drill"));
    var cells = Object.keys(grid).map(function (k) { return grid[k]; });
    var domains = uniq(cells.map(function (c) { return c.domain; }));
    var levels = ["easy", "intermediate", "advanced"];
    table.tHead.appendChild(el.apply(null, ["tr", {}, el("th", {}, "domain")].concat(levels.map(function (l) { return el("th", {}, l); }))));
    domains.forEach(function (d) {
      var tr = el("tr", {}, el("th", { scope: "row" }, d));
      levels.forEach(function (l) {
        var c = grid[d + "|" + l];
        if (!c) { tr.appendChild(el("td", { "class": "empty" }, "—")); return; }
        var td = el("td", { "class": "cell", "data-cell": d + "|" + l },
          el("strong", {}, fmt(c.mean)), el("span", { "class": "ci" }, "[" + fmt(c.low) + ", " + fmt(c.high) + "]"),
          el("span", { "class": "ci" }, "n = " + c.n));
        td.style.background = color(c.mean);
        td.addEventListener("click", function () { drill(c); });
        tr.appendChild(td);
      });
      table.tBodies[0].appendChild(tr);
    });
    $("hm-note").textContent = "Mean " + primary + " per domain × level with a template-bootstrap interval and the sample count. Click a cell for its topics and templates.";
  }
  function sampleIds(c, row) {
    /* only the "all" grid lists sample ids (data.js stays small); a model's template links through it */
    if (row.samples) return row.samples;
    var all = ((LB.cells.all || {})[c.domain + "|" + c.level] || {}).templates || [];
    var same = all.filter(function (t) { return t.name === row.name; })[0];
    return same && same.samples ? same.samples : [];
  }
  function drill(c) {
    var box = $("drill"); clear(box);
    box.appendChild(el("h2", {}, c.domain + " · " + c.level));
    [["topic", c.topics], ["template", c.templates]].forEach(function (pair) {
      var t = el("table", {}, el("thead", {}, el("tr", {}, el("th", {}, pair[0]), el("th", {}, "n"), el("th", {}, "mean"),
        pair[0] === "template" ? el("th", {}, "samples") : null)));
      var body = el("tbody");
      pair[1].forEach(function (row) {
        if (pair[0] === "topic") {
          body.appendChild(el("tr", {}, el("td", {}, row.name), el("td", { "class": "num" }, row.n), el("td", { "class": "num" }, fmt(row.mean))));
          return;
        }
        var links = el("td");
        sampleIds(c, row).forEach(function (sid) {
          links.appendChild(el("a", { href: "sample.html#" + encodeURIComponent(sid) }, sid.split("/").slice(-2).join("/")));
          links.appendChild(document.createTextNode(" "));
        });
        body.appendChild(el("tr", {}, el("td", {}, row.name), el("td", { "class": "num" }, row.n), el("td", { "class": "num" }, fmt(row.mean)), links));
      });
      t.appendChild(body); box.appendChild(t);
    });
  }
  function initHeatmap() {
    options($("hm-model"), Object.keys(LB.cells));
    $("hm-model").addEventListener("change", renderHeatmap);
    renderHeatmap(); renderMatrix();
  }
  /* every model × domain at once (HELM's view): a row per model and harness, a cell per domain */
  function renderMatrix() {
    var m = LB.matrix || { columns: [], rows: [] }, table = $("matrix");
    clear(table.tHead); clear(table.tBodies[0]);
    $("matrix-note").textContent = m.rows.length ? "Mean " + m.metric + " per model and " + m.by +
      " with a template-bootstrap interval; blank: the model has no sample there." : "No grouping (domain, sub-task or exam) in these samples.";
    if (!m.rows.length) return;
    table.tHead.appendChild(el.apply(null, ["tr", {}, el("th", {}, "model")].concat(m.columns.map(function (c) { return el("th", {}, c); }))));
    m.rows.forEach(function (r) {
      var tr = el("tr", { "data-label": r.label }, el("th", { scope: "row" }, r.label));
      m.columns.forEach(function (c) {
        var cell = r.cells[c];
        if (!cell) { tr.appendChild(el("td", { "class": "empty" }, "—")); return; }
        var td = el("td", { "class": "cell", "data-column": c }, el("strong", {}, fmt(cell.mean)),
          el("span", { "class": "ci" }, "[" + fmt(cell.low) + ", " + fmt(cell.high) + "]"), el("span", { "class": "ci" }, "n = " + cell.n));
        td.style.background = color(cell.mean);
        tr.appendChild(td);
      });
      table.tBodies[0].appendChild(tr);
    });
  }

  /* ------------------------------------------------------------------ frontier */
  var SVG = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, text) {
    var n = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (k) { n.setAttribute(k, String(attrs[k])); });
    if (text !== undefined) n.textContent = String(text);
    return n;
  }
  function scatter(box, points, xLabel, frontierLabels) {
    var W = 760, H = 360, P = 50, R = 170;  /* R: room on the right for the labels */
    var s = svg("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img" });
    if (!points.length) { box.appendChild(el("p", { "class": "note" }, "no rows to plot")); return; }
    var xs = points.map(function (p) { return p.x; }), xmax = Math.max.apply(null, xs) || 1, xmin = Math.min(0, Math.min.apply(null, xs));
    function X(v) { return P + (W - P - R) * (v - xmin) / ((xmax - xmin) || 1); }
    function Y(v) { return H - P - (H - 2 * P) * v; }
    s.appendChild(svg("line", { x1: P, y1: H - P, x2: W - R, y2: H - P, stroke: "#555" }));
    s.appendChild(svg("line", { x1: P, y1: P, x2: P, y2: H - P, stroke: "#555" }));
    s.appendChild(svg("text", { x: (W - R + P) / 2, y: H - 12, "text-anchor": "middle" }, xLabel));
    s.appendChild(svg("text", { x: 12, y: P - 12 }, primary));
    [0, 0.5, 1].forEach(function (t) { s.appendChild(svg("text", { x: P - 30, y: Y(t) + 4 }, t.toFixed(1))); });
    s.appendChild(svg("text", { x: W - R, y: H - P + 16, "text-anchor": "middle" }, fmt(xmax, 4)));
    s.appendChild(svg("text", { x: P, y: H - P + 16, "text-anchor": "middle" }, fmt(xmin, 4)));
    var front = points.filter(function (p) { return frontierLabels && frontierLabels.indexOf(p.label) >= 0; })
      .sort(function (a, b) { return a.x - b.x; });
    if (front.length > 1) {
      s.appendChild(svg("polyline", { points: front.map(function (p) { return X(p.x) + "," + Y(p.y); }).join(" "), fill: "none", stroke: "#c77700", "stroke-width": 2 }));
    }
    points.forEach(function (p) {
      if (p.lo !== null && p.hi !== null) s.appendChild(svg("line", { x1: X(p.x), x2: X(p.x), y1: Y(p.lo), y2: Y(p.hi), stroke: "#8aa" }));
      var dot = svg("circle", { cx: X(p.x), cy: Y(p.y), r: 5, fill: front.indexOf(p) >= 0 ? "#c77700" : "#1f3a5f" });
      dot.appendChild(svg("title", {}, p.label + ": " + fmt(p.y)));
      s.appendChild(dot);
      s.appendChild(svg("text", { x: X(p.x) + 7, y: Y(p.y) - 6 }, p.label));
    });
    box.appendChild(s);
  }
  function initFrontier() {
    function pt(r, x) { var m = r.metrics[primary] || {}; return { x: x, y: m.mean, lo: m.low, hi: m.high, label: r.label }; }
    var withCost = LB.rows.filter(function (r) { return r.cost_per_sample !== null && (r.metrics[primary] || {}).mean !== null; });
    scatter($("cost-chart"), withCost.map(function (r) { return pt(r, r.cost_per_sample); }), "USD per sample", LB.frontier);
    var noCost = LB.rows.filter(function (r) { return r.cost_per_sample === null; }).map(function (r) { return r.label; });
    $("cost-note").textContent = "Orange: the frontier (no row is cheaper and at least as good). Cost unknown (not plotted): " + (noCost.join(", ") || "none") + ".";
    var open = LB.rows.filter(function (r) { return r.open_weights === true && r.params_b !== null && (r.metrics[primary] || {}).mean !== null; });
    scatter($("size-chart"), open.map(function (r) { return pt(r, r.params_b); }), "parameters (B)", null);
    var noSize = LB.rows.filter(function (r) { return r.open_weights === true && r.params_b === null; }).map(function (r) { return r.label; });
    $("size-note").textContent = "Open-weights rows with a known size. Size unknown (listed, not dropped silently): " + (noSize.join(", ") || "none") + ".";
  }

  /* ------------------------------------------------------------------ sample page */
  /* The samples come in chunks (samples/index.js lists them); a chunk's script tag is added when one of its
   * samples is shown, so the page never loads a whole board's outputs. Script tags, not fetch: file:// allows them. */
  var INDEX = window.LB_SAMPLE_INDEX || {}, chunkOf = {}, loading = {};
  Object.keys(INDEX).forEach(function (c) { INDEX[c].forEach(function (sid) { chunkOf[sid] = c; }); });
  function withChunk(chunk, then) {
    var have = window.LB_SAMPLE_CHUNKS || {};
    if (have[chunk]) { then(have[chunk], null); return; }
    if (!/^[0-9]+$/.test(chunk)) { then(null, "bad chunk name"); return; }
    if (loading[chunk]) { loading[chunk].push(then); return; }
    var waiting = loading[chunk] = [then], tag = el("script", { src: "samples/" + chunk + ".js" });
    function settle(err) {
      delete loading[chunk];
      var got = (window.LB_SAMPLE_CHUNKS || {})[chunk] || null;
      if (!got && tag.parentNode) tag.parentNode.removeChild(tag);  /* a later try adds a fresh tag */
      waiting.forEach(function (f) { f(got, got ? null : err || "samples/" + chunk + ".js holds no samples"); });
    }
    tag.addEventListener("load", function () { settle(null); });
    tag.addEventListener("error", function () { settle("could not load samples/" + chunk + ".js"); });
    document.body.appendChild(tag);
  }
  function renderSample(sid) {
    var box = $("sample"), chunk = chunkOf[sid];
    clear(box);
    if (chunk === undefined) { box.appendChild(el("p", {}, "no such sample")); return; }
    box.appendChild(el("p", { "class": "note", id: "sample-loading" }, "loading…"));
    withChunk(chunk, function (samples, err) {
      if ($("sample-select").value !== sid) return;  /* another sample was chosen meanwhile */
      clear(box);
      if (!samples || !samples[sid]) { box.appendChild(el("p", { "class": "bad" }, err || "no such sample")); return; }
      showSample(samples[sid]);
    });
  }
  function showSample(s) {
    var box = $("sample");
    box.appendChild(el("h2", {}, s.id));
    box.appendChild(el("p", { "class": "note" }, [s.domain, s.topic, s.template, s.level].join(" · ")));
    box.appendChild(el("h3", {}, "Question"));
    if (s.withheld) box.appendChild(el("p", { "class": "note", id: "withheld" }, s.withheld));
    else box.appendChild(el("pre", { "class": "text", id: "question" }, s.question || ""));
    var gold = el("ol", { "class": "steps" });
    (s.gold_steps || []).forEach(function (t) { gold.appendChild(el("li", {}, t)); });
    var grid = el("div", { "class": "sample-grid" },
      el("div", { "class": "card" }, el("h3", {}, "Gold"), gold, el("p", {}, "Final answer: " + (s.gold_answer === null ? "—" : s.gold_answer))));
    s.models.forEach(function (m) { grid.appendChild(modelCard(m)); });
    box.appendChild(grid);
  }
  function modelCard(m) {
    var card = el("div", { "class": "card model-output", "data-label": m.label }, el("h3", {}, m.label));
    card.appendChild(el("p", {}, "ChainEval " + fmt(m.chaineval) + " · final answer " +
      (m.fac === null ? "—" : (m.fac ? "correct" : "wrong")) + " · first wrong step " +
      (m.first_error_step !== null ? m.first_error_step : (m.no_error === 1 ? "none" : "unknown"))));
    var steps = el("ol", { "class": "steps" });
    m.steps.forEach(function (t) { steps.appendChild(el("li", {}, t)); });
    card.appendChild(steps);
    card.appendChild(el("p", {}, "Final answer: " + (m.answer === null ? "—" : m.answer)));
    if (m.alignment) {
      var t = el("table", {}, el("thead", {}, el("tr", {}, el("th", {}, "gold step"), el("th", {}, "model step"),
        el("th", {}, "similarity"), el("th", {}, "numeric gate"), el("th", {}, "matched"))));
      var body = el("tbody");
      m.alignment.forEach(function (a) {
        var bad = m.first_error_step !== null && a.gold === m.first_error_step;
        body.appendChild(el("tr", { "class": bad ? "bad" : "" }, el("td", {}, a.gold), el("td", {}, a.pred === null ? "—" : a.pred),
          el("td", { "class": "num" }, fmt(a.similarity)), el("td", { "class": "num" }, fmt(a.gate, 1)),
          el("td", {}, a.matched ? "yes" : "no")));
      });
      t.appendChild(body); card.appendChild(el("div", { "class": "scroll" }, t));
      if (!m.alignment.length) card.appendChild(el("p", { "class": "note" }, "no model step matched a gold step"));
      if (m.harness === "lm-eval") card.appendChild(el("p", { "class": "note" }, "lm-eval logs the scores only: this alignment was " +
        "recomputed by the build with the same scorer and parameters, and its ChainEval equals the logged one."));
    } else {
      card.appendChild(el("p", { "class": "note" }, "no step alignment in this harness's log"));
    }
    if (m.prompt) card.appendChild(el("details", { "class": "prompt" }, el("summary", {}, "prompt the model saw"),
      el("pre", { "class": "text prompt" }, m.prompt)));
    card.appendChild(el("details", {}, el("summary", {}, "raw output"), el("pre", { "class": "text raw" }, m.output)));
    if (m.error) card.appendChild(el("p", { "class": "bad" }, "error: " + m.error));
    return card;
  }
  function initSample() {
    var ids = Object.keys(chunkOf).sort(), select = $("sample-select");
    options(select, ids);
    var wanted = decodeURIComponent(location.hash.slice(1));
    if (ids.indexOf(wanted) >= 0) select.value = wanted;
    select.addEventListener("change", function () { location.hash = encodeURIComponent(select.value); renderSample(select.value); });
    window.addEventListener("hashchange", function () {
      var id = decodeURIComponent(location.hash.slice(1)); if (ids.indexOf(id) >= 0) { select.value = id; renderSample(id); }
    });
    if (select.value) renderSample(select.value);
  }

  window.LBView = { csv: viewCSV, json: viewJSON };
  var page = document.body.getAttribute("data-page");
  if (LB.board && LB.board.title) document.title = LB.board.title;
  ({ index: initIndex, heatmap: initHeatmap, frontier: initFrontier, sample: initSample }[page] || function () {})();
})();
