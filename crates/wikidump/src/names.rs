//! The names a wiki gives the links that are not prose: the namespaces of files, media and
//! categories, and the image options of file links, in English and in the wiki's language.
//!
//! Every wiki accepts the English (canonical) names; a wiki in another language adds its own
//! (`Файл`, `Kategorie`), older aliases (`Зображення`, `Bild`) and localized image options
//! (`міні`, `$1пкс`, `miniatur`). [`SiteNames::for_site`] takes them from a dump's siteinfo
//! and the built-in table ([`SiteNames::languages`]); [`SiteNames::english`] (the default) knows
//! the English names only.
use crate::site::{NS_CATEGORY, NS_FILE, NS_MEDIA, SiteInfo};

mod table;

/// One language of the built-in table: its namespace names and aliases and its image options,
/// without the English ones (which every wiki accepts).
pub(crate) struct Lang {
    /// Language code, as `xml:lang` of a dump gives it.
    code: &'static str,
    /// Names and aliases of the media namespace (-2).
    media: &'static [&'static str],
    /// Names and aliases of the file namespace (6).
    file: &'static [&'static str],
    /// Names and aliases of the category namespace (14).
    category: &'static [&'static str],
    /// The synonyms of the `img_*` magic words; `$1` stands for a value (`$1px`, `alt=$1`).
    image_options: &'static [&'static str],
}

/// The names of the hidden namespaces (files, media, categories) and the image options of one
/// wiki, for [`CleanerBuilder::site_names`](crate::CleanerBuilder::site_names).
///
/// ```
/// use textreuse_wikidump::SiteNames;
///
/// let uk = SiteNames::for_language("uk").expect("in the table");
/// assert!(uk.is_hidden_namespace("Категорія"));
/// assert!(uk.is_hidden_namespace("зображення")); // an alias, any case
/// assert!(uk.is_hidden_namespace("Category")); // English works everywhere
/// assert!(uk.is_image_option("міні") && uk.is_image_option("250пкс"));
/// assert!(!SiteNames::english().is_hidden_namespace("Категорія"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteNames {
    /// Lower-cased, `_` as a space.
    hidden: Vec<String>,
    /// The names of the category namespace among them.
    category: Vec<String>,
    /// Image options without a value (`thumb`, `міні`).
    image_words: Vec<String>,
    /// Image options with a value: what comes before and after `$1` (`("", "px")`).
    image_patterns: Vec<(String, String)>,
}

impl Default for SiteNames {
    /// [`SiteNames::english`].
    fn default() -> Self {
        SiteNames::english()
    }
}

impl SiteNames {
    /// The English names, which every wiki accepts: `File`, `Image`, `Media`, `Category`, and
    /// the English image options (`thumb`, `left`, `$1px`, ...).
    #[must_use]
    pub fn english() -> SiteNames {
        let mut names = SiteNames {
            hidden: Vec::new(),
            category: Vec::new(),
            image_words: Vec::new(),
            image_patterns: Vec::new(),
        };
        names.add_lang(&table::LANGUAGES[0]);
        names
    }

    /// The English names plus those of language `code` (`uk`, `de`; `nb` is `no`), or `None`
    /// for a language the built-in table lacks ([`SiteNames::languages`]).
    #[must_use]
    pub fn for_language(code: &str) -> Option<SiteNames> {
        let code = code.trim();
        let code = if code.eq_ignore_ascii_case("nb") {
            "no"
        } else {
            code
        };
        let lang = table::LANGUAGES
            .iter()
            .find(|l| l.code.eq_ignore_ascii_case(code))?;
        let mut names = SiteNames::english();
        names.add_lang(lang);
        Some(names)
    }

    /// The names for a dump's wiki: English, the built-in names of its language
    /// ([`SiteInfo::language`]) if the table has it, and the names its siteinfo gives the media,
    /// file and category namespaces. An empty siteinfo gives [`SiteNames::english`].
    #[must_use]
    pub fn for_site(site: &SiteInfo) -> SiteNames {
        let mut names = site
            .language()
            .and_then(SiteNames::for_language)
            .unwrap_or_else(SiteNames::english);
        for ns in &site.namespaces {
            if matches!(ns.key, NS_MEDIA | NS_FILE | NS_CATEGORY) {
                names.add_hidden_namespace(&ns.name);
            }
            if ns.key == NS_CATEGORY {
                names.add_category_name(&ns.name);
            }
        }
        names
    }

