//! Words as the classifier compares them: case, punctuation and typographic variants folded
//! away, so that "U.S." and "US", "Fischer–Tropsch" and "Fischer-Tropsch", "1,234" and "1234",
//! "Sixteen" and "16", "fifteenth" and "15th", "don’t" and "don't", "Lévi" and "Levi" are the
//! same word, and "June 26, 1918" the same date as "26 June 1918".
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// One word of a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    /// The compared form: lowercase, accents, apostrophes and abbreviation dots removed,
    /// thousands separators removed, number words as digits.
    pub norm: String,
    /// Byte range in the text, as written (an abbreviation spans its dots).
    pub start: usize,
    pub end: usize,
    /// Starts with a capital letter and is not the first word of a sentence (a name).
    pub capital: bool,
    /// Starts with a capital letter, first in its sentence or not.
    pub upper: bool,
    /// Holds a digit (after number words became digits).
    pub number: bool,
}

/// Number words that are written as digits just as often ("16 months" / "Sixteen months").
const NUMBER_WORDS: [(&str, &str); 29] = [
    ("zero", "0"),
    ("one", "1"),
    ("two", "2"),
    ("three", "3"),
    ("four", "4"),
    ("five", "5"),
    ("six", "6"),
    ("seven", "7"),
    ("eight", "8"),
    ("nine", "9"),
    ("ten", "10"),
    ("eleven", "11"),
    ("twelve", "12"),
    ("thirteen", "13"),
    ("fourteen", "14"),
    ("fifteen", "15"),
    ("sixteen", "16"),
    ("seventeen", "17"),
    ("eighteen", "18"),
    ("nineteen", "19"),
    ("twenty", "20"),
    ("thirty", "30"),
    ("forty", "40"),
    ("fifty", "50"),
    ("sixty", "60"),
    ("seventy", "70"),
    ("eighty", "80"),
    ("ninety", "90"),
    ("hundred", "100"),
];

/// Ordinal words written as digits just as often ("fifteenth century" / "15th century").
const ORDINAL_WORDS: [(&str, &str); 20] = [
    ("first", "1st"),
    ("second", "2nd"),
    ("third", "3rd"),
    ("fourth", "4th"),
    ("fifth", "5th"),
    ("sixth", "6th"),
    ("seventh", "7th"),
    ("eighth", "8th"),
    ("ninth", "9th"),
    ("tenth", "10th"),
    ("eleventh", "11th"),
    ("twelfth", "12th"),
    ("thirteenth", "13th"),
    ("fourteenth", "14th"),
    ("fifteenth", "15th"),
    ("sixteenth", "16th"),
    ("seventeenth", "17th"),
    ("eighteenth", "18th"),
    ("nineteenth", "19th"),
    ("twentieth", "20th"),
];

/// The digits of a number or ordinal word (`NUMBER_WORDS`, `ORDINAL_WORDS`).
fn number_word(w: &str) -> Option<&'static str> {
    // Every such word has 3 to 11 letters, the first one of these.
    if !(3..=11).contains(&w.len())
        || !matches!(
            w.as_bytes()[0],
            b'e' | b'f' | b'h' | b'n' | b'o' | b's' | b't' | b'z'
        )
    {
        return None;
    }
    NUMBER_WORDS
        .iter()
        .chain(&ORDINAL_WORDS)
        .find(|(word, _)| *word == w)
        .map(|&(_, digit)| digit)
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// Appends `c` lowercased and without accents (its canonical decomposition without the
/// combining marks: "é" is "e", "ṯ" is "t").
fn push_folded(c: char, out: &mut String) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
        return;
    }
    for d in c.nfd().filter(|&d| !is_combining_mark(d)) {
        out.extend(d.to_lowercase());
    }
}

fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '’' | 'ʼ' | '‘')
}

