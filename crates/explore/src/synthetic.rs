//! Synthetic outputs of the shape `textreuse reuse` and `dedup` write, any size, for the
//! explorer's scale benchmark (`examples/scale.rs`) and tests: the same lines for the same
//! seed on every machine. Their values are drawn, not found: they measure the explorer, not a
//! corpus.
use std::io::{self, Write};

/// A small fixed generator (SplitMix64): the same numbers for the same seed everywhere.
#[derive(Debug, Clone)]
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        crate::sample::mix(self.0)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

const WORDS: [&str; 24] = [
    "the",
    "village",
    "of",
    "population",
    "census",
    "river",
    "in",
    "was",
    "built",
    "district",
    "school",
    "county",
    "located",
    "church",
    "north",
    "and",
    "a",
    "is",
    "town",
    "station",
    "railway",
    "founded",
    "near",
    "municipality",
];

/// Writes `cases` reuse cases (one JSON line each, about 480 bytes) between `cases / 8 + 1`
/// articles: classes about 70% content, 20% structure, 10% spurious.
pub fn write_reuse(out: &mut impl Write, cases: u64, seed: u64) -> io::Result<()> {
    let mut d = Draw(seed);
    let articles = cases / 8 + 1;
    for _ in 0..cases {
        let a = d.below(articles);
        let b = d.below(articles);
        let kind = match d.below(10) {
            0..=6 => "content",
            7 | 8 => "structure",
            _ => "spurious",
        };
        let j2 = d.unit();
        let j5 = j2 * d.unit();
        let j10 = j5 * d.unit();
        let j15 = j10 * d.unit();
        let words_a = 20 + d.below(600);
        let words_b = 20 + d.below(600);
        writeln!(
            out,
            concat!(
                r#"{{"suspicious":{{"doc":"{a}","title":"Article {a}","source":"enwiki.xml.bz2","revision":{ra},"timestamp":"2016-04-22T10:19:33Z"}},"#,
                r#""source":{{"doc":"{b}","title":"Article {b}","source":"enwiki.xml.bz2","revision":{rb},"timestamp":"2016-03-02T08:11:01Z"}},"#,
                r#""suspicious_offset":{oa},"suspicious_length":{la},"source_offset":{ob},"source_length":{lb},"score":{score},"kind":"{kind}","#,
                r#""jaccard_2":{j2},"jaccard_5":{j5},"jaccard_10":{j10},"jaccard_15":{j15},"entity_jaccard":{ej},"#,
                r#""suspicious_share":{sa},"source_share":{sb},"suspicious_words":{words_a},"source_words":{words_b}}}"#
            ),
            a = a,
            b = b,
            ra = 700_000_000 + a,
            rb = 500_000_000 + b,
            oa = d.below(50_000),
            ob = d.below(50_000),
            la = words_a * 6,
            lb = words_b * 6,
            score = d.unit(),
            kind = kind,
            j2 = j2,
            j5 = j5,
            j10 = j10,
            j15 = j15,
            ej = d.unit(),
            sa = d.unit(),
            sb = d.unit(),
            words_a = words_a,
            words_b = words_b,
        )?;
    }
    Ok(())
}

/// Writes `clusters` clusters (one JSON line each, about 600 bytes for two members) over
/// `clusters / 4 + 1` articles: sizes 2 and up (one in four larger), types about 80% identical,
/// 10% copyedit, 5% template, 5% factual drift.
pub fn write_clusters(out: &mut impl Write, clusters: u64, seed: u64) -> io::Result<()> {
    let mut d = Draw(seed);
    let articles = clusters / 4 + 1;
    let mut text = String::new();
    for c in 0..clusters {
        let size = if d.below(4) == 0 { 3 + d.below(6) } else { 2 };
        let kind = match d.below(20) {
            0..=15 => "identical",
            16 | 17 => "copyedit",
            18 => "template",
            _ => "factual_drift",
        };
        write!(
            out,
            r#"{{"cluster":{id},"size":{size},"type":"{kind}","representative":0,"rule":"synthetic","members":["#,
            id = c * 7 + 3,
        )?;
        text.clear();
        for w in 0..12 {
            if w > 0 {
                text.push(' ');
            }
            text.push_str(WORDS[d.below(WORDS.len() as u64) as usize]);
        }
        for m in 0..size {
            let a = d.below(articles);
            let start = d.below(40_000);
            if m > 0 {
                out.write_all(b",")?;
            }
            write!(
                out,
                concat!(
                    r#"{{"doc":{a},"title":"Article {a}","idx":{idx},"text":"{text}","source":"enwiki.xml.bz2","#,
                    r#""revision":{rev},"timestamp":"2016-04-22T10:19:33Z","url":"https://en.wikipedia.org/w/index.php?oldid={rev}","#,
                    r#""start":{start},"end":{end},"similarity":{sim}}}"#
                ),
                a = a,
                idx = d.below(300),
                text = text,
                rev = 700_000_000 + a,
                start = start,
                end = start + text.len() as u64,
                sim = if m == 0 { 1.0 } else { 0.7 + 0.3 * d.unit() },
            )?;
        }
        out.write_all(b"]}\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Parsed, Table};

    #[test]
    fn every_line_parses_as_its_table() {
        let mut reuse = Vec::new();
        write_reuse(&mut reuse, 50, 1).unwrap();
        let mut clusters = Vec::new();
        write_clusters(&mut clusters, 50, 1).unwrap();
        let mut row = Parsed::default();
        for line in reuse.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            Table::Reuse.parse(line, &mut row).unwrap();
        }
        for line in clusters.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            Table::Clusters.parse(line, &mut row).unwrap();
        }
        let mut again = Vec::new();
        write_reuse(&mut again, 50, 1).unwrap();
        assert_eq!(again, reuse, "the same lines for the same seed");
    }
}
