//! Every fast path against the independent model (`reprosum_testkit::model`: written from
//! `docs/FORMAT.md` alone, exact integer arithmetic, no code shared with the core).
//!
//! The model first reproduces every known answer (which is what shows it is right); then
//! the core's one-call functions, both accumulator forms (one value at a time, slices in
//! chunkings across the endurance and superblock boundaries, running values, merge trees)
//! and the facade's threaded functions are compared with it on random and adversarial
//! inputs of every exponent range, f64 and f32, at several folds: the bits of every value
//! and the exact bytes of every encoding. The decoders are compared too: on random bytes
//! and mutated encodings, the core and the model accept exactly the same bytes, and every
//! accepted state stays encodable under add and merge.
//!
//! `QUICKCHECK_TESTS` raises the number of random cases (default 60 input vectors and 400
//! states per type and test).

use reprosum::reprosum_core as core_api;
use reprosum::{Accumulator, Dtype, DynAccumulator, Error, Options, Path};
use reprosum_testkit::model::{self, capacity, endurance, Model, ModelFloat};
use reprosum_testkit::SplitMix64 as Rng;
use reprosum_testkit::{cases, KNOWN_ANSWERS};

fn n_cases(default: usize) -> usize {
    std::env::var("QUICKCHECK_TESTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// What the tests draw besides numbers.
trait Draw {
    /// One chance in `n`.
    fn one_in(&mut self, n: u64) -> bool;
    /// One of `xs`.
    fn pick<'a, X>(&mut self, xs: &'a [X]) -> &'a X;
}

impl Draw for Rng {
    fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }
    fn pick<'a, X>(&mut self, xs: &'a [X]) -> &'a X {
        &xs[self.below(xs.len() as u64) as usize]
    }
}

// ---------------------------------------------------------------- the float types

/// The types under test: the core's bound (only to call its generic functions) and the
/// model's trait (for the format's parameters and the bits).
trait F: reprosum::Float + ModelFloat + std::fmt::Debug {
    const NAME: &'static str;
    /// The folds tested (also as const parameters).
    const FOLDS: &'static [usize];
    /// The const-fold API at fold `k` (one of `FOLDS`).
    fn const_api(x: &[Self], k: usize, plan: &Plan, c: &mut Check);
    /// `Accumulator::<Self, k>::from_bytes` re-encoded, for `k` in `FOLDS`.
    fn const_decode(bytes: &[u8], k: usize) -> Result<Vec<u8>, Error>;
}

macro_rules! const_folds {
    ($t:ty, $name:literal, [$($k:literal),*]) => {
        impl F for $t {
            const NAME: &'static str = $name;
            const FOLDS: &'static [usize] = &[$($k),*];
            fn const_api(x: &[Self], k: usize, plan: &Plan, c: &mut Check) {
                match k {
                    $($k => const_api::<$t, $k>(x, plan, c),)*
                    _ => unreachable!("fold {k} not in FOLDS"),
                }
            }
            fn const_decode(bytes: &[u8], k: usize) -> Result<Vec<u8>, Error> {
                match k {
                    $($k => Accumulator::<$t, $k>::from_bytes(bytes).map(|a| a.to_bytes().to_vec()),)*
                    _ => unreachable!("fold {k} not in FOLDS"),
                }
            }
        }
    };
}
const_folds!(f64, "f64", [2, 3, 4, 6, 8, 21, 52]);
const_folds!(f32, "f32", [2, 3, 6, 21]);

fn bits<T: ModelFloat>(x: T) -> u64 {
    x.to_bits64()
}
fn from_bits<T: ModelFloat>(b: u64) -> T {
    T::from_bits64(b)
}
fn sign_bit<T: ModelFloat>() -> u64 {
    1 << (T::P - 1 + T::EXP_BITS)
}
fn bias<T: ModelFloat>() -> i64 {
    (1 << (T::EXP_BITS - 1)) - 1
}
/// The largest finite exponent field.
fn max_field<T: ModelFloat>() -> u64 {
    (1 << T::EXP_BITS) - 2
}
fn make<T: ModelFloat>(neg: bool, field: u64, mant: u64) -> u64 {
    (if neg { sign_bit::<T>() } else { 0 }) | (field << (T::P - 1)) | (mant & ((1 << (T::P - 1)) - 1))
}
/// A NaN bit pattern that is not the canonical one, for output buffers.
fn junk<T: ModelFloat>() -> T {
    from_bits(make::<T>(true, max_field::<T>() + 1, 0x5A5))
}

// ---------------------------------------------------------------- inputs

/// One value of an input class, as bits.
fn draw<T: ModelFloat>(r: &mut Rng, class: u64) -> u64 {
    let neg = r.one_in(2);
    let mant = r.next_u64();
    let maxf = max_field::<T>();
    let bias = bias::<T>();
    let mmask = (1u64 << (T::P - 1)) - 1;
    match class {
        // Anywhere, subnormals included.
        0 => make::<T>(neg, r.below(maxf + 1), mant),
        // Near overflow.
        1 => make::<T>(neg, maxf - r.below(4), mant),
        // Subnormals and the smallest normals.
        2 => make::<T>(neg, r.below(2), if r.one_in(3) { r.below(8) } else { mant }),
        // [2^-8, 1).
        3 => make::<T>(neg, (bias - 1) as u64 - r.below(8), mant),
        // The top or the bottom of a bin's exponent range (frexp exponent Emax - W i, or
        // Emax - W (i+1) + 1), with extreme or random significands.
        4 => {
            let i = r.below(T::M as u64 + 1) as i64;
            let k = if r.one_in(2) {
                T::EMAX as i64 - T::W as i64 * i
            } else {
                T::EMAX as i64 - T::W as i64 * (i + 1) + 1
            };
            let field = (k - 1 + bias).clamp(0, maxf as i64) as u64;
            let m = match r.below(4) {
                0 => r.below(3),
                1 => mmask - r.below(3),
                _ => mant,
            };
            make::<T>(neg, field, m)
        }
        // An exact tie of the deposit: an odd multiple of G_i / 2 for a bin i.
        5 => {
            let i = r.below(T::M as u64 + 1) as i32;
            let g = T::G_EXP - T::W * i;
            let t = r.next_u64() >> (64 - 1 - r.below(T::P as u64 - 1));
            let n = (2 * t as i128 + 1) * if neg { -1 } else { 1 };
            model::exact_bits(n, g - 1, T::P, T::EXP_BITS).unwrap_or_else(|| draw::<T>(r, 0))
        }
        // +-0.
        6 => make::<T>(neg, 0, 0),
        // NaN (any payload, either sign) and the infinities.
        7 => match r.below(3) {
            0 => make::<T>(neg, maxf + 1, 1 + r.below(mmask)),
            _ => make::<T>(neg, maxf + 1, 0),
        },
        // The extremes: +-max, max - ulp, the smallest subnormal and normal.
        8 => match r.below(4) {
            0 => make::<T>(neg, maxf, mmask),
            1 => make::<T>(neg, maxf, mmask - 1),
            2 => make::<T>(neg, 0, 1),
            _ => make::<T>(neg, 1, 0),
        },
        // Near 1 (ordinary data).
        _ => make::<T>(neg, (bias + r.below(20) as i64 - 10) as u64, mant),
    }
}

