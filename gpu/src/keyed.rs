//! The keyed sum on a device (a scatter-add, `index_add`, weighted bincount): `out[k]` gets
//! the bits of `reprosum::sum_by_key`, the sum of every `x[i]` with `keys[i] == k` alone.
//!
//! With more than [`KEY_LOCAL`] keys (and few enough key ranges, see [`RangePlan`]): the keys
//! are cut into ranges of consecutive keys, one or two partition passes gather each range's
//! (key, value) pairs, and a block per tile of a range adds each value's pieces into exact
//! integer sums per key and slot in shared memory (32-bit words: one for f32, two for f64's
//! 64-bit sums), which become each key's
//! renormalised state (see the kernel source's section "Keyed sums by key ranges"). Otherwise
//! a counting sort by key, then the segmented sum (see the kernel source): `rs_key_count`
//! counts each key's values and checks every key (the call reads that verdict back before
//! anything else runs, so a key out of range leaves `out` untouched); three integer scans
//! turn the counts into offsets and cursors; `rs_key_scatter_*` moves each value into its
//! key's segment of a workspace copy; the segmented kernels sum each segment. Where the
//! calls that the key ranges do not take have more keys than [`KEY_LOCAL`], both passes
//! gather equal keys in a shared-memory table first (the count one table per block, the
//! scatter one per tile), so that a key many values share takes one global atomic add per
//! block or tile, not one per value on a single address.
//! Where a key's values land depends on the schedule (atomic adds on the cursors and in the
//! tables), but a key's state is the exact sum of its values' pieces (integers) or the exact
//! merge of their states, the same in any order: the bits cannot depend on the schedule, the
//! grid or the block size.

use super::*;

/// Parameters of the keyed kernels (checked against the kernel source by a test).
pub(super) const KEY_COUNT_PARAMS: usize = 6;
pub(super) const SCAN_UP_PARAMS: usize = 3;
pub(super) const SCAN_PARTS_PARAMS: usize = 2;
pub(super) const SCAN_DOWN_PARAMS: usize = 4;
pub(super) const KEY_SCATTER_PARAMS: usize = 7;
pub(super) const KR_COUNT_PARAMS: usize = 7;
pub(super) const KR_PLAN_PARAMS: usize = 9;
pub(super) const KR_PART_PARAMS: usize = 9;
pub(super) const KR_PART2_PARAMS: usize = 12;
pub(super) const KR_ACC_PARAMS: usize = 12;
pub(super) const KR_MERGE_PARAMS: usize = 7;

/// Keys up to which each block counts in shared memory (`RS_KEY_LOCAL` in the kernel source).
pub(super) const KEY_LOCAL: u64 = 4096;
/// Words per thread of the integer scans (`RS_SCAN_E` in the kernel source).
pub(super) const SCAN_ITEMS: u64 = 8;
/// Slots of the table in which the many-keys passes gather equal keys (`RS_KEY_TS` in the
/// kernel source; one table per block in the count, one per tile in the scatter): 64-bit keys
/// and 32-bit counts in the count, and 64-bit bases too in the scatter.
pub(super) const KEY_TABLE_SLOTS: u32 = 2048;
/// Threads per block of the keyed kernels.
const KEY_BLOCK: u32 = 256;
/// Values per thread of a key-range partition tile (`RS_KR_U` in the kernel source).
pub(super) const KR_ITEMS: u64 = 8;
/// The most key ranges: the count's shared-memory counts (4 bytes a range) in 48 KiB.
pub(super) const KR_MAX_RANGES: u64 = 12288;
/// Shared memory a block of the accumulation may take for its keys' sums, windows and flags
/// (`bytes * fold + 12` bytes a key, `bytes` the type's size: 64-bit sums for f64, 32-bit for
/// f32): a range has the most keys, a power of two, that fit. One more word is the round flag.
const KR_ACC_SMEM: u64 = 46 * 1024;
/// The most bits of a range's number that one partition pass sorts by (256 digits).
const KR_DIGIT_BITS: u32 = 8;
/// The longest tile of a range that one block of the accumulation takes, by the type's size:
/// f64's 64-bit sums take at most 2^21 pieces of at most 2^39 units each, f32's 32-bit sums
/// at most 2^17 pieces of at most 2^12 (the kernel source's section "Keyed sums by key
/// ranges" says why).
const fn kr_max_tile(bytes: usize) -> u64 {
    if bytes == 8 {
        1 << 21
    } else {
        1 << 17
    }
}

/// The accumulation's shared memory a key: `fold` sums of the type's size, its window's rank,
/// window and flags.
const fn kr_key_bytes(fold: usize, bytes: usize) -> u64 {
    (bytes * fold + 12) as u64
}

/// The accumulation's shared memory a block: its range's `2^s` keys, then the round word.
const fn kr_acc_smem(s: u32, fold: usize, bytes: usize) -> u64 {
    (1u64 << s) * kr_key_bytes(fold, bytes) + 4
}

