//! Caller-chosen text normalization. The rules decide what "near-duplicate" means, so they are
//! spelled out exactly.
//!
//! [`normalize`] maps each char of the input, left to right, in one pass:
//!
//! 1. **Case** (if [`Normalize::lowercase`]): the char becomes `char::to_lowercase` (Unicode
//!    simple and special lowercase mappings, without context: Greek final sigma is not produced;
//!    `İ` becomes `i̇`, two chars). Each resulting char then goes through steps 2 to 4.
//! 2. **Digits** (chars with `char::is_numeric`): kept, removed ([`Digits::Remove`]) or replaced
//!    by `0` ([`Digits::Zero`]; so "1999" and "2004" compare equal, one `0` per digit).
//! 3. **Punctuation**, meaning every char that is neither alphanumeric (`char::is_alphanumeric`)
//!    nor whitespace (`char::is_whitespace`), so symbols, non-alphabetic combining marks and
//!    control chars too: kept, removed ([`Punctuation::Remove`]: "don't" becomes "dont") or turned
//!    into a space ([`Punctuation::Space`]: "don't" becomes "don t").
//! 4. **Whitespace** (if [`Normalize::collapse_whitespace`]): every run of whitespace chars
//!    (including spaces produced by step 3 and those left adjacent by removals) becomes one ASCII
//!    space, and whitespace at the start and end is dropped. Otherwise whitespace is kept as is.
//!
//! Normalization is idempotent: normalizing a normalized text with the same options gives it back
//! unchanged (a property test checks it on arbitrary Unicode). It does not keep a map back to the
//! original offsets: compute spans on the original text and normalize the pieces you fingerprint,
//! or fingerprint the normalized text and give up exact spans.

/// What to do with numeric chars.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Digits {
    /// Keep them (the default).
    #[default]
    Keep,
    /// Drop them.
    Remove,
    /// Replace each by ASCII `0`.
    Zero,
}

/// What to do with punctuation and symbols (chars neither alphanumeric nor whitespace).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Punctuation {
    /// Keep them (the default).
    #[default]
    Keep,
    /// Drop them.
    Remove,
    /// Replace each by a space (which whitespace collapsing then merges).
    Space,
}

/// Normalization options. [`Normalize::new`] lowercases and collapses whitespace and keeps
/// digits and punctuation; the setters change one rule each.
///
/// ```
/// use textreuse_shingle::{Digits, Normalize, Punctuation, normalize};
///
/// let mut opts = Normalize::new();
/// opts.punctuation(Punctuation::Remove).digits(Digits::Zero);
/// let mut out = String::new();
/// normalize("  In 1999, Zürich's\tpopulation  grew. ", &opts, &mut out);
/// assert_eq!(out, "in 0000 zürichs population grew");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Normalize {
    lowercase: bool,
    collapse_whitespace: bool,
    digits: Digits,
    punctuation: Punctuation,
}

impl Default for Normalize {
    fn default() -> Self {
        Normalize::new()
    }
}

impl Normalize {
    /// Lowercase, collapse whitespace, keep digits and punctuation.
    pub fn new() -> Self {
        Normalize {
            lowercase: true,
            collapse_whitespace: true,
            digits: Digits::Keep,
            punctuation: Punctuation::Keep,
        }
    }

    /// Options that change nothing (every rule off); a starting point for picking rules.
    pub fn identity() -> Self {
        Normalize {
            lowercase: false,
            collapse_whitespace: false,
            digits: Digits::Keep,
            punctuation: Punctuation::Keep,
        }
    }

    /// Whether to lowercase (Unicode, context-free).
    pub fn lowercase(&mut self, yes: bool) -> &mut Self {
        self.lowercase = yes;
        self
    }

    /// Whether to collapse whitespace runs into one space and trim the ends.
    pub fn collapse_whitespace(&mut self, yes: bool) -> &mut Self {
        self.collapse_whitespace = yes;
        self
    }

    /// What to do with numeric chars.
    pub fn digits(&mut self, digits: Digits) -> &mut Self {
        self.digits = digits;
        self
    }

