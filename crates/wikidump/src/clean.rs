//! Wikitext to plain text, in three linear passes without recursion:
//!
//! 1. tags: comments, and elements dropped with their content (`<ref>`, `<math>`, `<gallery>`,
//!    ...) go; `<nowiki>` text is escaped so later passes leave it alone.
//! 2. brackets: `{{templates}}`, `{| tables |}` and `[[links]]` are matched with an explicit
//!    stack (any nesting depth, unbalanced input included); templates, tables, files, categories
//!    and interlanguage links go, links keep their label; unmatched brackets are dropped.
//! 3. lines: headings start sections, list items become their own paragraphs, blank lines end
//!    paragraphs; inline markup (bold/italic quotes, external links, HTML tags, entities, magic
//!    words) is removed or rendered and white space collapsed.
//!
//! Every search for a closing delimiter is either bounded by the next opening delimiter or
//! memoised, so no input makes a pass quadratic.
use std::sync::Arc;

use memchr::{memchr, memchr2, memmem};

use crate::names::SiteNames;
use crate::scan::ByteSet;
use crate::xml::numeric_entity;

/// One paragraph of an article: prose, or one list item (borrowed from its [`Article`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Paragraph<'a> {
    /// Title of the section it is in (`""` for the lead before the first heading; the innermost
    /// heading otherwise).
    pub section: &'a str,
    /// Plain text: markup removed, entities decoded, white space collapsed to single spaces.
    pub text: &'a str,
    /// Whether this is a list item (`*`, `#`, `:`, `;` lines).
    pub list: bool,
}

/// Where one paragraph is in an [`Article`]'s buffers.
#[derive(Debug, Clone, Copy)]
struct Span {
    /// End of its text in `Article::text` (it starts where the previous one ends).
    end: usize,
    /// Its section's index in `Article::sections`.
    section: u32,
    list: bool,
}

/// The clean text of one page: paragraphs in page order ([`Article::paragraphs`]). Reuse one
/// `Article` with [`Cleaner::clean_into`] to keep its buffers between pages.
///
/// The paragraphs' texts are kept in one buffer with 16 bytes of bookkeeping per paragraph, so
/// a page of millions of one-word list items takes a small multiple of its size, not one
/// allocation per item.
#[derive(Debug, Clone, Default)]
pub struct Article {
    text: String,
    /// The page's categories, in page order, each once.
    categories: Vec<String>,
    spans: Vec<Span>,
    /// Section titles in page order; the first is the lead's `""`.
    sections: Vec<String>,
    tags: String,
    brackets: String,
    tokens: Vec<Tok>,
    stack: Vec<usize>,
    para: String,
    section: String,
    tidied: String,
}

impl Article {
    /// An empty article.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The paragraphs, in page order.
    #[must_use]
    pub fn paragraphs(&self) -> Paragraphs<'_> {
        Paragraphs {
            article: self,
            range: 0..self.spans.len(),
        }
    }

    /// Paragraph `i` (in page order), if there are more than `i`.
    #[must_use]
    pub fn paragraph(&self, i: usize) -> Option<Paragraph<'_>> {
        let span = self.spans.get(i)?;
        let start = if i == 0 { 0 } else { self.spans[i - 1].end };
        Some(Paragraph {
            section: &self.sections[span.section as usize],
            text: &self.text[start..span.end],
            list: span.list,
        })
    }

    /// The categories the page's wikitext puts it in (`[[Category:Municipalities of the canton
    /// of Bern|Aarberg]]`: "Municipalities of the canton of Bern"), in page order, each once:
    /// the name after the namespace (in any of the wiki's names for it), `_` as a space, the
    /// first letter capitalized as MediaWiki does. Categories that templates add are not seen
    /// (templates are not expanded).
    ///
    /// ```
    /// use textreuse_wikidump::Cleaner;
    ///
    /// let article = Cleaner::new().clean(
    ///     "Aarberg is a municipality.\n[[Category:Municipalities_of the canton of Bern|Aarberg]]\n[[category:bern]][[Category:Bern]]",
    /// );
    /// assert_eq!(article.categories().collect::<Vec<_>>(), ["Municipalities of the canton of Bern", "Bern"]);
    /// assert_eq!(article.paragraph(0).unwrap().text, "Aarberg is a municipality.");
    /// ```
    pub fn categories(&self) -> impl Iterator<Item = &str> {
        self.categories.iter().map(String::as_str)
    }

    /// The number of paragraphs.
    #[must_use]
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether the article has no paragraphs (a redirect, a page of templates only, ...).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    fn clear(&mut self) {
        self.text.clear();
        self.categories.clear();
        self.spans.clear();
        self.sections.clear();
        self.sections.push(String::new());
    }

    /// Starts a section titled `title` for the paragraphs that follow.
    fn start_section(&mut self, title: &str) {
        // sections is never empty (clear() puts the lead's "" in).
        let last = self.sections.len() - 1;
        let last_is_empty = self
            .spans
            .last()
            .is_none_or(|p| (p.section as usize) < last);
        if last_is_empty {
            // No paragraph in the previous section: reuse its slot.
            self.sections[last].clear();
            self.sections[last].push_str(title);
        } else {
            self.sections.push(title.to_string());
        }
    }

    /// Tidies `para` into a new paragraph of the current section (none if it tidies to nothing)
    /// and clears it.
    fn flush(&mut self, para: &mut String, list: bool) {
        if !para.is_empty() {
            tidy(para, &mut self.tidied);
            if !self.tidied.is_empty() {
                self.text.push_str(&self.tidied);
                self.spans.push(Span {
                    end: self.text.len(),
                    section: (self.sections.len() - 1) as u32,
                    list,
                });
            }
        }
        para.clear();
    }
}

