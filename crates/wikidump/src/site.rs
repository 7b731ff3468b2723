//! What a dump says about its wiki: the `<siteinfo>` element before the first page.
//!
//! ```xml
//! <mediawiki ... xml:lang="uk">
//!   <siteinfo>
//!     <sitename>Вікіпедія</sitename>
//!     <dbname>ukwiki</dbname>
//!     <namespaces>
//!       <namespace key="6" case="first-letter">Файл</namespace>
//!       <namespace key="14" case="first-letter">Категорія</namespace>
//!       ...
//! ```
//!
//! The parse is lenient and bounded: it reads at most [`MAX_SITEINFO_BYTES`] before the first
//! page, skips what it cannot read (a cut-off element, a key that is not a number, a name longer
//! than a title can be) and keeps the rest. Damage around the siteinfo is the reader's to report
//! (as stray bytes between pages); a dump without a siteinfo gives an empty [`SiteInfo`].
use memchr::{memchr, memchr2, memmem};

use crate::xml;

/// The most bytes of a dump's head (everything before the first `<page>`) read for its
/// siteinfo: 1 MiB. A real siteinfo is a few kilobytes.
pub const MAX_SITEINFO_BYTES: usize = 1 << 20;

/// The most namespaces kept from one siteinfo (Wikimedia wikis have about 30 to 60).
const MAX_NAMESPACES: usize = 4096;

/// The longest namespace name kept, in bytes (MediaWiki's titles are at most 255 bytes).
const MAX_NAME_BYTES: usize = 255;

/// The longest value kept of the other siteinfo elements, in bytes.
const MAX_VALUE_BYTES: usize = 1024;

/// The namespace key of media links (`[[Media:File.ogg]]`).
pub const NS_MEDIA: i32 = -2;
/// The namespace key of files (`[[File:Picture.jpg|thumb|Caption]]`).
pub const NS_FILE: i32 = 6;
/// The namespace key of categories (`[[Category:Physics]]`).
pub const NS_CATEGORY: i32 = 14;

/// A dump's `<siteinfo>`: the wiki's name, database name, language and namespace names.
///
/// [`DumpReader::site_info`](crate::DumpReader::site_info) reads it from a dump;
/// [`SiteNames::for_site`](crate::SiteNames::for_site) turns it into the names the cleaner
/// removes.
///
/// ```
/// use textreuse_wikidump::{NS_CATEGORY, SiteInfo};
///
/// let head = r#"<mediawiki xml:lang="uk"><siteinfo><dbname>ukwiki</dbname><namespaces>
///   <namespace key="14" case="first-letter">Категорія</namespace>
/// </namespaces></siteinfo>"#;
/// let site = SiteInfo::parse(head.as_bytes());
/// assert_eq!(site.language(), Some("uk"));
/// assert_eq!(site.namespace(NS_CATEGORY), Some("Категорія"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SiteInfo {
    /// `<sitename>` (`Wikipedia`, `Вікіпедія`).
    pub sitename: Option<String>,
    /// `<dbname>` (`enwiki`, `ukwiki`).
    pub dbname: Option<String>,
    /// `<base>`: the URL of the main page.
    pub base: Option<String>,
    /// `<generator>` (`MediaWiki 1.41.0-wmf.6`).
    pub generator: Option<String>,
    /// The `xml:lang` attribute of the `<mediawiki>` root element: the wiki's content language.
    pub xml_lang: Option<String>,
    /// The namespaces, in dump order (the main namespace, key 0, has the empty name).
    pub namespaces: Vec<Namespace>,
}

/// One `<namespace key="N">Name</namespace>` of a siteinfo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Namespace {
    /// The namespace number (6 for files, 14 for categories, -2 for media).
    pub key: i32,
    /// Its local name, XML entities decoded (`Файл`, `Kategorie`); empty for the main namespace.
    pub name: String,
}

