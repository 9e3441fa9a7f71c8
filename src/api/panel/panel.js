// HomeClaw's panel: chat, activity and stats. Plain DOM, no library, no network beyond the
// panel's own endpoints (relative URLs, so the ingress prefix in <base> carries them). Every
// string from Home Assistant, the model or the person is set as text, never as markup.
"use strict";

const STRINGS = {
  en: {
    notice_prefer_local: "In these Assist pipelines Home Assistant answers the sentences it understands itself, before HomeClaw: {pipelines}. Those commands run without HomeClaw's approval, its check of what happened, or a record here. To let HomeClaw handle every command, open Settings → Voice assistants, pick the assistant, and untick “Prefer handling commands locally”.",
    tab_connect: "Connect", connect_title: "Other programs",
    connect_intro: "Scripts, other apps and chat clients reach HomeClaw's API at this address with this token. Without it HomeClaw answers only its health check, and the refusal shows up in Activity.",
    connect_address: "Address", connect_token: "Token", connect_show: "Show", connect_hide: "Hide", connect_copy: "Copy",
    connect_copied: "Copied.", connect_example: "Try it", connect_kept: "Kept in",
    connect_reach: "Apps on Home Assistant's own network use this address. For another machine, map the port in this app's Network settings and use that machine's address with it.",
    connect_open: "The API has no token: every program on this computer may use it. Set api.token to require one.",
    st_unauthorized: "Refused: no valid token",
    unanswered: "Not answered",
    period_1: "Today", period_7: "7 days", period_30: "30 days", k_commands: "Commands",
    k_without_model: "Answered without the model", k_median: "Typical wait", k_p95: "95% waited less than",
    per_day: "Commands per day", without_model: "Without the model", with_model: "With the model",
    waits: "How long people waited", axis_commands: "commands", axis_wait: "waiting time",
    outcomes: "How commands ended", o_verified: "Done and confirmed", o_answered: "Answered",
    o_asked_back: "Asked back", o_waiting_for_approval: "Needed approval", o_refused: "Refused",
    o_failed: "Failed", slowest: "Slowest commands", failed_list: "Failed commands",
    none_failed: "None failed in this period.", empty_period: "No commands in this period yet — try one in Chat.",
    by_model: "By model", show_all: "Show all", days_in: "Days in",
    gone_expired: "That approval expired; nothing was run.",
    gone_already_used: "That approval was already answered; nothing more was run.",
    gone_unknown_approval: "HomeClaw does not know that approval (it may be from before a restart); nothing was run.",
    gone_denied: "HomeClaw's settings now deny that action; nothing was run.",
    tab_chat: "Chat", tab_activity: "Activity", tab_stats: "Stats", send: "Send",
    placeholder: "Turn off the kitchen lights…", verified: "Verified", unverified: "Not confirmed",
    approve: "Approve", deny: "Deny", trace: "Trace", thinking: "Working…",
    all_sources: "All sources", all_statuses: "All results", search: "Search",
    src_notification: "Notification", st_done: "Done", st_approval_required: "Waiting for approval",
    st_clarification_required: "Question", st_failed: "Failed", no_runs: "Nothing yet.",
    model: "Model", commands: "Commands", median: "Median", p95: "p95",
    mean_requests: "LLM requests", error: "Error", fast_path: "fast path",
    token_label: "API token", sign_in: "Open", wrong_token: "That token is not the one HomeClaw has.",
    token_hint: "The token is api.token in HomeClaw's configuration. It is kept in this page only until you close or reload it.",
  },
  pl: {
    notice_prefer_local: "W tych potokach Assist Home Assistant sam obsługuje zdania, które rozumie, zanim dostanie je HomeClaw: {pipelines}. Takie polecenia wykonują się bez zgody wymaganej przez HomeClaw, bez sprawdzenia skutku i bez wpisu tutaj. Aby HomeClaw obsługiwał każde polecenie, otwórz Ustawienia → Asystenci głosowi, wybierz asystenta i odznacz „Preferuje lokalną obsługę poleceń”.",
    tab_connect: "Połączenie", connect_title: "Inne programy",
    connect_intro: "Skrypty, inne aplikacje i klienci czatu łączą się z API HomeClaw pod tym adresem, podając ten token. Bez niego HomeClaw odpowiada tylko na sprawdzenie stanu, a odmowa pojawia się w Aktywności.",
    connect_address: "Adres", connect_token: "Token", connect_show: "Pokaż", connect_hide: "Ukryj", connect_copy: "Kopiuj",
    connect_copied: "Skopiowano.", connect_example: "Wypróbuj", connect_kept: "Zapisany w",
    connect_reach: "Aplikacje w sieci Home Assistanta używają tego adresu. Dla innego komputera udostępnij port w ustawieniach sieci tej aplikacji i użyj adresu tego komputera.",
    connect_open: "API nie ma tokenu: może go używać każdy program na tym komputerze. Ustaw api.token, aby go wymagać.",
    st_unauthorized: "Odmowa: brak ważnego tokenu",
    unanswered: "Bez odpowiedzi",
    period_1: "Dziś", period_7: "7 dni", period_30: "30 dni", k_commands: "Polecenia",
    k_without_model: "Bez modelu", k_median: "Typowe czekanie", k_p95: "95% czekało krócej niż",
    per_day: "Polecenia dziennie", without_model: "Bez modelu", with_model: "Z modelem",
    waits: "Jak długo trzeba było czekać", axis_commands: "polecenia", axis_wait: "czas czekania",
    outcomes: "Jak kończyły się polecenia", o_verified: "Wykonane i potwierdzone", o_answered: "Odpowiedź",
    o_asked_back: "Pytanie zwrotne", o_waiting_for_approval: "Wymagały zgody", o_refused: "Odrzucone",
    o_failed: "Niepowodzenia", slowest: "Najwolniejsze polecenia", failed_list: "Nieudane polecenia",
    none_failed: "W tym okresie nic się nie zepsuło.", empty_period: "W tym okresie nie było jeszcze poleceń — spróbuj w czacie.",
    by_model: "Według modelu", show_all: "Pokaż wszystko", days_in: "Dni w strefie",
    gone_expired: "Ta prośba o zgodę wygasła; niczego nie wykonano.",
    gone_already_used: "Na tę prośbę już odpowiedziano; nic więcej nie wykonano.",
    gone_unknown_approval: "HomeClaw nie zna tej prośby (może jest sprzed ponownego uruchomienia); niczego nie wykonano.",
    gone_denied: "Ustawienia HomeClaw zabraniają teraz tego działania; niczego nie wykonano.",
    tab_chat: "Czat", tab_activity: "Aktywność", tab_stats: "Statystyki", send: "Wyślij",
    placeholder: "Wyłącz światła w kuchni…", verified: "Potwierdzone", unverified: "Niepotwierdzone",
    approve: "Zatwierdź", deny: "Odrzuć", trace: "Przebieg", thinking: "Pracuję…",
    all_sources: "Wszystkie źródła", all_statuses: "Wszystkie wyniki", search: "Szukaj",
    src_notification: "Powiadomienie", st_done: "Wykonane", st_approval_required: "Czeka na zatwierdzenie",
    st_clarification_required: "Pytanie", st_failed: "Niepowodzenie", no_runs: "Jeszcze nic.",
    model: "Model", commands: "Polecenia", median: "Mediana", p95: "p95",
    mean_requests: "Zapytania LLM", error: "Błąd", fast_path: "szybka ścieżka",
    token_label: "Token API", sign_in: "Otwórz", wrong_token: "To nie jest token, który ma HomeClaw.",
    token_hint: "Token to api.token w konfiguracji HomeClaw. Strona trzyma go tylko do jej zamknięcia lub odświeżenia.",
  },
  de: {
    notice_prefer_local: "In diesen Assist-Pipelines beantwortet Home Assistant die Sätze, die es selbst versteht, bevor HomeClaw sie bekommt: {pipelines}. Diese Befehle laufen ohne die Freigabe von HomeClaw, ohne Prüfung des Ergebnisses und ohne Eintrag hier. Damit HomeClaw jeden Befehl bearbeitet, öffne Einstellungen → Sprachassistenten, wähle den Assistenten und entferne den Haken bei „Lokale Verarbeitung von Befehlen bevorzugen“.",
    tab_connect: "Verbinden", connect_title: "Andere Programme",
    connect_intro: "Skripte, andere Apps und Chat-Programme erreichen die API von HomeClaw unter dieser Adresse mit diesem Token. Ohne ihn beantwortet HomeClaw nur die Statusabfrage, und die Abweisung erscheint unter Aktivität.",
    connect_address: "Adresse", connect_token: "Token", connect_show: "Zeigen", connect_hide: "Verbergen", connect_copy: "Kopieren",
    connect_copied: "Kopiert.", connect_example: "Ausprobieren", connect_kept: "Gespeichert in",
    connect_reach: "Apps im eigenen Netz von Home Assistant nutzen diese Adresse. Für einen anderen Rechner den Port in den Netzwerk-Einstellungen dieser App freigeben und dessen Adresse verwenden.",
    connect_open: "Die API hat keinen Token: Jedes Programm auf diesem Rechner kann sie nutzen. Setze api.token, um einen zu verlangen.",
    st_unauthorized: "Abgewiesen: kein gültiger Token",
    unanswered: "Nicht beantwortet",
    period_1: "Heute", period_7: "7 Tage", period_30: "30 Tage", k_commands: "Befehle",
    k_without_model: "Ohne das Modell beantwortet", k_median: "Typische Wartezeit", k_p95: "95 % warteten kürzer als",
    per_day: "Befehle pro Tag", without_model: "Ohne Modell", with_model: "Mit Modell",
    waits: "Wie lange gewartet wurde", axis_commands: "Befehle", axis_wait: "Wartezeit",
    outcomes: "Wie Befehle endeten", o_verified: "Erledigt und bestätigt", o_answered: "Beantwortet",
    o_asked_back: "Rückfrage", o_waiting_for_approval: "Brauchten Freigabe", o_refused: "Abgewiesen",
    o_failed: "Fehlgeschlagen", slowest: "Langsamste Befehle", failed_list: "Fehlgeschlagene Befehle",
    none_failed: "In diesem Zeitraum ist nichts fehlgeschlagen.", empty_period: "In diesem Zeitraum gab es noch keine Befehle — probier einen im Chat.",
    by_model: "Nach Modell", show_all: "Alle zeigen", days_in: "Tage in",
    gone_expired: "Diese Freigabe ist abgelaufen; nichts wurde ausgeführt.",
    gone_already_used: "Diese Freigabe wurde schon beantwortet; nichts weiter wurde ausgeführt.",
    gone_unknown_approval: "HomeClaw kennt diese Freigabe nicht (vielleicht von vor einem Neustart); nichts wurde ausgeführt.",
    gone_denied: "HomeClaws Einstellungen verbieten diese Aktion jetzt; nichts wurde ausgeführt.",
    tab_chat: "Chat", tab_activity: "Aktivität", tab_stats: "Statistik", send: "Senden",
    placeholder: "Schalte das Küchenlicht aus…", verified: "Bestätigt", unverified: "Nicht bestätigt",
    approve: "Freigeben", deny: "Ablehnen", trace: "Ablauf", thinking: "Arbeite…",
    all_sources: "Alle Quellen", all_statuses: "Alle Ergebnisse", search: "Suchen",
    src_notification: "Benachrichtigung", st_done: "Erledigt", st_approval_required: "Wartet auf Freigabe",
    st_clarification_required: "Rückfrage", st_failed: "Fehlgeschlagen", no_runs: "Noch nichts.",
    model: "Modell", commands: "Befehle", median: "Median", p95: "p95",
    mean_requests: "LLM-Anfragen", error: "Fehler", fast_path: "Schnellpfad",
    token_label: "API-Token", sign_in: "Öffnen", wrong_token: "Das ist nicht der Token, den HomeClaw hat.",
    token_hint: "Der Token ist api.token in der Konfiguration von HomeClaw. Die Seite behält ihn nur, bis sie geschlossen oder neu geladen wird.",
  },
  fr: {
    notice_prefer_local: "Dans ces pipelines Assist, Home Assistant traite lui-même les phrases qu'il comprend, avant HomeClaw : {pipelines}. Ces commandes s'exécutent sans l'approbation de HomeClaw, sans vérification du résultat et sans trace ici. Pour que HomeClaw traite chaque commande, ouvrez Paramètres → Assistants vocaux, choisissez l'assistant et décochez « Préférer gérer les commandes localement ».",
    tab_connect: "Connexion", connect_title: "Autres programmes",
    connect_intro: "Les scripts, les autres applications et les clients de discussion joignent l'API de HomeClaw à cette adresse avec ce jeton. Sans lui, HomeClaw ne répond qu'au contrôle d'état, et le refus apparaît dans Activité.",
    connect_address: "Adresse", connect_token: "Jeton", connect_show: "Afficher", connect_hide: "Masquer", connect_copy: "Copier",
    connect_copied: "Copié.", connect_example: "Essayer", connect_kept: "Conservé dans",
    connect_reach: "Les applications du réseau de Home Assistant utilisent cette adresse. Pour une autre machine, ouvrez le port dans les réglages réseau de cette application et utilisez l'adresse de cette machine.",
    connect_open: "L'API n'a pas de jeton : tout programme de cet ordinateur peut l'utiliser. Définissez api.token pour en exiger un.",
    st_unauthorized: "Refusé : pas de jeton valable",
    unanswered: "Sans réponse",
    period_1: "Aujourd'hui", period_7: "7 jours", period_30: "30 jours", k_commands: "Commandes",
    k_without_model: "Répondues sans le modèle", k_median: "Attente typique", k_p95: "95 % ont attendu moins de",
    per_day: "Commandes par jour", without_model: "Sans le modèle", with_model: "Avec le modèle",
    waits: "Combien de temps on a attendu", axis_commands: "commandes", axis_wait: "attente",
    outcomes: "Comment les commandes ont fini", o_verified: "Faites et confirmées", o_answered: "Répondues",
    o_asked_back: "Question en retour", o_waiting_for_approval: "Accord demandé", o_refused: "Refusées",
    o_failed: "Échecs", slowest: "Commandes les plus lentes", failed_list: "Commandes en échec",
    none_failed: "Aucun échec sur cette période.", empty_period: "Aucune commande sur cette période — essayez-en une dans la discussion.",
    by_model: "Par modèle", show_all: "Tout afficher", days_in: "Jours en",
    gone_expired: "Cette approbation a expiré ; rien n'a été exécuté.",
    gone_already_used: "Cette approbation a déjà reçu une réponse ; rien de plus n'a été exécuté.",
    gone_unknown_approval: "HomeClaw ne connaît pas cette approbation (elle date peut-être d'avant un redémarrage) ; rien n'a été exécuté.",
    gone_denied: "Les réglages de HomeClaw interdisent maintenant cette action ; rien n'a été exécuté.",
    tab_chat: "Discussion", tab_activity: "Activité", tab_stats: "Statistiques", send: "Envoyer",
    placeholder: "Éteins les lumières de la cuisine…", verified: "Vérifié", unverified: "Non confirmé",
    approve: "Approuver", deny: "Refuser", trace: "Déroulé", thinking: "En cours…",
    all_sources: "Toutes les sources", all_statuses: "Tous les résultats", search: "Rechercher",
    src_notification: "Notification", st_done: "Fait", st_approval_required: "En attente d'approbation",
    st_clarification_required: "Question", st_failed: "Échec", no_runs: "Rien pour l'instant.",
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
    const code = result.data && result.data.error ? result.data.error.code : null;
    const text = result.ok ? result.data.reply
      : (STRINGS.en["gone_" + code] ? T("gone_" + code)
        : (code ? result.data.error.message : `${T("error")} ${result.status}`));
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
  // The panel's language is the person's: HomeClaw answers in it.
  const result = await call("POST", "api/command", { text, session_id: session(), language: LANG });
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

/** The moment of the one command the list shows open (from a Stats link), or null for all. */
let FOCUS_AT = null;

async function loadActivity() {
  const params = new URLSearchParams();
  const source = document.getElementById("f-source").value;
  const status = document.getElementById("f-status").value;
  const q = document.getElementById("f-q").value.trim();
  if (source) params.set("source", source);
  if (status) params.set("status", status);
  if (q) params.set("q", q);
  const focus = FOCUS_AT;
  if (focus != null) params.set("at_ms", `${focus}`);
  const result = await call("GET", "api/activity?" + params.toString());
  const runs = document.getElementById("runs");
  runs.replaceChildren();
  if (focus != null) {
    const all = el("button", { type: "button", class: "show-all" }, T("show_all"));
    all.addEventListener("click", () => { FOCUS_AT = null; loadActivity(); });
    runs.append(el("li", { class: "focus" }, all));
  }
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
    body.hidden = focus == null;
    const item = el("li", { class: "run", "data-at": `${r.at_ms}` }, head, body);
    item.addEventListener("click", () => { body.hidden = !body.hidden; });
    runs.append(item);
  }
}

// ---- stats ---------------------------------------------------------------------------------

let PERIOD = 7;
const LATENCY_BOUNDS_MS = [100, 500, 1000, 2000, 5000, 10000, 30000];

/** A wait as a person reads it: milliseconds under a second, else seconds. */
function wait(ms) {
  if (ms == null) return "–";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
}

function bucketLabels() {
  const edge = (ms) => (ms < 1000 ? `${ms}` : `${ms / 1000}`);
  const unit = (ms) => (ms < 1000 ? " ms" : " s");
  const labels = [`<${edge(LATENCY_BOUNDS_MS[0])}${unit(LATENCY_BOUNDS_MS[0])}`];
  for (let i = 1; i < LATENCY_BOUNDS_MS.length; i++) {
    const lo = LATENCY_BOUNDS_MS[i - 1], hi = LATENCY_BOUNDS_MS[i];
    const same = (lo < 1000) === (hi < 1000);
    labels.push(same ? `${edge(lo)}–${edge(hi)}${unit(hi)}` : `${lo / 1000}–${edge(hi)}${unit(hi)}`);
  }
  const last = LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1];
  labels.push(`≥${edge(last)}${unit(last)}`);
  return labels;
}