/// A vector of `n` values: a random mix of classes, exact negations of earlier values
/// (cancellation), huge cancelling pairs with a small remainder, and sometimes sorted by
/// magnitude (so that the window rises with almost every value) or the reverse.
fn vector<T: ModelFloat>(r: &mut Rng, n: usize) -> Vec<T> {
    let classes: Vec<u64> = loop {
        let c: Vec<u64> = (0..10).filter(|_| r.one_in(2)).collect();
        if c.iter().any(|&c| c != 7) {
            break c;
        }
    };
    let special = if r.one_in(3) { 40 } else { u64::MAX };
    let mut v: Vec<u64> = Vec::with_capacity(n);
    while v.len() < n {
        let roll = r.below(16);
        if !v.is_empty() && roll == 0 {
            let i = r.below(v.len() as u64) as usize;
            v.push(v[i] ^ sign_bit::<T>());
        } else if roll == 1 && n - v.len() >= 3 {
            let class = *r.pick(&[0, 1, 8]);
            let h = draw::<T>(r, class);
            v.push(h);
            v.push(h ^ sign_bit::<T>());
            let class = *r.pick(&[2, 3, 5, 9]);
            v.push(draw::<T>(r, class));
        } else {
            let mut c = *r.pick(&classes);
            if c == 7 && !r.one_in(special) {
                c = 9;
            }
            v.push(draw::<T>(r, c));
        }
    }
    v.truncate(n);
    match r.below(8) {
        0 => v.sort_by_key(|b| b & !sign_bit::<T>()),
        1 => v.sort_by_key(|b| std::cmp::Reverse(b & !sign_bit::<T>())),
        _ => {}
    }
    v.into_iter().map(from_bits).collect()
}

/// A length: mostly short, sometimes 0, 1 or 2, sometimes around the endurance.
fn length<T: ModelFloat>(r: &mut Rng) -> usize {
    let e = endurance::<T>() as usize;
    match r.below(12) {
        0 => r.below(3) as usize,
        1..=6 => r.below(40) as usize,
        7..=9 => r.below(400) as usize,
        10 => e - 3 + r.below(7) as usize,
        _ => 2 * e - 3 + r.below(7) as usize,
    }
}

/// How a case is split: `cuts` (sorted, from 0 to n) for merges and sliced adds, `piece`
/// for `add_slice` in equal pieces, `seed` for a random merge tree.
struct Plan {
    cuts: Vec<usize>,
    piece: usize,
    seed: u64,
}

/// Piece lengths on both sides of the endurance (512 for f32, 2048 for f64) and of the
/// superblock (16 times the endurance).
fn pieces<T: ModelFloat>() -> Vec<usize> {
    let e = endurance::<T>() as usize;
    vec![
        1,
        3,
        511,
        512,
        513,
        2047,
        2048,
        2049,
        e - 1,
        e + 1,
        16 * e - 1,
        16 * e,
        16 * e + 1,
    ]
}

fn plan<T: ModelFloat>(r: &mut Rng, n: usize) -> Plan {
    let mut cuts = vec![0, n];
    for _ in 0..r.below(6) {
        cuts.push(r.below(n as u64 + 1) as usize);
    }
    // Cuts on the boundaries, where the input reaches them.
    for p in pieces::<T>() {
        if p < n && r.one_in(4) {
            cuts.push(p);
        }
    }
    cuts.sort_unstable();
    Plan {
        cuts,
        piece: *r.pick(&pieces::<T>()),
        seed: r.next_u64(),
    }
}

// ---------------------------------------------------------------- the model's answers

/// What the model says of an input: the sum, every prefix, the encoding.
struct Want {
    sum: u64,
    prefix: Vec<u64>,
    bytes: Vec<u8>,
}

fn model_of<T: F>(x: &[T], k: usize) -> Want {
    let mut m = Model::<T>::new(k).unwrap();
    let mut prefix = Vec::with_capacity(x.len());
    for &v in x {
        m.add(v).unwrap();
        prefix.push(bits(m.value()));
    }
    Want {
        sum: bits(m.value()),
        prefix,
        bytes: m.to_bytes().as_slice().to_vec(),
    }
}

/// Collects every disagreement with the model for one case.
struct Check<'a> {
    want: &'a Want,
    fails: Vec<String>,
    compared: usize,
}

impl Check<'_> {
    fn sum<T: F>(&mut self, api: &str, got: Result<T, Error>) {
        self.compared += 1;
        match got {
            Ok(v) if bits(v) == self.want.sum => {}
            Ok(v) => self
                .fails
                .push(format!("{api}: sum {:X}, model {:X}", bits(v), self.want.sum)),
            Err(e) => self.fails.push(format!("{api}: {e:?}")),
        }
    }
    fn prefix<T: F>(&mut self, api: &str, got: Result<(), Error>, out: &[T]) {
        self.compared += 1;
        if let Err(e) = got {
            return self.fails.push(format!("{api}: {e:?}"));
        }
        let got: Vec<u64> = out.iter().map(|&v| bits(v)).collect();
        if got != self.want.prefix {
            let at = got.iter().zip(&self.want.prefix).position(|(a, b)| a != b);
            self.fails.push(format!(
                "{api}: prefix differs at {at:?} of {} (got {:X?}, model {:X?})",
                got.len(),
                at.map(|i| got[i]),
                at.map(|i| self.want.prefix[i])
            ));
        }
    }
    fn bytes(&mut self, api: &str, got: &[u8]) {
        self.compared += 1;
        if got != self.want.bytes.as_slice() {
            self.fails
                .push(format!("{api}: bytes {got:02X?}, model {:02X?}", self.want.bytes));
        }
    }
    fn acc<T: F, A: Acc<T>>(&mut self, api: &str, a: &A) {
        self.sum(&format!("{api} value"), Ok(a.value()));
        self.bytes(&format!("{api} to_bytes"), &a.bytes());
    }
}

