//! The Porter (1980) stemmer for lowercase ASCII English words, and an English stopword list.
//!
//! Private: the aligner only needs words of the same stem to get the same term id. Words that are
//! not lowercase ASCII are left as they are.

/// Stems `word` (lowercase ASCII letters) in place.
pub(crate) fn porter(word: &mut Vec<u8>) {
    if word.len() <= 2 || !word.iter().all(u8::is_ascii_lowercase) {
        return;
    }
    let mut s = Stemmer { b: word, j: 0 };
    s.step1ab();
    if s.b.len() > 1 {
        s.step1c();
        s.step2();
        s.step3();
        s.step4();
        s.step5();
    }
}

struct Stemmer<'a> {
    b: &'a mut Vec<u8>,
    /// Length of the stem before the suffix matched by the last `ends`.
    j: usize,
}

impl Stemmer<'_> {
    fn cons(&self, i: usize) -> bool {
        match self.b[i] {
            b'a' | b'e' | b'i' | b'o' | b'u' => false,
            b'y' => i == 0 || !self.cons(i - 1),
            _ => true,
        }
    }

    /// The number of consonant-vowel sequences in `b[..j]`.
    fn m(&self) -> usize {
        let (mut n, mut i) = (0, 0);
        let j = self.j;
        loop {
            if i >= j {
                return n;
            }
            if !self.cons(i) {
                break;
            }
            i += 1;
        }
        i += 1;
        loop {
            loop {
                if i >= j {
                    return n;
                }
                if self.cons(i) {
                    break;
                }
                i += 1;
            }
            i += 1;
            n += 1;
            loop {
                if i >= j {
                    return n;
                }
                if !self.cons(i) {
                    break;
                }
                i += 1;
            }
            i += 1;
        }
    }

    fn vowel_in_stem(&self) -> bool {
        (0..self.j).any(|i| !self.cons(i))
    }

    /// `b[..=i]` ends with a double consonant.
    fn double_c(&self, i: usize) -> bool {
        i >= 1 && self.b[i] == self.b[i - 1] && self.cons(i)
    }

    /// `b[i-2..=i]` is consonant-vowel-consonant and the last is not w, x or y.
    fn cvc(&self, i: usize) -> bool {
        if i < 2 || !self.cons(i) || self.cons(i - 1) || !self.cons(i - 2) {
            return false;
        }
        !matches!(self.b[i], b'w' | b'x' | b'y')
    }

    fn ends(&mut self, s: &[u8]) -> bool {
        if self.b.len() < s.len() || !self.b.ends_with(s) {
            return false;
        }
        self.j = self.b.len() - s.len();
        true
    }

    fn set_to(&mut self, s: &[u8]) {
        self.b.truncate(self.j);
        self.b.extend_from_slice(s);
    }

    fn r(&mut self, s: &[u8]) {
        if self.m() > 0 {
            self.set_to(s);
        }
    }

    fn last(&self) -> usize {
        self.b.len() - 1
    }

    fn step1ab(&mut self) {
        if self.b[self.last()] == b's' {
            if self.ends(b"sses") || self.ends(b"ies") {
                self.b.truncate(self.b.len() - 2);
            } else if self.b.len() >= 2 && self.b[self.b.len() - 2] != b's' {
                self.b.pop();
            }
        }
        if self.ends(b"eed") {
            if self.m() > 0 {
                self.b.pop();
            }
        } else if (self.ends(b"ed") || self.ends(b"ing")) && self.vowel_in_stem() {
            self.b.truncate(self.j);
            if self.ends(b"at") {
                self.set_to(b"ate");
            } else if self.ends(b"bl") {
                self.set_to(b"ble");
            } else if self.ends(b"iz") {
                self.set_to(b"ize");
            } else if self.double_c(self.last()) {
                if !matches!(self.b[self.last()], b'l' | b's' | b'z') {
                    self.b.pop();
                }
            } else {
                self.j = self.b.len();
                if self.m() == 1 && self.cvc(self.last()) {
                    self.b.push(b'e');
                }
            }
        }
    }

    fn step1c(&mut self) {
        if self.ends(b"y") && self.vowel_in_stem() {
            let k = self.last();
            self.b[k] = b'i';
        }
    }

    fn try_rules(&mut self, rules: &[(&[u8], &[u8])]) {
        for (suffix, replacement) in rules {
            if self.ends(suffix) {
                self.r(replacement);
                return;
            }
        }
    }

    fn step2(&mut self) {
        if self.b.len() < 2 {
            return;
        }
        let rules: &[(&[u8], &[u8])] = match self.b[self.b.len() - 2] {
            b'a' => &[(b"ational", b"ate"), (b"tional", b"tion")],
            b'c' => &[(b"enci", b"ence"), (b"anci", b"ance")],
            b'e' => &[(b"izer", b"ize")],
            b'l' => &[
                (b"bli", b"ble"),
                (b"alli", b"al"),
                (b"entli", b"ent"),
                (b"eli", b"e"),
                (b"ousli", b"ous"),
            ],
            b'o' => &[(b"ization", b"ize"), (b"ation", b"ate"), (b"ator", b"ate")],
            b's' => &[
                (b"alism", b"al"),
                (b"iveness", b"ive"),
                (b"fulness", b"ful"),
                (b"ousness", b"ous"),
            ],
            b't' => &[(b"aliti", b"al"), (b"iviti", b"ive"), (b"biliti", b"ble")],
            b'g' => &[(b"logi", b"log")],
            _ => return,
        };
        self.try_rules(rules);
    }

    fn step3(&mut self) {
        let rules: &[(&[u8], &[u8])] = match self.b[self.last()] {
            b'e' => &[(b"icate", b"ic"), (b"ative", b""), (b"alize", b"al")],
            b'i' => &[(b"iciti", b"ic")],
            b'l' => &[(b"ical", b"ic"), (b"ful", b"")],
            b's' => &[(b"ness", b"")],
            _ => return,
        };
        self.try_rules(rules);
    }

    fn step4(&mut self) {
        if self.b.len() < 2 {
            return;
        }
        let suffixes: &[&[u8]] = match self.b[self.b.len() - 2] {
            b'a' => &[b"al"],
            b'c' => &[b"ance", b"ence"],
            b'e' => &[b"er"],
            b'i' => &[b"ic"],
            b'l' => &[b"able", b"ible"],
            b'n' => &[b"ant", b"ement", b"ment", b"ent"],
            b'o' => {
                let ion =
                    self.ends(b"ion") && self.j >= 1 && matches!(self.b[self.j - 1], b's' | b't');
                if (ion || self.ends(b"ou")) && self.m() > 1 {
                    self.b.truncate(self.j);
                }
                return;
            }
            b's' => &[b"ism"],
            b't' => &[b"ate", b"iti"],
            b'u' => &[b"ous"],
            b'v' => &[b"ive"],
            b'z' => &[b"ize"],
            _ => return,
        };
        for s in suffixes {
            if self.ends(s) {
                if self.m() > 1 {
                    self.b.truncate(self.j);
                }
                return;
            }
        }
    }

    fn step5(&mut self) {
        self.j = self.b.len();
        if self.b[self.last()] == b'e' {
            self.j = self.b.len() - 1;
            let a = self.m();
            if a > 1 || a == 1 && !self.cvc(self.last() - 1) {
                self.b.pop();
            }
        }
        self.j = self.b.len();
        if self.b[self.last()] == b'l' && self.double_c(self.last()) && self.m() > 1 {
            self.b.pop();
        }
    }
}

