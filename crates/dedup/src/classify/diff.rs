//! The word-level difference of two texts: their longest common subsequence of words, and the
//! hunks between the words they share.
use super::tokens::Token;

/// A place where two texts differ: words `a.0..a.1` of the first replaced by words `b.0..b.1`
/// of the second (one side empty for an insertion or deletion).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hunk {
    pub a: (usize, usize),
    pub b: (usize, usize),
}

/// Longer texts are compared by their first this many words (a sentence rarely has more; the
/// table is at most this squared).
const MAX_WORDS: usize = 256;

/// The hunks of `a` against `b`, and the number of words they share in order.
pub(crate) fn diff(a: &[Token], b: &[Token]) -> (Vec<Hunk>, usize) {
    let (a, b) = (&a[..a.len().min(MAX_WORDS)], &b[..b.len().min(MAX_WORDS)]);
    // Common prefix and suffix first: most pairs differ in a word or two.
    let mut pre = 0;
    while pre < a.len() && pre < b.len() && a[pre].norm == b[pre].norm {
        pre += 1;
    }
    let mut suf = 0;
    while suf < a.len() - pre
        && suf < b.len() - pre
        && a[a.len() - 1 - suf].norm == b[b.len() - 1 - suf].norm
    {
        suf += 1;
    }
    let (ma, mb) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    let (n, m) = (ma.len(), mb.len());
    // lcs[i][j]: the LCS length of ma[i..] and mb[j..].
    let w = m + 1;
    let mut lcs = vec![0u16; (n + 1) * w];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i * w + j] = if ma[i].norm == mb[j].norm {
                lcs[(i + 1) * w + j + 1] + 1
            } else {
                lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
            };
        }
    }
    let mut hunks = Vec::new();
    let (mut i, mut j) = (0, 0);
    let mut open: Option<(usize, usize)> = None;
    let close = |open: &mut Option<(usize, usize)>, i: usize, j: usize, hunks: &mut Vec<Hunk>| {
        if let Some((si, sj)) = open.take() {
            hunks.push(Hunk {
                a: (pre + si, pre + i),
                b: (pre + sj, pre + j),
            });
        }
    };
    while i < n || j < m {
        if i < n && j < m && ma[i].norm == mb[j].norm {
            close(&mut open, i, j, &mut hunks);
            i += 1;
            j += 1;
        } else {
            open.get_or_insert((i, j));
            if j < m && (i == n || lcs[i * w + j + 1] >= lcs[(i + 1) * w + j]) {
                j += 1;
            } else {
                i += 1;
            }
        }
    }
    close(&mut open, n, m, &mut hunks);
    (hunks, pre + suf + lcs[0] as usize)
}

#[cfg(test)]
mod tests {
    use super::super::tokens::tokenize;
    use super::*;

    fn words(text: &str) -> Vec<Token> {
        let mut out = Vec::new();
        tokenize(text, &mut out);
        out
    }

    fn show(a: &str, b: &str) -> (Vec<(String, String)>, usize) {
        let (ta, tb) = (words(a), words(b));
        let (hunks, common) = diff(&ta, &tb);
        let side = |t: &[Token], r: (usize, usize)| {
            t[r.0..r.1]
                .iter()
                .map(|t| t.norm.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        };
        (
            hunks
                .iter()
                .map(|h| (side(&ta, h.a), side(&tb, h.b)))
                .collect(),
            common,
        )
    }

    #[test]
    fn hunks_between_shared_words() {
        let (hunks, common) = show(
            "Bulgaria, a poor rural nation of 7 million people, joined.",
            "Bulgaria, a poor rural nation of 4.5 million people, joined.",
        );
        assert_eq!(hunks, [("7".into(), "4.5".into())]);
        assert_eq!(common, 9);
        let (hunks, _) = show("Tarkovsky hired him in May.", "He hired him in early May.");
        assert_eq!(
            hunks,
            [
                ("tarkovsky".into(), "he".into()),
                (String::new(), "early".into())
            ]
        );
        let (hunks, common) = show("a b c", "a b c");
        assert!(hunks.is_empty() && common == 3);
        let (hunks, common) = show("", "x y");
        assert_eq!((hunks, common), (vec![(String::new(), "x y".into())], 0));
    }
}
