//! Turning the model's numbers into an order of the window: valid picks first, the rest after.

/// A new order of a window of candidates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Order {
    /// Window positions (from 0), in their new order: a permutation of `0..len`.
    pub(crate) positions: Vec<usize>,
    /// How many of the first positions the model chose (the rest kept their old order).
    pub(crate) picked: usize,
    /// With a per-intent window: the need (from 0) each of the `picked` positions was chosen
    /// for; empty for a fused window.
    pub(crate) served: Vec<usize>,
}

impl Order {
    /// The window as it was.
    pub(crate) fn unchanged(len: usize) -> Self {
        Self {
            positions: (0..len).collect(),
            picked: 0,
            served: Vec::new(),
        }
    }

    /// `numbers` (from 1) as an order of a window of `len`: numbers outside `1..=len` and
    /// repeats are dropped, the remaining candidates follow in their old order. `None` when no
    /// number is usable.
    pub(crate) fn from_numbers(numbers: &[usize], len: usize) -> Option<Self> {
        let mut taken = vec![false; len];
        let mut positions = Vec::with_capacity(len);
        for &n in numbers {
            let Some(pos) = n.checked_sub(1).filter(|&p| p < len) else {
                continue;
            };
            if let Some(seen) = taken.get_mut(pos).filter(|seen| !**seen) {
                *seen = true;
                positions.push(pos);
            }
        }
        Self::picks_then_rest(positions, &taken, Vec::new())
    }

    /// Each need's `numbers` (from 1, one list per need, most useful first) as an order of a
    /// window of `len` that shares the first slots: need 1's best, need 2's best, ..., then
    /// each need's second, and so on (a need with fewer picks drops out of later rounds).
    /// Numbers outside `1..=len` are dropped, and a candidate picked already (for this need
    /// or an earlier one) is skipped; the unpicked candidates follow in their old order.
    /// `None` when no number is usable.
    pub(crate) fn interleave(numbers: &[Vec<usize>], len: usize) -> Option<Self> {
        let valid: Vec<Vec<usize>> = numbers
            .iter()
            .map(|list| {
                list.iter()
                    .filter_map(|n| n.checked_sub(1).filter(|&p| p < len))
                    .collect()
            })
            .collect();
        let rounds = valid.iter().map(Vec::len).max().unwrap_or(0);
        let mut taken = vec![false; len];
        let mut positions = Vec::with_capacity(len);
        let mut served = Vec::new();
        let mut next = vec![0usize; valid.len()];
        for _ in 0..rounds {
            for (need, list) in valid.iter().enumerate() {
                // The need's next candidate not taken yet: a repeat does not cost it its turn.
                while let Some(&pos) = next.get(need).and_then(|&i| list.get(i)) {
                    if let Some(n) = next.get_mut(need) {
                        *n += 1;
                    }
                    if let Some(seen) = taken.get_mut(pos).filter(|seen| !**seen) {
                        *seen = true;
                        positions.push(pos);
                        served.push(need);
                        break;
                    }
                }
            }
        }
        Self::picks_then_rest(positions, &taken, served)
    }

    /// The picked `positions` first, then every position not `taken` in its old order;
    /// `None` when nothing was picked.
    fn picks_then_rest(
        mut positions: Vec<usize>,
        taken: &[bool],
        served: Vec<usize>,
    ) -> Option<Self> {
        let picked = positions.len();
        if picked == 0 {
            return None;
        }
        positions.extend((0..taken.len()).filter(|&p| !taken.get(p).copied().unwrap_or(true)));
        Some(Self {
            positions,
            picked,
            served,
        })
    }

    /// Where (from 0) window position `pos` went, and whether the model chose it.
    pub(crate) fn placed(&self, pos: usize) -> Option<(usize, bool)> {
        self.positions
            .iter()
            .position(|&p| p == pos)
            .map(|new| (new, new < self.picked))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_go_first_and_the_rest_keep_their_order() {
        let order = Order::from_numbers(&[4, 2], 5).unwrap();
        assert_eq!(order.positions, [3, 1, 0, 2, 4]);
        assert_eq!(order.picked, 2);
        assert_eq!(order.placed(3), Some((0, true)));
        assert_eq!(order.placed(0), Some((2, false)));
    }

    #[test]
    fn unknown_and_repeated_numbers_are_dropped() {
        let order = Order::from_numbers(&[0, 9, 3, 3, 1, 3], 3).unwrap();
        assert_eq!(order.positions, [2, 0, 1]);
        assert_eq!(order.picked, 2);
    }

    #[test]
    fn needs_share_the_first_slots_in_turn() {
        // Need 1 picks 2, 5, 1; need 2 picks 4, then 2 (taken by need 1), then 3.
        let order = Order::interleave(&[vec![2, 5, 1], vec![4, 2, 9, 3], vec![]], 6).unwrap();
        assert_eq!(order.positions, [1, 3, 4, 2, 0, 5]);
        assert_eq!(order.picked, 5);
        assert_eq!(order.served, [0, 1, 0, 1, 0]);
        assert_eq!(Order::interleave(&[vec![0, 7], vec![]], 6), None);
    }

    #[test]
    fn no_usable_number_is_no_order() {
        assert_eq!(Order::from_numbers(&[], 3), None);
        assert_eq!(Order::from_numbers(&[0, 4, 17], 3), None);
        assert_eq!(Order::unchanged(3).positions, [0, 1, 2]);
    }
}
