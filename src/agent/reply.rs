//! What the person is told. Every text here is built from what HomeClaw knows happened — the
//! verified actions, the recorded approval, the guard that stopped a run — never from the
//! model's word alone, so no reply can say an action happened that did not.

use super::approval::PendingAction;
use super::fastpath::{FastCall, Lang, Unmatched};
use super::verify::ActionReport;
use crate::ha::registry::Hidden;

/// The reply after the provider rejected the conversation and it was started over.
pub const RESET: &str = "Sorry, I had to start our conversation over because the model provider \
rejected it. Please repeat your request.";

/// What to say when the model gave no final text.
pub fn fallback_summary(actions: &[ActionReport]) -> String {
    if actions.is_empty() {
        return "I could not finish this request, and I made no changes.".into();
    }
    let list = |verified: bool| -> Vec<String> {
        actions
            .iter()
            .filter(|a| a.verified == verified)
            .map(ActionReport::describe)
            .collect()
    };
    let (done, unsure) = (list(true), list(false));
    let mut out = String::from("I could not finish this request.");
    if !done.is_empty() {
        out.push_str(&format!(" Done and confirmed: {}.", done.join("; ")));
    }
    if !unsure.is_empty() {
        out.push_str(&format!(" Sent but not confirmed: {}.", unsure.join("; ")));
    }
    out
}

/// An action request that ended with nothing done: said plainly, with the model's words only
/// when they claim nothing (a question or an explanation may help; "it is already closed",
/// unread, may not be true). A device HomeClaw may not see is named with what to change: that
/// is the one thing the person can fix, and the model cannot be relied on to say it.
pub fn nothing_done(model_text: &str, lang: Lang, hidden: Option<&(Hidden, String)>) -> String {
    let lead = match lang {
        Lang::En => "I did not change anything.",
        Lang::Pl => "Niczego nie zmieniłem.",
        Lang::De => "Ich habe nichts geändert.",
    };
    if let Some((reason, name)) = hidden {
        return format!("{lead} {}", hidden_words(*reason, name, lang));
    }
    let text = model_text.trim();
    let foreign = written_in(text).is_some_and(|written| written != lang);
    if text.is_empty() || foreign || super::honesty::claims_action_or_observation(text) {
        lead.to_owned()
    } else {
        format!("{lead} {text}")
    }
}

/// Small words only one of our languages has, folded as `text::fold` folds them.
const OWN_WORDS: [(Lang, &[&str]); 3] = [
    (
        Lang::En,
        &[
            "the", "could", "not", "did", "was", "have", "has", "found", "find", "there", "named",
            "any", "with", "you", "this", "that", "is", "are", "no", "it",
        ],
    ),
    (
        Lang::Pl,
        &[
            "nie",
            "sie",
            "jest",
            "ze",
            "nic",
            "niczego",
            "moglem",
            "moge",
            "znalazlem",
            "czy",
            "jak",
            "ale",
            "tego",
            "tej",
            "ten",
            "zadnego",
            "zadnej",
        ],
    ),
    (
        Lang::De,
        &[
            "ich", "nicht", "habe", "der", "die", "das", "und", "ist", "kein", "keine", "konnte",
            "gefunden", "nichts", "ein", "eine", "den", "mit", "es",
        ],
    ),
];

/// The language a model's sentence is plainly written in, by its small words; `None` when
/// it is too short or mixed to tell. A small model often explains itself in English whatever
/// the person spoke, and half a reply in another language is no answer.
fn written_in(text: &str) -> Option<Lang> {
    let folded = crate::text::fold(text);
    let words: Vec<&str> = folded.split_whitespace().collect();
    let mut counts: Vec<(usize, Lang)> = OWN_WORDS
        .iter()
        .map(|(lang, own)| (words.iter().filter(|w| own.contains(w)).count(), *lang))
        .collect();
    counts.sort_by_key(|count| std::cmp::Reverse(count.0));
    let ((best, lang), (second, _)) = (counts[0], counts[1]);
    (best >= 2 && best > second * 2).then_some(lang)
}

/// An action whose words point at nothing HomeClaw may use: what was not found, in the
/// person's own words (quoted, so no grammatical case has to agree), or why the device they
/// named is kept from HomeClaw.
pub fn nothing_found(unmatched: &Unmatched, lang: Lang) -> String {
    match unmatched {
        Unmatched::Hidden { reason, name } => {
            nothing_done("", lang, Some(&(*reason, name.clone())))
        }
        Unmatched::Nothing { words } => match lang {
            Lang::En => format!(
                "I found nothing in Home Assistant that \"{words}\" could mean, so I did not \
                 change anything."
            ),
            Lang::Pl => format!(
                "Nie znalazłem w Home Assistant niczego, co pasuje do „{words}”, więc niczego \
                 nie zmieniłem."
            ),
            Lang::De => format!(
                "Ich habe in Home Assistant nichts gefunden, was „{words}“ sein könnte, und \
                 nichts geändert."
            ),
        },
    }
}

