//! Text folding and tokenising shared by entity search, tool selection and the honesty checks:
//! one definition of what a "word" is in every language HomeClaw speaks, so that a name the
//! search finds is also a word the other parts recognise.

/// Lowercase, strip the diacritics of Latin letters, keep letters and digits, one space between
/// words. An apostrophe joins ("Trader Joe's" is "trader joes", as people say and type it),
/// except after a lone letter or "qu", where it marks a word cut short ("l'entrée" is "l
/// entree", "I'd" is "i d").
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        let mapped: &str = match c {
            'ą' | 'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => "a",
            'ć' | 'ç' => "c",
            'ę' | 'è' | 'é' | 'ê' | 'ë' => "e",
            'ì' | 'í' | 'î' | 'ï' => "i",
            'ł' => "l",
            'ń' | 'ñ' => "n",
            'ó' | 'ö' | 'ò' | 'ô' | 'õ' => "o",
            'ś' => "s",
            'ù' | 'ú' | 'û' | 'ü' => "u",
            'ý' | 'ÿ' => "y",
            'ź' | 'ż' => "z",
            'ß' => "ss",
            'œ' => "oe",
            'æ' => "ae",
            _ => "",
        };
        if !mapped.is_empty() {
            out.push_str(mapped);
        } else if c == '\'' || c == '\u{2019}' {
            let word = out.rsplit(' ').next().unwrap_or_default();
            if word.len() == 1 || word == "qu" {
                out.push(' ');
            }
        } else if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with(' ') && !out.is_empty() {
            out.push(' ');
        }
    }
    out.trim_end().to_owned()
}

/// How many times this thread split a command into words (test builds only): how the tests
/// check that a command is read once, not once per step.
#[cfg(test)]
pub(crate) mod splits {
    use std::cell::Cell;

    thread_local! {
        static COUNT: Cell<usize> = const { Cell::new(0) };
    }

    pub(crate) fn add() {
        COUNT.with(|c| c.set(c.get() + 1));
    }

    /// The count so far, which then starts again from zero.
    pub(crate) fn take() -> usize {
        COUNT.with(|c| c.replace(0))
    }
}

/// Folded words with every language's stopwords removed.
pub fn tokens(text: &str) -> Vec<String> {
    fold(text)
        .split(' ')
        .filter(|w| !w.is_empty() && !crate::lang::any_has(|l| l.stopwords, w))
        .map(str::to_owned)
        .collect()
}

// --- When two words are the same word -------------------------------------------------
// Every comparison of a person's word with a home's word goes through these: the search, the
// fast path and the composer agree on what "the same word" is.

/// How well one query word matches one name word: 1 exact, 0.8 same stem, 0 otherwise.
pub fn word_score(query: &str, word: &str) -> f64 {
    let (q, w) = (query.as_bytes(), word.as_bytes());
    // Fast exit: most pairs differ in the first byte (this runs for every entity per search).
    if q.first() != w.first() {
        return 0.0;
    }
    if q == w {
        return 1.0;
    }
    // Byte counts: folded words are almost all ASCII, and the rule only needs proportions.
    let shared = q.iter().zip(w).take_while(|(a, b)| a == b).count();
    let longest = q.len().max(w.len());
    if shared >= 4 && shared * 5 >= longest * 3 {
        0.8
    } else {
        0.0
    }
}

/// A word with a plural "-s" taken off ("lights" is "light"; "bus" stays), for comparing
/// the model's words with names: stricter than [`word_score`], which would take "lighting"
/// for "light".
pub fn plural_stem(word: &str) -> &str {
    match word.strip_suffix('s') {
        Some(stem) if stem.len() >= 3 => stem,
        _ => word,
    }
}

/// The ways to cut a word in two (a German compound: "deckenleuchten" is "decken" +
/// "leuchten"), with at least `min_head` bytes before the cut and `min_tail` after, at
/// character boundaries, the shortest head first. Which cut is right (both halves known
/// words, the tail a kind) is the caller's to say.
pub fn compound_cuts(
    word: &str,
    min_head: usize,
    min_tail: usize,
) -> impl Iterator<Item = (&str, &str)> {
    let last = word.len().saturating_sub(min_tail);
    (min_head..=last)
        .filter(move |&i| word.is_char_boundary(i))
        .map(move |i| word.split_at(i))
}

