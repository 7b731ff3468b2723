//! Linear-time sentence splitting for encyclopedic prose.
//!
//! The splitter is a single forward scan with bounded look-back (at most [`LOOK_BACK`] bytes, to
//! read the word before a full stop) and look-ahead (the whitespace and opening punctuation before
//! the next word, which the scan then skips). It never recurses and never backtracks, so its
//! running time is linear in the input whatever the input is.
//!
//! # Rules
//!
//! A candidate boundary is a run of terminators (`.` `!` `?` `…` `‽` and the full stops and
//! question marks of other scripts: `。` `！` `？` `．` `।` `॥` `؟` `۔` `։` `።` `။`), optionally
//! followed by closing quotes and brackets (`"` `'` `”` `’` `»` `)` `]` `}` `」` `』`). The sentence
//! ends after the whole run. The run is a boundary when:
//!
//! 1. it is at the end of the text; or
//! 2. its terminator is an ideographic one (`。` `！` `？` `．`), which needs no following space; or
//! 3. it is followed by whitespace and then by a "sentence start", judged from the next word
//!    (after skipping opening quotes and brackets):
//!    * a lowercase next word never starts a sentence (`e.g. the`, `"Why?" he asked`);
//!    * after `!`, `?` and other non-period terminators any other next word does;
//!    * after a single `.` (or `..`), the word before the period decides:
//!      - titles and fixed Latin abbreviations (`Dr.`, `Mr.`, `St.`, `Gen.`, `e.g.`, `i.e.`,
//!        `cf.`, `vs.`, ...) never end a sentence;
//!      - numbering abbreviations (`No.`, `p.`, `pp.`, `Vol.`, `Fig.`, `c.`, `ca.`, month names,
//!        and `b.`, `d.`, `fl.` for born, died and flourished) do not end a sentence before a
//!        number (`No. 5`, `c. 1100`, `Jan. 5`, `(b. 1818)`);
//!      - single capital initials (`Bruce E. Ivins`), dotted acronyms (`U.S.`, `Ph.D.`) and
//!        ambiguous abbreviations (`etc.`, `Inc.`, `Ltd.`, `Co.`, `Jr.`, `al.`) end a sentence
//!        only before a common sentence-opening word (`The`, `In`, `He`, `However`, ...);
//!      - any other word ends a sentence before an uppercase letter, a digit, or a non-letter;
//!    * after an ellipsis (`...` or `…`), the next word starts a sentence unless it is lowercase.
//!
//! A decimal or version number (`3.5`, `v1.2`) never splits, because no whitespace follows its
//! period. Independently of punctuation, a blank line (a line break, optional spaces, another line
//! break) always ends a sentence: paragraphs and headings never run together. Single line breaks
//! end a sentence only with [`SentenceSplitterBuilder::line_breaks`].
//!
//! Sentence spans exclude surrounding whitespace; what lies between two consecutive sentences, or
//! before the first and after the last, is whitespace only.
use core::iter::FusedIterator;
use core::ops::Range;

/// How many bytes before a full stop the splitter reads to classify the word there. Longer words
/// are not abbreviations.
pub const LOOK_BACK: usize = 24;

/// One sentence of a text: its byte span in the text and the text itself.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Sentence<'a> {
    /// Byte range of the sentence in the text given to the splitter. Starts and ends on character
    /// boundaries, never empty, never starts or ends with whitespace.
    pub span: Range<usize>,
    text: &'a str,
}

impl<'a> Sentence<'a> {
    /// The sentence at `span` of `text` (`span` must be on char boundaries).
    pub(crate) fn new(text: &'a str, span: Range<usize>) -> Self {
        Sentence {
            text: &text[span.clone()],
            span,
        }
    }

    /// The sentence's text (`&text[span]`).
    #[inline]
    pub fn as_str(&self) -> &'a str {
        self.text
    }

    /// The sentence's text; the same as [`Sentence::as_str`].
    #[inline]
    pub fn text(&self) -> &'a str {
        self.text
    }
}

/// Options of the sentence splitter; build one with [`SentenceSplitter::builder`].
#[derive(Clone, Debug, Default)]
pub struct SentenceSplitterBuilder {
    line_breaks: bool,
}

