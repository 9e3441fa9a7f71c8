// HomeClaw's panel: chat, activity and stats. Plain DOM, no library, no network beyond the
// panel's own endpoints (relative URLs, so the ingress prefix in <base> carries them). Every
// string from Home Assistant, the model or the person is set as text, never as markup.
"use strict";

const STRINGS = {
  en: {
    tab_chat: "Chat", tab_activity: "Activity", tab_stats: "Stats", send: "Send",
    placeholder: "Turn off the kitchen lights…", verified: "Verified", unverified: "Not confirmed",
    approve: "Approve", deny: "Deny", trace: "Trace", thinking: "Working…",
    all_sources: "All sources", all_statuses: "All results", search: "Search",
    src_notification: "Notification", st_done: "Done", st_approval_required: "Waiting for approval",
    st_clarification_required: "Question", st_failed: "Failed", no_runs: "Nothing yet.",
    latency: "Latency per command (s)", requests: "LLM requests per command",
    verified_share: "Verified actions (%)", guards: "Guard events per command",
    model: "Model", commands: "Commands", median: "Median", p95: "p95",
    mean_requests: "LLM requests", error: "Error", fast_path: "fast path",
    token_label: "API token", sign_in: "Open", wrong_token: "That token is not the one HomeClaw has.",
    token_hint: "The token is api.token in HomeClaw's configuration. It is kept in this page only until you close or reload it.",
  },
  pl: {
    tab_chat: "Czat", tab_activity: "Aktywność", tab_stats: "Statystyki", send: "Wyślij",
    placeholder: "Wyłącz światła w kuchni…", verified: "Potwierdzone", unverified: "Niepotwierdzone",
    approve: "Zatwierdź", deny: "Odrzuć", trace: "Przebieg", thinking: "Pracuję…",
    all_sources: "Wszystkie źródła", all_statuses: "Wszystkie wyniki", search: "Szukaj",
    src_notification: "Powiadomienie", st_done: "Wykonane", st_approval_required: "Czeka na zatwierdzenie",
    st_clarification_required: "Pytanie", st_failed: "Niepowodzenie", no_runs: "Jeszcze nic.",
    latency: "Czas na polecenie (s)", requests: "Zapytania do LLM na polecenie",
    verified_share: "Potwierdzone akcje (%)", guards: "Zdarzenia zabezpieczeń na polecenie",
    model: "Model", commands: "Polecenia", median: "Mediana", p95: "p95",
    mean_requests: "Zapytania LLM", error: "Błąd", fast_path: "szybka ścieżka",
    token_label: "Token API", sign_in: "Otwórz", wrong_token: "To nie jest token, który ma HomeClaw.",
    token_hint: "Token to api.token w konfiguracji HomeClaw. Strona trzyma go tylko do jej zamknięcia lub odświeżenia.",
  },
  de: {
    tab_chat: "Chat", tab_activity: "Aktivität", tab_stats: "Statistik", send: "Senden",
    placeholder: "Schalte das Küchenlicht aus…", verified: "Bestätigt", unverified: "Nicht bestätigt",
    approve: "Freigeben", deny: "Ablehnen", trace: "Ablauf", thinking: "Arbeite…",
    all_sources: "Alle Quellen", all_statuses: "Alle Ergebnisse", search: "Suchen",
    src_notification: "Benachrichtigung", st_done: "Erledigt", st_approval_required: "Wartet auf Freigabe",
    st_clarification_required: "Rückfrage", st_failed: "Fehlgeschlagen", no_runs: "Noch nichts.",
    latency: "Dauer pro Befehl (s)", requests: "LLM-Anfragen pro Befehl",
    verified_share: "Bestätigte Aktionen (%)", guards: "Schutzereignisse pro Befehl",
    model: "Modell", commands: "Befehle", median: "Median", p95: "p95",
    mean_requests: "LLM-Anfragen", error: "Fehler", fast_path: "Schnellpfad",
    token_label: "API-Token", sign_in: "Öffnen", wrong_token: "Das ist nicht der Token, den HomeClaw hat.",
    token_hint: "Der Token ist api.token in der Konfiguration von HomeClaw. Die Seite behält ihn nur, bis sie geschlossen oder neu geladen wird.",
  },
  fr: {
    tab_chat: "Discussion", tab_activity: "Activité", tab_stats: "Statistiques", send: "Envoyer",
    placeholder: "Éteins les lumières de la cuisine…", verified: "Vérifié", unverified: "Non confirmé",
    approve: "Approuver", deny: "Refuser", trace: "Déroulé", thinking: "En cours…",
    all_sources: "Toutes les sources", all_statuses: "Tous les résultats", search: "Rechercher",
    src_notification: "Notification", st_done: "Fait", st_approval_required: "En attente d'approbation",
    st_clarification_required: "Question", st_failed: "Échec", no_runs: "Rien pour l'instant.",
    latency: "Durée par commande (s)", requests: "Requêtes LLM par commande",
    verified_share: "Actions vérifiées (%)", guards: "Interventions des garde-fous par commande",
    model: "Modèle", commands: "Commandes", median: "Médiane", p95: "p95",
    mean_requests: "Requêtes LLM", error: "Erreur", fast_path: "voie rapide",
    token_label: "Jeton d'API", sign_in: "Ouvrir", wrong_token: "Ce n'est pas le jeton que HomeClaw connaît.",
    token_hint: "Le jeton est api.token dans la configuration de HomeClaw. La page ne le garde que jusqu'à ce que vous la fermiez ou la rechargiez.",
  },
};

