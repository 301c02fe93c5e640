//! What workers send each other, in batches: the numbers bound for one
//! worker are gathered, sorted, and sent as one message of their
//! differences, each a LEB128 varint. Updates name the receiving worker's
//! slots, so consecutive differences are small (one to three bytes where a
//! plain `u64` took eight), and a round's updates to one worker travel as
//! a few messages instead of one record each. Moves sent while parents are
//! gathered are pairs (the child's slot, the parent's index): the slots go
//! as differences, and each parent as its distance from its child's index,
//! which a move keeps small.

/// A message: the receiving worker and its encoded numbers.
pub(super) type Batch = (u64, Vec<u8>);

use crate::db::codec::{put_keys, put_varint};

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

/// Sorts `values` and encodes them as differences from the one before
/// (the first from zero), each a LEB128 varint.
pub(super) fn encode(values: &mut [u64]) -> Vec<u8> {
    values.sort_unstable();
    let mut bytes = Vec::with_capacity(values.len() * 2);
    put_keys(0, values, &mut bytes);
    bytes
}

/// Calls `visit` with each number [`encode`] wrote into `bytes`, in
/// increasing order.
pub(super) fn decode(bytes: &[u8], mut visit: impl FnMut(u64)) {
    let mut value = 0u64;
    decode_raw(bytes, |delta| {
        value = value.wrapping_add(delta);
        visit(value);
    });
}

/// Zigzag: small distances of either sign become small numbers.
#[inline]
fn zigzag(distance: i64) -> u64 {
    ((distance << 1) ^ (distance >> 63)) as u64
}

#[inline]
fn unzigzag(n: u64) -> i64 {
    (n >> 1) as i64 ^ -((n & 1) as i64)
}

/// Sorts the moves `(child's slot, parent's index)` and encodes each as the
/// difference of its slot from the one before and the zigzag distance of
/// the parent from the child's index (`index_of(slot)`), varints both.
pub(super) fn encode_pairs(pairs: &mut [(u64, u64)], index_of: impl Fn(u64) -> u64) -> Vec<u8> {
    pairs.sort_unstable();
    let mut bytes = Vec::with_capacity(pairs.len() * 4);
    let mut before = 0;
    for &(slot, parent) in pairs.iter() {
        put_varint(slot - before, &mut bytes);
        before = slot;
        put_varint(zigzag(parent as i64 - index_of(slot) as i64), &mut bytes);
    }
    bytes
}

/// Calls `visit(slot, parent)` with each move [`encode_pairs`] wrote.
pub(super) fn decode_pairs(
    bytes: &[u8],
    index_of: impl Fn(u64) -> u64,
    mut visit: impl FnMut(u64, u64),
) {
    let mut slot = 0;
    let mut slot_next = true;
    decode_raw(bytes, |n| {
        if slot_next {
            slot += n;
        } else {
            visit(slot, (index_of(slot) as i64 + unzigzag(n)) as u64);
        }
        slot_next = !slot_next;
    });
}

/// Calls `visit` with each varint in `bytes`, as written.
fn decode_raw(bytes: &[u8], mut visit: impl FnMut(u64)) {
    let mut value = 0u64;
    let mut shift = 0;
    for &byte in bytes {
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            visit(value);
            value = 0;
            shift = 0;
        } else {
            shift = (shift + 7).min(63);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn decode_gives_back_the_sorted_numbers(mut values in prop::collection::vec(any::<u64>(), 0..200)) {
            let mut copy = values.clone();
            let bytes = encode(&mut copy);
            let mut back = Vec::new();
            decode(&bytes, |v| back.push(v));
            values.sort_unstable();
            prop_assert_eq!(back, values);
        }

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
                decode(&bytes, |v| got[to as usize].push(v));
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

    proptest! {
        #[test]
        fn moves_decode_to_what_was_encoded(
            mut pairs in prop::collection::vec((0u64..1 << 30, 0u64..1 << 33), 0..200),
            workers in 1u64..5,
        ) {
            let index_of = |slot: u64| slot * workers + 1;
            let mut copy = pairs.clone();
            let bytes = encode_pairs(&mut copy, index_of);
            let mut back = Vec::new();
            decode_pairs(&bytes, index_of, |slot, parent| back.push((slot, parent)));
            pairs.sort_unstable();
            prop_assert_eq!(back, pairs);
        }
    }

    #[test]
    fn close_numbers_take_a_byte_each() {
        let mut slots: Vec<u64> = (1000..1100).map(|s| s * 3).collect();
        // The first difference (3000) takes two bytes, the rest one.
        assert_eq!(encode(&mut slots).len(), 101);
    }
}
