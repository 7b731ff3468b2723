use proptest::prelude::*;

use super::*;

fn m<'a>(title: &'a str, text: &'a str) -> Member<'a> {
    // Members of one title share a document key; each text is a page of its own (two
    // revisions, for one title), as `page` makes them one page.
    let hash = |s: &str| {
        s.bytes()
            .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64))
    };
    Member {
        doc: hash(title),
        position: hash(text),
        title,
        text,
        categories: &[],
    }
}

fn kind(members: &[Member<'_>]) -> ClusterType {
    by_rules(members).kind
}

/// The two examples issue #45 quotes, completed into whole sentences: a template across Swiss
/// municipalities and factual drift between two articles.
#[test]
fn the_issues_examples() {
    let swiss = [
        m(
            "Aarberg",
            "Of the agricultural land, 40.4% is used for growing crops and 13.4% is pastures, while 2.2% is used for orchards or vine crops.",
        ),
        m(
            "Bargen, Bern",
            "Of the agricultural land, 52.1% is used for growing crops and 10.9% is pastures, while 1.1% is used for orchards or vine crops.",
        ),
        m(
            "Kallnach",
            "Of the agricultural land, 61.0% is used for growing crops and 8.3% is pastures, while 0.9% is used for orchards or vine crops.",
        ),
    ];
    let t = by_rules(&swiss);
    assert_eq!(
        (t.kind, t.evidence.rule),
        (ClusterType::Template, Rule::PerArticleFacts)
    );
    let bulgaria = [
        m(
            "History of the Balkans",
            "Bulgaria, a poor rural nation of 7 million people, sent soldiers to the front.",
        ),
        m(
            "Home front during World War I",
            "Bulgaria, a poor rural nation of 4.5 million people, sent soldiers to the front.",
        ),
    ];
    let t = by_rules(&bulgaria);
    assert_eq!(
        (t.kind, t.evidence.rule),
        (ClusterType::FactualDrift, Rule::SharedSubject)
    );
    // The default typing agrees on both.
    assert_eq!(type_cluster(&swiss).kind, ClusterType::Template);
    assert_eq!(type_cluster(&bulgaria).kind, ClusterType::FactualDrift);
    assert_eq!(t.evidence.differences.len(), 1);
    let d = &t.evidence.differences[0];
    // The larger group (ties: the first folded text) is compared with the others.
    assert_eq!(
        (d.kind, d.a.as_str(), d.b.as_str()),
        (DifferenceKind::Number, "4.5", "7")
    );
    assert_eq!(
        bulgaria[d.members[0]].title,
        "Home front during World War I"
    );
}

/// The paper's Figure 3 ("Categories of near-duplicate sentences in Wikipedia", Weissman et
/// al., JCDL 2015; its LaTeX source is in the authors' repository seweissman/wikiduper,
/// article/article-draft.tex), each typed as the paper types it. The figure gives no titles for
/// its references; any will do.
#[test]
fn the_papers_figure_3() {
    let templates = [
        m(
            "Gondiswil",
            "Of the agricultural land 40.4% is used for growing crops and 26.6% is pastures while 2.2% is used for orchards or vine crops.",
        ),
        m(
            "Kleindietwil",
            "Of the agricultural land 26.1% is used for growing crops and 30.2% is pastures while 3.0% is used for orchards or vine crops.",
        ),
        m(
            "Leimiswil",
            "Of the agricultural land 37.8% is used for growing crops and 35.5% is pastures while 2.2% is used for orchards or vine crops.",
        ),
    ];
    let identical = [
        m(
            "Professional organizing",
            "Professional organizers help redirect paradigms into more useful cross-applications that ensure properly co-sustainable futures for their clients' spaces and processes.",
        ),
        m(
            "Professional organizer",
            "Professional organizers help redirect paradigms into more useful cross-applications that ensure properly co-sustainable futures for their clients' spaces and processes.",
        ),
    ];
    let copyediting = [
        m(
            "Great Plains toad",
            "In dry areas it may only emerge from its burrow for a few weeks when conditions are right and usually at night but in areas with permanent water bodies and abundant rain it may be active all day.",
        ),
        m(
            "List of amphibians and reptiles of Montana",
            "In dry areas it may only emerge from its burrow for a few weeks when conditions are right and only at night but in areas with permanent water bodies and abundant rain it may be active all day.",
        ),
    ];
    let drift = [
        m(
            "Green flash",
            "The color of the upper rim of an astronomical object could go from green to blue to violet depending on the decrease in concentration of pollutants as they spread throughout an increasing volume of atmosphere.",
        ),
        m(
            "Mirage of astronomical objects",
            "The color of the upper limb of an astronomical object could go from blue to green to violet depending on the decrease in concentration of pollutants as they spread throughout an increasing volume of atmosphere.",
        ),
    ];
    let references = [
        m("Hypostomus", "Neotropical Ichthyology 11 (1): 73-80."),
        m("Corydoras", "Neotropical Ichthyology 10 (2): 245-253."),
    ];
    let other = [
        m(
            "Timeline of the 2001 anthrax attacks",
            "Army Medical Research Institute of Infectious Diseases (USAMRIID) microbiologist Bruce E.",
        ),
        m(
            "Fort Detrick",
            "Army Medical Research Institute of Infectious Diseases (USAMRIID) which transitioned from the previous U.S.",
        ),
    ];
    for (members, expected) in [
        (&templates[..], ClusterType::Template),
        (&identical[..], ClusterType::Identical),
        (&copyediting[..], ClusterType::Copyedit),
        (&drift[..], ClusterType::FactualDrift),
        (&references[..], ClusterType::Reference),
        (&other[..], ClusterType::Other),
    ] {
        let rules = by_rules(members);
        assert_eq!(rules.kind, expected, "the rules: {:?}", rules.evidence);
        // The default typing (the fitted model over the rules' evidence) agrees on five of the
        // six. A known gap: it types the drift example, whose only changes are a word order
        // and "rim"/"limb" between two articles, copyedit; in the labelled clusters an order
        // change was factual drift 2 times in 103 (date pages' birth and death entries are
        // most of them). The rules' verdict stays in the evidence.
        let t = type_cluster(members);
        assert_eq!(t.evidence.rule_type, expected);
        if expected == ClusterType::FactualDrift {
            assert_eq!(
                t.kind,
                ClusterType::Copyedit,
                "the known gap, {:.3}",
                t.confidence
            );
        } else {
            assert_eq!(t.kind, expected, "{:?}", t.evidence);
        }
    }
    let t = by_rules(&drift);
    assert!(
        t.evidence
            .differences
            .iter()
            .any(|d| d.kind == DifferenceKind::Order)
    );
}

#[test]
fn identical_up_to_typographic_variants() {
    for (a, b) in [
        (
            "The Fischer-Tropsch process makes fuel.",
            "The Fischer–Tropsch process makes fuel",
        ),
        (
            "He moved to the U.S. in 1990.",
            "He moved to the US in 1990.",
        ),
        (
            "It took 16 months to build.",
            "It took Sixteen months to build.",
        ),
        (
            "The “old” mill, on the river.",
            "The \"old\" mill on the river.",
        ),
    ] {
        let t = by_rules(&[m("A", a), m("B", b)]);
        assert_eq!(
            (t.kind, t.evidence.groups.len()),
            (ClusterType::Identical, 1),
            "{a} / {b}"
        );
    }
}

#[test]
fn non_substantive_edits_are_copyedits() {
    for (a, b) in [
        // A pronoun for the name.
        (
            "In 1970 Tarkovsky hired a new cameraman for the film.",
            "In 1970 he hired a new cameraman for the film.",
        ),
        // A typo.
        (
            "The treaty was recieved by the senate with little debate.",
            "The treaty was received by the senate with little debate.",
        ),
        // An added clause.
        (
            "The station opened in 1901 and closed in 1965.",
            "The station, which served the mill, opened in 1901 and closed in 1965.",
        ),
        // Filler dropped, words reordered.
        (
            "The river also flows north through the town of Ely.",
            "The river flows north through the town of Ely.",
        ),
        (
            "Grain and timber were the main exports of the port.",
            "Timber and grain were the main exports of the port.",
        ),
    ] {
        let t = by_rules(&[m("A", a), m("A", b)]);
        assert_eq!(
            (t.kind, t.evidence.rule),
            (ClusterType::Copyedit, Rule::NonSubstantive),
            "{a} / {b}"
        );
    }
}

#[test]
fn related_articles_are_one_subject() {
    let katrina = [
        m(
            "Hurricane Katrina",
            "The storm killed 1,833 people and caused $125 billion in damage.",
        ),
        m(
            "Hurricane Katrina disaster relief",
            "The storm killed 1,836 people and caused $125 billion in damage.",
        ),
    ];
    let t = by_rules(&katrina);
    assert_eq!(
        (t.kind, t.evidence.rule),
        (ClusterType::FactualDrift, Rule::RelatedArticles)
    );
    let copy = [
        m(
            "Hurricane Katrina",
            "The storm killed 1,833 people and caused great damage.",
        ),
        m(
            "Hurricane Katrina disaster relief",
            "The storm killed 1,833 people and caused much damage.",
        ),
    ];
    assert_eq!(kind(&copy), ClusterType::Copyedit);
}

#[test]
fn templates_name_their_own_subjects() {
    let t = by_rules(&[
        m(
            "Rockville, Maryland",
            "Rockville is a city in Montgomery County, Maryland, United States.",
        ),
        m(
            "Gaithersburg, Maryland",
            "Gaithersburg is a city in Montgomery County, Maryland, United States.",
        ),
    ]);
    assert_eq!(
        (t.kind, t.evidence.rule),
        (ClusterType::Template, Rule::OwnSubjects)
    );
    // Figures between sibling titles (one frame).
    let t = by_rules(&[
        m(
            "Garrett Park, Maryland",
            "The racial makeup of the town was 91.2% White and 3.1% African American.",
        ),
        m(
            "Kensington, Maryland",
            "The racial makeup of the town was 85.0% White and 6.4% African American.",
        ),
    ]);
    assert_eq!(
        (t.kind, t.evidence.rule),
        (ClusterType::Template, Rule::SiblingArticles)
    );
    // A shared category makes siblings of titles that share no word.
    let cat = ["Municipalities of the canton of Bern".to_string()];
    let with = |title, text| Member {
        categories: &cat,
        ..m(title, text)
    };
    let t = by_rules(&[
        with(
            "Lyss",
            "The town of Lyss has a population of 11,000 at the end of 2010.",
        ),
        with(
            "Aarberg",
            "The town of Aarberg has a population of 4,500 at the end of 2010.",
        ),
    ]);
    assert_eq!(t.kind, ClusterType::Template);
}

#[test]
fn drift_within_one_article_and_the_other_types() {
    let t = by_rules(&[
        m(
            "Albedo",
            "The albedo of the Earth was 0.30 in the survey of the year.",
        ),
        m(
            "Albedo",
            "The albedo of the Earth was 0.29 in the survey of the year.",
        ),
    ]);
    assert_eq!(
        (t.kind, t.evidence.rule),
        (ClusterType::FactualDrift, Rule::SameArticle)
    );
    // A negation is a changed fact.
    assert_eq!(
        kind(&[
            m(
                "Albedo",
                "Snow is a good reflector of the light of the sun."
            ),
            m(
                "Albedo",
                "Snow is not a good reflector of the light of the sun."
            ),
        ]),
        ClusterType::FactualDrift
    );
    // A renamed page is still one article.
    let a = Member {
        doc: 324,
        position: 0,
        title: "Academy Awards",
        text: "The mold was cast in 1928.",
        categories: &[],
    };
    let b = Member {
        title: "Academy Award",
        text: "The mold was cast in 1929.",
        ..a
    };
    assert_eq!(kind(&[a, b]), ClusterType::FactualDrift);
    assert_eq!(
        kind(&[
            m(
                "A",
                "Smith, J. (2001). A history of it. Oxford University Press. ISBN 1."
            ),
            m(
                "B",
                "Smith, J. (2002). A history of it. Oxford University Press. ISBN 2."
            ),
        ]),
        ClusterType::Reference
    );
    // A sentence-splitting error: one member runs on into the next sentence.
    let t = by_rules(&[
        m("A", "The castle was built in 1250."),
        m(
            "A",
            "The castle was built in 1250. Its walls fell down in the great siege of the town.",
        ),
    ]);
    assert_eq!(
        (t.kind, t.evidence.rule),
        (ClusterType::Other, Rule::Fragment)
    );
    assert_eq!(
        kind(&[
            m("A", "one two three four five six"),
            m("B", "one two seven eight nine ten")
        ]),
        ClusterType::Other
    );
}

#[test]
fn mixed_clusters_keep_their_groups() {
    let members = [
        m("Lyss", "The village has a school."),
        m("Bern", "The town has a school and a church."),
        m("Aarberg", "The village has a school"),
        m("Thun", "the village has a school."),
    ];
    let t = by_rules(&members);
    assert_eq!(t.evidence.groups, vec![vec![0, 2, 3], vec![1]]);
}

/// A word that exercises the folding: case, punctuation variants, numbers, names.
fn word() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "the",
        "The",
        "cat",
        "Cat",
        "sat",
        "on",
        "mat",
        "1928",
        "1,928",
        "Paris",
        "U.S.",
        "US",
        "sixteen",
        "16",
        "don't",
        "don’t",
        "co-op",
        "co–op",
        "a",
        "is",
        "village",
        "not",
        "he",
        "İstanbul",
        "ΣΟΦΟΣ",
        "straße",
    ])
}