/** Home Assistant's own language setting (its frontend keeps it in localStorage, which the
 * ingress iframe shares), else the browser's; `?lang=` wins. */
function language() {
  const asked = new URLSearchParams(location.search).get("lang");
  let ha = null;
  try { ha = JSON.parse(localStorage.getItem("selectedLanguage") || "null"); } catch (_) { ha = null; }
  const tag = (asked || ha || navigator.language || "en").slice(0, 2).toLowerCase();
  return STRINGS[tag] ? tag : "en";
}
const LANG = language();
const T = (key) => STRINGS[LANG][key] || STRINGS.en[key] || key;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const child of children) {
    if (child == null) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// Outside the add-on the panel asks for the API's bearer token. It lives in this variable
// only: no cookie (a forged request would carry it), no storage, no URL.
const NEEDS_TOKEN = (document.querySelector('meta[name="homeclaw-auth"]') || {}).content === "token";
let TOKEN = null;

async function call(method, path, body) {
  const headers = body ? { "content-type": "application/json" } : {};
  if (TOKEN) headers.authorization = "Bearer " + TOKEN;
  const response = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  let data = null;
  try { data = await response.json(); } catch (_) { data = null; }
  if (response.status === 401 && NEEDS_TOKEN) locked();
  return { ok: response.ok, status: response.status, data };
}

// ---- chat ----------------------------------------------------------------------------------

const SESSION_KEY = "homeclaw-panel-session";
function session() {
  let id = sessionStorage.getItem(SESSION_KEY);
  if (!id) {
    id = "panel-" + Math.random().toString(16).slice(2, 14);
    sessionStorage.setItem(SESSION_KEY, id);
  }
  return id;
}

function actionList(actions) {
  const list = el("ul", { class: "actions" });
  for (const a of actions || []) {
    const observed = Object.entries(a.observed_state || {}).map(([id, s]) => `${id}: ${s}`).join(", ");
    list.append(el("li", {},
      el("span", { class: "badge " + (a.verified ? "verified" : "unverified") },
        T(a.verified ? "verified" : "unverified")),
      el("span", {}, `${a.domain}.${a.service} → ${(a.entity_ids || []).join(", ")}`),
      observed ? el("span", { class: "observed" }, observed) : null));
  }
  return list;
}

function traceOf(lines) {
  if (!lines || !lines.length) return null;
  const list = el("ol");
  for (const line of lines) list.append(el("li", {}, line));
  return el("details", { class: "trace" }, el("summary", {}, `${T("trace")} (${lines.length})`), list);
}

function statusLine(data) {
  const bits = [T("st_" + data.status)];
  const rounds = data.stats ? data.stats.rounds : 0;
  bits.push(rounds ? `${rounds} LLM` : T("fast_path"));
  return el("div", { class: "status" }, bits.join(" · "));
}

/** Approve and Deny, with the server's answers under them (a refused second click too). */
function approvalButtons(id) {
  const box = el("div", { class: "buttons" });
  const answers = el("div", { class: "answers" });
  const approve = el("button", { type: "button", class: "approve", "data-approval": id }, T("approve"));
  const deny = el("button", { type: "button", class: "deny", "data-approval": id }, T("deny"));
  const answer = async (path) => {
    const result = await call("POST", path, { approval_id: id });
    const text = result.ok ? result.data.reply
      : (result.data && result.data.error ? result.data.error.message : `${T("error")} ${result.status}`);
    const line = el("div", { class: "answer" + (result.ok ? " accepted" : " refused") }, text);
    answers.append(line);
    if (result.ok && result.data.actions) answers.append(actionList(result.data.actions));
  };
  approve.addEventListener("click", () => answer("api/approve"));
  deny.addEventListener("click", () => answer("api/deny"));
  box.append(approve, deny);
  return [box, answers];
}

async function send(text) {
  const log = document.getElementById("log");
  log.append(el("div", { class: "you" }, text));
  const card = el("div", { class: "card pending" }, el("p", { class: "reply" }, T("thinking")));
  log.append(card);
  const result = await call("POST", "api/command", { text, session_id: session() });
  card.replaceChildren();
  card.classList.remove("pending");
  if (!result.data || (!result.ok && !result.data.reply)) {
    const message = result.data && result.data.error ? result.data.error.message : `${T("error")} ${result.status}`;
    card.classList.add("failed");
    card.append(el("p", { class: "reply" }, message));
    return;
  }
  const data = result.data;
  card.dataset.status = data.status;
  card.append(el("p", { class: "reply" }, data.reply), statusLine(data), actionList(data.actions));
  if (data.status === "approval_required" && data.approval_id) {
    card.append(...approvalButtons(data.approval_id));
  }
  const trace = traceOf(data.trace);
  if (trace) card.append(trace);
  card.scrollIntoView({ block: "end" });
}

// ---- activity ------------------------------------------------------------------------------

async function loadActivity() {
  const params = new URLSearchParams();
  const source = document.getElementById("f-source").value;
  const status = document.getElementById("f-status").value;
  const q = document.getElementById("f-q").value.trim();
  if (source) params.set("source", source);
  if (status) params.set("status", status);
  if (q) params.set("q", q);
  const result = await call("GET", "api/activity?" + params.toString());
  const runs = document.getElementById("runs");
  runs.replaceChildren();
  const records = (result.data && result.data.runs) || [];
  if (!records.length) runs.append(el("li", { class: "empty" }, T("no_runs")));
  for (const r of records) {
    const when = new Date(r.at_ms).toLocaleString(LANG);
    const head = el("div", { class: "run-head" },
      el("span", { class: "when" }, when),
      el("span", { class: "chip" }, r.source),
      el("span", { class: "text" }, r.text),
      el("span", { class: "chip " + r.status }, STRINGS[LANG]["st_" + r.status] ? T("st_" + r.status) : r.status),
      el("span", { class: "status" }, `${(r.latency_ms / 1000).toFixed(1)} s · ${r.llm_requests} LLM`));
    const body = el("div", { class: "run-body" }, el("p", { class: "reply" }, r.reply), actionList(r.actions));
    const trace = traceOf(r.trace);
    if (trace) { trace.open = true; body.append(trace); }
    body.hidden = true;
    const item = el("li", { class: "run" }, head, body);
    item.addEventListener("click", () => { body.hidden = !body.hidden; });
    runs.append(item);
  }
}

// ---- stats ---------------------------------------------------------------------------------

/** A small line chart as SVG: values over their order, with the extremes labelled. */
function chart(title, values, format) {
  const W = 320, H = 140, L = 34, B = 18;
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const add = (tag, attrs, text) => {
    const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text != null) node.textContent = text;
    svg.append(node);
    return node;
  };
  add("line", { class: "axis", x1: L, y1: H - B, x2: W - 4, y2: H - B });
  add("line", { class: "axis", x1: L, y1: 6, x2: L, y2: H - B });
  const max = Math.max(1e-9, ...values);
  const x = (i) => L + (values.length < 2 ? (W - L) / 2 : (i * (W - L - 8)) / (values.length - 1));
  const y = (v) => H - B - (v / max) * (H - B - 10);
  add("text", { x: 2, y: 12 }, format(max));
  add("text", { x: 2, y: H - B }, format(0));
  add("text", { x: L, y: H - 4 }, values.length ? `${values.length}` : "");
  if (values.length) {
    add("polyline", { class: "line", points: values.map((v, i) => `${x(i)},${y(v)}`).join(" ") });
    values.forEach((v, i) => add("circle", { class: "dot", cx: x(i), cy: y(v), r: 2.2 }));
  }
  return el("div", { class: "chart" }, el("h3", {}, title), svg);
}

