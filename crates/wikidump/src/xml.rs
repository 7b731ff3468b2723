//! Parsing one `<page>...</page>` element. The dump's XML is machine-written and regular, so a
//! page is read with substring searches instead of a general XML parser: that is what lets the
//! reader skip damage (stray bytes, cut-off pages) and go on, where a strict parser stops.
use memchr::memmem;

use crate::{Error, Page};

/// The fields of a page before the filter decides whether its text is worth decoding.
pub(crate) struct RawPage<'a> {
    pub(crate) title: Option<String>,
    pub(crate) ns: i32,
    pub(crate) id: Option<u64>,
    pub(crate) redirect: Option<String>,
    revision: &'a [u8],
    /// Absolute offset of `revision[0]`.
    revision_offset: u64,
}

/// The content of the first `<tag>...</tag>` in `hay` (tag given as `<tag>`), with its start.
fn element<'a>(hay: &'a [u8], open: &[u8], close: &[u8]) -> Option<(&'a [u8], usize)> {
    let start = memmem::find(hay, open)? + open.len();
    let len = memmem::find(&hay[start..], close)?;
    Some((&hay[start..start + len], start))
}

fn parse_num<T: std::str::FromStr>(bytes: &[u8]) -> Option<T> {
    std::str::from_utf8(bytes).ok()?.trim().parse().ok()
}

/// Reads the header fields of a page. `page` spans `<page>` to `</page>` (exclusive) and starts
/// at absolute offset `offset`.
pub(crate) fn parse_head(page: &[u8], offset: u64) -> Result<RawPage<'_>, Error> {
    // The last `<revision>`: a forward search (vectorised, unlike memchr's reverse search)
    // finds every occurrence, as the tag cannot overlap itself; `<` never occurs unescaped in
    // the text, so this is fast.
    let (revision, revision_at) = match memmem::find_iter(page, b"<revision>").last() {
        Some(at) => (&page[at..], at),
        None => (&page[page.len()..], page.len()),
    };
    let head = &page[..revision_at];
    let title = match element(head, b"<title>", b"</title>") {
        Some((t, at)) => Some(unescape_str(t, offset + at as u64, None)?),
        None => None,
    };
    let ns = element(head, b"<ns>", b"</ns>")
        .and_then(|(n, _)| parse_num(n))
        .unwrap_or(0);
    let id = element(head, b"<id>", b"</id>").and_then(|(n, _)| parse_num(n));
    let redirect = match memmem::find(head, b"<redirect") {
        Some(at) => {
            let rest = &head[at..];
            let target = element(rest, b"title=\"", b"\"");
            Some(match target {
                Some((t, _)) => unescape_str(t, offset + at as u64, title.as_deref())?,
                None => String::new(),
            })
        }
        None => None,
    };
    Ok(RawPage {
        title,
        ns,
        id,
        redirect,
        revision,
        revision_offset: offset + revision_at as u64,
    })
}

/// Completes a page: revision id, timestamp and text.
pub(crate) fn finish(raw: RawPage<'_>, offset: u64) -> Result<Page, Error> {
    let Some(title) = raw.title else {
        return Err(Error::Malformed {
            offset,
            title: None,
            what: "page without <title>".into(),
        });
    };
    let Some(id) = raw.id else {
        return Err(Error::Malformed {
            offset,
            title: Some(title),
            what: "page without <id>".into(),
        });
    };
    let rev = raw.revision;
    let rev_offset = raw.revision_offset;
    let revision_id = element(rev, b"<id>", b"</id>").and_then(|(n, _)| parse_num(n));
    let timestamp = match element(rev, b"<timestamp>", b"</timestamp>") {
        Some((t, at)) => Some(unescape_str(t, rev_offset + at as u64, Some(&title))?),
        None => None,
    };
    let text = match memmem::find(rev, b"<text") {
        Some(at) => {
            let Some(gt) = memchr::memchr(b'>', &rev[at..]) else {
                return Err(Error::Malformed {
                    offset: rev_offset + at as u64,
                    title: Some(title),
                    what: "unterminated <text> tag".into(),
                });
            };
            let body = at + gt + 1;
            if rev[body - 2] == b'/' {
                String::new() // <text ... /> : deleted or empty revision
            } else {
                match memmem::find(&rev[body..], b"</text>") {
                    Some(len) => unescape_str(
                        &rev[body..body + len],
                        rev_offset + body as u64,
                        Some(&title),
                    )?,
                    None => {
                        return Err(Error::Malformed {
                            offset: rev_offset + at as u64,
                            title: Some(title),
                            what: "<text> without </text>".into(),
                        });
                    }
                }
            }
        }
        None => String::new(),
    };
    Ok(Page {
        id,
        ns: raw.ns,
        title,
        redirect: raw.redirect,
        revision_id,
        timestamp,
        text,
    })
}

/// Validates UTF-8 and decodes the five XML entities and numeric character references.
/// Unknown entities are kept as they are (the dump writer never produces them).
fn unescape_str(bytes: &[u8], offset: u64, title: Option<&str>) -> Result<String, Error> {
    let text = std::str::from_utf8(bytes).map_err(|e| Error::InvalidUtf8 {
        offset: offset + e.valid_up_to() as u64,
        title: title.map(str::to_owned),
    })?;
    let mut out = String::with_capacity(text.len());
    unescape_into(text, &mut out);
    Ok(out)
}

/// XML entity decoding (`&lt;` `&gt;` `&amp;` `&quot;` `&apos;` `&#N;` `&#xH;`).
pub(crate) fn unescape_into(text: &str, out: &mut String) {
    let bytes = text.as_bytes();
    let mut last = 0;
    for amp in memchr::memchr_iter(b'&', bytes) {
        if amp < last {
            continue;
        }
        let rest = &text[amp + 1..];
        let Some(semi) = rest.as_bytes().iter().take(10).position(|&b| b == b';') else {
            continue;
        };
        let name = &rest[..semi];
        let ch = match name {
            "lt" => Some('<'),
            "gt" => Some('>'),
            "amp" => Some('&'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => numeric_entity(name),
        };
        if let Some(ch) = ch {
            out.push_str(&text[last..amp]);
            out.push(ch);
            last = amp + 1 + semi + 1;
        }
    }
    out.push_str(&text[last..]);
}

/// `#123` or `#x7B` to a char (not NUL, not a surrogate).
pub(crate) fn numeric_entity(name: &str) -> Option<char> {
    let num = name.strip_prefix('#')?;
    let code = if let Some(hex) = num.strip_prefix(['x', 'X']) {
        u32::from_str_radix(hex, 16).ok()?
    } else {
        num.parse::<u32>().ok()?
    };
    char::from_u32(code).filter(|&c| c != '\0')
}