    /// The language codes of the built-in table, `en` first.
    pub fn languages() -> impl Iterator<Item = &'static str> {
        table::LANGUAGES.iter().map(|l| l.code)
    }

    /// Adds a namespace whose links are removed with their text (like files and categories).
    /// Empty names are ignored.
    pub fn add_hidden_namespace(&mut self, name: &str) -> &mut Self {
        let key = normalize(name);
        if !key.is_empty() && !self.hidden.contains(&key) {
            self.hidden.push(key);
        }
        self
    }

    /// Adds an image option: a word (`thumb`), or a pattern with `$1` for its value (`$1px`,
    /// `alt=$1`).
    pub fn add_image_option(&mut self, option: &str) -> &mut Self {
        let option = option.trim();
        match option.split_once("$1") {
            Some((before, after)) => {
                let pattern = (before.to_string(), after.to_string());
                if !self.image_patterns.contains(&pattern) {
                    self.image_patterns.push(pattern);
                }
            }
            None if !option.is_empty() && !self.image_words.iter().any(|w| w == option) => {
                self.image_words.push(option.to_string());
            }
            None => {}
        }
        self
    }

    fn add_category_name(&mut self, name: &str) {
        let key = normalize(name);
        if !key.is_empty() && !self.category.contains(&key) {
            self.category.push(key);
        }
    }

    fn add_lang(&mut self, lang: &Lang) {
        for name in lang.media.iter().chain(lang.file).chain(lang.category) {
            self.add_hidden_namespace(name);
        }
        for name in lang.category {
            self.add_category_name(name);
        }
        for option in lang.image_options {
            self.add_image_option(option);
        }
    }

    /// The names of the hidden namespaces, as compared: lower-case, `_` as a space.
    pub fn hidden_namespaces(&self) -> impl Iterator<Item = &str> {
        self.hidden.iter().map(String::as_str)
    }

    /// Whether links to namespace `prefix` (the text before a link target's first `:`) are
    /// removed: compared ignoring case, with `_` the same as a space, as MediaWiki does.
    #[must_use]
    pub fn is_hidden_namespace(&self, prefix: &str) -> bool {
        let prefix = prefix.trim();
        // Every name is short; a long prefix is no namespace (and costs no comparison).
        if prefix.is_empty() || prefix.len() > 255 {
            return false;
        }
        self.hidden.iter().any(|name| eq_normalized(name, prefix))
    }

    /// Whether `prefix` names the category namespace (`Category`, `Категорія`, any case, `_`
    /// as a space): links to it put the page in a category
    /// ([`Article::categories`](crate::Article::categories)).
    #[must_use]
    pub fn is_category_namespace(&self, prefix: &str) -> bool {
        let prefix = prefix.trim();
        !prefix.is_empty()
            && prefix.len() <= 255
            && self.category.iter().any(|name| eq_normalized(name, prefix))
    }

    /// Whether `param` (one `|`-separated parameter of a file link) is an image option of this
    /// wiki: a word (`thumb`, `міні`, `left`) or a pattern filled in (`250px`, `250пкс`,
    /// `upright=1.2`, `alt=Text`). Compared as written (MediaWiki's image options are
    /// case-sensitive), around trimmed white space.
    #[must_use]
    pub fn is_image_option(&self, param: &str) -> bool {
        let param = param.trim();
        if param.is_empty() {
            return false;
        }
        if self.image_words.iter().any(|w| w == param) {
            return true;
        }
        self.image_patterns.iter().any(|(before, after)| {
            // `link=` (no link) and `alt=` take an empty value; a size (`$1px`) does not.
            param.len() >= before.len() + after.len()
                && param.starts_with(before.as_str())
                && param.ends_with(after.as_str())
                && (!before.is_empty() || is_size(&param[..param.len() - after.len()]))
        })
    }
}