impl SentenceSplitterBuilder {
    /// Whether every line break ends a sentence (default `false`: only blank lines do, so
    /// hard-wrapped prose is joined). Turn it on for one-sentence-per-line or list-like input.
    pub fn line_breaks(&mut self, yes: bool) -> &mut Self {
        self.line_breaks = yes;
        self
    }

    /// Builds the splitter. There is no invalid combination of options today; the `Result` keeps
    /// room for options that can be invalid.
    pub fn build(&self) -> Result<SentenceSplitter, crate::Error> {
        Ok(SentenceSplitter {
            line_breaks: self.line_breaks,
        })
    }
}

/// A configured sentence splitter. [`SentenceSplitter::new`] gives the defaults that
/// [`sentences`] uses.
#[derive(Clone, Copy, Debug, Default)]
pub struct SentenceSplitter {
    line_breaks: bool,
}

impl SentenceSplitter {
    /// The default splitter (only blank lines among the line breaks end sentences).
    pub fn new() -> Self {
        SentenceSplitter::default()
    }

    /// A builder for a splitter with options.
    pub fn builder() -> SentenceSplitterBuilder {
        SentenceSplitterBuilder::default()
    }

    /// The sentences of `text`, in order.
    pub fn split<'a>(&self, text: &'a str) -> Sentences<'a> {
        Sentences {
            text,
            pos: 0,
            line_breaks: self.line_breaks,
        }
    }
}

/// The sentences of `text` with the default rules (see the [module docs](self)).
///
/// ```
/// use textreuse_shingle::sentences;
///
/// let text = "Dr. Bruce E. Ivins worked in the U.S. Army. It cost $3.5 million (e.g. in 2001). Why?";
/// let got: Vec<&str> = sentences(text).map(|s| s.as_str()).collect();
/// assert_eq!(got, [
///     "Dr. Bruce E. Ivins worked in the U.S. Army.",
///     "It cost $3.5 million (e.g. in 2001).",
///     "Why?",
/// ]);
/// ```
pub fn sentences(text: &str) -> Sentences<'_> {
    SentenceSplitter::new().split(text)
}

/// Iterator over the [`Sentence`]s of a text, made by [`sentences`] or [`SentenceSplitter::split`].
#[derive(Clone, Debug)]
pub struct Sentences<'a> {
    text: &'a str,
    pos: usize,
    line_breaks: bool,
}

/// Bytes that can start something the scanner must look at: ASCII terminators, line breaks, and
/// the lead bytes of the non-ASCII terminators.
static INTERESTING: [bool; 256] = {
    let mut t = [false; 256];
    t[b'.' as usize] = true;
    t[b'!' as usize] = true;
    t[b'?' as usize] = true;
    t[b'\n' as usize] = true;
    // Lead bytes: U+0589 (D6), U+061F (D8), U+06D4 (DB), U+0964/5 (E0), U+104B/U+1362 (E1),
    // U+2026/U+203D (E2), U+3002 (E3), U+FF01/U+FF0E/U+FF1F (EF).
    t[0xD6] = true;
    t[0xD8] = true;
    t[0xDB] = true;
    t[0xE0] = true;
    t[0xE1] = true;
    t[0xE2] = true;
    t[0xE3] = true;
    t[0xEF] = true;
    t
};

/// The index of the first byte at or after `i` that is `.`, `!`, `?`, a line feed or the lead
/// byte of a non-ASCII terminator, or `bytes.len()`. 32 bytes at a time with SSE2 (part of the
/// x86-64 baseline): one bit per byte that is one of the four ASCII bytes or is not ASCII; a block
/// without any is skipped whole, the set bits are checked against [`INTERESTING`].
#[cfg(target_arch = "x86_64")]
#[inline]
fn find_interesting(bytes: &[u8], mut i: usize) -> usize {
    while let Some(block) = bytes.get(i..i + 32) {
        let mut mask = candidates16(&block[..16]) | (candidates16(&block[16..]) << 16);
        while mask != 0 {
            let j = i + mask.trailing_zeros() as usize;
            if INTERESTING[bytes[j] as usize] {
                return j;
            }
            // A non-ASCII byte that cannot start a terminator.
            mask &= mask - 1;
        }
        i += 32;
    }
    while i < bytes.len() && !INTERESTING[bytes[i] as usize] {
        i += 1;
    }
    i
}

