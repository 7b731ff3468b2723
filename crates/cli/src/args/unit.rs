//! `--unit`: one type for every subcommand that takes it (`dedup`, `simhash`, `index create`).
//! Each accepts its own values, listed with its own help lines: [`UnitArg::DEDUP`],
//! [`UnitArg::SIMHASH`], [`UnitArg::INDEX`].
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use textreuse_index::IndexUnit;
use textreuse_shingle::units::Unit;

/// What is compared or indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnitArg {
    /// Sentences, as `dedup` cuts them.
    Sentence,
    /// Non-blank lines.
    Paragraph,
    /// Whole documents.
    Document,
    /// The paragraph chunks of `check` (word n-grams); only `index create` takes it.
    Chunk,
}

/// A value a subcommand's `--unit` accepts, with its line under "Possible values" in `--help`
/// (`None`: the value is only listed).
pub type Accepted = (UnitArg, Option<&'static str>);

impl UnitArg {
    /// `dedup --unit`.
    pub const DEDUP: &'static [Accepted] = &[
        (UnitArg::Sentence, None),
        (UnitArg::Paragraph, None),
        (UnitArg::Document, None),
    ];

    /// `simhash --unit`.
    pub const SIMHASH: &'static [Accepted] = &[
        (UnitArg::Sentence, Some("Sentences")),
        (UnitArg::Paragraph, Some("Non-blank lines")),
        (UnitArg::Document, Some("Whole documents")),
    ];

    /// `index create --unit`: chunks too.
    pub const INDEX: &'static [Accepted] = &[
        (UnitArg::Sentence, Some("Sentences, as `dedup` cuts them")),
        (UnitArg::Paragraph, Some("Non-blank lines")),
        (UnitArg::Document, Some("Whole documents")),
        (
            UnitArg::Chunk,
            Some("The paragraph chunks of `check` (word n-grams): for `check --index`"),
        ),
    ];

    /// The value's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            UnitArg::Sentence => "sentence",
            UnitArg::Paragraph => "paragraph",
            UnitArg::Document => "document",
            UnitArg::Chunk => "chunk",
        }
    }

    /// The parser of a `--unit` that accepts the values `accepted` (and no other).
    pub fn parser(accepted: &'static [Accepted]) -> impl TypedValueParser<Value = UnitArg> {
        let values = accepted.iter().map(|&(unit, help)| {
            let value = PossibleValue::new(unit.name());
            match help {
                Some(help) => value.help(help),
                None => value,
            }
        });
        PossibleValuesParser::new(values).map(move |name| {
            accepted
                .iter()
                .map(|&(unit, _)| unit)
                .find(|unit| unit.name() == name)
                .expect("the parser accepts only these names")
        })
    }

    /// The unit of dedup's engine; `None` for chunks, which only the index has.
    pub fn dedup_unit(self) -> Option<Unit> {
        match self {
            UnitArg::Sentence => Some(Unit::Sentence),
            UnitArg::Paragraph => Some(Unit::Paragraph),
            UnitArg::Document => Some(Unit::Document),
            UnitArg::Chunk => None,
        }
    }

    /// The unit of a persistent index.
    pub fn index_unit(self) -> IndexUnit {
        match self {
            UnitArg::Sentence => IndexUnit::Sentence,
            UnitArg::Paragraph => IndexUnit::Paragraph,
            UnitArg::Document => IndexUnit::Document,
            UnitArg::Chunk => IndexUnit::Chunk,
        }
    }
}

impl std::fmt::Display for UnitArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[arg(long, default_value_t = UnitArg::Sentence, value_parser = UnitArg::parser(UnitArg::DEDUP))]
        unit: UnitArg,
    }

    #[test]
    fn each_command_accepts_its_own_values() {
        let parse = |v: &str| Cli::try_parse_from(["t", "--unit", v]).map(|c| c.unit);
        assert_eq!(parse("paragraph").unwrap(), UnitArg::Paragraph);
        assert_eq!(Cli::try_parse_from(["t"]).unwrap().unit, UnitArg::Sentence);
        assert!(parse("chunk").is_err());
        for list in [UnitArg::DEDUP, UnitArg::SIMHASH, UnitArg::INDEX] {
            for &(unit, _) in list {
                assert_eq!(unit.to_string(), unit.name());
                assert_eq!(unit.dedup_unit().is_none(), unit == UnitArg::Chunk);
            }
        }
        assert_eq!(UnitArg::Chunk.index_unit(), IndexUnit::Chunk);
    }
}
