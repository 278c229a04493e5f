//! The segmented sums on a device: the sum of each segment of an array (CSR offsets) and of
//! each row of a row-major matrix, every group's bits those of the core's sum of the group
//! alone (`reprosum::segmented_sum`, `reprosum::sum_rows`).
//!
//! Five kernels (see the kernel source): `rs_seg_prep` finds each tile's first group and,
//! for offsets the host has not read, checks them; `rs_seg_long` adds the long groups (more
//! positions than a tile), and every segment that begins in a chunk of few segments (at most
//! m / 2 + 1 in its m tiles), in chunks of at most [`SEG_LONG_MAX_TILES`] tiles, as the sum
//! adds; `rs_seg_list` lists the tiles that hold another group's position and `rs_seg_sum` adds
//! those tiles of `block * SEG_ITEMS` positions, writing each short group that ends in the
//! tile and the pieces of the groups that cross tiles; `rs_seg_join` merges the pieces of
//! the groups that cross tiles or chunks and writes +0 for empty groups. Many short rows
//! (at most [`ROWS_SHORT_MAX_COLS`] values, at least [`ROWS_SHORT_PER_MP`] rows per
//! multiprocessor) take `rs_rows_short` alone instead: one thread per row; many long rows
//! (more values than a tile, at least as many rows as the device holds teams of
//! `rs_rows_long` at once) take `rs_rows_long` alone: a team of [`ROW_TEAM`] threads per
//! row. The values are read once. Offsets on the host are checked on the host; offsets in
//! device memory are checked by `rs_seg_prep`, and the kernels after it read its verdict on
//! the device and do nothing when it says the offsets are bad, so bad offsets leave every
//! output untouched wherever they live (the call reads the verdict back once, with the
//! results, instead of waiting for it between the launches).
//!
//! Segments of at least [`DENSE_MIN_AVG`] positions on average take two kernels instead:
//! `rs_seg_dense` checks the offsets and adds every group piece by piece, block-wide, in
//! chunks cut by a merge path over the positions and the segments' ends (so that no chunk
//! holds many more positions or segments than another, however the lengths are spread;
//! below [`DENSE_TEAMS_BELOW`] on average, `rs_seg_dense_teams` adds a chunk's short pieces
//! side by side in teams of threads),
//! keeping each group's state or pieces in the workspace; `rs_seg_dense_join` takes the
//! verdict and writes every group (nothing when the offsets are bad). A call of long
//! segments then pays two launches, not five, and nothing else: the join hands the verdict
//! to the host in mapped page-locked memory and zeroes the next call's error words. Offsets
//! in device memory cost a read of the last offset before the kernels (a round trip), but
//! where the same offsets (address and count) came in the call before: their last offset
//! then chooses the kernels, and where that is the dense path its first kernel reads the
//! last offset itself and the join hands it back for the next call.

use super::*;

/// Parameters of the segmented kernels (checked against the kernel source by a test).
pub(super) const SEG_PREP_PARAMS: usize = 10;
pub(super) const SEG_LIST_PARAMS: usize = 13;
pub(super) const SEG_SUM_PARAMS: usize = 17;
pub(super) const SEG_LONG_PARAMS: usize = 16;
pub(super) const SEG_JOIN_PARAMS: usize = 17;
pub(super) const SEG_DENSE_PARAMS: usize = 15;
pub(super) const SEG_DENSE_JOIN_PARAMS: usize = 14;
pub(super) const ROWS_SHORT_PARAMS: usize = 6;
pub(super) const ROWS_LONG_PARAMS: usize = 6;

/// Threads per block of the segmented cumsum's tile kernels unless a launch says otherwise
/// (a tile is `block * SEG_ITEMS` positions; any block size is correct), and of the
/// segmented sum's join.
pub const SEG_BLOCK: u32 = 128;

/// Threads per block of the segmented sum's short groups' kernel (`rs_seg_sum`) unless a
/// launch says otherwise: its tile is `SEG_SUM_BLOCK * SEG_ITEMS` positions (1024 f64, 2048
/// f32), and a group of more positions is long (any block size is correct).
pub const SEG_SUM_BLOCK: u32 = 64;

/// Threads per block of the long groups' kernel (`rs_seg_long`) for f64 (any block size is
/// correct). A block adds each piece of a long group and then merges its threads' states (a
/// tree of log2(block) levels with a barrier each): larger blocks merge more per piece,
/// smaller ones hold fewer loads in flight. Measured on the H200 (segments of average length
/// 1e4; docs/PERFORMANCE.md): 64 was 3-5% faster than 128 at 1e8 and 1e9 values, 256 30-40%
/// slower, 32 4-5% slower.
pub const SEG_LONG_BLOCK: u32 = 64;

/// Threads per block of `rs_seg_long` for f32 (see [`SEG_LONG_BLOCK`]). Measured on the
/// H200: 64 as fast as 32 at 1e8 values and 3.5% faster at 1e9; 128 5-9% slower than 32.
pub const SEG_LONG_BLOCK_F32: u32 = 64;

/// The most tiles per chunk of the long groups' kernel: each block adds the long groups'
/// pieces in chunks of m tiles of positions, m chosen per call so that the chunks make a
/// whole number of waves of the blocks the device holds at once (any m >= 1 is correct).
pub const SEG_LONG_MAX_TILES: u64 = 256;

/// Segments of at least this many positions on average (the span over the number of
/// segments) take the two kernels of the dense path (`rs_seg_dense`, then
/// `rs_seg_dense_join`) instead of five: every group added piece by piece, in chunks cut by a
/// merge path over the positions and the segments' ends (short pieces by teams of threads,
/// see [`DENSE_TEAMS_BELOW`]). Measured on an H100 (docs/PERFORMANCE.md, 2026-12-07
/// 15:59-16:29): with the teams the dense path is faster than the five kernels at every
/// average tried from 32 to 1e4 values (f32 1.1x at 32, 1.4-1.9x at 48-96, 2.3-3.3x at 128
/// and 250; f64 1.3x at 32, 1.6-3.1x at 48-250), as fast at 8 and 1.2-1.5x slower at 16
/// (any value is correct).
pub const DENSE_MIN_AVG: u64 = 32;

/// Segments of fewer than this many positions on average take `rs_seg_dense_teams` on the
/// dense path instead of `rs_seg_dense`: where a chunk's pieces are short, teams of threads
/// smaller than the block add a group's piece each, and a round of pieces shares one team
/// merge's barriers instead of a block merge per piece. `rs_seg_dense` keeps the long
/// pieces' path with fewer registers spilled. Measured on an H100 (docs/PERFORMANCE.md,
/// 2026-12-07 15:41-15:59): the teams 2.3x faster than `rs_seg_dense` at an average of 500
/// values (f32) and 1.7x (f64), 1.5x and 1.03x at 1000; 3% faster (f32) and 7% slower (f64)
/// at 2000, 5-7% slower at 1e4 when both walks were one kernel (any value is correct).
pub const DENSE_TEAMS_BELOW: u64 = 1024;

/// What a segment's end counts in the dense path's merge path, in positions: about what a
/// piece's block merge costs beside the adds, so that a chunk of many short segments holds
/// fewer positions (any value >= 1 is correct).
pub const DENSE_SEG_COST: u64 = 1024;

/// The fewest positions (with the segments' ends counted) per chunk of the dense path.
const DENSE_MIN_CHUNK: u64 = 16384;

/// Dynamic shared memory of `rs_seg_long` beside its (2K + 1) values per thread: 16 bytes,
/// then two copies of 3 words per candidate, m + 1 candidates for chunks of m tiles.
fn seg_long_smem(m: u64) -> usize {
    16 + 48 * (m as usize + 1)
}

/// Rows of at most this many values, when there are many of them (see
/// [`ROWS_SHORT_PER_MP`]), are added by `rs_rows_short`: one thread per row, each adding its
/// row serially (the other kernels' tiles and block scans cost more than the row).
pub const ROWS_SHORT_MAX_COLS: u64 = 256;

/// Rows per multiprocessor from which `rs_rows_short` takes short rows: enough threads to
/// keep the memory busy while each adds its row serially.
pub const ROWS_SHORT_PER_MP: u64 = 128;

/// Bytes of each row in a chunk of `rs_rows_short` (`RS_UNROLL` 16-byte vectors: 8 f64,
/// 16 f32).
pub(super) const ROWS_SHORT_CHUNK_BYTES: usize = 64;

/// Threads per block of `rs_rows_short` unless a launch says otherwise (any block size is
/// correct).
pub const ROWS_SHORT_BLOCK: u32 = 128;

/// Threads per row of `rs_rows_long` (`RS_ROW_TEAM` in the kernel source).
pub const ROW_TEAM: u32 = 32;

/// Threads per block of `rs_rows_long`: `ROWS_LONG_BLOCK / ROW_TEAM` rows at a time. Rows
/// longer than a tile of `rs_seg_sum`, at least as many as the device holds such teams at
/// once, take it; fewer long rows take `rs_seg_long`'s chunks, which share a row among
/// blocks.
pub const ROWS_LONG_BLOCK: u32 = 128;

/// The tiles of `rs_seg_sum` for one call ([`Device::seg_tiles`]).
struct SegTiles {
    block: u32,
    smem: u32,
    tile: u64,
    ntiles: u64,
}

/// The chunks of `rs_seg_long` for one call ([`Device::seg_chunks`]).
struct SegChunks {
    lblock: u32,
    lsmem: u32,
    m: u64,
    nchunks: u64,
}

/// The groups of one call, as the kernels take them.
#[derive(Clone, Copy)]
pub(super) struct Layout {
    /// Device address of `nseg + 1` 64-bit offsets; 0 for rows.
    pub(super) off: u64,
    pub(super) nseg: u64,
    pub(super) stride: u64,
    pub(super) cols: u64,
    /// Positions the groups span: the values read.
    pub(super) span: u64,
    /// The offsets are in device memory, unread by the host: check them there first.
    pub(super) check: bool,
}

/// The offsets' rules (the core's: first 0, none below the one before; then every segment
/// within the capacity), seen one offset at a time with no branch per offset (a user's
/// millions of segments: the check runs at the host's memory rate).
struct OffsetCheck {
    prev: usize,
    ordered: bool,
    widest: usize,
}

impl OffsetCheck {
    fn new() -> Self {
        Self::after(0)
    }

    /// A check of offsets that follow `prev` (a part of a list, checked on its own).
    fn after(prev: usize) -> Self {
        OffsetCheck {
            prev,
            ordered: true,
            widest: 0,
        }
    }

