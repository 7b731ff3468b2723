//! Value parsers and small value types of flags: thread counts, fractions, `N|off`, `on|off`.

/// The most threads `--threads` takes: every thread has its own stack and buffers, and more
/// threads than cores only add switching (machines with more than 1024 cores can leave the flag
/// out: the default is one thread per core).
pub const MAX_THREADS: usize = 1024;

/// `--threads`: 1 to [`MAX_THREADS`].
pub fn thread_count(text: &str) -> Result<usize, String> {
    match at_least_one(text)? {
        n if n > MAX_THREADS => Err(format!(
            "must be at most {MAX_THREADS} (more threads than cores only add overhead; leave \
             --threads out for one per core)"
        )),
        n => Ok(n),
    }
}

/// A count flag that must be at least 1 (`check --top`).
pub fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_string()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// `--fallback-ngram`: a word n-gram size of at least 1, or `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NgramOrOff(pub Option<usize>);

impl std::str::FromStr for NgramOrOff {
    type Err = String;

    fn from_str(text: &str) -> Result<NgramOrOff, String> {
        match text {
            "off" => Ok(NgramOrOff(None)),
            _ => at_least_one(text)
                .map(|n| NgramOrOff(Some(n)))
                .map_err(|e| format!("{e} (or `off`)")),
        }
    }
}

impl std::fmt::Display for NgramOrOff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(n) => write!(f, "{n}"),
            None => f.write_str("off"),
        }
    }
}

/// A probability or similarity flag: a number from 0 to 1 (`--recall`, `--max-edit`).
pub fn fraction(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        Ok(x) => Err(format!("must be a number from 0 to 1, got {x}")),
        Err(e) => Err(e.to_string()),
    }
}

/// A similarity threshold flag: a number strictly between 0 and 1 (`--threshold`, `--below`).
pub fn open_fraction(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x > 0.0 && x < 1.0 => Ok(x),
        Ok(x) => Err(format!(
            "must be a number strictly between 0 and 1, got {x}"
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// `on` or `off` (`--synonyms`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OnOff(pub bool);

impl std::str::FromStr for OnOff {
    type Err = String;

    fn from_str(text: &str) -> Result<OnOff, String> {
        match text {
            "on" => Ok(OnOff(true)),
            "off" => Ok(OnOff(false)),
            _ => Err(format!("expected `on` or `off`, got `{text}`")),
        }
    }
}

impl std::fmt::Display for OnOff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0 { "on" } else { "off" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_least_one_refuses_zero_and_text() {
        assert!(at_least_one("0").is_err() && at_least_one("x").is_err());
        assert_eq!(at_least_one("3"), Ok(3));
    }

    #[test]
    fn ngram_or_off_round_trips_and_refuses_zero() {
        for text in ["4", "off"] {
            assert_eq!(text.parse::<NgramOrOff>().unwrap().to_string(), text);
        }
        assert_eq!("3".parse(), Ok(NgramOrOff(Some(3))));
        assert!("0".parse::<NgramOrOff>().unwrap_err().contains("or `off`"));
        assert!("none".parse::<NgramOrOff>().is_err());
    }
}
