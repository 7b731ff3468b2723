//! Word-level differences, rendered as HTML: which words of a cluster member differ from its
//! representative, and which words two aligned passages share.
//!
//! Texts are cut into tokens: runs of letters and digits, and each other character that is not
//! whitespace (so "1820," is the tokens "1820" and ","). The tokens are compared by Myers'
//! diff (the `similar` crate), and the whitespace between tokens is copied as written.
use std::ops::Range;

use similar::{Algorithm, DiffOp, capture_diff_slices};

use crate::html::escape_into;

/// Tokens compared and shown per text; the rest of a longer text is replaced by an ellipsis
/// (Myers' diff costs time proportional to length times differences).
pub const MAX_TOKENS: usize = 3000;

/// The byte ranges of the tokens of `text` (at most [`MAX_TOKENS`]), and whether there were
/// more.
fn tokens(text: &str) -> (Vec<Range<usize>>, bool) {
    let mut out = Vec::new();
    let mut word: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if c.is_alphanumeric() {
            word.get_or_insert(i);
            continue;
        }
        if let Some(start) = word.take() {
            out.push(start..i);
        }
        if !c.is_whitespace() {
            out.push(i..i + c.len_utf8());
        }
        if out.len() > MAX_TOKENS {
            out.truncate(MAX_TOKENS);
            return (out, true);
        }
    }
    if let Some(start) = word {
        out.push(start..text.len());
    }
    let more = out.len() > MAX_TOKENS;
    out.truncate(MAX_TOKENS);
    (out, more)
}

/// Keys compared: the tokens, lowercased when `fold_case`.
fn keys(text: &str, tokens: &[Range<usize>], fold_case: bool) -> Vec<String> {
    tokens
        .iter()
        .map(|r| {
            if fold_case {
                text[r.clone()].to_lowercase()
            } else {
                text[r.clone()].to_string()
            }
        })
        .collect()
}

/// Appends `text[..]` with the tokens flagged in `marked` wrapped in `<tag>`; runs of marked
/// tokens (and the whitespace between them) share one element; a text cut after
/// [`MAX_TOKENS`] ends in an ellipsis. `inserts` are extra HTML
/// snippets placed before token `i` (`i == tokens.len()`: at the end of the compared part).
fn render(
    text: &str,
    (tokens, cut): &(Vec<Range<usize>>, bool),
    marked: &[bool],
    tag: &str,
    inserts: &[(usize, String)],
    out: &mut String,
) {
    let cut = *cut;
    let mut pos = 0;
    let mut open = false;
    let mut inserts = inserts.iter().peekable();
    for (i, r) in tokens.iter().enumerate() {
        let has_insert = inserts.peek().is_some_and(|(at, _)| *at == i);
        if open && (!marked[i] || has_insert) {
            out.push_str("</");
            out.push_str(tag);
            out.push('>');
            open = false;
        }
        escape_into(&text[pos..r.start], out);
        while let Some((_, html)) = inserts.next_if(|(at, _)| *at == i) {
            out.push_str(html);
        }
        if marked[i] && !open {
            out.push('<');
            out.push_str(tag);
            out.push('>');
            open = true;
        }
        escape_into(&text[r.clone()], out);
        pos = r.end;
    }
    if open {
        out.push_str("</");
        out.push_str(tag);
        out.push('>');
    }
    for (_, html) in inserts {
        out.push_str(html);
    }
    if cut {
        out.push_str(" …");
    } else {
        escape_into(&text[pos..], out);
    }
}