/// The paragraphs of an [`Article`], in page order ([`Article::paragraphs`]).
#[derive(Debug, Clone)]
pub struct Paragraphs<'a> {
    article: &'a Article,
    range: std::ops::Range<usize>,
}

impl<'a> Iterator for Paragraphs<'a> {
    type Item = Paragraph<'a>;

    fn next(&mut self) -> Option<Paragraph<'a>> {
        let i = self.range.next()?;
        self.article.paragraph(i)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }
}

impl DoubleEndedIterator for Paragraphs<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let i = self.range.next_back()?;
        self.article.paragraph(i)
    }
}

impl ExactSizeIterator for Paragraphs<'_> {}

impl std::iter::FusedIterator for Paragraphs<'_> {}

impl<'a> IntoIterator for &'a Article {
    type Item = Paragraph<'a>;
    type IntoIter = Paragraphs<'a>;

    fn into_iter(self) -> Paragraphs<'a> {
        self.paragraphs()
    }
}

/// The sections [`Cleaner::new`] drops (compared ignoring ASCII case), as WikiClean does.
pub const DEFAULT_DROP_SECTIONS: &[&str] = &[
    "See also",
    "References",
    "External links",
    "Further reading",
    "Notes",
    "Bibliography",
];

/// Options for [`Cleaner`].
#[derive(Debug, Clone)]
pub struct CleanerBuilder {
    drop_sections: Vec<String>,
    keep_lists: bool,
    names: Arc<SiteNames>,
}

impl Default for CleanerBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl CleanerBuilder {
    /// Defaults: drop [`DEFAULT_DROP_SECTIONS`], keep list items (marked `list: true`), the
    /// English namespace names ([`SiteNames::english`]).
    #[must_use]
    pub fn new() -> Self {
        CleanerBuilder {
            drop_sections: DEFAULT_DROP_SECTIONS
                .iter()
                .map(|s| (*s).to_string())
                .collect(),
            keep_lists: true,
            names: Arc::new(SiteNames::english()),
        }
    }

    /// The names of the wiki whose pages are cleaned: links to its file, media and category
    /// namespaces (in English or its language, `[[Файл:A.jpg|міні|Підпис]]`,
    /// `[[Категорія:Хімія]]`) are removed with their text. Default [`SiteNames::english`];
    /// for a dump, [`SiteNames::for_site`] of [`DumpReader::site_info`](crate::DumpReader::site_info).
    pub fn site_names(&mut self, names: SiteNames) -> &mut Self {
        self.names = Arc::new(names);
        self
    }

    /// Sections dropped with their subsections (titles compared ignoring ASCII case).
    pub fn drop_sections<S: AsRef<str>>(&mut self, titles: &[S]) -> &mut Self {
        self.drop_sections = titles
            .iter()
            .map(|s| s.as_ref().trim().to_string())
            .collect();
        self
    }

    /// Whether list items are kept (each as its own paragraph with `list: true`).
    pub fn keep_lists(&mut self, yes: bool) -> &mut Self {
        self.keep_lists = yes;
        self
    }

    /// Builds the cleaner.
    ///
    /// # Errors
    /// [`CleanerBuildError`] if a dropped section title is empty.
    pub fn build(&self) -> Result<Cleaner, CleanerBuildError> {
        if self.drop_sections.iter().any(String::is_empty) {
            return Err(CleanerBuildError::EmptySectionTitle);
        }
        Ok(Cleaner {
            drop_sections: self.drop_sections.clone(),
            keep_lists: self.keep_lists,
            names: Arc::clone(&self.names),
        })
    }
}

/// An invalid [`CleanerBuilder`] setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CleanerBuildError {
    /// A title in `drop_sections` is empty (it would match nothing). Recover: remove it.
    #[error("empty section title in drop_sections")]
    EmptySectionTitle,
}

/// Turns wikitext into paragraphs of plain text. Cheap to clone and share between threads.
#[derive(Debug, Clone)]
pub struct Cleaner {
    drop_sections: Vec<String>,
    keep_lists: bool,
    names: Arc<SiteNames>,
}

impl Default for Cleaner {
    fn default() -> Self {
        Self::new()
    }
}

impl Cleaner {
    /// A cleaner with the default options ([`CleanerBuilder::new`]): English names.
    #[must_use]
    pub fn new() -> Self {
        Cleaner {
            drop_sections: DEFAULT_DROP_SECTIONS
                .iter()
                .map(|s| (*s).to_string())
                .collect(),
            keep_lists: true,
            names: Arc::new(SiteNames::english()),
        }
    }

    /// The names of the wiki it cleans for ([`CleanerBuilder::site_names`]).
    #[must_use]
    pub fn site_names(&self) -> &SiteNames {
        &self.names
    }

    /// Cleans one page's wikitext.
    #[must_use]
    pub fn clean(&self, wikitext: &str) -> Article {
        let mut article = Article::new();
        self.clean_into(wikitext, &mut article);
        article
    }

    /// Cleans one page's wikitext into `out`, replacing its paragraphs and reusing its buffers.
    pub fn clean_into(&self, wikitext: &str, out: &mut Article) {
        self.clean_into_with_names(wikitext, &self.names, out);
    }

    /// Cleans one page of the wiki `names` is for, in place of the cleaner's own names (the
    /// other options stay): for a program that reads dumps of several wikis with one cleaner.
    #[must_use]
    pub fn clean_with_names(&self, wikitext: &str, names: &SiteNames) -> Article {
        let mut article = Article::new();
        self.clean_into_with_names(wikitext, names, &mut article);
        article
    }

