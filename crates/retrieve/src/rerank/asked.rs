//! What the model was shown for one request, and the order it gave.

use super::needs::NeedWindow;
use super::order::Order;
use crate::retriever::Hit;

/// The candidates the model saw for one request.
#[derive(Debug)]
pub(crate) enum Window {
    /// The first stage's top `depth`, as one list.
    Fused(Vec<Hit>),
    /// Every intent's own top `per_intent`, grouped by need.
    PerIntent(NeedWindow),
}

impl Window {
    pub(crate) fn hits(&self) -> &[Hit] {
        match self {
            Self::Fused(hits) => hits,
            Self::PerIntent(window) => &window.hits,
        }
    }
}

/// A request's window and the model's order of it.
#[derive(Debug)]
pub(crate) struct Asked {
    pub(crate) window: Window,
    pub(crate) order: Order,
}

/// `window` in `order`, each new position taking the score the old list had there.
pub(crate) fn reorder(window: &[Hit], order: &Order) -> Vec<Hit> {
    order
        .positions
        .iter()
        .zip(window)
        .filter_map(|(&from, slot)| {
            window.get(from).map(|hit| Hit {
                score: slot.score,
                ..hit.clone()
            })
        })
        .collect()
}