/// Appends `member` as HTML with what differs from `representative` marked: its words that the
/// representative does not have in `<ins>`, and the representative's words it lacks, in place,
/// in `<del>`. Words are compared as written (a change of case is a difference).
///
/// ```
/// use textreuse_report::diff::member_html;
///
/// let mut html = String::new();
/// member_html("The mill was built in 1820.", "The mill was built in 1821.", &mut html);
/// assert_eq!(html, "The mill was built in <del>1820</del> <ins>1821</ins>.");
/// ```
pub fn member_html(representative: &str, member: &str, out: &mut String) {
    let old_tokens = tokens(representative);
    let new_tokens = tokens(member);
    let old = keys(representative, &old_tokens.0, false);
    let new = keys(member, &new_tokens.0, false);
    let mut marked = vec![false; new_tokens.0.len()];
    let mut deleted: Vec<(usize, String)> = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, &old, &new) {
        let (old_range, new_range) = match op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Delete {
                old_index,
                old_len,
                new_index,
            } => (old_index..old_index + old_len, new_index..new_index),
            DiffOp::Insert {
                new_index, new_len, ..
            } => (0..0, new_index..new_index + new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (
                old_index..old_index + old_len,
                new_index..new_index + new_len,
            ),
        };
        marked[new_range.clone()].fill(true);
        if !old_range.is_empty() {
            let span = old_tokens.0[old_range.start].start..old_tokens.0[old_range.end - 1].end;
            let mut html = String::from("<del>");
            escape_into(&representative[span], &mut html);
            html.push_str("</del>");
            // Before a word, the deleted words need a space of their own.
            if new_range.start < new_tokens.0.len() {
                html.push(' ');
            }
            deleted.push((new_range.start, html));
        }
    }
    render(member, &new_tokens, &marked, "ins", &deleted, out);
}

/// Both texts as HTML with the words they share, in order, wrapped in `<mark>` (compared
/// ignoring case): the matching words of two aligned passages.
///
/// ```
/// use textreuse_report::diff::shared_html;
///
/// let (a, b) = shared_html("The mill was built in 1820.", "The old mill was rebuilt in 1820.");
/// assert_eq!(a, "<mark>The mill was</mark> built <mark>in 1820.</mark>");
/// assert_eq!(b, "<mark>The</mark> old <mark>mill was</mark> rebuilt <mark>in 1820.</mark>");
/// ```
pub fn shared_html(a: &str, b: &str) -> (String, String) {
    let a_tokens = tokens(a);
    let b_tokens = tokens(b);
    let a_keys = keys(a, &a_tokens.0, true);
    let b_keys = keys(b, &b_tokens.0, true);
    let mut a_marked = vec![false; a_tokens.0.len()];
    let mut b_marked = vec![false; b_tokens.0.len()];
    for op in capture_diff_slices(Algorithm::Myers, &a_keys, &b_keys) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            a_marked[old_index..old_index + len].fill(true);
            b_marked[new_index..new_index + len].fill(true);
        }
    }
    let (mut a_html, mut b_html) = (String::new(), String::new());
    render(a, &a_tokens, &a_marked, "mark", &[], &mut a_html);
    render(b, &b_tokens, &b_marked, "mark", &[], &mut b_html);
    (a_html, b_html)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(a: &str, b: &str) -> String {
        let mut out = String::new();
        member_html(a, b, &mut out);
        out
    }

    #[test]
    fn identical_texts_have_no_marks() {
        assert_eq!(member("A b, c.", "A b, c."), "A b, c.");
    }

    #[test]
    fn insertions_deletions_and_replacements() {
        assert_eq!(
            member("It has 3 red doors.", "It has 4 doors and a roof."),
            "It has <del>3 red</del> <ins>4</ins> doors <ins>and a roof</ins>."
        );
        assert_eq!(member("a b c", "a c"), "a <del>b</del> c");
        assert_eq!(member("a b", "a b c"), "a b <ins>c</ins>");
        assert_eq!(member("a b c", "a b"), "a b<del>c</del>");
    }

    #[test]
    fn markup_in_texts_is_escaped() {
        assert_eq!(
            member("<b>x</b>", "<b>y</b>"),
            "&lt;b&gt;<del>x</del> <ins>y</ins>&lt;/b&gt;"
        );
    }

    #[test]
    fn long_texts_are_compared_up_to_the_cap() {
        let long = "word ".repeat(MAX_TOKENS + 10);
        let html = member(&long, &long);
        assert!(html.ends_with(" …"));
        assert!(!html.contains("<ins>"));
    }

    #[test]
    fn shared_words_ignore_case() {
        let (a, b) = shared_html("THE Mill", "the mill stands");
        assert_eq!(a, "<mark>THE Mill</mark>");
        assert_eq!(b, "<mark>the mill</mark> stands");
    }

    #[test]
    fn empty_texts() {
        assert_eq!(member("", ""), "");
        assert_eq!(member("a", ""), "<del>a</del>");
        assert_eq!(shared_html("", "x"), (String::new(), "x".to_string()));
    }
}