    /// What to do with punctuation and symbols.
    pub fn punctuation(&mut self, punctuation: Punctuation) -> &mut Self {
        self.punctuation = punctuation;
        self
    }
}

/// Writes the normalization of `text` under `opts` into `out` (cleared first; reuse it across
/// calls to avoid allocation). See the [module docs](self) for the exact rules.
pub fn normalize(text: &str, opts: &Normalize, out: &mut String) {
    // Most bytes of a sentence come out as they went in, up to ASCII case: letters, kept digits
    // and punctuation, and with whitespace collapsing a single `' '` after a byte that is not
    // one. Such *plain* runs of ASCII are found with one table lookup and one well-predicted
    // branch per byte, appended in one copy and lowercased in place; only the chars between
    // runs (other whitespace, removed or replaced chars, non-ASCII chars) go through the rules
    // one at a time (`push_char`). With collapsing, a space is written as soon as whitespace
    // follows output that does not end in one, and a trailing space is removed at the end: the
    // same text as holding a pending space until the next non-space char.
    out.clear();
    out.reserve(text.len());
    let bytes = text.as_bytes();
    let collapse = opts.collapse_whitespace;
    let mut plain = [false; 5];
    plain[Class::Letter as usize] = true;
    plain[Class::Digit as usize] = opts.digits == Digits::Keep;
    plain[Class::Punct as usize] = opts.punctuation == Punctuation::Keep;
    // With collapsing only `' '` after a byte that is not one is plain, checked in the loop.
    plain[Class::Space as usize] = !collapse;
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let mut prev_space = true; // a run never starts with a collapsible space
        while let Some(&b) = bytes.get(i) {
            let space = b == b' ';
            // Non-short-circuit `|` and `&`: no second branch on whether the byte is a space.
            if !(plain[BYTE_CLASSES[b as usize] as usize] | (collapse & space & !prev_space)) {
                break;
            }
            prev_space = space;
            i += 1;
        }
        if i > start {
            // Runs hold ASCII bytes only, so `start` and `i` are char boundaries.
            let from = out.len();
            out.push_str(&text[start..i]);
            if opts.lowercase {
                out[from..].make_ascii_lowercase();
            }
        }
        // The char that ended the run, if any.
        let Some(c) = text[i..].chars().next() else {
            break;
        };
        i += c.len_utf8();
        if opts.lowercase && !c.is_ascii() {
            for l in c.to_lowercase() {
                push_char(l, opts, out);
            }
        } else {
            // An ASCII char ending a run is not a letter, so lowercasing cannot change it.
            push_char(c, opts, out);
        }
    }
    if collapse && out.ends_with(' ') {
        out.pop();
    }
}

/// Rules 2 to 4 for one (already lowercased) char; whitespace collapsing writes its space
/// right away (see [`normalize`]).
fn push_char(c: char, opts: &Normalize, out: &mut String) {
    let c = if c.is_numeric() {
        match opts.digits {
            Digits::Keep => c,
            Digits::Remove => return,
            Digits::Zero => '0',
        }
    } else if c.is_alphanumeric() || c.is_whitespace() {
        c
    } else {
        match opts.punctuation {
            Punctuation::Keep => c,
            Punctuation::Remove => return,
            Punctuation::Space => ' ',
        }
    };
    if opts.collapse_whitespace && c.is_whitespace() {
        if !out.is_empty() && !out.ends_with(' ') {
            out.push(' ');
        }
    } else {
        out.push(c);
    }
}

/// Bytes by what the rules see in them; ASCII case does not change the class.
#[derive(Clone, Copy)]
enum Class {
    /// `a-z`, `A-Z`: alphanumeric.
    Letter = 0,
    /// `0-9`: numeric.
    Digit = 1,
    /// `\t`, `\n`, vertical tab, form feed, `\r`, space: `char::is_whitespace`.
    Space = 2,
    /// Other ASCII, control chars included: neither alphanumeric nor whitespace.
    Punct = 3,
    /// A byte of a non-ASCII char: never plain, the char goes through [`push_char`].
    NonAscii = 4,
}

