//! `-j N`: the same work on N threads, the results in input order.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The stack of a worker thread: twice the main thread's usual 8 MiB.
const WORKER_STACK: usize = 16 << 20;

/// The number of threads `-j` asks for: `0` is one per available CPU.
pub fn threads(jobs: usize) -> usize {
    if jobs == 0 {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    } else {
        jobs
    }
}

/// `f` of each item, on up to `jobs` threads (items are handed out one at a time, so a slow
/// one does not hold up a batch), returned in the order of `items`.
pub fn map_in_order<T, R, F>(items: &[T], jobs: usize, f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync,
{
    let threads = threads(jobs).min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                // The CEL parser recurses deeply: on a worker's default 2 MiB it would map
                // itself a fresh stack for each rule of a validator built here (only the pages
                // touched are committed).
                std::thread::Builder::new()
                    .stack_size(WORKER_STACK)
                    .spawn_scoped(scope, || {
                        let mut mine = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(item) = items.get(i) else { break };
                            mine.push((i, f(item)));
                        }
                        mine
                    })
                    .expect("a worker thread starts")
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| match w.join() {
                Ok(results) => results,
                // A panic in a worker is a bug: let it go on as it would have in one thread.
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_input_order_whatever_the_threads() {
        let items: Vec<u64> = (0..200).collect();
        for jobs in [0, 1, 2, 7, 500] {
            let got = map_in_order(&items, jobs, |&x| {
                // Uneven work, so threads finish out of order.
                std::thread::sleep(std::time::Duration::from_micros((x * 37) % 200));
                x * 2
            });
            assert_eq!(got, items.iter().map(|x| x * 2).collect::<Vec<_>>());
        }
    }
}