/// Bit `k` set when byte `k` of the 16 bytes of `block` is `.`, `!`, `?`, a line feed or >= 0x80.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn candidates16(block: &[u8]) -> u32 {
    use core::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    assert!(block.len() >= 16);
    // SAFETY: SSE2 is part of the x86-64 baseline, so these intrinsics exist on every x86-64
    // CPU; the unaligned load reads 16 bytes of `block`, which holds at least 16 (checked above,
    // and the check folds away at the call sites).
    unsafe {
        let v = _mm_loadu_si128(block.as_ptr().cast());
        let eq = |b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
        let hits = _mm_or_si128(
            _mm_or_si128(eq(b'.'), eq(b'!')),
            _mm_or_si128(eq(b'?'), eq(b'\n')),
        );
        // The sign bit of each byte: set by a match (0xFF) or by a non-ASCII byte of `v`.
        _mm_movemask_epi8(_mm_or_si128(hits, v)) as u32
    }
}

#[cfg(not(target_arch = "x86_64"))]
const ONES: u64 = 0x0101_0101_0101_0101;
#[cfg(not(target_arch = "x86_64"))]
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// High bit set in (at least) the lowest byte of `x` that is zero; exact for the lowest one.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// The index of the first byte at or after `i` that is `.`, `!`, `?`, a line feed or the lead
/// byte of a non-ASCII terminator, or `bytes.len()`. Eight bytes at a time (SWAR): a word with
/// none of the four ASCII bytes and no byte >= 0x80 is skipped whole.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn find_interesting(bytes: &[u8], mut i: usize) -> usize {
    while let Some(chunk) = bytes.get(i..i + 8) {
        let x = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let hits = zero_bytes(x ^ (ONES * b'.' as u64))
            | zero_bytes(x ^ (ONES * b'!' as u64))
            | zero_bytes(x ^ (ONES * b'?' as u64))
            | zero_bytes(x ^ (ONES * b'\n' as u64))
            | (x & HIGHS);
        if hits == 0 {
            i += 8;
            continue;
        }
        let j = i + (hits.trailing_zeros() / 8) as usize;
        if INTERESTING[bytes[j] as usize] {
            return j;
        }
        // A non-ASCII byte that cannot start a terminator: go on after it.
        i = j + 1;
    }
    while i < bytes.len() && !INTERESTING[bytes[i] as usize] {
        i += 1;
    }
    i
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Term {
    /// `.`
    Period,
    /// `...` or `…`
    Ellipsis,
    /// `!`, `?` and the other scripts' terminators that want a following space.
    Other,
    /// Ideographic terminators that need no following space.
    Ideographic,
}

#[inline]
fn terminator(c: char) -> Option<Term> {
    match c {
        '.' => Some(Term::Period),
        '…' => Some(Term::Ellipsis),
        '!' | '?' | '‽' | '।' | '॥' | '؟' | '۔' | '։' | '።' | '။' => Some(Term::Other),
        '。' | '！' | '？' | '．' => Some(Term::Ideographic),
        _ => None,
    }
}

#[inline]
fn closer(c: char) -> bool {
    matches!(
        c,
        '"' | '\'' | '”' | '’' | '»' | '›' | ')' | ']' | '}' | '」' | '』' | '）'
    )
}

#[inline]
fn opener(c: char) -> bool {
    matches!(
        c,
        '"' | '\''
            | '“'
            | '‘'
            | '«'
            | '‹'
            | '('
            | '['
            | '{'
            | '¿'
            | '¡'
            | '「'
            | '『'
            | '（'
            | '„'
    )
}

/// Decodes the char starting at byte `i` of `s` (`i` must be a char boundary below `s.len()`).
#[inline]
fn char_at(s: &str, i: usize) -> char {
    // SAFETY-free: `s[i..]` is valid because `i` is a boundary; a non-empty str has a first char.
    s[i..].chars().next().unwrap_or('\0')
}