const fn byte_classes() -> [Class; 256] {
    let mut classes = [Class::NonAscii; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        classes[b] = if c.is_ascii_alphabetic() {
            Class::Letter
        } else if c.is_ascii_digit() {
            Class::Digit
        } else if c == b' ' || (c >= 0x09 && c <= 0x0d) {
            Class::Space
        } else {
            Class::Punct
        };
        b += 1;
    }
    classes
}

static BYTE_CLASSES: [Class; 256] = byte_classes();

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(text: &str, opts: &Normalize) -> String {
        let mut out = String::new();
        normalize(text, opts, &mut out);
        out
    }

    /// The rules as first written, a char at a time with a pending space: the oracle for
    /// [`normalize`]'s runs and eager spaces.
    fn reference(text: &str, opts: &Normalize) -> String {
        let mut out = String::new();
        let mut pending_space = false;
        let chars = text.chars().flat_map(|c| {
            let lower = opts.lowercase.then(|| c.to_lowercase());
            lower
                .into_iter()
                .flatten()
                .chain((!opts.lowercase).then_some(c))
        });
        for c in chars {
            let c = if c.is_numeric() {
                match opts.digits {
                    Digits::Keep => c,
                    Digits::Remove => continue,
                    Digits::Zero => '0',
                }
            } else if c.is_alphanumeric() || c.is_whitespace() {
                c
            } else {
                match opts.punctuation {
                    Punctuation::Keep => c,
                    Punctuation::Remove => continue,
                    Punctuation::Space => ' ',
                }
            };
            if opts.collapse_whitespace {
                if c.is_whitespace() {
                    pending_space = !out.is_empty();
                    continue;
                }
                if pending_space {
                    out.push(' ');
                    pending_space = false;
                }
            }
            out.push(c);
        }
        out
    }

    /// Text mixing ASCII words, runs of spaces, other whitespace (ASCII and not), digits,
    /// punctuation, controls and non-ASCII letters with special lowercase mappings.
    fn mixed_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop_oneof![
            "[a-zA-Z]{1,6}",
            "[ ]{1,3}",
            "[\t\n\x0b\x0c\r]",
            "[0-9]{1,3}",
            "[.,;:'()\\-]",
            "[\x00-\x08\x7f]",
            "[\u{a0}\u{2003}\u{85}]",
            "[ÀÉÎÕÜßİΣΆǅ½²٣]",
            any::<char>().prop_map(String::from),
        ];
        proptest::collection::vec(piece, 0..24).prop_map(|v| v.concat())
    }

    /// `normalize` equals the reference on every option combination.
    #[test]
    fn runs_and_eager_spaces_equal_the_reference() {
        use proptest::prelude::*;
        let options = (any::<bool>(), any::<bool>(), 0usize..3, 0usize..3);
        proptest!(ProptestConfig::with_cases(2000), |(text in mixed_text(), (lower, collapse, digits, punct) in options)| {
            let mut opts = Normalize::identity();
            opts.lowercase(lower).collapse_whitespace(collapse);
            opts.digits([Digits::Keep, Digits::Remove, Digits::Zero][digits]);
            opts.punctuation([Punctuation::Keep, Punctuation::Remove, Punctuation::Space][punct]);
            prop_assert_eq!(norm(&text, &opts), reference(&text, &opts), "{:?} {:?}", text, opts);
        });
    }

    #[test]
    fn rules() {
        let d = Normalize::new();
        assert_eq!(norm("  The\u{a0}U.S.\n\nArmy ", &d), "the u.s. army");
        assert_eq!(norm("ΣΊΣΥΦΟΣ", &d), "σίσυφοσ");
        let mut p = Normalize::new();
        p.punctuation(Punctuation::Space);
        assert_eq!(norm("don't - stop", &p), "don t stop");
        let mut r = Normalize::identity();
        r.digits(Digits::Remove);
        assert_eq!(norm("A 1 b", &r), "A  b");
        assert_eq!(norm("A 1 b", &Normalize::identity()), "A 1 b");
    }
}