    /// [`Cleaner::clean_with_names`] into `out`, reusing its buffers.
    pub fn clean_into_with_names(&self, wikitext: &str, names: &SiteNames, out: &mut Article) {
        out.clear();
        let mut tags = std::mem::take(&mut out.tags);
        let mut brackets = std::mem::take(&mut out.brackets);
        strip_tags(wikitext, &mut tags);
        strip_brackets(
            &tags,
            &mut brackets,
            &mut out.tokens,
            &mut out.stack,
            names,
            &mut out.categories,
        );
        self.lines(&brackets, out);
        out.tags = tags;
        out.brackets = brackets;
    }

    fn is_dropped(&self, title: &str) -> bool {
        self.drop_sections
            .iter()
            .any(|d| d.eq_ignore_ascii_case(title))
    }

    /// Pass 3: line structure and inline markup.
    fn lines(&self, text: &str, out: &mut Article) {
        let mut para = std::mem::take(&mut out.para);
        let mut section = std::mem::take(&mut out.section);
        para.clear();
        section.clear();
        let mut dropping: Option<usize> = None;
        for raw in split_lines(text) {
            let line = raw.trim_end();
            let trimmed = line.trim_start();
            if let Some((level, inner)) = heading(trimmed) {
                out.flush(&mut para, false);
                inline(inner, &mut para);
                tidy(&para, &mut section);
                para.clear();
                out.start_section(&section);
                if dropping.is_some_and(|l| level <= l) {
                    dropping = None;
                }
                if dropping.is_none() && self.is_dropped(&section) {
                    dropping = Some(level);
                }
                continue;
            }
            if trimmed.is_empty() {
                out.flush(&mut para, false);
                continue;
            }
            if dropping.is_some() {
                continue;
            }
            let first = trimmed.as_bytes()[0];
            match first {
                b'*' | b'#' | b':' | b';' => {
                    out.flush(&mut para, false);
                    if trimmed.len() >= 9
                        && trimmed.as_bytes()[..9].eq_ignore_ascii_case(b"#redirect")
                    {
                        continue;
                    }
                    if self.keep_lists {
                        let item = trimmed.trim_start_matches(['*', '#', ':', ';']);
                        inline(item, &mut para);
                        out.flush(&mut para, true);
                    }
                }
                // Table rows left from unmatched tables, template parameters from unclosed
                // templates: never prose.
                b'|' | b'!' => {}
                _ if trimmed.starts_with("----") => {
                    out.flush(&mut para, false);
                }
                _ => {
                    if !para.is_empty() && !para.ends_with(' ') {
                        para.push(' ');
                    }
                    inline(trimmed, &mut para);
                }
            }
        }
        out.flush(&mut para, false);
        out.para = para;
        out.section = section;
    }
}

/// `text.split('\n')`, with the memchr crate's vectorised search for the line feeds.
fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let s = rest?;
        match memchr(b'\n', s.as_bytes()) {
            Some(p) => {
                rest = Some(&s[p + 1..]);
                Some(&s[..p])
            }
            None => {
                rest = None;
                Some(s)
            }
        }
    })
}

/// `== Title ==` -> (level, inner text).
fn heading(line: &str) -> Option<(usize, &str)> {
    let b = line.as_bytes();
    if b.len() < 3 || b[0] != b'=' || b[b.len() - 1] != b'=' {
        return None;
    }
    let lead = b.iter().take_while(|&&c| c == b'=').count();
    let trail = b.iter().rev().take_while(|&&c| c == b'=').count();
    if lead == b.len() {
        return None; // a line of only '='
    }
    let level = lead.min(trail).min(6);
    Some((level, &line[level..line.len() - level]))
}

/// Bytes [`tidy`] decides on one by one (with the space): ASCII white space, `,` `.` `;` `)`,
/// and the lead bytes of the non-ASCII white space chars (0xC2: U+0085, U+00A0; 0xE1: U+1680;
/// 0xE2: U+2000 to U+205F; 0xE3: U+3000). All other bytes are copied in runs, which therefore
/// start and end on char boundaries.
static TIDY_SPECIAL: ByteSet<13> = ByteSet::new(*b"\t\n\x0b\x0c\r,.;)\xc2\xe1\xe2\xe3");

/// Collapses white space (any Unicode white space, including no-break spaces and vertical
/// tabs) to single spaces and trims; tidies the seams left by removed markup:
/// no space before `,` `.` `;` `)`, no empty `()`.
///
/// Ordinary text is copied in runs: bytes outside [`TIDY_SPECIAL`] and single spaces between two
/// of them (such a space always comes out as one space) need no decision per char.
fn tidy(src: &str, out: &mut String) {
    out.clear();
    out.reserve(src.len());
    let b = src.as_bytes();
    let mut after_removal = false;
    let mut i = 0;
    while i < b.len() {
        let j = TIDY_SPECIAL.spaced_run_end(b, i);
        if j > i {
            let run = &src[i..j];
            if after_removal {
                // Removing `()` must not join `[` and `[` (or similar) into markup.
                push_joined(out, run);
                after_removal = false;
            } else {
                out.push_str(run);
            }
            i = j;
            continue;
        }
        let c = if b[i] < 0x80 {
            char::from(b[i])
        } else {
            src[i..].chars().next().unwrap_or(' ')
        };
        i += c.len_utf8();
        match c {
            c if c.is_whitespace() => {
                if !out.is_empty() && !out.ends_with(' ') {
                    out.push(' ');
                }
                continue;
            }
            ',' | '.' | ';' => {
                if out.ends_with(' ') {
                    out.pop();
                }
                out.push(c);
            }
            ')' => {
                let open = out.trim_end_matches(' ');
                if open.ends_with('(') {
                    let keep = open.len() - 1;
                    out.truncate(keep);
                    after_removal = true;
                    continue;
                }
                if out.ends_with(' ') {
                    out.pop();
                }
                out.push(c);
            }
            // A non-ASCII char with a white-space lead byte that is not white space.
            _ if after_removal => {
                if !push_guarded(out, c) {
                    // Dropped: the next character joins in its place.
                    continue;
                }
            }
            _ => out.push(c),
        }
        after_removal = false;
    }
    while out.ends_with(' ') {
        out.pop();
    }
}