function quantile(sorted, q) {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function loadStats() {
  const result = await call("GET", "api/stats");
  const points = (result.data && result.data.points) || [];
  const charts = document.getElementById("charts");
  charts.replaceChildren();
  const seconds = (v) => (v < 10 ? v.toFixed(2) : v.toFixed(1));
  charts.append(chart(T("latency"), points.map((p) => p.latency_ms / 1000), seconds));
  charts.append(chart(T("requests"), points.map((p) => p.llm_requests), (v) => v.toFixed(0)));
  // Verified share over a sliding window of ten commands that acted.
  const acted = points.filter((p) => p.actions > 0);
  const share = acted.map((_, i) => {
    const window = acted.slice(Math.max(0, i - 9), i + 1);
    const all = window.reduce((n, p) => n + p.actions, 0);
    return (100 * window.reduce((n, p) => n + p.verified, 0)) / Math.max(1, all);
  });
  charts.append(chart(T("verified_share"), share, (v) => v.toFixed(0)));
  charts.append(chart(T("guards"), points.map((p) => p.guard_events), (v) => v.toFixed(0)));
  const table = document.getElementById("models");
  table.replaceChildren(el("tr", {},
    el("th", {}, T("model")), el("th", {}, T("commands")), el("th", {}, T("median")),
    el("th", {}, T("p95")), el("th", {}, T("mean_requests"))));
  const byModel = new Map();
  for (const p of points) {
    const key = p.model || T("fast_path");
    if (!byModel.has(key)) byModel.set(key, []);
    byModel.get(key).push(p);
  }
  for (const [model, list] of byModel) {
    const lat = list.map((p) => p.latency_ms / 1000).sort((a, b) => a - b);
    const req = list.reduce((n, p) => n + p.llm_requests, 0) / list.length;
    table.append(el("tr", {}, el("td", {}, model), el("td", {}, list.length),
      el("td", {}, `${seconds(quantile(lat, 0.5))} s`), el("td", {}, `${seconds(quantile(lat, 0.95))} s`),
      el("td", {}, req.toFixed(2))));
  }
}

// ---- tabs ----------------------------------------------------------------------------------

/** The login form instead of the tabs, until a token the server accepts is typed. */
function locked(message) {
  TOKEN = null;
  for (const section of document.querySelectorAll(".tab")) section.hidden = true;
  document.getElementById("tabs").hidden = true;
  document.getElementById("login").hidden = false;
  const error = document.getElementById("login-error");
  error.hidden = !message;
  error.textContent = message || "";
  document.getElementById("token").focus();
}

async function signIn(token) {
  TOKEN = token;
  // A read that needs the token tells whether it is the right one.
  const result = await call("GET", "api/stats");
  if (!result.ok) {
    const message = result.status === 401 ? T("wrong_token")
      : (result.data && result.data.error ? result.data.error.message : `${T("error")} ${result.status}`);
    locked(message);
    return;
  }
  document.getElementById("login").hidden = true;
  document.getElementById("tabs").hidden = false;
  show("chat");
}

function show(tab) {
  for (const section of document.querySelectorAll(".tab")) section.hidden = section.id !== tab;
  for (const link of document.querySelectorAll("nav a")) link.classList.toggle("active", link.dataset.tab === tab);
  if (tab === "activity") loadActivity();
  if (tab === "stats") loadStats();
}

function translate() {
  document.documentElement.lang = LANG;
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = T(node.dataset.i18n);
  for (const node of document.querySelectorAll("[data-i18n-placeholder]")) node.placeholder = T(node.dataset.i18nPlaceholder);
}

translate();
document.getElementById("ask").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = document.getElementById("text");
  const text = input.value.trim();
  if (!text) return;
  input.value = "";
  send(text);
});
for (const id of ["f-source", "f-status"]) document.getElementById(id).addEventListener("change", loadActivity);
document.getElementById("f-q").addEventListener("input", loadActivity);
// Tabs by anchor (no history entries inside Home Assistant's own page).
for (const link of document.querySelectorAll("nav a")) {
  link.addEventListener("click", (event) => { event.preventDefault(); show(link.dataset.tab); });
}
document.getElementById("login-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = document.getElementById("token");
  const token = input.value.trim();
  input.value = "";
  if (token) signIn(token);
});
if (NEEDS_TOKEN) locked();
else show(["chat", "activity", "stats"].includes(location.hash.slice(1)) ? location.hash.slice(1) : "chat");