/// The keyed sum's kernels of one device (one set for both types but the scatter).
#[derive(Clone, Copy)]
pub(super) struct KeyKernels {
    pub(super) count: Func,
    pub(super) scan_up: Func,
    pub(super) scan_parts: Func,
    pub(super) scan_down: Func,
    /// f64, f32.
    pub(super) scatter: [Func; 2],
    /// The key-range path (see [`RangePlan`]): count, plan, then per type (f64, f32) the
    /// partition passes, the accumulation and the merge.
    pub(super) kr_count: Func,
    pub(super) kr_plan: Func,
    pub(super) kr_part: [Func; 2],
    pub(super) kr_part2: [Func; 2],
    pub(super) kr_acc: [Func; 2],
    pub(super) kr_merge: [Func; 2],
}

impl KeyKernels {
    /// The kernels in the module `open` just loaded.
    ///
    /// # Safety
    /// `module` is a loaded module of the current context.
    pub(super) unsafe fn load<R: Runtime>(module: Handle) -> Result<Self, GpuError> {
        // SAFETY: the caller's contract.
        let f = |name: &str| unsafe { R::function(module, name) };
        Ok(KeyKernels {
            count: f("rs_key_count")?,
            scan_up: f("rs_u64_scan_up")?,
            scan_parts: f("rs_u64_scan_parts")?,
            scan_down: f("rs_u64_scan_down")?,
            scatter: [f("rs_key_scatter_f64")?, f("rs_key_scatter_f32")?],
            kr_count: f("rs_kr_count")?,
            kr_plan: f("rs_kr_plan")?,
            kr_part: [f("rs_kr_part_f64")?, f("rs_kr_part_f32")?],
            kr_part2: [f("rs_kr_part2_f64")?, f("rs_kr_part2_f32")?],
            kr_acc: [f("rs_kr_acc_f64")?, f("rs_kr_acc_f32")?],
            kr_merge: [f("rs_kr_merge_f64")?, f("rs_kr_merge_f32")?],
        })
    }
}

/// The key-range path's shape for one call: keys in ranges of `2^s` (one accumulator per key
/// of a range in a block's shared memory), `nr` ranges, one partition pass by the range's
/// number or two (`low` bits in the second), accumulation tiles of `tile` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RangePlan {
    s: u32,
    nr: u64,
    /// Bits of the range's number: all in one pass when at most [`KR_DIGIT_BITS`]; else the
    /// high `bits - low` in the first pass and the low `low` in the second.
    bits: u32,
    low: u32,
    tile: u64,
}

impl RangePlan {
    /// The shape for `n` values of `bytes` bytes into `nkeys` keys at `fold` on a device of
    /// `mps` multiprocessors, or `None` where the counting sort takes the call: at most
    /// [`KEY_LOCAL`] keys (shared-memory counts), no values, keys past 32 bits, more than
    /// [`KR_MAX_RANGES`] ranges, or more than 2^31 values (a block's 32-bit counts, and f32
    /// carries exact in a sum of whole quarters).
    fn new(n: u64, nkeys: u64, fold: usize, bytes: usize, mps: u32) -> Option<Self> {
        if nkeys <= KEY_LOCAL || n == 0 || n > 1 << 31 || nkeys > 1 << 32 {
            return None;
        }
        let s = (KR_ACC_SMEM / kr_key_bytes(fold, bytes)).ilog2();
        let nr = nkeys.div_ceil(1 << s);
        if nr > KR_MAX_RANGES {
            return None;
        }
        let bits = nr.next_power_of_two().trailing_zeros();
        let low = if bits <= KR_DIGIT_BITS { 0 } else { bits / 2 };
        // About eight tiles per multiprocessor over the whole input.
        let tile = (n / (8 * mps.max(1) as u64))
            .next_power_of_two()
            .clamp(1 << 13, kr_max_tile(bytes));
        Some(RangePlan {
            s,
            nr,
            bits,
            low,
            tile,
        })
    }
}

/// Whether every key is in `0..nkeys` (a negative key, as u64, is past every count): one
/// compare per key and no branch, a loop the compiler vectorises.
fn keys_in_range(keys: &[i64], nkeys: usize) -> bool {
    keys.iter().fold(true, |ok, &k| ok & ((k as u64) < nkeys as u64))
}

/// Checks keys on the host: every one in `0..nkeys`.
fn check_keys(keys: &[i64], nkeys: usize) -> Result<(), GpuError> {
    if keys_in_range(keys, nkeys) {
        Ok(())
    } else {
        Err(GpuError::Core(reprosum_core::Error::KeyOutOfRange))
    }
}

