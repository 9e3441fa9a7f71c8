// HomeClaw's panel: chat, activity and stats. Plain DOM, no library, no network beyond the
// panel's own endpoints (relative URLs, so the ingress prefix in <base> carries them). Every
// string from Home Assistant, the model or the person is set as text, never as markup.
"use strict";

const STRINGS = {
  en: {
    st_expired: "Expired", st_already_used: "Already answered", st_unknown_approval: "Unknown approval", st_denied: "Not allowed",
    src_http: "API", src_mqtt: "MQTT", src_openai: "OpenAI", src_assist: "Assist",
    src_panel: "Panel", src_cli: "Command line",
    details: "Details", path_fast: "Answered without the model", path_model: "With the model ({n} requests)",
    network_error: "HomeClaw could not be reached. Check the connection, then try again.", retry: "Try again",
    st_declined: "Declined", st_approved: "Approved", st_other: "Other result", row_approval: "Approved", row_decline: "Declined",
    answered_elsewhere: "This approval was answered elsewhere, or it expired; nothing more will run here.",
    label_text: "Your command", label_source: "Source", label_status: "Result",
    took: "took {t}", per_command: "Model requests per command", st_busy: "Busy", st_llm_unavailable: "The model did not answer",
    st_ha_unavailable: "Home Assistant was not reachable", st_invalid_fields: "Not understood",
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
    st_expired: "Wygasło", st_already_used: "Już odpowiedziano", st_unknown_approval: "Nieznana prośba", st_denied: "Niedozwolone",
    src_http: "API", src_mqtt: "MQTT", src_openai: "OpenAI", src_assist: "Assist",
    src_panel: "Panel", src_cli: "Wiersz poleceń",
    details: "Szczegóły", path_fast: "Odpowiedź bez modelu", path_model: "Z modelem (zapytania: {n})",
    network_error: "Nie udało się połączyć z HomeClaw. Sprawdź połączenie i spróbuj ponownie.", retry: "Spróbuj ponownie",
    st_declined: "Odrzucone", st_approved: "Zatwierdzone", st_other: "Inny wynik", row_approval: "Zatwierdzono", row_decline: "Odrzucono",
    answered_elsewhere: "Na tę prośbę odpowiedziano gdzie indziej albo wygasła; tutaj nic więcej się nie wykona.",
    label_text: "Twoje polecenie", label_source: "Źródło", label_status: "Wynik",
    took: "trwało {t}", per_command: "Zapytania do modelu na polecenie", st_busy: "Zajęty", st_llm_unavailable: "Model nie odpowiedział",
    st_ha_unavailable: "Home Assistant był niedostępny", st_invalid_fields: "Niezrozumiałe",
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
    st_expired: "Abgelaufen", st_already_used: "Schon beantwortet", st_unknown_approval: "Unbekannte Freigabe", st_denied: "Nicht erlaubt",
    src_http: "API", src_mqtt: "MQTT", src_openai: "OpenAI", src_assist: "Assist",
    src_panel: "Panel", src_cli: "Kommandozeile",
    details: "Details", path_fast: "Ohne das Modell beantwortet", path_model: "Mit dem Modell ({n} Anfragen)",
    network_error: "HomeClaw ist nicht erreichbar. Prüfe die Verbindung und versuche es noch einmal.", retry: "Noch einmal",
    st_declined: "Abgelehnt", st_approved: "Freigegeben", st_other: "Anderes Ergebnis", row_approval: "Freigegeben", row_decline: "Abgelehnt",
    answered_elsewhere: "Diese Freigabe wurde anderswo beantwortet oder ist abgelaufen; hier läuft nichts mehr.",
    label_text: "Dein Befehl", label_source: "Quelle", label_status: "Ergebnis",
    took: "dauerte {t}", per_command: "Modell-Anfragen pro Befehl", st_busy: "Beschäftigt", st_llm_unavailable: "Das Modell hat nicht geantwortet",
    st_ha_unavailable: "Home Assistant war nicht erreichbar", st_invalid_fields: "Nicht verstanden",
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
    st_expired: "Expirée", st_already_used: "Déjà répondu", st_unknown_approval: "Approbation inconnue", st_denied: "Non autorisé",
    src_http: "API", src_mqtt: "MQTT", src_openai: "OpenAI", src_assist: "Assist",
    src_panel: "Panneau", src_cli: "Ligne de commande",
    details: "Détails", path_fast: "Répondu sans le modèle", path_model: "Avec le modèle ({n} requêtes)",
    network_error: "Impossible de joindre HomeClaw. Vérifiez la connexion, puis réessayez.", retry: "Réessayer",
    st_declined: "Refusée", st_approved: "Approuvée", st_other: "Autre résultat", row_approval: "Approuvé", row_decline: "Refusé",
    answered_elsewhere: "Cette approbation a reçu une réponse ailleurs, ou elle a expiré ; rien de plus ne sera exécuté ici.",
    label_text: "Votre commande", label_source: "Source", label_status: "Résultat",
    took: "a pris {t}", per_command: "Requêtes au modèle par commande", st_busy: "Occupé", st_llm_unavailable: "Le modèle n'a pas répondu",
    st_ha_unavailable: "Home Assistant était injoignable", st_invalid_fields: "Pas compris",
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
    placeholder: "Éteins la cuisine…", verified: "Vérifié", unverified: "Non confirmé",
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

/** Home Assistant's light or dark choice (its frontend keeps it in localStorage, which the
 * ingress frame shares), else the system's; `?theme=dark|light` wins. */
function theme() {
  const asked = new URLSearchParams(location.search).get("theme");
  if (asked === "dark" || asked === "light") return asked;
  let ha = null;
  try { ha = JSON.parse(localStorage.getItem("selectedTheme") || "null"); } catch (_) { ha = null; }
  if (ha && typeof ha.dark === "boolean") return ha.dark ? "dark" : "light";
  return window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}
document.documentElement.dataset.theme = theme();
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

/** One request to the panel's API. A network failure (HomeClaw restarting, the connection
 * gone) is an answer too: `offline`, never a promise that stays pending. */
async function call(method, path, body) {
  const headers = body ? { "content-type": "application/json" } : {};
  if (TOKEN) headers.authorization = "Bearer " + TOKEN;
  let response;
  try {
    response = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  } catch (_) {
    return { ok: false, status: 0, data: null, offline: true };
  }
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

/** What the card says of the actions in a person's words: confirmed in Home Assistant or not.
 * Which services ran on which entities is for the details. */
function confirmation(actions) {
  if (!actions || !actions.length) return null;
  const all = actions.every((a) => a.verified);
  return el("p", { class: "confirmation" },
    el("span", { class: "badge " + (all ? "verified" : "unverified") }, T(all ? "verified" : "unverified")));
}

/** The technical side of an answer, closed until asked for: the path it took, each service
 * call with what Home Assistant showed, and the trace. */
function detailsOf(data) {
  const rounds = data.llm_requests != null ? data.llm_requests : (data.stats ? data.stats.rounds : 0);
  const items = el("ul", { class: "tech" });
  items.append(el("li", {}, rounds ? T("path_model").replace("{n}", `${rounds}`) : T("path_fast")));
  if (data.latency_ms != null) items.append(el("li", {}, T("took").replace("{t}", wait(data.latency_ms))));
  for (const a of data.actions || []) {
    const observed = Object.entries(a.observed_state || {}).map(([id, st]) => `${id}: ${st}`).join(", ");
    items.append(el("li", {}, `${a.domain}.${a.service} → ${(a.entity_ids || []).join(", ")}` +
      (observed ? ` (${observed})` : "") + ` · ${T(a.verified ? "verified" : "unverified")}`));
  }
  const trace = data.trace || [];
  if (trace.length) {
    const list = el("ol", { class: "trace" });
    for (const line of trace) list.append(el("li", {}, line));
    items.append(el("li", {}, T("trace"), list));
  }
  return el("details", { class: "details" }, el("summary", {}, T("details")), items);
}

function statusText(status) {
  return STRINGS.en["st_" + status] ? T("st_" + status) : T("st_other");
}

function statusLine(status) {
  return el("div", { class: "status" }, statusText(status));
}

/** An approval answered: the buttons go, the outcome is said, the card's status follows. */
function settle(card, status, text, refused) {
  const box = card.querySelector(".buttons");
  if (box) box.remove();
  card.dataset.status = status;
  const line = card.querySelector(".status");
  if (line) line.textContent = statusText(status);
  card.querySelector(".answers").append(el("div", { class: "answer" + (refused ? " refused" : " accepted"), role: "status" }, text));
}

/** Why an approval could not be answered, in the person's words. */
function gone(result) {
  const code = result.data && result.data.error ? result.data.error.code : null;
  if (result.offline) return T("network_error");
  return STRINGS.en["gone_" + code] ? T("gone_" + code) : `${T("error")} ${result.status}`;
}

/** Approve and Deny for a card; the card follows its approval wherever it is answered (another
 * tab, a phone, a "yes" by voice) until it is. */
function approvalBox(card, id) {
  const box = el("div", { class: "buttons" });
  const answers = el("div", { class: "answers" });
  const approve = el("button", { type: "button", class: "approve", "data-approval": id }, T("approve"));
  const deny = el("button", { type: "button", class: "deny", "data-approval": id }, T("deny"));
  let settled = false;
  const answer = async (path, as) => {
    approve.disabled = deny.disabled = true;
    const result = await call("POST", path, { approval_id: id });
    if (settled) return;
    if (result.offline) {
      approve.disabled = deny.disabled = false;
      answers.replaceChildren(el("div", { class: "answer refused", role: "alert" }, T("network_error")));
      return;
    }
    settled = true;
    if (result.ok) {
      settle(card, as, result.data.reply, false);
      const more = confirmation(result.data.actions);
      if (more) answers.append(more);
    } else {
      settle(card, "failed", gone(result), true);
    }
  };
  approve.addEventListener("click", () => answer("api/approve", "approved"));
  deny.addEventListener("click", () => answer("api/deny", "declined"));
  box.append(approve, deny);
  const follow = async () => {
    if (settled || !card.isConnected) return;
    const result = await call("GET", "api/approvals/" + encodeURIComponent(id));
    if (settled) return;
    if (result.ok && result.data && !result.data.waiting) {
      settled = true;
      const a = result.data.answer;
      if (!a) settle(card, "failed", T("answered_elsewhere"), true);
      else if (a.kind === "decline" && a.status === "declined") settle(card, "declined", a.reply, false);
      else if (a.kind === "approval" && a.status === "done") settle(card, "approved", a.reply, false);
      else settle(card, "failed", STRINGS.en["gone_" + a.status] ? T("gone_" + a.status) : T("answered_elsewhere"), true);
      return;
    }
    setTimeout(follow, FOLLOW_MS);
  };
  setTimeout(follow, FOLLOW_MS);
  return [box, answers];
}

/** How often a waiting approval's card asks where it stands. */
const FOLLOW_MS = 3000;

async function send(text, card) {
  const log = document.getElementById("log");
  if (!card) {
    log.append(el("div", { class: "you" }, text));
    card = el("div", { class: "card" });
    log.append(card);
  }
  card.className = "card pending";
  card.replaceChildren(el("p", { class: "reply" }, T("thinking")));
  // The panel's language is the person's: HomeClaw answers in it.
  const result = await call("POST", "api/command", { text, session_id: session(), language: LANG });
  card.replaceChildren();
  card.classList.remove("pending");
  if (result.offline) {
    card.classList.add("failed");
    card.dataset.status = "failed";
    const again = el("button", { type: "button", class: "retry" }, T("retry"));
    again.addEventListener("click", () => send(text, card));
    card.append(el("p", { class: "reply", role: "alert" }, T("network_error")), again);
    return;
  }
  if (!result.data || (!result.ok && !result.data.reply)) {
    const code = result.data && result.data.error ? result.data.error.code : null;
    card.classList.add("failed");
    card.dataset.status = "failed";
    card.append(el("p", { class: "reply" }, STRINGS.en["st_" + code] ? T("st_" + code) : `${T("error")} ${result.status}`));
    if (result.data && result.data.error) card.append(detailsOf({ trace: [`${code}: ${result.data.error.message}`] }));
    return;
  }
  const data = result.data;
  card.dataset.status = data.status;
  card.append(el("p", { class: "reply" }, data.reply), statusLine(data.status));
  const confirmed = confirmation(data.actions);
  if (confirmed) card.append(confirmed);
  if (data.status === "approval_required" && data.approval_id) {
    card.append(...approvalBox(card, data.approval_id));
  }
  card.append(detailsOf(data));
  card.scrollIntoView({ block: "end" });
}

// ---- activity ------------------------------------------------------------------------------

/** The moment of the one command the list shows open (from a Stats link), or null for all. */
let FOCUS_AT = null;
/** The newest activity request: an older answer arriving late is dropped. */
let ACTIVITY_SEQ = 0;
let SEARCH_TIMER = null;

/** What a row says it was: the command's words, or what an approval's answer did. */
function rowText(r) {
  if (r.kind === "approval") return T("row_approval");
  if (r.kind === "decline") return T("row_decline");
  return r.text;
}

/** A row's result in words: an approval answered is approved or declined, an unknown code a
 * plain "other result" (the code itself is in the details). */
function rowStatus(r) {
  if (r.kind === "approval" && r.status === "done") return "approved";
  return r.status;
}

/** For a command that waited for approval: how it was answered, when the list has the answer. */
function answeredChip(r, answers) {
  if (r.kind !== "command" || r.status !== "approval_required" || !answers.has(r.approval_id)) return null;
  const how = answers.get(r.approval_id);
  return el("span", { class: "chip answered " + how }, "→ " + statusText(how));
}

/** How each approval in the list was answered, by its id. */
function answersOf(records) {
  const out = new Map();
  for (const r of records) {
    if (r.kind === "approval" && r.status === "done") out.set(r.approval_id, "approved");
    if (r.kind === "decline" && r.status === "declined") out.set(r.approval_id, "declined");
  }
  return out;
}

async function loadActivity() {
  const seq = ++ACTIVITY_SEQ;
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
  if (seq !== ACTIVITY_SEQ) return;
  const runs = document.getElementById("runs");
  runs.replaceChildren();
  if (focus != null) {
    const all = el("button", { type: "button", class: "show-all" }, T("show_all"));
    all.addEventListener("click", () => { FOCUS_AT = null; loadActivity(); });
    runs.append(el("li", { class: "focus" }, all));
  }
  if (result.offline) {
    runs.append(el("li", { class: "empty", role: "alert" }, T("network_error")));
    return;
  }
  const records = (result.data && result.data.runs) || [];
  if (!records.length) runs.append(el("li", { class: "empty" }, T("no_runs")));
  const answers = answersOf(records);
  for (const r of records) {
    const when = new Date(r.at_ms).toLocaleString(LANG);
    const status = rowStatus(r);
    const how = r.kind === "command" && r.latency_ms
      ? `${wait(r.latency_ms)} · ${r.llm_requests ? T("path_model").replace("{n}", `${r.llm_requests}`) : T("path_fast")}`
      : null;
    const head = el("button", { type: "button", class: "run-head", "aria-expanded": focus != null ? "true" : "false" },
      el("span", { class: "when" }, when),
      el("span", { class: "chip source" }, STRINGS.en["src_" + r.source] ? T("src_" + r.source) : r.source),
      el("span", { class: "text" }, rowText(r) || "–"),
      el("span", { class: "chip " + status }, statusText(status)),
      answeredChip(r, answers),
      how ? el("span", { class: "status" }, how) : null);
    const said = r.reply || (STRINGS.en["gone_" + r.status] ? T("gone_" + r.status) : "");
    const body = el("div", { class: "run-body" }, said ? el("p", { class: "reply" }, said) : null,
      confirmation(r.actions),
      detailsOf({ llm_requests: r.llm_requests, latency_ms: r.latency_ms, actions: r.actions,
        trace: [`${r.kind} · ${r.status}` + (r.approval_id ? ` · ${r.approval_id}` : ""), ...(r.trace || [])] }));
    body.hidden = focus == null;
    const item = el("li", { class: "run", "data-at": `${r.at_ms}`, "data-kind": r.kind }, head, body);
    head.addEventListener("click", () => {
      body.hidden = !body.hidden;
      head.setAttribute("aria-expanded", body.hidden ? "false" : "true");
    });
    runs.append(item);
  }
}

/** Search as the person types, once they pause: one request, and only the newest answer. */
function searchSoon() {
  clearTimeout(SEARCH_TIMER);
  SEARCH_TIMER = setTimeout(loadActivity, 250);
}

// ---- stats ---------------------------------------------------------------------------------

let PERIOD = 7;
const LATENCY_BOUNDS_MS = [100, 500, 1000, 2000, 5000, 10000, 30000];

/** A number as the person's locale writes it ("1,2" in German and Polish). */
function num(n, digits) {
  return n.toLocaleString(LANG, { minimumFractionDigits: digits || 0, maximumFractionDigits: digits || 0 });
}

/** A share as the person's locale writes it ("80 %" in German and French). */
function pct(share) {
  return (share / 100).toLocaleString(LANG, { style: "percent" });
}

/** A wait as a person reads it: milliseconds under a second, else seconds. */
function wait(ms) {
  if (ms == null) return "–";
  if (ms < 1000) return `${num(Math.round(ms))} ms`;
  const s = ms / 1000;
  return `${s < 10 ? num(s, 1) : num(Math.round(s))} s`;
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

/** Whole numbers for an axis: from 0 in even steps (at most five) to a top at or above the
 * largest value, so every bar can be read against a tick. */
function ticks(max) {
  const top = Math.max(1, max);
  const steps = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000];
  const step = steps.find((t) => Math.ceil(top / t) <= 5) || Math.pow(10, Math.ceil(Math.log10(top / 5)));
  const out = [];
  for (let t = 0; t <= Math.ceil(top / step) * step; t += step) out.push(t);
  return out;
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
    add("text", { class: "tick", x: L - 4, y: y(t) + 4, "text-anchor": "end" }, num(t));
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
      el("span", { class: "count" }, `${num(n)} · ${pct(share)}`)));
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
    tile(T("k_commands"), num(summary.commands), "t-commands"),
    tile(T("k_without_model"), `${num(summary.without_model)} · ${pct(share)}`, "t-without-model"),
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
    el("th", {}, T("model")), el("th", {}, T("commands")), el("th", {}, T("k_median")),
    el("th", {}, T("k_p95")), el("th", {}, T("per_command"))));
  // Counted as the tiles count them: a refused or failed command was answered neither way.
  const byModel = new Map();
  for (const p of points) {
    const unanswered = p.outcome === "failed" || p.outcome === "refused";
    const key = unanswered ? T("unanswered") : (p.llm_requests ? (p.model || "?") : T("without_model"));
    if (!byModel.has(key)) byModel.set(key, []);
    byModel.get(key).push(p);
  }
  for (const [model, list] of byModel) {
    const lat = list.map((p) => p.latency_ms).sort((a, b) => a - b);
    const at = (q) => lat[Math.min(lat.length - 1, Math.ceil(q * lat.length) - 1)];
    const req = list.reduce((n, p) => n + p.llm_requests, 0) / list.length;
    table.append(el("tr", {}, el("td", {}, model), el("td", {}, num(list.length)),
      el("td", {}, wait(at(0.5))), el("td", {}, wait(at(0.95))), el("td", {}, num(req, 1))));
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
  for (const node of document.querySelectorAll("[data-i18n-label]")) node.setAttribute("aria-label", T(node.dataset.i18nLabel));
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
document.getElementById("f-q").addEventListener("input", searchSoon);
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