// ---------------------------------------------------------------------------------------------
// Pass 1: tags.

/// What pass 1 does with an element.
#[derive(Clone, Copy, PartialEq, Eq)]
enum TagKind {
    /// Dropped with its content.
    Drop,
    /// Content kept as literal text.
    Nowiki,
}

/// Elements pass 1 handles (all others are left for pass 3, which keeps their inner text).
const TAGS: &[(&str, TagKind)] = &[
    ("ref", TagKind::Drop),
    ("references", TagKind::Drop),
    ("math", TagKind::Drop),
    ("gallery", TagKind::Drop),
    ("nowiki", TagKind::Nowiki),
    ("pre", TagKind::Drop),
    ("timeline", TagKind::Drop),
    ("score", TagKind::Drop),
    ("syntaxhighlight", TagKind::Drop),
    ("source", TagKind::Drop),
    ("imagemap", TagKind::Drop),
    ("chem", TagKind::Drop),
    ("ce", TagKind::Drop),
    ("hiero", TagKind::Drop),
    ("graph", TagKind::Drop),
    ("templatedata", TagKind::Drop),
    ("mapframe", TagKind::Drop),
    ("maplink", TagKind::Drop),
    ("inputbox", TagKind::Drop),
    ("categorytree", TagKind::Drop),
    ("table", TagKind::Drop),
    ("includeonly", TagKind::Drop),
    ("indicator", TagKind::Drop),
];

fn tag_index(name: &[u8]) -> Option<usize> {
    TAGS.iter()
        .position(|(t, _)| t.as_bytes().eq_ignore_ascii_case(name))
}

/// The name after `<` or `</` (ASCII letters and digits), from `at`.
fn tag_name(b: &[u8], at: usize) -> &[u8] {
    let len = b[at..]
        .iter()
        .take(32)
        .take_while(|c| c.is_ascii_alphanumeric())
        .count();
    &b[at..at + len]
}

/// Memoised searches for closing tags: each needle is searched over each stretch of the text
/// at most once, which keeps pass 1 linear however many unclosed openings there are.
struct CloseFinder {
    /// Per tag (and one more for `-->`): (searched from, result).
    memo: Vec<Option<(usize, Option<usize>)>>,
}

impl CloseFinder {
    fn new() -> Self {
        CloseFinder {
            memo: vec![None; TAGS.len() + 1],
        }
    }

    fn cached(&self, slot: usize, from: usize) -> Option<Option<usize>> {
        match self.memo[slot] {
            Some((_, Some(r))) if r >= from => Some(Some(r)),
            Some((s, None)) if s <= from => Some(None),
            _ => None,
        }
    }

    /// Start of the next `-->` at or after `from`.
    fn comment_end(&mut self, b: &[u8], from: usize) -> Option<usize> {
        let slot = TAGS.len();
        if let Some(r) = self.cached(slot, from) {
            return r;
        }
        let r = memmem::find(&b[from..], b"-->").map(|p| from + p);
        self.memo[slot] = Some((from, r));
        r
    }

    /// Start of the next `</name` (any case, followed by a non-name byte) at or after `from`.
    fn close_tag(&mut self, b: &[u8], tag: usize, from: usize) -> Option<usize> {
        if let Some(r) = self.cached(tag, from) {
            return r;
        }
        let name = TAGS[tag].0.as_bytes();
        let mut r = None;
        for p in memmem::find_iter(&b[from..], b"</") {
            let at = from + p + 2;
            if b.len() >= at + name.len()
                && b[at..at + name.len()].eq_ignore_ascii_case(name)
                && b.get(at + name.len())
                    .is_none_or(|c| !c.is_ascii_alphanumeric())
            {
                r = Some(at - 2);
                break;
            }
        }
        self.memo[tag] = Some((from, r));
        r
    }
}

/// Pass 1: comments and dropped elements removed, nowiki content escaped.
fn strip_tags(s: &str, out: &mut String) {
    out.clear();
    out.reserve(s.len());
    let b = s.as_bytes();
    let mut finder = CloseFinder::new();
    let mut last = 0;
    let mut i = 0;
    while let Some(p) = memchr(b'<', &b[i..]) {
        let p = i + p;
        if b[p..].starts_with(b"<!--") {
            out.push_str(&s[last..p]);
            i = finder.comment_end(b, p + 4).map_or(b.len(), |e| e + 3);
            last = i;
            continue;
        }
        let closing = b.get(p + 1) == Some(&b'/');
        let name_at = p + 1 + usize::from(closing);
        let name = tag_name(b, name_at);
        let Some(tag) = (!name.is_empty()).then(|| tag_index(name)).flatten() else {
            i = p + 1;
            continue;
        };
        let after_name = name_at + name.len();
        // The tag's '>' before the next '<' (bounded, so linear).
        let gt = memchr2(b'>', b'<', &b[after_name..])
            .map(|q| after_name + q)
            .filter(|&q| b[q] == b'>');
        out.push_str(&s[last..p]);
        let Some(gt) = gt else {
            // `<ref name=...` without '>': drop it up to the end of the line (or the next '<').
            let stop = memchr2(b'\n', b'<', &b[after_name..]).map_or(b.len(), |q| after_name + q);
            i = stop;
            last = i;
            continue;
        };
        let self_closing = b[gt - 1] == b'/';
        i = gt + 1;
        last = i;
        if closing || self_closing {
            continue; // stray closing tag or <ref/>: dropped
        }
        let Some(close) = finder.close_tag(b, tag, gt + 1) else {
            continue; // unclosed: only the opening tag goes
        };
        let end = memchr(b'>', &b[close..]).map_or(b.len(), |q| close + q + 1);
        if TAGS[tag].1 == TagKind::Nowiki {
            escape_literal(&s[gt + 1..close], out);
        }
        i = end;
        last = end;
    }
    out.push_str(&s[last..]);
}

