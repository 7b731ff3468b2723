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
    out.clear();
    out.reserve(text.len());
    let mut state = State {
        opts,
        pending_space: false,
    };
    if opts.lowercase {
        for c in text.chars() {
            if c.is_ascii() {
                state.push(c.to_ascii_lowercase(), out);
            } else {
                for l in c.to_lowercase() {
                    state.push(l, out);
                }
            }
        }
    } else {
        for c in text.chars() {
            state.push(c, out);
        }
    }
}

struct State<'o> {
    opts: &'o Normalize,
    pending_space: bool,
}

impl State<'_> {
    #[inline]
    fn push(&mut self, c: char, out: &mut String) {
        let c = if c.is_numeric() {
            match self.opts.digits {
                Digits::Keep => c,
                Digits::Remove => return,
                Digits::Zero => '0',
            }
        } else if c.is_alphanumeric() || c.is_whitespace() {
            c
        } else {
            match self.opts.punctuation {
                Punctuation::Keep => c,
                Punctuation::Remove => return,
                Punctuation::Space => ' ',
            }
        };
        if self.opts.collapse_whitespace {
            if c.is_whitespace() {
                self.pending_space = !out.is_empty();
                return;
            }
            if self.pending_space {
                out.push(' ');
                self.pending_space = false;
            }
        }
        out.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(text: &str, opts: &Normalize) -> String {
        let mut out = String::new();
        normalize(text, opts, &mut out);
        out
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