/// Titles and fixed abbreviations that never end a sentence (lowercase, without the final dot).
pub const NEVER_END: &[&str] = &[
    "mr", "mrs", "ms", "messrs", "dr", "prof", "st", "mt", "ft", "gen", "col", "lt", "capt", "cpt",
    "sgt", "cmdr", "adm", "maj", "rev", "hon", "gov", "sen", "rep", "pres", "fr", "e.g", "i.e",
    "cf", "vs", "viz", "approx", "esp", "incl",
];

/// Whether `w` is in [`NEVER_END`] (a `match`, which compiles to a decision tree on length and
/// bytes instead of a linear scan).
#[inline]
fn is_never_end(w: &[u8]) -> bool {
    matches!(
        w,
        b"mr"
            | b"mrs"
            | b"ms"
            | b"messrs"
            | b"dr"
            | b"prof"
            | b"st"
            | b"mt"
            | b"ft"
            | b"gen"
            | b"col"
            | b"lt"
            | b"capt"
            | b"cpt"
            | b"sgt"
            | b"cmdr"
            | b"adm"
            | b"maj"
            | b"rev"
            | b"hon"
            | b"gov"
            | b"sen"
            | b"rep"
            | b"pres"
            | b"fr"
            | b"e.g"
            | b"i.e"
            | b"cf"
            | b"vs"
            | b"viz"
            | b"approx"
            | b"esp"
            | b"incl"
    )
}

/// Abbreviations that do not end a sentence before a number.
pub const BEFORE_NUMBER: &[&str] = &[
    "no", "nos", "p", "pp", "vol", "vols", "fig", "figs", "c", "ca", "art", "ch", "sec", "op",
    "nr", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
];

/// Whether `w` is in [`BEFORE_NUMBER`] (a `match`, which compiles to a decision tree on length and
/// bytes instead of a linear scan).
#[inline]
fn is_before_number(w: &[u8]) -> bool {
    matches!(
        w,
        b"no"
            | b"nos"
            | b"p"
            | b"pp"
            | b"vol"
            | b"vols"
            | b"fig"
            | b"figs"
            | b"c"
            | b"ca"
            | b"art"
            | b"ch"
            | b"sec"
            | b"op"
            | b"nr"
            | b"jan"
            | b"feb"
            | b"mar"
            | b"apr"
            | b"jun"
            | b"jul"
            | b"aug"
            | b"sep"
            | b"sept"
            | b"oct"
            | b"nov"
            | b"dec"
    )
}

/// Abbreviations written in lowercase only that do not end a sentence before a number: born,
/// died and flourished (`(b. 1818)`, `fl. 990`). In capitals they are initials (`William B.
/// Greene`).
pub const LOWERCASE_BEFORE_NUMBER: &[&str] = &["b", "d", "fl"];

/// Whether `w`, as written, is in [`LOWERCASE_BEFORE_NUMBER`].
#[inline]
fn is_lowercase_before_number(w: &[u8]) -> bool {
    matches!(w, b"b" | b"d" | b"fl")
}

/// Abbreviations that often end sentences: split only before a common sentence opener.
pub const AMBIGUOUS: &[&str] = &[
    "etc", "inc", "ltd", "co", "corp", "jr", "sr", "bros", "al", "est", "dept", "univ", "assn",
];

/// Whether `w` is in [`AMBIGUOUS`] (a `match`, which compiles to a decision tree on length and
/// bytes instead of a linear scan).
#[inline]
fn is_ambiguous(w: &[u8]) -> bool {
    matches!(
        w,
        b"etc"
            | b"inc"
            | b"ltd"
            | b"co"
            | b"corp"
            | b"jr"
            | b"sr"
            | b"bros"
            | b"al"
            | b"est"
            | b"dept"
            | b"univ"
            | b"assn"
    )
}

