//! The coder of the numbers processes send each other in batches: the
//! numbers bound for one process are sorted and sent as their differences,
//! each a LEB128 varint (one to three bytes where a plain `u64` takes
//! eight, when they are close). The distributed path (`dist`, its updates
//! and moves) and a tier team's cut tiers (`tier::cut`, a round's updates
//! to one peer) use this one copy.
//!
//! Decoding checks what it reads: bytes that end inside a varint, or a
//! varint past 64 bits, are refused, so that a garbled batch is an error
//! and never a panic.

#[cfg(feature = "dist")]
use crate::db::codec::put_varint;
use crate::db::codec::{get_varint, put_keys};

/// Sorts `values` and encodes them as differences from the one before
/// (the first from zero), each a LEB128 varint.
pub(crate) fn encode(values: &mut [u64]) -> Vec<u8> {
    values.sort_unstable();
    let mut bytes = Vec::with_capacity(values.len() * 2);
    put_keys(0, values, &mut bytes);
    bytes
}

/// Calls `visit` with each number [`encode`] wrote into `bytes`, in
/// increasing order; fails, saying why, where the bytes are no such
/// batch (those before the fault are visited).
pub(crate) fn decode(bytes: &[u8], mut visit: impl FnMut(u64)) -> Result<(), String> {
    let mut value = 0u64;
    decode_raw(bytes, |delta| match value.checked_add(delta) {
        Some(sum) => {
            value = sum;
            visit(value);
            true
        }
        None => false,
    })
}

/// Zigzag: small distances of either sign become small numbers.
#[cfg(feature = "dist")]
#[inline]
fn zigzag(distance: i64) -> u64 {
    ((distance << 1) ^ (distance >> 63)) as u64
}

#[cfg(feature = "dist")]
#[inline]
fn unzigzag(n: u64) -> i64 {
    (n >> 1) as i64 ^ -((n & 1) as i64)
}

/// Sorts the moves `(child's slot, parent's index)` and encodes each as the
/// difference of its slot from the one before and the zigzag distance of
/// the parent from the child's index (`index_of(slot)`), varints both.
#[cfg(feature = "dist")]
pub(crate) fn encode_pairs(pairs: &mut [(u64, u64)], index_of: impl Fn(u64) -> u64) -> Vec<u8> {
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

/// Calls `visit(slot, parent)` with each move [`encode_pairs`] wrote;
/// fails as [`decode`] does.
#[cfg(feature = "dist")]
pub(crate) fn decode_pairs(
    bytes: &[u8],
    index_of: impl Fn(u64) -> u64,
    mut visit: impl FnMut(u64, u64),
) -> Result<(), String> {
    let mut slot = 0u64;
    let mut slot_next = true;
    decode_raw(bytes, |n| {
        if slot_next {
            slot = slot.wrapping_add(n);
        } else {
            visit(
                slot,
                (index_of(slot) as i64).wrapping_add(unzigzag(n)) as u64,
            );
        }
        slot_next = !slot_next;
        true
    })?;
    if slot_next {
        Ok(())
    } else {
        Err("a move's slot without its parent".into())
    }
}

/// Calls `visit` with each varint in `bytes`, as written, while it says
/// to go on; fails where a varint runs past the end or past 64 bits, or
/// `visit` says no.
fn decode_raw(bytes: &[u8], mut visit: impl FnMut(u64) -> bool) -> Result<(), String> {
    let mut at = 0;
    while at < bytes.len() {
        let start = at;
        let Some(value) = get_varint(bytes, &mut at) else {
            return Err(format!(
                "a batch of {} bytes whose varint at byte {start} does not read",
                bytes.len()
            ));
        };
        if !visit(value) {
            return Err(format!(
                "a batch of {} bytes whose numbers pass 2^64 at byte {start}",
                bytes.len()
            ));
        }
    }
    Ok(())
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
            decode(&bytes, |v| back.push(v)).unwrap();
            values.sort_unstable();
            prop_assert_eq!(back, values);
        }

        #[test]
        fn a_batch_cut_short_is_refused(
            mut values in prop::collection::vec(128u64..1 << 40, 1..50),
        ) {
            let bytes = encode(&mut values);
            // Every number takes two bytes or more: the last byte alone
            // ends one, so dropping it leaves a varint unfinished.
            let cut = decode(&bytes[..bytes.len() - 1], |_| ());
            prop_assert!(cut.is_err());
        }
    }

    #[cfg(feature = "dist")]
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
            decode_pairs(&bytes, index_of, |slot, parent| back.push((slot, parent))).unwrap();
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

    #[test]
    fn numbers_past_two_to_the_64_are_refused() {
        let mut bytes = Vec::new();
        put_keys(0, &[u64::MAX], &mut bytes);
        bytes.extend_from_slice(&bytes.clone());
        assert!(decode(&bytes, |_| {}).is_err());
    }
}