// ---------------------------------------------------------------- the fast paths

/// Both accumulator forms, for code that runs on either.
trait Acc<T: F>: Copy {
    fn fresh(k: usize) -> Self;
    fn add(&mut self, x: T) -> Result<(), Error>;
    fn add_slice(&mut self, x: &[T]) -> Result<(), Error>;
    fn add_running(&mut self, x: &[T], out: &mut [T]) -> Result<(), Error>;
    fn add_running_in_place(&mut self, x: &mut [T]) -> Result<(), Error>;
    fn merge(&mut self, o: &Self) -> Result<(), Error>;
    fn value(&self) -> T;
    fn bytes(&self) -> Vec<u8>;
    fn decode(b: &[u8]) -> Result<Self, Error>;
}

macro_rules! acc_impl {
    ($ty:ty, $fresh:expr) => {
        fn fresh(k: usize) -> Self {
            $fresh(k)
        }
        fn add(&mut self, x: T) -> Result<(), Error> {
            <$ty>::add(self, x)
        }
        fn add_slice(&mut self, x: &[T]) -> Result<(), Error> {
            <$ty>::add_slice(self, x)
        }
        fn add_running(&mut self, x: &[T], out: &mut [T]) -> Result<(), Error> {
            <$ty>::add_running(self, x, out)
        }
        fn add_running_in_place(&mut self, x: &mut [T]) -> Result<(), Error> {
            <$ty>::add_running_in_place(self, x)
        }
        fn merge(&mut self, o: &Self) -> Result<(), Error> {
            <$ty>::merge(self, o)
        }
        fn value(&self) -> T {
            <$ty>::value(self)
        }
        fn bytes(&self) -> Vec<u8> {
            <$ty>::to_bytes(self).to_vec()
        }
        fn decode(b: &[u8]) -> Result<Self, Error> {
            <$ty>::from_bytes(b)
        }
    };
}

impl<T: F> Acc<T> for DynAccumulator<T> {
    acc_impl!(DynAccumulator<T>, |k| DynAccumulator::<T>::new(k).unwrap());
}
impl<T: F, const K: usize> Acc<T> for Accumulator<T, K> {
    acc_impl!(Accumulator<T, K>, |_| Accumulator::<T, K>::new());
}

/// Every way of feeding one accumulator form: one at a time, slices (whole, in equal
/// pieces, at the plan's cuts), running values (whole, in pieces, in place), merge trees
/// over the cuts, and the byte round trip.
fn accumulator_api<T: F, A: Acc<T>>(name: &str, x: &[T], k: usize, plan: &Plan, c: &mut Check) {
    let mut a = A::fresh(k);
    for &v in x {
        a.add(v).unwrap();
    }
    c.acc(&format!("{name} add"), &a);

    let mut a = A::fresh(k);
    a.add_slice(x).unwrap();
    c.acc(&format!("{name} add_slice"), &a);
    let decoded = A::decode(&a.bytes());
    match decoded {
        Ok(d) => c.acc(&format!("{name} from_bytes(to_bytes)"), &d),
        Err(e) => c.fails.push(format!("{name}: own bytes refused: {e:?}")),
    }

    let mut a = A::fresh(k);
    for piece in x.chunks(plan.piece) {
        a.add_slice(piece).unwrap();
    }
    c.acc(&format!("{name} add_slice in pieces of {}", plan.piece), &a);

    let mut a = A::fresh(k);
    for w in plan.cuts.windows(2) {
        a.add_slice(&x[w[0]..w[1]]).unwrap();
    }
    c.acc(&format!("{name} add_slice at {:?}", plan.cuts), &a);

    let mut a = A::fresh(k);
    let mut out = vec![junk::<T>(); x.len()];
    let r = a.add_running(x, &mut out);
    c.prefix(&format!("{name} add_running"), r, &out);
    c.acc(&format!("{name} after add_running"), &a);

    let mut a = A::fresh(k);
    let mut out = vec![junk::<T>(); x.len()];
    let mut r = Ok(());
    for w in plan.cuts.windows(2) {
        r = r.and(a.add_running(&x[w[0]..w[1]], &mut out[w[0]..w[1]]));
    }
    c.prefix(&format!("{name} add_running at {:?}", plan.cuts), r, &out);

    let mut a = A::fresh(k);
    let mut y = x.to_vec();
    let r = a.add_running_in_place(&mut y);
    c.prefix(&format!("{name} add_running_in_place"), r, &y);
    c.acc(&format!("{name} after add_running_in_place"), &a);

    // Merge trees over the parts at the cuts.
    let parts: Vec<A> = plan
        .cuts
        .windows(2)
        .map(|w| {
            let mut p = A::fresh(k);
            p.add_slice(&x[w[0]..w[1]]).unwrap();
            p
        })
        .collect();
    let mut left = A::fresh(k);
    for p in &parts {
        left.merge(p).unwrap();
    }
    c.acc(&format!("{name} merged left to right"), &left);
    let mut right = A::fresh(k);
    for p in parts.iter().rev() {
        let mut q = *p;
        q.merge(&right).unwrap();
        right = q;
    }
    c.acc(&format!("{name} merged right to left"), &right);
    let mut level = parts.clone();
    while level.len() > 1 {
        level = level
            .chunks(2)
            .map(|w| {
                let mut a = w[0];
                if let Some(b) = w.get(1) {
                    a.merge(b).unwrap();
                }
                a
            })
            .collect();
    }
    c.acc(&format!("{name} merged pairwise"), &level[0]);
    let mut pool = parts;
    let mut s = Rng(plan.seed);
    while pool.len() > 1 {
        let b = pool.swap_remove(s.below(pool.len() as u64) as usize);
        let j = s.below(pool.len() as u64) as usize;
        pool[j].merge(&b).unwrap();
    }
    c.acc(&format!("{name} merged in a random tree"), &pool[0]);
}