    /// Adds the check of the offsets that follow those seen here (a part checked with
    /// `after` from the last offset before it; an empty part changes nothing).
    fn join(&mut self, next: &OffsetCheck) {
        self.ordered &= next.ordered;
        self.widest = self.widest.max(next.widest);
        self.prev = next.prev;
    }

    /// The next offsets, in order (the first of all must be 0: `first_is_zero`). Pairs
    /// within the slice are compared side by side (a loop the compiler vectorises).
    fn see(&mut self, xs: &[usize]) {
        let (Some(&first), Some(&last)) = (xs.first(), xs.last()) else {
            return;
        };
        let (mut ordered, mut widest) = (first >= self.prev, first.wrapping_sub(self.prev));
        for w in xs.windows(2) {
            ordered &= w[1] >= w[0];
            widest = widest.max(w[1].wrapping_sub(w[0]));
        }
        self.ordered &= ordered;
        self.widest = self.widest.max(widest);
        self.prev = last;
    }

    /// Whether a list of offsets may pass (not empty, first 0): checked before the rest.
    fn first_is_zero(offsets: &[usize]) -> Result<(), GpuError> {
        if offsets.first() == Some(&0) {
            Ok(())
        } else {
            Err(GpuError::Core(reprosum_core::Error::InvalidOffsets))
        }
    }

    /// The verdict once every offset was seen: the last offset, or the error.
    fn verdict<T: GpuFloat>(&self) -> Result<usize, GpuError> {
        if !self.ordered {
            return Err(GpuError::Core(reprosum_core::Error::InvalidOffsets));
        }
        if self.widest as u64 > T::CAPACITY {
            return Err(GpuError::CapacityExceeded);
        }
        Ok(self.prev)
    }
}

/// Checks CSR offsets on the host (`OffsetCheck`'s rules; the last is the number of values)
/// and returns the last.
fn check_offsets<T: GpuFloat>(offsets: &[usize]) -> Result<usize, GpuError> {
    OffsetCheck::first_is_zero(offsets)?;
    let mut c = OffsetCheck::new();
    c.see(offsets);
    c.verdict::<T>()
}

/// Checks a matrix's shape (the core's rules) and returns the values it spans.
fn check_rows<T: GpuFloat>(rows: usize, cols: usize, stride: usize) -> Result<usize, GpuError> {
    if cols > stride {
        return Err(GpuError::Core(reprosum_core::Error::InvalidStride));
    }
    let span = match rows {
        0 => 0,
        _ => (rows - 1)
            .checked_mul(stride)
            .and_then(|s| s.checked_add(cols))
            .ok_or(GpuError::LengthMismatch)?,
    };
    if cols as u64 > T::CAPACITY {
        return Err(GpuError::CapacityExceeded);
    }
    Ok(span)
}

/// The offsets' verdict from its two words (as `rs_seg_check` sets them, or as
/// `rs_seg_dense_join` hands them on): an error for a bad offset or a segment past the
/// capacity. Anything but 0 or 1 in a word is the poison the host wrote first: the kernel
/// did not write it.
fn verdict_of(words: [u32; 2]) -> Result<(), GpuError> {
    if words[0] > 1 || words[1] > 1 {
        return Err(GpuError::InvalidLaunch(format!(
            "the segmented sum's verdict was not written ({:#x}, {:#x})",
            words[0], words[1]
        )));
    }
    if words[0] != 0 {
        return Err(GpuError::Core(reprosum_core::Error::InvalidOffsets));
    }
    if words[1] != 0 {
        return Err(GpuError::CapacityExceeded);
    }
    Ok(())
}

/// The last of `nseg + 1` 64-bit offsets at a device address, read on `stream` (synchronised).
///
/// # Safety
/// `offsets` holds `nseg + 1` readable u64 in the memory of the bound context's device;
/// `stream` is a live stream of it (or the default).
unsafe fn last_offset<R: Runtime>(offsets: u64, nseg: usize, stream: Stream) -> Result<u64, GpuError> {
    let mut last = [0u8; 8];
    // SAFETY: the caller's contract; `last` outlives the synchronisation.
    unsafe { read_last::<R>(last.as_mut_ptr(), offsets, nseg, stream) }?;
    Ok(u64::from_ne_bytes(last))
}

/// [`last_offset`] through the workspace's page-locked host buffer, where it has one: a
/// copy into pageable memory waits longer.
///
/// # Safety
/// As for [`last_offset`]; the workspace is locked.
unsafe fn last_offset_ws<R: Runtime>(
    ws: &mut Workspace,
    offsets: u64,
    nseg: usize,
    stream: Stream,
) -> Result<u64, GpuError> {
    let (p, _) = ws.ensure_host::<R>(8)?;
    // SAFETY: the caller's contract; the host buffer holds at least 8 bytes and nothing
    // else uses it while the workspace is locked.
    unsafe { read_last::<R>(p, offsets, nseg, stream) }?;
    // SAFETY: 8 bytes, written by the copy (complete).
    Ok(unsafe { std::ptr::read_unaligned(p.cast::<u64>()) })
}

/// The 8 bytes of offset `nseg` at `offsets` into `dst`, the stream synchronised.
///
/// # Safety
/// As for [`last_offset`]; `dst` holds 8 writable bytes.
unsafe fn read_last<R: Runtime>(
    dst: *mut u8,
    offsets: u64,
    nseg: usize,
    stream: Stream,
) -> Result<(), GpuError> {
    // SAFETY: the caller's contract; `dst` outlives the synchronisation.
    unsafe {
        R::copy_dtoh(dst, offsets + 8 * nseg as u64, 8, stream.0)?;
        R::synchronize(stream.0)
    }
}

/// The span a segmented sum of device offsets at `offsets` (`nseg` segments, values at `x`,
/// sums to `out`) takes from `last`, the last call's offsets (address, count) and last offset,
/// without reading its own last offset first: that last offset, where the offsets are the
/// same ones and it chooses the dense path (whose first kernel then reads the last offset
/// itself, and whose join hands it back); else none (the call reads it first). A guess, as
/// the values may have changed since: any guess gives the same bits, only the speed depends
/// on it. The kernel and the number of chunks are the guess's, so where the span has grown
/// far past a guess of less than a wave of chunks, that one call runs on fewer blocks than
/// the device holds. Null or misaligned `x` or `out` take no guess (the checks after the
/// read of the last offset report them).
fn dense_guess<T: GpuFloat>(
    last: Option<(u64, usize, u64)>,
    x: u64,
    offsets: u64,
    nseg: usize,
    out: u64,
) -> Option<u64> {
    let aligned = |p: u64| p != 0 && p & (T::BYTES as u64 - 1) == 0;
    match last {
        Some((o, n, span))
            if o == offsets
                && n == nseg
                && nseg > 0
                && span / nseg as u64 >= DENSE_MIN_AVG
                && aligned(x)
                && aligned(out) =>
        {
            Some(span)
        }
        _ => None,
    }
}

/// No segments: nothing to write, and the one offset must be 0.
fn no_segments(last: u64) -> Result<(), GpuError> {
    if last == 0 {
        Ok(())
    } else {
        Err(GpuError::Core(reprosum_core::Error::InvalidOffsets))
    }
}

/// `rs_seg_prep(off, nseg, stride, cols, n, cap, tile, ntiles, tile_first, err)`.
#[allow(clippy::too_many_arguments)]
fn prep_args(
    l: &Layout,
    cap: u64,
    tile: u64,
    ntiles: u64,
    tile_first: u64,
    err: u64,
) -> Args<SEG_PREP_PARAMS> {
    Args([
        l.off, l.nseg, l.stride, l.cols, l.span, cap, tile, ntiles, tile_first, err,
    ])
}

