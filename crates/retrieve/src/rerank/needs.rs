//! The per-intent window: every intent's own top list, each API once, shown grouped by need.

use toolsmith_catalog::ApiId;
use toolsmith_plumbing::text::truncate_chars;

use super::model::{Candidate, Need};
use super::order::Order;
use crate::intents::IntentLists;
use crate::retriever::Hit;

/// One need of the window: its intent and the window positions (from 0) of its list.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct NeedGroup {
    pub(crate) intent: String,
    pub(crate) positions: Vec<usize>,
}

/// The window of a request with several intents: the union of the intents' lists (the
/// first intent's, then what each next one adds), and each need's part of it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct NeedWindow {
    pub(crate) hits: Vec<Hit>,
    pub(crate) needs: Vec<NeedGroup>,
}

impl NeedWindow {
    /// The window of `lists`.
    pub(crate) fn new(lists: &IntentLists) -> Self {
        let hits: Vec<Hit> = lists.union().into_iter().cloned().collect();
        let position = |api: &ApiId| hits.iter().position(|h| &h.api == api);
        let needs = lists
            .intents
            .iter()
            .zip(&lists.lists)
            .map(|(intent, list)| NeedGroup {
                intent: intent.clone(),
                positions: list.iter().filter_map(|h| position(&h.api)).collect(),
            })
            .collect();
        Self { hits, needs }
    }

    /// The needs as the prompt shows them: numbered from 1, each candidate by its number in
    /// the window (from 1) and its doc cut to `doc_chars`.
    pub(crate) fn prompt(&self, doc_chars: usize) -> Vec<Need> {
        self.needs
            .iter()
            .enumerate()
            .map(|(i, need)| Need {
                number: i + 1,
                intent: need.intent.clone(),
                candidates: need
                    .positions
                    .iter()
                    .filter_map(|&p| {
                        self.hits.get(p).map(|hit| Candidate {
                            number: p + 1,
                            doc: truncate_chars(hit.text.trim(), doc_chars),
                        })
                    })
                    .collect(),
            })
            .collect()
    }
}

/// The reranked list of a per-intent window: the picks in `order`'s interleaved order, then
/// `fused` (the first stage's fused list) without them, cut to `k`. Each place takes the score
/// `fused` has there (past its end, its last), so scores still fall down the list.
pub(crate) fn arrange(window: &NeedWindow, order: &Order, fused: &[Hit], k: usize) -> Vec<Hit> {
    let picks: Vec<&Hit> = order
        .positions
        .iter()
        .take(order.picked)
        .filter_map(|&p| window.hits.get(p))
        .collect();
    let rest = fused
        .iter()
        .filter(|h| !picks.iter().any(|p| p.api == h.api));
    let last = fused.last().map_or(0.0, |h| h.score);
    picks
        .iter()
        .copied()
        .chain(rest)
        .take(k)
        .enumerate()
        .map(|(i, hit)| Hit {
            score: fused.get(i).map_or(last, |h| h.score),
            ..hit.clone()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn hit(api: &str, score: f32) -> Hit {
        let api: ApiId = api.parse().unwrap();
        Hit {
            tool: api.tool().clone(),
            text: format!("doc of {api}"),
            api,
            score,
        }
    }

    fn window() -> NeedWindow {
        NeedWindow::new(&IntentLists {
            intents: Arc::new(vec!["air".to_owned(), "mail".to_owned()]),
            lists: vec![
                vec![hit("t/a1", 3.0), hit("t/both", 2.0)],
                vec![hit("t/m1", 5.0), hit("t/both", 4.0), hit("t/m2", 1.0)],
            ],
        })
    }

    #[test]
    fn the_window_numbers_each_api_once_and_groups_it_under_every_need() {
        let w = window();
        let apis: Vec<String> = w.hits.iter().map(|h| h.api.to_string()).collect();
        assert_eq!(apis, ["t/a1", "t/both", "t/m1", "t/m2"]);
        assert_eq!(w.needs[1].positions, [2, 1, 3]);
        let needs = w.prompt(8);
        assert_eq!(needs[1].number, 2);
        assert_eq!(needs[1].intent, "mail");
        let numbers: Vec<usize> = needs[1].candidates.iter().map(|c| c.number).collect();
        assert_eq!(numbers, [3, 2, 4]);
        assert_eq!(needs[0].candidates[0].doc, "doc of t…");
    }

    #[test]
    fn picks_go_first_then_the_fused_list_without_them() {
        let w = window();
        let order = Order::interleave(&[vec![2], vec![4]], w.hits.len()).unwrap();
        let fused = vec![
            hit("t/m1", 1.0),
            hit("t/a1", 1.0),
            hit("t/both", 0.5),
            hit("t/m2", 0.3),
        ];
        let got = arrange(&w, &order, &fused, 3);
        let apis: Vec<String> = got.iter().map(|h| h.api.to_string()).collect();
        assert_eq!(apis, ["t/both", "t/m2", "t/m1"]);
        let scores: Vec<f32> = got.iter().map(|h| h.score).collect();
        assert_eq!(scores, [1.0, 1.0, 0.5]);
    }
}