/// A common English stopword list (the one of the NLTK corpus), sorted for binary search.
pub(crate) const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "did",
    "do",
    "does",
    "doing",
    "don",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "me",
    "more",
    "most",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "s",
    "same",
    "she",
    "should",
    "so",
    "some",
    "such",
    "t",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// True for a lowercase word in [`STOPWORDS`].
pub(crate) fn is_stopword(word: &[u8]) -> bool {
    STOPWORDS
        .binary_search_by(|w| w.as_bytes().cmp(word))
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stem(w: &str) -> String {
        let mut b = w.as_bytes().to_vec();
        porter(&mut b);
        String::from_utf8(b).unwrap()
    }

    #[test]
    fn porter_known_answers() {
        // From Porter's published vocabulary/output lists.
        for (w, s) in [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "ti"),
            ("cats", "cat"),
            ("feed", "feed"),
            ("agreed", "agre"),
            ("plastered", "plaster"),
            ("motoring", "motor"),
            ("sing", "sing"),
            ("conflated", "conflat"),
            ("troubled", "troubl"),
            ("sized", "size"),
            ("hopping", "hop"),
            ("falling", "fall"),
            ("filing", "file"),
            ("happy", "happi"),
            ("relational", "relat"),
            ("conditional", "condit"),
            ("generalization", "gener"),
            ("hopefulness", "hope"),
            ("electrical", "electr"),
            ("adjustment", "adjust"),
            ("adoption", "adopt"),
            ("controlling", "control"),
            ("rolling", "roll"),
            ("generously", "gener"),
            ("connections", "connect"),
            ("connected", "connect"),
        ] {
            assert_eq!(stem(w), s, "{w}");
        }
    }

    #[test]
    fn stopwords_sorted() {
        assert!(STOPWORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(is_stopword(b"the"));
        assert!(!is_stopword(b"plagiarism"));
    }
}
