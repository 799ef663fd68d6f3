//! The simulator's filler words: what a draft makes a text of where no example gives one
//! (a namesake padding a search, `Star Wars Garden`; a `type` of `island amber`), and how
//! to tell such a text, which [`super::neutral`] shows the fill model as a placeholder.

/// The words drafted texts are made of where no example gives one.
pub(super) const WORDS: &[&str] = &[
    "river", "silver", "north", "garden", "echo", "harbor", "lantern", "meadow", "summit",
    "velvet", "amber", "canyon", "falcon", "island", "marble", "orbit", "prairie", "quartz",
    "raven", "stone", "timber", "willow", "zenith", "crimson", "delta", "ember", "frost", "glade",
    "horizon", "ivory",
];

/// Whether `text` was made up from [`WORDS`]: one of its words is a filler word.
pub(super) fn made_up(text: &str) -> bool {
    text.split(|c: char| !c.is_alphanumeric())
        .any(|word| WORDS.iter().any(|w| w.eq_ignore_ascii_case(word)))
}