/// Common capitalized sentence openers of English encyclopedic text.
pub const OPENERS: &[&str] = &[
    "The",
    "In",
    "He",
    "She",
    "It",
    "This",
    "They",
    "A",
    "An",
    "However",
    "His",
    "Her",
    "After",
    "As",
    "On",
    "At",
    "By",
    "For",
    "From",
    "When",
    "While",
    "During",
    "Since",
    "But",
    "And",
    "There",
    "These",
    "Its",
    "We",
    "I",
    "Their",
    "That",
    "Although",
    "Following",
    "Other",
    "Some",
    "Many",
    "Most",
    "One",
    "Two",
    "Both",
    "Between",
    "Before",
    "Later",
    "Today",
    "Also",
    "Then",
    "Thus",
    "Such",
    "Each",
    "All",
    "Several",
    "Despite",
    "According",
    "Under",
    "With",
    "Because",
    "If",
    "Of",
    "To",
    "Those",
    "Our",
    "You",
    "My",
    "Not",
    "Nevertheless",
    "Moreover",
    "Furthermore",
    "Meanwhile",
    "Instead",
    "Unlike",
    "Like",
    "About",
    "Among",
    "Around",
];

/// Whether `w` is in [`OPENERS`] (a `match`, which compiles to a decision tree on length and
/// bytes instead of a linear scan).
#[inline]
fn is_opener(w: &[u8]) -> bool {
    matches!(
        w,
        b"The"
            | b"In"
            | b"He"
            | b"She"
            | b"It"
            | b"This"
            | b"They"
            | b"A"
            | b"An"
            | b"However"
            | b"His"
            | b"Her"
            | b"After"
            | b"As"
            | b"On"
            | b"At"
            | b"By"
            | b"For"
            | b"From"
            | b"When"
            | b"While"
            | b"During"
            | b"Since"
            | b"But"
            | b"And"
            | b"There"
            | b"These"
            | b"Its"
            | b"We"
            | b"I"
            | b"Their"
            | b"That"
            | b"Although"
            | b"Following"
            | b"Other"
            | b"Some"
            | b"Many"
            | b"Most"
            | b"One"
            | b"Two"
            | b"Both"
            | b"Between"
            | b"Before"
            | b"Later"
            | b"Today"
            | b"Also"
            | b"Then"
            | b"Thus"
            | b"Such"
            | b"Each"
            | b"All"
            | b"Several"
            | b"Despite"
            | b"According"
            | b"Under"
            | b"With"
            | b"Because"
            | b"If"
            | b"Of"
            | b"To"
            | b"Those"
            | b"Our"
            | b"You"
            | b"My"
            | b"Not"
            | b"Nevertheless"
            | b"Moreover"
            | b"Furthermore"
            | b"Meanwhile"
            | b"Instead"
            | b"Unlike"
            | b"Like"
            | b"About"
            | b"Among"
            | b"Around"
    )
}

/// Lowercases ASCII `word` into `buf` and returns it, or `None` when too long or not ASCII.
fn ascii_lower<'b>(word: &str, buf: &'b mut [u8; LOOK_BACK]) -> Option<&'b [u8]> {
    let bytes = word.as_bytes();
    if bytes.len() > LOOK_BACK || !word.is_ascii() {
        return None;
    }
    for (d, s) in buf.iter_mut().zip(bytes) {
        *d = s.to_ascii_lowercase();
    }
    Some(&buf[..bytes.len()])
}

/// Bytes of a word for [`classify_word`]: ASCII letters and digits, `.`, and every byte of a
/// non-ASCII char.
static WORD_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'.' || c >= 0x80;
        b += 1;
    }
    t
};

/// Once this many bytes before the period hold no `.`, the word is plain: no listed abbreviation
/// is longer than 6 bytes, a dotted acronym's parts have at most 3 letters, and a non-ASCII
/// initial has at most 4 bytes.
const PLAIN_TAIL: usize = 7;

#[derive(Clone, Copy, PartialEq, Eq)]
enum WordClass {
    NeverEnd,
    BeforeNumber,
    Weak,
    Plain,
}