impl<R: Runtime> Device<R> {
    /// The keyed sum's kernels on this stream: `out` gets `nkeys` sums of the `n` values at
    /// `x` by the keys at `keys` (checked on the device first). The stream is synchronised.
    ///
    /// # Safety
    /// `x` and `keys` hold `n` readable values of T and i64, `out` `nkeys` writable values of
    /// T, all in this device's memory; the context is bound and the workspace locked.
    #[allow(clippy::too_many_arguments)]
    unsafe fn keyed_locked<T: GpuFloat>(
        &self,
        ws: &mut Workspace,
        x: u64,
        keys: u64,
        n: u64,
        nkeys: u64,
        out: u64,
        fold: usize,
        stream: Stream,
    ) -> Result<(), GpuError> {
        self.kernels::<T>(fold)?;
        if nkeys == 0 {
            // Nothing to write; any value's key is out of range.
            return if n == 0 {
                Ok(())
            } else {
                Err(GpuError::Core(reprosum_core::Error::KeyOutOfRange))
            };
        }
        if (n > 0 && (x == 0 || x & (T::BYTES as u64 - 1) != 0 || keys == 0 || keys & 7 != 0))
            || out == 0
            || out & (T::BYTES as u64 - 1) != 0
        {
            return Err(GpuError::InvalidPointer(
                "null or misaligned input, keys or output",
            ));
        }
        if let Some(plan) = RangePlan::new(n, nkeys, fold, T::BYTES, self.multiprocessors) {
            // SAFETY: the caller's contract.
            return unsafe { self.keyed_ranges::<T>(ws, x, keys, n, nkeys, out, fold, stream, plan) };
        }
        let k = &self.keyed;
        let local = nkeys <= KEY_LOCAL;
        // Enough blocks to fill the device (four per multiprocessor); with shared-memory counts
        // one per multiprocessor, since each block's values go to nkeys places that fill in
        // turn, and fewer such places at once are written faster (measured on the H100: 12%
        // (f64) and 25% (f32) faster at 1e3 uniform keys than four per multiprocessor, skewed
        // keys the same), and fewer
        // than 2^31 values a block (its 32-bit counts).
        let per_mp = if local { 1 } else { 4 };
        let grid = n
            .div_ceil(KEY_BLOCK as u64)
            .min(self.multiprocessors as u64 * per_mp)
            .max(n.div_ceil(1 << 31))
            .max(1);
        if grid > i32::MAX as u64 {
            return Err(GpuError::InvalidLaunch(format!("{grid} blocks")));
        }
        let words = nkeys + 1;
        let nparts = words.div_ceil(KEY_BLOCK as u64 * SCAN_ITEMS);
        let overflow = || GpuError::InvalidLaunch(format!("{nkeys} keys"));
        let hist_words = if local { grid * nkeys } else { 0 };
        let bytes = words
            .checked_mul(16)
            .and_then(|b| b.checked_add(16 + 8 * nparts))
            .and_then(|b| b.checked_add(4 * hist_words))
            .and_then(|b| usize::try_from(b).ok())
            .ok_or_else(overflow)?;
        let sorted_bytes = usize::try_from(n)
            .ok()
            .and_then(|n| n.checked_mul(T::BYTES))
            .ok_or(GpuError::CapacityExceeded)?;
        ws.key.ensure::<R>(bytes)?;
        ws.key_sorted.ensure::<R>(sorted_bytes.max(T::BYTES))?;
        let err = ws.key.ptr;
        let counts = err + 16;
        let cursor = counts + 8 * words;
        let parts = cursor + 8 * words;
        let hist = if local { parts + 8 * nparts } else { 0 };
        let sorted = ws.key_sorted.ptr;
        // SAFETY: the error words and counts are the first 16 + 8 * words bytes of `key`.
        unsafe { R::memset(err, 0, 16 + 8 * words as usize, stream.0) }?;
        let smem_count = if local {
            4 * nkeys as u32
        } else {
            12 * KEY_TABLE_SLOTS
        };
        let args: Args<KEY_COUNT_PARAMS> = Args([keys, n, nkeys, counts, hist, err]);
        // SAFETY: the kernel reads n keys (the caller's contract) and writes the counts, the
        // blocks' counts and the error word, allocated above.
        unsafe { self.launch(&k.count, grid as u32, KEY_BLOCK, smem_count, stream, args) }?;
        // SAFETY: the error word was allocated above and the count launched on the stream.
        unsafe { Self::key_verdict(err, stream) }?;
        // SAFETY: the three scans' counts (`words`), parts (`nparts`) and cursors (`words`)
        // were allocated above; the launches are ordered on the stream.
        unsafe { self.scan_counts(counts, words, parts, cursor, stream) }?;
        // 64-bit bases and 32-bit counts: 12 bytes a key, 48 KiB at KEY_LOCAL keys (the most a
        // block takes without asking).
        let smem_scatter = if local {
            12 * nkeys as u32
        } else {
            20 * KEY_TABLE_SLOTS
        };
        let args: Args<KEY_SCATTER_PARAMS> = Args([x, keys, n, nkeys, cursor, hist, sorted]);
        // SAFETY: the kernel reads n values and keys (the caller's contract; the keys checked
        // above), the cursors and the blocks' counts, and writes n values into `sorted`
        // (allocated above), on the grid of the count (the same chunks).
        unsafe {
            self.launch(
                &k.scatter[T::SLOT],
                grid as u32,
                KEY_BLOCK,
                smem_scatter,
                stream,
                args,
            )
        }?;
        let l = segmented::Layout {
            off: counts,
            nseg: nkeys,
            stride: 0,
            cols: 0,
            span: n,
            // The offsets are right by construction; the check also finds a key with more
            // values than the capacity, before `out` is written.
            check: true,
        };
        // SAFETY: `sorted` holds the n values gathered above, `counts` the nkeys + 1 offsets,
        // `out` nkeys values (the caller's contract).
        unsafe { self.seg_locked::<T>(ws, sorted, l, out, fold, stream, &Launch::default()) }
    }