fn hidden_words(reason: Hidden, name: &str, lang: Lang) -> String {
    match (reason, lang) {
        (Hidden::NotExposed, Lang::En) => format!(
            "{name} is not exposed to Assist in Home Assistant \
             (Settings > Voice assistants > Expose)."
        ),
        (Hidden::NotExposed, Lang::Pl) => format!(
            "{name} nie jest udostępnione dla Assist w Home Assistant \
             (Ustawienia > Asystenci głosowi > Udostępnij)."
        ),
        (Hidden::NotExposed, Lang::De) => format!(
            "{name} ist in Home Assistant nicht für Assist freigegeben \
             (Einstellungen > Sprachassistenten > Freigeben)."
        ),
        (Hidden::Filtered, Lang::En) => {
            format!("{name} is excluded by HomeClaw's exposure settings.")
        }
        (Hidden::Filtered, Lang::Pl) => {
            format!("{name} jest wykluczone w ustawieniach udostępniania HomeClaw.")
        }
        (Hidden::Filtered, Lang::De) => {
            format!("{name} ist in den Freigabe-Einstellungen von HomeClaw ausgeschlossen.")
        }
    }
}

/// The question that ends a run holding a high-risk action, as a sentence in the person's
/// language: what would happen to which device, and how to approve it. `names` are the
/// targets' names.
/// `by_voice`: a "yes" in this conversation approves it (`approval.confirm_in_conversation`).
pub fn approval_question(
    pending: &PendingAction,
    names: &[String],
    lang: Lang,
    by_voice: bool,
) -> String {
    let what = names.join(", ");
    let id = &pending.id;
    let (en, pl, de) = match (pending.call.domain.as_str(), pending.call.service.as_str()) {
        ("lock", "unlock") => ("Unlocking", "Odblokowanie", "Entsperren von"),
        ("lock", "open") | ("cover", "open_cover") | ("valve", "open_valve") => {
            ("Opening", "Otwarcie", "Öffnen von")
        }
        ("alarm_control_panel", "alarm_disarm") => ("Disarming", "Rozbrojenie", "Entschärfen von"),
        _ => ("Running", "Wykonanie", "Ausführen von"),
    };
    let call = format!("{}.{}", pending.call.domain, pending.call.service);
    let lead = match lang {
        Lang::En => {
            format!("{en} {what} needs your approval ({call} is a high-risk action).")
        }
        Lang::Pl => {
            format!("{pl}: {what} wymaga Twojej zgody ({call} to działanie wysokiego ryzyka).")
        }
        Lang::De => {
            format!("{de} {what} braucht deine Freigabe ({call} ist eine Aktion mit hohem Risiko).")
        }
    };
    let how = match (lang, by_voice) {
        (Lang::En, true) => format!("Say yes to approve it, or use approval id {id}."),
        (Lang::En, false) => format!("Approve it with approval id {id}."),
        (Lang::Pl, true) => {
            format!("Powiedz „tak”, aby zatwierdzić, albo użyj identyfikatora {id}.")
        }
        (Lang::Pl, false) => format!("Zatwierdź identyfikatorem {id}."),
        (Lang::De, true) => format!("Sag ja, um sie freizugeben, oder nutze die Freigabe-ID {id}."),
        (Lang::De, false) => format!("Gib sie mit der Freigabe-ID {id} frei."),
    };
    format!("{lead} {how}")
}