/// Classifies the word that ends right before the period at byte `dot`.
fn classify_word(text: &str, dot: usize) -> WordClass {
    let bytes = text.as_bytes();
    let lo = dot.saturating_sub(LOOK_BACK + 1);
    // Walk back over the word: letters, digits and inner periods, at most LOOK_BACK bytes.
    let mut i = dot;
    let mut seen_dot = false;
    while i > lo {
        let b = bytes[i - 1];
        if !WORD_BYTE[b as usize] {
            break;
        }
        seen_dot |= b == b'.';
        i -= 1;
        if !seen_dot && dot - i >= PLAIN_TAIL {
            return WordClass::Plain;
        }
    }
    if i == lo && lo > 0 {
        // The word is longer than the look-back window: not an abbreviation.
        return WordClass::Plain;
    }
    // `i` may sit inside a multi-byte char if we stopped at `lo`; move forward to a boundary.
    while i < dot && !text.is_char_boundary(i) {
        i += 1;
    }
    let word = &text[i..dot];
    if word.is_empty() {
        return WordClass::Plain;
    }
    let mut buf = [0u8; LOOK_BACK];
    let Some(lower) = ascii_lower(word, &mut buf) else {
        // Non-ASCII words: a single uppercase letter is an initial.
        let mut cs = word.chars();
        return match (cs.next(), cs.next()) {
            (Some(c), None) if c.is_uppercase() => WordClass::Weak,
            _ => WordClass::Plain,
        };
    };
    if is_never_end(lower) {
        return WordClass::NeverEnd;
    }
    if is_before_number(lower) || is_lowercase_before_number(word.as_bytes()) {
        return WordClass::BeforeNumber;
    }
    if is_ambiguous(lower) {
        return WordClass::Weak;
    }
    let wb = word.as_bytes();
    if wb.len() == 1 && wb[0].is_ascii_uppercase() {
        return WordClass::Weak; // an initial
    }
    // Dotted acronyms: letters separated by single dots ("U.S", "Ph.D", "a.m").
    if wb.contains(&b'.')
        && wb[0] != b'.'
        && word.split('.').all(|part| {
            !part.is_empty() && part.len() <= 3 && part.bytes().all(|b| b.is_ascii_alphabetic())
        })
    {
        return WordClass::Weak;
    }
    WordClass::Plain
}

/// Whether the word starting at byte `i` is one of the common sentence openers.
fn is_opener_word(text: &str, i: usize) -> bool {
    let rest = &text.as_bytes()[i..];
    let end = rest
        .iter()
        .take(16)
        .position(|b| !b.is_ascii_alphabetic())
        .unwrap_or(rest.len().min(16));
    if end == rest.len().min(16) && rest.len() > 16 && rest[16].is_ascii_alphabetic() {
        return false;
    }
    is_opener(&rest[..end])
}

impl<'a> Sentences<'a> {
    /// The text being split.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// Makes a sentence of `start..end`, trimming trailing whitespace. `None` when it is empty.
    fn make(&self, start: usize, end: usize) -> Option<Sentence<'a>> {
        let s = self.text[start..end].trim_end();
        if s.is_empty() {
            None
        } else {
            Some(Sentence {
                span: start..start + s.len(),
                text: s,
            })
        }
    }

    /// Skips whitespace from `i`; returns the next non-whitespace byte index and whether a line
    /// break that ends a sentence (a blank line, or any line break with `line_breaks`) was crossed.
    fn skip_space(&self, mut i: usize) -> (usize, bool) {
        let text = self.text;
        let bytes = text.as_bytes();
        let mut newlines = 0u32;
        while i < bytes.len() {
            let b = bytes[i];
            if b < 0x80 {
                if b == b'\n' {
                    newlines += 1;
                } else if !b.is_ascii_whitespace() && b != 0x0b {
                    break;
                }
                i += 1;
            } else {
                let c = char_at(text, i);
                if !c.is_whitespace() {
                    break;
                }
                i += c.len_utf8();
            }
        }
        let limit = if self.line_breaks { 1 } else { 2 };
        (i, newlines >= limit)
    }

    /// Decides whether the terminator run `..end` whose first terminator is `term` ends a
    /// sentence; `dot` is the byte index of the first terminator. Returns the index where the
    /// next sentence starts if it does.
    fn boundary_after(&self, term: Term, dot: usize, run_dots: usize, end: usize) -> Option<usize> {
        let text = self.text;
        if end >= text.len() {
            return Some(end);
        }
        if term == Term::Ideographic {
            return Some(end);
        }
        let c = char_at(text, end);
        if !c.is_whitespace() {
            return None;
        }
        let (next, hard) = self.skip_space(end);
        if hard || next >= text.len() {
            return Some(next);
        }
        // Skip opening punctuation to reach the first char of the next word.
        let mut k = next;
        let mut steps = 0;
        while k < text.len() && steps < 4 {
            let c = char_at(text, k);
            if opener(c) {
                k += c.len_utf8();
                steps += 1;
            } else {
                break;
            }
        }
        if k >= text.len() {
            return Some(next);
        }
        let first = char_at(text, k);
        if first.is_lowercase() {
            return None;
        }
        let term = if term == Term::Period && run_dots >= 3 {
            Term::Ellipsis
        } else {
            term
        };
        if term != Term::Period {
            return Some(next);
        }
        match classify_word(text, dot) {
            WordClass::NeverEnd => None,
            WordClass::BeforeNumber if first.is_ascii_digit() => None,
            WordClass::Weak => is_opener_word(text, k).then_some(next),
            _ => Some(next),
        }
    }
}