/** A day of the home's calendar (YYYY-MM-DD) as a short label in the panel's language. */
function dayLabel(date, options) {
  return new Date(`${date}T12:00:00Z`).toLocaleDateString(LANG, { timeZone: "UTC", ...options });
}

/** Whole numbers for an axis: 0, a middle and a top at or above the largest value. */
function ticks(max) {
  const top = Math.max(1, max);
  const step = Math.pow(10, Math.floor(Math.log10(top)));
  const nice = [1, 2, 5, 10].map((m) => m * step).find((t) => t >= top / 2) || step;
  const end = Math.ceil(top / nice) * nice;
  return end > nice ? [0, end / 2, end].filter((t) => Number.isInteger(t)) : [0, end];
}

/**
 * A bar chart as SVG: one bar per label, each the stack of `series` ({name, cls, values}),
 * with its y axis in whole counts and both axes named.
 */
function bars(title, labels, series, yName, xName, every) {
  const W = 340, H = 200, L = 34, R = 6, PAD = 10, B = 50;
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", title);
  const add = (tag, attrs, text) => {
    const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text != null) node.textContent = text;
    svg.append(node);
    return node;
  };
  const totals = labels.map((_, i) => series.reduce((n, s) => n + s.values[i], 0));
  const marks = ticks(Math.max(0, ...totals));
  const top = marks[marks.length - 1];
  const y = (v) => H - B - (v / top) * (H - B - PAD);
  for (const t of marks) {
    add("line", { class: t ? "gridline" : "axis", x1: L, y1: y(t), x2: W - R, y2: y(t) });
    add("text", { class: "tick", x: L - 4, y: y(t) + 3, "text-anchor": "end" }, `${t}`);
  }
  const slot = (W - L - R) / Math.max(1, labels.length);
  const width = Math.max(2, Math.min(28, slot * 0.7));
  labels.forEach((label, i) => {
    const x = L + slot * i + (slot - width) / 2;
    let base = 0;
    for (const s of series) {
      const v = s.values[i];
      if (v > 0) {
        const bar = add("rect", { class: "bar " + s.cls, x, y: y(base + v), width, height: y(base) - y(base + v) });
        const tip = document.createElementNS("http://www.w3.org/2000/svg", "title");
        tip.textContent = `${label}: ${v} ${s.name}`;
        bar.append(tip);
      }
      base += v;
    }
    if (i % every === 0) {
      const cx = L + slot * i + slot / 2;
      // Long labels (waiting times) lean, so every one of them fits.
      const lean = slot < label.length * 5.5;
      add("text", lean
        ? { class: "tick", x: cx + 3, y: H - B + 10, "text-anchor": "end", transform: `rotate(-35 ${cx + 3} ${H - B + 10})` }
        : { class: "tick", x: cx, y: H - B + 13, "text-anchor": "middle" }, label);
    }
  });
  add("text", { class: "axis-name", x: L + (W - L - R) / 2, y: H - 6, "text-anchor": "middle" }, xName);
  add("text", { class: "axis-name", x: 10, y: PAD + (H - B - PAD) / 2, "text-anchor": "middle",
    transform: `rotate(-90 10 ${PAD + (H - B - PAD) / 2})` }, yName);
  const legend = series.length > 1
    ? el("div", { class: "legend" }, ...series.map((s) => el("span", { class: "key " + s.cls }, s.name)))
    : null;
  return el("div", { class: "chart" }, el("h3", {}, title), svg, legend);
}