impl<R: Runtime> Device<R> {
    /// The segmented sum's kernels on this stream: `out` gets `l.nseg` sums. The stream is
    /// synchronised.
    ///
    /// # Safety
    /// `x` holds `l.span` readable values of T, `out` `l.nseg` writable ones, and `l.off`
    /// (when not 0) `l.nseg + 1` readable u64, all in this device's memory; the context is
    /// bound and the workspace locked.
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn seg_locked<T: GpuFloat>(
        &self,
        ws: &mut Workspace,
        x: u64,
        l: Layout,
        out: u64,
        fold: usize,
        stream: Stream,
        launch: &Launch,
    ) -> Result<(), GpuError> {
        let k = self.kernels::<T>(fold)?;
        if l.nseg == 0 {
            return Ok(());
        }
        if (l.span > 0 && (x == 0 || x & (T::BYTES as u64 - 1) != 0))
            || out == 0
            || out & (T::BYTES as u64 - 1) != 0
        {
            return Err(GpuError::InvalidPointer("null or misaligned input or output"));
        }
        if l.off != 0 && l.span / l.nseg >= DENSE_MIN_AVG {
            // SAFETY: the caller's contract, passed on.
            return unsafe { self.seg_dense_locked::<T>(&k, ws, x, l, out, fold, stream, false) }.map(|_| ());
        }
        if l.off == 0
            && l.cols <= ROWS_SHORT_MAX_COLS
            && l.nseg >= self.multiprocessors as u64 * ROWS_SHORT_PER_MP
        {
            // Shared memory: 16 bytes, then C + 1 values per thread (C: a chunk's columns).
            let c = ROWS_SHORT_CHUNK_BYTES / T::BYTES;
            let (block, smem) = self.block_for(
                &k.rows_short,
                launch.block,
                ROWS_SHORT_BLOCK,
                (c + 1) * T::BYTES,
                16,
            )?;
            let per_mp = self.occupancy(&k.rows_short, block, smem)?.unwrap_or(8).max(1);
            let grid = l
                .nseg
                .div_ceil(block as u64)
                .min(self.multiprocessors as u64 * per_mp as u64)
                .max(1) as u32;
            let args: Args<ROWS_SHORT_PARAMS> = Args([x, l.nseg, l.cols, l.stride, out, fold as u64]);
            // SAFETY: the kernel reads `span` values at x and writes `nseg` at out (the
            // caller's contract).
            unsafe { self.launch(&k.rows_short, grid, block, smem, stream, args) }?;
            // SAFETY: the caller's stream (or the default one) of this context.
            return unsafe { R::synchronize(stream.0) };
        }
        let st = 2 * fold + 1;
        let SegTiles {
            block,
            smem,
            tile,
            ntiles,
        } = self.seg_tiles::<T>(&k, l.span, fold, launch)?;
        // Groups of more positions than a tile are long: rs_seg_long adds them in chunks of
        // m tiles, and rs_seg_sum skips their positions.
        let lmin = tile + 1;
        let state = st * T::BYTES;
        if l.off == 0 && l.cols >= lmin {
            // Long rows, as many as the device holds teams of rs_rows_long at once or more:
            // a team of ROW_TEAM threads adds each row.
            let (block, smem) = self.block_for(&k.rows_long, None, ROWS_LONG_BLOCK, state, 16)?;
            let per_mp = self.occupancy(&k.rows_long, block, smem)?.unwrap_or(4).max(1);
            let teams = (block / ROW_TEAM).max(1) as u64;
            let slots = self.multiprocessors as u64 * per_mp as u64;
            if l.nseg >= slots * teams {
                let grid = l.nseg.div_ceil(teams).min(slots).max(1) as u32;
                let args: Args<ROWS_LONG_PARAMS> = Args([x, l.nseg, l.cols, l.stride, out, fold as u64]);
                // SAFETY: the kernel reads `span` values at x and writes `nseg` at out (the
                // caller's contract).
                unsafe { self.launch(&k.rows_long, grid, block, smem, stream, args) }?;
                // SAFETY: the caller's stream (or the default one) of this context.
                return unsafe { R::synchronize(stream.0) };
            }
        }
        let SegChunks {
            lblock,
            lsmem,
            m,
            nchunks,
        } = self.seg_chunks::<T>(&k, l.span, tile, ntiles, fold)?;
        let nt = ntiles as usize;
        let bytes = nt
            .checked_mul(8 + 2 * state + 4)
            .and_then(|b| b.checked_add(16 + 2 * state * nchunks as usize))
            .ok_or(GpuError::InvalidLaunch(format!("{ntiles} tiles")))?;
        ws.seg.ensure::<R>(bytes)?;
        // The error words (zeroed by prep_locked), then the count of the list (zeroed too).
        let err = ws.seg.ptr;
        let count = err + 8;
        let tile_first = err + 16;
        let heads = tile_first + 8 * ntiles;
        let tails = heads + state as u64 * ntiles;
        let lheads = tails + state as u64 * ntiles;
        let ltails = lheads + state as u64 * nchunks;
        let list = ltails + state as u64 * nchunks;
        // SAFETY: the workspace's seg buffer holds the error words and the tile numbers.
        unsafe { self.prep_locked::<T>(&l, tile, ntiles, err, tile_first, stream) }?;
        // The kernels below read prep's verdict there (0: the host checked the offsets).
        let verdict = if l.check { err } else { 0 };
        // Rows are all long or all short: one of the two kernels has nothing to add.
        let rows = l.off == 0;
        if !(rows && l.cols >= lmin) {
            let args: Args<SEG_LIST_PARAMS> = Args([
                l.off, l.nseg, l.stride, l.cols, lmin, l.span, tile, ntiles, m, tile_first, count, list,
                verdict,
            ]);
            let grid = ntiles.div_ceil(256).clamp(1, self.multiprocessors as u64 * 8) as u32;
            // SAFETY: the kernel reads the offsets (the caller's contract) and the tile numbers
            // written above, and writes the count and the list (allocated above).
            unsafe { self.launch(&self.seg_list, grid, 256, 0, stream, args) }?;
            let args: Args<SEG_SUM_PARAMS> = Args([
                x,
                l.off,
                l.nseg,
                l.stride,
                l.cols,
                lmin,
                l.span,
                tile_first,
                ntiles,
                m,
                count,
                list,
                heads,
                tails,
                out,
                verdict,
                fold as u64,
            ]);
            // Enough blocks to fill the device; each takes the listed tiles in turn.
            let per_mp = self.occupancy(&k.seg_sum, block, smem)?.unwrap_or(4).max(1);
            let grid = ntiles.min(self.multiprocessors as u64 * per_mp as u64).max(1) as u32;
            // SAFETY: the kernel reads `span` values at x and the offsets (the caller's
            // contract), the tile numbers and the list written above, and writes `out` (the
            // caller's) and the tiles' pieces (allocated above).
            unsafe { self.launch(&k.seg_sum, grid, block, smem, stream, args) }?;
        }
        if nchunks > 0 && !(rows && l.cols < lmin) {
            let lgrid = nchunks.min(i32::MAX as u64) as u32;
            let args: Args<SEG_LONG_PARAMS> = Args([
                x,
                l.off,
                l.nseg,
                l.stride,
                l.cols,
                lmin,
                l.span,
                tile_first,
                ntiles,
                tile,
                m,
                lheads,
                ltails,
                out,
                verdict,
                fold as u64,
            ]);
            // SAFETY: the kernel reads `span` values at x and the offsets (the caller's
            // contract) and the tile numbers written above, and writes `out` (the caller's)
            // and the chunks' pieces (allocated above).
            unsafe { self.launch(&k.seg_long, lgrid, lblock, lsmem, stream, args) }?;
        }
        let (jblock, jsmem) = self.block_for(&k.seg_join, None, SEG_BLOCK, state, 16)?;
        let jgrid = ntiles.min(self.multiprocessors as u64 * 8).max(1) as u32;
        let args: Args<SEG_JOIN_PARAMS> = Args([
            l.off,
            l.nseg,
            l.stride,
            l.cols,
            lmin,
            l.span,
            tile_first,
            ntiles,
            tile,
            m,
            heads,
            tails,
            lheads,
            ltails,
            out,
            verdict,
            fold as u64,
        ]);
        // SAFETY: as above; the pieces were written by the launch before it on the stream.
        unsafe { self.launch(&k.seg_join, jgrid, jblock, jsmem, stream, args) }?;
        // SAFETY: the seg buffer's error words (above), on the caller's stream.
        unsafe { self.end_locked(&l, err, stream) }
    }

    /// The dense path of [`Device::seg_locked`] (segments, `l.off` not 0): `rs_seg_dense`
    /// checks the offsets and adds every group, then `rs_seg_dense_join` writes them all
    /// (nothing when the offsets are bad), hands the verdict and the last offset on (into
    /// the mapped host buffer, else device words copied back) and zeroes the other pair of
    /// error words, which the next call takes. With `read_span` the first kernel reads the
    /// span (the last offset) itself and `l.span` is only the host's guess, which chooses
    /// the kernel and the chunks (any guess gives the same bits). Returns the last offset the
    /// kernels took where the device checked the offsets (`l.check`), else `l.span`. The
    /// stream is synchronised.
    ///
    /// # Safety
    /// As for [`Device::seg_locked`]; with `read_span`, `x` holds as many values as the last
    /// offset says.
    #[allow(clippy::too_many_arguments)]
    unsafe fn seg_dense_locked<T: GpuFloat>(
        &self,
        k: &Kernels,
        ws: &mut Workspace,
        x: u64,
        l: Layout,
        out: u64,
        fold: usize,
        stream: Stream,
        read_span: bool,
    ) -> Result<u64, GpuError> {
        let state = (2 * fold + 1) * T::BYTES;
        let too_many = || GpuError::InvalidLaunch(format!("{} segments", l.nseg));
        let default = if T::BYTES == 4 {
            SEG_LONG_BLOCK_F32
        } else {
            SEG_LONG_BLOCK
        };
        let dense = if l.span / l.nseg < DENSE_TEAMS_BELOW {
            &k.seg_dense_teams
        } else {
            &k.seg_dense
        };
        // Shared memory: 16 bytes, a state per thread, then 6 words (the chunk's cut).
        let (block, smem) = self.block_for(dense, None, default, state, 16 + 24)?;
        let per_mp = self.occupancy(dense, block, smem)?.unwrap_or(4).max(1);
        let total = l
            .nseg
            .checked_mul(DENSE_SEG_COST)
            .and_then(|t| t.checked_add(l.span))
            .ok_or_else(too_many)?;
        // One wave of the blocks the device holds at once: the merge path gives each as much.
        let nchunks = total
            .div_ceil(DENSE_MIN_CHUNK)
            .clamp(1, self.multiprocessors as u64 * per_mp as u64);
        let nseg = usize::try_from(l.nseg).map_err(|_| too_many())?;
        let nc = nchunks as usize;
        // pos, first (u64); slots, lheads, ltails (states); whole (u32).
        let bytes = nseg
            .checked_mul(state + 4)
            .and_then(|b| b.checked_add(8 * (2 * nc + 1) + 2 * state * nc))
            .ok_or_else(too_many)?;
        ws.seg.ensure::<R>(bytes)?;
        let pos = ws.seg.ptr;
        let first = pos + 8 * (nchunks + 1);
        let slots = first + 8 * nchunks;
        let lheads = slots + (state * nseg) as u64;
        let ltails = lheads + (state * nc) as u64;
        let whole = ltails + (state * nc) as u64;
        // The error words: the call's pair and the next call's, which the join zeroes (so
        // that no memset is queued before a call), then the device copy of the verdict and
        // the last offset.
        ws.seg_err.ensure::<R>(32)?;
        let pair = ws.seg_err_pair & 1;
        let err = ws.seg_err.ptr + 8 * pair;
        let clear = ws.seg_err.ptr + 8 * (1 - pair);
        if ws.seg_err_dirty {
            // SAFETY: seg_err holds 24 bytes of this context.
            unsafe { R::memset(ws.seg_err.ptr, 0, 16, stream.0) }?;
        }
        // Until this call completes, the pairs are as a failed call may leave them.
        ws.seg_err_dirty = true;
        // The verdict and the last offset: straight into the page-locked host buffer where it
        // is mapped (no copy after the kernels), else into seg_err's last words and copied
        // back. Poisoned, so that a join that did not write them cannot pass for one that did.
        let (host_ptr, host_dev) = if l.check {
            let (p, d) = ws.ensure_host::<R>(16)?;
            // SAFETY: the host buffer holds at least 16 bytes; nothing else uses it while the
            // workspace is locked.
            unsafe { std::ptr::write_bytes(p, 0xFF, 16) };
            (p, d)
        } else {
            (std::ptr::null_mut(), 0)
        };
        let verdict = match (l.check, host_dev) {
            (false, _) => 0,
            (true, 0) => ws.seg_err.ptr + 16,
            (true, d) => d,
        };
        let args: Args<SEG_DENSE_PARAMS> = Args([
            x,
            l.off,
            l.nseg,
            if read_span { u64::MAX } else { l.span },
            T::CAPACITY,
            DENSE_SEG_COST,
            nchunks,
            pos,
            first,
            slots,
            whole,
            lheads,
            ltails,
            err,
            fold as u64,
        ]);
        // SAFETY: the kernel reads `span` values at x and the offsets (the caller's
        // contract), and writes the error words and the pieces (allocated above).
        unsafe { self.launch(dense, nchunks as u32, block, smem, stream, args) }?;
        let (jblock, jsmem) = self.block_for(&k.seg_dense_join, None, SEG_BLOCK, state, 16)?;
        let jgrid = l
            .nseg
            .div_ceil(jblock as u64)
            .max(nchunks)
            .clamp(1, self.multiprocessors as u64 * 8) as u32;
        let args: Args<SEG_DENSE_JOIN_PARAMS> = Args([
            l.off,
            l.nseg,
            nchunks,
            pos,
            first,
            slots,
            whole,
            lheads,
            ltails,
            out,
            if l.check { err } else { 0 },
            verdict,
            clear,
            fold as u64,
        ]);
        // SAFETY: as above; the pieces were written by the launch before it on the stream,
        // and the kernel writes `nseg` values at out (the caller's), the verdict (the host
        // buffer's 8 bytes or seg_err's) and the other pair.
        unsafe { self.launch(&k.seg_dense_join, jgrid, jblock, jsmem, stream, args) }?;
        if l.check && host_dev == 0 {
            // SAFETY: 16 bytes into the host buffer, which outlives the synchronisation below.
            unsafe { R::copy_dtoh(host_ptr, verdict, 16, stream.0) }?;
        }
        // The kernel's writes to mapped memory are visible to the host once the stream is
        // synchronised.
        // SAFETY: the caller's stream (or the default one) of this context.
        unsafe { R::synchronize(stream.0) }?;
        ws.seg_err_pair = 1 - pair;
        ws.seg_err_dirty = false;
        if !l.check {
            return Ok(l.span);
        }
        // SAFETY: two u32 and a u64 (native order, as the kernel or the copy wrote them, now
        // complete) at the host buffer's start, which holds at least 16 bytes.
        let (words, last) = unsafe {
            (
                std::ptr::read_unaligned(host_ptr.cast::<[u32; 2]>()),
                std::ptr::read_unaligned(host_ptr.add(8).cast::<u64>()),
            )
        };
        verdict_of(words)?;
        Ok(last)
    }