/// The const-fold API at fold K.
fn const_api<T: F, const K: usize>(x: &[T], plan: &Plan, c: &mut Check) {
    c.sum("core sum_k", core_api::sum_k::<T, K>(x));
    let mut out = vec![junk::<T>(); x.len()];
    let r = core_api::cumsum_k::<T, K>(x, &mut out);
    c.prefix("core cumsum_k", r, &out);
    let mut y = x.to_vec();
    let r = core_api::cumsum_in_place_k::<T, K>(&mut y);
    c.prefix("core cumsum_in_place_k", r, &y);
    accumulator_api::<T, Accumulator<T, K>>("Accumulator<K>", x, K, plan, c);
    // The two forms convert into each other with the same state.
    let mut a = Accumulator::<T, K>::new();
    a.add_slice(x).unwrap();
    let d = DynAccumulator::from(a);
    c.acc("DynAccumulator::from(Accumulator)", &d);
    match Accumulator::<T, K>::try_from(d) {
        Ok(b) => c.acc("Accumulator::try_from(DynAccumulator)", &b),
        Err(e) => c.fails.push(format!("try_from: {e:?}")),
    }
}

/// The facade's threaded functions with chunk lengths that split the input (each chunk a
/// task on rayon's pool), and 0 (its own choice).
fn facade_api<T: F>(x: &[T], k: usize, chunks: &[usize], c: &mut Check) {
    for &chunk_len in chunks {
        let o = Options { fold: k, chunk_len };
        c.sum(
            &format!("facade sum_with chunk_len {chunk_len}"),
            reprosum::sum_with(x, &o),
        );
        match reprosum::accumulate(x, &o) {
            Ok(a) => c.acc(&format!("facade accumulate chunk_len {chunk_len}"), &a),
            Err(e) => c.fails.push(format!("accumulate: {e:?}")),
        }
        let mut out = vec![junk::<T>(); x.len()];
        let r = reprosum::cumsum_with(x, &mut out, &o);
        c.prefix(&format!("facade cumsum_with chunk_len {chunk_len}"), r, &out);
        let mut y = x.to_vec();
        let r = reprosum::cumsum_in_place_with(&mut y, &o);
        c.prefix(
            &format!("facade cumsum_in_place_with chunk_len {chunk_len}"),
            r,
            &y,
        );
    }
    c.sum("facade sum_fold", reprosum::sum_fold(x, k));
    let mut out = vec![junk::<T>(); x.len()];
    let r = reprosum::cumsum_fold(x, &mut out, k);
    c.prefix("facade cumsum_fold", r, &out);
    if k == 3 {
        c.sum("facade sum", reprosum::sum(x));
        let mut out = vec![junk::<T>(); x.len()];
        let r = reprosum::cumsum(x, &mut out);
        c.prefix("facade cumsum", r, &out);
        let mut y = x.to_vec();
        let r = reprosum::cumsum_in_place(&mut y);
        c.prefix("facade cumsum_in_place", r, &y);
    }
}

/// Every fast path on one input at one fold, against the model. Returns how many results
/// were compared; panics listing every disagreement.
fn compare<T: F>(x: &[T], k: usize, plan: &Plan, chunks: &[usize], what: &str) -> usize {
    let want = model_of(x, k);
    let mut c = Check {
        want: &want,
        fails: Vec::new(),
        compared: 0,
    };
    // The model's own merge: every tree over the parts reaches the whole's state.
    let mut merged = Model::<T>::new(k).unwrap();
    for w in plan.cuts.windows(2).rev() {
        let mut part = Model::<T>::new(k).unwrap();
        x[w[0]..w[1]].iter().for_each(|&v| part.add(v).unwrap());
        merged.merge(&part).unwrap();
    }
    c.bytes("model merged right to left", merged.to_bytes().as_slice());

    c.sum("core sum_fold", core_api::sum_fold(x, k));
    let mut out = vec![junk::<T>(); x.len()];
    let r = core_api::cumsum_fold(x, &mut out, k);
    c.prefix("core cumsum_fold", r, &out);
    let mut y = x.to_vec();
    let r = core_api::cumsum_in_place_fold(&mut y, k);
    c.prefix("core cumsum_in_place_fold", r, &y);
    if k == 3 {
        c.sum("core sum", core_api::sum(x));
        let mut out = vec![junk::<T>(); x.len()];
        let r = core_api::cumsum(x, &mut out);
        c.prefix("core cumsum", r, &out);
        let mut y = x.to_vec();
        let r = core_api::cumsum_in_place(&mut y);
        c.prefix("core cumsum_in_place", r, &y);
    }
    accumulator_api::<T, DynAccumulator<T>>("DynAccumulator", x, k, plan, &mut c);
    T::const_api(x, k, plan, &mut c);
    facade_api(x, k, chunks, &mut c);
    if !c.fails.is_empty() {
        let shown: Vec<String> = x.iter().take(64).map(|&v| format!("{:X}", bits(v))).collect();
        panic!(
            "{what} ({} fold {k}, n = {}, cuts {:?}): {} of {} results differ from the model:\n{}\n\
             input (first 64, bits): {}",
            T::NAME,
            x.len(),
            plan.cuts,
            c.fails.len(),
            c.compared,
            c.fails.join("\n"),
            shown.join(" ")
        );
    }
    c.compared
}

/// Random vectors at every fold of the type.
fn random_cases<T: F>(seed: u64, n: usize, what: &str) -> usize {
    let mut r = Rng(seed);
    let mut compared = 0;
    for i in 0..n {
        let len = length::<T>(&mut r);
        let x = vector::<T>(&mut r, len);
        let k = T::FOLDS[i % T::FOLDS.len()];
        let p = plan::<T>(&mut r, len);
        let chunks = [0, 1 + r.below(9) as usize, *r.pick(&pieces::<T>())];
        compared += compare(&x, k, &p, &chunks, &format!("{what}, case {i} of seed {seed:#x}"));
    }
    compared
}

// ---------------------------------------------------------------- the tests

