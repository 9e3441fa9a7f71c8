//! The pieces of a command's text: what lies between spaces, or before a comma that ends a
//! request. The text is cut into pieces, and each piece folded into words, once per command
//! ([`read`]); a request of several ("turn on the kitchen light and the hall light") is a run
//! of the command's pieces, and the words a planner lends one request from another (a verb, a
//! kind, a German particle) are pieces too. So no request is ever read from its text again.

use std::ops::Range;

use crate::text::fold;

use super::value::decimal;

/// One piece of a command: where its text lies, which of the command's words it gave, and
/// whether a comma closed it ("the kitchen light, the hall light").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// The piece's bytes in the reading's text, without the comma after it.
    pub raw: Range<usize>,
    /// The folded words it gave, as positions in the reading's words.
    pub words: Range<usize>,
    pub comma: bool,
    /// A `%` was written in it: its last word is the value a percentage names.
    pub percent: bool,
}

/// A text read once: its folded words, the word a raw `%` followed, and its pieces.
pub struct Read {
    pub words: Vec<String>,
    pub percent_at: Option<usize>,
    pub pieces: Vec<Piece>,
}

/// Reads a text: every run of non-space characters is cut again at each comma that is not a
/// decimal one ("19,5" is a number), and each piece gives its words — a decimal number as one
/// word ("19.5"), a `°` as the word "degrees", anything else folded.
pub fn read(text: &str) -> Read {
    #[cfg(test)]
    crate::text::splits::add();
    let mut out = Read {
        words: Vec::new(),
        percent_at: None,
        pieces: Vec::new(),
    };
    for (start, token) in tokens(text) {
        let bytes = token.as_bytes();
        let decimal_comma = |i: usize| {
            i > 0
                && bytes[i - 1].is_ascii_digit()
                && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)
        };
        let mut from = 0;
        for (i, _) in token.match_indices(',').filter(|(i, _)| !decimal_comma(*i)) {
            push(&mut out, start + from..start + i, &token[from..i], true);
            from = i + 1;
        }
        if from < token.len() {
            push(
                &mut out,
                start + from..start + token.len(),
                &token[from..],
                false,
            );
        }
    }
    out
}

/// The runs of non-space characters of a text, with where each starts.
fn tokens(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split(char::is_whitespace)
        .filter(|t| !t.is_empty())
        .map(move |t| (t.as_ptr() as usize - text.as_ptr() as usize, t))
}

fn push(out: &mut Read, raw: Range<usize>, piece: &str, comma: bool) {
    let first = out.words.len();
    let percent = piece.contains('%');
    if let Some(number) = decimal(piece) {
        out.words.push(number);
    } else {
        out.words.extend(
            fold(piece)
                .split(' ')
                .filter(|w| !w.is_empty())
                .map(str::to_owned),
        );
    }
    if percent && !out.words.is_empty() {
        out.percent_at = Some(out.words.len() - 1);
    }
    if piece.contains('°') {
        out.words.push("degrees".to_owned());
    }
    out.pieces.push(Piece {
        raw,
        words: first..out.words.len(),
        comma,
        percent,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &str) -> Vec<(&str, bool)> {
        read(text)
            .pieces
            .into_iter()
            .map(|p| (&text[p.raw], p.comma))
            .collect()
    }

    #[test]
    fn a_comma_ends_a_piece_unless_it_is_a_decimal_one() {
        assert_eq!(
            pieces("ustaw termostat na 19,5 stopnia, kuchnia,salon"),
            [
                ("ustaw", false),
                ("termostat", false),
                ("na", false),
                ("19,5", false),
                ("stopnia", true),
                ("kuchnia", true),
                ("salon", false),
            ]
        );
        assert_eq!(
            pieces("light , fan"),
            [("light", false), ("", true), ("fan", false)]
        );
    }

    #[test]
    fn each_piece_names_the_words_it_gave() {
        let read = read("Mets l'eau à 19,5° et 50%");
        assert_eq!(
            read.words,
            ["mets", "l", "eau", "a", "19.5", "degrees", "et", "50"]
        );
        let words: Vec<_> = read.pieces.iter().map(|p| p.words.clone()).collect();
        assert_eq!(words, [0..1, 1..3, 3..4, 4..6, 6..7, 7..8]);
        assert_eq!(read.percent_at, Some(7));
    }
}