impl SiteInfo {
    /// Reads the siteinfo out of a dump's first bytes (at most [`MAX_SITEINFO_BYTES`] of them,
    /// up to the first `<page>`). Never fails: what cannot be read is left out, and input
    /// without a siteinfo gives the empty `SiteInfo`.
    #[must_use]
    pub fn parse(head: &[u8]) -> SiteInfo {
        let head = &head[..head.len().min(MAX_SITEINFO_BYTES)];
        let head = &head[..memmem::find(head, b"<page>").unwrap_or(head.len())];
        let mut site = SiteInfo {
            xml_lang: memmem::find(head, b"<mediawiki")
                .and_then(|at| open_tag(&head[at..]))
                .and_then(|tag| attribute(tag, b"xml:lang")),
            ..SiteInfo::default()
        };
        let Some(at) = memmem::find(head, b"<siteinfo") else {
            return site;
        };
        let body = &head[at..];
        let body = &body[..memmem::find(body, b"</siteinfo>").unwrap_or(body.len())];
        site.sitename = element(body, "sitename");
        site.dbname = element(body, "dbname");
        site.base = element(body, "base");
        site.generator = element(body, "generator");
        site.namespaces = namespaces(body);
        site
    }

    /// Whether nothing was read (no siteinfo, or none of it readable).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        *self == SiteInfo::default()
    }

    /// The local name of namespace `key`, if the siteinfo names it (the first name given).
    #[must_use]
    pub fn namespace(&self, key: i32) -> Option<&str> {
        self.namespaces
            .iter()
            .find(|n| n.key == key)
            .map(|n| n.name.as_str())
    }

    /// The wiki's language code (`uk`, `de`, `zh-yue`): `xml:lang` if present, else the
    /// database name without its project suffix (`ukwiki` -> `uk`, `be_x_oldwiki` ->
    /// `be-x-old`), else the first label of the `<base>` URL's host (`uk.wikipedia.org`).
    #[must_use]
    pub fn language(&self) -> Option<&str> {
        let valid = |s: &&str| {
            (2..=16).contains(&s.len())
                && s.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        };
        if let Some(lang) = self.xml_lang.as_deref().filter(valid) {
            return Some(lang);
        }
        self.dbname_language().or_else(|| self.base_language())
    }

    fn dbname_language(&self) -> Option<&str> {
        const PROJECTS: &[&str] = &[
            "wiktionary",
            "wikibooks",
            "wikinews",
            "wikiquote",
            "wikisource",
            "wikiversity",
            "wikivoyage",
            "wiki",
        ];
        let db = self.dbname.as_deref()?;
        let code = PROJECTS.iter().find_map(|p| db.strip_suffix(p))?;
        // `_` stands for `-` in database names (`zh_yuewiki`); codes with it are rare, and
        // returning the borrowed name keeps this allocation-free: only plain codes pass.
        ((2..=3).contains(&code.len()) && code.bytes().all(|b| b.is_ascii_lowercase()))
            .then_some(code)
    }

    fn base_language(&self) -> Option<&str> {
        let base = self.base.as_deref()?;
        let host = base.split_once("://").map_or(base, |(_, rest)| rest);
        let label = host.split(['.', '/']).next()?;
        ((2..=3).contains(&label.len()) && label.bytes().all(|b| b.is_ascii_lowercase()))
            .then_some(label)
    }
}

/// The attributes of the tag at the start of `s` (after its name, before `>`), if the tag is
/// closed before the next `<`.
fn open_tag(s: &[u8]) -> Option<&[u8]> {
    let end = memchr2(b'>', b'<', &s[1..]).map(|p| p + 1)?;
    (s[end] == b'>').then(|| &s[1..end])
}

/// The value of `name="..."` (or `'...'`) in a tag's attributes, entities decoded.
fn attribute(tag: &[u8], name: &[u8]) -> Option<String> {
    let mut from = 0;
    while let Some(p) = memmem::find(&tag[from..], name) {
        let at = from + p;
        from = at + name.len();
        let before_ok = at == 0 || tag[at - 1].is_ascii_whitespace();
        let rest = &tag[at + name.len()..];
        let Some(rest) = rest.strip_prefix(b"=") else {
            continue;
        };
        let quote = *rest.first()?;
        if !before_ok || !(quote == b'"' || quote == b'\'') {
            continue;
        }
        let len = memchr(quote, &rest[1..])?;
        return text(&rest[1..1 + len], MAX_VALUE_BYTES);
    }
    None
}

/// Raw XML text to a string: UTF-8, entities decoded, trimmed, at most `max` bytes.
fn text(raw: &[u8], max: usize) -> Option<String> {
    if raw.len() > max || raw.contains(&b'<') {
        return None;
    }
    let raw = std::str::from_utf8(raw).ok()?;
    let mut out = String::with_capacity(raw.len());
    xml::unescape_into(raw.trim(), &mut out);
    Some(out)
}