/// An image size as `$1px` takes it: `250`, `250x200`, `x200` (digits, at most one `x`).
fn is_size(value: &str) -> bool {
    let value = value.trim_end();
    let (w, h) = value.split_once('x').unwrap_or((value, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    !value.is_empty() && value != "x" && digits(w) && digits(h)
}

/// A namespace name as compared: lower-case, `_` and runs of white space as one space.
fn normalize(name: &str) -> String {
    normalized_chars(name.trim()).collect()
}

fn normalized_chars(s: &str) -> impl Iterator<Item = char> + '_ {
    let mut space = false;
    s.chars()
        .map(|c| {
            if c == '_' || c.is_whitespace() {
                ' '
            } else {
                c
            }
        })
        .filter(move |&c| {
            let keep = !(c == ' ' && space);
            space = c == ' ';
            keep
        })
        .flat_map(char::to_lowercase)
}

/// Whether `prefix` normalizes to `name` (already normalized), without allocating.
fn eq_normalized(name: &str, prefix: &str) -> bool {
    // Lower-casing changes a char's length in UTF-8 by a few bytes at most (`İ` -> `i̇`).
    if prefix.len() > 3 * name.len() + 3 || name.len() > 3 * prefix.len() + 3 {
        return false;
    }
    normalized_chars(prefix).eq(name.chars())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_names_are_the_old_four() {
        let en = SiteNames::english();
        for p in [
            "File", "file", "Image", "IMAGE", "Category", "category", "Media",
        ] {
            assert!(en.is_hidden_namespace(p), "{p}");
        }
        for p in [
            "Wikipedia",
            "Template",
            "Help",
            "Файл",
            "Kategorie",
            "",
            "Files",
        ] {
            assert!(!en.is_hidden_namespace(p), "{p}");
        }
        assert_eq!(SiteNames::default(), en);
    }

    #[test]
    fn table_languages_are_the_projects() {
        let codes: Vec<&str> = SiteNames::languages().collect();
        assert_eq!(codes[0], "en");
        // The dump slices of testdata/ and every `--lang` of the CLI (textreuse-align's list).
        for code in [
            "ar", "bg", "bn", "cs", "da", "de", "el", "es", "fi", "fr", "hu", "hy", "it", "ja",
            "mr", "nl", "no", "pl", "pt", "ro", "ru", "sv", "ta", "tr", "uk", "vi",
        ] {
            assert!(codes.contains(&code), "{code}");
            assert!(SiteNames::for_language(code).is_some(), "{code}");
        }
        assert!(SiteNames::for_language("nb").is_some());
        assert!(SiteNames::for_language("UK").is_some());
        assert!(SiteNames::for_language("xx").is_none());
    }

    #[test]
    fn localized_names_aliases_and_options() {
        let cases: &[(&str, &[&str], &[&str])] = &[
            (
                "uk",
                &["Файл", "Зображення", "Категорія", "Медіа", "Изображение"],
                &[
                    "міні",
                    "мініатюра",
                    "ліворуч",
                    "праворуч",
                    "безрамки",
                    "250пкс",
                    "мини",
                ],
            ),
            (
                "ru",
                &["Файл", "Изображение", "Категория", "Медиа"],
                &["мини", "миниатюра", "слева", "справа", "250пкс", "центр"],
            ),
            (
                "de",
                &["Datei", "Bild", "Kategorie", "Medium"],
                &["miniatur", "mini", "links", "rechts", "rahmenlos"],
            ),
            (
                "bg",
                &["Файл", "Картинка", "Категория", "Медия"],
                &["мини", "ляво", "дясно", "центр"],
            ),
            (
                "fr",
                &["Fichier", "Catégorie", "Média"],
                &["vignette", "gauche", "droite", "sans_cadre"],
            ),
            (
                "es",
                &["Archivo", "Imagen", "Categoría", "Medio"],
                &["miniatura", "izquierda", "derecha"],
            ),
            (
                "it",
                &["File", "Immagine", "Categoria"],
                &["miniatura", "sinistra", "destra"],
            ),
            (
                "pl",
                &["Plik", "Grafika", "Kategoria"],
                &["mały", "lewo", "prawo"],
            ),
            ("el", &["Αρχείο", "Εικόνα", "Κατηγορία"], &["μικρογραφία"]),
            (
                "ja",
                &["ファイル", "画像", "カテゴリ"],
                &["サムネイル", "左", "右", "250ピクセル"],
            ),
        ];
        for (code, namespaces, options) in cases {
            let names = SiteNames::for_language(code).unwrap();
            for ns in *namespaces {
                assert!(names.is_hidden_namespace(ns), "{code}: {ns}");
                assert!(
                    names.is_hidden_namespace(&ns.to_lowercase()),
                    "{code}: {ns}"
                );
            }
            for option in *options {
                assert!(names.is_image_option(option), "{code}: {option}");
            }
            // English is always there.
            assert!(names.is_hidden_namespace("Category") && names.is_image_option("thumb"));
        }
    }

    #[test]
    fn image_options_and_sizes() {
        let en = SiteNames::english();
        let yes = [
            "thumb",
            " thumb ",
            "left",
            "250px",
            "250x100px",
            "x100px",
            "upright=1.2",
            "upright",
            "alt=A cat",
            "link=",
            "page=3",
        ];
        for yes in yes {
            assert!(en.is_image_option(yes), "{yes}");
        }
        for no in [
            "Thumb",
            "px",
            "xpx",
            "12apx",
            "a cat sitting",
            "",
            "thumbs",
            "mini",
        ] {
            assert!(!en.is_image_option(no), "{no}");
        }
    }

    #[test]
    fn namespace_names_normalize_case_spaces_and_underscores() {
        let mut names = SiteNames::english();
        names
            .add_hidden_namespace("Thể_loại")
            .add_hidden_namespace("");
        assert!(names.is_hidden_namespace("Thể loại"));
        assert!(names.is_hidden_namespace("thể  loại"));
        assert!(names.is_hidden_namespace("THỂ_LOẠI"));
        assert!(!names.is_hidden_namespace("Thể"));
        assert!(!names.is_hidden_namespace(" "));
        assert!(!names.is_hidden_namespace(&"x".repeat(1000)));
    }

    #[test]
    fn names_from_a_siteinfo() {
        let site = SiteInfo::parse(
            r#"<mediawiki xml:lang="xx"><siteinfo><namespaces>
            <namespace key="6">Failo</namespace><namespace key="14">Klaso</namespace>
            <namespace key="10">Ŝablono</namespace></namespaces></siteinfo>"#
                .as_bytes(),
        );
        let names = SiteNames::for_site(&site);
        assert!(names.is_hidden_namespace("Failo") && names.is_hidden_namespace("klaso"));
        assert!(
            !names.is_hidden_namespace("Ŝablono"),
            "templates are not hidden links"
        );
        assert!(names.is_hidden_namespace("File"));
        assert_eq!(
            SiteNames::for_site(&SiteInfo::default()),
            SiteNames::english()
        );
    }
}
