(function () {
  "use strict";
  // Renders the sessions held in the page's JSON data blocks. Session text only
  // ever reaches the page through textContent / text nodes; links point at #anchors we build.
  var BATCH = 30, LONG = 3000, CACHE = 24, KEEP = 300;
  var meta = read("meta"), CHUNK = meta.chunk;
  var heads = new Map(), chunks = new Map();
  var app = document.getElementById("app"), bar = document.getElementById("bar");
  var view = null; // {s, lo, hi, list, top, bottom}
  var query = "", hits = [], hitAt = -1, searchRun = 0, findingsBySession = null;
  var crumb, input, counter, ready = false, shown = "";

  function read(id) {
    var node = document.getElementById(id);
    return node ? JSON.parse(node.textContent) : null;
  }
  function head(s) {
    if (!heads.has(s)) { var h = read("h" + s); if (!h) return null; heads.set(s, h); }
    return heads.get(s);
  }
  function chunk(s, k) {
    var key = s + "-" + k, c = chunks.get(key);
    if (c) { chunks.delete(key); chunks.set(key, c); return c; }
    c = read("c" + key);
    if (!c) return null;
    chunks.set(key, c);
    if (chunks.size > CACHE) chunks.delete(chunks.keys().next().value);
    return c;
  }
  function rawText(s, k) { var node = document.getElementById("c" + s + "-" + k); return node ? node.textContent.toLowerCase() : ""; }
  function msg(s, i) { var c = chunk(s, Math.floor(i / CHUNK)); return c ? c[i % CHUNK] : null; }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  function link(href, text, cls) { var a = el("a", cls, text); a.href = href; return a; }
  function when(ts) {
    if (typeof ts !== "number" || !isFinite(ts)) return "";
    var d = new Date(ts);
    return isNaN(d) ? "" : d.toISOString().replace("T", " ").slice(0, 19) + " UTC";
  }
  function num(n) { return (n || 0).toLocaleString("en-US"); }

  // Text with highlighted search hits and redaction marks, as text nodes and <mark>s.
  function marked(parent, text, redactions) {
    var ranges = [];
    if (redactions) redactions.forEach(function (r) {
      if (!r[0]) return;
      for (var at = text.indexOf(r[0]); at >= 0; at = text.indexOf(r[0], at + r[0].length))
        ranges.push([at, at + r[0].length, / \(flagged\)$/.test(r[1]) ? "red flag" : "red", r[1], r[2]]);
    });
    if (query) {
      var low = text.toLowerCase();
      for (var at = low.indexOf(query); at >= 0; at = low.indexOf(query, at + query.length))
        ranges.push([at, at + query.length, "", null, null]);
    }
    if (!ranges.length) { parent.appendChild(document.createTextNode(text)); return; }
    ranges.sort(function (a, b) { return a[0] - b[0] || (a[2] ? -1 : 1); });
    var pos = 0;
    ranges.forEach(function (r) {
      if (r[0] < pos) return;
      if (r[0] > pos) parent.appendChild(document.createTextNode(text.slice(pos, r[0])));
      var m = el("mark", r[2], text.slice(r[0], r[1]));
      if (r[3] != null) { m.title = "redacted: " + r[3]; if (!document.getElementById("f" + r[4])) m.id = "f" + r[4]; }
      parent.appendChild(m);
      pos = r[1];
    });
    if (pos < text.length) parent.appendChild(document.createTextNode(text.slice(pos)));
  }
  var ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g; // terminal colours in tool output: shown plain
  function textBlock(cls, text, m, tag) {
    var box = el(tag || "div", cls);
    if (text.indexOf("\u001b") >= 0) text = text.replace(ANSI, "");
    var full = query || m.f || text.length <= LONG;
    marked(box, full ? text : text.slice(0, LONG), m.f);
    if (!full) {
      var more = el("button", "more", "Show all (" + num(text.length - LONG) + " more characters)");
      more.type = "button";
      more.addEventListener("click", function () {
        box.textContent = ""; marked(box, text, m.f); more.remove();
      });
      var wrap = el("div"); wrap.append(box, more); return wrap;
    }
    return box;
  }

  var ROLE = { user: "User", assistant: "Assistant", system: "System", tool: "Tool result" };
  function renderMsg(s, i) {
    var m = msg(s, i);
    if (!m) return null; // its block has not arrived yet (a big page still loading)
    var art = el("article", "msg r-" + (m.r in ROLE ? m.r : "system"));
    art.id = "s" + s + "-m" + i;
    art.dataset.i = i;
    if (m.inj) art.classList.add("inj");
    if (m.e) art.classList.add("e");
    if (m.cmp) art.classList.add("cmp");
    var h = el("div", "mh");
    var who = m.cmp ? "Context compacted" + (m.tb ? " · " + num(m.tb) + " tokens before" : "") : m.r === "tool" ? "Result" + (m.tn ? " · " + m.tn : "") : (ROLE[m.r] || m.r);
    h.appendChild(el("span", "who", who));
    if (m.inj) h.appendChild(el("span", "badge inj", "injected context" + (m.k ? " · " + m.k : "")));
    else if (m.k && !m.cmp) h.appendChild(el("span", "badge", m.k));
    if (m.e) h.appendChild(el("span", "badge err", "error"));
    if (m.ab) h.appendChild(el("span", "badge err", "aborted"));
    if (m.rb) h.appendChild(el("span", "badge err", "rolled back"));
    if (m.rf) h.appendChild(el("span", "badge err", "refusal"));
    if (m.ce) h.appendChild(link("#s" + s + "-m" + m.ce[0] + "-c" + m.ce[1], "↑ call", "tocall"));
    if (m.mo) h.appendChild(el("span", "model", m.mo));
    if (m.ts) h.appendChild(el("time", "", when(m.ts)));
    if (m.u) h.appendChild(el("span", "usage", "tokens " + num(m.u.in) + " in · " + num(m.u.out) + " out" + (m.u.cr ? " · " + num(m.u.cr) + " cached" : "")));
    if (m.sr && !m.ab && m.sr !== "stop" && m.sr !== "end_turn" && m.sr !== "toolUse" && m.sr !== "tool_use") h.appendChild(el("span", "badge", m.sr));
    h.appendChild(link("#" + art.id, "#" + i, "anchor"));
    art.appendChild(h);
    var body = art;
    if (m.cmp || (m.inj && textLength(m) > 400)) {
      var d = el("details", m.cmp ? "summary" : "injected");
      d.appendChild(el("summary", "", m.cmp ? "Summary the model continued from" : preview(m)));
      if (query || m.f) d.open = true;
      art.appendChild(d); body = d;
    }
    (m.p || []).forEach(function (p) {
      if (p[0] === "t") body.appendChild(textBlock("text", p[1], m));
      else if (p[0] === "r") {
        var d = el("details", "reasoning");
        d.appendChild(el("summary", "", "Reasoning"));
        d.appendChild(textBlock("text", p[1], m));
        if (query && p[1].toLowerCase().indexOf(query) >= 0) d.open = true;
        body.appendChild(d);
      } else if (p[0] === "R") body.appendChild(el("div", "note", "Reasoning redacted by the provider"));
      else if (p[0] === "i" && /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+\/=\r\n]*$/.test(p[1])) {
        var img = el("img", "inline"); img.alt = "image " + (p[2] || ""); img.src = p[1]; body.appendChild(img);
      } else body.appendChild(el("div", "note", "[" + (p[1] || "media") + "]"));
    });
    (m.c || []).forEach(function (c, k) {
      var box = el("div", "call"); box.id = "s" + s + "-m" + i + "-c" + k;
      var ch = el("div", "ch");
      ch.appendChild(el("span", "name", "⚙ " + c.n));
      if (c.r != null) ch.appendChild(link("#s" + s + "-m" + c.r, "↓ result", "toresult"));
      else ch.appendChild(el("span", "note", "no result"));
      if (c.s != null) ch.appendChild(link("#s" + c.s, "open sub-agent session →", "tochild"));
      box.appendChild(ch);
      if (c.a) box.appendChild(textBlock("args", c.a, m, "pre"));
      body.appendChild(box);
    });
    if (m.em) body.appendChild(textBlock("error", m.em, m));
    if (!(m.p || []).length && !(m.c || []).length && !m.em) body.appendChild(el("div", "note", "(empty)"));
    return art;
  }
  function textLength(m) { var n = 0; (m.p || []).forEach(function (p) { if (p[0] === "t") n += p[1].length; }); return n; }
  function preview(m) {
    var t = ""; (m.p || []).some(function (p) { if (p[0] === "t") { t = p[1]; return true; } return false; });
    t = t.replace(/\s+/g, " ").trim();
    return (t.length > 90 ? t.slice(0, 90) + "…" : t) + " (" + num(textLength(m)) + " characters)";
  }

  // --- session view: a window [lo, hi) of messages, grown as the reader scrolls ---
  var observer = new IntersectionObserver(function (entries) {
    entries.forEach(function (e) {
      if (!e.isIntersecting || !view) return;
      // A reader already at the edge of what is drawn gets more at once.
      var edge = e.boundingClientRect.top < innerHeight && e.boundingClientRect.bottom > 0 ? 4 : 1;
      if (e.target === view.bottom) grow(1, edge); else if (e.target === view.top) grow(-1, edge);
    });
  }, { rootMargin: "3000px 0px" });
  function rewatch(node) { observer.unobserve(node); observer.observe(node); }
  function grow(dir, times) {
    var h = head(view.s), frag = document.createDocumentFragment(), i, count = BATCH * (times || 1);
    if (dir > 0) {
      if (view.hi >= h.n) return;
      var end = Math.min(h.n, view.hi + count);
      for (i = view.hi; i < end; i++) { var node = renderMsg(view.s, i); if (!node) break; frag.appendChild(node); }
      view.list.appendChild(frag); view.hi = i;
      if (view.hi - view.lo > KEEP) trim(1);
      requestAnimationFrame(function () { if (view) rewatch(view.bottom); });
    } else {
      if (view.lo <= 0) return;
      var start = Math.max(0, view.lo - count), anchor = view.list.firstChild;
      var before = anchor ? anchor.getBoundingClientRect().top : 0;
      for (i = start; i < view.lo; i++) frag.appendChild(renderMsg(view.s, i));
      view.list.insertBefore(frag, anchor); view.lo = start;
      if (anchor) { var moved = anchor.getBoundingClientRect().top - before; if (moved) window.scrollBy(0, moved); }
      if (view.hi - view.lo > KEEP) trim(-1);
      requestAnimationFrame(function () { if (view) rewatch(view.top); });
    }
  }
  // The page keeps at most KEEP messages: those far behind the reader are dropped (and drawn
  // again when the reader comes back), so a session of any length scrolls like a short one.
  function trim(dir) {
    var list = view.list, extra = view.hi - view.lo - KEEP;
    if (dir < 0) {
      while (extra-- > 0 && list.lastChild) { list.lastChild.remove(); view.hi--; }
      return;
    }
    var anchor = list.children[extra], before = anchor ? anchor.getBoundingClientRect().top : 0;
    while (extra-- > 0 && list.firstChild) { list.firstChild.remove(); view.lo++; }
    if (anchor) { var moved = anchor.getBoundingClientRect().top - before; if (moved) window.scrollBy(0, moved); }
  }
  function sessionHeader(s, h) {
    var box = el("section", "shead");
    box.appendChild(el("h1", "", h.title));
    var facts = el("div", "facts");
    function fact(label, value) { if (value === "" || value == null) return; var f = el("span", "", label + " "); f.appendChild(el("b", "", String(value))); facts.appendChild(f); }
    fact("harness", h.harness); fact("model", h.model); fact("started", when(h.ts));
    fact("messages", num(h.n)); fact("tool calls", num(h.calls));
    if (h.usage && (h.usage.in || h.usage.out)) fact("tokens", num(h.usage.in) + " in · " + num(h.usage.out) + " out" + (h.usage.cr ? " · " + num(h.usage.cr) + " cached" : ""));
    fact("file", h.file); fact("cwd", h.cwd);
    box.appendChild(facts);
    var rel = el("div", "related");
    if (h.parent) rel.appendChild(link("#s" + h.parent[0] + "-m" + h.parent[1] + "-c" + h.parent[2], "← spawned by a call in " + head(h.parent[0]).title, "toparent"));
    if (h.children.length) {
      rel.appendChild(el("span", "note", "sub-agents: "));
      h.children.forEach(function (c) { rel.appendChild(link("#s" + c[0], c[1], "tosub")); });
    }
    if (rel.childNodes.length) box.appendChild(rel);
    return box;
  }
  function findingsPanel(list) {
    if (!list.length) return null;
    var box = el("section", "findings");
    box.appendChild(el("h2", "", "Redaction findings (" + list.length + ")"));
    var ol = el("ol");
    list.forEach(function (f) {
      var li = el("li");
      li.appendChild(link(f.m >= 0 ? "#s" + f.s + "-m" + f.m + "-f" + f.f : "#s" + f.s, f.rule, "tofinding"));
      li.appendChild(document.createTextNode(f.m >= 0 ? " · message " + f.m + " · " : " · session header · "));
      li.appendChild(el("span", "mono", f.text));
      ol.appendChild(li);
    });
    box.appendChild(ol);
    return box;
  }
  function showSession(s, target) {
    var h = head(s);
    if (!h) return showIndex();
    document.body.className = "session";
    var lo = target == null ? 0 : Math.max(0, target - 10);
    app.textContent = "";
    app.appendChild(sessionHeader(s, h));
    var panel = findingsPanel(findingsFor(s));
    if (panel) app.appendChild(panel);
    var list = el("div", "msgs"), top = el("div", "sentinel"), bottom = el("div", "sentinel");
    app.append(top, list, bottom);
    if (!h.n) list.appendChild(el("div", "empty", "This session has no messages."));
    view = { s: s, lo: lo, hi: lo, list: list, top: top, bottom: bottom };
    grow(1);
    if (target != null && target >= view.hi) { view.hi = view.lo = target; grow(1); }
    observer.disconnect(); observer.observe(top); observer.observe(bottom);
    crumb.textContent = h.title;
    document.title = h.title;
  }
  function findingsFor(s) {
    if (!findingsBySession) return [];
    return findingsBySession.filter(function (f) { return f.s === s; });
  }
  function ensure(s, i) {
    if (!view || view.s !== s || i < view.lo - BATCH || i >= view.hi + BATCH) { showSession(s, i); return; }
    while (i < view.lo) grow(-1);
    while (i >= view.hi) grow(1);
  }
  // Messages above a target take their real height only once laid out: keep the target in
  // place for a moment after a jump, unless the reader scrolls meanwhile.
  var settling = 0;
  function settle(node) {
    var run = ++settling, until = performance.now() + 700;
    (function again() {
      if (run !== settling || !node.isConnected) return;
      var r = node.getBoundingClientRect(), want = r.height > innerHeight ? 70 : (innerHeight - r.height) / 2;
      if (Math.abs(r.top - want) > 4) node.scrollIntoView({ block: r.height > innerHeight ? "start" : "center" });
      if (performance.now() < until) requestAnimationFrame(again);
    })();
  }
  ["wheel", "touchstart", "keydown", "mousedown"].forEach(function (type) {
    window.addEventListener(type, function () { settling++; }, { passive: true, capture: true });
  });
  function flash(node) {
    var art = node.closest(".msg") || node;
    art.classList.add("flash");
    setTimeout(function () { art.classList.remove("flash"); }, 1600);
  }

  // --- index of sessions ---
  var sortKey = "ts", sortDir = -1;
  function showIndex() {
    view = null;
    document.body.className = "index";
    var index = read("index") || [];
    app.textContent = "";
    crumb.textContent = index.length + " sessions";
    document.title = meta.title;
    var panel = findingsPanel(findingsBySession || []);
    if (panel) app.appendChild(panel);
    var wrap = el("div", "tablewrap"), table = el("table"), thead = el("thead"), tr = el("tr");
    var cols = [["title", "Title"], ["harness", "Harness"], ["ts", "Date"], ["n", "Messages"], ["calls", "Tool calls"], ["sub", "Sub-agents"], ["file", "File"]];
    cols.forEach(function (c) {
      var th = el("th", c[0] === "file" || c[0] === "sub" ? c[0] : "", c[1]);
      th.dataset.key = c[0];
      if (c[0] === sortKey) th.setAttribute("aria-sort", sortDir > 0 ? "ascending" : "descending");
      th.addEventListener("click", function () {
        if (sortKey === c[0]) sortDir = -sortDir; else { sortKey = c[0]; sortDir = c[0] === "title" || c[0] === "harness" || c[0] === "file" ? 1 : -1; }
        showIndex();
      });
      tr.appendChild(th);
    });
    thead.appendChild(tr); table.appendChild(thead);
    var body = el("tbody");
    index.slice().sort(function (a, b) {
      var x = a[sortKey], y = b[sortKey];
      if (x == null) return 1; if (y == null) return -1;
      return (typeof x === "string" ? x.localeCompare(y) : x - y) * sortDir;
    }).forEach(function (r) {
      var row = el("tr");
      row.dataset.text = (r.title + " " + r.harness + " " + r.file).toLowerCase();
      var t = el("td", "title"); t.appendChild(link("#s" + r.s, r.title, "open")); row.appendChild(t);
      row.appendChild(el("td", "harness", r.harness));
      row.appendChild(el("td", "date", when(r.ts).slice(0, 16)));
      row.appendChild(el("td", "num", num(r.n)));
      row.appendChild(el("td", "num", num(r.calls)));
      row.appendChild(el("td", "num sub", num(r.sub)));
      row.appendChild(el("td", "file mono", r.file));
      body.appendChild(row);
    });
    table.appendChild(body); wrap.appendChild(table); app.appendChild(wrap);
    filterIndex();
  }
  function filterIndex() {
    var shownRows = 0;
    app.querySelectorAll("tbody tr").forEach(function (row) {
      var ok = !query || row.dataset.text.indexOf(query) >= 0;
      row.hidden = !ok; shownRows += ok;
    });
    if (!view) counter.textContent = query ? shownRows + " shown" : "";
  }

  // --- search within the open session: chunk by chunk, never freezing the page ---
  function haystack(m) {
    var parts = [];
    (m.p || []).forEach(function (p) { if (p[0] === "t" || p[0] === "r") parts.push(p[1]); });
    (m.c || []).forEach(function (c) { parts.push(c.n, c.a); });
    if (m.em) parts.push(m.em);
    if (m.tn) parts.push(m.tn);
    return parts.join("\n").toLowerCase();
  }
  function search(q) {
    query = q.trim().toLowerCase();
    var run = ++searchRun;
    hits = []; hitAt = -1;
    if (!view) { filterIndex(); return; }
    rerender();
    if (!query) { counter.textContent = ""; return; }
    // A query JSON writes as it is can skip, unparsed, every block whose text lacks it.
    var s = view.s, n = head(s).n, k = 0, raw = !/["\\<>&\u0000-\u001f\u2028\u2029]/.test(query);
    counter.textContent = "…";
    (function step() {
      if (run !== searchRun) return;
      var until = performance.now() + 12;
      while (k * CHUNK < n && performance.now() < until) {
        if (!raw || rawText(s, k).indexOf(query) >= 0) {
          var c = chunk(s, k);
          for (var j = 0; j < c.length; j++) if (haystack(c[j]).indexOf(query) >= 0) hits.push(k * CHUNK + j);
        }
        k++;
      }
      var done = k * CHUNK >= n;
      if (hitAt < 0 && hits.length) next(1);
      counter.textContent = hits.length ? (hitAt + 1) + " / " + hits.length + (done ? "" : "+") : (done ? "no match" : "…");
      if (!done) setTimeout(step, 0);
    })();
  }
  function next(dir) {
    if (!hits.length || !view) return;
    hitAt = (hitAt + dir + hits.length) % hits.length;
    counter.textContent = (hitAt + 1) + " / " + hits.length;
    go("#s" + view.s + "-m" + hits[hitAt], true);
  }
  function rerender() {
    if (!view) return;
    var anchor = view.list.querySelector(".msg"), y = anchor ? anchor.getBoundingClientRect().top : 0;
    var frag = document.createDocumentFragment();
    for (var i = view.lo; i < view.hi; i++) frag.appendChild(renderMsg(view.s, i));
    view.list.replaceChildren(frag);
    var now = view.list.querySelector(".msg");
    if (now && anchor) window.scrollBy(0, now.getBoundingClientRect().top - y);
  }

  // --- routing: #index, #s3, #s3-m120, #s3-m120-c0, #s3-m120-f2 ---
  function go(hash, replace) {
    if (replace && location.hash !== hash) history.replaceState(null, "", hash);
    route(hash);
  }
  function route(hash) {
    var found = /^#s(\d+)(?:-m(\d+)(?:-([cf])(\d+))?)?$/.exec(hash || "");
    var single = meta.single;
    if (!found) {
      if (single) { if (!view || view.s !== 0) showSession(0, null); }
      else showIndex();
      shown = hash; return;
    }
    var s = +found[1];
    if (!head(s)) { showIndex(); return; }
    if (found[2] == null) { showSession(s, null); window.scrollTo(0, 0); shown = hash; return; }
    var i = Math.min(+found[2], head(s).n - 1);
    ensure(s, i);
    var node = document.getElementById(found[3] === "c" ? "s" + s + "-m" + i + "-c" + found[4] : found[3] === "f" ? "f" + found[4] : "s" + s + "-m" + i) || document.getElementById("s" + s + "-m" + i);
    if (node) {
      var box = node.closest("details");
      while (box) { box.open = true; box = box.parentElement.closest("details"); }
      settle(node);
      flash(node);
    }
    shown = hash;
  }

  function buildBar() {
    bar.textContent = "";
    var home = link(meta.single ? "#s0" : "#index", meta.single ? "sts view" : "All sessions", "home");
    crumb = el("span", "crumb");
    input = el("input"); input.type = "search"; input.placeholder = "Search"; input.setAttribute("aria-label", "Search");
    counter = el("span", "count");
    var up = el("button", "prev", "▲"), down = el("button", "next", "▼"), end = el("button", "end", "⇣ End");
    up.type = down.type = end.type = "button"; up.title = "Previous match"; down.title = "Next match"; end.title = "Last message";
    bar.append(home, crumb, input, counter, up, down, end);
    var timer = 0;
    function changed() { return query !== input.value.trim().toLowerCase(); }
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { if (changed()) search(input.value); }, 250);
    });
    input.addEventListener("keydown", function (e) {
      if (e.key !== "Enter") return;
      e.preventDefault(); clearTimeout(timer);
      if (changed()) search(input.value); else next(e.shiftKey ? -1 : 1);
    });
    up.addEventListener("click", function () { next(-1); });
    down.addEventListener("click", function () { next(1); });
    end.addEventListener("click", function () { if (view) { var n = head(view.s).n; if (n) go("#s" + view.s + "-m" + (n - 1)); } });
  }

  buildBar();
  // The first messages show while the rest of a big page is still arriving.
  if (meta.single && document.readyState === "loading" && !/^#s(?!0(-|$))/.test(location.hash)) {
    var early = /^#s0-m(\d+)/.exec(location.hash);
    if (!early || +early[1] < CHUNK) { showSession(0, null); performance.mark("sts-first-messages"); }
  }
  function start() {
    ready = true;
    findingsBySession = read("findings") || [];
    if (view && !location.hash) {
      if (findingsBySession.length) showSession(view.s, null); else rewatch(view.bottom);
    } else route(location.hash);
    if (!performance.getEntriesByName("sts-first-messages").length) performance.mark("sts-first-messages");
    window.__stsReady = true;
  }
  // In-page links: pushed to the history (so Back returns), routed even when clicked twice.
  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest("a[href^='#']");
    if (!a || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return;
    e.preventDefault();
    var hash = a.getAttribute("href");
    if (location.hash !== hash) history.pushState(null, "", hash);
    route(hash);
  });
  function onNavigate() { if (ready && location.hash !== shown) route(location.hash); }
  window.addEventListener("popstate", onNavigate);
  window.addEventListener("hashchange", onNavigate);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