/// The model reproduces every known answer: the sum, and every prefix where given. This
/// is what shows that the model (and so every comparison below) is right.
#[test]
fn model_reproduces_every_known_answer() {
    fn run<T: ModelFloat>(c: &reprosum_testkit::Case<'_>, fails: &mut Vec<String>) {
        let mut m = Model::<T>::new(c.fold).expect("fold");
        let want: Option<Vec<u64>> = c.cumsum().map(|i| i.collect());
        let mut prefix = Vec::new();
        for b in c.inputs() {
            m.add(from_bits(b)).expect("capacity");
            if want.is_some() {
                prefix.push(bits(m.value()));
            }
        }
        if bits(m.value()) != c.sum {
            fails.push(format!(
                "{}: sum {:X}, known {:X}",
                c.name,
                bits(m.value()),
                c.sum
            ));
        }
        if want.is_some_and(|w| w != prefix) {
            fails.push(format!("{}: a prefix differs", c.name));
        }
    }
    let mut fails = Vec::new();
    let mut n = 0;
    for c in cases(KNOWN_ANSWERS) {
        let c = c.expect("known_answers.txt parses");
        match c.dtype {
            Dtype::F64 => run::<f64>(&c, &mut fails),
            Dtype::F32 => run::<f32>(&c, &mut fails),
        }
        n += 1;
    }
    assert!(
        fails.is_empty(),
        "{} of {n} known answers differ:\n{}",
        fails.len(),
        fails.join("\n")
    );
    assert!(n >= 40, "only {n} known answers");
}

#[test]
fn random_inputs_f64() {
    let n = random_cases::<f64>(0x0F64_2026, n_cases(60), "random f64");
    println!("{n} results compared with the model");
}

#[test]
fn random_inputs_f32() {
    let n = random_cases::<f32>(0x0F32_2026, n_cases(60), "random f32");
    println!("{n} results compared with the model");
}

/// Hand-made adversarial inputs at every tested fold: ties of the deposit in many bins,
/// exact cancellation, huge cancelling pairs, rising and falling windows, 0, 1 and 2
/// elements, zeros, the extremes and NaN / Inf mixes.
fn adversarial<T: F>() -> Vec<(String, Vec<T>)> {
    let f = |b: u64| from_bits::<T>(b);
    let exact = |n: i128, e: i32| f(model::exact_bits(n, e, T::P, T::EXP_BITS).expect("representable"));
    let maxf = max_field::<T>();
    let mmask = (1u64 << (T::P - 1)) - 1;
    let max = f(make::<T>(false, maxf, mmask));
    let neg = |x: T| f(bits(x) ^ sign_bit::<T>());
    let one = exact(1, 0);
    let zero = f(0);
    let nan = f(make::<T>(false, maxf + 1, 1));
    let inf = f(make::<T>(false, maxf + 1, 0));
    let tiny = f(1);
    let mut v: Vec<(String, Vec<T>)> = vec![
        ("empty".into(), vec![]),
        ("+0".into(), vec![zero]),
        ("-0 -0".into(), vec![neg(zero), neg(zero)]),
        ("1".into(), vec![one]),
        ("1 -1".into(), vec![one, neg(one)]),
        ("max -max".into(), vec![max, neg(max)]),
        ("max max -max".into(), vec![max, max, neg(max)]),
        ("max x3".into(), vec![max; 3]),
        ("-max x3".into(), vec![neg(max); 3]),
        (
            "max -max 1 2 3".into(),
            vec![max, neg(max), one, exact(2, 0), exact(3, 0)],
        ),
        ("tiny x1000".into(), vec![tiny; 1000]),
        ("tiny -tiny".into(), vec![tiny, neg(tiny)]),
        ("1 nan 2".into(), vec![one, nan, exact(2, 0)]),
        ("inf -max -max".into(), vec![inf, neg(max), neg(max)]),
        ("inf -inf".into(), vec![inf, neg(inf)]),
        ("-inf 1".into(), vec![neg(inf), one]),
        (
            "nan payloads".into(),
            vec![
                f(make::<T>(true, maxf + 1, 77)),
                one,
                f(make::<T>(false, maxf + 1, mmask)),
            ],
        ),
    ];
    if T::P == 53 {
        v.push(("1 -1 5*2^-96".into(), vec![one, neg(one), exact(5, -96)]));
        v.push(("5*2^-96 1 -1".into(), vec![exact(5, -96), one, neg(one)]));
    }
    // Ties in every bin: odd multiples of G_i / 2, alone, with a value that lifts the
    // window above them, and both signs.
    for i in 0..=T::M as i32 {
        let g = T::G_EXP - T::W * i;
        for t in [1i128, 3, 5, (1 << (T::P - 1)) - 1] {
            let Some(b) = model::exact_bits(t, g - 1, T::P, T::EXP_BITS) else {
                continue;
            };
            let x = f(b);
            let lift = model::exact_bits(1, g + T::W, T::P, T::EXP_BITS)
                .map(f)
                .unwrap_or(max);
            v.push((format!("tie bin {i} t {t}"), vec![x, neg(x), x, x]));
            v.push((
                format!("tie bin {i} t {t} lifted"),
                vec![x, lift, neg(x), x, neg(lift), x],
            ));
        }
    }
    // The top and bottom of every bin, rising and falling.
    let mut edges = Vec::new();
    for i in 0..=T::M as i64 {
        for k in [
            T::EMAX as i64 - T::W as i64 * i,
            T::EMAX as i64 - T::W as i64 * (i + 1) + 1,
        ] {
            let field = (k - 1 + bias::<T>()).clamp(0, maxf as i64) as u64;
            edges.push(f(make::<T>(i % 2 == 0, field, mmask)));
            edges.push(f(make::<T>(i % 3 == 0, field, 0)));
        }
    }
    let mut falling = edges.clone();
    falling.reverse();
    v.push(("bin edges rising".into(), edges.clone()));
    v.push(("bin edges falling".into(), falling));
    // Huge cancelling pairs with small remainders.
    let mut pairs = Vec::new();
    for (i, &e) in edges.iter().enumerate() {
        pairs.extend([max, e, neg(max), exact(3, -(i as i32))]);
    }
    v.push(("huge cancelling pairs".into(), pairs));
    v
}

#[test]
fn adversarial_inputs() {
    fn run<T: F>() -> usize {
        let mut r = Rng(0xAD5E_2026);
        let mut n = 0;
        let inputs = adversarial::<T>();
        println!(
            "{}: {} adversarial inputs at folds {:?}",
            T::NAME,
            inputs.len(),
            T::FOLDS
        );
        for (name, x) in inputs {
            for &k in T::FOLDS {
                let p = plan::<T>(&mut r, x.len());
                n += compare(&x, k, &p, &[0, 1, 2], &name);
            }
        }
        n
    }
    let n = run::<f64>() + run::<f32>();
    println!("{n} results compared with the model");
}