/// Escapes every byte later passes would treat as markup as a numeric entity, so it comes out
/// as literal text.
fn escape_literal(s: &str, out: &mut String) {
    let mut last = 0;
    for (i, c) in s.bytes().enumerate() {
        let esc = matches!(
            c,
            b'<' | b'>'
                | b'['
                | b']'
                | b'{'
                | b'}'
                | b'|'
                | b'\''
                | b'&'
                | b'='
                | b'*'
                | b'#'
                | b':'
                | b';'
                | b'_'
                | b'!'
        );
        if esc {
            out.push_str(&s[last..i]);
            out.push_str("&#");
            push_u8(out, c);
            out.push(';');
            last = i + 1;
        }
    }
    out.push_str(&s[last..]);
}

fn push_u8(out: &mut String, c: u8) {
    if c >= 100 {
        out.push(char::from(b'0' + c / 100));
    }
    if c >= 10 {
        out.push(char::from(b'0' + (c / 10) % 10));
    }
    out.push(char::from(b'0' + c % 10));
}

// ---------------------------------------------------------------------------------------------
// Pass 2: brackets.

const TPL_OPEN: u8 = 0;
const TPL_CLOSE: u8 = 1;
const TAB_OPEN: u8 = 2;
const TAB_CLOSE: u8 = 3;
const LINK_OPEN: u8 = 4;
const LINK_CLOSE: u8 = 5;

#[derive(Debug, Clone, Copy)]
struct Tok {
    pos: usize,
    kind: u8,
    /// Index of the matching token, or `usize::MAX`.
    partner: usize,
}

/// Bytes pass 2 stops at.
static BRACKETS: ByteSet<5> = ByteSet::new(*b"{}[]|");

/// Whether only spaces, tabs and carriage returns stand between the last line break (or the
/// start) and `i`. Scans back over that white space only, so each run of it is scanned for at
/// most one table token candidate: linear overall.
fn at_line_start(b: &[u8], i: usize) -> bool {
    b[..i]
        .iter()
        .rev()
        .find(|&&c| !matches!(c, b' ' | b'\t' | b'\r'))
        .is_none_or(|&c| c == b'\n')
}

fn tokenize(b: &[u8], toks: &mut Vec<Tok>) {
    toks.clear();
    let mut i = 0;
    let push = |toks: &mut Vec<Tok>, pos, kind| {
        toks.push(Tok {
            pos,
            kind,
            partner: usize::MAX,
        });
    };
    loop {
        i = BRACKETS.find(b, i);
        if i >= b.len() {
            break;
        }
        let c = b[i];
        let next = b.get(i + 1).copied();
        match (c, next) {
            (b'{', Some(b'{')) => push(toks, i, TPL_OPEN),
            (b'{', Some(b'|')) if at_line_start(b, i) => push(toks, i, TAB_OPEN),
            (b'|', Some(b'}')) if at_line_start(b, i) => push(toks, i, TAB_CLOSE),
            (b'}', Some(b'}')) => push(toks, i, TPL_CLOSE),
            (b'[', Some(b'[')) => push(toks, i, LINK_OPEN),
            (b']', Some(b']')) => {
                // In a run of ']' the last two close the link (`[http://x label]]]`).
                let run = b[i..].iter().take_while(|&&c| c == b']').count();
                let mut at = i + run % 2;
                while at + 1 < i + run {
                    push(toks, at, LINK_CLOSE);
                    at += 2;
                }
                i += run;
                continue;
            }
            _ => {
                i += 1;
                continue;
            }
        }
        i += 2;
    }
}

/// Pairs opening and closing tokens with an explicit stack. A closing token matches the nearest
/// open token of its kind; open tokens of other kinds above it stay unmatched. Amortised linear:
/// every token is pushed and popped at most once.
fn match_tokens(toks: &mut [Tok], stack: &mut Vec<usize>) {
    stack.clear();
    let mut open_count = [0usize; 3];
    for i in 0..toks.len() {
        let kind = toks[i].kind;
        let class = (kind / 2) as usize;
        if kind.is_multiple_of(2) {
            stack.push(i);
            open_count[class] += 1;
        } else if open_count[class] > 0 {
            while let Some(top) = stack.pop() {
                let top_class = (toks[top].kind / 2) as usize;
                open_count[top_class] -= 1;
                if top_class == class {
                    toks[top].partner = i;
                    toks[i].partner = top;
                    break;
                }
            }
        }
    }
}

/// Media file extensions [`is_file_link`] takes as the end of a file name (compared ignoring
/// ASCII case).
const MEDIA_EXTENSIONS: &[&str] = &[
    "jpg", "jpeg", "png", "gif", "svg", "tif", "tiff", "webp", "xcf", "bmp", "ogg", "oga", "ogv",
    "webm", "mp3", "wav", "flac", "mid", "midi", "opus", "pdf", "djvu", "stl",
];