/// What the person is told when they answer a held action in conversation and it does not
/// run (yet): declined, a PIN missing or wrong, or a session where approving needs a PIN.
pub fn answered(pending: &PendingAction, answer: Answered, lang: Lang) -> String {
    let what = describe_call(pending);
    let id = &pending.id;
    match (answer, lang) {
        (Answered::Declined, Lang::En) => format!("OK, I did not run {what}. Nothing was changed."),
        (Answered::Declined, Lang::Pl) => {
            format!("Dobrze, nie wykonałem {what}. Niczego nie zmieniłem.")
        }
        (Answered::Declined, Lang::De) => {
            format!("In Ordnung, {what} wurde nicht ausgeführt. Nichts wurde geändert.")
        }
        (Answered::PinMissing, Lang::En) => {
            format!("Say the PIN with your yes to approve {what}.")
        }
        (Answered::PinMissing, Lang::Pl) => {
            format!("Powiedz PIN razem z „tak”, aby zatwierdzić {what}.")
        }
        (Answered::PinMissing, Lang::De) => {
            format!("Sag die PIN mit deinem Ja, um {what} freizugeben.")
        }
        (Answered::WrongPin { left: 0 }, Lang::En) => {
            format!("Wrong PIN too many times: {what} is cancelled. Nothing was changed.")
        }
        (Answered::WrongPin { left: 0 }, Lang::Pl) => {
            format!("Zbyt wiele błędnych PIN-ów: {what} anulowano. Niczego nie zmieniłem.")
        }
        (Answered::WrongPin { left: 0 }, Lang::De) => {
            format!("Zu oft eine falsche PIN: {what} ist abgebrochen. Nichts wurde geändert.")
        }
        (Answered::WrongPin { left }, Lang::En) => format!(
            "That PIN is not right; {what} still waits ({left} attempts left). Nothing was changed."
        ),
        (Answered::WrongPin { left }, Lang::Pl) => format!(
            "Błędny PIN; {what} nadal czeka (pozostało prób: {left}). Niczego nie zmieniłem."
        ),
        (Answered::WrongPin { left }, Lang::De) => format!(
            "Die PIN stimmt nicht; {what} wartet weiter (noch {left} Versuche). Nichts wurde geändert."
        ),
        (Answered::PinRequiredHere, Lang::En) => format!(
            "Approving by voice here needs a PIN (agent.approval.pin), because every satellite \
             shares this conversation. {what} still waits: approve it with approval id {id}."
        ),
        (Answered::PinRequiredHere, Lang::Pl) => format!(
            "Zatwierdzanie głosem wymaga tu PIN-u (agent.approval.pin), bo wszystkie satelity \
             dzielą tę rozmowę. {what} nadal czeka: zatwierdź je identyfikatorem {id}."
        ),
        (Answered::PinRequiredHere, Lang::De) => format!(
            "Eine Freigabe per Sprache braucht hier eine PIN (agent.approval.pin), weil alle \
             Satelliten dieses Gespräch teilen. {what} wartet weiter: gib es mit der ID {id} frei."
        ),
    }
}

/// How an answer in conversation left a held action that did not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answered {
    Declined,
    PinMissing,
    WrongPin { left: u32 },
    PinRequiredHere,
}

/// After an approved action ran: done only when Home Assistant shows the expected state.
pub fn approved(report: &ActionReport) -> String {
    if report.verified {
        format!("Done: {}.", report.describe())
    } else {
        format!(
            "Home Assistant accepted {}, but the expected state was not observed ({:?}).",
            report.describe(),
            report.observed_state
        )
    }
}

/// A guard stop becomes a question for the user instead of a dead end.
pub fn stuck(reason: &str) -> String {
    format!(
        "I got stuck on this request ({reason}). Could you tell me more precisely what you want, \
         for example the exact device or room?"
    )
}

pub fn describe_call(pending: &PendingAction) -> String {
    format!(
        "{}.{} on {}",
        pending.call.domain,
        pending.call.service,
        pending.targets.join(", ")
    )
}

/// What a service did, as the person would say it: (English, Polish, German).
fn done_words(service: &str) -> (&'static str, &'static str, &'static str) {
    match service {
        "turn_on" => ("Turned on", "Włączono", "Eingeschaltet"),
        "turn_off" => ("Turned off", "Wyłączono", "Ausgeschaltet"),
        "toggle" => ("Toggled", "Przełączono", "Umgeschaltet"),
        "open_cover" | "open_valve" => ("Opened", "Otwarto", "Geöffnet"),
        "close_cover" | "close_valve" => ("Closed", "Zamknięto", "Geschlossen"),
        "lock" => ("Locked", "Zablokowano", "Verriegelt"),
        "unlock" => ("Unlocked", "Odblokowano", "Entriegelt"),
        "start" => ("Started", "Uruchomiono", "Gestartet"),
        "return_to_base" => (
            "Sent back to its dock",
            "Odesłano do stacji",
            "Zur Station geschickt",
        ),
        "pause" | "media_pause" => ("Paused", "Wstrzymano", "Pausiert"),
        "media_play" => ("Resumed", "Wznowiono", "Fortgesetzt"),
        "media_stop" => ("Stopped", "Zatrzymano", "Gestoppt"),
        "media_next_track" => (
            "Skipped to the next track on",
            "Następny utwór na",
            "Nächster Titel auf",
        ),
        "volume_mute" => ("Muted", "Wyciszono", "Stummgeschaltet"),
        _ => ("Done", "Zrobione", "Erledigt"),
    }
}