function tile(label, value, id) {
  return el("div", { class: "tile", id }, el("div", { class: "value" }, value), el("div", { class: "label" }, label));
}

/** How commands ended: one row per outcome with its share. */
function outcomeList(outcomes, total) {
  const keys = ["verified", "answered", "asked_back", "waiting_for_approval", "refused", "failed"];
  const list = el("ul", { class: "outcomes" });
  for (const key of keys) {
    const n = outcomes[key] || 0;
    const share = total ? Math.round((100 * n) / total) : 0;
    const fill = el("span", { class: "fill o-" + key });
    fill.style.width = `${share}%`;
    list.append(el("li", { "data-outcome": key },
      el("span", { class: "name" }, T("o_" + key)),
      el("span", { class: "meter" }, fill),
      el("span", { class: "count" }, `${n} · ${share}%`)));
  }
  return el("div", { class: "chart" }, el("h3", {}, T("outcomes")), list);
}

/** Commands worth a look, each a link to its entry in the activity list. */
function commandList(title, items, empty) {
  const list = el("ol", { class: "listed" });
  for (const item of items) {
    const when = new Date(item.at_ms).toLocaleString(LANG, { dateStyle: "short", timeStyle: "short" });
    const link = el("a", { href: "#activity", "data-at": `${item.at_ms}` }, item.text || "–");
    link.addEventListener("click", (event) => { event.preventDefault(); openRun(item.at_ms); });
    list.append(el("li", {}, link,
      el("span", { class: "status" }, `${wait(item.latency_ms)} · ${T("o_" + item.outcome)} · ${when}`)));
  }
  return el("div", { class: "chart" }, el("h3", {}, title),
    items.length ? list : el("p", { class: "empty" }, empty));
}