/// A file link under a namespace name the cleaner was not given (`[[Fichier:A.jpg|vignette|Caption]]`
/// cleaned with English names, or an alias no table lists): the target's page name ends in a
/// media file extension and one of the link's parameters (`params`: the text after the first
/// `|`) is an image option of the wiki or of English.
fn is_file_link(target: &str, params: &str, names: &SiteNames) -> bool {
    let ext = target.rsplit_once('.').map_or("", |(_, ext)| ext.trim());
    MEDIA_EXTENSIONS.iter().any(|e| e.eq_ignore_ascii_case(ext))
        && params.split('|').any(|p| names.is_image_option(p))
}

/// An interlanguage prefix: a language code like `de`, `zh-yue`, `simple`.
fn is_language_prefix(prefix: &str) -> bool {
    let b = prefix.as_bytes();
    if prefix == "simple" {
        return true;
    }
    let head = b.iter().take_while(|c| c.is_ascii_lowercase()).count();
    (2..=3).contains(&head)
        && b[head..]
            .split(|&c| c == b'-')
            .skip(1)
            .all(|part| !part.is_empty() && part.iter().all(u8::is_ascii_lowercase))
        && (head == b.len() || b[head] == b'-')
}

/// Pass 2: templates, tables and hidden links removed, link labels kept, unmatched brackets dropped.
fn strip_brackets(
    s: &str,
    out: &mut String,
    toks: &mut Vec<Tok>,
    stack: &mut Vec<usize>,
    names: &SiteNames,
    categories: &mut Vec<String>,
) {
    out.clear();
    out.reserve(s.len());
    let b = s.as_bytes();
    tokenize(b, toks);
    match_tokens(toks, stack);
    let mut pos = 0;
    let mut t = 0;
    while t < toks.len() {
        let tok = toks[t];
        out.push_str(&s[pos..tok.pos]);
        pos = tok.pos + 2;
        t += 1;
        if tok.partner == usize::MAX || tok.kind % 2 == 1 {
            continue; // unmatched bracket or the close of a kept link: dropped
        }
        let close = toks[tok.partner];
        if tok.kind != LINK_OPEN {
            // Template or table: skip to the end of its match.
            pos = close.pos + 2;
            t = tok.partner + 1;
            if tok.kind == TPL_OPEN {
                pos = skip_line_end(s, out, pos);
            }
            continue;
        }
        // A link: look at its target, up to the first '|' before any nested bracket.
        let region_end = toks.get(t).map_or(close.pos, |n| n.pos);
        let region = &s[pos..region_end];
        let pipe = memchr(b'|', region.as_bytes());
        let target = region[..pipe.unwrap_or(region.len())].trim();
        let (leading_colon, target) = match target.strip_prefix(':') {
            Some(rest) => (true, rest.trim_start()),
            None => (false, target),
        };
        let prefix = target.split_once(':').map(|(p, _)| p.trim());
        let hidden = !leading_colon
            && prefix.is_some_and(|p| {
                names.is_hidden_namespace(p)
                    || (pipe.is_none() && is_language_prefix(p))
                    || pipe.is_some_and(|q| is_file_link(target, &region[q + 1..], names))
            });
        if hidden {
            if let Some((ns, name)) = target.split_once(':')
                && names.is_category_namespace(ns)
            {
                push_category(name, categories);
            }
            pos = skip_line_end(s, out, close.pos + 2);
            t = tok.partner + 1;
            continue;
        }
        match pipe {
            Some(p) if !region[p + 1..].trim().is_empty() || region_end != close.pos => {
                pos += p + 1; // the label follows
            }
            _ => {
                // `[[target]]` (or the pipe trick `[[target|]]`): the target is the text.
                out.push_str(target);
                pos = region_end;
            }
        }
    }
    out.push_str(&s[pos..]);
}

/// Adds category `name` (as a link target writes it) to `categories` once: white space and `_`
/// as single spaces, the first letter capitalized (MediaWiki's title normalization).
fn push_category(name: &str, categories: &mut Vec<String>) {
    let mut out = String::with_capacity(name.len());
    for word in name
        .split(|c: char| c == '_' || c.is_whitespace())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    let mut chars = out.chars();
    let out = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
        None => return,
    };
    if !categories.contains(&out) {
        categories.push(out);
    }
}

/// After removing a construct that filled its whole line, also removes the line's newline, so
/// that a line holding only a category or a template does not split the paragraph around it.
fn skip_line_end(s: &str, out: &str, pos: usize) -> usize {
    let before = out.trim_end_matches([' ', '\t']);
    let at_line_start = before.is_empty() || before.ends_with('\n');
    let rest = &s.as_bytes()[pos..];
    let blank = rest
        .iter()
        .take_while(|&&c| c == b' ' || c == b'\t')
        .count();
    if at_line_start && rest.get(blank) == Some(&b'\n') {
        pos + blank + 1
    } else {
        pos
    }
}

// ---------------------------------------------------------------------------------------------
// Pass 3 helpers: inline markup.

/// Bytes `inline` handles one by one; everything else is copied in runs.
static INLINE_SPECIAL: ByteSet<11> = ByteSet::new(*b"'[]{}|<&_\t\r");

const URL_SCHEMES: &[&[u8]] = &[
    b"http://",
    b"https://",
    b"//",
    b"ftp://",
    b"ftps://",
    b"mailto:",
    b"news:",
    b"irc://",
    b"ircs://",
    b"gopher://",
    b"sftp://",
    b"git://",
    b"svn://",
    b"telnet://",
    b"urn:",
];