    /// The tiles of `rs_seg_sum` for `span` positions: its block and shared memory (`launch`'s
    /// block, else the default), the tile's positions and the number of tiles (below 2^31).
    fn seg_tiles<T: GpuFloat>(
        &self,
        k: &Kernels,
        span: u64,
        fold: usize,
        launch: &Launch,
    ) -> Result<SegTiles, GpuError> {
        let st = 2 * fold + 1;
        let items = T::SEG_ITEMS as usize;
        let (block, smem) = self.block_for(
            &k.seg_sum,
            launch.block,
            SEG_SUM_BLOCK,
            8 + T::BYTES * (st + items + 1) + 4,
            16 + (T::BYTES * st + 4) * RAKE,
        )?;
        let tile = block as u64 * T::SEG_ITEMS as u64;
        let ntiles = span.div_ceil(tile).max(1);
        if ntiles > i32::MAX as u64 {
            return Err(GpuError::InvalidLaunch(format!(
                "{ntiles} tiles of {tile} values"
            )));
        }
        Ok(SegTiles {
            block,
            smem,
            tile,
            ntiles,
        })
    }

    /// The chunks of `rs_seg_long` for `ntiles` tiles of `tile` positions (`span` in all): m
    /// tiles each, as many chunks as a whole number of waves of the blocks the device holds
    /// at once, so every block adds as many positions and none waits on a last wave of a
    /// few blocks.
    fn seg_chunks<T: GpuFloat>(
        &self,
        k: &Kernels,
        span: u64,
        tile: u64,
        ntiles: u64,
        fold: usize,
    ) -> Result<SegChunks, GpuError> {
        let state = (2 * fold + 1) * T::BYTES;
        let (lblock, lsmem_max) = self.block_for(
            &k.seg_long,
            None,
            if T::BYTES == 4 {
                SEG_LONG_BLOCK_F32
            } else {
                SEG_LONG_BLOCK
            },
            state,
            seg_long_smem(SEG_LONG_MAX_TILES),
        )?;
        let per_mp = self
            .occupancy(&k.seg_long, lblock, lsmem_max)?
            .unwrap_or(4)
            .max(1);
        let slots = self.multiprocessors as u64 * per_mp as u64;
        let waves = ntiles.div_ceil(slots * SEG_LONG_MAX_TILES);
        let m = ntiles.div_ceil(slots * waves).max(1);
        Ok(SegChunks {
            lblock,
            lsmem: (seg_long_smem(m) + state * lblock as usize) as u32,
            m,
            nchunks: span.div_ceil(m * tile),
        })
    }

    /// How a segmented sum of `len` values of T at `fold` (the default launch) cuts them: the
    /// short groups' tile in positions and the long groups' chunk in tiles. A chunk is sparse,
    /// and its short segments are added by the long groups' kernel, when `m >= 2` and it
    /// meets at most `m / 2 + 1` segments. For tests that must reach both kinds of chunks.
    ///
    /// # Errors
    /// [`GpuError::UnsupportedFold`], a runtime error.
    #[doc(hidden)]
    pub fn segmented_tiling<T: GpuFloat>(&self, len: usize, fold: usize) -> Result<(u64, u64), GpuError> {
        let k = self.kernels::<T>(fold)?;
        let _bound = self.bind()?;
        let t = self.seg_tiles::<T>(&k, len as u64, fold, &Launch::default())?;
        let c = self.seg_chunks::<T>(&k, len as u64, t.tile, t.ntiles, fold)?;
        Ok((t.tile, c.m))
    }

    /// `rs_seg_prep` on this stream: the tile numbers at `tile_first` and, in the error words
    /// at `err`, the offsets' verdict (see [`Device::verdict_locked`]) when `l.check` says the
    /// host has not read them.
    ///
    /// # Safety
    /// `err` holds 16 writable bytes and `tile_first` `ntiles` u64 of this device; `l.off`
    /// as for [`Device::seg_locked`]; the context is bound and the workspace locked.
    unsafe fn prep_locked<T: GpuFloat>(
        &self,
        l: &Layout,
        tile: u64,
        ntiles: u64,
        err: u64,
        tile_first: u64,
        stream: Stream,
    ) -> Result<(), GpuError> {
        // SAFETY: the caller's contract: 16 bytes at err.
        unsafe { R::memset(err, 0, 16, stream.0) }?;
        let prep_grid = ntiles
            .max(l.nseg)
            .div_ceil(256)
            .clamp(1, self.multiprocessors as u64 * 8) as u32;
        let args = prep_args(l, T::CAPACITY, tile, ntiles, tile_first, err);
        // SAFETY: the kernel reads the offsets (the caller's contract) and writes the error
        // words and `ntiles` tile numbers (the caller's).
        unsafe { self.launch(&self.seg_prep, prep_grid, 256, 0, stream, args) }?;
        Ok(())
    }

    /// The end of a segmented sum's call: the offsets' verdict at `err` read back when the
    /// device checked them (`l.check`, see [`Device::verdict_locked`]), else the stream
    /// synchronised.
    ///
    /// # Safety
    /// As for [`Device::verdict_locked`]; `stream` is the caller's stream (or the default one)
    /// of this context.
    unsafe fn end_locked(&self, l: &Layout, err: u64, stream: Stream) -> Result<(), GpuError> {
        if l.check {
            // SAFETY: the caller's contract; the call synchronises the stream.
            unsafe { self.verdict_locked(err, stream) }
        } else {
            // SAFETY: the caller's stream (or the default one) of this context.
            unsafe { R::synchronize(stream.0) }
        }
    }

    /// The offsets' verdict that `rs_seg_prep` wrote at `err`, read back once the stream has
    /// run everything queued before: an error for a bad offset or a segment past the
    /// capacity. The stream is synchronised.
    ///
    /// # Safety
    /// `err` holds the 8 bytes of the two error words in this device's memory; the context
    /// is bound and the workspace locked.
    unsafe fn verdict_locked(&self, err: u64, stream: Stream) -> Result<(), GpuError> {
        let mut words = [0u32; 2];
        // SAFETY: 8 bytes into `words`, which outlives the synchronisation below.
        unsafe { R::copy_dtoh(words.as_mut_ptr().cast(), err, 8, stream.0) }?;
        // SAFETY: the caller's stream (or the default one) of this context.
        unsafe { R::synchronize(stream.0) }?;
        verdict_of(words)
    }

    /// Host offsets checked (as `check_offsets`, with its errors) and uploaded to the
    /// workspace (64-bit): their device address and the last offset. Each offset is checked
    /// as it is staged for the copy (by up to `STAGE_THREADS` threads, see `upload_mapped`),
    /// so the host reads them from memory once and the device gets what was checked; where
    /// the copy reads them itself (no staging buffers), they are checked first. The copy is
    /// complete when this returns, error or not; on an error only the workspace's copy was
    /// written.
    fn upload_offsets<T: GpuFloat>(
        ws: &mut Workspace,
        offsets: &[usize],
        stream: Stream,
    ) -> Result<(u64, usize), GpuError> {
        OffsetCheck::first_is_zero(offsets)?;
        let bytes = offsets
            .len()
            .checked_mul(8)
            .ok_or(GpuError::HostOutOfMemory { bytes: usize::MAX })?;
        ws.seg_off.ensure::<R>(bytes)?;
        let dst = ws.seg_off.ptr;
        let staged = ws.ensure_stage::<R>()?.is_some();
        // Without staging buffers, 64-bit offsets are copied as they are (not read here).
        let direct = !staged && cfg!(target_pointer_width = "64");
        if direct {
            check_offsets::<T>(offsets)?;
        }
        let mut c = OffsetCheck::new();
        // Checked and copied in runs of 32 KiB, so that the copy reads what the check has
        // just brought into the L1 cache. Each part is checked from the offset before it,
        // so the parts' checks need nothing from one another.
        let fill = |at: usize, src: &[usize], out: &mut [u64]| {
            let mut part = OffsetCheck::after(at.checked_sub(1).map_or(0, |i| offsets[i]));
            for (s, o) in src.chunks(4096).zip(out.chunks_mut(4096)) {
                part.see(s);
                for (o, &x) in o.iter_mut().zip(s) {
                    *o = x as u64;
                }
            }
            part
        };
        // SAFETY: the buffer holds the offsets as u64; the caller holds the context bound.
        unsafe {
            ws.upload_mapped::<R, usize, u64, OffsetCheck>(
                dst,
                offsets,
                fill,
                |part| c.join(&part),
                direct,
                stream,
            )
        }?;
        let last = if direct {
            *offsets.last().unwrap_or(&0)
        } else {
            c.verdict::<T>()?
        };
        Ok((dst, last))
    }