    /// The keyed sum by key ranges (the kernel source's section "Keyed sums by key ranges"):
    /// as [`Device::keyed_locked`], whose checks it follows.
    ///
    /// # Safety
    /// As [`Device::keyed_locked`]; `n` and `nkeys` as `plan` was made for.
    #[allow(clippy::too_many_arguments)]
    unsafe fn keyed_ranges<T: GpuFloat>(
        &self,
        ws: &mut Workspace,
        x: u64,
        keys: u64,
        n: u64,
        nkeys: u64,
        out: u64,
        fold: usize,
        stream: Stream,
        plan: RangePlan,
    ) -> Result<(), GpuError> {
        let k = &self.keyed;
        let RangePlan {
            s,
            nr,
            bits,
            low,
            tile,
        } = plan;
        let mps = self.multiprocessors as u64;
        let words = nr + 1;
        let two = bits > KR_DIGIT_BITS;
        let nseg = if two { nr.div_ceil(1 << low) } else { 0 };
        let nparts = words.div_ceil(KEY_BLOCK as u64 * SCAN_ITEMS);
        let overflow = || GpuError::InvalidLaunch(format!("{nkeys} keys"));
        // Error words; starts, two cursors, the plans (high digits' segments, ranges), the
        // multi-tile plan; scan parts.
        let bytes = usize::try_from(16 + 8 * (5 * words + nseg + 1 + nparts)).map_err(|_| overflow())?;
        ws.key.ensure::<R>(bytes)?;
        let err = ws.key.ptr;
        let start = err + 16;
        let cur_a = start + 8 * words;
        let cur_b = cur_a + 8 * words;
        let first = cur_b + 8 * words;
        let multi = first + 8 * words;
        let first2 = multi + 8 * words;
        let parts = first2 + 8 * (nseg + 1);
        // The pairs after a partition pass (values, then 32-bit keys), twice for two passes;
        // the states of ranges of several tiles (fewer than 2n / tile tiles).
        let pair_bytes = n
            .checked_mul(T::BYTES as u64 + 4)
            .and_then(|b| usize::try_from(b).ok())
            .ok_or(GpuError::CapacityExceeded)?;
        let state_words = 2 * fold as u64 + 1;
        let states = (2 * n.div_ceil(tile) + 1) * (1 << s) * state_words * T::BYTES as u64;
        let states = usize::try_from(states).map_err(|_| overflow())?;
        ws.key_sorted.ensure::<R>(pair_bytes)?;
        if two {
            ws.key_pairs.ensure::<R>(pair_bytes)?;
        }
        ws.key_states.ensure::<R>(states)?;
        let (xa, xb) = (ws.key_sorted.ptr, ws.key_pairs.ptr);
        let (ka, kb) = (xa + n * T::BYTES as u64, xb + n * T::BYTES as u64);
        let partial = ws.key_states.ptr;
        // SAFETY: the error words and the starts are the first 16 + 8 * words bytes of `key`.
        unsafe { R::memset(err, 0, 16 + 8 * words as usize, stream.0) }?;
        // As many blocks as run at once (each adds its counts once at the end).
        let csmem = 4 * nr as u32;
        let per_mp = self.occupancy(&k.kr_count, KEY_BLOCK, csmem)?.unwrap_or(8).max(1) as u64;
        let grid = n.div_ceil(KEY_BLOCK as u64).min(mps * per_mp).max(1) as u32;
        let args: Args<KR_COUNT_PARAMS> = Args([keys, n, nkeys, s as u64, nr, start + 8, err]);
        // SAFETY: the kernel reads n keys (the caller's contract) and adds into the nr counts
        // after start[0] and the error word, allocated above.
        unsafe { self.launch(&k.kr_count, grid, KEY_BLOCK, csmem, stream, args) }?;
        // SAFETY: the error word was allocated above and the count launched on the stream.
        unsafe { Self::key_verdict(err, stream) }?;
        let ssmem = 8 * (KEY_BLOCK + 1);
        let tp = KEY_BLOCK as u64 * KR_ITEMS;
        let part_smem = |d: u64| (8 * d + tp * (T::BYTES as u64 + 4) + 4 * (2 * d + 16)) as u32;
        let ptiles = n.div_ceil(tp);
        let (xr, kr) = if two { (xb, kb) } else { (xa, ka) };
        // SAFETY: every buffer was allocated above with the sizes the kernels use; the keys
        // were checked; the launches are ordered on the stream.
        unsafe {
            self.scan_counts(start, words, parts, cur_a, stream)?;
            let pgrid = ptiles.min(mps * 8) as u32;
            let d1 = 1u64 << (bits - low);
            let a: Args<KR_PART_PARAMS> = Args([x, keys, n, s as u64, low as u64, d1, cur_a, xa, ka]);
            self.launch(&k.kr_part[T::SLOT], pgrid, KEY_BLOCK, part_smem(d1), stream, a)?;
            if two {
                let d2 = 1u64 << low;
                let pl: Args<KR_PLAN_PARAMS> = Args([start, nseg, d2, nr, tp, 0, first2, 0, cur_b]);
                self.launch(&k.kr_plan, 1, KEY_BLOCK, ssmem, stream, pl)?;
                let g2 = u32::try_from(ptiles + nseg).map_err(|_| overflow())?;
                let a: Args<KR_PART2_PARAMS> =
                    Args([xa, ka, s as u64, d2, start, d2, nr, first2, nseg, cur_b, xb, kb]);
                self.launch(&k.kr_part2[T::SLOT], g2, KEY_BLOCK, part_smem(d2), stream, a)?;
            }
            let pl: Args<KR_PLAN_PARAMS> = Args([start, nr, 1, nr, tile, 1, first, multi, 0]);
            self.launch(&k.kr_plan, 1, KEY_BLOCK, ssmem, stream, pl)?;
            let ga = u32::try_from(n.div_ceil(tile) + nr).map_err(|_| overflow())?;
            let asmem = kr_acc_smem(s, fold, T::BYTES) as u32;
            let a: Args<KR_ACC_PARAMS> = Args([
                xr,
                kr,
                start,
                first,
                multi,
                nr,
                s as u64,
                nkeys,
                tile,
                out,
                partial,
                fold as u64,
            ]);
            self.launch(&k.kr_acc[T::SLOT], ga, KEY_BLOCK, asmem, stream, a)?;
            let mgrid = nkeys.div_ceil(KEY_BLOCK as u64).min(mps * 8) as u32;
            let m: Args<KR_MERGE_PARAMS> = Args([first, multi, s as u64, nkeys, partial, out, fold as u64]);
            self.launch(&k.kr_merge[T::SLOT], mgrid, KEY_BLOCK, 0, stream, m)?;
            R::synchronize(stream.0)
        }
    }