/// Pushes a character of markup origin, unless it would form `{{ }} [[ ]] {| |} '''` with
/// what precedes: such sequences are leftovers of removed markup, never text. A tag name
/// character after a literal `<` (`<re` + `f`) drops the `<` first ([`break_tag_opener`]).
/// Whether it was pushed.
fn push_guarded(out: &mut String, c: char) -> bool {
    if c.is_ascii() {
        break_tag_opener(out, c as u8);
    }
    let prev = out.as_bytes().last().copied();
    let bad = match c {
        '{' => matches!(prev, Some(b'{')),
        '}' => matches!(prev, Some(b'}' | b'|')),
        '[' => prev == Some(b'['),
        ']' => prev == Some(b']'),
        '|' => prev == Some(b'{'),
        '\'' => out.ends_with("''"),
        _ => false,
    };
    if !bad {
        out.push(c);
    }
    !bad
}

/// Pushes `run`, text that follows removed markup: its characters go through [`push_guarded`]
/// until one is pushed (a dropped one leaves the next to join in its place: `{` + `||` must not
/// become `{|`), the rest as they are.
fn push_joined(out: &mut String, run: &str) {
    for (at, c) in run.char_indices() {
        if push_guarded(out, c) {
            out.push_str(&run[at + c.len_utf8()..]);
            return;
        }
    }
}

/// Where `out` ends with what could open a tag (`<` or `</`, then tag-name characters only, as
/// [`tag_name`] reads them): the byte offset of its `<`.
fn tag_opener_at(out: &str) -> Option<usize> {
    let b = out.as_bytes();
    let name = b
        .iter()
        .rev()
        .take(33)
        .take_while(|c| c.is_ascii_alphanumeric())
        .count();
    let mut at = b.len() - name;
    if at > 0 && b[at - 1] == b'/' {
        at -= 1;
    }
    (at > 0 && b[at - 1] == b'<').then(|| at - 1)
}

/// Called where removed markup joins two pieces of text, before `next` is pushed: if the text
/// so far ends with a literal `<` (or `</`) and a partial tag name, and `next` would continue
/// the name (`<re` + `<span></span>` + `f`), the `<` and `/` go. Otherwise the join would make
/// a tag (`<ref`) that is not in the input.
fn break_tag_opener(out: &mut String, next: u8) {
    if !(next.is_ascii_alphanumeric() || next == b'/' || next == b'!') {
        return;
    }
    while let Some(at) = tag_opener_at(out) {
        let len = if out.as_bytes().get(at + 1) == Some(&b'/') {
            2
        } else {
            1
        };
        out.replace_range(at..at + len, "");
    }
}

/// Pushes a space unless the text is empty or already ends in one.
fn push_space(out: &mut String) {
    if !out.is_empty() && !out.ends_with(' ') {
        out.push(' ');
    }
}

/// Pushes a run of ordinary text; where it could join markup with what precedes, through
/// [`push_joined`].
fn push_text(out: &mut String, run: &str) {
    if out.ends_with(['{', '}', '[', ']', '|', '\''])
        && run.starts_with(['{', '}', '[', ']', '|', '\''])
    {
        push_joined(out, run);
    } else {
        out.push_str(run);
    }
}

/// Decodes an HTML entity at the start of `s` (`&name;`, `&#N;`, `&#xH;`): (char, length).
fn entity(s: &str) -> Option<(char, usize)> {
    let b = s.as_bytes();
    let semi = b.iter().take(12).position(|&c| c == b';')?;
    let name = &s[1..semi];
    let c = match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" | "ensp" | "emsp" | "thinsp" | "#160" | "#x20" | "#32" | "#xA0" | "#xa0" => ' ',
        "ndash" => '\u{2013}',
        "mdash" => '\u{2014}',
        "minus" => '\u{2212}',
        "times" => '\u{00D7}',
        "divide" => '\u{00F7}',
        "hellip" => '\u{2026}',
        "lsquo" => '\u{2018}',
        "rsquo" => '\u{2019}',
        "ldquo" => '\u{201C}',
        "rdquo" => '\u{201D}',
        "laquo" => '\u{00AB}',
        "raquo" => '\u{00BB}',
        "deg" => '\u{00B0}',
        "middot" => '\u{00B7}',
        "bull" => '\u{2022}',
        "prime" => '\u{2032}',
        "Prime" => '\u{2033}',
        "frac12" => '\u{00BD}',
        "frac14" => '\u{00BC}',
        "frac34" => '\u{00BE}',
        "pound" => '\u{00A3}',
        "euro" => '\u{20AC}',
        "yen" => '\u{00A5}',
        "cent" => '\u{00A2}',
        "copy" => '\u{00A9}',
        "reg" => '\u{00AE}',
        "trade" => '\u{2122}',
        "sect" => '\u{00A7}',
        "para" => '\u{00B6}',
        "plusmn" => '\u{00B1}',
        "le" => '\u{2264}',
        "ge" => '\u{2265}',
        "ne" => '\u{2260}',
        "asymp" => '\u{2248}',
        "infin" => '\u{221E}',
        "rarr" => '\u{2192}',
        "larr" => '\u{2190}',
        "harr" => '\u{2194}',
        "micro" => '\u{00B5}',
        "alpha" => '\u{03B1}',
        "beta" => '\u{03B2}',
        "gamma" => '\u{03B3}',
        "delta" => '\u{03B4}',
        "pi" => '\u{03C0}',
        "mu" => '\u{03BC}',
        "sigma" => '\u{03C3}',
        "omega" => '\u{03C9}',
        "lambda" => '\u{03BB}',
        "eacute" => '\u{00E9}',
        "aacute" => '\u{00E1}',
        "oacute" => '\u{00F3}',
        "iacute" => '\u{00ED}',
        "uacute" => '\u{00FA}',
        "egrave" => '\u{00E8}',
        "agrave" => '\u{00E0}',
        "ouml" => '\u{00F6}',
        "uuml" => '\u{00FC}',
        "auml" => '\u{00E4}',
        "szlig" => '\u{00DF}',
        "ccedil" => '\u{00E7}',
        "ntilde" => '\u{00F1}',
        "shy" | "zwj" | "zwnj" | "lrm" | "rlm" => '\u{200B}',
        _ => numeric_entity(name)?,
    };
    Some((c, semi + 1))
}