fn text() -> impl Strategy<Value = String> {
    let sep = prop::sample::select(vec![" ", " ", "  ", ", ", ". ", "\n", " - "]);
    prop::collection::vec((word(), sep), 0..14)
        .prop_map(|parts| parts.into_iter().map(|(w, s)| format!("{w}{s}")).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// The type does not depend on the members' order; the groups partition the members.
    #[test]
    fn order_does_not_matter(
        members in prop::collection::vec((0u8..4, text()), 1..7),
        rotate in 0usize..7,
    ) {
        let titles = ["Lyss", "Bern", "Lyss, Bern", "Thun"];
        let ms: Vec<Member<'_>> = members.iter().map(|(t, x)| m(titles[*t as usize], x)).collect();
        let t = by_rules(&ms);
        let mut seen: Vec<usize> = t.evidence.groups.iter().flatten().copied().collect();
        seen.sort_unstable();
        prop_assert_eq!(seen, (0..ms.len()).collect::<Vec<_>>());
        let mut turned = ms.clone();
        turned.rotate_left(rotate % ms.len());
        let u = by_rules(&turned);
        prop_assert_eq!((u.kind, u.evidence.rule, u.evidence.groups.len()), (t.kind, t.evidence.rule, t.evidence.groups.len()));
        // The model reads the same evidence: the same type with the same confidence.
        let (t, u) = (type_cluster(&ms), type_cluster(&turned));
        prop_assert_eq!((t.kind, t.confidence), (u.kind, u.confidence));
    }

    /// Case, spacing and punctuation changes alone leave a cluster identical.
    #[test]
    fn folded_variants_are_identical(x in text()) {
        let shouted = x.to_uppercase().replace(' ', "  ").replace(", ", " ; ");
        let t = by_rules(&[m("A", &x), m("B", &shouted), m("C", &x)]);
        // Upper-casing can change a word's letters (ß -> SS), which is a spelling change.
        if !x.contains('ß') {
            prop_assert_eq!(t.kind, ClusterType::Identical);
        }
    }
}

#[test]
fn broken_edits_abbreviations_and_variants() {
    // Text pasted into a word by a broken edit is no changed fact.
    let t = by_rules(&[
        m(
            "Connecticut",
            "The colony of Connecticut was founded in 1636 by settlers.",
        ),
        m(
            "Connecticut",
            "The colony of Connecticuwas founded in 1636 by settlers.",
        ),
    ]);
    assert_eq!(t.kind, ClusterType::Copyedit);
    // An abbreviation for its words, a British spelling, an era name.
    for (a, b) in [
        (
            "Funding came from the International Food Policy Research Institute in 2001.",
            "Funding came from the IFPRI in 2001.",
        ),
        (
            "He built the Globe Theatre near the river in 1599.",
            "He built the Globe Theater near the river in 1599.",
        ),
        (
            "The city was founded in 753 BC by Romulus himself.",
            "The city was founded in 753 BCE by Romulus himself.",
        ),
    ] {
        assert_eq!(
            kind(&[m("A", a), m("A", b)]),
            ClusterType::Copyedit,
            "{a} / {b}"
        );
    }
    // A citation run into the sentence is a splitting error.
    let t = by_rules(&[
        m(
            "A",
            "The battle ended at dawn with the retreat of the army.",
        ),
        m(
            "A",
            "The battle ended at dawn with the retreat of the army. Eicher, The Longest Night. pp. 111–113",
        ),
    ]);
    assert_eq!(
        (t.kind, t.evidence.rule),
        (ClusterType::Other, Rule::Fragment)
    );
    // Dates written either way and ordinals in words are the same text.
    assert_eq!(
        kind(&[
            m(
                "A",
                "The armistice was signed on June 26, 1918 in the fifteenth carriage."
            ),
            m(
                "B",
                "The armistice was signed on 26 June 1918 in the 15th carriage."
            ),
        ]),
        ClusterType::Identical
    );
}

/// Sibling stubs state their own facts about "it" or "he": a template even where the frame
/// names a body or place in common, which alone would make one subject.
#[test]
fn sentences_about_each_articles_own_subject_are_templates() {
    let t = by_rules(&[
        m(
            "Caryn Tyson",
            "Previously she was a member of the Kansas House of Representatives representing District 4 from 2011 to 2013.",
        ),
        m(
            "Jim Denning",
            "Previously he was a member of the Kansas House of Representatives representing District 19 from 2011 to 2013.",
        ),
    ]);
    assert_eq!(
        (t.kind, t.evidence.rule),
        (ClusterType::Template, Rule::PerArticleFacts)
    );
    // Distances from each village to different towns share little beyond the frame.
    assert_eq!(
        kind(&[
            m(
                "Taszewo",
                "It lies approximately 4 kilometres south-east of Jeżewo, 10 km north-east of Świecie and 51 km north of Toruń.",
            ),
            m(
                "Olszynki",
                "It lies approximately 4 kilometres south of Kobiele Wielkie, 14 km south-east of Radomsko and 87 km south of Łódź.",
            ),
        ]),
        ClusterType::Template
    );
    // The subject's own name cut apart by the word diff, and a text that runs on.
    assert_eq!(
        kind(&[
            m(
                "Muskingum University",
                "Muskingum University is a private university located in New Concord, Ohio, United States.",
            ),
            m(
                "Valley View University",
                "Valley View University is a private university located in Oyibi, Accra, in the Greater Accra Region of Ghana.",
            ),
        ]),
        ClusterType::Template
    );
    // Without a pronoun for the articles' subjects, a name in common still makes one subject.
    assert_eq!(
        kind(&[
            m(
                "History of the Balkans",
                "Bulgaria, a poor rural nation of 7 million people, sent soldiers to the front.",
            ),
            m(
                "Home front during World War I",
                "Bulgaria, a poor rural nation of 4.5 million people, sent soldiers to the front.",
            ),
        ]),
        ClusterType::FactualDrift
    );
}

/// What a revision changes without changing a fact, and the quantities it does change.
#[test]
fn wording_that_is_not_a_changed_fact() {
    for (a, b) in [
        // A phrase moved within one article.
        (
            "The animals can be kept in the province by only zoos and universities.",
            "The animals can only be kept in the province by zoos and universities.",
        ),
        // A name dropped for "the", a name for common words, two forms of one word.
        (
            "These theories are related to Baron-Cohen's earlier theory of mind approach.",
            "These theories are related to the earlier theory of mind approach.",
        ),
        (
            "Help was sought from the French National Gendarmerie, with a detachment resident in the town.",
            "Help was sought from the French police, with a detachment resident in the town.",
        ),
        (
            "In the first year of the awards, the Best Director award was split in two.",
            "In the first year of the awards, the Best Directing award was split in two.",
        ),
        // A figure cut at a decimal place.
        (
            "Official reserves were put at US$ 182.2 billion at the end of the year.",
            "Official reserves were put at US$182 billion at the end of the year.",
        ),
        // A base as a lost subscript and as a word.
        (
            "Code 7F16 corresponds to the non-printable delete control character.",
            "Code 7Fhex corresponds to the non-printable delete control character.",
        ),
        // A name in another script beside its transliteration.
        (
            "Apollo was also known as Lyceus (Λύκειος, Lukeios, from Proto-Greek), the god of light.",
            "Apollo was also known as Lyceus (Lykeios, from Proto-Greek), the god of light.",
        ),
    ] {
        assert_eq!(
            kind(&[m("A", a), m("A", b)]),
            ClusterType::Copyedit,
            "{a} / {b}"
        );
    }
    for (a, b) in [
        // A quantity for another.
        (
            "The essay does give two compliments, however, to the women of the time.",
            "The essay does give some compliments, however, to the women of the time.",
        ),
        (
            "Excess amino acids from protein can be converted into glucose for fuel.",
            "A few amino acids from protein can be converted into glucose for fuel.",
        ),
        // A negation written as a contraction.
        (
            "The film was selected as the entry for the awards but it did make the final shortlist.",
            "The film was selected as the entry for the awards but it didn't make the final shortlist.",
        ),
        // A name for a name, one of them first in the sentence.
        (
            "Stalinist-led troops suppressed the collectives and persecuted the anarchists.",
            "Spanish Communist Party-led troops suppressed the collectives and persecuted the anarchists.",
        ),
        // Not a rounding: another figure with as many decimals.
        (
            "The albedo of the Earth was 0.30 in the survey.",
            "The albedo of the Earth was 0.29 in the survey.",
        ),
    ] {
        assert_eq!(
            kind(&[m("A", a), m("A", b)]),
            ClusterType::FactualDrift,
            "{a} / {b}"
        );
    }
}

/// In a wiki written in another script, names are names and a changed one is a changed fact.
#[test]
fn names_in_other_scripts() {
    assert_eq!(
        kind(&[
            m(
                "Біологія",
                "Термін запропонував Жан-Батист Ламарк у 1802 році в Парижі.",
            ),
            m(
                "Біологія",
                "Термін запропонував Готфрід Тревіранус у 1802 році в Парижі.",
            ),
        ]),
        ClusterType::FactualDrift
    );
}

/// Members of one page: the same document at the same place in the input.
fn page<'a>(title: &'a str, text: &'a str) -> Member<'a> {
    Member {
        position: 1,
        ..m(title, text)
    }
}

#[test]
fn one_frame_for_several_names_on_one_page_is_a_template() {
    // Two entries of one page's list (English Wikipedia, *Thomas Jefferson Foundation*).
    let law = "Thomas Jefferson Foundation Medal in Law is given jointly by the Foundation and \
               the University of Virginia School of Law.";
    let leadership = "Thomas Jefferson Foundation Medal in Citizen Leadership is given jointly by \
                      the Foundation and the University of Virginia School of Law.";
    let t = by_rules(&[
        page("Thomas Jefferson Foundation", law),
        page("Thomas Jefferson Foundation", leadership),
    ]);
    assert_eq!(
        (t.kind, t.evidence.rule),
        (ClusterType::Template, Rule::ParallelEntries)
    );
    // A name and a figure of one page's entries (*September 21*, its holidays).
    let t = by_rules(&[
        page(
            "September 21",
            "Independence Day, celebrates the independence of Belize from the United Kingdom in 1981.",
        ),
        page(
            "September 21",
            "Independence Day, celebrates the independence of Malta from the United Kingdom in 1964.",
        ),
    ]);
    assert_eq!(
        (t.kind, t.evidence.rule),
        (ClusterType::Template, Rule::ParallelEntries)
    );
    // The same change between two revisions of the page is a changed fact.
    let t = by_rules(&[
        m("Thomas Jefferson Foundation", law),
        m("Thomas Jefferson Foundation", leadership),
    ]);
    assert_eq!(t.kind, ClusterType::FactualDrift);
    // A figure changed within one page is still drift: the page contradicts itself
    // (*Brisbane Lions*: "from 1997 to 2009" / "from 2008 to 2009").
    let t = by_rules(&[
        page(
            "Brisbane Lions",
            "The Lions also wore this jumper from 1997 to 2009 before switching to a more modern lion.",
        ),
        page(
            "Brisbane Lions",
            "The Lions also wore this jumper from 2008 to 2009 before switching to a more modern lion.",
        ),
    ]);
    assert_eq!(
        (t.kind, t.evidence.rule),
        (ClusterType::FactualDrift, Rule::SameArticle)
    );
}

#[test]
fn a_birth_and_a_death_entry_of_date_pages_are_each_pages_own_facts() {
    // English Wikipedia, *December 9* (births) and *September 1* (deaths).
    let t = by_rules(&[
        m(
            "December 9",
            "1944 – Bob O'Connor, American businessman and politician, 57th Mayor of Pittsburgh (d. 2006)",
        ),
        m(
            "September 1",
            "2006 – Bob O'Connor, American businessman and politician, 57th Mayor of Pittsburgh (b. 1944)",
        ),
    ]);
    assert_eq!(
        (t.kind, t.evidence.rule),
        (ClusterType::Template, Rule::PerArticleFacts)
    );
    // Other figures are a changed fact.
    let t = by_rules(&[
        m(
            "December 9",
            "1944 – Bob O'Connor, American businessman and politician, 57th Mayor of Pittsburgh (d. 2006)",
        ),
        m(
            "September 1",
            "1945 – Bob O'Connor, American businessman and politician, 57th Mayor of Pittsburgh (d. 2007)",
        ),
    ]);
    assert_eq!(t.kind, ClusterType::FactualDrift);
}

/// One page's entries told apart by figures that label them are a template; a figure stated
/// after a preposition is a fact, and one page can contradict itself. Sentences of the 2019
/// articles' tuning halves (`studies/types`).
#[test]
fn figures_that_label_one_pages_entries_are_a_template() {
    let entries = [
        (
            "United States Air Force in Europe 1989",
            "78th Tactical Fighter Squadron, with 24x A-10 Thunderbolt II (based at RAF Woodbridge)",
            "91st Tactical Fighter Squadron, with 24x A-10 Thunderbolt II (based at RAF Woodbridge)",
        ),
        (
            "Guardians of the Galaxy: The Telltale Series",
            "_Episode 3_ received \"mixed or average reviews\" on all platforms according to Metacritic.",
            "_Episode 4_ received \"mixed or average reviews\" on all platforms according to Metacritic.",
        ),
        (
            "Left Front (West Bengal)",
            "In the 1989 Lok Sabha election, CPI(M) contested 31 seats, RSP 4 seats, CPI 3 seats and AIFB 3 seats.",
            "In the 1996 Lok Sabha election, CPI(M) contested 31 seats, RSP 4 seats, CPI 3 seats and AIFB 3 seats.",
        ),
        (
            "Latin",
            "The first declension is signified by the genitive singular ending of the noun.",
            "The third declension is signified by the genitive singular ending of the noun.",
        ),
        (
            "Lagrangian point",
            "The location of L₁ is the solution to the following equation, gravitation providing the centripetal force:",
            "The location of L₂ is the solution to the following equation, gravitation providing the centripetal force:",
        ),
    ];
    for (title, a, b) in entries {
        let t = by_rules(&[page(title, a), page(title, b)]);
        assert_eq!(
            (t.kind, t.evidence.rule),
            (ClusterType::Template, Rule::ParallelEntries),
            "{a}"
        );
    }
    for (title, a, b) in [
        (
            "Skyscraper",
            "In 1857, Elisha Otis introduced the safety elevator, allowing convenient and safe passenger movement to upper floors.",
            "In 1852 Elisha Otis introduced the safety elevator, allowing convenient and safe passenger movement to upper floors.",
        ),
        (
            "Qatar Tourism Authority",
            "Nationals of the 34 countries listed below do not require prior visa arrangements.",
            "Nationals of the 46 countries listed below do not require prior visa arrangements.",
        ),
        (
            "Honour medal of railroads",
            "The silk moiré ribbon was 37mm wide with seven equal vertical stripes.",
            "The silk moiré ribbon was 36mm wide with seven equal vertical stripes.",
        ),
        (
            "Croatia",
            "A 2011 survey revealed that 78% of Croatians claim knowledge of at least one foreign language.",
            "A 2009 survey revealed that 78% of Croatians claim knowledge of at least one foreign language.",
        ),
    ] {
        let t = by_rules(&[page(title, a), page(title, b)]);
        assert_eq!(
            (t.kind, t.evidence.rule),
            (ClusterType::FactualDrift, Rule::SameArticle),
            "{a}"
        );
    }
}

/// Two articles' entries whose keys, a figure and a name, both differ are each article's own
/// entries; a short form of each article's own name, or a pronoun after a date, is each
/// article's own subject.
#[test]
fn other_entries_and_own_names_across_articles_are_a_template() {
    let t = by_rules(&[
        m(
            "December 9",
            "1917 – James Rainwater, American physicist and academic, Nobel Prize laureate (d. 1986)",
        ),
        m(
            "July 29",
            "1898 – Isidor Isaac Rabi, American physicist and academic, Nobel Prize Laureate (d. 1988)",
        ),
    ]);
    assert_eq!(
        (t.kind, t.evidence.rule),
        (ClusterType::Template, Rule::PerArticleFacts)
    );
    let t = by_rules(&[
        m(
            "Ana Cristina da Silva",
            "On October 5, 2017, FIFA declared Cris and other nine Brazilian footballers ineligible to play for Equatorial Guinea.",
        ),
        m(
            "Carolina Conceição Martins Pereira",
            "On October 5, 2017, FIFA declared Carol and other nine Brazilian footballers ineligible to play for Equatorial Guinea.",
        ),
    ]);
    assert_eq!(t.kind, ClusterType::Template);
    let t = by_rules(&[
        m(
            "Ayakazu Hirose",
            "In 1997 he also received the highest distinction of the Scout Association of Japan, the Golden Pheasant Award.",
        ),
        m(
            "Gen Hirose",
            "In 1985 he received the highest distinction of the Scout Association of Japan, the Golden Pheasant Award.",
        ),
    ]);
    assert_eq!(t.kind, ClusterType::Template);
    // The paper's example stays drift: the figure is the shared subject's own.
    let t = by_rules(&[
        m(
            "History of the Balkans",
            "Bulgaria, a poor rural nation of 7 million people, sent soldiers to the front.",
        ),
        m(
            "Home front during World War I",
            "Bulgaria, a poor rural nation of 4.5 million people, sent soldiers to the front.",
        ),
    ]);
    assert_eq!(t.kind, ClusterType::FactualDrift);
}

/// Notes and bibliography entries without a publisher or an ISBN are citations too.
#[test]
fn notes_and_bibliography_entries_are_references() {
    for (a, b) in [
        (
            "Eugène Müller, Essai d'une monographie des rues, places et monuments de Senlis, 2nd part, _op.cit._, p. 354-355",
            "Eugène Müller, Essai d'une monographie des rues, places et monuments de Senlis, 3rd part, _op.cit._, p. 159",
        ),
        (
            "_The James Tiptree Award Anthology 2_ edited by Karen Joy Fowler, Pat Murphy, Debbie Notkin, and Jeffrey D. Smith (2006)",
            "_The James Tiptree Award Anthology 3_ edited by Karen Joy Fowler, Pat Murphy, Debbie Notkin, and Jeffrey D. Smith (2007)",
        ),
    ] {
        let t = by_rules(&[page("Ramparts of Senlis", a), page("Ramparts of Senlis", b)]);
        assert_eq!(
            (t.kind, t.evidence.rule),
            (ClusterType::Reference, Rule::Citation),
            "{a}"
        );
    }
    // One marker is not enough: a sentence that mentions proceedings.
    assert!(!looks_like_reference(
        "The proceedings of the council were published in Latin."
    ));
}