    /// `upload_offsets` for offsets that must end at `n` (the number of values the caller
    /// has): their device address.
    fn upload_offsets_of<T: GpuFloat>(
        ws: &mut Workspace,
        offsets: &[usize],
        n: usize,
        stream: Stream,
    ) -> Result<u64, GpuError> {
        match Self::upload_offsets::<T>(ws, offsets, stream)? {
            (off, last) if last == n => Ok(off),
            _ => Err(GpuError::Core(reprosum_core::Error::InvalidOffsets)),
        }
    }

    /// For no values: the offsets must be good ones ending at 0 (nothing is uploaded).
    fn no_values<T: GpuFloat>(offsets: &[usize]) -> Result<(), GpuError> {
        match check_offsets::<T>(offsets)? {
            0 => Ok(()),
            _ => Err(GpuError::Core(reprosum_core::Error::InvalidOffsets)),
        }
    }

    /// The reproducible sum of each segment of a device buffer: `out[i]` gets the bits of
    /// `reprosum::segmented_sum` (the sum of `x[offsets[i]..offsets[i + 1]]` alone, +0 for an
    /// empty segment) at `fold`. `offsets` has `out.len() + 1` entries: the first 0, none
    /// below the one before, the last `x.len()`.
    ///
    /// # Errors
    /// [`GpuError::UnsupportedFold`], [`GpuError::LengthMismatch`] (offsets and `out`),
    /// `GpuError::Core(InvalidOffsets)`, [`GpuError::CapacityExceeded`] (a segment past the
    /// capacity), a runtime error. `out` is untouched on any error found before the launch.
    pub fn segmented_sum<T: GpuFloat>(
        &self,
        x: &DeviceBuffer<R, T>,
        offsets: &[usize],
        out: &mut DeviceBuffer<R, T>,
        fold: usize,
    ) -> Result<(), GpuError> {
        check_fold::<T>(fold)?;
        self.check_pair(x, out).or_else(|e| match e {
            GpuError::LengthMismatch => Ok(()),
            e => Err(e),
        })?;
        if offsets.len() != out.len + 1 {
            return Err(GpuError::LengthMismatch);
        }
        let _bound = self.bind()?;
        let mut ws = self.lock();
        let stream = Stream::DEFAULT;
        let off = Self::upload_offsets_of::<T>(&mut ws, offsets, x.len, stream)?;
        let l = Layout {
            off,
            nseg: out.len as u64,
            stride: 0,
            cols: 0,
            span: x.len as u64,
            check: false,
        };
        // SAFETY: the buffers hold x.len and out.len values on this device; the offsets were
        // uploaded above.
        unsafe { self.seg_locked::<T>(&mut ws, x.ptr, l, out.ptr, fold, stream, &Launch::default()) }
    }

    /// The reproducible sum of each row of a row-major matrix in a device buffer: row `r` is
    /// `x[r * row_stride..r * row_stride + cols]`, and `out[r]` gets the bits of
    /// `reprosum::sum_rows` (that row's sum alone) at `fold`.
    ///
    /// # Errors
    /// [`GpuError::UnsupportedFold`], [`GpuError::LengthMismatch`] (`out` not `rows` long,
    /// `x` too short), `GpuError::Core(InvalidStride)` (`cols > row_stride`),
    /// [`GpuError::CapacityExceeded`], a runtime error. `out` is untouched on any of them.
    pub fn sum_rows<T: GpuFloat>(
        &self,
        x: &DeviceBuffer<R, T>,
        rows: usize,
        cols: usize,
        row_stride: usize,
        out: &mut DeviceBuffer<R, T>,
        fold: usize,
    ) -> Result<(), GpuError> {
        check_fold::<T>(fold)?;
        self.check_pair(x, out).or_else(|e| match e {
            GpuError::LengthMismatch => Ok(()),
            e => Err(e),
        })?;
        if out.len != rows {
            return Err(GpuError::LengthMismatch);
        }
        let span = check_rows::<T>(rows, cols, row_stride)?;
        if span > x.len {
            return Err(GpuError::LengthMismatch);
        }
        // SAFETY: the buffers hold x.len >= span and out.len = rows values on this device.
        unsafe { self.sum_rows_raw::<T>(x.ptr, rows, cols, row_stride, out.ptr, fold, Stream::DEFAULT) }
    }

    /// The segmented sum at raw device addresses on a stream: `x` holds the values, `offsets`
    /// `nseg + 1` 64-bit offsets (device memory of this device: checked on the device, the
    /// verdict read back before anything is written; the last is the number of values),
    /// `out` `nseg` sums. The stream is synchronised.
    ///
    /// # Safety
    /// `offsets` must be a device address of this device holding `nseg + 1` u64, `x` one
    /// holding as many values of T as the last offset says, `out` one holding `nseg`; `stream`
    /// a live stream of this device (or the default).
    ///
    /// # Errors
    /// As [`Device::segmented_sum`].
    pub unsafe fn segmented_sum_raw<T: GpuFloat>(
        &self,
        x: u64,
        offsets: u64,
        nseg: usize,
        out: u64,
        fold: usize,
        stream: Stream,
    ) -> Result<(), GpuError> {
        check_fold::<T>(fold)?;
        if offsets == 0 || offsets & 7 != 0 {
            return Err(GpuError::InvalidPointer("null or misaligned offsets"));
        }
        let _bound = self.bind()?;
        let mut ws = self.lock();
        let layout = |span| Layout {
            off: offsets,
            nseg: nseg as u64,
            stride: 0,
            cols: 0,
            span,
            check: true,
        };
        if let Some(span) = dense_guess::<T>(ws.seg_span, x, offsets, nseg, out) {
            let k = self.kernels::<T>(fold)?;
            // SAFETY: the caller's contract: x holds as many values as the last offset says
            // and out nseg; the offsets are checked on the device first.
            let last =
                unsafe { self.seg_dense_locked::<T>(&k, &mut ws, x, layout(span), out, fold, stream, true) }?;
            ws.seg_span = Some((offsets, nseg, last));
            return Ok(());
        }
        // SAFETY: offsets holds nseg + 1 u64 on this device (the caller's contract).
        let last = unsafe { last_offset_ws::<R>(&mut ws, offsets, nseg, stream) }?;
        if nseg == 0 {
            return no_segments(last);
        }
        ws.seg_span = Some((offsets, nseg, last));
        // SAFETY: the caller's contract; the offsets are checked on the device first.
        unsafe { self.seg_locked::<T>(&mut ws, x, layout(last), out, fold, stream, &Launch::default()) }
    }

    /// The row sums at raw device addresses on a stream (as [`Device::sum_rows`]). The stream
    /// is synchronised.
    ///
    /// # Safety
    /// `x` must be a device address of this device holding `(rows - 1) * row_stride + cols`
    /// values of T (none for no rows), `out` one holding `rows`; `stream` a live stream of
    /// this device (or the default).
    ///
    /// # Errors
    /// As [`Device::sum_rows`].
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn sum_rows_raw<T: GpuFloat>(
        &self,
        x: u64,
        rows: usize,
        cols: usize,
        row_stride: usize,
        out: u64,
        fold: usize,
        stream: Stream,
    ) -> Result<(), GpuError> {
        check_fold::<T>(fold)?;
        let span = check_rows::<T>(rows, cols, row_stride)?;
        let _bound = self.bind()?;
        let mut ws = self.lock();
        let l = Layout {
            off: 0,
            nseg: rows as u64,
            stride: row_stride as u64,
            cols: cols as u64,
            span: span as u64,
            check: false,
        };
        // SAFETY: the caller's contract.
        unsafe { self.seg_locked::<T>(&mut ws, x, l, out, fold, stream, &Launch::default()) }
    }

    /// The segmented sum of host slices (values and sums copied through the workspace).
    ///
    /// # Errors
    /// As [`Device::segmented_sum`] (the last offset must be `xs.len()`).
    pub fn segmented_sum_host<T: GpuFloat>(
        &self,
        xs: &[T],
        offsets: &[usize],
        out: &mut [T],
        fold: usize,
        stream: Stream,
    ) -> Result<(), GpuError> {
        check_fold::<T>(fold)?;
        if offsets.len() != out.len().saturating_add(1) {
            return Err(GpuError::LengthMismatch);
        }
        let _bound = self.bind()?;
        let mut ws = self.lock();
        let off = Self::upload_offsets_of::<T>(&mut ws, offsets, xs.len(), stream)?;
        let l = Layout {
            off,
            nseg: out.len() as u64,
            stride: 0,
            cols: 0,
            span: xs.len() as u64,
            check: false,
        };
        // SAFETY: the staged copies hold the values and the sums (see host_groups).
        unsafe { self.host_groups(&mut ws, xs, l, out, fold, stream) }
    }

    /// The row sums of a host matrix (values and sums copied through the workspace).
    ///
    /// # Errors
    /// As [`Device::sum_rows`].
    #[allow(clippy::too_many_arguments)]
    pub fn sum_rows_host<T: GpuFloat>(
        &self,
        xs: &[T],
        rows: usize,
        cols: usize,
        row_stride: usize,
        out: &mut [T],
        fold: usize,
        stream: Stream,
    ) -> Result<(), GpuError> {
        check_fold::<T>(fold)?;
        if out.len() != rows {
            return Err(GpuError::LengthMismatch);
        }
        let span = check_rows::<T>(rows, cols, row_stride)?;
        if span > xs.len() {
            return Err(GpuError::LengthMismatch);
        }
        let _bound = self.bind()?;
        let mut ws = self.lock();
        let l = Layout {
            off: 0,
            nseg: rows as u64,
            stride: row_stride as u64,
            cols: cols as u64,
            span: span as u64,
            check: false,
        };
        // SAFETY: as segmented_sum_host.
        unsafe { self.host_groups(&mut ws, &xs[..span], l, out, fold, stream) }
    }

    /// Copies `xs` (the span) to the workspace, runs the kernels into the workspace's output
    /// and copies the sums to `out` (written only when they are complete).
    ///
    /// # Safety
    /// `l` describes `xs.len()` positions and `out.len()` groups, its offsets (if any) in
    /// this device's memory; the context is bound and the workspace locked.
    unsafe fn host_groups<T: GpuFloat>(
        &self,
        ws: &mut Workspace,
        xs: &[T],
        l: Layout,
        out: &mut [T],
        fold: usize,
        stream: Stream,
    ) -> Result<(), GpuError> {
        if out.is_empty() {
            return Ok(());
        }
        let in_bytes = std::mem::size_of_val(xs);
        let out_bytes = std::mem::size_of_val(out);
        ws.input.ensure::<R>(in_bytes.max(T::BYTES))?;
        ws.output.ensure::<R>(out_bytes)?;
        let (inp, outp) = (ws.input.ptr, ws.output.ptr);
        // SAFETY: the staging buffers hold the bytes copied; the stream orders the copies and
        // kernels, and seg_locked synchronises it before the copy back is issued; the copy
        // back is synchronised before `out` is released.
        unsafe {
            if in_bytes > 0 {
                R::copy_htod(inp, xs.as_ptr().cast(), in_bytes, stream.0)?;
            }
            self.seg_locked::<T>(ws, inp, l, outp, fold, stream, &Launch::default())?;
            R::copy_dtoh(out.as_mut_ptr().cast(), outp, out_bytes, stream.0)?;
            R::synchronize(stream.0)
        }
    }
}