    /// The keys' verdict of a count pass: its error word read back (the stream synchronised),
    /// `KeyOutOfRange` when a key was outside the range.
    ///
    /// # Safety
    /// `err` is a device address of this device's workspace holding the word, written by a
    /// kernel launched on `stream`; the context is bound.
    unsafe fn key_verdict(err: u64, stream: Stream) -> Result<(), GpuError> {
        let mut word = 0u32;
        // SAFETY: 4 bytes into `word`, which outlives the synchronisation (the caller's
        // contract for `err`).
        unsafe {
            R::copy_dtoh((&mut word as *mut u32).cast(), err, 4, stream.0)?;
            R::synchronize(stream.0)?;
        }
        if word != 0 {
            return Err(GpuError::Core(reprosum_core::Error::KeyOutOfRange));
        }
        Ok(())
    }

    /// The counts at `counts` (`words` words) to their inclusive prefix sums, copied to
    /// `cursor`, by the three integer scans on `stream` (`parts`: their tiles' sums).
    ///
    /// # Safety
    /// The addresses hold `words`, `words.div_ceil(KEY_BLOCK * SCAN_ITEMS)` and `words`
    /// 64-bit words of this device's memory; the context is bound.
    unsafe fn scan_counts(
        &self,
        counts: u64,
        words: u64,
        parts: u64,
        cursor: u64,
        stream: Stream,
    ) -> Result<(), GpuError> {
        let k = &self.keyed;
        let nparts = words.div_ceil(KEY_BLOCK as u64 * SCAN_ITEMS);
        let sgrid = nparts.min(self.multiprocessors as u64 * 8) as u32;
        let ssmem = 8 * (KEY_BLOCK + 1);
        // SAFETY: the caller's contract; the launches are ordered on the stream.
        unsafe {
            let up: Args<SCAN_UP_PARAMS> = Args([counts, words, parts]);
            self.launch(&k.scan_up, sgrid, KEY_BLOCK, ssmem, stream, up)?;
            let mid: Args<SCAN_PARTS_PARAMS> = Args([parts, nparts]);
            self.launch(&k.scan_parts, 1, KEY_BLOCK, ssmem, stream, mid)?;
            let down: Args<SCAN_DOWN_PARAMS> = Args([counts, words, parts, cursor]);
            self.launch(&k.scan_down, sgrid, KEY_BLOCK, ssmem, stream, down)
        }
    }