/// Cleans one line's inline markup into `out`.
fn inline(line: &str, out: &mut String) {
    let b = line.as_bytes();
    let mut i = 0;
    // `]` that ends an external link whose label is being copied.
    let mut ext_close: Option<usize> = None;
    // Memo: position of the next ']' at or after some point (None: there is none).
    let mut next_bracket: Option<(usize, Option<usize>)> = None;
    // Whether markup was just removed, joining what comes next to what came before.
    let mut seam = false;
    while i < b.len() {
        if std::mem::take(&mut seam) {
            break_tag_opener(out, b[i]);
        }
        let run = INLINE_SPECIAL.find(b, i);
        if run > i {
            push_text(out, &line[i..run]);
            i = run;
            continue;
        }
        let c = b[i];
        match c {
            b'\t' | b'\r' => {
                out.push(' ');
                i += 1;
            }
            b'\'' => {
                let n = b[i..].iter().take_while(|&&c| c == b'\'').count();
                match n {
                    1 | 4 => {
                        push_guarded(out, '\'');
                    }
                    _ => seam = true,
                }
                i += n;
            }
            b']' if ext_close == Some(i) => {
                ext_close = None;
                seam = true;
                i += 1;
            }
            b'[' => {
                let rest = &b[i + 1..];
                let is_url = URL_SCHEMES
                    .iter()
                    .any(|s| rest.len() >= s.len() && rest[..s.len()].eq_ignore_ascii_case(s));
                let close = if is_url && ext_close.is_none() {
                    match next_bracket {
                        Some((_, Some(q))) if q > i => Some(q),
                        Some((from, None)) if from <= i => None,
                        _ => {
                            let q = memchr(b']', &b[i..]).map(|q| i + q);
                            next_bracket = Some((i, q));
                            q
                        }
                    }
                } else {
                    None
                };
                match close {
                    Some(q) => {
                        // Skip the URL; the label (after the first space) is copied.
                        let url_end = memchr2(b' ', b'\t', &b[i..q]).map_or(q, |p| i + p);
                        ext_close = Some(q);
                        seam = true;
                        i = url_end;
                    }
                    None => {
                        push_guarded(out, '[');
                        i += 1;
                    }
                }
            }
            b'<' => {
                let closing = b.get(i + 1) == Some(&b'/');
                let name_at = i + 1 + usize::from(closing);
                let name = tag_name(b, name_at);
                if name.is_empty() || !name[0].is_ascii_alphabetic() {
                    out.push('<');
                    i += 1;
                    continue;
                }
                let after = name_at + name.len();
                match memchr2(b'>', b'<', &b[after..]).map(|q| after + q) {
                    Some(q) if b[q] == b'>' => {
                        if name.eq_ignore_ascii_case(b"br") {
                            push_space(out);
                        }
                        seam = true;
                        i = q + 1;
                    }
                    // A tag cut short: drop its name. (`<ref...` always: never prose.)
                    _ if is_html_tag(name)
                        || name[..name.len().min(3)].eq_ignore_ascii_case(b"ref") =>
                    {
                        seam = true;
                        i = after;
                    }
                    _ => {
                        out.push('<');
                        i += 1;
                    }
                }
            }
            b'&' => match entity(&line[i..]) {
                Some((' ', len)) => {
                    push_space(out);
                    i += len;
                }
                Some(('\u{200B}', len)) => {
                    seam = true;
                    i += len;
                }
                Some((ch, len)) => {
                    out.push(ch); // literal text, not markup: no guard
                    i += len;
                }
                None => {
                    out.push('&');
                    i += 1;
                }
            },
            b'_' => {
                // Behaviour switches: __TOC__, __NOTOC__, __NOEDITSECTION__, ...
                let word = if b.get(i + 1) == Some(&b'_') {
                    let n = b[i + 2..]
                        .iter()
                        .take(32)
                        .take_while(|c| c.is_ascii_uppercase())
                        .count();
                    (n > 0 && b[i + 2 + n..].starts_with(b"__")).then_some(n + 4)
                } else {
                    None
                };
                match word {
                    Some(len) => {
                        seam = true;
                        i += len;
                    }
                    None => {
                        out.push('_');
                        i += 1;
                    }
                }
            }
            _ => {
                push_guarded(out, char::from(c));
                i += 1;
            }
        }
    }
}

/// Tag names whose cut-off remains (`<ref name=x` at the end of a line) are dropped.
fn is_html_tag(name: &[u8]) -> bool {
    tag_index(name).is_some()
        || [
            "br",
            "div",
            "span",
            "small",
            "big",
            "sup",
            "sub",
            "center",
            "font",
            "blockquote",
            "poem",
            "code",
            "b",
            "i",
            "u",
            "s",
            "p",
            "abbr",
            "cite",
            "del",
            "ins",
            "tt",
            "var",
            "section",
            "onlyinclude",
            "noinclude",
            "td",
            "tr",
            "th",
            "li",
            "ul",
            "ol",
            "hr",
        ]
        .iter()
        .any(|t| t.as_bytes().eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests;