function periodButtons() {
  const box = el("div", { class: "periods", role: "group" });
  for (const days of [1, 7, 30]) {
    const button = el("button", { type: "button", "data-days": `${days}`, class: days === PERIOD ? "on" : "" },
      T("period_" + days));
    button.addEventListener("click", () => { PERIOD = days; loadStats(); });
    box.append(button);
  }
  return box;
}

async function loadStats() {
  const result = await call("GET", `api/stats?days=${PERIOD}`);
  const charts = document.getElementById("charts");
  const table = document.getElementById("models");
  charts.replaceChildren();
  table.replaceChildren();
  const summary = result.data && result.data.summary;
  if (!summary) {
    charts.append(el("p", { class: "empty" }, `${T("error")} ${result.status}`));
    return;
  }
  const days = summary.per_day;
  const first = days[0].date, last = days[days.length - 1].date;
  const shown = first === last ? dayLabel(first, { weekday: "long", day: "numeric", month: "long" })
    : `${dayLabel(first, { day: "numeric", month: "short" })} – ${dayLabel(last, { day: "numeric", month: "short" })}`;
  const head = el("div", { class: "stats-head" }, periodButtons(),
    el("span", { class: "period", id: "period" }, `${shown} · ${T("days_in")} ${summary.time_zone}`));
  charts.append(head);
  if (!summary.commands) {
    charts.append(el("p", { class: "empty", id: "stats-empty" }, T("empty_period")));
    return;
  }
  const share = Math.round((100 * summary.without_model) / summary.commands);
  charts.append(el("div", { class: "tiles" },
    tile(T("k_commands"), `${summary.commands}`, "t-commands"),
    tile(T("k_without_model"), `${summary.without_model} · ${share}%`, "t-without-model"),
    tile(T("k_median"), wait(summary.p50_ms), "t-median"),
    tile(T("k_p95"), wait(summary.p95_ms), "t-p95")));
  const labels = days.map((d) => dayLabel(d.date, days.length > 7 ? { day: "numeric", month: "numeric" } : { weekday: "short" }));
  charts.append(el("div", { class: "grid" },
    bars(T("per_day"), labels, [
      { name: T("without_model"), cls: "s-fast", values: days.map((d) => d.without_model) },
      { name: T("with_model"), cls: "s-model", values: days.map((d) => d.commands - d.without_model - d.unanswered) },
      { name: T("unanswered"), cls: "s-none", values: days.map((d) => d.unanswered) },
    ], T("axis_commands"), "", days.length > 7 ? 5 : 1),
    bars(T("waits"), bucketLabels(), [{ name: T("axis_commands"), cls: "s-wait", values: summary.latency }],
      T("axis_commands"), T("axis_wait"), 1),
    outcomeList(summary.outcomes, summary.commands),
    commandList(T("slowest"), summary.slowest, T("empty_period")),
    commandList(T("failed_list"), summary.failed, T("none_failed"))));
  // By model: every command of the period, the fast path as its own row.
  const points = result.data.points || [];
  table.append(el("caption", {}, T("by_model")), el("tr", {},
    el("th", {}, T("model")), el("th", {}, T("commands")), el("th", {}, T("median")),
    el("th", {}, T("p95")), el("th", {}, T("mean_requests"))));
  const byModel = new Map();
  for (const p of points) {
    const key = p.llm_requests ? (p.model || "?") : T("fast_path");
    if (!byModel.has(key)) byModel.set(key, []);
    byModel.get(key).push(p);
  }
  for (const [model, list] of byModel) {
    const lat = list.map((p) => p.latency_ms).sort((a, b) => a - b);
    const at = (q) => lat[Math.min(lat.length - 1, Math.ceil(q * lat.length) - 1)];
    const req = list.reduce((n, p) => n + p.llm_requests, 0) / list.length;
    table.append(el("tr", {}, el("td", {}, model), el("td", {}, list.length),
      el("td", {}, wait(at(0.5))), el("td", {}, wait(at(0.95))), el("td", {}, req.toFixed(2))));
  }
}

