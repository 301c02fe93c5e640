//! A hint that an element will be read soon. The tier solver's first pass
//! and layers and its restore list a batch of cells far apart in memory before
//! they read any: hinting each as it is listed has the memory fetch them
//! all at once, rather than a few at a time as the reads themselves
//! allow. Unsafe code, kept here as `bits` keeps BMI2's.
#![allow(unsafe_code)]

/// Asks for the cache line holding `item` to be loaded. It changes no
/// result.
#[inline]
pub fn prefetch<T>(item: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch reads nothing into the program, writes
        // nothing and cannot fault; its pointer is to a live `T`. The
        // `sse` feature it needs is in every x86-64 target.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(item).cast::<i8>()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = item;
}