/// The text of the first `<name>...</name>` in `body`.
fn element(body: &[u8], name: &str) -> Option<String> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let start = memmem::find(body, open.as_bytes())? + open.len();
    let len = memmem::find(&body[start..], close.as_bytes())?;
    text(&body[start..start + len], MAX_VALUE_BYTES)
}

/// Every readable `<namespace key="N" ...>Name</namespace>` (or `<namespace key="0" />`).
fn namespaces(body: &[u8]) -> Vec<Namespace> {
    let mut out = Vec::new();
    let mut from = 0;
    while out.len() < MAX_NAMESPACES {
        let Some(p) = memmem::find(&body[from..], b"<namespace") else {
            break;
        };
        let at = from + p;
        from = at + b"<namespace".len();
        // `<namespaces>` is the list, not an entry.
        if !body.get(from).is_some_and(u8::is_ascii_whitespace) {
            continue;
        }
        let Some(tag) = open_tag(&body[at..]) else {
            continue;
        };
        let after = at + 1 + tag.len() + 1;
        let Some(key) = attribute(tag, b"key").and_then(|k| k.parse::<i32>().ok()) else {
            continue;
        };
        let name = if tag.ends_with(b"/") {
            Some(String::new())
        } else {
            let rest = &body[after..];
            memchr(b'<', rest)
                .filter(|&end| rest[end..].starts_with(b"</namespace>"))
                .and_then(|end| text(&rest[..end], MAX_NAME_BYTES))
        };
        if let Some(name) = name {
            from = after;
            out.push(Namespace { key, name });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const UK: &str = r#"<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10" xml:lang="uk">
  <siteinfo>
    <sitename>Вікіпедія</sitename>
    <dbname>ukwiki</dbname>
    <base>https://uk.wikipedia.org/wiki/Main</base>
    <generator>MediaWiki 1.41.0-wmf.6</generator>
    <case>first-letter</case>
    <namespaces>
      <namespace key="-2" case="first-letter">Медіа</namespace>
      <namespace key="0" case="first-letter" />
      <namespace key="6" case="first-letter">Файл</namespace>
      <namespace key="14" case="first-letter">Категорія</namespace>
      <namespace key="2302" case="case-sensitive">Gadget &amp; definition</namespace>
    </namespaces>
  </siteinfo>
  <page><title>X</title><ns>0</ns><id>1</id><revision><text>[[Файл:A.jpg]]</text></revision></page>
"#;

    #[test]
    fn reads_names_language_and_namespaces() {
        let site = SiteInfo::parse(UK.as_bytes());
        assert_eq!(site.sitename.as_deref(), Some("Вікіпедія"));
        assert_eq!(site.dbname.as_deref(), Some("ukwiki"));
        assert_eq!(site.generator.as_deref(), Some("MediaWiki 1.41.0-wmf.6"));
        assert_eq!(site.xml_lang.as_deref(), Some("uk"));
        assert_eq!(site.language(), Some("uk"));
        let keys: Vec<(i32, &str)> = site
            .namespaces
            .iter()
            .map(|n| (n.key, n.name.as_str()))
            .collect();
        assert_eq!(
            keys,
            [
                (-2, "Медіа"),
                (0, ""),
                (6, "Файл"),
                (14, "Категорія"),
                (2302, "Gadget & definition")
            ]
        );
        assert_eq!(site.namespace(NS_FILE), Some("Файл"));
        assert_eq!(site.namespace(NS_MEDIA), Some("Медіа"));
        assert_eq!(site.namespace(99), None);
        assert!(!site.is_empty());
    }

    #[test]
    fn language_falls_back_to_dbname_then_base() {
        let mut site = SiteInfo {
            dbname: Some("dewiki".into()),
            base: Some("https://fr.wikipedia.org/wiki/Accueil".into()),
            ..SiteInfo::default()
        };
        assert_eq!(site.language(), Some("de"));
        site.dbname = Some("commonswiki_x".into());
        assert_eq!(site.language(), Some("fr"));
        site.xml_lang = Some("\"><script>".into());
        assert_eq!(
            site.language(),
            Some("fr"),
            "an invalid xml:lang is ignored"
        );
        site.base = None;
        assert_eq!(site.language(), None);
        site.dbname = Some("ukwiktionary".into());
        assert_eq!(site.language(), Some("uk"));
    }

    #[test]
    fn missing_or_damaged_siteinfo_gives_what_can_be_read() {
        assert!(SiteInfo::parse(b"").is_empty());
        assert!(SiteInfo::parse(b"<mediawiki><page><title>A</title></page>").is_empty());
        // A siteinfo after the first page is not the dump's.
        assert!(
            SiteInfo::parse(b"<page></page><siteinfo><dbname>x</dbname></siteinfo>").is_empty()
        );

        // Cut off in the middle of the namespace list: the complete entries are kept.
        let cut = &UK[..UK.find("Категорія").unwrap() + 4];
        let site = SiteInfo::parse(cut.as_bytes());
        assert_eq!(site.dbname.as_deref(), Some("ukwiki"));
        let keys: Vec<i32> = site.namespaces.iter().map(|n| n.key).collect();
        assert_eq!(keys, [-2, 0, 6]);

        // Garbage keys, unclosed tags, markup inside a name, invalid UTF-8, huge names.
        let long = "x".repeat(300);
        let bad = format!(
            "<siteinfo><namespaces>\
             <namespace key=\"six\">Bad</namespace>\
             <namespace key=\"7\">A<b>c</b></namespace>\
             <namespace key=\"8\">\u{ff}</namespace>\
             <namespace key=\"9\">{long}</namespace>\
             <namespace key=\"10\"\
             <namespace key=\"14\">Kategorie</namespace>\
             <namespace key='-2'>Medium</namespace>\
             <namespace key=\"12\">never closed"
        );
        let mut bytes = bad.into_bytes();
        let ff = bytes
            .windows(2)
            .position(|w| w == "\u{ff}".as_bytes())
            .unwrap();
        bytes[ff] = 0xff; // invalid UTF-8
        let site = SiteInfo::parse(&bytes);
        let keys: Vec<(i32, &str)> = site
            .namespaces
            .iter()
            .map(|n| (n.key, n.name.as_str()))
            .collect();
        assert_eq!(keys, [(14, "Kategorie"), (-2, "Medium")]);
    }

    #[test]
    fn reads_at_most_the_cap() {
        let mut head = b"<siteinfo><namespaces>".to_vec();
        head.resize(MAX_SITEINFO_BYTES, b' ');
        head.extend_from_slice(b"<namespace key=\"14\">Late</namespace></namespaces></siteinfo>");
        assert!(SiteInfo::parse(&head).namespaces.is_empty());
    }

    proptest::proptest! {
        /// A siteinfo cut anywhere gives a prefix of the full namespace list, and the other
        /// fields either whole or absent: damage loses entries, it never invents or garbles one.
        #[test]
        fn a_cut_siteinfo_gives_a_prefix_of_the_namespaces(cut in 0..UK.len()) {
            let full = SiteInfo::parse(UK.as_bytes());
            let part = SiteInfo::parse(&UK.as_bytes()[..cut]);
            proptest::prop_assert!(part.namespaces.len() <= full.namespaces.len());
            proptest::prop_assert_eq!(&part.namespaces[..], &full.namespaces[..part.namespaces.len()]);
            for (got, want) in [(&part.dbname, &full.dbname), (&part.sitename, &full.sitename)] {
                proptest::prop_assert!(got.is_none() || got == want, "{:?}", got);
            }
        }

        /// Any bytes: no panic, and every name kept is within the bounds.
        #[test]
        fn any_bytes_parse_within_bounds(
            s in "(<siteinfo>|</siteinfo>|<namespaces>|<namespace key=\"|\" ?/?>|</namespace>|<page>|-?[0-9]{1,3}|Файл|&amp;|[<>\"'= a-z/])*",
        ) {
            let site = SiteInfo::parse(s.as_bytes());
            proptest::prop_assert!(site.namespaces.len() <= MAX_NAMESPACES);
            for ns in &site.namespaces {
                proptest::prop_assert!(ns.name.len() <= MAX_NAME_BYTES);
                proptest::prop_assert!(!ns.name.contains('<'));
            }
        }
    }
}