impl<'a> Iterator for Sentences<'a> {
    type Item = Sentence<'a>;

    fn next(&mut self) -> Option<Sentence<'a>> {
        let text = self.text;
        let bytes = text.as_bytes();
        loop {
            let (start, _) = self.skip_space(self.pos);
            if start >= bytes.len() {
                self.pos = bytes.len();
                return None;
            }
            let mut i = start;
            let found = loop {
                i = find_interesting(bytes, i);
                if i >= bytes.len() {
                    break None;
                }
                if bytes[i] == b'\n' {
                    let (next, hard) = self.skip_space(i);
                    if hard || next >= bytes.len() {
                        break Some((i, next));
                    }
                    i = next;
                    continue;
                }
                if !text.is_char_boundary(i) {
                    i += 1;
                    continue;
                }
                let c = char_at(text, i);
                let Some(term) = terminator(c) else {
                    i += c.len_utf8();
                    continue;
                };
                // Consume the run of terminators and closers.
                let dot = i;
                let mut end = i + c.len_utf8();
                let mut run_dots = usize::from(c == '.');
                while end < bytes.len() {
                    let d = char_at(text, end);
                    if d == '.' {
                        run_dots += 1;
                    } else if terminator(d).is_none() && !closer(d) {
                        break;
                    }
                    end += d.len_utf8();
                }
                if let Some(next) = self.boundary_after(term, dot, run_dots, end) {
                    break Some((end, next));
                }
                i = end;
            };
            let (end, next) = found.unwrap_or((bytes.len(), bytes.len()));
            self.pos = next;
            if let Some(s) = self.make(start, end) {
                return Some(s);
            }
        }
    }
}