/// The sum of each segment of `x` (CSR `offsets`, `nseg + 1` entries, the last the number of
/// values) into `out`, wherever they live: `x` and `out` both in device memory of one device
/// (used in place; `offsets` on the host or on that device) or both in host memory (copied
/// through the current device; `offsets` on the host). This is what
/// `adn_cuda_segmented_sum_*` and `adn_hip_segmented_sum_*` call. Host offsets are checked
/// on the host, device offsets on the device before anything is written.
///
/// # Safety
/// `offsets` must point to `nseg + 1` readable `usize`, `x` to as many readable values as
/// the last says, `out` to `nseg` writable ones (aligned, host or device); `stream` null or
/// a live stream of the device that runs the call.
///
/// # Errors
/// As [`Device::segmented_sum`], and [`GpuError::InvalidPointer`] for null or misaligned
/// pointers or a mix of memories. `out` is untouched on any error found before the launch.
pub unsafe fn segmented_sum_ptr<R: Runtime, T: GpuFloat>(
    x: *const T,
    offsets: *const usize,
    nseg: usize,
    fold: usize,
    out: *mut T,
    stream: *mut c_void,
) -> Result<(), GpuError> {
    check_fold::<T>(fold)?;
    if offsets.is_null() || (offsets as usize) & (std::mem::align_of::<usize>() - 1) != 0 {
        return Err(GpuError::InvalidPointer("null or misaligned offsets"));
    }
    if (nseg > 0 && (out.is_null() || (out as usize) & (T::BYTES - 1) != 0))
        || (!x.is_null() && (x as usize) & (T::BYTES - 1) != 0)
    {
        return Err(GpuError::InvalidPointer("null or misaligned input or output"));
    }
    // SAFETY: the caller's contract.
    let stream = unsafe { Stream::from_raw(stream) };
    let om = R::memory_of(offsets.cast())?;
    if nseg == 0 {
        // Nothing to write; the one offset must be 0.
        let last = match om {
            // SAFETY: one readable usize (the caller's contract).
            Memory::Host => unsafe { *offsets },
            Memory::Device(ord) => {
                let _bound = device::<R>(ord)?.bind()?;
                // SAFETY: one readable offset on that device (the caller's contract).
                unsafe { last_offset::<R>(offsets as u64, 0, stream) }? as usize
            }
        };
        return no_segments(last as u64);
    }
    let xm = if x.is_null() {
        None
    } else {
        Some(R::memory_of(x.cast())?)
    };
    let outm = R::memory_of(out.cast())?;
    match (om, outm) {
        (Memory::Host, _) => {
            // SAFETY: nseg + 1 readable usize in host memory (the caller's contract).
            let offs = unsafe { std::slice::from_raw_parts(offsets, nseg + 1) };
            let null_input = |n: usize| {
                if n > 0 && x.is_null() {
                    Err(GpuError::InvalidPointer("null input"))
                } else {
                    Ok(n)
                }
            };
            match (xm.unwrap_or(outm), outm) {
                (Memory::Device(a), Memory::Device(b)) if a == b => {
                    let d = device::<R>(a)?;
                    let _bound = d.bind()?;
                    let mut ws = d.lock();
                    // The offsets checked as they are uploaded (one read of them).
                    let (off, n) = Device::<R>::upload_offsets::<T>(&mut ws, offs, stream)?;
                    let n = null_input(n)?;
                    let l = Layout {
                        off,
                        nseg: nseg as u64,
                        stride: 0,
                        cols: 0,
                        span: n as u64,
                        check: false,
                    };
                    // SAFETY: n values at x and nseg at out on that device (the caller's
                    // contract); the offsets uploaded above.
                    unsafe {
                        d.seg_locked::<T>(&mut ws, x as u64, l, out as u64, fold, stream, &Launch::default())
                    }
                }
                (Memory::Host, Memory::Host) => {
                    let n = null_input(check_offsets::<T>(offs)?)?;
                    let xs = if n == 0 {
                        &[][..]
                    } else {
                        // SAFETY: n readable values at x (the caller's contract).
                        unsafe { std::slice::from_raw_parts(x, n) }
                    };
                    // SAFETY: nseg writable values at out, not aliased by x (the caller's
                    // contract: an input and an output).
                    let outs = unsafe { std::slice::from_raw_parts_mut(out, nseg) };
                    device::<R>(R::current_ordinal()?)?.segmented_sum_host(xs, offs, outs, fold, stream)
                }
                _ => {
                    null_input(check_offsets::<T>(offs)?)?;
                    Err(GpuError::InvalidPointer("input and output in different memories"))
                }
            }
        }
        (Memory::Device(a), Memory::Device(b)) if a == b && xm.is_none_or(|m| m == Memory::Device(a)) => {
            // SAFETY: the caller's contract; the offsets are checked on the device, and a null
            // x is refused there unless the offsets span no values.
            let d = device::<R>(a)?;
            if x.is_null() {
                // No value may be read: the span must be 0 (the check reads the last offset).
                let _bound = d.bind()?;
                // SAFETY: nseg + 1 offsets on that device (the caller's contract).
                let last = unsafe { last_offset::<R>(offsets as u64, nseg, stream) }?;
                if last != 0 {
                    return Err(GpuError::InvalidPointer("null input"));
                }
            }
            // SAFETY: as above.
            unsafe { d.segmented_sum_raw::<T>(x as u64, offsets as u64, nseg, out as u64, fold, stream) }
        }
        _ => Err(GpuError::InvalidPointer(
            "offsets, input and output in different memories",
        )),
    }
}

/// The sum of each row of a row-major matrix at `x` (row `r` is `x[r * row_stride..r *
/// row_stride + cols]`) into `out`, wherever they live (both in device memory of one device,
/// used in place, or both in host memory, copied through the current device). This is what
/// `adn_cuda_sum_rows_*` and `adn_hip_sum_rows_*` call.
///
/// # Safety
/// `x` must point to `(rows - 1) * row_stride + cols` readable values (none for no rows or
/// no columns), `out` to `rows` writable ones (aligned, host or device); `stream` null or a
/// live stream of the device that runs the call.
///
/// # Errors
/// As [`Device::sum_rows`], and [`GpuError::InvalidPointer`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn sum_rows_ptr<R: Runtime, T: GpuFloat>(
    x: *const T,
    rows: usize,
    cols: usize,
    row_stride: usize,
    fold: usize,
    out: *mut T,
    stream: *mut c_void,
) -> Result<(), GpuError> {
    check_fold::<T>(fold)?;
    let span = check_rows::<T>(rows, cols, row_stride)?;
    if rows == 0 {
        return Ok(());
    }
    if out.is_null()
        || (out as usize) & (T::BYTES - 1) != 0
        || (span > 0 && (x.is_null() || (x as usize) & (T::BYTES - 1) != 0))
    {
        return Err(GpuError::InvalidPointer("null or misaligned input or output"));
    }
    // SAFETY: the caller's contract.
    let stream = unsafe { Stream::from_raw(stream) };
    let outm = R::memory_of(out.cast())?;
    let xm = if span == 0 { outm } else { R::memory_of(x.cast())? };
    match (xm, outm) {
        (Memory::Device(a), Memory::Device(b)) if a == b => {
            // SAFETY: span values at x and rows at out on that device (the caller's contract).
            unsafe {
                device::<R>(a)?.sum_rows_raw::<T>(x as u64, rows, cols, row_stride, out as u64, fold, stream)
            }
        }
        (Memory::Host, Memory::Host) => {
            let xs = if span == 0 {
                &[][..]
            } else {
                // SAFETY: span readable values at x (the caller's contract).
                unsafe { std::slice::from_raw_parts(x, span) }
            };
            // SAFETY: rows writable values at out (the caller's contract).
            let outs = unsafe { std::slice::from_raw_parts_mut(out, rows) };
            device::<R>(R::current_ordinal()?)?.sum_rows_host(xs, rows, cols, row_stride, outs, fold, stream)
        }
        _ => Err(GpuError::InvalidPointer("input and output in different memories")),
    }
}

/// Parameters of the segmented cumsum's kernels (checked against the kernel source by a test).
pub(super) const SEGCS_REDUCE_PARAMS: usize = 7;
pub(super) const SEGCS_CARRY_PARAMS: usize = 4;
pub(super) const SEGCS_SCAN_PARAMS: usize = 9;
/// Threads of the carry kernel's one block unless its shared memory needs fewer.
const SEGCS_CARRY_BLOCK: u32 = 512;

/// The segmented cumsum's kernels of one device: the run-time-fold ones, f64 then f32.
#[derive(Clone, Copy)]
pub(super) struct SegCsKernels {
    reduce: [Func; 2],
    carry: [Func; 2],
    scan: [Func; 2],
}

impl SegCsKernels {
    /// The kernels in the module `open` just loaded.
    ///
    /// # Safety
    /// `module` is a loaded module of the current context.
    pub(super) unsafe fn load<R: Runtime>(module: Handle) -> Result<Self, GpuError> {
        // SAFETY: the caller's contract.
        let f = |name: &str| unsafe { R::function(module, name) };
        let pair = |name: &str| -> Result<[Func; 2], GpuError> {
            Ok([
                f(&format!("rs_segcs_{name}_f64_kn"))?,
                f(&format!("rs_segcs_{name}_f32_kn"))?,
            ])
        };
        Ok(SegCsKernels {
            reduce: pair("reduce")?,
            carry: pair("carry")?,
            scan: pair("scan")?,
        })
    }
}

/// Refuses a segmented cumsum's output over its input (but for `out == x`) or over its
/// offsets. Host and device addresses never overlap (one virtual address space), so this
/// holds for either memory.
fn check_overlap<T: GpuFloat>(x: u64, out: u64, n: u64, off: u64, nseg: u64) -> Result<(), GpuError> {
    let meet =
        |a: u64, alen: u64, b: u64, blen: u64| a < b.saturating_add(blen) && b < a.saturating_add(alen);
    let bytes = n.saturating_mul(T::BYTES as u64);
    if n == 0 {
        return Ok(());
    }
    if x != out && meet(x, bytes, out, bytes) {
        return Err(GpuError::Overlap(
            "input and output (only out == input is allowed)",
        ));
    }
    if meet(out, bytes, off, nseg.saturating_add(1).saturating_mul(8)) {
        return Err(GpuError::Overlap("output and offsets"));
    }
    Ok(())
}

