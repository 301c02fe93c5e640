//! What workers send each other, in batches: the numbers bound for one
//! worker are gathered, sorted, and sent as one message of their
//! differences, each a LEB128 varint. Updates name the receiving worker's
//! slots, so consecutive differences are small (one to three bytes where a
//! plain `u64` took eight), and a round's updates to one worker travel as
//! a few messages instead of one record each. Moves sent while parents are
//! gathered are pairs (the child's slot, the parent's index): the slots go
//! as differences, and each parent as its distance from its child's index,
//! which a move keeps small. The coder is [`crate::team::varints`], which
//! a tier team's cut tiers use too.

/// A message: the receiving worker and its encoded numbers.
pub(super) type Batch = (u64, Vec<u8>);

/// Items waiting to be sent, one list per receiving worker.
pub(super) struct Outbox<T> {
    pending: Vec<Vec<T>>,
    /// Numbers waiting in all lists.
    waiting: usize,
}

/// Items an outbox holds before it asks to be flushed.
const FLUSH_AT: usize = 1 << 18;

impl<T: Clone> Outbox<T> {
    /// An empty outbox for `workers` receivers.
    pub(super) fn new(workers: usize) -> Outbox<T> {
        Outbox {
            pending: vec![Vec::new(); workers],
            waiting: 0,
        }
    }

    /// Queues `item` for worker `to`; true once the outbox should be
    /// flushed.
    #[inline]
    pub(super) fn push(&mut self, to: usize, item: T) -> bool {
        self.pending[to].push(item);
        self.waiting += 1;
        self.waiting >= FLUSH_AT
    }

    /// Encodes every non-empty list with `encode` (given the receiver and
    /// the list) as one batch and hands it to `send` with the number of
    /// items in it; the lists are kept for reuse.
    pub(super) fn flush(
        &mut self,
        encode: impl Fn(usize, &mut [T]) -> Vec<u8>,
        mut send: impl FnMut(Batch, usize),
    ) {
        for (to, items) in self.pending.iter_mut().enumerate() {
            if items.is_empty() {
                continue;
            }
            let count = items.len();
            send((to as u64, encode(to, items)), count);
            items.clear();
        }
        self.waiting = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::team::varints::{decode, encode};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn an_outbox_delivers_each_number_to_its_worker(
            sent in prop::collection::vec((0usize..4, 0u64..1 << 40), 0..300)
        ) {
            let mut outbox = Outbox::new(4);
            for &(to, value) in &sent {
                outbox.push(to, value);
            }
            let mut got = vec![Vec::new(); 4];
            let mut counted = 0;
            outbox.flush(|_, values| encode(values), |(to, bytes), count| {
                counted += count;
                decode(&bytes, |v| got[to as usize].push(v)).unwrap();
            });
            prop_assert_eq!(counted, sent.len());
            for (to, got) in got.into_iter().enumerate() {
                let mut want: Vec<u64> =
                    sent.iter().filter(|s| s.0 == to).map(|s| s.1).collect();
                want.sort_unstable();
                prop_assert_eq!(got, want);
            }
        }
    }
}