thread_local! {
    /// The strings of recycled words ([`recycle`]), reused by [`tokenize`]: a cluster's texts
    /// are tokenized by the thousand, and a string per word would be an allocation per word.
    static SPARE: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// At most this many strings wait in a thread's spare pool.
const MAX_SPARE: usize = 1 << 14;

/// Gives the strings of `tokens` back to this thread's pool for [`tokenize`] to reuse.
pub(crate) fn recycle(tokens: impl IntoIterator<Item = Token>) {
    SPARE.with_borrow_mut(|spare| {
        for t in tokens {
            if spare.len() >= MAX_SPARE {
                break;
            }
            spare.push(t.norm);
        }
    });
}

fn spare_string() -> String {
    let mut s = SPARE.with_borrow_mut(Vec::pop).unwrap_or_default();
    s.clear();
    s
}

/// The words of `text`, in order, into `out` (cleared first; its strings are reused).
pub(crate) fn tokenize(text: &str, out: &mut Vec<Token>) {
    recycle(out.drain(..));
    let mut chars = text.char_indices().peekable();
    // Whether the next word starts a sentence: the first word, or one after . ! ? : or a
    // line break.
    let mut sentence_start = true;
    let mut gap = String::new();
    while let Some(&(start, c)) = chars.peek() {
        if !c.is_alphanumeric() {
            gap.push(c);
            chars.next();
            continue;
        }
        // A word: alphanumerics, with apostrophes between letters and, between digits, the
        // separators of "1,234" and "40.4".
        let mut end = start;
        let mut norm = spare_string();
        let mut digits = false;
        while let Some(&(i, c)) = chars.peek() {
            if c.is_alphanumeric() {
                digits |= c.is_numeric();
                push_folded(c, &mut norm);
                end = i + c.len_utf8();
                chars.next();
            } else if is_apostrophe(c) || c == ',' || c == '.' {
                // Part of the word only when a letter (apostrophe) or digit (separator) follows.
                let mut ahead = chars.clone();
                ahead.next();
                let next = ahead.peek().map(|&(_, n)| n);
                let prev_digit = norm.chars().last().is_some_and(|p| p.is_ascii_digit());
                let joins = match next {
                    Some(n) if is_apostrophe(c) => n.is_alphabetic() && !norm.is_empty(),
                    Some(n) => prev_digit && n.is_ascii_digit(),
                    None => false,
                };
                if !joins {
                    break;
                }
                if c == '.' {
                    norm.push('.');
                }
                chars.next();
            } else {
                break;
            }
        }
        // "40.0" is "40"; "1,234" is "1234" (the comma was dropped above).
        if digits && norm.contains('.') {
            while norm.ends_with('0') && norm.contains('.') {
                norm.pop();
            }
            if norm.ends_with('.') {
                norm.pop();
            }
        }
        let first = text[start..].chars().next().unwrap_or(' ');
        let upper = first.is_uppercase();
        let capital = upper && !sentence_start;
        if let Some(digit) = number_word(&norm) {
            norm.clear();
            norm.push_str(digit);
            digits = true;
        }
        // "1993–98" is "1993–1998": the end of a range of years written with two digits.
        if let Some(prev) = out.last() {
            let years = |w: &str, n: usize| w.len() == n && w.bytes().all(|c| c.is_ascii_digit());
            let between = text.get(prev.end..start).unwrap_or("").trim();
            if years(&norm, 2) && years(&prev.norm, 4) && matches!(between, "-" | "–" | "—") {
                let century = &prev.norm[..2];
                norm.insert_str(0, century);
            }
        }
        // "U.S." and "US": a single letter right after a single letter and a dot joins it.
        let joined = match out.last_mut() {
            Some(prev)
                if gap == "."
                    && norm.chars().count() == 1
                    && !digits
                    && prev.norm.chars().all(char::is_alphabetic)
                    && text[prev.start..prev.end]
                        .split('.')
                        .all(|part| part.chars().count() == 1) =>
            {
                prev.norm.push_str(&norm);
                prev.end = end;
                recycle([Token {
                    norm: std::mem::take(&mut norm),
                    start,
                    end,
                    capital: false,
                    upper: false,
                    number: false,
                }]);
                true
            }
            _ => false,
        };
        if !joined {
            out.push(Token {
                norm,
                start,
                end,
                capital,
                upper,
                number: digits,
            });
        }
        // A trailing dot of an abbreviation ("U.S.") belongs to it, not to the sentence.
        gap.clear();
        while let Some(&(_, c)) = chars.peek() {
            if c.is_alphanumeric() {
                break;
            }
            gap.push(c);
            chars.next();
        }
        let abbreviation = gap.starts_with('.')
            && out
                .last()
                .is_some_and(|t| text[t.start..t.end].contains('.') || t.norm.chars().count() == 1);
        sentence_start = (gap.contains(['.', '!', '?', ':', '\n']) && !abbreviation)
            || gap.contains(['"', '“', '(']) && gap.contains(['.', '!', '?', ':']);
        // Only a separator of exactly "." joins abbreviation letters.
        if gap != "." {
            gap.clear();
        }
    }
}

/// The words' compared forms, concatenated: texts with equal keys are identical up to case,
/// spacing, punctuation, hyphenation ("film-maker" / "filmmaker", "time codes" / "timecodes")
/// and typographic variants; a month before its day ("June 26, 1918") is put after it ("26
/// June 1918").
pub(crate) fn key(tokens: &[Token]) -> String {
    let mut out = String::new();
    let day = |t: &Token| t.norm.len() <= 2 && t.norm.bytes().all(|b| b.is_ascii_digit());
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        match tokens.get(i + 1) {
            Some(next) if MONTHS.contains(&t.norm.as_str()) && day(next) => {
                out.push_str(&next.norm);
                out.push_str(&t.norm);
                i += 2;
            }
            _ => {
                out.push_str(&t.norm);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norms(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        tokenize(text, &mut out);
        out.into_iter().map(|t| t.norm).collect()
    }

    fn k(text: &str) -> String {
        let mut out = Vec::new();
        tokenize(text, &mut out);
        key(&out)
    }

    #[test]
    fn typographic_variants_fold() {
        assert_eq!(
            k("The Fischer-Tropsch process"),
            k("the Fischer–Tropsch process")
        );
        assert_eq!(k("in the U.S. army"), k("in the US army"));
        assert_eq!(k("1,234 people"), k("1234 people"));
        assert_eq!(k("Sixteen months later"), k("16 months later"));
        assert_eq!(k("He said “don’t”."), k("He said \"don't\""));
        assert_eq!(k("Paris, France, is"), k("Paris France is"));
        assert_eq!(k("40.0 percent"), k("40 percent"));
        assert_eq!(
            k("from 1993–95 and 1990-1991"),
            k("from 1993-1995 and 1990–91")
        );
        assert_ne!(k("from 1993–95"), k("from 1993–96"));
        assert_ne!(k("in 1993, 95 people"), k("in 1993, 1995 people"));
        assert_eq!(k("the fifteenth century"), k("the 15th century"));
        assert_eq!(
            k("Claude Lévi-Strauss and the Qur’ān"),
            k("Claude Levi-Strauss and the Qur'an")
        );
        assert_eq!(
            k("film-maker with time codes"),
            k("filmmaker with timecodes")
        );
        assert_eq!(
            k("On June 26, 1918, it fell."),
            k("On 26 June 1918 it fell.")
        );
        assert_ne!(k("On June 26, 1918"), k("On June 27, 1918"));
        assert_ne!(k("40.4 percent"), k("40 percent"));
        assert_ne!(k("7 million"), k("4.5 million"));
        assert_eq!(
            norms("It was 4.5 million."),
            ["it", "was", "4.5", "million"]
        );
        assert_eq!(norms("e.g. the U.S.A."), ["eg", "the", "usa"]);
    }

    #[test]
    fn capitals_after_the_first_word_are_names() {
        let mut out = Vec::new();
        tokenize(
            "The town. Then Tarkovsky hired U.S. staff (Mosfilm).",
            &mut out,
        );
        let caps: Vec<&str> = out
            .iter()
            .filter(|t| t.capital)
            .map(|t| t.norm.as_str())
            .collect();
        assert_eq!(caps, ["tarkovsky", "us", "mosfilm"]);
        assert!(
            out.iter()
                .all(|t| t.number == t.norm.chars().any(|c| c.is_numeric()))
        );
    }

    #[test]
    fn byte_ranges_cover_the_written_word() {
        let text = "Über 1,234 Menschen, d.h. viele.";
        let mut out = Vec::new();
        tokenize(text, &mut out);
        let written: Vec<&str> = out.iter().map(|t| &text[t.start..t.end]).collect();
        assert_eq!(written, ["Über", "1,234", "Menschen", "d.h", "viele"]);
    }
}
