// The synchronizer's console: it reads the API (GET /v1/graph, /v1/status,
// /v1/history, /v1/resources/{addr}/detail), follows GET /v1/events, and
// asks for reconciles, health checks and adoptions with the API token,
// which it asks for once and keeps in sessionStorage (this tab only).
// It writes text with textContent only; the one markup it parses is the
// graph's SVG, which the server escaped (internal/graphview).
"use strict";

(function () {
  const TOKEN_KEY = "xosplan-sync-token";
  const $ = (id) => document.getElementById(id);
  const state = { page: 0, key: "", pages: [], resource: "", refreshTimer: 0, polling: 0 };

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== undefined && v !== null) e.setAttribute(k, v);
    }
    for (const c of children) {
      if (c === null || c === undefined) continue;
      e.append(c instanceof Node ? c : String(c));
    }
    return e;
  }

  function say(msg, error) {
    const live = $("live");
    live.textContent = msg;
    live.classList.toggle("error", !!error);
  }

  function when(t) {
    if (!t) return "—";
    const d = new Date(t);
    return isNaN(d) ? String(t) : d.toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z");
  }

  function token() {
    try { return sessionStorage.getItem(TOKEN_KEY) || ""; } catch (e) { return ""; }
  }
  function setToken(t) {
    try {
      if (t) sessionStorage.setItem(TOKEN_KEY, t); else sessionStorage.removeItem(TOKEN_KEY);
    } catch (e) { /* storage refused: the token lives for this request only */ }
    $("forget-token").hidden = !t;
    if (t && state.polling) {
      // The stream was refused for want of the token: follow it now.
      clearInterval(state.polling);
      state.polling = 0;
      follow();
    }
  }

  // askToken shows the token dialog and resolves with the token entered,
  // or "" when it is cancelled; requests refused together share one
  // dialog.
  let asking = null;
  function askToken() {
    if (!asking) asking = promptToken().finally(() => { asking = null; });
    return asking;
  }

  function promptToken() {
    return new Promise((resolve) => {
      const dlg = $("token-dialog"), input = $("token-input");
      input.value = "";
      const done = (t) => {
        dlg.removeEventListener("close", onClose);
        $("token-cancel").removeEventListener("click", onCancel);
        resolve(t);
      };
      const onClose = () => done(dlg.returnValue === "ok" ? input.value.trim() : "");
      const onCancel = () => { dlg.returnValue = "cancel"; dlg.close("cancel"); };
      dlg.addEventListener("close", onClose);
      $("token-cancel").addEventListener("click", onCancel);
      dlg.returnValue = "";
      dlg.showModal();
      input.focus();
    });
  }

  // api calls the API with the token when there is one; on 401 it asks
  // for the token once and tries again. It resolves with {status, body}.
  async function api(method, path, body) {
    for (let attempt = 0; attempt < 2; attempt++) {
      const headers = { "Accept": "application/json" };
      const t = token();
      if (t) headers["Authorization"] = "Bearer " + t;
      const init = { method, headers, credentials: "omit", cache: "no-store" };
      if (body !== undefined) {
        headers["Content-Type"] = "application/json";
        init.body = JSON.stringify(body);
      }
      const resp = await fetch(path, init);
      let data = null;
      try { data = await resp.json(); } catch (e) { data = null; }
      if (resp.status === 401 && attempt === 0) {
        const entered = await askToken();
        if (!entered) return { status: 401, body: data, refused: true };
        setToken(entered);
        continue;
      }
      return { status: resp.status, body: data };
    }
    return { status: 401, body: null, refused: true };
  }

  function errorText(r) {
    if (r.refused) return "refused: the API token is needed (" + ((r.body && r.body.error) || "401") + ")";
    return (r.body && r.body.error) || ("HTTP " + r.status);
  }

  // ---- the overview ----

  async function loadStatus() {
    const r = await api("GET", "v1/status?resources=none");
    if (r.status !== 200 || !r.body) {
      $("summary").textContent = "The status cannot be read: " + errorText(r);
      return;
    }
    const s = r.body;
    const parts = [];
    parts.push(s.ready ? "Ready" : "Not ready yet");
    if (s.reconciling) parts.push("reconciling now");
    parts.push(s.reconciles + " reconcile" + (s.reconciles === 1 ? "" : "s"));
    if (s.last_outcome) parts.push("last: " + s.last_outcome.replace(/_/g, " ") + " at " + when(s.last_reconcile));
    if (s.retry_queue) parts.push(s.retry_queue + " waiting for a retry");
    if (s.cluster) parts.push("cluster: " + s.cluster.role + (s.cluster.leader ? " (leader " + s.cluster.leader + ")" : ""));
    $("summary").textContent = parts.join(" · ");
    const errs = (s.diagnostics || []).filter((d) => d.severity === "error");
    $("diagnostics").hidden = errs.length === 0;
    const list = $("diag-list");
    list.replaceChildren(...(s.diagnostics || []).map((d) =>
      el("li", {}, el("strong", {}, d.severity + " " + d.code + ": "), d.summary, d.at ? el("span", {}, " (" + d.at + ")") : null)));
  }

  async function loadGraph(find) {
    let path = "v1/graph?page=" + state.page;
    if (find) path += "&find=" + encodeURIComponent(find);
    const r = await api("GET", path);
    if (r.status !== 200 || !r.body) {
      say("The graph cannot be read: " + errorText(r), true);
      return null;
    }
    const g = r.body;
    state.page = g.page;
    state.pages = g.pages || [];
    const box = $("graph");
    if (g.key !== state.key || !box.firstElementChild) {
      const doc = new DOMParser().parseFromString(g.svg || "<svg xmlns='http://www.w3.org/2000/svg'/>", "image/svg+xml");
      box.replaceChildren(document.importNode(doc.documentElement, true));
      state.key = g.key;
    }
    const byKey = new Map();
    box.querySelectorAll("a.node").forEach((a) => byKey.set(a.getAttribute("data-key"), a));
    for (const n of g.nodes) {
      const a = byKey.get(n.address);
      if (!a) continue;
      const cls = "st-" + n.status.replace(/ /g, "-");
      if (!a.classList.contains(cls)) {
        [...a.classList].filter((c) => c.startsWith("st-")).forEach((c) => a.classList.remove(c));
        a.classList.add(cls);
        a.classList.add("changed");
        const st = a.querySelector(".state");
        if (st) st.textContent = n.status;
        const name = n.address + (n.type ? ", " + n.type : "") + ": " + n.status;
        a.setAttribute("aria-label", name);
        const title = a.querySelector("title");
        if (title) title.textContent = name;
      }
    }
    renderTable(g.nodes);
    renderPager(g);
    const counts = Object.entries(g.counts || {}).map(([k, v]) => v + " " + k).join(", ");
    $("graph-title").textContent = "Resources (" + g.total + (counts ? ": " + counts : "") + ")";
    $("outside").textContent = g.outside_edges ? g.outside_edges + " dependencies link this page's resources to resources on other pages (not drawn)." : "";
    return g;
  }

  function renderTable(nodes) {
    const rows = nodes.map((n) => el("tr", { "data-key": n.address },
      el("td", {}, el("a", { href: "#/resource/" + encodeURIComponent(n.address) }, n.address)),
      el("td", {}, n.type || ""),
      el("td", { class: "status" }, el("span", { class: "swatch st-" + n.status.replace(/ /g, "-") }), n.status),
      el("td", {}, n.waiting || ""),
      el("td", {}, when(n.next_check)),
      el("td", {}, when(n.next_retry))));
    document.querySelector("#resources tbody").replaceChildren(...rows);
  }

  function renderPager(g) {
    const pager = $("pager");
    pager.hidden = state.pages.length <= 1;
    const sel = $("page-select");
    if (sel.options.length !== state.pages.length) {
      sel.replaceChildren(...state.pages.map((p, i) =>
        el("option", { value: String(i) }, (i + 1) + ": " + p.first + (p.count > 1 ? " … " + p.last : "") + " (" + p.count + ")")));
    }
    sel.value = String(g.page);
    $("prev-page").disabled = g.page === 0;
    $("next-page").disabled = g.page >= state.pages.length - 1;
  }

  async function loadHistory() {
    const r = await api("GET", "v1/history");
    if (r.status !== 200 || !r.body) return;
    const h = r.body;
    $("reconciles").replaceChildren(...(h.reconciles.length ? h.reconciles.map((rec) => {
      const counts = [rec.added + " added", rec.changed + " changed", rec.destroyed + " destroyed", rec.failed + " failed", rec.skipped + " waiting"].join(", ");
      const li = el("li", {}, when(rec.started) + " (" + rec.reason + ", " + rec.elapsed_seconds.toFixed(1) + " s): ",
        el("span", { class: "outcome-" + rec.outcome }, rec.outcome.replace(/_/g, " ")), " — " + counts);
      if (rec.error) li.append(el("div", {}, rec.error));
      if (rec.steps.length) {
        li.append(el("details", {}, el("summary", {}, rec.steps.length + (rec.more_steps ? "+" + rec.more_steps : "") + " changes"),
          el("ul", {}, ...rec.steps.map((s) => el("li", {}, el("a", { href: "#/resource/" + encodeURIComponent(s.address) }, s.address),
            " " + s.action + ": " + s.result + (s.error ? " — " + s.error : "") + (s.cause ? " (waits for " + s.cause + ")" : ""))))));
      }
      return li;
    }) : [el("li", {}, "None yet.")]));
    $("drift").replaceChildren(...(h.drift.length ? h.drift.map((d) => el("li", {}, when(d.time) + " ",
      el("a", { href: "#/resource/" + encodeURIComponent(d.address) }, d.address), ": " + d.message)) : [el("li", {}, "None found.")]));
  }

  // ---- a resource's page ----

  function facts(pairs) {
    const dl = el("dl", { class: "facts" });
    for (const [k, v] of pairs) {
      if (v === undefined || v === null || v === "") continue;
      dl.append(el("dt", {}, k), el("dd", {}, v));
    }
    return dl;
  }

  function json(title, v) {
    if (!v || (typeof v === "object" && Object.keys(v).length === 0)) return null;
    return el("section", {}, el("h3", {}, title), el("pre", { tabindex: "0", "aria-label": title }, JSON.stringify(v, null, 2)));
  }

  function links(list) {
    if (!list || !list.length) return "none";
    const span = el("span", {});
    list.forEach((a, i) => {
      if (i) span.append(", ");
      span.append(el("a", { href: "#/resource/" + encodeURIComponent(a) }, a));
    });
    return span;
  }

  async function loadResource(addr, focus) {
    const r = await api("GET", "v1/resources/" + encodeURIComponent(addr) + "/detail");
    const body = $("res-body");
    $("res-title").textContent = addr;
    if (r.status !== 200 || !r.body) {
      body.replaceChildren(el("p", {}, "This resource cannot be shown: " + errorText(r)));
      if (focus) $("res-title").focus();
      return;
    }
    const d = r.body;
    const status = el("span", {}, el("span", { class: "swatch st-" + d.console_status.replace(/ /g, "-") }), d.console_status);
    const parts = [];
    const check = el("button", { type: "button", id: "check-now" }, "Check now");
    check.addEventListener("click", () => checkNow(addr));
    parts.push(el("div", { class: "actions" }, check));
    parts.push(facts([
      ["Status", status], ["Type", d.type], ["Driver", d.driver], ["Management", d.management], ["Instance", d.instance_id],
      ["Recorded status", d.status], ["Status message", d.status_message], ["Backend", (d.backend_code !== undefined ? d.backend_code + " " : "") + (d.backend_status || "")],
      ["Waits on", d.waiting_on ? links([d.waiting_on]) : ""], ["Waits", d.waiting],
      ["Failures", d.failures ? String(d.failures) : ""], ["Last error", d.last_error],
      ["Last enacted", d.last_enacted ? when(d.last_enacted) : ""], ["Last check", d.last_check ? when(d.last_check) : ""],
      ["Next check", d.next_check ? when(d.next_check) : ""], ["Next retry", d.next_retry ? when(d.next_retry) : ""],
      ["Next discovery", d.next_discovery ? when(d.next_discovery) : ""], ["Drift", d.drift],
      ["Running on", d.running_on], ["Depends on", links(d.dependencies)], ["Needed by", links(d.dependents)],
    ]));
    if (d.instances && d.instances.length) parts.push(instances(addr, d));
    parts.push(json(d.configured_spec ? "Spec (configured; not created yet)" : "Spec (as enacted)", d.spec));
    parts.push(json("Attributes", d.attributes));
    parts.push(json("Signals", d.signals));
    parts.push(el("h3", {}, "Activity"));
    const acts = (d.activity || []).slice().reverse();
    parts.push(acts.length ? el("table", {}, el("caption", {}, "Recent activity, newest first"),
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Time"), el("th", { scope: "col" }, "Event"), el("th", { scope: "col" }, "Message"))),
      el("tbody", {}, ...acts.map((a) => el("tr", {}, el("td", {}, when(a.time)), el("td", {}, a.type), el("td", {}, a.message || ""))))) :
      el("p", {}, "No activity yet."));
    body.replaceChildren(...parts.filter((p) => p));
    if (focus) $("res-title").focus();
  }

  function instances(factory, d) {
    const rows = d.instances.map((inst, i) => {
      const inputId = "adopt-as-" + i;
      const input = el("input", { id: inputId, type: "text", value: (d.adopt_as && d.adopt_as[0]) || "", list: "adopt-candidates", autocomplete: "off" });
      const btn = el("button", { type: "button", class: "adopt" }, "Adopt");
      btn.setAttribute("aria-label", "Adopt " + inst.id);
      btn.addEventListener("click", () => adopt(input.value.trim(), inst.id));
      return el("tr", {}, el("td", {}, inst.id), el("td", {}, inst.name || ""), el("td", {}, inst.status || ""),
        el("td", {}, el("label", { for: inputId, class: "visually-plain" }, "as "), input, " ", btn));
    });
    const list = el("datalist", { id: "adopt-candidates" }, ...(d.adopt_as || []).map((a) => el("option", { value: a })));
    return el("section", {}, el("h3", {}, "Discovered instances xosplan does not manage"), list,
      el("table", {}, el("caption", {}, "Instances of " + factory),
        el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Id"), el("th", { scope: "col" }, "Name"), el("th", { scope: "col" }, "Status"), el("th", { scope: "col" }, "Adopt as resource"))),
        el("tbody", {}, ...rows)));
  }

  // ---- actions ----

  async function syncNow() {
    const r = await api("POST", "v1/sync");
    if (r.status === 202) say("Reconcile requested."); else say("Sync now: " + errorText(r), true);
  }

  async function checkNow(addr) {
    const r = await api("POST", "v1/resources/" + encodeURIComponent(addr) + "/check");
    if (r.status === 202) say("Health check of " + addr + " requested."); else say("Check now: " + errorText(r), true);
  }

  async function adopt(addr, id) {
    if (!addr) { say("Adopt: name the resource to adopt " + id + " as.", true); return; }
    say("Adopting " + id + " as " + addr + "…");
    const r = await api("POST", "v1/resources/" + encodeURIComponent(addr) + "/adopt", { id });
    if (r.status === 200) {
      say("Adopted " + id + " as " + addr + ".");
      location.hash = "#/resource/" + encodeURIComponent(addr);
    } else {
      say("Adopt: " + errorText(r), true);
    }
  }

  // ---- routing and live updates ----

  function route(focus) {
    const m = location.hash.match(/^#\/resource\/(.+)$/);
    if (m) {
      state.resource = decodeURIComponent(m[1]);
      $("overview").hidden = true;
      $("resource").hidden = false;
      loadResource(state.resource, focus);
    } else {
      state.resource = "";
      $("resource").hidden = true;
      $("overview").hidden = false;
      loadGraph();
      loadHistory();
    }
  }

  function refresh() {
    clearTimeout(state.refreshTimer);
    state.refreshTimer = setTimeout(() => {
      loadStatus();
      if (state.resource) loadResource(state.resource, false);
      else { loadGraph(); loadHistory(); }
    }, 250);
  }

  // follow reads GET /v1/events (server-sent events) with fetch, which
  // can send the token, and refreshes on every event; where the stream
  // is not served it polls instead.
  async function follow() {
    for (;;) {
      try {
        const headers = { "Accept": "text/event-stream" };
        if (token()) headers["Authorization"] = "Bearer " + token();
        const resp = await fetch("v1/events", { headers, credentials: "omit", cache: "no-store" });
        if (resp.status !== 200 || !resp.body) {
          poll();
          return;
        }
        document.body.setAttribute("data-live", "events");
        const reader = resp.body.getReader();
        const dec = new TextDecoder();
        let buf = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += dec.decode(value, { stream: true });
          let i;
          while ((i = buf.indexOf("\n\n")) >= 0) {
            const msg = buf.slice(0, i);
            buf = buf.slice(i + 2);
            if (/^event: /m.test(msg)) refresh();
          }
        }
      } catch (e) { /* reconnect below */ }
      document.body.setAttribute("data-live", "reconnecting");
      await new Promise((r) => setTimeout(r, 2000));
    }
  }

  function poll() {
    document.body.setAttribute("data-live", "polling");
    if (!state.polling) state.polling = setInterval(refresh, 5000);
  }

  function start() {
    setToken(token());
    $("sync-now").addEventListener("click", syncNow);
    $("forget-token").addEventListener("click", () => { setToken(""); say("The token is forgotten."); });
    $("find-form").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const q = $("find").value.trim();
      if (!q) return;
      const g = await loadGraph(q);
      if (!g) return;
      const hit = [...$("graph").querySelectorAll("a.node")].find((a) => a.getAttribute("data-key") === q);
      $("find-result").textContent = hit ? "Found on page " + (g.page + 1) + "." : "No resource " + q + ".";
      if (hit) hit.focus();
    });
    $("prev-page").addEventListener("click", () => { state.page--; loadGraph(); });
    $("next-page").addEventListener("click", () => { state.page++; loadGraph(); });
    $("page-select").addEventListener("change", (ev) => { state.page = Number(ev.target.value); loadGraph(); });
    window.addEventListener("hashchange", () => route(true));
    loadStatus();
    route(false);
    follow();
  }

  start();
})();
