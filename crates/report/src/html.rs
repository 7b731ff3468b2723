//! The page: escaping, one inline style sheet, sections with a table of contents. No scripts,
//! fonts or images from anywhere: a report is one file that opens offline.
use std::fmt::Write as _;

/// Appends `text` to `out` with `&`, `<`, `>`, `"` and `'` escaped (for element content and
/// quoted attribute values).
pub fn escape_into(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// `text` escaped for HTML.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(text, &mut out);
    out
}

/// The first `n` characters of `text`, with "…" when cut.
pub(crate) fn clip(text: &str, n: usize) -> (&str, bool) {
    match text.char_indices().nth(n) {
        Some((i, _)) => (&text[..i], true),
        None => (text, false),
    }
}

const STYLE: &str = "\
:root{--fg:#1d2330;--muted:#5b6475;--line:#d9dee7;--bg:#fff;--soft:#f5f7fa;--accent:#1f5fbf;\
--ins:#d7f5dd;--del:#fbdada;--mark:#fff0a8}\
*{box-sizing:border-box}\
body{margin:0;font:15px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,\
sans-serif;color:var(--fg);background:var(--bg)}\
header{padding:20px 32px 8px;border-bottom:1px solid var(--line);background:var(--soft)}\
header h1{margin:0 0 4px;font-size:24px}\
header p{margin:0 0 8px;color:var(--muted)}\
nav a{margin-right:14px;color:var(--accent);text-decoration:none;font-size:14px}\
main{padding:8px 32px 40px;max-width:1280px}\
section{margin-top:28px}\
h2{font-size:19px;border-bottom:1px solid var(--line);padding-bottom:4px}\
h3{font-size:16px;margin:18px 0 6px}\
table{border-collapse:collapse;margin:8px 0;font-size:14px}\
th,td{border:1px solid var(--line);padding:4px 10px;text-align:left;vertical-align:top}\
th{background:var(--soft)}\
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}\
.figures{display:flex;flex-wrap:wrap;gap:16px}\
.figures.half figcaption{max-width:540px}\
figure{margin:8px 0;border:1px solid var(--line);padding:8px;background:#fff}\
figure svg{display:block;max-width:100%;height:auto}\
figcaption{color:var(--muted);font-size:13px;max-width:720px}\
.note{color:var(--muted);font-size:14px}\
.cluster{border:1px solid var(--line);border-radius:4px;margin:10px 0;padding:6px 12px}\
.cluster summary{cursor:pointer;font-weight:600}\
.member{margin:6px 0;padding:6px 8px;background:var(--soft);border-radius:3px}\
.member .meta{color:var(--muted);font-size:13px}\
.member.rep{border-left:3px solid var(--accent)}\
.contradiction{margin:10px 0 16px;padding-bottom:6px;border-bottom:1px solid var(--soft)}\
ins{background:var(--ins);text-decoration:none}\
del{background:var(--del)}\
mark{background:var(--mark)}\
.pair{display:grid;grid-template-columns:1fr 1fr;gap:12px;margin:8px 0 16px}\
.pair>div{background:var(--soft);padding:8px;border-radius:3px;white-space:pre-wrap;\
overflow-wrap:anywhere}\
.pair h4{margin:0 0 4px;font-size:13px;color:var(--muted)}\
.tag{display:inline-block;padding:0 6px;border-radius:3px;background:#e6ecf7;font-size:12px}\
footer{padding:16px 32px;color:var(--muted);font-size:13px;border-top:1px solid var(--line)}\
";

/// A report page under construction: sections are appended in order and listed in the
/// header's navigation.
#[derive(Debug)]
pub(crate) struct Page {
    title: String,
    subtitle: String,
    nav: Vec<(String, String)>,
    body: String,
}

impl Page {
    pub(crate) fn new(title: &str, subtitle: &str) -> Page {
        Page {
            title: title.to_string(),
            subtitle: subtitle.to_string(),
            nav: Vec::new(),
            body: String::new(),
        }
    }

    /// Opens a section with an `h2` heading and a navigation entry; the caller appends its
    /// content with [`Page::push`] and closes it with [`Page::end_section`].
    pub(crate) fn section(&mut self, id: &str, heading: &str) {
        self.nav.push((id.to_string(), heading.to_string()));
        let _ = write!(self.body, "<section id=\"{id}\"><h2>");
        escape_into(heading, &mut self.body);
        self.body.push_str("</h2>\n");
    }