impl FusedIterator for Sentences<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<&str> {
        sentences(text).map(|s| s.as_str()).collect()
    }

    #[test]
    fn abbreviations_and_initials() {
        assert_eq!(
            split("Dr. Martin Luther King, Jr.. On March 30, 1981, it was postponed."),
            [
                "Dr. Martin Luther King, Jr..",
                "On March 30, 1981, it was postponed."
            ]
        );
        assert_eq!(
            split("Lysander Spooner and William B. Greene had been members. They left."),
            [
                "Lysander Spooner and William B. Greene had been members.",
                "They left."
            ]
        );
        assert_eq!(
            split("It moved to the U.S. The U.S. Congress met."),
            ["It moved to the U.S.", "The U.S. Congress met."]
        );
        assert_eq!(
            split("Remington No. 2 (1878) was first. From c. 600 to c. 1100 it was unknown."),
            [
                "Remington No. 2 (1878) was first.",
                "From c. 600 to c. 1100 it was unknown."
            ]
        );
        assert_eq!(
            split("Technology (e.g. Within it) is. St. Imier met."),
            ["Technology (e.g. Within it) is.", "St. Imier met."]
        );
    }

    #[test]
    fn numbers_quotes_parens_ellipses() {
        assert_eq!(
            split("Version v1.2 costs 3.5 dollars. Next one."),
            ["Version v1.2 costs 3.5 dollars.", "Next one."]
        );
        assert_eq!(
            split("He wrote, \"A thief is put in jail.\" Diogenes agreed."),
            ["He wrote, \"A thief is put in jail.\"", "Diogenes agreed."]
        );
        assert_eq!(
            split("It was acquired in 2007.)  The document is old."),
            ["It was acquired in 2007.)", "The document is old."]
        );
        assert_eq!(
            split("Jesus Christ and ... the first society. Wait… Then it grew."),
            [
                "Jesus Christ and ... the first society.",
                "Wait…",
                "Then it grew."
            ]
        );
        assert_eq!(
            split("\"Why?\" he asked. Fine!"),
            ["\"Why?\" he asked.", "Fine!"]
        );
        // Born, died, flourished: the list entries of date pages stay whole.
        assert_eq!(
            split(
                "1902 – Wade Hampton III, American general (b. 1818) 1903 – Lionel Chevrier (d. 1987). Next."
            ),
            [
                "1902 – Wade Hampton III, American general (b. 1818) 1903 – Lionel Chevrier (d. 1987).",
                "Next."
            ]
        );
        assert_eq!(
            split("Aelfric (fl. 990) wrote it."),
            ["Aelfric (fl. 990) wrote it."]
        );
    }

    #[test]
    fn other_scripts_and_breaks() {
        assert_eq!(
            split("这是一句。这是第二句！"),
            ["这是一句。", "这是第二句！"]
        );
        assert_eq!(split("क्या है। यह है।"), ["क्या है।", "यह है।"]);
        assert_eq!(
            split("Heading\n\nBody text here"),
            ["Heading", "Body text here"]
        );
        assert_eq!(split("wrapped\nline"), ["wrapped\nline"]);
        let s = SentenceSplitter::builder()
            .line_breaks(true)
            .build()
            .unwrap();
        let got: Vec<_> = s.split("one\ntwo").map(|s| s.as_str()).collect();
        assert_eq!(got, ["one", "two"]);
        assert!(split("").is_empty());
        assert!(split(" \n\t ").is_empty());
    }

    #[test]
    fn word_lists_agree_with_matchers() {
        assert!(NEVER_END.iter().all(|w| is_never_end(w.as_bytes())));
        assert!(BEFORE_NUMBER.iter().all(|w| is_before_number(w.as_bytes())));
        assert!(
            LOWERCASE_BEFORE_NUMBER
                .iter()
                .all(|w| is_lowercase_before_number(w.as_bytes()))
        );
        assert!(!is_lowercase_before_number(b"B"));
        assert!(AMBIGUOUS.iter().all(|w| is_ambiguous(w.as_bytes())));
        assert!(OPENERS.iter().all(|w| is_opener(w.as_bytes())));
        assert!(
            !is_never_end(b"the")
                && !is_opener(b"the")
                && !is_ambiguous(b"")
                && !is_before_number(b"x")
        );
        // No listed abbreviation is long enough to be cut short by the early exit.
        assert!(
            NEVER_END
                .iter()
                .chain(BEFORE_NUMBER)
                .chain(LOWERCASE_BEFORE_NUMBER)
                .chain(AMBIGUOUS)
                .all(|w| w.len() < PLAIN_TAIL)
        );
    }

    #[test]
    fn find_interesting_matches_a_byte_scan() {
        let text = "Plain words, then a stop. Café… 这是。 A\nline; x?y!z ¿Qué? ".repeat(5);
        let bytes = text.as_bytes();
        for i in 0..=bytes.len() {
            let naive = (i..bytes.len())
                .find(|&j| INTERESTING[bytes[j] as usize])
                .unwrap_or(bytes.len());
            assert_eq!(find_interesting(bytes, i), naive, "from {i}");
        }
    }

    #[test]
    fn pathological_inputs_are_linear() {
        // Long runs that would blow a backtracking regex or a quadratic scan.
        let dots = ".".repeat(200_000);
        assert_eq!(split(&dots).len(), 1);
        let mixed = "a. ".repeat(100_000);
        assert_eq!(split(&mixed).len(), 1);
        let acronyms = "U.S. ".repeat(100_000);
        assert_eq!(split(&acronyms).len(), 1);
    }
}