/// Long inputs across the endurance and the superblock (16 times the endurance), at a small
/// and a large fold, with cuts and pieces on the boundaries.
#[test]
fn across_the_endurance_and_superblock() {
    fn run<T: F>(seed: u64) -> usize {
        let mut r = Rng(seed);
        let e = endurance::<T>() as usize;
        let mut n = 0;
        for (i, len) in [16 * e + 1, 16 * e + 2 * e + 5, 33 * e - 1]
            .into_iter()
            .enumerate()
        {
            let x = vector::<T>(&mut r, len);
            let k = [2, 3, *T::FOLDS.last().unwrap()][i];
            let mut p = plan::<T>(&mut r, len);
            p.piece = [e, 16 * e, 16 * e + 1][i];
            n += compare(&x, k, &p, &[0, e + 1, 16 * e], "long");
        }
        n
    }
    let n = run::<f64>(0x10F6_4000) + run::<f32>(0x10F3_2000);
    println!("{n} results compared with the model");
}

/// Every deposit path the CPU supports, forced in turn (process-wide state: one test loops
/// over them; the other tests of this file compare with the model whatever path is set).
#[test]
fn every_deposit_path_against_the_model() {
    let mut ran = Vec::new();
    for p in Path::ALL {
        if !reprosum::path_supported(p) {
            println!("path {}: not supported here, skipped", p.name());
            continue;
        }
        reprosum::select_path(p).expect("a supported path can be selected");
        let seed = 0x9A7B_0000 + ran.len() as u64;
        let mut n = random_cases::<f64>(seed, n_cases(60) / 3, p.name());
        n += random_cases::<f32>(seed, n_cases(60) / 3, p.name());
        for (name, x) in adversarial::<f64>().into_iter().step_by(7) {
            n += compare(&x, 3, &plan::<f64>(&mut Rng(seed), x.len()), &[0, 2], &name);
        }
        let e = endurance::<f64>() as usize;
        let x = vector::<f64>(&mut Rng(seed), 16 * e + 3);
        let mut pl = plan::<f64>(&mut Rng(seed), x.len());
        pl.piece = 16 * e - 1;
        n += compare(&x, 4, &pl, &[0], "long");
        println!("path {}: {n} results compared with the model", p.name());
        ran.push(p.name());
    }
    reprosum::select_path(reprosum::best_path()).unwrap();
    assert!(ran.contains(&"portable") && ran.contains(&"scalar"), "{ran:?}");
}

// ---------------------------------------------------------------- decoding and closure

/// Rewrites the checksum of version-2 bytes of the right length (the model's CRC-32C).
fn reseal(b: &mut [u8]) {
    if b.len() >= 20 && b[4] == 2 {
        let n = b.len() - 4;
        let crc = model::crc32c(&b[..n]);
        b[n..].copy_from_slice(&crc.to_le_bytes());
    }
}

/// The core and the model accept exactly the same bytes (for any fold, and for a fold
/// asked for); where they accept, both re-encode to the same bytes (the input itself for
/// version 2) and hold the same value and count. Returns the model's state if accepted.
fn decoders_agree<T: F>(bytes: &[u8], what: &str) -> Option<Model<T>> {
    let m = Model::<T>::from_bytes(bytes, None);
    let d = DynAccumulator::<T>::from_bytes(bytes);
    let ctx = || format!("{what}: {} bytes {bytes:02X?}", T::NAME);
    match (&m, &d) {
        (Ok(m), Ok(d)) => {
            let mb = m.to_bytes();
            assert_eq!(
                d.to_bytes().as_bytes(),
                mb.as_slice(),
                "re-encoding differs: {}",
                ctx()
            );
            assert_eq!(bits(d.value()), bits(m.value()), "value differs: {}", ctx());
            assert_eq!(d.count(), m.count(), "{}", ctx());
            if bytes[4] == 2 {
                assert_eq!(mb.as_slice(), bytes, "not canonical: {}", ctx());
            }
        }
        (Err(_), Err(Error::Encoding(_))) => {}
        (Err(_), Err(e)) => panic!("refused with a non-encoding error {e:?}: {}", ctx()),
        (Ok(_), Err(e)) => panic!("the model accepts, the core refuses ({e:?}): {}", ctx()),
        (Err(r), Ok(_)) => panic!("the core accepts, the model refuses (rule {}): {}", r.0, ctx()),
    }
    // The const form, at the stated fold where it is one we test and at another fold.
    for &k in T::FOLDS {
        let stated = bytes.get(6).is_some_and(|&b| b as usize == k);
        if !stated && k != 3 {
            continue;
        }
        let mk = Model::<T>::from_bytes(bytes, Some(k));
        let dk = T::const_decode(bytes, k);
        assert_eq!(
            mk.is_ok(),
            dk.is_ok(),
            "Accumulator<_, {k}>::from_bytes: {}",
            ctx()
        );
        if let (Ok(mk), Ok(dk)) = (mk, dk) {
            assert_eq!(dk, mk.to_bytes().as_slice(), "{}", ctx());
        }
    }
    m.ok()
}

/// A state no sequence of adds has to reach, within the acceptance rules or just past
/// them: counts from the least the flags and window need up to the capacity, slots from 0
/// to +-count * 2^(W-1) and just beyond, remainders P_j at 0 and 2^(p-3) - 1.
fn random_state<T: F>(r: &mut Rng, k: usize) -> Model<T> {
    let flags = if r.one_in(2) { 0 } else { r.below(8) as u8 };
    let empty = r.one_in(6);
    let needed = flags.count_ones() as u64 + u64::from(!empty);
    let cap = capacity::<T>();
    let count = match r.below(7) {
        0 => needed,
        1 => needed + r.below(4),
        2 => needed + r.below(1 << 20),
        3 => cap - r.below(3),
        4 => needed + r.below(cap - needed),
        5 => cap / 2 + r.below(3),
        _ => needed.saturating_sub(1) + r.below(3),
    };
    let limit = count as i128 * (1i128 << (T::W - 1));
    let unit = 1i128 << (T::P - 3);
    let mut s = vec![0i128; k];
    if !empty {
        for v in s.iter_mut() {
            let wide =
                ((r.next_u64() as i128) << 64 | r.next_u64() as i128).rem_euclid(2 * limit + 1) - limit;
            *v = match r.below(9) {
                0 => 0,
                1 => limit,
                2 => -limit,
                3 => limit - r.below(3) as i128,
                4 => -limit + r.below(3) as i128,
                5 => wide.div_euclid(unit) * unit + if r.one_in(2) { 0 } else { unit - 1 },
                6 => r.below(1 << 20) as i128 - (1 << 19),
                7 if r.one_in(4) => limit + 1 + r.below(unit as u64) as i128,
                _ => wide,
            }
            .clamp(-(1i128 << (2 * T::P - 4)), 1i128 << (2 * T::P - 4));
        }
    }
    let top = (!empty).then(|| r.below(T::M as u64 + 1) as usize);
    Model::from_parts(k, top, &s, count, flags).expect("valid parts")
}

