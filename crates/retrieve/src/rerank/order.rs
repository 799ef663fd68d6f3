//! Turning the model's numbers into an order of the window: valid picks first, the rest after.

/// A new order of a window of candidates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Order {
    /// Window positions (from 0), in their new order: a permutation of `0..len`.
    pub(crate) positions: Vec<usize>,
    /// How many of the first positions the model chose (the rest kept their old order).
    pub(crate) picked: usize,
}

impl Order {
    /// The window as it was.
    pub(crate) fn unchanged(len: usize) -> Self {
        Self {
            positions: (0..len).collect(),
            picked: 0,
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
        let picked = positions.len();
        if picked == 0 {
            return None;
        }
        positions.extend((0..len).filter(|&p| !taken.get(p).copied().unwrap_or(true)));
        Some(Self { positions, picked })
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
    fn no_usable_number_is_no_order() {
        assert_eq!(Order::from_numbers(&[], 3), None);
        assert_eq!(Order::from_numbers(&[0, 4, 17], 3), None);
        assert_eq!(Order::unchanged(3).positions, [0, 1, 2]);
    }
}