/// A decimal comma as a point ("19,5" → "19.5"), so that a comma between digits is never read
/// as one between two requests ("ustaw termostat na 19,5 stopnia" is one request).
pub fn decimal_points(text: &str) -> std::borrow::Cow<'_, str> {
    let bytes = text.as_bytes();
    let between_digits = |i: usize| {
        i > 0 && bytes[i - 1].is_ascii_digit() && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)
    };
    if !(0..bytes.len()).any(|i| bytes[i] == b',' && between_digits(i)) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        out.push(if c == ',' && between_digits(i) {
            '.'
        } else {
            c
        });
    }
    std::borrow::Cow::Owned(out)
}

/// A reply whose sentences end once: a value read from the home that ends in a full stop,
/// put into a sentence that ends in one ("Note is Buy milk. now."), reads "… now." and not
/// "…..", and "?." or "!." keep their own mark. An ellipsis ("…" or "...") stays.
pub fn ends_once(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let run = chars[i..].iter().take_while(|&&d| d == '.').count();
        if c == '.' && run == 2 {
            out.push('.');
            i += 2;
            continue;
        }
        if c == '.' && run >= 3 {
            out.extend(&chars[i..i + run]);
            i += run;
            continue;
        }
        if matches!(c, '?' | '!' | '…')
            && chars.get(i + 1) == Some(&'.')
            && chars.get(i + 2) != Some(&'.')
        {
            out.push(c);
            i += 2;
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decimal_comma_is_a_point_and_a_list_comma_stays() {
        assert_eq!(decimal_points("na 19,5 stopnia"), "na 19.5 stopnia");
        assert_eq!(
            decimal_points("lights off, 21, then"),
            "lights off, 21, then"
        );
        assert_eq!(decimal_points("Łazienka 1,5"), "Łazienka 1.5");
        assert_eq!(decimal_points(""), "");
    }

    #[test]
    fn a_sentence_ends_once() {
        assert_eq!(ends_once("Note is Buy milk.."), "Note is Buy milk.");
        assert_eq!(ends_once("Is it on?. Yes."), "Is it on? Yes.");
        assert_eq!(ends_once("Wait... then go."), "Wait... then go.");
        assert_eq!(ends_once("Well…. ok"), "Well… ok");
        assert_eq!(ends_once("v1.2 set."), "v1.2 set.");
        assert_eq!(ends_once(""), "");
    }

    #[test]
    fn folding_strips_diacritics_and_punctuation() {
        assert_eq!(fold("Światło w KUCHNI!"), "swiatlo w kuchni");
        assert_eq!(fold("Küchen-Licht  (groß)"), "kuchen licht gross");
        assert_eq!(fold("Trader Joe’s"), fold("trader joes"));
        assert_eq!(fold("Joe's 'bar'"), "joes bar");
        assert_eq!(
            fold("Éteins l'éclairage d’entrée"),
            "eteins l eclairage d entree"
        );
        assert_eq!(
            fold("Qu'est-ce que c'est, aujourd'hui ?"),
            "qu est ce que c est aujourdhui"
        );
        assert_eq!(fold("I'd like it, don't"), "i d like it dont");
        assert_eq!(
            tokens("turn on the kitchen light"),
            vec!["turn", "kitchen", "light"]
        );
    }
}

#[cfg(test)]
mod same_word_tests {
    use super::*;

    #[test]
    fn plural_stems_and_compound_cuts() {
        assert_eq!(plural_stem("lights"), "light");
        assert_eq!(plural_stem("bus"), "bus");
        assert_eq!(plural_stem("lighting"), "lighting");
        let cuts: Vec<(&str, &str)> = compound_cuts("haustur", 3, 3).collect();
        assert_eq!(cuts, vec![("hau", "stur"), ("haus", "tur")]);
        // A tail of four at least: "küchenlicht" folded ends in "licht".
        assert!(compound_cuts("kuchenlicht", 3, 4).any(|(_, tail)| tail == "licht"));
        assert!(compound_cuts("ab", 3, 3).next().is_none());
        // Cuts fall on character boundaries only.
        assert!(
            compound_cuts("küchenlicht", 2, 2).all(|(h, t)| format!("{h}{t}") == "küchenlicht")
        );
    }
}