/// Changes an encoding: a flipped bit, a count, a carry, the flags, a primary, the version,
/// the type or fold byte, the length, an emptied finite part, or a random byte; then (most
/// of the time) rewrites the checksum so that the other rules are what is tested.
fn mutate<T: F>(r: &mut Rng, b: &mut Vec<u8>) {
    let z = model::width::<T>();
    let put = |b: &mut Vec<u8>, at: usize, v: u64| {
        if at + z <= b.len() {
            b[at..at + z].copy_from_slice(&v.to_le_bytes()[..z]);
        }
    };
    let float = |r: &mut Rng| -> u64 {
        let n = r.below(9) as i128 - 4;
        match r.below(8) {
            0 => model::exact_bits(n, 0, T::P, T::EXP_BITS).unwrap(),
            1 => sign_bit::<T>(),                                          // -0.0
            2 => model::exact_bits(1, -1, T::P, T::EXP_BITS).unwrap(),     // 0.5
            3 => make::<T>(r.one_in(2), max_field::<T>() + 1, r.below(2)), // Inf, NaN
            4 => model::exact_bits(
                r.below(1 << 20) as i128 - (1 << 19),
                r.below(40) as i32,
                T::P,
                T::EXP_BITS,
            )
            .unwrap(),
            5 => make::<T>(r.one_in(2), r.below(max_field::<T>() + 1), r.next_u64()),
            _ => model::exact_bits(n, r.below(5) as i32, T::P, T::EXP_BITS).unwrap(),
        }
    };
    for _ in 0..1 + r.below(2) {
        if b.len() < 20 {
            b.push(r.next_u64() as u8);
            continue;
        }
        let n = b.len() as u64;
        // The fold the length allows (at least 1 slot, if any).
        let k = (b.len() - 20) / (2 * z);
        match r.below(12) {
            0 | 1 => {
                let i = r.below(n * 8) as usize;
                b[i / 8] ^= 1 << (i % 8);
            }
            2 => {
                let cap = capacity::<T>();
                let (any, small) = (r.next_u64(), r.below(100));
                let c = *r.pick(&[0, 1, 2, 3, cap, cap + 1, cap - 1, u64::MAX, any, small]);
                b[8..16].copy_from_slice(&c.to_le_bytes());
            }
            3 if k > 0 => {
                let v = float(r);
                put(b, 16 + (k + r.below(k as u64) as usize) * z, v);
            }
            4 => {
                b[7] = if r.one_in(4) {
                    r.next_u64() as u8
                } else {
                    r.below(8) as u8
                }
            }
            5 if k > 0 => {
                let at = 16 + r.below(k as u64) as usize * z;
                let mut w = [0u8; 8];
                w[..z].copy_from_slice(&b[at..at + z]);
                let mut p = u64::from_le_bytes(w);
                match r.below(4) {
                    0 => p = p.wrapping_add(1 << (T::P - 1)), // the next field
                    1 => p ^= (1 + r.below(3)) << (T::P - 3), // the bits below the lead
                    2 => p ^= r.below(1 << (T::P - 3)),       // the remainder P_j
                    _ => p = float(r),
                }
                put(b, at, p);
            }
            6 => {
                if b[4] == 2 {
                    b.truncate(b.len() - 4);
                    b[4] = 1;
                } else {
                    b[4] = *r.pick(&[0, 2, 3, 255]);
                }
            }
            7 => b[5] = *r.pick(&[0, 1, 2, 3]),
            8 => b[6] = *r.pick(&[0, 1, 2, 3, 21, 22, 52, 53, 255]),
            9 => match r.below(3) {
                0 => b.truncate(r.below(n) as usize),
                1 => b.push(r.next_u64() as u8),
                _ => b.truncate(n as usize - 1),
            },
            10 => {
                let end = (16 + 2 * k * z).min(b.len());
                b[16..end].fill(0);
            }
            _ => {
                let i = r.below(n) as usize;
                b[i] = r.next_u64() as u8;
            }
        }
    }
    if !r.one_in(8) {
        reseal(b);
    }
}

/// The core and the model agree on accept / refuse: random byte strings, headers with
/// random bodies, encodings of real sums and of random states, and mutations of these.
fn decoding<T: F>(seed: u64) -> (usize, usize) {
    let mut r = Rng(seed);
    let (mut tried, mut accepted) = (0, 0);
    for i in 0..n_cases(400) {
        let k = if r.one_in(3) {
            2 + r.below(<T as ModelFloat>::MAX_FOLD as u64 - 1) as usize
        } else {
            *r.pick(T::FOLDS)
        };
        let mut b: Vec<u8> = match r.below(5) {
            0 => {
                let n = r.below(100);
                (0..n).map(|_| r.next_u64() as u8).collect()
            }
            1 => {
                let mut m = Model::<T>::new(k).unwrap();
                let n = length::<T>(&mut r).min(300);
                let x = vector::<T>(&mut r, n);
                x.iter().for_each(|&v| m.add(v).unwrap());
                m.to_bytes().as_slice().to_vec()
            }
            2 => random_state::<T>(&mut r, k).to_bytes_v1().as_slice().to_vec(),
            _ => random_state::<T>(&mut r, k).to_bytes().as_slice().to_vec(),
        };
        if r.below(3) != 0 {
            mutate::<T>(&mut r, &mut b);
        }
        tried += 1;
        accepted += usize::from(decoders_agree::<T>(&b, &format!("seed {seed:#x} case {i}")).is_some());
    }
    (tried, accepted)
}

#[test]
fn decoders_agree_on_random_and_mutated_bytes() {
    let (t64, a64) = decoding::<f64>(0xDEC0_DE64);
    let (t32, a32) = decoding::<f32>(0xDEC0_DE32);
    println!("f64: {a64} of {t64} accepted; f32: {a32} of {t32} accepted");
    // Both outcomes are exercised in earnest.
    assert!(a64 > t64 / 5 && a64 < t64 - t64 / 5, "f64: {a64} of {t64}");
    assert!(a32 > t32 / 5 && a32 < t32 - t32 / 5, "f32: {a32} of {t32}");
}

