//! The threads the whole-slice functions run on.
//!
//! A call made from a thread of a rayon pool (inside `ThreadPool::install`, or from a task
//! of the global pool) runs on that pool, as any rayon code does: that is how a Rust program
//! picks the threads. A call from any other thread (`main`, a thread of the application's
//! own, an OpenMP thread, every C caller) runs on the facade's own pool, whose size is
//!
//! 1. the last [`set_num_threads`] with `n > 0`, else
//! 2. the environment variable `ADN_NUM_THREADS` (a positive decimal number; read once, at
//!    the first call that needs the pool; anything else is ignored), else
//! 3. the number of cores the process may run on ([`std::thread::available_parallelism`]:
//!    the CPU affinity mask, and on Linux the cgroup CPU quota), divided by the MPI ranks on
//!    this node when the launcher left every rank on every core.
//!
//! With one thread nothing is handed to a pool: the call runs on the calling thread. Small
//! inputs also run on the calling thread (see `INLINE_SUM` in the crate root). The bits
//! never depend on any of this.
//!
//! The pool of n threads is n - 1 workers and the caller (see `Facade`). Calls from many
//! threads at once share it: one call at a time works beside the workers, the others hand
//! their work to the workers and wait, so at most n threads compute for reprosum at any time
//! (no oversubscription when, say, every thread of an OpenMP parallel region calls a sum),
//! and no worker ever waits for a caller's thread (no deadlock). Changing the size while calls
//! run is safe: running calls finish on the pool they started on. A child process made by
//! `fork` (Python's `multiprocessing`, a shell-out) starts a pool of its own at its first
//! call (the parent's threads are not in the child).

use crate::Error;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The facade's pool of n threads: n - 1 workers, and the thread of the call that has
/// claimed it. A call from outside any rayon pool claims it if no other call holds it, then
/// works beside the workers (the workers it wakes start while it computes; a call that
/// only handed its work over would wait for them to wake, and be woken in turn at the end:
/// a large share of a call of a few milliseconds). A call that finds it claimed hands its
/// work to the workers and waits, so at most n threads compute for reprosum at once.
pub(crate) struct Facade {
    workers: rayon::ThreadPool,
    claimed: AtomicBool,
}

impl Facade {
    /// A pool of `n >= 2` threads: `n - 1` workers are started.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] when the system refuses a thread (or its stack).
    fn new(n: usize) -> Result<Self, Error> {
        let workers = rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(2) - 1)
            .thread_name(|i| format!("reprosum-{i}"))
            .build()
            .map_err(|_| Error::OutOfMemory)?;
        Ok(Facade {
            workers,
            claimed: AtomicBool::new(false),
        })
    }

    /// The n of the pool (the workers and one caller).
    fn threads(&self) -> usize {
        self.workers.current_num_threads() + 1
    }
}

impl core::fmt::Debug for Facade {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Facade({} threads)", self.threads())
    }
}

/// Releases a claim on the facade's pool, also when the work panics.
struct Claim<'a>(&'a AtomicBool);

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// The facade pool's settings and the pool itself (built on first use).
struct State {
    /// The size [`set_num_threads`] asked for; 0: the default.
    requested: usize,
    /// `ADN_NUM_THREADS` or the available parallelism, once read.
    default: Option<usize>,
    /// The pool of the current size, when that size is above 1.
    pool: Option<Arc<Facade>>,
    /// The process that started the pool's threads (a child made by `fork` has none of them).
    pid: u32,
}

static STATE: Mutex<State> = Mutex::new(State {
    requested: 0,
    default: None,
    pool: None,
    pid: 0,
});

fn state() -> MutexGuard<'static, State> {
    // A panic while holding the lock cannot leave the state inconsistent (each field is
    // written whole), so a poisoned lock is used as it is.
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// `ADN_NUM_THREADS` if it is a positive decimal number.
fn from_env() -> Option<usize> {
    let v = std::env::var("ADN_NUM_THREADS").ok()?;
    v.trim().parse::<usize>().ok().filter(|&n| n > 0)
}

/// The default size without `ADN_NUM_THREADS`: the cores the process may run on, shared
/// with the other ranks of an MPI job on this node when the launcher left every rank on every
/// core (see [`set_num_threads`]).
fn default_size() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match (local_ranks(), online_cpus()) {
        (Some(ranks), Some(online)) if ranks > 1 && cores >= online => (cores / ranks).max(1),
        _ => cores,
    }
}