    /// Host keys checked (as `check_keys`, with its error) and uploaded to the workspace:
    /// their device address. As the offsets (`upload_offsets`): checked as they are staged,
    /// in runs of 32 KiB, so the host reads them once and the device gets what was checked;
    /// checked first where the copy reads them itself. The copy is complete when this
    /// returns, error or not; on an error only the workspace's copy was written.
    fn upload_keys(ws: &mut Workspace, keys: &[i64], nkeys: usize, stream: Stream) -> Result<u64, GpuError> {
        let bytes = std::mem::size_of_val(keys);
        ws.key_in.ensure::<R>(bytes.max(8))?;
        let dst = ws.key_in.ptr;
        let direct = ws.ensure_stage::<R>()?.is_none();
        if direct {
            check_keys(keys, nkeys)?;
        }
        let mut ok = true;
        let fill = |_at: usize, src: &[i64], out: &mut [i64]| {
            let mut ok = true;
            for (s, o) in src.chunks(4096).zip(out.chunks_mut(4096)) {
                ok &= keys_in_range(s, nkeys);
                o.copy_from_slice(s);
            }
            ok
        };
        // SAFETY: the buffer holds the keys; the caller holds the context bound.
        unsafe { ws.upload_mapped::<R, i64, i64, bool>(dst, keys, fill, |part| ok &= part, direct, stream) }?;
        if !ok {
            return Err(GpuError::Core(reprosum_core::Error::KeyOutOfRange));
        }
        Ok(dst)
    }

    /// The reproducible sum of the values of each key, in device buffers: `out[k]` gets the
    /// bits of `reprosum::sum_by_key` (the sum of every `x[i]` with `keys[i] == k`, +0 for a
    /// key no value has) at `fold`, for `k < out.len()`. The keys may come in any order.
    ///
    /// # Errors
    /// [`GpuError::UnsupportedFold`], [`GpuError::LengthMismatch`] (keys and values),
    /// `GpuError::Core(KeyOutOfRange)` (a key below 0 or not below `out.len()`, found on the
    /// device before anything is written), [`GpuError::CapacityExceeded`] (a key with more
    /// values than the capacity), a runtime error. `out` is untouched on any of them.
    pub fn sum_by_key<T: GpuFloat>(
        &self,
        x: &DeviceBuffer<R, T>,
        keys: &DeviceBuffer<R, i64>,
        out: &mut DeviceBuffer<R, T>,
        fold: usize,
    ) -> Result<(), GpuError> {
        check_fold::<T>(fold)?;
        self.check_buffer(x)?;
        self.check_buffer(keys)?;
        self.check_buffer(out)?;
        if keys.len != x.len {
            return Err(GpuError::LengthMismatch);
        }
        // SAFETY: the buffers hold x.len values and keys and out.len sums on this device.
        unsafe { self.sum_by_key_raw::<T>(x.ptr, keys.ptr, x.len, out.len, out.ptr, fold, Stream::DEFAULT) }
    }

    /// The keyed sum at raw device addresses on a stream (as [`Device::sum_by_key`]): `x` and
    /// `keys` hold `n` values and keys, `out` `nkeys` sums. The keys are checked on the
    /// device, the verdict read back before anything is written. The stream is synchronised.
    ///
    /// # Safety
    /// `x` and `keys` must be device addresses of this device holding `n` values of T and
    /// `n` i64, `out` one holding `nkeys` values of T; `stream` a live stream of this device
    /// (or the default).
    ///
    /// # Errors
    /// As [`Device::sum_by_key`].
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn sum_by_key_raw<T: GpuFloat>(
        &self,
        x: u64,
        keys: u64,
        n: usize,
        nkeys: usize,
        out: u64,
        fold: usize,
        stream: Stream,
    ) -> Result<(), GpuError> {
        check_fold::<T>(fold)?;
        let _bound = self.bind()?;
        let mut ws = self.lock();
        // SAFETY: the caller's contract.
        unsafe { self.keyed_locked::<T>(&mut ws, x, keys, n as u64, nkeys as u64, out, fold, stream) }
    }

