//! Big tables on huge pages. A solver that touches a table of gigabytes
//! at random (the tier solver's working cells, a child tier's cells) pays
//! a page-table walk on most accesses when the table is mapped in 4 KiB
//! pages; in 2 MiB pages the translations of a few gigabytes fit the
//! processor's TLB. The kernel gives an allocation huge pages only where
//! it is asked to (`transparent_hugepage` set to `madvise`, the usual
//! default), so [`vec()`] asks, before the table's first touch. This,
//! `bits.rs` (in BMI2 builds), `prefetch.rs` and the x86 kernels of the
//! octal search are the crate's only unsafe code.

#![allow(unsafe_code)]

/// Tables smaller than this are left in ordinary pages: the advice pays
/// only where the translations outgrow the TLB.
const LEAST: usize = 64 << 20;

/// The size of a huge page.
const HUGE_PAGE: usize = 2 << 20;

/// A vector of `len` elements, element `i` being `fill(i)`, whose buffer
/// the kernel is asked to back with huge pages if it is big (the advice
/// may be refused; the vector is the same either way).
pub fn vec<T>(len: usize, fill: impl FnMut(usize) -> T) -> Vec<T> {
    let mut table: Vec<T> = Vec::with_capacity(len);
    advise(table.as_mut_ptr().cast::<u8>(), len * size_of::<T>());
    table.extend((0..len).map(fill));
    table
}

/// Asks the kernel to back the whole huge pages inside `bytes` bytes at
/// `start` with huge pages.
#[cfg(target_os = "linux")]
fn advise(start: *mut u8, bytes: usize) {
    if bytes < LEAST {
        return;
    }
    let first = (start as usize).next_multiple_of(HUGE_PAGE);
    let end = (start as usize + bytes) / HUGE_PAGE * HUGE_PAGE;
    if end <= first {
        return;
    }
    // SAFETY: `first..end` lies inside the `bytes` bytes at `start`, a
    // buffer the caller owns (a vector's capacity). MADV_HUGEPAGE reads and
    // writes no memory and leaves every page's contents and validity as
    // they were: it only lets the kernel map the range in huge pages. Its
    // result is ignored, as advice may be refused.
    unsafe {
        libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
    }
}

/// Other systems get no advice.
#[cfg(not(target_os = "linux"))]
fn advise(_start: *mut u8, _bytes: usize) {}

#[cfg(test)]
mod tests {
    #[test]
    fn a_big_table_holds_what_it_was_filled_with() {
        let len = (super::LEAST / 2) + 12_345;
        let table = super::vec(len, |i| (i % 65_521) as u16);
        assert_eq!(table.len(), len);
        assert!(
            table
                .iter()
                .enumerate()
                .all(|(i, &v)| v == (i % 65_521) as u16)
        );
    }

    #[test]
    fn a_small_table_is_filled_too() {
        let table = super::vec(5, |i| i * 3);
        assert_eq!(table, [0, 3, 6, 9, 12]);
    }
}