/// The value a call sets, as the person would say it ("50%", "21°", "heat mode"), if it sets
/// one.
fn setting_of(call: &FastCall, lang: Lang) -> Option<String> {
    let data = &call.data;
    let percent = ["brightness_pct", "position", "percentage"]
        .iter()
        .find_map(|k| data.get(k).and_then(serde_json::Value::as_u64))
        .map(|n| n.to_string())
        .or_else(|| {
            data.get("volume_level")
                .and_then(serde_json::Value::as_f64)
                .map(|v| format!("{}", (v * 100.0).round()))
        });
    if let Some(n) = percent {
        return Some(format!("{n}%"));
    }
    if let Some(t) = data.get("temperature").and_then(serde_json::Value::as_f64) {
        return Some(format!("{t}°"));
    }
    if let Some(css) = data.get("color_name").and_then(serde_json::Value::as_str) {
        const COLOURS: [(&str, &str, &str); 8] = [
            ("red", "czerwony", "rot"),
            ("blue", "niebieski", "blau"),
            ("green", "zielony", "grün"),
            ("yellow", "żółty", "gelb"),
            ("orange", "pomarańczowy", "orange"),
            ("purple", "fioletowy", "lila"),
            ("pink", "różowy", "rosa"),
            ("white", "biały", "weiß"),
        ];
        let (en, pl, de) = COLOURS
            .iter()
            .find(|(en, ..)| *en == css)
            .copied()
            .unwrap_or((css, css, css));
        return Some(lang.pick(en, pl, de).to_owned());
    }
    let mode = data.get("hvac_mode").and_then(serde_json::Value::as_str)?;
    let (en, pl, de) = match mode {
        "heat" => ("heating", "grzanie", "Heizen"),
        "cool" => ("cooling", "chłodzenie", "Kühlen"),
        "dry" => ("drying", "osuszanie", "Entfeuchten"),
        "auto" => ("auto", "tryb automatyczny", "Automatik"),
        other => (other, other, other),
    };
    Some(lang.pick(en, pl, de).to_owned())
}

/// The reply for the actions a run made, each said from what Home Assistant showed afterwards.
pub fn from_actions(
    actions: &[ActionReport],
    name: impl Fn(&str) -> Option<String>,
    lang: Lang,
) -> String {
    let calls: Vec<FastCall> = actions
        .iter()
        .map(|a| FastCall {
            domain: a.domain.clone(),
            service: a.service.clone(),
            entity_ids: a.entity_ids.clone(),
            data: a.data.clone().unwrap_or_else(|| serde_json::json!({})),
        })
        .collect();
    from_verification(&calls, actions, name, lang)
}