    /// The keyed sum of host slices (values, keys and sums copied through the workspace):
    /// `out[k]` for `k < out.len()`. The keys are checked on the host first.
    ///
    /// # Errors
    /// As [`Device::sum_by_key`].
    pub fn sum_by_key_host<T: GpuFloat>(
        &self,
        xs: &[T],
        keys: &[i64],
        out: &mut [T],
        fold: usize,
        stream: Stream,
    ) -> Result<(), GpuError> {
        check_fold::<T>(fold)?;
        if keys.len() != xs.len() {
            return Err(GpuError::LengthMismatch);
        }
        if out.is_empty() {
            // No key is in range: any key is an error.
            return check_keys(keys, 0);
        }
        let _bound = self.bind()?;
        let mut ws = self.lock();
        let kp = Self::upload_keys(&mut ws, keys, out.len(), stream)?;
        let in_bytes = std::mem::size_of_val(xs);
        let out_bytes = std::mem::size_of_val(out);
        ws.input.ensure::<R>(in_bytes.max(T::BYTES))?;
        ws.output.ensure::<R>(out_bytes)?;
        let (inp, outp) = (ws.input.ptr, ws.output.ptr);
        // SAFETY: the staging buffers hold the bytes copied; the stream orders the copies and
        // kernels, keyed_locked synchronises it before the copy back is issued, and the copy
        // back is synchronised before `out` is released.
        unsafe {
            if in_bytes > 0 {
                R::copy_htod(inp, xs.as_ptr().cast(), in_bytes, stream.0)?;
            }
            self.keyed_locked::<T>(
                &mut ws,
                inp,
                kp,
                xs.len() as u64,
                out.len() as u64,
                outp,
                fold,
                stream,
            )?;
            R::copy_dtoh(out.as_mut_ptr().cast(), outp, out_bytes, stream.0)?;
            R::synchronize(stream.0)
        }
    }
}

