//! The fixed bounds of one simulator's synthesis: a leaf type that both the
//! request reader and the value synthesizer use, so neither imports the other
//! for it.

/// Fixed limits of synthesis, from [`super::SimulatorSettings`].
#[derive(Clone, Debug)]
pub(crate) struct Limits {
    pub(crate) min_items: usize,
    pub(crate) max_items: usize,
    pub(crate) max_depth: usize,
    pub(crate) page_size: usize,
    /// Most items a call may ask for (`limit`, `per_page`, `cnt`).
    pub(crate) max_requested: usize,
    /// Most characters of one prompt to the oracle.
    pub(crate) max_prompt_chars: usize,
}
