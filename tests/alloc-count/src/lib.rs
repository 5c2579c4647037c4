//! A counting global allocator for benchmarks: the system allocator, which counts allocations
//! (`alloc`, `alloc_zeroed` and `realloc` calls), the bytes they ask for and the bytes live
//! (allocated less freed) while [`measure`] runs, and only then, so that timings taken
//! outside it are of the plain system allocator (one relaxed load more per call).
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOCATOR: crd_cel_alloc_count::Counting = crd_cel_alloc_count::Counting;
//!
//! let (value, counted) = crd_cel_alloc_count::measure(|| vec![1u8; 10]);
//! assert_eq!((counted.allocations, counted.bytes), (1, 10));
//! ```
//!
//! Counts are process-wide (every thread's allocations while [`measure`] runs): measure code
//! while nothing else runs.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64};

/// The counting allocator: install it with `#[global_allocator]`.
pub struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static ALLOCATED: AtomicU64 = AtomicU64::new(0);
static LIVE: AtomicI64 = AtomicI64::new(0);

fn allocated(size: usize) {
    ALLOCATIONS.fetch_add(1, Relaxed);
    ALLOCATED.fetch_add(size as u64, Relaxed);
    LIVE.fetch_add(size as i64, Relaxed);
}

// SAFETY: every call goes to `System` with the caller's arguments; the counting touches only
// atomics and never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Relaxed) {
            allocated(layout.size());
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Relaxed) {
            allocated(layout.size());
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if COUNTING.load(Relaxed) {
            LIVE.fetch_sub(layout.size() as i64, Relaxed);
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Relaxed) {
            allocated(new_size);
            LIVE.fetch_sub(layout.size() as i64, Relaxed);
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// What [`measure`] counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counted {
    /// Allocations: `alloc`, `alloc_zeroed` and `realloc` calls.
    pub allocations: u64,
    /// The bytes they asked for (a `realloc`'s new size).
    pub bytes: u64,
    /// The bytes still allocated at the end, less those freed (negative when more was freed
    /// than allocated).
    pub live: i64,
}

/// Runs `f`, counting the allocations made meanwhile (with [`Counting`] installed; zero
/// otherwise). Not reentrant: a nested call stops the counting of the outer one.
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, Counted) {
    let before = (
        ALLOCATIONS.load(Relaxed),
        ALLOCATED.load(Relaxed),
        LIVE.load(Relaxed),
    );
    COUNTING.store(true, Relaxed);
    let r = f();
    COUNTING.store(false, Relaxed);
    let counted = Counted {
        allocations: ALLOCATIONS.load(Relaxed) - before.0,
        bytes: ALLOCATED.load(Relaxed) - before.1,
        live: LIVE.load(Relaxed) - before.2,
    };
    (r, counted)
}