/// The sum of the values of each key into `out` (`nkeys` sums), wherever they live: `x` and
/// `out` both in device memory of one device (used in place; `keys` on the host or on that
/// device) or all three in host memory (copied through the current device). This is what
/// `adn_cuda_sum_by_key_*` and `adn_hip_sum_by_key_*` call. Host keys are checked on the
/// host, device keys on the device before anything is written.
///
/// # Safety
/// `x` must point to `n` readable values and `keys` to `n` readable `i64` (aligned; either
/// may be null when `n` is 0), `out` to `nkeys` writable values (host or device); `stream`
/// null or a live stream of the device that runs the call.
///
/// # Errors
/// As [`Device::sum_by_key`], and [`GpuError::InvalidPointer`] for null or misaligned
/// pointers or a mix of memories. `out` is untouched on any error.
pub unsafe fn sum_by_key_ptr<R: Runtime, T: GpuFloat>(
    x: *const T,
    keys: *const i64,
    n: usize,
    nkeys: usize,
    fold: usize,
    out: *mut T,
    stream: *mut c_void,
) -> Result<(), GpuError> {
    check_fold::<T>(fold)?;
    if n > 0
        && (x.is_null() || (x as usize) & (T::BYTES - 1) != 0 || keys.is_null() || (keys as usize) & 7 != 0)
    {
        return Err(GpuError::InvalidPointer("null or misaligned input or keys"));
    }
    if nkeys > 0 && (out.is_null() || (out as usize) & (T::BYTES - 1) != 0) {
        return Err(GpuError::InvalidPointer("null or misaligned output"));
    }
    if nkeys == 0 {
        // Nothing to write; any value's key is out of range.
        return if n == 0 {
            Ok(())
        } else {
            Err(GpuError::Core(reprosum_core::Error::KeyOutOfRange))
        };
    }
    // SAFETY: the caller's contract.
    let stream = unsafe { Stream::from_raw(stream) };
    let outm = R::memory_of(out.cast())?;
    if n == 0 {
        // Every key's sum is +0; no value or key is read.
        return match outm {
            Memory::Device(o) => {
                let d = device::<R>(o)?;
                // SAFETY: nkeys writable values at out on that device (the caller's contract).
                unsafe { d.sum_by_key_raw::<T>(0, 0, 0, nkeys, out as u64, fold, stream) }
            }
            Memory::Host => {
                // SAFETY: nkeys writable values at out (the caller's contract).
                let outs = unsafe { std::slice::from_raw_parts_mut(out, nkeys) };
                device::<R>(R::current_ordinal()?)?.sum_by_key_host::<T>(&[], &[], outs, fold, stream)
            }
        };
    }
    let xm = R::memory_of(x.cast())?;
    let km = R::memory_of(keys.cast())?;
    match (xm, km, outm) {
        (Memory::Device(a), Memory::Device(b), Memory::Device(c)) if a == b && b == c => {
            // SAFETY: the caller's contract; the keys are checked on the device.
            unsafe {
                device::<R>(a)?.sum_by_key_raw::<T>(x as u64, keys as u64, n, nkeys, out as u64, fold, stream)
            }
        }
        (Memory::Device(a), Memory::Host, Memory::Device(c)) if a == c => {
            // SAFETY: n readable keys in host memory (the caller's contract).
            let ks = unsafe { std::slice::from_raw_parts(keys, n) };
            let d = device::<R>(a)?;
            let _bound = d.bind()?;
            let mut ws = d.lock();
            // The keys checked as they are uploaded (one read of them).
            let kp = Device::<R>::upload_keys(&mut ws, ks, nkeys, stream)?;
            // SAFETY: n values at x and nkeys at out on that device (the caller's contract);
            // the keys uploaded above.
            unsafe {
                d.keyed_locked::<T>(
                    &mut ws,
                    x as u64,
                    kp,
                    n as u64,
                    nkeys as u64,
                    out as u64,
                    fold,
                    stream,
                )
            }
        }
        (Memory::Host, Memory::Host, Memory::Host) => {
            // SAFETY: n readable values and keys, nkeys writable values, not aliased (the
            // caller's contract: inputs and an output).
            let (xs, ks, outs) = unsafe {
                (
                    std::slice::from_raw_parts(x, n),
                    std::slice::from_raw_parts(keys, n),
                    std::slice::from_raw_parts_mut(out, nkeys),
                )
            };
            device::<R>(R::current_ordinal()?)?.sum_by_key_host(xs, ks, outs, fold, stream)
        }
        _ => Err(GpuError::InvalidPointer(
            "input, keys and output in different memories",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_plans() {
        // 1e5 keys at fold 3: ranges of 1024 keys (36 bytes a key for f64, 24 for f32), one
        // pass of 98 digits; f32's tiles are at most 2^17 values.
        let p = RangePlan::new(100_000_000, 100_000, 3, 8, 132).unwrap();
        assert_eq!((p.s, p.nr, p.bits, p.low, p.tile), (10, 98, 7, 0, 1 << 17));
        let p = RangePlan::new(100_000_000, 100_000, 3, 4, 66).unwrap();
        assert_eq!((p.s, p.nr, p.bits, p.low, p.tile), (10, 98, 7, 0, 1 << 17));
        // 1e7 keys: two passes, 7 bits each.
        let p = RangePlan::new(100_000_000, 10_000_000, 3, 8, 132).unwrap();
        assert_eq!((p.s, p.nr, p.bits, p.low), (10, 9766, 14, 7));
        // The largest folds: 428 bytes a key for f64, ranges of 64 keys; 96 for f32, 256
        // keys; short inputs take the smallest tile.
        let p = RangePlan::new(1000, 5000, 52, 8, 132).unwrap();
        assert_eq!((p.s, p.nr, p.bits, p.low, p.tile), (6, 79, 7, 0, 1 << 13));
        let p = RangePlan::new(1000, 5000, 21, 4, 132).unwrap();
        assert_eq!((p.s, p.nr, p.tile), (8, 20, 1 << 13));
        // Huge inputs take the largest tile, by type.
        assert_eq!(RangePlan::new(1 << 31, 5000, 3, 8, 1).unwrap().tile, 1 << 21);
        assert_eq!(RangePlan::new(1 << 31, 5000, 3, 4, 1).unwrap().tile, 1 << 17);
        for (fold, bytes) in [(2, 8), (8, 8), (21, 8), (52, 8), (2, 4), (8, 4), (21, 4)] {
            let p = RangePlan::new(1 << 20, 1 << 19, fold, bytes, 100).unwrap();
            assert!(
                kr_acc_smem(p.s, fold, bytes) <= 48 * 1024,
                "fold {fold}, {bytes} bytes"
            );
            assert!(p.nr <= KR_MAX_RANGES && p.bits - p.low <= KR_DIGIT_BITS && p.low <= KR_DIGIT_BITS);
        }
        // The counting sort's calls: few keys, no values, too many ranges or values.
        assert_eq!(RangePlan::new(1000, KEY_LOCAL, 3, 8, 132), None);
        assert_eq!(RangePlan::new(0, 100_000, 3, 8, 132), None);
        assert_eq!(RangePlan::new(1000, 1024 * KR_MAX_RANGES + 1, 3, 8, 132), None);
        assert_eq!(RangePlan::new((1 << 31) + 1, 100_000, 3, 4, 132), None);
    }

    #[test]
    fn host_key_check_is_the_cores() {
        let bad = Err(GpuError::Core(reprosum_core::Error::KeyOutOfRange));
        assert_eq!(check_keys(&[0, 2, 1, 2], 3), Ok(()));
        assert_eq!(check_keys(&[], 0), Ok(()));
        assert_eq!(check_keys(&[0, 3], 3), bad);
        assert_eq!(check_keys(&[-1], 3), bad);
        assert_eq!(check_keys(&[i64::MIN, 0], 3), bad);
        assert_eq!(check_keys(&[i64::MAX], usize::MAX), Ok(()));
        assert_eq!(check_keys(&[0], 0), bad);
    }
}
