//! What the person is told, built from made-up reports and approvals: every text in every
//! lexicon's language, never a claim the report does not back.

use std::collections::BTreeMap;

use serde_json::json;

use super::*;
use crate::agent::plan::PlannedCall;

fn call() -> PlannedCall {
    PlannedCall {
        domain: "light".into(),
        service: "turn_on".into(),
        entity_ids: vec!["light.bed_light".into()],
        data: json!({}),
    }
}

/// The report of `call` run: what the reply is written from.
fn ran(call: &PlannedCall, report: ActionReport) -> ActionReport {
    ActionReport {
        call: call.clone(),
        ..report
    }
}

fn report(verified: bool, seen: &str) -> ActionReport {
    ActionReport {
        call: PlannedCall {
            data: serde_json::Value::Null,
            ..call()
        },
        verified,
        observed_state: BTreeMap::from([("light.bed_light".into(), seen.into())]),
        dry_run: false,
    }
}

const VOICE: Ways = Ways {
    by_voice: true,
    phone: false,
};
const PANEL: Ways = Ways {
    by_voice: false,
    phone: false,
};
const PHONE: Ways = Ways {
    by_voice: false,
    phone: true,
};

fn say(action: ActionReport, lang: Lang) -> String {
    let name = |id: &str| (id == "light.bed_light").then(|| "Bed Light".to_owned());
    from_actions(&[ran(&call(), action)], name, lang)
}

#[test]
fn a_run_that_stops_short_says_so_in_the_persons_language() {
    assert_eq!(
        fallback_summary(&[], |_| None, Lang::Pl),
        "Nie udało mi się dokończyć tej prośby i niczego nie zmieniłem."
    );
    let ran = [report(true, "on"), report(false, "off")];
    let name = |id: &str| (id == "light.bed_light").then(|| "Bed Light".to_owned());
    let said = fallback_summary(&ran, name, Lang::De);
    assert!(said.contains("Eingeschaltet: Bed Light."), "{said}");
    assert!(said.contains("(Bed Light: aus)"), "{said}");
    assert!(!said.contains("light."), "{said}");
    assert!(stuck(Lang::En).starts_with("I got stuck"));
}

fn held(domain: &str, service: &str, id: &str, name: &str, lang: Lang) -> PendingAction {
    PendingAction {
        id: "appr_0123456789abcdef".into(),
        call: crate::ha::services::CheckedCall {
            domain: domain.into(),
            service: service.into(),
            target: crate::ha::Target::entities([id]),
            data: None,
        },
        targets: vec![id.into()],
        names: vec![name.into()],
        session_id: None,
        reason: format!("{domain}.{service} is a high-risk action"),
        lang,
        tag: None,
    }
}

fn unlocked(lang: Lang) -> String {
    let door = held("lock", "unlock", "lock.front_door", "Front Door", lang);
    let mut done = report(true, "unlocked");
    done.call.domain = "lock".into();
    done.call.service = "unlock".into();
    done.call.entity_ids = vec!["lock.front_door".into()];
    approved(&done, &door, lang)
}

/// A Dutch or Spanish household hears the approval question and the outcome in its own
/// language: Home Assistant's name for the action and its sentence for what was done.
#[test]
fn an_approval_in_a_language_without_a_lexicon_is_asked_and_reported_in_it() {
    let mut garage = held(
        "cover",
        "open_cover",
        "cover.garagedeur",
        "Garagedeur",
        Lang::En,
    );
    garage.tag = Some("nl".into());
    let question = approval_question(&garage, PANEL);
    assert!(question.starts_with("Garagedeur open? "), "{question}");
    let mut done = report(true, "open");
    done.call.domain = "cover".into();
    done.call.service = "open_cover".into();
    done.call.entity_ids = vec!["cover.garagedeur".into()];
    assert_eq!(approved(&done, &garage, Lang::En), "Geopend");
    done.verified = false;
    assert!(approved(&done, &garage, Lang::En).starts_with("Sorry"));
    garage.tag = Some("sv".into());
    // No sentence of ours in Swedish: the question falls back to the lexicon's.
    assert!(approval_question(&garage, PANEL).starts_with("Open Garagedeur?"));
}

