//! Writes the kernel emulator's cumulative sums continued from a start state
//! (`gpu/tests/emu/emu.cpp`), with every output's bits from reprosum-core.
//!
//! `cargo run -p reprosum-gpu --example emu_from_cases -- SEED > from.txt`, then
//! `emu from.txt BLOCK...` (`.ci/gpu.sh`, `.ci/hip.sh`). The vectors format
//! (reprosum-testkit's crate docs) with one more field, `start HEX ...`: the start state in
//! the kernels' stored layout (K primaries, K carries, then a slot whose bits are the flags),
//! taken from the core's encoding (docs/FORMAT.md section 11). `sum` is the sum of the
//! inputs alone (what the sum kernel computes), `cumsum` the value of the start merged with
//! each prefix of the inputs (`starts::expected`).
//!
//! Cases, at every fold 2..=8 and at 12 and the type's largest (f64 52, f32 21: the
//! run-time-fold kernels), f64 and f32: every start state of `starts::starts` (empty,
//! small, carries, huge, high, tiny, NaN, +Inf, both infinities, a count near the capacity
//! with large carries), each with an input pattern and a length (1 to 5000, crossing the
//! emulator's tiles); at fold 3 every pattern with the starts that move the window; and
//! splits (`split_*`): an input cut in two, the start the core's accumulator of the first
//! piece, expected the core's cumsum of the whole input from the cut.

use std::fmt::Write as _;

#[path = "../tests/gpu_common/starts.rs"]
mod starts;

use reprosum_core::{encoding, DynAccumulator, Float};
use starts::{expected, input, StartFloat, PATTERNS};

const LENGTHS: [usize; 9] = [1, 2, 17, 100, 529, 1500, 2113, 4100, 5000];

fn hex<T: Float>(x: T) -> String {
    format!("{:0w$X}", x.bits(), w = 2 * T::BYTES)
}

/// The kernels' layout of a state, as hex words: the encoding's primaries and carries, then
/// the flags byte as a word.
fn kernel_words<T: Float>(a: &DynAccumulator<T>) -> String {
    let e = a.to_bytes();
    let b = e.as_bytes();
    let k = a.fold();
    let mut words: Vec<String> = (0..2 * k)
        .map(|j| {
            let at = encoding::HEADER_LEN + j * T::BYTES;
            let mut w = [0u8; 8];
            w[..T::BYTES].copy_from_slice(&b[at..at + T::BYTES]);
            format!("{:0w$X}", u64::from_le_bytes(w), w = 2 * T::BYTES)
        })
        .collect();
    words.push(format!("{:0w$X}", b[7], w = 2 * T::BYTES));
    words.join(" ")
}

fn case<T: StartFloat>(out: &mut String, name: &str, start: &DynAccumulator<T>, xs: &[T], want: &[T]) {
    let fold = start.fold();
    let sum = reprosum_core::sum_fold(xs, fold).expect("core sum");
    let _ = writeln!(out, "case {name} {} {fold}", T::NAME);
    let ins: Vec<String> = xs.iter().map(|&x| hex(x)).collect();
    let _ = writeln!(out, "part 1 {}", ins.join(" "));
    let _ = writeln!(out, "start {}", kernel_words(start));
    let _ = writeln!(out, "sum {}", hex(sum));
    let cum: Vec<String> = want.iter().map(|&x| hex(x)).collect();
    let _ = writeln!(out, "cumsum {}", cum.join(" "));
    let _ = writeln!(out, "end");
}

fn cases_of<T: StartFloat>(out: &mut String, seed: u64) -> usize {
    let mut count = 0;
    for fold in (2..=8).chain([12, T::MAX_FOLD]) {
        for (i, (sname, start)) in starts::starts::<T>(fold, seed + fold as u64).iter().enumerate() {
            let mut runs = vec![(
                PATTERNS[(i + fold) % PATTERNS.len()],
                LENGTHS[(3 * i + fold) % LENGTHS.len()],
            )];
            if fold == 3 && matches!(*sname, "huge" | "high" | "tiny" | "carries" | "large_count") {
                runs = PATTERNS
                    .iter()
                    .enumerate()
                    .map(|(j, p)| (*p, LENGTHS[(j + i) % LENGTHS.len()].max(529)))
                    .collect();
            }
            for (pattern, n) in runs {
                let xs = input::<T>(pattern, n, seed ^ (fold as u64 * 131 + i as u64));
                let want = expected(start, &xs);
                let name = format!("from_{sname}_{pattern}_{}_k{fold}_n{n}", T::NAME);
                case(out, &name, start, &xs, &want);
                count += 1;
            }
        }
        // Splits: the start is the core's accumulator of the first piece; the expected bits
        // are the core's cumsum of the whole input.
        for (j, pattern) in PATTERNS.iter().enumerate() {
            let n = 3000 + 97 * j;
            let cut = [1, 700, 1499, 2999][(j + fold) % 4];
            let xs = input::<T>(pattern, n, seed ^ 0xC0FFEE ^ (fold * 7 + j) as u64);
            let mut whole = vec![T::default(); n];
            reprosum::cumsum_fold(&xs, &mut whole, fold).expect("core cumsum");
            let mut start = DynAccumulator::<T>::new(fold).unwrap();
            start.add_slice(&xs[..cut]).unwrap();
            let want = expected(&start, &xs[cut..]);
            assert!(
                want.iter().zip(&whole[cut..]).all(|(a, b)| a.bits() == b.bits()),
                "core: a split cumsum differs from the whole one"
            );
            let name = format!("split_{pattern}_{}_k{fold}_cut{cut}", T::NAME);
            case(out, &name, &start, &xs[cut..], &whole[cut..]);
            count += 1;
        }
    }
    count
}

fn main() {
    let seed: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Cumulative sums from a start state, for gpu/tests/emu (written by the example emu_from_cases, seed {seed});"
    );
    let _ = writeln!(
        out,
        "# expected bits from reprosum-core. `start`: the kernels' layout of the start state."
    );
    let n = cases_of::<f64>(&mut out, seed) + cases_of::<f32>(&mut out, seed + 1000);
    print!("{out}");
    eprintln!("emu_from_cases: {n} cases (seed {seed})");
}