impl<R: Runtime> Device<R> {
    /// The segmented cumsum's kernels on this stream: `out[j]` gets the running sum of the
    /// segment holding j up to j. The stream is synchronised.
    ///
    /// # Safety
    /// `x` and `out` hold `l.span` values of T (readable, writable; the same address or
    /// disjoint), `l.off` `l.nseg + 1` readable u64 (`l.nseg > 0`), all in this device's
    /// memory; the context is bound and the workspace locked.
    unsafe fn segcs_locked<T: GpuFloat>(
        &self,
        ws: &mut Workspace,
        x: u64,
        l: Layout,
        out: u64,
        fold: usize,
        stream: Stream,
    ) -> Result<(), GpuError> {
        check_fold::<T>(fold)?;
        if l.span == 0 && !l.check {
            return Ok(());
        }
        let misaligned = |p: u64| p == 0 || p & (T::BYTES as u64 - 1) != 0;
        if l.span > 0 && (misaligned(x) || misaligned(out)) {
            return Err(GpuError::InvalidPointer("null or misaligned input or output"));
        }
        let k = &self.segcs;
        let slot = T::SLOT;
        let st = 2 * fold + 1;
        let state = st * T::BYTES;
        let items = T::SEG_ITEMS as usize;
        let (block, smem) = self.block_for(
            &k.scan[slot],
            None,
            SEG_BLOCK,
            T::BYTES * (st + items + 1) + 4 + items,
            16 + (state + 4) * RAKE,
        )?;
        let tile = block as u64 * T::SEG_ITEMS as u64;
        let ntiles = l.span.div_ceil(tile).max(1);
        if ntiles > i32::MAX as u64 {
            return Err(GpuError::InvalidLaunch(format!(
                "{ntiles} tiles of {tile} values"
            )));
        }
        let bytes = (ntiles as usize)
            .checked_mul(8 + state + 4)
            .and_then(|b| b.checked_add(16))
            .ok_or(GpuError::InvalidLaunch(format!("{ntiles} tiles")))?;
        ws.seg.ensure::<R>(bytes)?;
        let err = ws.seg.ptr;
        let tile_first = err + 16;
        let tails = tile_first + 8 * ntiles;
        let cuts = tails + state as u64 * ntiles;
        // SAFETY: the seg buffer holds the error words and `ntiles` tile numbers (above).
        unsafe { self.prep_locked::<T>(&l, tile, ntiles, err, tile_first, stream) }?;
        if l.check {
            // The host checks the overlap below with the span the offsets give, so it waits
            // for their verdict before any other kernel runs.
            // SAFETY: the seg buffer's error words (above).
            unsafe { self.verdict_locked(err, stream) }?;
        }
        if l.span == 0 {
            return Ok(()); // the offsets were checked; nothing to write
        }
        // With good offsets (the span is then the values' count), before any write.
        check_overlap::<T>(x, out, l.span, l.off, l.nseg)?;
        let (rblock, rsmem) = self.block_for(&k.reduce[slot], Some(block), block, state, 16)?;
        let args: Args<SEGCS_REDUCE_PARAMS> = Args([x, l.off, l.nseg, l.span, tails, cuts, fold as u64]);
        // SAFETY: the kernel reads `span` values at x and the offsets (the caller's contract)
        // and writes `ntiles` tails and cuts (allocated above).
        unsafe { self.launch(&k.reduce[slot], ntiles as u32, rblock, rsmem, stream, args) }?;
        let (cblock, csmem) = self.block_for(
            &k.carry[slot],
            None,
            SEGCS_CARRY_BLOCK,
            state + 4,
            16 + (state + 4) * RAKE,
        )?;
        let args: Args<SEGCS_CARRY_PARAMS> = Args([tails, cuts, ntiles, fold as u64]);
        // SAFETY: the tails and cuts the launch before it on the stream wrote.
        unsafe { self.launch(&k.carry[slot], 1, cblock, csmem, stream, args) }?;
        let args: Args<SEGCS_SCAN_PARAMS> = Args([
            x,
            out,
            l.off,
            l.nseg,
            l.span,
            tile_first,
            ntiles,
            tails,
            fold as u64,
        ]);
        // SAFETY: as above; each block reads its tile of x before it writes that tile of out
        // (out may be x), and no other tile.
        unsafe { self.launch(&k.scan[slot], ntiles as u32, block, smem, stream, args) }?;
        // SAFETY: the caller's stream (or the default one) of this context.
        unsafe { R::synchronize(stream.0) }
    }

    /// The reproducible cumulative sum of each segment of a device buffer, starting afresh
    /// at every segment: for `j` in segment `i`, `out[j]` gets the bits of
    /// `reprosum::segmented_cumsum` (the sum of `x[offsets[i]..=j]` alone) at `fold`.
    /// `offsets` is as for [`Device::segmented_sum`] (the last `x.len()`); `out` is as long
    /// as `x`.
    ///
    /// # Errors
    /// [`GpuError::UnsupportedFold`], [`GpuError::LengthMismatch`], `GpuError::Core(InvalidOffsets)`,
    /// [`GpuError::CapacityExceeded`] (a segment past the capacity), a runtime error. `out`
    /// is untouched on any error found before the launch.
    pub fn segmented_cumsum<T: GpuFloat>(
        &self,
        x: &DeviceBuffer<R, T>,
        offsets: &[usize],
        out: &mut DeviceBuffer<R, T>,
        fold: usize,
    ) -> Result<(), GpuError> {
        check_fold::<T>(fold)?;
        self.check_pair(x, out)?;
        // SAFETY: the buffers hold x.len values on this device and are distinct allocations.
        unsafe { self.segcs_host_offsets::<T>(x.ptr, out.ptr, x.len, offsets, fold, Stream::DEFAULT) }
    }

    /// [`Device::segmented_cumsum`] with the running sums written over the values.
    ///
    /// # Errors
    /// As [`Device::segmented_cumsum`].
    pub fn segmented_cumsum_in_place<T: GpuFloat>(
        &self,
        xs: &mut DeviceBuffer<R, T>,
        offsets: &[usize],
        fold: usize,
    ) -> Result<(), GpuError> {
        check_fold::<T>(fold)?;
        self.check_buffer(xs)?;
        // SAFETY: the buffer holds xs.len values on this device.
        unsafe { self.segcs_host_offsets::<T>(xs.ptr, xs.ptr, xs.len, offsets, fold, Stream::DEFAULT) }
    }

    /// The segmented cumsum of `n` values at device addresses `x` and `out` with offsets on
    /// the host (checked here, then uploaded).
    ///
    /// # Safety
    /// `x` and `out` hold `n` values of T on this device (readable, writable; equal or
    /// disjoint); `stream` a live stream of this device (or the default).
    unsafe fn segcs_host_offsets<T: GpuFloat>(
        &self,
        x: u64,
        out: u64,
        n: usize,
        offsets: &[usize],
        fold: usize,
        stream: Stream,
    ) -> Result<(), GpuError> {
        if n == 0 {
            return Self::no_values::<T>(offsets);
        }
        let _bound = self.bind()?;
        let mut ws = self.lock();
        // Checked as they are staged.
        let off = Self::upload_offsets_of::<T>(&mut ws, offsets, n, stream)?;
        let l = Layout {
            off,
            nseg: offsets.len() as u64 - 1,
            stride: 0,
            cols: 0,
            span: n as u64,
            check: false,
        };
        // SAFETY: the caller's contract; the offsets were checked and uploaded above.
        unsafe { self.segcs_locked::<T>(&mut ws, x, l, out, fold, stream) }
    }

    /// The segmented cumsum at raw device addresses on a stream: `offsets` holds `nseg + 1`
    /// 64-bit offsets in device memory of this device (checked on the device, the verdict
    /// read back before anything is written; the last is the number of values), `x` and
    /// `out` that many values (`out == x` allowed). The stream is synchronised.
    ///
    /// # Safety
    /// `offsets` must be a device address of this device holding `nseg + 1` u64, `x` and
    /// `out` ones holding as many values of T as the last offset says (the same address or
    /// disjoint); `stream` a live stream of this device (or the default).
    ///
    /// # Errors
    /// As [`Device::segmented_cumsum`].
    pub unsafe fn segmented_cumsum_raw<T: GpuFloat>(
        &self,
        x: u64,
        out: u64,
        offsets: u64,
        nseg: usize,
        fold: usize,
        stream: Stream,
    ) -> Result<(), GpuError> {
        check_fold::<T>(fold)?;
        if offsets == 0 || offsets & 7 != 0 {
            return Err(GpuError::InvalidPointer("null or misaligned offsets"));
        }
        let _bound = self.bind()?;
        let mut ws = self.lock();
        // SAFETY: offsets holds nseg + 1 u64 on this device (the caller's contract).
        let last = unsafe { last_offset_ws::<R>(&mut ws, offsets, nseg, stream) }?;
        if nseg == 0 {
            return no_segments(last);
        }
        let l = Layout {
            off: offsets,
            nseg: nseg as u64,
            stride: 0,
            cols: 0,
            span: last,
            check: true,
        };
        // SAFETY: the caller's contract; the offsets are checked on the device first.
        unsafe { self.segcs_locked::<T>(&mut ws, x, l, out, fold, stream) }
    }

    /// The segmented cumsum of host slices (values and running sums copied through the
    /// workspace; `out` is written only once they are complete).
    ///
    /// # Errors
    /// As [`Device::segmented_cumsum`] (the last offset must be `xs.len()`).
    pub fn segmented_cumsum_host<T: GpuFloat>(
        &self,
        xs: &[T],
        offsets: &[usize],
        out: &mut [T],
        fold: usize,
        stream: Stream,
    ) -> Result<(), GpuError> {
        if xs.len() != out.len() {
            check_fold::<T>(fold)?;
            return Err(GpuError::LengthMismatch);
        }
        // SAFETY: two slices of xs.len() values (distinct: one is borrowed mutably).
        unsafe { self.segcs_host_raw::<T>(xs.as_ptr(), out.as_mut_ptr(), xs.len(), offsets, fold, stream) }
    }