/// Any accepted state, in the core and in the model: merge(a, a), merge(a, b) and adds give
/// the same outcome (a capacity error or a state), the same bytes, and bytes that decode.
fn closure<T: F>(seed: u64) -> usize {
    let mut r = Rng(seed);
    let mut checked = 0;
    let accepted = |r: &mut Rng, k: usize| loop {
        let mut b = random_state::<T>(r, k).to_bytes().as_slice().to_vec();
        if r.one_in(3) {
            mutate::<T>(r, &mut b);
        }
        if let Some(m) = decoders_agree::<T>(&b, "closure") {
            if m.fold() == k {
                return (m, DynAccumulator::<T>::from_bytes(&b).unwrap());
            }
        }
    };
    let same = |what: &str, m: Result<Model<T>, model::ModelError>, d: Result<DynAccumulator<T>, Error>| {
        match (m, d) {
            (Ok(m), Ok(d)) => {
                let mb = m.to_bytes();
                assert_eq!(d.to_bytes().as_bytes(), mb.as_slice(), "{what}");
                assert_eq!(bits(d.value()), bits(m.value()), "{what}");
                let again = decoders_agree::<T>(mb.as_slice(), what).expect("closed: the result decodes");
                assert_eq!(again.to_bytes().as_slice(), mb.as_slice(), "{what}");
            }
            (Err(model::ModelError::Capacity), Err(Error::CapacityExceeded)) => {}
            (m, d) => panic!("{what}: model {:?}, core {:?}", m.map(|_| ()), d.map(|_| ())),
        }
    };
    for i in 0..n_cases(400) {
        let k = *r.pick(T::FOLDS);
        let (ma, da) = accepted(&mut r, k);
        let (mb, db) = accepted(&mut r, k);
        let what = format!("{} seed {seed:#x} case {i}", T::NAME);
        let op = |m: &Model<T>, d: &DynAccumulator<T>, mo: &Model<T>, dd: &DynAccumulator<T>| {
            let (mut m2, mut d2) = (*m, *d);
            (m2.merge(mo).map(|_| m2), d2.merge(dd).map(|_| d2))
        };
        let (m, d) = op(&ma, &da, &ma, &da);
        same(&format!("{what}: merge(a, a)"), m, d);
        let (m, d) = op(&ma, &da, &mb, &db);
        same(&format!("{what}: merge(a, b)"), m, d);
        let (m, d) = op(&mb, &db, &ma, &da);
        same(&format!("{what}: merge(b, a)"), m, d);
        let n = 1 + r.below(4) as usize;
        let xs = vector::<T>(&mut r, n);
        let (mut m, mut d) = (Ok(ma), Ok(da));
        for &x in &xs {
            m = m.and_then(|mut m| m.add(x).map(|_| m));
            d = d.and_then(|mut d| DynAccumulator::add(&mut d, x).map(|_| d));
            if m.is_err() {
                break;
            }
        }
        same(&format!("{what}: add {xs:?}"), m, d);
        // Running values on an accepted state.
        let mut m = ma;
        let mut d = da;
        let mut out = vec![junk::<T>(); xs.len()];
        let want: Result<Vec<u64>, _> = xs.iter().map(|&x| m.add(x).map(|_| bits(m.value()))).collect();
        let got = d
            .add_running(&xs, &mut out)
            .map(|_| out.iter().map(|&v| bits(v)).collect::<Vec<_>>());
        match (want, got) {
            (Ok(w), Ok(g)) => assert_eq!(w, g, "{what}: add_running"),
            (Err(_), Err(Error::CapacityExceeded)) => {}
            (w, g) => panic!("{what}: add_running: model {w:?}, core {g:?}"),
        }
        checked += 1;
    }
    checked
}

#[test]
fn accepted_states_are_closed_under_add_and_merge() {
    let n = closure::<f64>(0xC105_E064) + closure::<f32>(0xC105_E032);
    println!("{n} accepted pairs merged and added to");
    // The counterexample: f32, fold 3, count 1, carry -1 (S_0 = -1).
    let a = Model::<f32>::from_parts(3, Some(10), &[-1, 0, 0], 1, 0).unwrap();
    let b = a.to_bytes();
    assert_eq!(
        b.as_slice()[16 + 3 * 4..16 + 4 * 4],
        (-1.0f32).to_le_bytes(),
        "carry -1"
    );
    let m = decoders_agree::<f32>(b.as_slice(), "counterexample").expect("accepted");
    let mut d = DynAccumulator::<f32>::from_bytes(b.as_slice()).unwrap();
    let mut m2 = m;
    for _ in 0..12 {
        m2.merge(&m2.clone()).unwrap();
        d.merge(&d.clone()).unwrap();
        assert_eq!(d.to_bytes().as_bytes(), m2.to_bytes().as_slice());
        assert!(decoders_agree::<f32>(m2.to_bytes().as_slice(), "counterexample merged").is_some());
    }
}

/// The model's encodings, both versions, decode in the core to the same state, whose
/// version-2 bytes are the model's.
#[test]
fn model_encodings_round_trip_through_the_core() {
    fn run<T: F>(seed: u64) {
        let mut r = Rng(seed);
        for _ in 0..n_cases(100) {
            let k = *r.pick(T::FOLDS);
            let mut m = Model::<T>::new(k).unwrap();
            let len = length::<T>(&mut r).min(500);
            vector::<T>(&mut r, len).iter().for_each(|&v| m.add(v).unwrap());
            let v2 = m.to_bytes();
            let v1 = m.to_bytes_v1();
            // Version 1: the same bytes with version 1 and no checksum.
            let mut want_v1 = v2.as_slice()[..v2.as_slice().len() - 4].to_vec();
            want_v1[4] = 1;
            assert_eq!(v1.as_slice(), &want_v1[..]);
            for b in [v2.as_slice(), v1.as_slice()] {
                let d = DynAccumulator::<T>::from_bytes(b).expect("the core reads the model's bytes");
                assert_eq!(d.to_bytes().as_bytes(), v2.as_slice());
                assert_eq!(T::const_decode(b, k).expect("const form"), v2.as_slice());
                let back = Model::<T>::from_bytes(b, Some(k)).expect("the model reads its own bytes");
                assert_eq!(back.to_bytes().as_slice(), v2.as_slice());
            }
        }
    }
    run::<f64>(0x2007_0064);
    run::<f32>(0x2007_0032);
}
