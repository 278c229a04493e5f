//! The keyed sum on a device (a scatter-add, `index_add`, weighted bincount): `out[k]` gets
//! the bits of `reprosum::sum_by_key`, the sum of every `x[i]` with `keys[i] == k` alone.
//!
//! A counting sort by key, then the segmented sum (see the kernel source): `rs_key_count`
//! counts each key's values and checks every key (the call reads that verdict back before
//! anything else runs, so a key out of range leaves `out` untouched); three integer scans
//! turn the counts into offsets and cursors; `rs_key_scatter_*` moves each value into its
//! key's segment of a workspace copy; the segmented kernels sum each segment. With more keys
//! than [`KEY_LOCAL`], both passes gather equal keys in a shared-memory table first (the
//! count one table per block, the scatter one per tile), so that a key many values share
//! takes one global atomic add per block or tile, not one per value on a single address.
//! Where a key's values land within its segment depends on the schedule (atomic adds on the
//! cursors and in the tables), but a segment's sum is the exact merge of its values' states,
//! the same in any order: the bits cannot depend on the schedule, the grid or the block size.

use super::*;

/// Parameters of the keyed kernels (checked against the kernel source by a test).
pub(super) const KEY_COUNT_PARAMS: usize = 6;
pub(super) const SCAN_UP_PARAMS: usize = 3;
pub(super) const SCAN_PARTS_PARAMS: usize = 2;
pub(super) const SCAN_DOWN_PARAMS: usize = 4;
pub(super) const KEY_SCATTER_PARAMS: usize = 7;

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

/// The keyed sum's kernels of one device (one set for both types but the scatter).
#[derive(Clone, Copy)]
pub(super) struct KeyKernels {
    pub(super) count: Func,
    pub(super) scan_up: Func,
    pub(super) scan_parts: Func,
    pub(super) scan_down: Func,
    /// f64, f32.
    pub(super) scatter: [Func; 2],
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
        let mut word = 0u32;
        // SAFETY: 4 bytes into `word`, which outlives the synchronisation.
        unsafe {
            R::copy_dtoh((&mut word as *mut u32).cast(), err, 4, stream.0)?;
            R::synchronize(stream.0)?;
        }
        if word != 0 {
            return Err(GpuError::Core(reprosum_core::Error::KeyOutOfRange));
        }
        let sgrid = nparts.min(self.multiprocessors as u64 * 8) as u32;
        let ssmem = 8 * (KEY_BLOCK + 1);
        // SAFETY: the three scans' counts (`words`), parts (`nparts`) and cursors (`words`)
        // were allocated above; the launches are ordered on the stream.
        unsafe {
            let up: Args<SCAN_UP_PARAMS> = Args([counts, words, parts]);
            self.launch(&k.scan_up, sgrid, KEY_BLOCK, ssmem, stream, up)?;
            let mid: Args<SCAN_PARTS_PARAMS> = Args([parts, nparts]);
            self.launch(&k.scan_parts, 1, KEY_BLOCK, ssmem, stream, mid)?;
            let down: Args<SCAN_DOWN_PARAMS> = Args([counts, words, parts, cursor]);
            self.launch(&k.scan_down, sgrid, KEY_BLOCK, ssmem, stream, down)?;
        }
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