/// The number of ranks of this MPI job on this node, as the launchers state it (Open MPI,
/// MPICH and Intel MPI's Hydra, PMIx).
fn local_ranks() -> Option<usize> {
    ["OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PMIX_LOCAL_SIZE"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
}

/// The number of online CPUs (Linux: `/sys/devices/system/cpu/online`, a list of ranges).
fn online_cpus() -> Option<usize> {
    let text = std::fs::read_to_string("/sys/devices/system/cpu/online").ok()?;
    let mut n = 0usize;
    for part in text.trim().split(',') {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (a, b) = (a.parse::<usize>().ok()?, b.parse::<usize>().ok()?);
        n += b.checked_sub(a)? + 1;
    }
    (n > 0).then_some(n)
}

impl State {
    fn size(&mut self) -> usize {
        if self.requested > 0 {
            return self.requested;
        }
        *self
            .default
            .get_or_insert_with(|| from_env().unwrap_or_else(default_size))
    }

    /// The pool of the current size (built if needed); `None` for one thread.
    fn pool(&mut self) -> Result<Option<Arc<Facade>>, Error> {
        let n = self.size();
        if n <= 1 {
            self.pool = None;
            return Ok(None);
        }
        let pid = std::process::id();
        if self.pid != pid {
            // A child of `fork`: the pool's threads stayed in the parent, and its queues may be
            // in any state. Leak it (dropping would wake threads that do not exist) and start
            // another.
            if let Some(p) = self.pool.take() {
                core::mem::forget(p);
            }
        }
        if let Some(p) = &self.pool {
            if p.threads() == n {
                return Ok(Some(Arc::clone(p)));
            }
        }
        let p = Arc::new(Facade::new(n)?);
        self.pool = Some(Arc::clone(&p));
        self.pid = pid;
        Ok(Some(p))
    }
}

/// Sets the number of threads of the facade's pool: `n > 0` threads (1: the calling thread
/// only), or 0 for the default (`ADN_NUM_THREADS`, else the cores the process may run on).
/// The threads are started here, so that a system that refuses them says so now.
///
/// Which threads a call runs on: a call made from a thread of a rayon pool (inside
/// `ThreadPool::install`, or a task of the global pool) runs on that pool, as any rayon code;
/// a call from any other thread runs on the facade's own pool, of this size, shared by every
/// such caller (n - 1 workers; one call at a time works beside them, the others wait for
/// theirs; no worker waits for a caller). The default
/// is `ADN_NUM_THREADS` (a positive number, read once) or else
/// [`std::thread::available_parallelism`] (the CPU affinity mask and cgroup quota); under an
/// MPI launcher that left every rank free to run on every core of the node
/// (`mpirun --bind-to none`), that count divided by the ranks on the node
/// (`OMPI_COMM_WORLD_LOCAL_SIZE`, `MPI_LOCALNRANKS` or `PMIX_LOCAL_SIZE`), so that the ranks'
/// pools do not oversubscribe the cores. Small
/// inputs run on the calling thread. A child of `fork` starts its own pool. The bits never
/// depend on any of this.
///
/// # Errors
/// [`Error::OutOfMemory`] if the threads cannot be started; the previous setting is kept.
pub fn set_num_threads(n: usize) -> Result<(), Error> {
    let mut s = state();
    let old = s.requested;
    s.requested = n;
    // `pool` replaces the pool only once a new one is built.
    s.pool().map(|_| ()).inspect_err(|_| s.requested = old)
}

/// The number of threads a call from outside any rayon pool runs on (at least 1): the
/// value [`set_num_threads`] set, else the default.
pub fn num_threads() -> usize {
    state().size()
}

/// Where a call's work runs.
#[derive(Clone, Debug)]
pub(crate) enum Threads {
    /// On the calling thread only.
    Calling,
    /// On the current rayon pool (the call came from one of its threads), of this many
    /// threads.
    Pool(usize),
    /// On the facade's pool, from a thread outside it (see [`Facade`]). The workers get one
    /// task each at once (each injected task wakes a worker, so they start together;
    /// `install` would wake one, which wakes the next as it splits the work).
    Facade(Arc<Facade>),
}

impl PartialEq for Threads {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Threads::Calling, Threads::Calling) => true,
            (Threads::Pool(a), Threads::Pool(b)) => a == b,
            (Threads::Facade(a), Threads::Facade(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Threads {
    /// How many threads do the work.
    pub(crate) fn count(&self) -> usize {
        match self {
            Threads::Calling => 1,
            Threads::Pool(t) => *t,
            Threads::Facade(p) => p.threads(),
        }
    }

    /// `work` applied to every item, on these threads; the results in the items' order.
    /// The items are taken in any order and by any thread, so `work` must not care.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] when the bookkeeping cannot be allocated (nothing has run
    /// then), else the first error `work` returned (the items not yet taken are dropped
    /// unprocessed).
    pub(crate) fn map<I: Send, R: Send>(
        &self,
        items: impl ExactSizeIterator<Item = I>,
        work: impl Fn(I) -> Result<R, Error> + Sync,
    ) -> Result<Vec<R>, Error> {
        let n = items.len();
        let mut slots: Vec<Mutex<(Option<I>, Option<R>)>> = Vec::new();
        slots.try_reserve_exact(n).map_err(|_| Error::OutOfMemory)?;
        slots.extend(items.map(|i| Mutex::new((Some(i), None))));
        let failed: Mutex<Option<Error>> = Mutex::new(None);
        let next = AtomicUsize::new(0);
        // Takes items until none is left or one has failed.
        let worker = || loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= n || lock(&failed).is_some() {
                return;
            }
            let Some(item) = lock(&slots[i]).0.take() else {
                return;
            };
            match work(item) {
                Ok(r) => lock(&slots[i]).1 = Some(r),
                Err(e) => {
                    lock(&failed).get_or_insert(e);
                    return;
                }
            }
        };
        match self {
            Threads::Calling => worker(),
            Threads::Pool(t) => rayon::scope(|s| {
                for _ in 0..(*t).min(n) {
                    s.spawn(|_| worker());
                }
            }),
            Threads::Facade(p) => {
                let claim = p
                    .claimed
                    .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
                    .then(|| Claim(&p.claimed));
                let workers = p.workers.current_num_threads();
                p.workers.in_place_scope(|s| {
                    let helpers = if claim.is_some() { n.saturating_sub(1) } else { n };
                    for _ in 0..workers.min(helpers) {
                        s.spawn(|_| worker());
                    }
                    if claim.is_some() {
                        worker();
                    }
                });
                drop(claim);
            }
        }
        if let Some(e) = lock(&failed).take() {
            return Err(e);
        }
        let mut out = Vec::new();
        out.try_reserve_exact(n).map_err(|_| Error::OutOfMemory)?;
        for slot in slots {
            let (_, r) = slot.into_inner().unwrap_or_else(PoisonError::into_inner);
            // Every item was taken and none failed, so every result is there.
            out.extend(r);
        }
        Ok(out)
    }
}

/// Locks `m`; a panic in another holder cannot leave these slots half-written.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs `f` where the work should run: on the calling thread when `small` (or when the
/// facade pool has one thread), on the current rayon pool when called from one, else on the
/// facade's pool (`f` itself then runs on the calling thread, and hands its parallel work
/// to the pool through [`Threads::map`]).
///
/// # Errors
/// [`Error::OutOfMemory`] when the pool cannot be started (nothing has run then).
pub(crate) fn run<R: Send>(
    small: bool,
    f: impl FnOnce(Threads) -> Result<R, Error> + Send,
) -> Result<R, Error> {
    if rayon::current_thread_index().is_some() {
        return f(Threads::Pool(rayon::current_num_threads()));
    }
    if small {
        return f(Threads::Calling);
    }
    let pool = state().pool()?;
    match pool {
        None => f(Threads::Calling),
        Some(p) => f(Threads::Facade(p)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // One test changes the process-wide setting (tests in this binary run in parallel and
    // every other one is indifferent to the size: the bits never depend on it).
    #[test]
    fn size_is_set_read_and_restored() {
        set_num_threads(3).unwrap();
        assert_eq!(num_threads(), 3);
        let seen = run(false, Ok).unwrap();
        assert!(matches!(seen, Threads::Facade(_)));
        assert_eq!(seen.count(), 3);
        // Small inputs stay on the calling thread.
        assert_eq!(run(true, Ok).unwrap(), Threads::Calling);
        set_num_threads(1).unwrap();
        assert_eq!(num_threads(), 1);
        assert_eq!(run(false, Ok).unwrap(), Threads::Calling);
        // Inside a rayon pool, that pool is used whatever the setting.
        let p = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        assert_eq!(p.install(|| run(false, Ok)).unwrap(), Threads::Pool(2));
        set_num_threads(0).unwrap();
        assert!(num_threads() >= 1);
    }

    /// Each way of running gives the results in the items' order, and the first error.
    #[test]
    fn map_keeps_the_order_and_reports_an_error() {
        let facade = Threads::Facade(Arc::new(Facade::new(3).unwrap()));
        let rayon_pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let check = |t: &Threads| {
            assert_eq!(t.map(0..0usize, Ok).unwrap(), Vec::<usize>::new());
            let got = t.map(0..1000usize, |i| Ok(i * 2)).unwrap();
            assert_eq!(got, (0..1000).map(|i| i * 2).collect::<Vec<_>>());
            let failed = t.map(0..1000usize, |i| {
                if i == 600 {
                    Err(Error::CapacityExceeded)
                } else {
                    Ok(i)
                }
            });
            assert_eq!(failed, Err(Error::CapacityExceeded));
        };
        check(&Threads::Calling);
        check(&facade);
        rayon_pool.install(|| check(&Threads::Pool(3)));
        // Calls from several threads at once on the one pool.
        std::thread::scope(|s| {
            for _ in 0..6 {
                s.spawn(|| check(&facade));
            }
        });
    }

    /// A caller that finds the pool claimed by another call leaves its work to the workers;
    /// a claim is released when the call ends.
    #[test]
    fn a_claimed_pool_leaves_the_caller_waiting() {
        let pool = Arc::new(Facade::new(3).unwrap());
        let t = Threads::Facade(Arc::clone(&pool));
        let me = std::thread::current().id();
        pool.claimed.store(true, Ordering::SeqCst);
        let who = t.map(0..200usize, |_| Ok(std::thread::current().id())).unwrap();
        assert!(who.iter().all(|&id| id != me));
        pool.claimed.store(false, Ordering::SeqCst);
        t.map(0..200usize, |_| Ok(())).unwrap();
        assert!(!pool.claimed.load(Ordering::SeqCst));
        assert_eq!(t.count(), 3);
    }
}
