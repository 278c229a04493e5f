//! The segmented sums (segments by CSR offsets, rows of a matrix) on a device against the
//! core's sum of each group alone, by bits; bad input refused with the output untouched.

use super::starts::StartFloat;
use super::{Device, DeviceBuffer, GpuFloat, Tally};
use crate::backend as gpu;
use reprosum_core::DynAccumulator;
use reprosum_gpu::GpuError;

/// A small deterministic generator (xorshift).
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// `n` values in every exponent range of the type, mixed signs, a NaN or an infinity now
/// and then when `specials`.
pub(super) fn values<T: StartFloat>(rng: &mut Rng, n: usize, specials: bool) -> Vec<T> {
    let span = if T::BYTES == 8 { 600 } else { 60 };
    (0..n)
        .map(|_| {
            let r = rng.next();
            if specials && r % 10007 == 3 {
                return T::of(f64::NAN);
            }
            if specials && r % 10009 == 5 {
                return T::of(f64::NEG_INFINITY);
            }
            let m = (r >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
            T::of(m * 2f64.powi((rng.below(span) as i32) - span as i32 / 2))
        })
        .collect()
}

/// The core's sum of one group alone.
pub(super) fn reference<T: GpuFloat>(xs: &[T], fold: usize) -> T {
    let mut a = DynAccumulator::<T>::new(fold).unwrap();
    a.add_slice(xs).unwrap();
    a.value()
}

/// Segment layouts (lengths) for `n` values: random short ones with empties, one long
/// segment, tile-sized ones, single values, and a skewed mix.
fn layouts(rng: &mut Rng) -> Vec<(&'static str, Vec<usize>)> {
    let mut out = Vec::new();
    let mut short = Vec::new();
    for _ in 0..3000 {
        short.push(match rng.below(10) {
            0 | 1 => 0,
            2 => 1,
            _ => 1 + rng.below(64) as usize,
        });
    }
    out.push(("short with empties", short));
    out.push(("one long", vec![300_001]));
    out.push((
        "tile sizes",
        vec![2047, 2048, 2049, 4095, 4096, 4097, 0, 1, 8191, 8192, 8193],
    ));
    out.push(("single values", vec![1; 5000]));
    out.push(("all empty", vec![0; 17]));
    let mut skewed = Vec::new();
    for i in 0..400 {
        skewed.push(if i % 97 == 0 {
            50_000 + rng.below(20_000) as usize
        } else {
            rng.below(8) as usize
        });
    }
    out.push(("skewed", skewed));
    // Runs of segments of average length 1e4 (chunks of few segments, whose short ones the
    // long groups' kernel adds too, once the input is large enough for chunks of several
    // tiles) beside runs of tiny ones (chunks of many segments, rs_seg_sum's).
    let mut sparse = Vec::new();
    for _ in 0..40 {
        sparse.extend((0..20).map(|_| rng.below(20_001) as usize));
        sparse.extend((0..500).map(|_| rng.below(8) as usize));
    }
    out.push((SPARSE_MIX, sparse));
    // More offsets than one piece of the host's staged upload (2^19 offsets): checked and
    // copied in three pieces.
    out.push((
        "many segments (host offsets staged in three pieces)",
        (0..1_200_000).map(|_| rng.below(4) as usize).collect(),
    ));
    out
}

/// The layout whose chunks of `rs_seg_long` must be both sparse and not (see [`sparse_reach`]).
const SPARSE_MIX: &str = "segments of average 1e4 beside tiny ones";

/// What a layout reaches of the long groups' kernel's chunks on this device (the device's
/// cut of the input, `Device::segmented_tiling`, and the kernels' rule: a chunk of m tiles is
/// sparse when m >= 2 and the groups from the one holding its first position to the one
/// holding the position after it number at most m / 2 + 1): the short segments (at most a
/// tile) that begin in a sparse chunk, and the chunks that are not sparse. None where the
/// device cuts the input in chunks of one tile (then none is sparse).
fn sparse_reach<T: GpuFloat>(dev: &Device, off: &[usize], fold: usize) -> Option<(usize, usize)> {
    let span = *off.last().unwrap();
    let (tile, m) = dev.segmented_tiling::<T>(span, fold).unwrap();
    let (tile, m) = (tile as usize, m as usize);
    if m < 2 {
        return None;
    }
    let nseg = off.len() - 1;
    let ntiles = span.div_ceil(tile).max(1);
    // The group of each tile's first position: the last that begins at or before it.
    let first: Vec<usize> = (0..ntiles)
        .map(|t| off[..nseg].partition_point(|&b| b <= t * tile) - 1)
        .collect();
    let sparse = |c: usize| {
        let last = if c * m + m < ntiles {
            first[c * m + m]
        } else {
            nseg - 1
        };
        c * m < ntiles && last - first[c * m] <= m / 2
    };
    let short = (0..nseg)
        .filter(|&g| off[g] < span && off[g + 1] - off[g] <= tile && sparse(off[g] / (m * tile)))
        .count();
    let dense = (0..span.div_ceil(m * tile)).filter(|&c| !sparse(c)).count();
    Some((short, dense))
}

fn offsets_of(lens: &[usize]) -> Vec<usize> {
    let mut o = vec![0usize];
    for &l in lens {
        o.push(o.last().unwrap() + l);
    }
    o
}

pub(super) fn poison<T: GpuFloat>() -> T {
    T::from_bits_u64(0xA5A5_A5A5_A5A5_A5A5)
}

/// Every segmented entry point at every fold of `folds` against the core.
pub fn segmented_checks<T: GpuFloat + StartFloat>(dev: &Device, folds: &[usize], t: &mut Tally) {
    let mut rng = Rng(0x5EED_0000_0000_0001 ^ T::BYTES as u64);
    for (name, lens) in layouts(&mut rng) {
        let off = offsets_of(&lens);
        let n = *off.last().unwrap();
        let xs = values::<T>(&mut rng, n, true);
        let xd = DeviceBuffer::<T>::from_host(dev, &xs).unwrap();
        let offd: Vec<u64> = off.iter().map(|&o| o as u64).collect();
        let offb = DeviceBuffer::<u64>::from_host(dev, &offd).unwrap();
        // Otherwise this layout tests nothing of the sparse chunks.
        for &fold in folds.iter().filter(|_| name == SPARSE_MIX) {
            match sparse_reach::<T>(dev, &off, fold) {
                Some((short, dense)) => {
                    println!(
                        "segmented sum {} {name} fold {fold}: {short} short segments in sparse chunks, {dense} chunks not sparse",
                        T::NAME
                    );
                    t.check(short > 0 && dense > 0, || {
                        format!("segmented sum {} {name} fold {fold}: both counts must be above 0", T::NAME)
                    })
                }
                None => println!(
                    "segmented sum {} {name} fold {fold}: this device cuts {n} values in chunks of one tile, so no chunk is sparse (not reached here)",
                    T::NAME
                ),
            }
        }
        for &fold in folds {
            let want: Vec<T> = lens
                .iter()
                .enumerate()
                .map(|(i, _)| reference(&xs[off[i]..off[i + 1]], fold))
                .collect();
            let same = |got: &[T]| {
                got.len() == want.len() && got.iter().zip(&want).all(|(g, w)| g.bits() == w.bits())
            };
            let what = |how: &str| format!("segmented sum {} {name} fold {fold} ({how})", T::NAME);
            // Device buffers, host offsets.
            let mut outd = DeviceBuffer::<T>::from_host(dev, &vec![poison::<T>(); lens.len()]).unwrap();
            let r = dev.segmented_sum(&xd, &off, &mut outd, fold);
            t.check(r.is_ok() && same(&outd.to_host().unwrap()), || {
                format!("{} {r:?}", what("buffers"))
            });
            // Host slices.
            let mut outh = vec![poison::<T>(); lens.len()];
            let r = dev.segmented_sum_host(&xs, &off, &mut outh, fold, gpu::Stream::DEFAULT);
            t.check(r.is_ok() && same(&outh), || format!("{} {r:?}", what("host")));
            // Pointers: device values and sums with device offsets, then with host offsets;
            // host values and sums.
            let mut outd = DeviceBuffer::<T>::from_host(dev, &vec![poison::<T>(); lens.len()]).unwrap();
            // SAFETY: the buffers hold n values, nseg + 1 offsets and nseg sums on device 0.
            let r = unsafe {
                gpu::segmented_sum_ptr::<T>(
                    xd.device_ptr() as *const T,
                    offb.device_ptr() as *const usize,
                    lens.len(),
                    fold,
                    outd.device_ptr() as *mut T,
                    std::ptr::null_mut(),
                )
            };
            t.check(r.is_ok() && same(&outd.to_host().unwrap()), || {
                format!("{} {r:?}", what("device pointers"))
            });
            outd.fill_bytes(0xA5).unwrap();
            // SAFETY: as above, the offsets on the host.
            let r = unsafe {
                gpu::segmented_sum_ptr::<T>(
                    xd.device_ptr() as *const T,
                    off.as_ptr(),
                    lens.len(),
                    fold,
                    outd.device_ptr() as *mut T,
                    std::ptr::null_mut(),
                )
            };
            t.check(r.is_ok() && same(&outd.to_host().unwrap()), || {
                format!("{} {r:?}", what("host offsets"))
            });
            let mut outh = vec![poison::<T>(); lens.len()];
            // SAFETY: host slices of n values, nseg + 1 offsets and nseg sums.
            let r = unsafe {
                gpu::segmented_sum_ptr::<T>(
                    xs.as_ptr(),
                    off.as_ptr(),
                    lens.len(),
                    fold,
                    outh.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            };
            t.check(r.is_ok() && same(&outh), || {
                format!("{} {r:?}", what("host pointers"))
            });
        }
        // The same multiset in another order within each segment: the same bits.
        let mut ys = xs.clone();
        for i in 0..lens.len() {
            let s = &mut ys[off[i]..off[i + 1]];
            for j in (1..s.len()).rev() {
                s.swap(j, rng.below(j as u64 + 1) as usize);
            }
        }
        let mut a = vec![poison::<T>(); lens.len()];
        let mut b = vec![poison::<T>(); lens.len()];
        let ra = dev.segmented_sum_host(&xs, &off, &mut a, 3, gpu::Stream::DEFAULT);
        let rb = dev.segmented_sum_host(&ys, &off, &mut b, 3, gpu::Stream::DEFAULT);
        t.check(
            ra.is_ok() && rb.is_ok() && a.iter().zip(&b).all(|(x, y)| x.bits() == y.bits()),
            || format!("segmented sum {} {name}: shuffled segments differ", T::NAME),
        );
    }
    rows_checks::<T>(dev, folds, &mut rng, t);
    bad_input_checks::<T>(dev, t);
}

/// The long groups' path (groups of more positions than a tile; chunks of m tiles, m
/// chosen per call from the input's tiles and the blocks the device holds at once) at
/// every fold of the type: long segments across chunks and among short ones, from an
/// aligned buffer and from a pointer one value past a 16-byte boundary (device offsets),
/// and long rows with a gap after each; then, at a few folds, an input of more tiles than
/// the device holds blocks (chunks of several tiles: long segments within a chunk too).
pub fn long_checks<T: GpuFloat + StartFloat>(dev: &Device, t: &mut Tally) {
    let mut rng = Rng(0x5EED_0000_0000_0017 ^ T::BYTES as u64);
    let lens = [
        70_001usize,
        3,
        0,
        40_000,
        2049,
        2048,
        2050,
        131_073,
        1,
        4097,
        8193,
        65_536,
        65_537,
        9000,
        0,
        33_000,
    ];
    let off = offsets_of(&lens);
    let n = *off.last().unwrap();
    // One value before the segments' first: the pointer form starts one value past the
    // buffer's start.
    let all = values::<T>(&mut rng, n + 1, false);
    let xs = &all[1..];
    let xd = DeviceBuffer::<T>::from_host(dev, xs).unwrap();
    let alld = DeviceBuffer::<T>::from_host(dev, &all).unwrap();
    let offd: Vec<u64> = off.iter().map(|&o| o as u64).collect();
    let offb = DeviceBuffer::<u64>::from_host(dev, &offd).unwrap();
    let (rows, cols, stride) = (4usize, 50_000usize, 50_003usize);
    let max = <T as reprosum_core::Float>::MAX_FOLD;
    for fold in 2..=max {
        let want: Vec<T> = (0..lens.len())
            .map(|i| reference(&xs[off[i]..off[i + 1]], fold))
            .collect();
        let same = |got: &[T], want: &[T]| {
            got.len() == want.len() && got.iter().zip(want).all(|(g, w)| g.bits() == w.bits())
        };
        let mut outd = DeviceBuffer::<T>::from_host(dev, &vec![poison::<T>(); lens.len()]).unwrap();
        let r = dev.segmented_sum(&xd, &off, &mut outd, fold);
        t.check(r.is_ok() && same(&outd.to_host().unwrap(), &want), || {
            format!("long segments {} fold {fold} (buffers): {r:?}", T::NAME)
        });
        outd.fill_bytes(0xA5).unwrap();
        // SAFETY: alld holds n + 1 values, so n from its second; nseg + 1 offsets and nseg sums.
        let r = unsafe {
            gpu::segmented_sum_ptr::<T>(
                (alld.device_ptr() as usize + T::BYTES) as *const T,
                offb.device_ptr() as *const usize,
                lens.len(),
                fold,
                outd.device_ptr() as *mut T,
                std::ptr::null_mut(),
            )
        };
        t.check(r.is_ok() && same(&outd.to_host().unwrap(), &want), || {
            format!(
                "long segments {} fold {fold} (offset pointer, device offsets): {r:?}",
                T::NAME
            )
        });
        let want: Vec<T> = (0..rows)
            .map(|r| reference(&xs[r * stride..r * stride + cols], fold))
            .collect();
        let mut outr = DeviceBuffer::<T>::from_host(dev, &vec![poison::<T>(); rows]).unwrap();
        let r = dev.sum_rows(&xd, rows, cols, stride, &mut outr, fold);
        t.check(r.is_ok() && same(&outr.to_host().unwrap(), &want), || {
            format!("long rows {} {rows}x{cols}/{stride} fold {fold}: {r:?}", T::NAME)
        });
    }
    // 4e6 values: more tiles (1024 f64, 2048 f32 positions) than an H200 holds blocks of
    // the long kernel (924), so chunks of several tiles there; segments of 1 to 3 tiles
    // lie within one chunk or cross to the next.
    let mut lens = Vec::new();
    let mut total = 0usize;
    while total < 4_000_000 {
        let len = 1 + (rng.next() % 6_000) as usize;
        lens.push(len);
        total += len;
    }
    let off = offsets_of(&lens);
    let xs = values::<T>(&mut rng, total, false);
    let xd = DeviceBuffer::<T>::from_host(dev, &xs).unwrap();
    for fold in [2, 3, max] {
        let want: Vec<T> = (0..lens.len())
            .map(|i| reference(&xs[off[i]..off[i + 1]], fold))
            .collect();
        let mut outd = DeviceBuffer::<T>::from_host(dev, &vec![poison::<T>(); lens.len()]).unwrap();
        let r = dev.segmented_sum(&xd, &off, &mut outd, fold);
        let got = outd.to_host().unwrap();
        t.check(
            r.is_ok() && got.iter().zip(&want).all(|(g, w)| g.bits() == w.bits()),
            || format!("long segments {} (4e6 values) fold {fold}: {r:?}", T::NAME),
        );
    }
}

/// The dense path (segments of at least [`DENSE_MIN_AVG`] positions on average: two kernels,
/// chunks cut by a merge path over positions and segment ends) against the core, at folds 2,
/// 3 and the type's largest: every layout here must take it, and the same long segments with
/// tiny ones among them (a smaller average) must not, so that both paths add them; the
/// layouts of short segments take `rs_seg_dense_teams` (an average below
/// [`DENSE_TEAMS_BELOW`]), the others `rs_seg_dense`. Device buffers with host offsets, and
/// device offsets through the pointer form (the check on the device); bad device offsets
/// whose average takes either dense kernel are refused with the output untouched.
pub fn dense_checks<T: GpuFloat + StartFloat>(dev: &Device, t: &mut Tally) {
    let mut rng = Rng(0x5EED_0000_0000_00D5 ^ T::BYTES as u64);
    let mut skewed = vec![0usize, 0, 1_000_000];
    skewed.extend((0..120).map(|_| rng.below(4) as usize));
    skewed.extend([0, 250_000, 0]);
    let mut many = Vec::new();
    while many.iter().sum::<usize>() < 4_000_000 {
        many.push(5_000 + rng.below(10_001) as usize);
    }
    let mut mixed = many.clone();
    for i in (0..mixed.len()).step_by(7) {
        mixed[i] = rng.below(3) as usize;
    }
    // Short segments (teams of threads), every fifth of 0 to 2 values, and a few long ones
    // (a chunk of one long piece beside chunks of many short ones).
    let mut short = Vec::new();
    while short.iter().sum::<usize>() < 2_000_000 {
        short.push(if short.len() % 5 == 4 {
            rng.below(3) as usize
        } else {
            600 + rng.below(601) as usize
        });
    }
    for i in [10, 1000, 2000] {
        short[i] = 20_000 + i;
    }
    let longs = vec![
        70_001usize,
        3,
        0,
        40_000,
        2049,
        131_073,
        1,
        65_537,
        9000,
        0,
        33_000,
    ];
    // Tiny ones enough to bring the average below half the dense path's bound.
    let tiny = 2 * longs.iter().sum::<usize>() / reprosum_gpu::device::DENSE_MIN_AVG as usize;
    let mut longs_tiny = longs.clone();
    longs_tiny.extend((0..tiny).map(|_| rng.below(4) as usize));
    let max = <T as reprosum_core::Float>::MAX_FOLD;
    for (name, lens, dense) in [
        (
            "one huge segment, tiny ones after it, empties at both ends",
            skewed,
            true,
        ),
        ("4e6 values in segments of 5000 to 15000", many, true),
        (
            "the same with every seventh segment of 0 to 2 values",
            mixed,
            true,
        ),
        ("long segments", longs, true),
        ("long segments among tiny ones", longs_tiny, false),
        ("2e6 values in segments of 600 to 1200 and empties", short, true),
    ] {
        let off = offsets_of(&lens);
        let n = *off.last().unwrap();
        let avg = n as u64 / lens.len() as u64;
        t.check((avg >= reprosum_gpu::device::DENSE_MIN_AVG) == dense, || {
            format!(
                "dense path {} {name}: average {avg} (the dense path from {}) must {}take it",
                T::NAME,
                reprosum_gpu::device::DENSE_MIN_AVG,
                if dense { "" } else { "not " }
            )
        });
        let teams = name.starts_with("2e6");
        t.check(
            !dense || (avg < reprosum_gpu::device::DENSE_TEAMS_BELOW) == teams,
            || {
                format!(
                    "dense path {} {name}: average {avg} (teams below {}) must {}take the teams",
                    T::NAME,
                    reprosum_gpu::device::DENSE_TEAMS_BELOW,
                    if teams { "" } else { "not " }
                )
            },
        );
        let xs = values::<T>(&mut rng, n, true);
        let xd = DeviceBuffer::<T>::from_host(dev, &xs).unwrap();
        let offd: Vec<u64> = off.iter().map(|&o| o as u64).collect();
        let offb = DeviceBuffer::<u64>::from_host(dev, &offd).unwrap();
        for fold in [2, 3, max] {
            let want: Vec<T> = (0..lens.len())
                .map(|i| reference(&xs[off[i]..off[i + 1]], fold))
                .collect();
            let same = |got: &[T]| got.iter().zip(&want).all(|(g, w)| g.bits() == w.bits());
            let mut outd = DeviceBuffer::<T>::from_host(dev, &vec![poison::<T>(); lens.len()]).unwrap();
            let r = dev.segmented_sum(&xd, &off, &mut outd, fold);
            t.check(r.is_ok() && same(&outd.to_host().unwrap()), || {
                format!("dense path {} {name} fold {fold} (buffers): {r:?}", T::NAME)
            });
            outd.fill_bytes(0xA5).unwrap();
            // SAFETY: the buffers hold n values, nseg + 1 offsets and nseg sums on the device.
            let r = unsafe {
                gpu::segmented_sum_ptr::<T>(
                    xd.device_ptr() as *const T,
                    offb.device_ptr() as *const usize,
                    lens.len(),
                    fold,
                    outd.device_ptr() as *mut T,
                    std::ptr::null_mut(),
                )
            };
            t.check(r.is_ok() && same(&outd.to_host().unwrap()), || {
                format!(
                    "dense path {} {name} fold {fold} (device offsets): {r:?}",
                    T::NAME
                )
            });
        }
    }
    // Bad device offsets of a large average: the first kernel's check refuses them (the
    // last two: an average of 625, the teams; one decreasing in the middle, one at the end).
    let xs = vec![T::of(1.0); 20_000];
    let xd = DeviceBuffer::<T>::from_host(dev, &xs).unwrap();
    let mut teams_bad: Vec<u64> = (0..=32).map(|i| i * 625).collect();
    let mut teams_end = teams_bad.clone();
    teams_bad[17] = 100;
    teams_end[30] = 19_995;
    teams_end[31] = 19_990;
    for off in [
        vec![0u64, 9_000, 5_000, 20_000],
        vec![0, 20_000, 0, 20_000],
        vec![7, 20_000],
        teams_bad,
        teams_end,
    ] {
        let nseg = off.len() - 1;
        let offb = DeviceBuffer::<u64>::from_host(dev, &off).unwrap();
        let outd = DeviceBuffer::<T>::from_host(dev, &vec![poison::<T>(); nseg]).unwrap();
        // SAFETY: the offsets stay within the 20000 values (the last is 20000).
        let r = unsafe {
            gpu::segmented_sum_ptr::<T>(
                xd.device_ptr() as *const T,
                offb.device_ptr() as *const usize,
                nseg,
                3,
                outd.device_ptr() as *mut T,
                std::ptr::null_mut(),
            )
        };
        let untouched = outd
            .to_host()
            .unwrap()
            .iter()
            .all(|x| x.bits() == poison::<T>().bits());
        t.check(
            r.as_ref().err() == Some(&GpuError::Core(reprosum_core::Error::InvalidOffsets)) && untouched,
            || format!("dense path {} bad device offsets {off:?}: {r:?}", T::NAME),
        );
    }
    // The same device offsets (address and count) as the call before, with other values in
    // them: that call's last offset chooses the kernels (the dense path, whose kernel reads
    // the last offset itself, where it says so). Any choice gives the core's bits, and bad
    // offsets are refused with the output untouched: long segments (2500 values), short ones
    // (an average of 8: the five kernels), 600 (the teams), bad, then long again.
    let nseg = 400u64;
    let long: Vec<u64> = (0..=nseg).map(|i| i * 2_500).collect();
    let short: Vec<u64> = (0..=nseg).map(|i| i * 8).collect();
    let teams: Vec<u64> = (0..=nseg).map(|i| i * 600).collect();
    let mut bad = long.clone();
    bad[200] = 10;
    let xs = values::<T>(&mut rng, 1_000_000, true);
    let xd = DeviceBuffer::<T>::from_host(dev, &xs).unwrap();
    let offb = DeviceBuffer::<u64>::from_host(dev, &long).unwrap();
    let mut outd = DeviceBuffer::<T>::from_host(dev, &vec![poison::<T>(); nseg as usize]).unwrap();
    for (what, off) in [
        ("long", &long),
        ("long again", &long),
        ("short after long", &short),
        ("short again", &short),
        ("long after short", &long),
        ("teams after long", &teams),
        ("bad after teams", &bad),
        ("long after bad", &long),
        ("long again after bad", &long),
    ] {
        offb.copy_from_host(off).unwrap();
        outd.fill_bytes(0xA5).unwrap();
        let before = outd.to_host().unwrap();
        // SAFETY: the offsets stay within the 1e6 values (but the bad ones, which the check
        // refuses before any read past their own segment).
        let r = unsafe {
            gpu::segmented_sum_ptr::<T>(
                xd.device_ptr() as *const T,
                offb.device_ptr() as *const usize,
                nseg as usize,
                3,
                outd.device_ptr() as *mut T,
                std::ptr::null_mut(),
            )
        };
        let got = outd.to_host().unwrap();
        if what.starts_with("bad") {
            let untouched = got.iter().zip(&before).all(|(g, b)| g.bits() == b.bits());
            t.check(
                r.as_ref().err() == Some(&GpuError::Core(reprosum_core::Error::InvalidOffsets)) && untouched,
                || format!("dense path {} offsets reused, {what}: {r:?}", T::NAME),
            );
            continue;
        }
        let ok = (0..nseg as usize)
            .all(|i| got[i].bits() == reference(&xs[off[i] as usize..off[i + 1] as usize], 3).bits());
        t.check(r.is_ok() && ok, || {
            format!("dense path {} offsets reused, {what}: {r:?}", T::NAME)
        });
    }
}

/// Row sums: dense, padded (a gap after each row), wide, narrow, empty rows.
fn rows_checks<T: GpuFloat + StartFloat>(dev: &Device, folds: &[usize], rng: &mut Rng, t: &mut Tally) {
    for (rows, cols, stride) in [
        (1000usize, 100usize, 100usize),
        (300, 77, 128),
        (3, 100_000, 100_003),
        (20_000, 3, 3),
        // Many short rows (rs_rows_short on devices of up to 156 multiprocessors): dense,
        // rows one value past a 16-byte boundary in turn, empty.
        (20_000, 64, 64),
        (20_000, 37, 41),
        (20_000, 0, 3),
        // Many long rows (rs_rows_long on devices that hold up to 5000 of its teams at once),
        // one value past a 16-byte boundary in turn.
        (5_000, 2_100, 2_101),
        (5, 0, 7),
        (1, 1, 1),
    ] {
        let span = (rows - 1) * stride + cols;
        let xs = values::<T>(rng, span, true);
        let xd = DeviceBuffer::<T>::from_host(dev, &xs).unwrap();
        for &fold in folds {
            let want: Vec<T> = (0..rows)
                .map(|r| reference(&xs[r * stride..r * stride + cols], fold))
                .collect();
            let same = |got: &[T]| got.iter().zip(&want).all(|(g, w)| g.bits() == w.bits());
            let mut outd = DeviceBuffer::<T>::from_host(dev, &vec![poison::<T>(); rows]).unwrap();
            let r = dev.sum_rows(&xd, rows, cols, stride, &mut outd, fold);
            t.check(r.is_ok() && same(&outd.to_host().unwrap()), || {
                format!(
                    "sum_rows {} {rows}x{cols}/{stride} fold {fold} (buffers): {r:?}",
                    T::NAME
                )
            });
            let mut outh = vec![poison::<T>(); rows];
            // SAFETY: a host matrix of span values and rows sums.
            let r = unsafe {
                gpu::sum_rows_ptr::<T>(
                    xs.as_ptr(),
                    rows,
                    cols,
                    stride,
                    fold,
                    outh.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            };
            t.check(r.is_ok() && same(&outh), || {
                format!(
                    "sum_rows {} {rows}x{cols}/{stride} fold {fold} (host pointers): {r:?}",
                    T::NAME
                )
            });
        }
        // Batch invariance: one row alone gives the bits it has among the others.
        let r0 = rows / 2;
        let mut one = vec![poison::<T>(); 1];
        let mut all = vec![poison::<T>(); rows];
        let ra = dev.sum_rows_host(
            &xs[r0 * stride..r0 * stride + cols],
            1,
            cols,
            cols.max(1),
            &mut one,
            3,
            gpu::Stream::DEFAULT,
        );
        let rb = dev.sum_rows_host(&xs, rows, cols, stride, &mut all, 3, gpu::Stream::DEFAULT);
        t.check(
            ra.is_ok() && rb.is_ok() && one[0].bits() == all[r0].bits(),
            || format!("sum_rows {} {rows}x{cols}: row {r0} alone differs", T::NAME),
        );
    }
}

/// Bad offsets and shapes: the core's errors, every output untouched (device offsets are
/// checked on the device before anything is written).
fn bad_input_checks<T: GpuFloat + StartFloat>(dev: &Device, t: &mut Tally) {
    let xs = vec![T::of(1.0); 10];
    let xd = DeviceBuffer::<T>::from_host(dev, &xs).unwrap();
    let bad = GpuError::Core(reprosum_core::Error::InvalidOffsets);
    for (off, want) in [
        (vec![0usize, 3, 2, 10], bad.clone()),
        (vec![1, 10], bad.clone()),
        (vec![0, 4, 9], bad.clone()),
        (vec![0, 4, 11], bad.clone()),
    ] {
        let nseg = off.len() - 1;
        let offd: Vec<u64> = off.iter().map(|&o| o as u64).collect();
        let offb = DeviceBuffer::<u64>::from_host(dev, &offd).unwrap();
        let outd = DeviceBuffer::<T>::from_host(dev, &vec![poison::<T>(); nseg]).unwrap();
        let mut outh = vec![poison::<T>(); nseg];
        let untouched = |v: &[T]| v.iter().all(|x| x.bits() == poison::<T>().bits());
        // The pointer forms have no length but the last offset's: [0, 4, 9] and [0, 4, 11]
        // are good offsets there (for 9 and 11 values), refused only by the forms that know
        // the buffer's length (below); the pointer forms would read past `xs` for the latter.
        if off != [0, 4, 9] && off != [0, 4, 11] {
            // SAFETY: the offsets are refused before any value is read.
            let (r1, r2) = unsafe {
                (
                    gpu::segmented_sum_ptr::<T>(
                        xd.device_ptr() as *const T,
                        offb.device_ptr() as *const usize,
                        nseg,
                        3,
                        outd.device_ptr() as *mut T,
                        std::ptr::null_mut(),
                    ),
                    gpu::segmented_sum_ptr::<T>(
                        xs.as_ptr(),
                        off.as_ptr(),
                        nseg,
                        3,
                        outh.as_mut_ptr(),
                        std::ptr::null_mut(),
                    ),
                )
            };
            t.check(
                r1.as_ref().err() == Some(&want) && untouched(&outd.to_host().unwrap()),
                || format!("segmented sum {} bad device offsets {off:?}: {r1:?}", T::NAME),
            );
            t.check(r2.as_ref().err() == Some(&want) && untouched(&outh), || {
                format!("segmented sum {} bad host offsets {off:?}: {r2:?}", T::NAME)
            });
        }
        let mut o2 = DeviceBuffer::<T>::from_host(dev, &vec![poison::<T>(); nseg]).unwrap();
        let r3 = dev.segmented_sum(&xd, &off, &mut o2, 3);
        t.check(
            r3.as_ref().err() == Some(&want) && untouched(&o2.to_host().unwrap()),
            || format!("segmented sum {} bad offsets {off:?} (buffers): {r3:?}", T::NAME),
        );
    }
    // Host offsets with device values, checked as they are staged for the copy: a fault in
    // a later piece (of 2^19 offsets) than the first still refuses the whole call, with the
    // output untouched.
    let nseg = 1_200_000;
    let xd2 = DeviceBuffer::<T>::from_host(dev, &vec![T::of(1.0); nseg]).unwrap();
    let fresh = || DeviceBuffer::<T>::from_host(dev, &vec![poison::<T>(); nseg]).unwrap();
    let untouched = |o: &DeviceBuffer<T>| {
        o.to_host()
            .unwrap()
            .iter()
            .all(|x| x.bits() == poison::<T>().bits())
    };
    // A decrease in the third piece; at the first offset of the second piece (2^19, where
    // a piece and its first part start); at the middle of the second piece (where a part
    // starts when 2, 4 or 8 threads fill the piece).
    for at in [1_100_000usize, 1 << 19, 3 << 18] {
        let mut off: Vec<usize> = (0..=nseg).collect();
        off[at] = off[at - 1] - 1;
        let outd = fresh();
        // SAFETY: the offsets are refused before any value is read.
        let r = unsafe {
            gpu::segmented_sum_ptr::<T>(
                xd2.device_ptr() as *const T,
                off.as_ptr(),
                nseg,
                3,
                outd.device_ptr() as *mut T,
                std::ptr::null_mut(),
            )
        };
        t.check(r.as_ref().err() == Some(&bad) && untouched(&outd), || {
            format!("segmented sum {} host offsets decreasing at {at}: {r:?}", T::NAME)
        });
        let mut o2 = fresh();
        let r = dev.segmented_sum(&xd2, &off, &mut o2, 3);
        t.check(r.as_ref().err() == Some(&bad) && untouched(&o2), || {
            format!(
                "segmented sum {} offsets decreasing at {at} (buffers): {r:?}",
                T::NAME
            )
        });
    }
    // Good offsets for more values than the buffer holds (a jump in the second piece): the
    // buffer form, which knows the length, refuses them.
    let mut off: Vec<usize> = (0..=nseg).collect();
    off[600_000..].iter_mut().for_each(|o| *o += nseg);
    let mut o2 = fresh();
    let r = dev.segmented_sum(&xd2, &off, &mut o2, 3);
    t.check(r.as_ref().err() == Some(&bad) && untouched(&o2), || {
        format!(
            "segmented sum {} offsets past the buffer (buffers): {r:?}",
            T::NAME
        )
    });
    let mut o = DeviceBuffer::<T>::from_host(dev, &[poison::<T>(); 3]).unwrap();
    t.check(
        dev.segmented_sum(&xd, &[0, 10], &mut o, 3) == Err(GpuError::LengthMismatch),
        || "offsets and out lengths".into(),
    );
    let r = dev.sum_rows(&xd, 3, 4, 3, &mut o, 3);
    t.check(
        r == Err(GpuError::Core(reprosum_core::Error::InvalidStride)),
        || format!("cols > row_stride: {r:?}"),
    );
    let r = dev.sum_rows(&xd, 3, 4, 4, &mut o, 3);
    t.check(r == Err(GpuError::LengthMismatch), || {
        format!("matrix past the buffer: {r:?}")
    });
    let r = dev.sum_rows(&xd, 3, 2, 3, &mut o, 99);
    t.check(r == Err(GpuError::UnsupportedFold(99)), || {
        format!("fold 99: {r:?}")
    });
    t.check(
        o.to_host()
            .unwrap()
            .iter()
            .all(|x| x.bits() == poison::<T>().bits()),
        || "row sums' output touched by errors".into(),
    );
    // A segment past an f32 accumulator's capacity, found on the device from device offsets
    // (the values are never read: the check comes first).
    if T::BYTES == 4 {
        let big = <T as reprosum_core::Float>::CAPACITY + 1;
        let offb = DeviceBuffer::<u64>::from_host(dev, &[0, big]).unwrap();
        let outd = DeviceBuffer::<T>::from_host(dev, &[poison::<T>()]).unwrap();
        // SAFETY: the values are not read: the capacity check on the device refuses first.
        let r = unsafe {
            gpu::segmented_sum_ptr::<T>(
                xd.device_ptr() as *const T,
                offb.device_ptr() as *const usize,
                1,
                3,
                outd.device_ptr() as *mut T,
                std::ptr::null_mut(),
            )
        };
        t.check(
            r == Err(GpuError::CapacityExceeded) && outd.to_host().unwrap()[0].bits() == poison::<T>().bits(),
            || format!("f32 capacity on the device: {r:?}"),
        );
    }
}