    /// The segmented cumsum of `n` values in host memory at `x` into host memory at `out`
    /// (`out == x` allowed): the values are copied to the workspace, the kernels run and
    /// finish, then the running sums are copied straight into `out`, so `out` is written
    /// only once they are complete and after `x` was read. No host copy of either.
    ///
    /// # Safety
    /// `x` holds `n` readable values of T and `out` `n` writable ones in host memory, equal
    /// or disjoint; `stream` is null or a live stream of this device.
    unsafe fn segcs_host_raw<T: GpuFloat>(
        &self,
        x: *const T,
        out: *mut T,
        n: usize,
        offsets: &[usize],
        fold: usize,
        stream: Stream,
    ) -> Result<(), GpuError> {
        check_fold::<T>(fold)?;
        if n == 0 {
            return Self::no_values::<T>(offsets);
        }
        let _bound = self.bind()?;
        let mut ws = self.lock();
        // Checked as they are staged.
        let off = Self::upload_offsets_of::<T>(&mut ws, offsets, n, stream)?;
        let l = Layout {
            off,
            nseg: offsets.len() as u64 - 1,
            stride: 0,
            cols: 0,
            span: n as u64,
            check: false,
        };
        let bytes = n * T::BYTES;
        ws.input.ensure::<R>(bytes)?;
        ws.output.ensure::<R>(bytes)?;
        let (inp, outp) = (ws.input.ptr, ws.output.ptr);
        // SAFETY: the workspace buffers hold `bytes`; the stream orders the copies and
        // kernels, segcs_locked synchronises it before the copy back is issued, and the copy
        // back is synchronised before `out` is released.
        unsafe {
            R::copy_htod(inp, x.cast(), bytes, stream.0)?;
            self.segcs_locked::<T>(&mut ws, inp, l, outp, fold, stream)?;
            R::copy_dtoh(out.cast(), outp, bytes, stream.0)?;
            R::synchronize(stream.0)
        }
    }
}

/// The cumulative sum of each segment of `input` (CSR `offsets`, `nseg + 1` entries, the
/// last the number of values) into `out`, starting afresh at every segment, wherever they
/// live: `input` and `out` both in device memory of one device (used in place; `offsets`
/// on the host or on that device) or both in host memory (copied through the current
/// device; `offsets` on the host). `out == input` is allowed, any other overlap is an
/// error. This is what `adn_cuda_segmented_cumsum_*` and `adn_hip_segmented_cumsum_*` call.
/// Host offsets are checked on the host, device offsets on the device before anything is
/// written.
///
/// # Safety
/// `offsets` must point to `nseg + 1` readable `usize`, `input` to as many readable values
/// as the last says, `out` to as many writable ones (aligned, host or device); `stream` null
/// or a live stream of the device that runs the call.
///
/// # Errors
/// As [`Device::segmented_cumsum`], and [`GpuError::InvalidPointer`] for null or misaligned
/// pointers, overlap other than `out == input`, or a mix of memories. `out` is untouched on
/// any error found before the launch.
pub unsafe fn segmented_cumsum_ptr<R: Runtime, T: GpuFloat>(
    input: *const T,
    out: *mut T,
    offsets: *const usize,
    nseg: usize,
    fold: usize,
    stream: *mut c_void,
) -> Result<(), GpuError> {
    check_fold::<T>(fold)?;
    if offsets.is_null() || (offsets as usize) & (std::mem::align_of::<usize>() - 1) != 0 {
        return Err(GpuError::InvalidPointer("null or misaligned offsets"));
    }
    // SAFETY: the caller's contract.
    let stream = unsafe { Stream::from_raw(stream) };
    let om = R::memory_of(offsets.cast())?;
    let host_offs = match om {
        // SAFETY: nseg + 1 readable usize in host memory (the caller's contract).
        Memory::Host => Some(unsafe { std::slice::from_raw_parts(offsets, nseg + 1) }),
        Memory::Device(_) => None,
    };
    let n = match (host_offs, om) {
        (Some(offs), _) => check_offsets::<T>(offs)?,
        (None, Memory::Device(a)) => {
            let _bound = device::<R>(a)?.bind()?;
            // SAFETY: nseg + 1 offsets on that device (the caller's contract).
            let last = unsafe { last_offset::<R>(offsets as u64, nseg, stream) }?;
            usize::try_from(last).map_err(|_| GpuError::Core(reprosum_core::Error::InvalidOffsets))?
        }
        (None, Memory::Host) => return Err(GpuError::InvalidPointer("offsets")),
    };
    let misaligned = |p: usize| p == 0 || p & (T::BYTES - 1) != 0;
    if n > 0 && (misaligned(input as usize) || misaligned(out as usize)) {
        return Err(GpuError::InvalidPointer("null or misaligned input or output"));
    }
    if host_offs.is_some() {
        // Device offsets: checked on the device first (segcs_locked), then these.
        check_overlap::<T>(input as u64, out as u64, n as u64, offsets as u64, nseg as u64)?;
    }
    let (xm, outm) = if n == 0 {
        (om, om)
    } else {
        (R::memory_of(input.cast())?, R::memory_of(out.cast())?)
    };
    match (host_offs, om, xm, outm) {
        (Some(offs), _, Memory::Device(a), Memory::Device(b)) if a == b => {
            let d = device::<R>(a)?;
            // SAFETY: n values at input and out on that device (the caller's contract),
            // equal or disjoint (checked above).
            unsafe { d.segcs_host_offsets::<T>(input as u64, out as u64, n, offs, fold, stream) }
        }
        (Some(offs), _, Memory::Host, Memory::Host) => {
            if n == 0 {
                return Ok(());
            }
            // `out` may be `input`: the values are on the device before `out` is written.
            // SAFETY: n values at input and at out in host memory (the caller's contract),
            // equal or disjoint (checked above).
            unsafe {
                device::<R>(R::current_ordinal()?)?.segcs_host_raw::<T>(input, out, n, offs, fold, stream)
            }
        }
        (None, Memory::Device(a), Memory::Device(b), Memory::Device(c)) if a == b && b == c => {
            // SAFETY: the caller's contract; the offsets are checked on the device first.
            unsafe {
                device::<R>(a)?.segmented_cumsum_raw::<T>(
                    input as u64,
                    out as u64,
                    offsets as u64,
                    nseg,
                    fold,
                    stream,
                )
            }
        }
        _ => Err(GpuError::InvalidPointer(
            "offsets, input and output in different memories",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_calls_offset_is_taken_only_for_the_same_offsets_on_the_dense_path() {
        let (x, off, out) = (0x1000u64, 0x2000u64, 0x3000u64);
        let dense = 100 * DENSE_MIN_AVG;
        let last = Some((off, 100usize, dense));
        assert_eq!(dense_guess::<f64>(last, x, off, 100, out), Some(dense));
        assert_eq!(dense_guess::<f32>(last, x + 4, off, 100, out + 4), Some(dense));
        // Other offsets, another count, none before, no segments.
        assert_eq!(dense_guess::<f64>(last, x, off + 8, 100, out), None);
        assert_eq!(dense_guess::<f64>(last, x, off, 99, out), None);
        assert_eq!(dense_guess::<f64>(None, x, off, 100, out), None);
        assert_eq!(dense_guess::<f64>(Some((off, 0, 0)), x, off, 0, out), None);
        // A last offset that chooses the five kernels: read it first.
        let short = Some((off, 100usize, 100 * DENSE_MIN_AVG - 1));
        assert_eq!(dense_guess::<f64>(short, x, off, 100, out), None);
        // Null or misaligned input or output: the checks after the read report them.
        for (x, out) in [(0, out), (x, 0), (x + 4, out), (x, out + 4)] {
            assert_eq!(dense_guess::<f64>(last, x, off, 100, out), None);
        }
    }

    #[test]
    fn host_checks_are_the_cores() {
        let bad = GpuError::Core(reprosum_core::Error::InvalidOffsets);
        assert_eq!(check_offsets::<f64>(&[0, 3, 3, 5]), Ok(5));
        assert_eq!(check_offsets::<f64>(&[0]), Ok(0));
        assert_eq!(check_offsets::<f64>(&[]), Err(bad.clone()));
        assert_eq!(check_offsets::<f64>(&[1, 5]), Err(bad.clone()));
        assert_eq!(check_offsets::<f64>(&[0, 3, 2, 5]), Err(bad.clone()));
        let big = <f32 as Float>::CAPACITY as usize + 1;
        assert_eq!(check_offsets::<f32>(&[0, big]), Err(GpuError::CapacityExceeded));
        assert_eq!(check_offsets::<f32>(&[0, big, 1]), Err(bad));
        assert_eq!(check_rows::<f64>(3, 4, 5), Ok(14));
        assert_eq!(check_rows::<f64>(0, 4, 5), Ok(0));
        assert_eq!(
            check_rows::<f64>(3, 6, 5),
            Err(GpuError::Core(reprosum_core::Error::InvalidStride))
        );
        assert_eq!(check_rows::<f64>(usize::MAX, 1, 2), Err(GpuError::LengthMismatch));
        assert_eq!(check_rows::<f32>(1, big, big), Err(GpuError::CapacityExceeded));
    }

    /// The staged upload checks parts of the offsets on their own (`after` the offset before
    /// each) and joins the parts' checks in order: at every split into two or three parts,
    /// the joined verdict is the whole list's, wherever a decrease or a wide segment falls.
    #[test]
    fn offsets_checked_in_parts_give_the_whole_verdict() {
        let big = <f32 as Float>::CAPACITY as usize + 1;
        let lists: [&[usize]; 6] = [
            &[0, 3, 3, 5, 9, 9, 12, 20],
            &[0, 3, 3, 2, 9, 9, 12, 20],
            &[0, 3, 3, 5, 9, 9, 12, 11],
            &[0, 1, 2, 3, 4, 5, 6, 5],
            &[0, 1, big + 1, big + 2, big + 3, big + 4, big + 5, big + 6],
            &[0, 0, 0, 0, 0, 0, 0, 0],
        ];
        let parts = |xs: &[usize], cuts: &[usize]| {
            let mut c = OffsetCheck::new();
            let mut at = 0usize;
            for &end in cuts.iter().chain([xs.len()].iter()) {
                let mut part = OffsetCheck::after(at.checked_sub(1).map_or(0, |i| xs[i]));
                part.see(&xs[at..end]);
                c.join(&part);
                at = end;
            }
            c.verdict::<f32>()
        };
        for xs in lists {
            let whole = check_offsets::<f32>(xs);
            for a in 0..=xs.len() {
                assert_eq!(parts(xs, &[a]), whole, "{xs:?} cut at {a}");
                for b in a..=xs.len() {
                    assert_eq!(parts(xs, &[a, b]), whole, "{xs:?} cut at {a}, {b}");
                }
            }
        }
    }
}