    pub(crate) fn end_section(&mut self) {
        self.body.push_str("</section>\n");
    }

    /// Appends a whole section made elsewhere (`<section id="ID">...</section>`), with its
    /// navigation entry.
    pub(crate) fn append_section(&mut self, id: &str, heading: &str, html: &str) {
        self.nav.push((id.to_string(), heading.to_string()));
        self.body.push_str(html);
    }

    /// The body, to append HTML to.
    pub(crate) fn push(&mut self) -> &mut String {
        &mut self.body
    }

    /// A figure: an SVG plot with a caption.
    pub(crate) fn figure(&mut self, svg: &str, caption: &str) {
        self.body.push_str("<figure>");
        self.body.push_str(svg_body(svg));
        self.body.push_str("<figcaption>");
        escape_into(caption, &mut self.body);
        self.body.push_str("</figcaption></figure>\n");
    }

    /// A table from a header row and rows of cells already escaped (cells whose header starts
    /// with `#` are numbers, right-aligned; the `#` is not shown).
    pub(crate) fn table(&mut self, header: &[&str], rows: &[Vec<String>]) {
        let numeric: Vec<bool> = header.iter().map(|h| h.starts_with('#')).collect();
        self.body.push_str("<table><thead><tr>");
        for (h, &n) in header.iter().zip(&numeric) {
            let _ = write!(self.body, "<th{}>", if n { " class=\"n\"" } else { "" });
            escape_into(h.trim_start_matches('#'), &mut self.body);
            self.body.push_str("</th>");
        }
        self.body.push_str("</tr></thead><tbody>\n");
        for row in rows {
            self.body.push_str("<tr>");
            for (i, cell) in row.iter().enumerate() {
                let n = numeric.get(i).copied().unwrap_or(false);
                let _ = write!(
                    self.body,
                    "<td{}>{cell}</td>",
                    if n { " class=\"n\"" } else { "" }
                );
            }
            self.body.push_str("</tr>\n");
        }
        self.body.push_str("</tbody></table>\n");
    }

    /// The whole document.
    pub(crate) fn finish(self) -> String {
        let mut out = String::with_capacity(self.body.len() + STYLE.len() + 1024);
        out.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
        out.push_str("<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">");
        // Nothing is loaded from anywhere: no scripts at all, styles and images inline.
        out.push_str(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
             style-src 'unsafe-inline'; img-src data:\">",
        );
        out.push_str("<title>");
        escape_into(&self.title, &mut out);
        out.push_str("</title><style>");
        out.push_str(STYLE);
        out.push_str("</style></head><body>\n<header><h1>");
        escape_into(&self.title, &mut out);
        out.push_str("</h1><p>");
        escape_into(&self.subtitle, &mut out);
        out.push_str("</p><nav>");
        for (id, heading) in &self.nav {
            let _ = write!(out, "<a href=\"#{id}\">");
            escape_into(heading, &mut out);
            out.push_str("</a>");
        }
        out.push_str("</nav></header>\n<main>\n");
        out.push_str(&self.body);
        let _ = write!(
            out,
            "</main>\n<footer>Made by textreuse {} from the run's outputs; a self-contained \
             page (no scripts, nothing loaded from the network).</footer>\n</body></html>\n",
            env!("CARGO_PKG_VERSION")
        );
        out
    }
}

/// The `<svg ...>...</svg>` element of an SVG document (plotters writes no XML prolog today,
/// but one would be invalid inside HTML).
fn svg_body(svg: &str) -> &str {
    svg.find("<svg").map_or(svg, |i| &svg[i..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            escape(r#"<a href="x">Tom & 'Jerry'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn clips_on_characters() {
        assert_eq!(clip("héllo", 2), ("hé", true));
        assert_eq!(clip("héllo", 5), ("héllo", false));
    }

    #[test]
    fn page_lists_sections_in_navigation() {
        let mut page = Page::new("T <1>", "sub");
        page.section("a", "Alpha & co");
        page.table(&["name", "#count"], &[vec!["x".into(), "3".into()]]);
        page.end_section();
        let html = page.finish();
        assert!(html.contains("<title>T &lt;1&gt;</title>"));
        assert!(html.contains("<a href=\"#a\">Alpha &amp; co</a>"));
        assert!(html.contains("<td class=\"n\">3</td>"));
        assert!(!html.contains("<script"));
    }
}