#[test]
fn an_approval_is_asked_answered_and_reported_in_plain_words() {
    let door = held("lock", "unlock", "lock.front_door", "Front Door", Lang::En);
    assert_eq!(
        approval_question(&door, VOICE),
        "Unlock Front Door? It needs your approval — say yes, or press Approve in HomeClaw."
    );
    // A phone is named only where one is configured.
    assert_eq!(
        approval_question(&door, PANEL),
        "Unlock Front Door? It needs your approval — press Approve in HomeClaw."
    );
    assert_eq!(
        approval_question(&door, PHONE),
        "Unlock Front Door? It needs your approval — press Approve in HomeClaw or on your \
         phone."
    );
    assert_eq!(unlocked(Lang::En), "Unlocked Front Door.");
    assert_eq!(
        answered(&door, Answered::Declined, Lang::En),
        "OK, Front Door stays locked."
    );
    let gate = held("cover", "open_cover", "cover.gate", "Gate", Lang::De);
    assert_eq!(
        approval_question(&gate, VOICE),
        "Gate öffnen? Das braucht deine Freigabe — sag ja oder tippe in HomeClaw auf \
         „Freigeben“."
    );
    assert_eq!(
        answered(&gate, Answered::Declined, Lang::De),
        "In Ordnung, Gate bleibt geschlossen."
    );
    assert_eq!(unlocked(Lang::Pl), "Odblokowano: Front Door.");
    let script = held("script", "wipe", "script.wipe", "Wipe", Lang::Fr);
    assert_eq!(
        answered(&script, Answered::Declined, Lang::Fr),
        "D'accord, je ne vais pas lancer Wipe. Rien n'a été changé."
    );
    let (notice, title) = approval_notice(&door, false);
    assert_eq!(title, "HomeClaw: approval needed");
    assert!(notice.contains("unlock Front Door"), "{notice}");
    // Home Assistant's notification has no buttons: it says where they are.
    assert!(notice.contains("in HomeClaw's panel"), "{notice}");
    assert!(approval_notice(&door, true).0.ends_with("Approve or Deny."));
    // French says the action as an infinitive after "doit" (no "de" to elide before a vowel).
    let garage = held("cover", "open_cover", "cover.garage", "Garage", Lang::Fr);
    let (notice, _) = approval_notice(&garage, false);
    assert!(
        notice.starts_with("HomeClaw doit ouvrir Garage."),
        "{notice}"
    );
    let gone = ExecuteError::Approval(ApprovalError::Expired(door.id.clone()));
    assert_eq!(
        not_run(&gone, Lang::En),
        "That approval expired; nothing was run."
    );
    for lang in [Lang::En, Lang::Pl, Lang::De, Lang::Fr] {
        let door = held("lock", "unlock", "lock.front_door", "Front Door", lang);
        let texts = [
            approval_question(&door, VOICE),
            approval_question(&door, PANEL),
            approval_question(&door, PHONE),
            approval_notice(&door, false).0,
            approval_notice(&door, true).0,
            unlocked(lang),
            answered(&door, Answered::Declined, lang),
            answered(&door, Answered::PinMissing, lang),
            answered(&door, Answered::WrongPin { left: 2 }, lang),
            answered(&door, Answered::WrongPin { left: 0 }, lang),
            answered(&door, Answered::PinRequiredHere { phone: false }, lang),
            answered(&door, Answered::PinRequiredHere { phone: true }, lang),
        ];
        for text in texts {
            assert!(text.contains("Front Door"), "{lang:?}: {text}");
            assert!(
                !text.contains("appr_") && !text.contains("lock.") && !text.contains("unlock."),
                "{lang:?}: {text}"
            );
        }
    }
}

#[test]
fn a_colour_without_a_word_in_the_language_is_not_said_in_english() {
    let name = |id: &str| (id == "light.bed_light").then(|| "Bed Light".to_owned());
    let mut coloured = call();
    coloured.data = json!({"color_name": "turquoise"});
    let said = |lang| from_actions(&[ran(&coloured, report(true, "on"))], name, lang);
    assert_eq!(said(Lang::De), "Eingeschaltet: Bed Light.");
    assert_eq!(said(Lang::En), "Set Bed Light to turquoise.");
    coloured.data = json!({"color_name": "red"});
    let said = |lang| from_actions(&[ran(&coloured, report(true, "on"))], name, lang);
    assert_eq!(said(Lang::Pl), "Ustawiono Bed Light na czerwony.");
    // A mode without a word of ours is said as words, not as Home Assistant's key.
    let mut mode = call();
    mode.domain = "climate".into();
    mode.service = "set_hvac_mode".into();
    mode.data = json!({"hvac_mode": "fan_only"});
    let said = from_actions(&[ran(&mode, report(true, "on"))], name, Lang::En);
    assert_eq!(said, "Set Bed Light to fan only.");
    // An entity Home Assistant gives no name is read as words.
    let said = from_actions(&[ran(&call(), report(true, "on"))], |_| None, Lang::En);
    assert_eq!(said, "Turned on Bed light.");
}

#[test]
fn a_reply_from_verification_says_what_home_assistant_showed() {
    assert_eq!(say(report(true, "on"), Lang::En), "Turned on Bed Light.");
    // What Home Assistant showed, in the person's words for it.
    assert!(say(report(false, "off"), Lang::De).contains("Bed Light: aus"));
    let pl = say(report(false, "off"), Lang::Pl);
    assert!(pl.contains("Bed Light: wyłączon"), "{pl}");
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
        let reply = from_actions(&[ran(&red, report(true, "on"))], name, lang);
        assert_eq!(reply, said);
    }
}

#[test]
fn a_dry_run_never_says_home_assistant_accepted_anything() {
    let reply = say(ActionReport::held_back(call()), Lang::En);
    assert_eq!(
        reply,
        "Only a test: I would turn on Bed Light; nothing was changed."
    );
    assert!(!crate::agent::say::honesty::claims_action(&reply));
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