/// The reply to a command the fast path carried out, written from what Home Assistant showed
/// afterwards, in the person's language. `name` gives an entity's friendly name.
pub fn from_verification(
    calls: &[FastCall],
    actions: &[ActionReport],
    name: impl Fn(&str) -> Option<String>,
    lang: Lang,
) -> String {
    let mut out = Vec::new();
    for (call, action) in calls.iter().zip(actions) {
        let names: Vec<String> = action
            .entity_ids
            .iter()
            .map(|id| name(id).unwrap_or_else(|| id.clone()))
            .collect();
        let list = names.join(", ");
        let dry = !action.observed_state.is_empty()
            && action
                .observed_state
                .values()
                .all(|s| s == super::execute::DRY_RUN_STATE);
        if dry {
            let call = format!("{}.{}", action.domain, action.service);
            out.push(match lang {
                Lang::En => format!("Dry run: I would call {call} on {list}; nothing was changed."),
                Lang::Pl => format!("Próba: wywołałbym {call} dla {list}; niczego nie zmieniono."),
                Lang::De => format!(
                    "Probelauf: ich würde {call} für {list} aufrufen; nichts wurde geändert."
                ),
            });
            continue;
        }
        if !action.verified {
            let seen: Vec<String> = action
                .observed_state
                .iter()
                .map(|(id, state)| format!("{}: {state}", name(id).unwrap_or_else(|| id.clone())))
                .collect();
            let seen = seen.join(", ");
            out.push(match lang {
                Lang::En => format!(
                    "Home Assistant accepted the request for {list}, but I could not confirm \
                     it took effect ({seen})."
                ),
                Lang::Pl => format!(
                    "Home Assistant przyjął polecenie dla {list}, ale nie mogę potwierdzić, \
                     że zadziałało ({seen})."
                ),
                Lang::De => format!(
                    "Home Assistant hat den Befehl für {list} angenommen, aber ich kann nicht \
                     bestätigen, dass er gewirkt hat ({seen})."
                ),
            });
            continue;
        }
        let (en, pl, de) = done_words(&call.service);
        if let Some(item) = call.data.get("item").and_then(serde_json::Value::as_str) {
            out.push(match lang {
                Lang::En => format!("Added \"{item}\" to {list}."),
                Lang::Pl => format!("Dodano „{item}” do {list}."),
                Lang::De => format!("„{item}“ zu {list} hinzugefügt."),
            });
            continue;
        }
        out.push(match (setting_of(call, lang), lang) {
            (Some(n), Lang::En) => format!("Set {list} to {n}."),
            (Some(n), Lang::Pl) => format!("Ustawiono {list} na {n}."),
            (Some(n), Lang::De) => format!("{list} auf {n} eingestellt."),
            (None, Lang::En) => format!("{en} {list}."),
            (None, Lang::Pl) => format!("{pl}: {list}."),
            (None, Lang::De) => format!("{de}: {list}."),
        });
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;

    fn call() -> FastCall {
        FastCall {
            domain: "light".into(),
            service: "turn_on".into(),
            entity_ids: vec!["light.bed_light".into()],
            data: json!({}),
        }
    }

    fn report(verified: bool, seen: &str) -> ActionReport {
        ActionReport {
            domain: "light".into(),
            service: "turn_on".into(),
            entity_ids: vec!["light.bed_light".into()],
            verified,
            observed_state: BTreeMap::from([("light.bed_light".into(), seen.into())]),
            data: None,
        }
    }

    fn say(action: ActionReport, lang: Lang) -> String {
        let name = |id: &str| (id == "light.bed_light").then(|| "Bed Light".to_owned());
        from_verification(&[call()], &[action], name, lang)
    }

    #[test]
    fn a_reply_from_verification_says_what_home_assistant_showed() {
        assert_eq!(say(report(true, "on"), Lang::En), "Turned on Bed Light.");
        assert!(say(report(false, "off"), Lang::De).contains("Bed Light: off"));
    }

    #[test]
    fn a_colour_set_is_said_as_the_colour() {
        let mut red = call();
        red.data = json!({"color_name": "red"});
        let name = |id: &str| (id == "light.bed_light").then(|| "Bed Light".to_owned());
        for (lang, said) in [
            (Lang::En, "Set Bed Light to red."),
            (Lang::Pl, "Ustawiono Bed Light na czerwony."),
            (Lang::De, "Bed Light auf rot eingestellt."),
        ] {
            let reply = from_verification(&[red.clone()], &[report(true, "on")], name, lang);
            assert_eq!(reply, said);
        }
    }

    #[test]
    fn a_dry_run_never_says_home_assistant_accepted_anything() {
        let reply = say(
            report(false, super::super::execute::DRY_RUN_STATE),
            Lang::En,
        );
        assert_eq!(
            reply,
            "Dry run: I would call light.turn_on on Bed Light; nothing was changed."
        );
        assert!(!super::super::honesty::claims_action(&reply));
    }

    #[test]
    fn a_model_explanation_in_another_language_is_left_out() {
        let english = "I could not find the light named Kitchen Lights. Nothing was changed.";
        assert_eq!(
            nothing_done(english, Lang::Pl, None),
            "Niczego nie zmieniłem."
        );
        assert_eq!(
            nothing_done(english, Lang::En, None),
            format!("I did not change anything. {english}")
        );
        let german = "Ich konnte den Kaffee nicht finden.";
        assert_eq!(
            nothing_done(german, Lang::De, None),
            format!("Ich habe nichts geändert. {german}")
        );
        assert_eq!(
            nothing_done(german, Lang::En, None),
            "I did not change anything."
        );
        let polish = "Nie mogłem znaleźć lampy w sypialni.";
        assert_eq!(
            nothing_done(polish, Lang::Pl, None),
            format!("Niczego nie zmieniłem. {polish}")
        );
    }

    #[test]
    fn a_short_or_mixed_text_has_no_language_of_its_own() {
        assert_eq!(written_in("Which one?"), None);
        assert_eq!(written_in("Kitchen Lights"), None);
        assert_eq!(written_in("ich habe the light"), None);
        assert_eq!(
            written_in("Czy chodzi ci o lampę, czy o wentylator?"),
            Some(Lang::Pl)
        );
    }
}