/** The activity list with one command open: a link from the Stats tab. */
function openRun(at) {
  FOCUS_AT = at;
  show("activity");
}

// ---- notices -------------------------------------------------------------------------------

/** Says, above every tab, what the person should know about how Home Assistant hands commands
 * to HomeClaw: today, pipelines that let Home Assistant answer first. */
async function loadNotices() {
  const box = document.getElementById("notices");
  const result = await call("GET", "api/notices");
  const pipelines = (result.ok && result.data && result.data.prefer_local_pipelines) || [];
  box.replaceChildren();
  if (!pipelines.length) { box.hidden = true; return; }
  const names = pipelines.map((p) => `“${p}”`).join(", ");
  box.append(el("p", { role: "status", id: "notice-prefer-local" }, T("notice_prefer_local").replace("{pipelines}", names)));
  box.hidden = false;
}

// ---- connect -------------------------------------------------------------------------------

/** How other programs reach the API: the address and the token, hidden until asked for. */
async function loadAccess() {
  const box = document.getElementById("access");
  const result = await call("GET", "api/access");
  if (!result.ok || !result.data) {
    box.replaceChildren(el("p", { class: "empty" }, `${T("error")} ${result.status}`));
    return;
  }
  const a = result.data;
  const address = `http://${a.host || location.hostname}:${a.port}`;
  const parts = [el("h2", {}, T("connect_title"))];
  if (!a.token) {
    parts.push(el("p", { class: "hint" }, T("connect_open")));
    box.replaceChildren(...parts);
    return;
  }
  const token = el("input", { id: "access-token", type: "password", readonly: "", value: a.token, "aria-label": T("connect_token") });
  const show = el("button", { type: "button", id: "access-show" }, T("connect_show"));
  show.addEventListener("click", () => {
    const hidden = token.type === "password";
    token.type = hidden ? "text" : "password";
    show.textContent = T(hidden ? "connect_hide" : "connect_show");
  });
  const copied = el("span", { class: "hint", role: "status" });
  const copy = el("button", { type: "button", id: "access-copy" }, T("connect_copy"));
  copy.addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(a.token); copied.textContent = T("connect_copied"); }
    catch (_) { token.type = "text"; token.select(); }
  });
  const example = `curl -H "Authorization: Bearer $HOMECLAW_TOKEN" -H "Content-Type: application/json" \\\n  -d '{"text": "turn off the kitchen lights"}' ${address}/api/command`;
  parts.push(
    el("p", {}, T("connect_intro")),
    el("dl", {},
      el("dt", {}, T("connect_address")), el("dd", {}, el("code", { id: "access-address" }, address)),
      el("dt", {}, T("connect_token")), el("dd", { class: "token-row" }, token, show, copy, copied),
      a.kept_in ? el("dt", {}, T("connect_kept")) : null,
      a.kept_in ? el("dd", {}, el("code", {}, a.kept_in)) : null),
    el("p", { class: "hint" }, T("connect_reach")),
    el("h3", {}, T("connect_example")),
    el("pre", { class: "example" }, example));
  box.replaceChildren(...parts);
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
  loadNotices();
  show("chat");
}

function show(tab) {
  for (const section of document.querySelectorAll(".tab")) section.hidden = section.id !== tab;
  for (const link of document.querySelectorAll("nav a")) link.classList.toggle("active", link.dataset.tab === tab);
  if (tab === "activity") loadActivity();
  if (tab === "stats") loadStats();
  if (tab === "connect") loadAccess();
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
  link.addEventListener("click", (event) => { event.preventDefault(); FOCUS_AT = null; show(link.dataset.tab); });
}
document.getElementById("login-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = document.getElementById("token");
  const token = input.value.trim();
  input.value = "";
  if (token) signIn(token);
});
if (NEEDS_TOKEN) locked();
else {
  loadNotices();
  show(["chat", "activity", "stats", "connect"].includes(location.hash.slice(1)) ? location.hash.slice(1) : "chat");
}
