// reprosum GPU kernels: reproducible sum and cumulative sum, f32 and f64, every fold (f64
// 2..52, f32 2..21: 2..8 tuned, the larger ones at a run-time fold).
//
// One source for CUDA (nvcc), HIP (hipcc) and the CPU (a shim): only portable.h's
// mappings are used. The arithmetic is the core's (core/src/binned.rs, core/src/float.rs)
// operation for operation: the bin index rule, the window update, the deposit with the
// forced low bit and the top-bin compression, the renormalisation, the exact merge and
// the fixed-order conversion (f64 with the 2^-66 stage; f32 through f64, then rounded).
// A state reached here is the core's state for the same multiset of values, so its bytes
// (renormalised) are the core's bytes and its value the core's bits.
//
// Kernels (suffix _f32/_f64 and _k2.._k8 for the fold, _kn for a fold given at run time):
//   rs_sum        grid-stride deposit into per-thread states, block merge in shared
//                 memory, per-block states to a workspace; the last block to finish (a
//                 counter, atomics and fences) merges them, converts, writes the result
//                 and resets the counter. One launch for any n.
//   rs_tile_reduce_fixed  state of each tile of blockDim * E contiguous elements (the last
//                 may be partial) whose largest magnitude gives an ordinary window: exact
//                 per-slot sums of the pieces against that window; other tiles are listed.
//                 It also hands the scan pass each thread's exclusive sums of pieces and the
//                 tile's window.
//   rs_tile_reduce  state of each listed tile (or of every tile): per-thread states and a
//                 block merge.
//   rs_tile_prefixes  the tiles' exclusive prefix states: groups of RS_GROUP tiles
//                 scanned in place, then (the last block, by a counter) their totals, so
//                 the prefix of a tile is the merge of two states (rs_tile_prefix). It also
//                 resets the list counts (the `ctl` words), so a call needs no memset.
//   rs_tile_scan_fixed  each tile but the first whose values leave its prefix's window
//                 unchanged: each thread's exclusive sums of the pieces (handed by the reduce
//                 pass when the windows agree, else computed: per-slot sums and a block-wide
//                 exclusive sum), then each thread replays its E elements from its own
//                 running slot totals; other tiles are listed.
//   rs_tile_scan    each listed tile (or every tile) from its prefix: per-thread segment
//                 states, a block-wide exclusive scan of states, then each thread replays
//                 its E elements, writing value(prefix) after each one. Tile 0 (an empty
//                 prefix) it takes alone, which the host runs beside the other passes.
//   Both paths give every element the bits of the one-at-a-time definition. Both scan
//   kernels take a start state (`start`, null for none): every tile's prefix is then the
//   start merged with the tiles before it, tile 0's the start itself, so element i gets the
//   value of the start with x[0..=i] added (a cumulative sum continued from an accumulator).
//   rs_cumsum_lookback  the cumsum of more than one tile in one pass (the kernels built
//                 for one fold; the hosts' default where the runtime runs it): each block
//                 takes the next tile, computes its state (the fixed-window reduce, or the
//                 general one), publishes it, finds its prefix by decoupled look-back over
//                 the tiles before it, publishes its inclusive prefix and scans the tile on
//                 the fixed-window path from the copy it holds in shared memory; a tile that
//                 does not qualify gets its prefix stored and is listed for rs_tile_scan.
//                 The passes above remain for one tile, for the run-time folds, for a block
//                 whose shared memory does not fit, and for a runtime without it.
//   rs_seg_prep, rs_seg_list, rs_seg_sum, rs_seg_long, rs_seg_join  the segmented and row
//                 sums (see their section); rs_seg_dense, rs_seg_dense_join  segments of many
//                 positions each, in two kernels; rs_rows_short  many short rows, a thread each;
//                 rs_rows_long  many long rows, a team of threads each.
//   rs_key_count, rs_u64_scan_*, rs_key_scatter  the keyed sums' counting sort by key,
//                 before the segmented kernels (see their section).
//   rs_probe      arithmetic probe (subnormals, ties to even, signed zero).
// Workspace layout of one state: K primaries, K carries, then one slot whose bits are
// the special-value flags (bit 0 NaN, bit 1 +Inf, bit 2 -Inf).
#include "portable.h"

template <typename T>
struct RsF;

template <>
struct RsF<double> {
  typedef rs_u64 U;
  static constexpr int W = 40, MANT = 52, MAX_INDEX = 51, ENDURANCE = 2048;
  static constexpr int MAX_EXP_FIELD = 2046, TOP_FIELD = 2060, COMP_EXP = -14, BIAS = 1023;
  static constexpr U SIGN = 0x8000000000000000ull, INF_BITS = 0x7ff0000000000000ull;
  static constexpr int VEC = 2;
  // Elements per thread of a cumsum tile (the hosts' TILE_ITEMS).
  static constexpr int TILE_E = 16;
  // Positions per thread of a segmented-sum tile (the hosts' SEG_ITEMS), added in chunks of
  // TILE_E.
  static constexpr int SEG_E = 16;
};

template <>
struct RsF<float> {
  typedef rs_u32 U;
  static constexpr int W = 13, MANT = 23, MAX_INDEX = 20, ENDURANCE = 512;
  static constexpr int MAX_EXP_FIELD = 254, TOP_FIELD = 266, COMP_EXP = -12, BIAS = 127;
  static constexpr U SIGN = 0x80000000u, INF_BITS = 0x7f800000u;
  static constexpr int VEC = 4;
  static constexpr int TILE_E = 32;
  static constexpr int SEG_E = 32;
};

#define RS_FLAG_NAN 1u
#define RS_FLAG_POS_INF 2u
#define RS_FLAG_NEG_INF 4u

template <typename T>
RS_DEV bool rs_is_zero(T x) {
  return (rs_bits(x) & ~RsF<T>::SIGN) == 0;
}

// The reference value B_i of bin i (1.5 * 2^k), the bottom bin repeated past MAX_INDEX.
template <typename T>
RS_DEV T rs_bin(int i) {
  typedef typename RsF<T>::U U;
  int field;
  if (i == 0) {
    field = RsF<T>::MAX_EXP_FIELD;
  } else {
    int j = i > RsF<T>::MAX_INDEX ? RsF<T>::MAX_INDEX : i;
    field = RsF<T>::TOP_FIELD - RsF<T>::W * j;
  }
  return rs_from_bits((U)(((U)field << RsF<T>::MANT) | ((U)1 << (RsF<T>::MANT - 1))));
}

// The bin index of a finite magnitude (bits without the sign).
template <typename T>
RS_DEV int rs_index(typename RsF<T>::U mag) {
  typedef typename RsF<T>::U U;
  if (mag == 0) return RsF<T>::MAX_INDEX;
  int field = (int)(mag >> RsF<T>::MANT);
  int depth;
  if (field != 0) {
    depth = RsF<T>::MAX_EXP_FIELD - field;
  } else {
    int width = (int)(sizeof(U) * 8) - rs_clz(mag);
    depth = RsF<T>::MAX_EXP_FIELD - 1 + (RsF<T>::MANT + 1 - width);
  }
  int i = depth / RsF<T>::W;
  return i > RsF<T>::MAX_INDEX ? RsF<T>::MAX_INDEX : i;
}

// The 32 bits of a finite or special value's magnitude that decide its bin (rs_index) and
// whether it is finite: f64's high word (the exponent field and the top of the significand),
// f32's bits, without the sign. The largest key of a chunk is the high word of its largest
// magnitude, and rs_key_mag of it has the same bin as that magnitude (the same exponent
// field; every f64 subnormal, and zero, is in the bottom bin) and compares the same with
// INF_BITS and with every window threshold (rs_win_set's: their low words are zero), so a
// chunk's window takes one 32-bit maximum per value instead of a 64-bit one.
RS_DEV rs_u32 rs_mag_key(double x) { return (rs_u32)(rs_bits(x) >> 32) & 0x7fffffffu; }
RS_DEV rs_u32 rs_mag_key(float x) { return rs_bits(x) & 0x7fffffffu; }
template <typename T>
RS_DEV typename RsF<T>::U rs_key_mag(rs_u32 key) {
  return (typename RsF<T>::U)key << (8 * sizeof(T) - 32);
}

// The top bin of a window whose first primary is p0.
template <typename T>
RS_DEV int rs_window_index(T p0) {
  int field = (int)((rs_bits(p0) & RsF<T>::INF_BITS) >> RsF<T>::MANT);
  int d = RsF<T>::TOP_FIELD - field;
  if (d < 0) d = 0;
  return d / RsF<T>::W;
}

// B_i / 6, exactly: B_i = 1.5 * 2^k, so B_i / 6 = 2^(k-2) (the exponent field minus 2,
// which stays a normal number for every bin). Equal to the IEEE quotient, without a division.
template <typename T>
RS_DEV T rs_bin_sixth(int i) {
  typedef typename RsF<T>::U U;
  const U b = rs_bits(rs_bin<T>(i)) >> RsF<T>::MANT;
  return rs_from_bits((U)((b - 2) << RsF<T>::MANT));
}

template <typename T>
RS_DEV T rs_pow2(int e) {
  typedef typename RsF<T>::U U;
  return rs_from_bits((U)((U)(e + RsF<T>::BIAS) << RsF<T>::MANT));
}

template <typename T>
RS_DEV T rs_low1(T x) {
  typedef typename RsF<T>::U U;
  return rs_from_bits((U)(rs_bits(x) | (U)1));
}

// The fold of a state. K > 0: the fold K, a constant (every loop over the slots unrolled,
// the slots in registers). K < 0: a fold chosen at run time, at most -K (the kernels for the
// large folds: the slots in local memory, the loops over them not unrolled, one build for
// every fold, so that the build time and the registers do not grow with the fold).
template <int K, bool RUNTIME = (K < 0)>
struct RsFold {
  static constexpr int CAP = K;
  RS_MEMBER RsFold() {}
  RS_MEMBER explicit RsFold(rs_u64) {}
  RS_MEMBER constexpr int get() const { return K; }
};

template <int K>
struct RsFold<K, true> {
  static constexpr int CAP = -K;
  int v;
  RS_MEMBER explicit RsFold(rs_u64 k) : v((int)k) {}
  RS_MEMBER int get() const { return v; }
};

// Unrolls a loop over the slots of a constant fold (K > 0) only (the count unparenthesised:
// clang's CUDA mode refuses a parenthesised one).
template <int K>
constexpr int rs_unroll_k = K > 0 ? K : 1;
#define RS_UNROLL_K _Pragma("unroll rs_unroll_k<K>")

// A per-thread state: primaries, carries, flags, deposits since the last renorm, the fold.
template <typename T, int K>
struct RsAcc {
  T p[RsFold<K>::CAP];
  T c[RsFold<K>::CAP];
  rs_u32 flags;
  rs_u32 pending;
  RsFold<K> k;
  RS_MEMBER RsAcc() {}
  RS_MEMBER explicit RsAcc(RsFold<K> f) : k(f) {}
};

template <typename T, int K>
RS_DEV void rs_clear(RsAcc<T, K>& a) {
  const int k = a.k.get();
  RS_UNROLL_K
  for (int j = 0; j < k; ++j) {
    a.p[j] = (T)0;
    a.c[j] = (T)0;
  }
  a.flags = 0;
  a.pending = 0;
}

// ReproBLAS's update: raise the window to start at bin ix or higher.
template <typename T, int K>
RS_DEV void rs_update(RsAcc<T, K>& a, int ix) {
  const int k = a.k.get();
  int fresh;
  if (rs_is_zero(a.p[0])) {
    fresh = k;
  } else {
    int top = rs_window_index(a.p[0]);
    if (ix >= top) return;
    int s = top - ix;
    fresh = s < k ? s : k;
    if (fresh < k) {
      for (int r = 0; r < fresh; ++r) {
        RS_UNROLL_K
        for (int j = k - 1; j > 0; --j) {
          a.p[j] = a.p[j - 1];
          a.c[j] = a.c[j - 1];
        }
      }
    }
  }
  RS_UNROLL_K
  for (int j = 0; j < k; ++j) {
    if (j < fresh) {
      a.p[j] = rs_bin<T>(ix + j);
      a.c[j] = (T)0;
    }
  }
}

// ReproBLAS's deposit of a finite x; `top` when the window starts at bin 0.
template <typename T, int K>
RS_DEV void rs_deposit(RsAcc<T, K>& a, T x) {
  const int k = a.k.get();
  RS_UNROLL_K
  for (int j = 0; j < k - 1; ++j) {
    T m = a.p[j];
    T q = rs_add(m, rs_low1(x));
    a.p[j] = q;
    x = rs_add(x, rs_sub(m, q));
  }
  a.p[k - 1] = rs_add(a.p[k - 1], rs_low1(x));
}

template <typename T, int K>
RS_DEV void rs_deposit_top(RsAcc<T, K>& a, T x) {
  const int k = a.k.get();
  {
    T m = a.p[0];
    T q = rs_add(m, rs_low1(rs_mul(x, rs_pow2<T>(RsF<T>::COMP_EXP))));
    a.p[0] = q;
    T d = rs_mul(rs_sub(m, q), rs_pow2<T>(-RsF<T>::COMP_EXP - 1));
    x = rs_add(x, d);
    x = rs_add(x, d);
  }
  RS_UNROLL_K
  for (int j = 1; j < k - 1; ++j) {
    T m = a.p[j];
    T q = rs_add(m, rs_low1(x));
    a.p[j] = q;
    x = rs_add(x, rs_sub(m, q));
  }
  a.p[k - 1] = rs_add(a.p[k - 1], rs_low1(x));
}

// ReproBLAS's renorm (carry propagation); nothing for an empty state.
template <typename T, int K>
RS_DEV void rs_renorm(RsAcc<T, K>& a) {
  typedef typename RsF<T>::U U;
  if (rs_is_zero(a.p[0])) return;
  const int sh = RsF<T>::MANT - 2;
  const int k = a.k.get();
  RS_UNROLL_K
  for (int j = 0; j < k; ++j) {
    U b = rs_bits(a.p[j]);
    int q = (int)((b >> sh) & 3);
    a.c[j] = rs_add(a.c[j], (T)(q - 2));
    a.p[j] = rs_from_bits((U)((b & ~((U)3 << sh)) | ((U)2 << sh)));
  }
}

template <typename T>
RS_DEV rs_u32 rs_special_flag(typename RsF<T>::U bits) {
  typename RsF<T>::U mag = bits & ~RsF<T>::SIGN;
  if (mag > RsF<T>::INF_BITS) return RS_FLAG_NAN;
  return (bits & RsF<T>::SIGN) ? RS_FLAG_NEG_INF : RS_FLAG_POS_INF;
}

// Adds one value (the core's add_one, without the count).
template <typename T, int K>
RS_DEV void rs_add_one(RsAcc<T, K>& a, T x) {
  typedef typename RsF<T>::U U;
  U bits = rs_bits(x);
  U mag = bits & ~RsF<T>::SIGN;
  if (mag >= RsF<T>::INF_BITS) {
    a.flags |= rs_special_flag<T>(bits);
    return;
  }
  rs_update(a, rs_index<T>(mag));
  if (a.pending >= (rs_u32)RsF<T>::ENDURANCE) {
    rs_renorm(a);
    a.pending = 0;
  }
  if (rs_window_index(a.p[0]) == 0) {
    rs_deposit_top(a, x);
  } else {
    rs_deposit(a, x);
  }
  a.pending += 1;
}

// Whether every remainder is zero (either sign). A zero deposits nothing into any slot
// (zero with the low bit set is the smallest subnormal, far below every slot's grid, so
// m + low1(x) is m and the remainder stays zero), so the slots left may be skipped with
// the same bits.
template <typename T, int M>
RS_DEV bool rs_all_zero(const T (&x)[M]) {
  typename RsF<T>::U o = 0;
#pragma unroll
  for (int i = 0; i < M; ++i) o |= rs_bits(x[i]);
  return (o & ~RsF<T>::SIGN) == 0;
}

// Whether, after `done` slots of a window of k, checking the remainders for zeros may pay
// (the core's worth_checking): from the second slot on, while at least one more slot than
// the last is left.
RS_DEV bool rs_worth_checking(int done, int k) { return done >= 2 && done + 2 <= k; }

// rs_deposit (top: rs_deposit_top) of v[0], ..., v[M-1] in turn, slot by slot: each slot
// takes the M values' remainders in the same order as one value after another would, and
// each value's remainder for the next slot is the same, so the state is the same bits.
// Once every remainder is zero the slots left are skipped (rs_all_zero): a value's
// significand spans two or three bins below the window's top whatever the fold, so above
// fold 3 ordinary data end early. For the run-time folds: each slot (local memory) is read
// and written once per M values, and the M remainders are independent chains.
template <typename T, int K, int M>
RS_DEV void rs_deposit_chunk(RsAcc<T, K>& a, const T (&v)[M], bool top) {
  const int k = a.k.get();
  T x[M];
#pragma unroll
  for (int i = 0; i < M; ++i) x[i] = v[i];
  // The slot index starts at 0 for every window (a top window's slot 0 takes the compressed
  // deposit), so a constant fold's loop unrolls and its slots stay in registers.
  RS_UNROLL_K
  for (int j = 0; j < k - 1; ++j) {
    T m = a.p[j];
    if (j == 0 && top) {
#pragma unroll
      for (int i = 0; i < M; ++i) {
        const T q = rs_add(m, rs_low1(rs_mul(x[i], rs_pow2<T>(RsF<T>::COMP_EXP))));
        const T d = rs_mul(rs_sub(m, q), rs_pow2<T>(-RsF<T>::COMP_EXP - 1));
        x[i] = rs_add(x[i], d);
        x[i] = rs_add(x[i], d);
        m = q;
      }
    } else {
#pragma unroll
      for (int i = 0; i < M; ++i) {
        const T q = rs_add(m, rs_low1(x[i]));
        x[i] = rs_add(x[i], rs_sub(m, q));
        m = q;
      }
    }
    a.p[j] = m;
    if (rs_worth_checking(j + 1, k) && rs_all_zero(x)) return;
  }
  T m = a.p[k - 1];
#pragma unroll
  for (int i = 0; i < M; ++i) m = rs_add(m, rs_low1(x[i]));
  a.p[k - 1] = m;
}

// Deposits M finite values into a window that holds them (rs_add_chunk's and
// rs_add_chunk_thr's common part): a renorm first if they would pass the endurance, then the
// top window's deposit where `may_top` and the window starts at bin 0, else the plain one.
template <typename T, int K, int M>
RS_DEV void rs_deposit_finite(RsAcc<T, K>& a, const T (&v)[M], bool may_top) {
  if (a.pending + (rs_u32)M > (rs_u32)RsF<T>::ENDURANCE) {
    rs_renorm(a);
    a.pending = 0;
  }
  const bool top = may_top && rs_window_index(a.p[0]) == 0;
  // From fold 4 on, slot by slot with the zero check (rs_deposit_chunk); folds 2 and 3 have
  // no slot a check could skip, so they deposit value by value.
  if constexpr (K < 0 || K >= 4) {
    rs_deposit_chunk(a, v, top);
  } else if (top) {
#pragma unroll
    for (int j = 0; j < M; ++j) rs_deposit_top(a, v[j]);
  } else {
#pragma unroll
    for (int j = 0; j < M; ++j) rs_deposit(a, v[j]);
  }
  a.pending += (rs_u32)M;
}

// Adds M values: the largest magnitude raises the window once (the core's add_slice).
// A chunk with NaN or Inf (rare) sets the flags, and its finite values are added with the
// specials replaced by zeros (a zero deposit changes nothing once a window exists); a chunk
// with no finite value changes nothing but the flags. No array is indexed at run time.
template <typename T, int K, int M>
RS_DEV void rs_add_chunk(RsAcc<T, K>& a, T (&v)[M]) {
  const rs_u32 inf_key = (rs_u32)(RsF<T>::INF_BITS >> (8 * sizeof(T) - 32));
  rs_u32 mx = 0;  // the largest key (rs_mag_key)
#pragma unroll
  for (int j = 0; j < M; ++j) {
    const rs_u32 m = rs_mag_key(v[j]);
    mx = m > mx ? m : mx;
  }
  if (mx >= inf_key) {
    rs_u32 fmx = 0;
    bool any = false;
#pragma unroll
    for (int j = 0; j < M; ++j) {
      const rs_u32 m = rs_mag_key(v[j]);
      if (m >= inf_key) {
        a.flags |= rs_special_flag<T>(rs_bits(v[j]));
        v[j] = (T)0;
      } else {
        any = true;
        fmx = m > fmx ? m : fmx;
      }
    }
    if (!any) return;
    mx = fmx;
  }
  rs_update(a, rs_index<T>(rs_key_mag<T>(mx)));
  rs_deposit_finite(a, v, true);
}

// The smallest key (rs_mag_key) of a value that would raise a's window or take the top
// window's deposit, or 0 when every chunk must take rs_add_chunk's general path (an empty
// state, a window at bin 0, or a threshold below the normals). index(x) >= top exactly when
// x's exponent field is below MAX_EXP_FIELD - top * W + 1 (subnormals and zero are in the
// bottom bin), and a key's exponent field is its magnitude's; specials are above every
// threshold.
template <typename T, int K>
RS_DEV rs_u32 rs_add_thr(const RsAcc<T, K>& a) {
  if (rs_is_zero(a.p[0])) return 0;
  const int top = rs_window_index(a.p[0]);
  if (top == 0) return 0;
  const int f = RsF<T>::MAX_EXP_FIELD - top * RsF<T>::W + 1;
  if (f <= 0) return 0;
  return (rs_u32)f << (RsF<T>::MANT - (8 * (int)sizeof(T) - 32));
}

// rs_add_chunk for a loop that keeps thr = rs_add_thr(a) between chunks: a chunk whose
// largest key is below thr leaves the window as it is (rs_update would return at once) and
// is not a top window's, so it skips the bin index and the window checks; any other chunk
// takes the general path and sets thr afresh. The same operations on the slots, so the
// same bits.
template <typename T, int K, int M>
RS_DEV void rs_add_chunk_thr(RsAcc<T, K>& a, T (&v)[M], rs_u32& thr) {
  rs_u32 mx = 0;
#pragma unroll
  for (int j = 0; j < M; ++j) {
    const rs_u32 m = rs_mag_key(v[j]);
    mx = m > mx ? m : mx;
  }
  if (mx >= thr) {
    rs_add_chunk(a, v);
    thr = rs_add_thr(a);
    return;
  }
  rs_deposit_finite(a, v, false);
}

// Exact merge of b into a (the core's merge) when both are renormalised; b is clobbered.
template <typename T, int K>
RS_DEV void rs_merge_renormed(RsAcc<T, K>& a, RsAcc<T, K>& b) {
  a.flags |= b.flags;
  a.pending = 0;
  if (rs_is_zero(b.p[0])) return;
  const int k = a.k.get();
  if (rs_is_zero(a.p[0])) {
    RS_UNROLL_K
    for (int j = 0; j < k; ++j) {
      a.p[j] = b.p[j];
      a.c[j] = b.c[j];
    }
    return;
  }
  int xa = rs_window_index(a.p[0]);
  int xb = rs_window_index(b.p[0]);
  if (xb < xa) {
    // The higher window (smaller index) is the base.
    RS_UNROLL_K
    for (int j = 0; j < k; ++j) {
      T tp = a.p[j];
      a.p[j] = b.p[j];
      b.p[j] = tp;
      T tc = a.c[j];
      a.c[j] = b.c[j];
      b.c[j] = tc;
    }
    int t = xa;
    xa = xb;
    xb = t;
  }
  int s = xb - xa;
  if (s >= k) return;
  T r[RsFold<K>::CAP];
  RS_UNROLL_K
  for (int j = 0; j < k; ++j) r[j] = rs_sub(b.p[j], rs_bin<T>(xb + j));
  for (int t = 0; t < s; ++t) {
    RS_UNROLL_K
    for (int j = k - 1; j > 0; --j) {
      r[j] = r[j - 1];
      b.c[j] = b.c[j - 1];
    }
    r[0] = (T)0;
    b.c[0] = (T)0;
  }
  RS_UNROLL_K
  for (int j = 0; j < k; ++j) {
    a.p[j] = rs_add(a.p[j], r[j]);
    a.c[j] = rs_add(a.c[j], b.c[j]);
  }
  rs_renorm(a);
}

// Exact merge of b into a (the core's merge); b is clobbered.
template <typename T, int K>
RS_DEV void rs_merge(RsAcc<T, K>& a, RsAcc<T, K>& b) {
  rs_renorm(a);
  rs_renorm(b);
  rs_merge_renormed(a, b);
}

RS_DEV bool rs_is_inf(double y) {
  return (rs_bits(y) & ~RsF<double>::SIGN) == RsF<double>::INF_BITS;
}

// binned_ddmconv: the f64 conversion of a renormalised, non-empty state.
template <int K>
RS_DEV double rs_convert(const RsAcc<double, K>& a) {
  const double* p = a.p;
  const double* c = a.c;
  const int k = a.k.get();
  const int x = rs_window_index(p[0]);
  const double expansion = rs_pow2<double>(14);
  const double down = rs_pow2<double>(-66);
  const double up = rs_pow2<double>(66);
  int scaled = 3 - x;
  if (scaled > k) scaled = k;
  // C_i and P_{i-1} are in the scaled stage for i < t.
  const int t = x <= 3 ? (scaled > 1 ? scaled : 1) : 0;
  double y = 0.0;
  {
    double f = rs_bin_sixth<double>(x);
    if (t > 0) {
      f = rs_mul(f, down);
      if (x == 0) f = rs_mul(f, expansion);
    }
    y = rs_add(y, rs_mul(c[0], f));
  }
  RS_UNROLL_K
  for (int i = 1; i < k; ++i) {
    if (i == t) {
      y = rs_mul(y, up);
      if (rs_is_inf(y)) return y;
    }
    double f = rs_bin_sixth<double>(x + i);
    double g = rs_sub(p[i - 1], rs_bin<double>(x + i - 1));
    if (i < t) {
      f = rs_mul(f, down);
      g = rs_mul(g, down);
      if (i == 1 && x == 0) g = rs_mul(g, expansion);
    }
    y = rs_add(y, rs_mul(c[i], f));
    y = rs_add(y, g);
  }
  double g = rs_sub(p[k - 1], rs_bin<double>(x + k - 1));
  if (t == k) {
    y = rs_add(y, rs_mul(g, down));
    return rs_mul(y, up);
  }
  return rs_add(y, g);
}

// binned_ssmconv: the f32 conversion, computed in f64, rounded once.
template <int K>
RS_DEV float rs_convert(const RsAcc<float, K>& a) {
  const float* p = a.p;
  const float* c = a.c;
  const int k = a.k.get();
  const int x = rs_window_index(p[0]);
  const double expansion = rs_pow2<double>(12);
  double y = 0.0;
  {
    double t0 = rs_mul((double)c[0], (double)rs_bin_sixth<float>(x));
    if (x == 0) t0 = rs_mul(t0, expansion);
    y = rs_add(y, t0);
  }
  RS_UNROLL_K
  for (int i = 1; i < k; ++i) {
    y = rs_add(y, rs_mul((double)c[i], (double)rs_bin_sixth<float>(x + i)));
    double g = (double)rs_sub(p[i - 1], rs_bin<float>(x + i - 1));
    if (i == 1 && x == 0) g = rs_mul(g, expansion);
    y = rs_add(y, g);
  }
  y = rs_add(y, (double)rs_sub(p[k - 1], rs_bin<float>(x + k - 1)));
  return rs_d2f(y);
}

RS_DEV double rs_nan(double) { return rs_from_bits((rs_u64)0x7ff8000000000000ull); }
RS_DEV float rs_nan(float) { return rs_from_bits((rs_u32)0x7fc00000u); }

// The value of a renormalised state (the core's value(); the state must be renormalised).
template <typename T, int K>
RS_DEV T rs_value(const RsAcc<T, K>& a) {
  typedef typename RsF<T>::U U;
  if ((a.flags & RS_FLAG_NAN) || (a.flags & (RS_FLAG_POS_INF | RS_FLAG_NEG_INF)) == (RS_FLAG_POS_INF | RS_FLAG_NEG_INF))
    return rs_nan((T)0);
  if (a.flags & RS_FLAG_POS_INF) return rs_from_bits((U)RsF<T>::INF_BITS);
  if (a.flags & RS_FLAG_NEG_INF) return rs_from_bits((U)(RsF<T>::INF_BITS | RsF<T>::SIGN));
  if (rs_is_zero(a.p[0])) return (T)0;
  return rs_convert<K>(a);
}

// The cumsum replay's cache of the current window: bins and bin/6 of every slot, and the
// magnitude below which a value leaves the window unchanged (index >= top). Valid while the
// window does not move; `fast` is false for an empty state, a state with special values, or
// a window at the top bins (f64: top <= 3, the conversion's scaled stage; f32: top 0), where
// the general path runs.
template <typename T, int K>
struct RsWin {
  typename RsF<T>::U thr;
  T bj[RsFold<K>::CAP];
  T b6[RsFold<K>::CAP];
  bool fast;
};

template <typename T, int K>
RS_DEV void rs_win_set(RsWin<T, K>& w, const RsAcc<T, K>& a) {
  typedef typename RsF<T>::U U;
  w.fast = false;
  w.thr = 0;
  if (rs_is_zero(a.p[0]) || a.flags != 0) return;
  const int top = rs_window_index(a.p[0]);
  if (top <= (sizeof(T) == 8 ? 3 : 0)) return;
  // index(x) < top  <=>  exponent field >= MAX_EXP_FIELD - top * W + 1 (normals; subnormals
  // are always at the bottom). A threshold at or below zero: take the general path.
  const int f = RsF<T>::MAX_EXP_FIELD - top * RsF<T>::W + 1;
  if (f <= 0) return;
  w.thr = (U)((U)f << RsF<T>::MANT);
  const int k = a.k.get();
  RS_UNROLL_K
  for (int j = 0; j < k; ++j) {
    w.bj[j] = rs_bin<T>(top + j);
    w.b6[j] = rs_bin_sixth<T>(top + j);
  }
  w.fast = true;
}

// rs_convert for a window below the top bins, with the cached bins (the same operations in
// the same order as rs_convert's unscaled path).
template <int K>
RS_DEV double rs_convert_win(const RsAcc<double, K>& a, const RsWin<double, K>& w) {
  const int k = a.k.get();
  double y = rs_add(0.0, rs_mul(a.c[0], w.b6[0]));
  RS_UNROLL_K
  for (int i = 1; i < k; ++i) {
    y = rs_add(y, rs_mul(a.c[i], w.b6[i]));
    y = rs_add(y, rs_sub(a.p[i - 1], w.bj[i - 1]));
  }
  return rs_add(y, rs_sub(a.p[k - 1], w.bj[k - 1]));
}

template <int K>
RS_DEV float rs_convert_win(const RsAcc<float, K>& a, const RsWin<float, K>& w) {
  const int k = a.k.get();
  double y = rs_add(0.0, rs_mul((double)a.c[0], (double)w.b6[0]));
  RS_UNROLL_K
  for (int i = 1; i < k; ++i) {
    y = rs_add(y, rs_mul((double)a.c[i], (double)w.b6[i]));
    y = rs_add(y, (double)rs_sub(a.p[i - 1], w.bj[i - 1]));
  }
  y = rs_add(y, (double)rs_sub(a.p[k - 1], w.bj[k - 1]));
  return rs_d2f(y);
}

// A state stored at s[base + j * step], j = 0..2K (flags in slot 2K; K: the state's fold,
// which a load takes from the state it loads into).
template <typename T, int K>
RS_DEV void rs_store(T* s, rs_u64 base, rs_u64 step, const RsAcc<T, K>& a) {
  typedef typename RsF<T>::U U;
  const int k = a.k.get();
  RS_UNROLL_K
  for (int j = 0; j < k; ++j) {
    s[base + (rs_u64)j * step] = a.p[j];
    s[base + (rs_u64)(k + j) * step] = a.c[j];
  }
  s[base + (rs_u64)(2 * k) * step] = rs_from_bits((U)a.flags);
}

template <typename T, int K>
RS_DEV void rs_load(const T* s, rs_u64 base, rs_u64 step, RsAcc<T, K>& a) {
  const int k = a.k.get();
  RS_UNROLL_K
  for (int j = 0; j < k; ++j) {
    a.p[j] = s[base + (rs_u64)j * step];
    a.c[j] = s[base + (rs_u64)(k + j) * step];
  }
  a.flags = (rs_u32)rs_bits(s[base + (rs_u64)(2 * k) * step]);
  a.pending = 0;
}

// Loads written by other blocks of the same launch (after the counter handshake).
template <typename T, int K>
RS_DEV void rs_load_volatile(const volatile T* s, rs_u64 base, RsAcc<T, K>& a) {
  const int k = a.k.get();
  RS_UNROLL_K
  for (int j = 0; j < k; ++j) {
    a.p[j] = s[base + (rs_u64)j];
    a.c[j] = s[base + (rs_u64)(k + j)];
  }
  a.flags = (rs_u32)rs_bits((T)s[base + (rs_u64)(2 * k)]);
  a.pending = 0;
}

// Merges the states of each team of `size` consecutive threads (lane: this thread's place in
// its team) into the team's first thread's registers (the result is renormalised). S holds
// (2K+1) * blockDim values. Every thread reaches every barrier.
template <typename T, int K>
RS_DEV void rs_team_reduce(RsAcc<T, K>& a, T* S, unsigned lane, unsigned size) {
  const unsigned tid = RS_TID, B = RS_BDIM;
  unsigned p2 = 1;
  while (p2 < size) p2 <<= 1;
  rs_renorm(a);
  a.pending = 0;
  rs_store(S, tid, B, a);
  RS_SYNC();
  for (unsigned s = p2 >> 1; s > 0; s >>= 1) {
    if (lane < s && lane + s < size && tid + s < B) {
      RsAcc<T, K> o(a.k);
      rs_load(S, tid + s, B, o);
      rs_merge_renormed(a, o);
      rs_store(S, tid, B, a);
    }
    RS_SYNC();
  }
}

// Merges every thread's state into thread 0's registers (any block size; the result is
// renormalised): the block as one team. S holds (2K+1) * blockDim values. Every thread
// reaches every barrier.
template <typename T, int K>
RS_DEV void rs_block_reduce(RsAcc<T, K>& a, T* S) {
  rs_team_reduce(a, S, RS_TID, RS_BDIM);
}

// The number of raking threads of the block scan (a constant of the algorithm, unrelated
// to the warp width).
#define RS_RAKE 32

// Threads per raking run: ceil(B / min(B, RS_RAKE)), divided by the constant only (an
// integer division by a run-time value compiles to float multiply-adds on AMD, which the
// HIP audit would have to tell apart from the format's arithmetic).
RS_DEV unsigned rs_rake_seg(unsigned B) {
  return B <= RS_RAKE ? 1u : (B + RS_RAKE - 1) / RS_RAKE;
}

// Exclusive scan of the threads' states in thread order: on return, a holds the merge of
// the states of threads 0..tid-1 (empty for thread 0), renormalised. Raking: RS_RAKE
// threads each merge a run of consecutive states, scan the run totals (Hillis-Steele over
// RS_RAKE values), then write every thread's exclusive prefix. S holds (2K+1) * (blockDim +
// RS_RAKE) values. Every thread reaches every barrier.
template <typename T, int K>
RS_DEV void rs_block_exclusive_scan(RsAcc<T, K>& a, T* S) {
  const unsigned tid = RS_TID, B = RS_BDIM;
  const unsigned SB = B + RS_RAKE;  // stride of S: B thread slots, then RS_RAKE run slots
  const unsigned R = B < RS_RAKE ? B : RS_RAKE;
  const unsigned seg = rs_rake_seg(B);
  rs_renorm(a);
  a.pending = 0;
  rs_store(S, tid, SB, a);
  RS_SYNC();
  const bool raker = tid < R;
  const unsigned lo = tid * seg;
  const unsigned hi = lo + seg < B ? lo + seg : B;
  RsAcc<T, K> run(a.k);
  rs_clear(run);
  if (raker) {
    for (unsigned i = lo; i < hi; ++i) {
      RsAcc<T, K> o(a.k);
      rs_load(S, i, SB, o);
      rs_merge_renormed(run, o);
    }
    rs_store(S, B + tid, SB, run);
  }
  RS_SYNC();
  for (unsigned off = 1; off < R; off <<= 1) {
    RsAcc<T, K> o(a.k);
    const bool has = raker && tid >= off;
    if (has) rs_load(S, B + tid - off, SB, o);
    RS_SYNC();
    if (has) {
      rs_merge_renormed(run, o);
      rs_store(S, B + tid, SB, run);
    }
    RS_SYNC();
  }
  if (raker) {
    RsAcc<T, K> pre(a.k);
    if (tid > 0) {
      rs_load(S, B + tid - 1, SB, pre);
    } else {
      rs_clear(pre);
    }
    for (unsigned i = lo; i < hi; ++i) {
      RsAcc<T, K> o(a.k);
      rs_load(S, i, SB, o);
      rs_store(S, i, SB, pre);
      rs_merge_renormed(pre, o);
    }
  }
  RS_SYNC();
  rs_load(S, tid, SB, a);
  RS_SYNC();
}

// Chunks of UNROLL 16-byte vectors per thread and iteration in the sum.
#define RS_UNROLL 4

template <typename T, int K>
RS_DEV void rs_sum_body(const T* x, rs_u64 n, T* states, rs_u32* counter, T* result, RsFold<K> f) {
  RS_DYN_SHARED(rs_smem);
  rs_u32* last_flag = reinterpret_cast<rs_u32*>(rs_smem);
  T* S = reinterpret_cast<T*>(rs_smem + 16);
  const int VEC = RsF<T>::VEC;
  const unsigned tid = RS_TID, B = RS_BDIM;
  const rs_u64 nthreads = RS_GDIM * (rs_u64)B;
  const rs_u64 gtid = RS_BID * (rs_u64)B + tid;
  const int k = f.get();

  RsAcc<T, K> a(f);
  rs_clear(a);

  // Elements before the first 16-byte boundary and after the last whole vector are added
  // one at a time; the rest as 16-byte vectors.
  const rs_u64 mis = ((rs_u64)(reinterpret_cast<unsigned long long>(x)) / sizeof(T)) % (rs_u64)VEC;
  rs_u64 head = mis ? (rs_u64)VEC - mis : 0;
  if (head > n) head = n;
  const T* xv = x + head;
  const rs_u64 nvec = (n - head) / (rs_u64)VEC;
  const rs_u64 tail = head + nvec * (rs_u64)VEC;
  const rs_u64 per_iter = nthreads * RS_UNROLL;
  const rs_u64 full = nvec / per_iter;
  // This thread's vectors of an iteration are `step` values apart; `at`, its first one,
  // moves by RS_UNROLL steps (additions, not a 64-bit product per load).
  const rs_u64 step = nthreads * (rs_u64)VEC;
  rs_u64 at = gtid * (rs_u64)VEC;
  rs_u32 thr = 0;
  for (rs_u64 it = 0; it < full; ++it, at += RS_UNROLL * step) {
    T v[RS_UNROLL * RsF<T>::VEC];
#pragma unroll
    for (int u = 0; u < RS_UNROLL; ++u) {
      T w[RsF<T>::VEC];
      rs_ld16(xv + at + (rs_u64)u * step, w);
#pragma unroll
      for (int e = 0; e < VEC; ++e) v[u * VEC + e] = w[e];
    }
    rs_add_chunk_thr(a, v, thr);
  }
  for (rs_u64 vi = full * per_iter + gtid; vi < nvec; vi += nthreads) {
    T w[RsF<T>::VEC];
    rs_ld16(xv + vi * (rs_u64)VEC, w);
    rs_add_chunk(a, w);
  }
  for (rs_u64 i = gtid; i < head; i += nthreads) rs_add_one(a, x[i]);
  for (rs_u64 i = tail + gtid; i < n; i += nthreads) rs_add_one(a, x[i]);

  rs_block_reduce(a, S);
  if (RS_GDIM == 1) {
    // One block: its total is the sum.
    if (tid == 0) {
      rs_store(result, 0, 1, a);
      result[2 * k + 1] = rs_value(a);
    }
    return;
  }
  if (tid == 0) {
    rs_store(states, RS_BID * (rs_u64)(2 * k + 1), 1, a);
    RS_FENCE();
    rs_u32 prev = RS_ATOMIC_ADD_U32(counter, 1u);
    *last_flag = (prev == (rs_u32)(RS_GDIM - 1)) ? 1u : 0u;
  }
  RS_SYNC();
  if (*last_flag) {
    RS_FENCE();
    RsAcc<T, K> b(f);
    rs_clear(b);
    const volatile T* vs = states;
    for (rs_u64 i = tid; i < RS_GDIM; i += B) {
      RsAcc<T, K> o(f);
      rs_load_volatile(vs, i * (rs_u64)(2 * k + 1), o);
      rs_merge(b, o);
    }
    rs_block_reduce(b, S);
    if (tid == 0) {
      rs_renorm(b);
      rs_store(result, 0, 1, b);
      result[2 * k + 1] = rs_value(b);
      *counter = 0;
    }
  }
}

// Tiles per group of the tiles' prefix tree (a power of two; the emulator sets a small
// one to cross many groups with short inputs). Level 0 holds the tiles' states, level 1
// (after them in the same array) one state per group.
#ifndef RS_GROUP
#define RS_GROUP 256
#endif

// Groups of the prefix tree for `ntiles` tiles (a constant divisor: a shift).
RS_DEV rs_u64 rs_groups(rs_u64 ntiles) {
  return (ntiles + RS_GROUP - 1) / RS_GROUP;
}

// Exclusive scan, in place, of the `cnt` states at s (state i at s[i * (2K + 1)]): state i
// becomes the merge of states 0..i-1 (renormalised). With `total`, the last thread also
// writes the merge of all of them there. Each thread takes a run of consecutive states;
// the runs' totals are scanned with rs_block_exclusive_scan (S: its shared memory). The
// states may have been written by other blocks of this launch: volatile loads, after the
// caller's fence. Every state stored here and by the reduce kernels is renormalised.
// Every thread reaches every barrier.
template <typename T, int K>
RS_DEV void rs_scan_states(T* s, rs_u64 cnt, T* total, T* S, RsFold<K> f) {
  const unsigned tid = RS_TID, B = RS_BDIM;
  const rs_u64 st = 2 * f.get() + 1;
  rs_u64 m = 1;  // states per thread: a power of two at least cnt / B (no run-time division)
  while (m * B < cnt) m <<= 1;
  const rs_u64 lo = tid * m < cnt ? tid * m : cnt;
  const rs_u64 hi = lo + m < cnt ? lo + m : cnt;
  const volatile T* vs = s;
  RsAcc<T, K> a(f);
  rs_clear(a);
  for (rs_u64 i = lo; i < hi; ++i) {
    RsAcc<T, K> o(f);
    rs_load_volatile(vs, i * st, o);
    rs_merge_renormed(a, o);
  }
  rs_block_exclusive_scan(a, S);
  for (rs_u64 i = lo; i < hi; ++i) {
    RsAcc<T, K> o(f);
    rs_load_volatile(vs, i * st, o);
    rs_store(s, i * st, 1, a);
    rs_merge_renormed(a, o);
  }
  if (total && tid == B - 1) {  // the merge of every run (the last thread's run ends them)
    rs_renorm(a);
    rs_store(total, 0, 1, a);
  }
}

// The prefix state of tile t (the merge of tiles 0..t-1) after the reduce pass, at pre's fold.
template <typename T, int K>
RS_DEV void rs_tile_prefix(const T* tiles, rs_u64 ntiles, rs_u64 t, RsAcc<T, K>& pre) {
  const rs_u64 st = 2 * pre.k.get() + 1;
  RsAcc<T, K> g(pre.k);
  rs_load(tiles, t * st, 1, pre);
  rs_load(tiles, (ntiles + t / RS_GROUP) * st, 1, g);
  rs_merge_renormed(pre, g);  // both stored renormalised
}

// Merges the start state (if any: null for none) into a renormalised prefix. The start is
// stored renormalised (the hosts upload the core's encoding's primaries and carries); the
// exact merge of renormalised states does not depend on their order, so a tile's prefix is
// the start's values and the tiles' before it, whichever is merged into which.
template <typename T, int K>
RS_DEV void rs_merge_start(const T* start, RsAcc<T, K>& pre) {
  if (!start) return;
  RsAcc<T, K> s(pre.k);
  rs_load(start, 0, 1, s);
  rs_merge_renormed(pre, s);
}

// Shared-memory position of tile element i (one pad slot every E elements: conflict-free
// reads of each thread's E consecutive elements).
template <int E>
RS_DEV unsigned rs_pad(unsigned i) {
  return i + i / E;
}

// A conversion's f64 result in the type of the values (f32: rounded once).
RS_DEV double rs_narrow(double y, double) { return y; }
RS_DEV float rs_narrow(double y, float) { return rs_d2f(y); }

// 1 / q for a power of two q (a normal f64 whose inverse is normal), from the exponent
// field: no division (a division would be a sequence of FMAs on AMD).
RS_DEV double rs_inv_pow2(double q) {
  return rs_from_bits((rs_u64)(2046u - (unsigned)(rs_bits(q) >> 52)) << 52);
}

// Splits an exact slot total t (grid units of a slot whose carry unit is q, |t / q| < 2^51)
// into the remainder in [0, q) and the number of whole q below it (the core's scan split).
RS_DEV void rs_split(double t, double q, double inv_q, double& rem, double& whole) {
  const double round = 6755399441055744.0;  // 1.5 * 2^52: adding and subtracting rounds to an integer
  const double u = rs_mul(t, inv_q);         // exact: q is a power of two
  double r = rs_sub(rs_add(u, round), round);
  if (r > u) r = rs_sub(r, 1.0);  // floor
  whole = r;
  rem = rs_sub(t, rs_mul(r, q));
}

// The largest tile the fixed-window scan takes: a slot total of the tile's pieces plus a
// remainder must stay exact in f64 (pieces are below 2^(W-1) grid units, remainders below
// 2^(p-3)): f64 needs tile * 2^39 + 2^50 < 2^53; f32 totals are far inside.
template <typename T>
RS_DEV rs_u64 rs_fast_tile_max() {
  return sizeof(T) == 8 ? 8192u : 1048576u;
}

// The state of tile `t` (general: any values, any tile length).
template <typename T, int K, int E>
RS_DEV void rs_tile_reduce_one(const T* x, rs_u64 n, T* tiles, rs_u64 t, RsFold<K> f) {
  RS_DYN_SHARED(rs_smem);
  T* S = reinterpret_cast<T*>(rs_smem + 16);
  const unsigned tid = RS_TID, B = RS_BDIM;
  const rs_u64 tile = (rs_u64)B * E;
  const rs_u64 base = t * tile;
  RsAcc<T, K> a(f);
  rs_clear(a);
  if (base + tile <= n) {
    T v[E];
#pragma unroll
    for (int j = 0; j < E; ++j) v[j] = x[base + (rs_u64)j * B + tid];
    rs_add_chunk(a, v);
  } else {
    for (int j = 0; j < E; ++j) {
      const rs_u64 i = base + (rs_u64)j * B + tid;
      if (i < n) rs_add_one(a, x[i]);
    }
  }
  rs_block_reduce(a, S);
  if (tid == 0) rs_store(tiles, t * (rs_u64)(2 * f.get() + 1), 1, a);
}

// The general tile state over every tile (list null) or over the *count tiles that
// rs_tile_reduce_fixed_body listed (grid-stride over the list; any grid size).
template <typename T, int K, int E>
RS_DEV void rs_tile_reduce_body(const T* x, rs_u64 n, T* tiles, const rs_u32* count, const rs_u32* list,
                                RsFold<K> f) {
  // One call site (the body is large): without a list, this block's tile only.
  const rs_u64 cnt = list ? (rs_u64)*count : RS_BID + 1;
#pragma unroll 1
  for (rs_u64 i = RS_BID; i < cnt; i += RS_GDIM) {
    rs_tile_reduce_one<T, K, E>(x, n, tiles, list ? (rs_u64)list[i] : i, f);
    RS_SYNC();  // the next tile reuses the shared memory
  }
}

// The largest tile whose per-thread exclusive sums of pieces the reduce pass hands to the
// scan pass, stored in T: a sum of fewer than `tile` pieces, each below 2^(W-1) grid units,
// must stay below 2^p units (f32: 4096 * 2^12 = 2^24; f64: 8192 * 2^39 = 2^52).
template <typename T>
RS_DEV rs_u64 rs_reuse_tile_max() {
  return sizeof(T) == 8 ? 8192u : 4096u;
}

// No window recorded for a tile (the scan pass takes its pieces itself).
#define RS_TOP_NONE 0xFFFFFFFFu

// A tile the fixed-window reduce cannot take: appended to `list` (*count counts) for
// rs_tile_reduce_body, with no handed sums for the scan pass. (Taking it here on the
// general path instead would cost the kernel registers at fold 3: measured, sm_90.)
template <typename T>
RS_DEV void rs_tile_reduce_other(rs_u32* count, rs_u32* list, rs_u32* tops) {
  if (RS_TID == 0) {
    if (tops) tops[RS_BID] = RS_TOP_NONE;
    list[RS_ATOMIC_ADD_U32(count, 1u)] = (rs_u32)RS_BID;
  }
}

RS_DEV bool rs_aligned16(const void* p) {
  return (reinterpret_cast<unsigned long long>(p) & 15u) == 0;
}

// The fixed-window kernels' run layout in shared memory: thread r's run of E consecutive
// tile elements occupies [r * E, r * E + E) as E / VEC 16-byte vectors, in an order that
// depends on r (vector u at slot u XOR a few bits of r), so that both the coalesced copy
// (consecutive vectors to consecutive threads) and the threads' reads of their runs (one
// vector per thread) touch distinct banks. rs_vec_pos: where vector u of run r starts.
template <typename T, int E>
RS_DEV unsigned rs_vec_pos(unsigned r, unsigned u) {
  const unsigned VEC = RsF<T>::VEC, CPR = E / VEC;
  return r * E + ((u ^ (r * CPR / 8)) & (CPR - 1)) * VEC;
}

// Where tile element i is in the run layout.
template <typename T, int E>
RS_DEV unsigned rs_run_pos(unsigned i) {
  const unsigned VEC = RsF<T>::VEC;
  return rs_vec_pos<T, E>(i / E, (i % E) / VEC) + i % VEC;
}

// Whether a tile of cnt values at x moves as 16-byte vectors (a whole, aligned tile).
template <typename T, int E>
RS_DEV bool rs_tile_vec(const T* x, unsigned cnt) {
  return rs_aligned16(x) && cnt == RS_BDIM * (unsigned)E;
}

// Loads a tile of cnt <= B * E values (x: the tile's first value) into registers,
// coalesced: 16-byte vectors for a whole tile at a 16-byte aligned x (then every vector is;
// v[u * VEC + e] is element e of the thread's vector u * B + tid), else one value at a time
// (v[j] is element j * B + tid; zero past cnt, which adds nothing to a state with a
// window). rs_put stores them in shared memory in the run layout.
template <typename T, int E>
RS_DEV void rs_fetch(const T* x, unsigned cnt, T (&v)[E]) {
  const unsigned tid = RS_TID, B = RS_BDIM;
  const int VEC = RsF<T>::VEC;
  if (rs_tile_vec<T, E>(x, cnt)) {
#pragma unroll
    for (int u = 0; u < E / VEC; ++u) {
      T w[RsF<T>::VEC];
      rs_ld16(x + (rs_u64)((unsigned)u * B + tid) * VEC, w);
#pragma unroll
      for (int e = 0; e < VEC; ++e) v[u * VEC + e] = w[e];
    }
  } else {
#pragma unroll
    for (int j = 0; j < E; ++j) {
      const unsigned i = (unsigned)j * B + tid;
      v[j] = i < cnt ? x[i] : (T)0;
    }
  }
}

// Stores what rs_fetch loaded from x into shared memory in the run layout, then (SYNC) a
// barrier.
template <typename T, int E, bool SYNC = true>
RS_DEV void rs_put(const T* x, unsigned cnt, const T (&v)[E], T* vals) {
  const unsigned tid = RS_TID, B = RS_BDIM;
  const int VEC = RsF<T>::VEC;
  if (rs_tile_vec<T, E>(x, cnt)) {
#pragma unroll
    for (int u = 0; u < E / VEC; ++u) {
      const unsigned c = (unsigned)u * B + tid;  // the vector's number in the tile
      T w[RsF<T>::VEC];
#pragma unroll
      for (int e = 0; e < VEC; ++e) w[e] = v[u * VEC + e];
      rs_st16(vals + rs_vec_pos<T, E>(c / (E / VEC), c % (E / VEC)), w);
    }
  } else {
#pragma unroll
    for (int j = 0; j < E; ++j) vals[rs_run_pos<T, E>((unsigned)j * B + tid)] = v[j];
  }
  if (SYNC) RS_SYNC();
}

// The reverse: a barrier, then the tile's first cnt values from shared memory (run layout)
// to global memory.
template <typename T, int E>
RS_DEV void rs_stage_out(const T* vals, T* out, unsigned cnt) {
  const unsigned tid = RS_TID, B = RS_BDIM;
  const int VEC = RsF<T>::VEC;
  RS_SYNC();
  if (rs_tile_vec<T, E>(out, cnt)) {
#pragma unroll
    for (int u = 0; u < E / VEC; ++u) {
      const unsigned c = (unsigned)u * B + tid;
      T w[RsF<T>::VEC];
      rs_ld16(vals + rs_vec_pos<T, E>(c / (E / VEC), c % (E / VEC)), w);
      rs_st16(out + (rs_u64)c * VEC, w);
    }
  } else {
#pragma unroll
    for (int j = 0; j < E; ++j) {
      const unsigned i = (unsigned)j * B + tid;
      if (i < cnt) out[i] = vals[rs_run_pos<T, E>(i)];
    }
  }
}

// Where thread i's sums are in each slot's row of rs_block_exclusive_parts's D: one pad
// double every 16 (128 bytes), so that the raking threads' strided reads and writes fall in
// distinct banks.
RS_DEV unsigned rs_part_pos(unsigned i) {
  return i + i / 16;
}

// Doubles per slot in rs_block_exclusive_parts's D: a padded row, then the runs' totals.
RS_DEV unsigned rs_part_row(unsigned B) {
  return B + B / 16 + 1;
}

// The fixed-window kernels' shared memory: a 16-byte header (unused), K * (rs_part_row(B) +
// RS_RAKE) doubles (rs_block_exclusive_parts), B + RS_RAKE magnitudes (rs_block_max), a
// state (the scan's prefix), then (from the next 16-byte boundary) the tile in the run
// layout (B * E values).
template <typename T>
struct RsFixedSmem {
  double* D;
  typename RsF<T>::U* M;
  T* pre;
  T* vals;
};

template <typename T, int K>
RS_DEV RsFixedSmem<T> rs_fixed_smem(unsigned char* smem) {
  typedef typename RsF<T>::U U;
  const unsigned B = RS_BDIM;
  RsFixedSmem<T> f;
  f.D = reinterpret_cast<double*>(smem + 16);
  f.M = reinterpret_cast<U*>(f.D + (rs_u64)K * (rs_part_row(B) + RS_RAKE));
  f.pre = reinterpret_cast<T*>(f.M + B + RS_RAKE);
  const rs_u64 at = (rs_u64)(reinterpret_cast<unsigned char*>(f.pre) - smem) + (rs_u64)(2 * K + 1) * sizeof(T);
  f.vals = reinterpret_cast<T*>(smem + ((at + 15) & ~(rs_u64)15));
  return f;
}

// The largest magnitude of run r, as rs_key_mag of its largest key (the same bin, and the
// same comparisons with INF_BITS and the window thresholds, as the largest magnitude).
template <typename T, int E>
RS_DEV typename RsF<T>::U rs_run_max(const T* vals, unsigned r) {
  rs_u32 mx = 0;
#pragma unroll
  for (int u = 0; u < E / RsF<T>::VEC; ++u) {
    T w[RsF<T>::VEC];
    rs_ld16(vals + rs_vec_pos<T, E>(r, u), w);
#pragma unroll
    for (int e = 0; e < RsF<T>::VEC; ++e) {
      const rs_u32 m = rs_mag_key(w[e]);
      mx = m > mx ? m : mx;
    }
  }
  return rs_key_mag<T>(mx);
}

// Raking threads of rs_block_max (at most RS_RAKE).
#define RS_MAX_RAKE 16

// The block's largest magnitude (raking), returned to every thread: RS_MAX_RAKE threads
// each take a run of the threads' values, then every thread reads the runs' maxima. M holds
// B + RS_RAKE magnitudes. Every thread reaches every barrier; the first one also publishes
// what the threads stored in shared memory before the call.
template <typename T>
RS_DEV typename RsF<T>::U rs_block_max(typename RsF<T>::U mx, typename RsF<T>::U* M) {
  typedef typename RsF<T>::U U;
  const unsigned tid = RS_TID, B = RS_BDIM;
  const unsigned R = B < RS_MAX_RAKE ? B : RS_MAX_RAKE;
  const unsigned seg = B <= RS_MAX_RAKE ? 1u : (B + RS_MAX_RAKE - 1) / RS_MAX_RAKE;
  M[tid] = mx;
  RS_SYNC();
  if (tid < R) {
    const unsigned a = tid * seg, e = a + seg < B ? a + seg : B;
    U m = 0;
    for (unsigned i = a; i < e; ++i) m = M[i] > m ? M[i] : m;
    M[B + tid] = m;
  }
  RS_SYNC();
  U m = 0;
#pragma unroll
  for (unsigned r = 0; r < RS_MAX_RAKE; ++r) {
    const U v = r < R ? M[B + r] : 0;  // a constant bound: the loads overlap
    m = v > m ? v : m;
  }
  return m;
}

// The pieces per slot against the window, summed over run r (exact in T: E pieces below
// 2^(W-1) grid units). A value at or above the window's threshold sends the tile elsewhere,
// so what its pieces are does not matter.
//
// The deposit itself (rs_deposit): each slot's running value m starts at the slot's reference
// B_j and takes q = m + low1(v), v keeping v + (m - q); the last slot only adds. m stays on
// the slot's grid in B_j's binade (E pieces below 2^(W-1) grid units each, far from the
// binade's edge), so q - m is the piece (B_j + low1(v)) - B_j would give: the rounding of
// low1(v) to the grid, which cannot tie (low1 sets a bit far below half the grid). The parts
// are then m - B_j, exact (both in one binade). Three float operations per slot and one for
// the last, against four per slot in the form that subtracts each piece from its part.
template <typename T, int K, int E>
RS_DEV void rs_parts(const T* vals, unsigned r, const RsWin<T, K>& w, T (&part)[K]) {
  RsAcc<T, K> a;
#pragma unroll
  for (int j = 0; j < K; ++j) a.p[j] = w.bj[j];
#pragma unroll
  for (int u = 0; u < E / RsF<T>::VEC; ++u) {
    T x[RsF<T>::VEC];
    rs_ld16(vals + rs_vec_pos<T, E>(r, u), x);
#pragma unroll
    for (int e = 0; e < RsF<T>::VEC; ++e) rs_deposit(a, x[e]);
  }
#pragma unroll
  for (int j = 0; j < K; ++j) part[j] = rs_sub(a.p[j], w.bj[j]);
}

// Raking threads of rs_block_exclusive_parts (at most RS_RAKE): about the square root of
// the usual block, so that the two serial stages are short.
#define RS_PART_RAKE 16

// Block-wide exclusive sums of the threads' parts (raking: R threads each scan a run of
// threads, then add the runs before theirs): on return D[j * rs_part_row(B) +
// rs_part_pos(tid)] is the sum of slot j's parts of the threads before tid (the last
// thread's plus its own parts: the block's totals). Every sum is exact (integers times the
// slot's grid), so any order and any association gives the same bits. D holds
// K * (rs_part_row(B) + RS_PART_RAKE) doubles. Every thread reaches every barrier.
template <typename T, int K>
RS_DEV void rs_block_exclusive_parts(const T (&part)[K], double* D) {
  const unsigned tid = RS_TID, B = RS_BDIM;
  const unsigned R = B < RS_PART_RAKE ? B : RS_PART_RAKE;
  const unsigned seg = B <= RS_PART_RAKE ? 1u : (B + RS_PART_RAKE - 1) / RS_PART_RAKE;
  const unsigned SB = rs_part_row(B);
  double* TOT = D + K * SB;  // TOT[j * R + r]: run r's total of slot j
#pragma unroll
  for (int j = 0; j < K; ++j) D[j * SB + rs_part_pos(tid)] = (double)part[j];
  RS_SYNC();
  if (tid < R) {
    const unsigned a = tid * seg, e = a + seg < B ? a + seg : B;
    double run[K];
#pragma unroll
    for (int j = 0; j < K; ++j) run[j] = 0.0;
    for (unsigned i = a; i < e; ++i) {
#pragma unroll
      for (int j = 0; j < K; ++j) {
        const double v = D[j * SB + rs_part_pos(i)];
        D[j * SB + rs_part_pos(i)] = run[j];
        run[j] = rs_add(run[j], v);
      }
    }
#pragma unroll
    for (int j = 0; j < K; ++j) TOT[j * R + tid] = run[j];
  }
  RS_SYNC();
  if (tid < R) {
    const unsigned a = tid * seg, e = a + seg < B ? a + seg : B;
    // The runs before this one, in two interleaved sums (exact, so their order is free).
    double o0[K], o1[K];
#pragma unroll
    for (int j = 0; j < K; ++j) o0[j] = o1[j] = 0.0;
#pragma unroll
    for (unsigned r = 0; r < RS_PART_RAKE; r += 2) {  // a constant bound: the loads overlap
#pragma unroll
      for (int j = 0; j < K; ++j) {
        if (r < tid) o0[j] = rs_add(o0[j], TOT[j * R + r]);
        if (r + 1 < tid) o1[j] = rs_add(o1[j], TOT[j * R + r + 1]);
      }
    }
    for (unsigned i = a; i < e; ++i) {
#pragma unroll
      for (int j = 0; j < K; ++j) D[j * SB + rs_part_pos(i)] = rs_add(D[j * SB + rs_part_pos(i)], rs_add(o0[j], o1[j]));
    }
  }
  RS_SYNC();
}

// A thread's start: the prefix state's slots plus the sums st of the pieces before the
// thread, split into remainders rem in [0, q) and carry terms ct = C * q (the carry unit of
// slot j is q_j = B_j / 6, w.b6).
template <typename T, int K>
RS_DEV void rs_start(const RsAcc<T, K>& pre, const RsWin<T, K>& w, const double (&st)[K], T (&rem)[K], double (&ct)[K]) {
#pragma unroll
  for (int j = 0; j < K; ++j) {
    const double q = (double)w.b6[j];
    const double t = rs_add((double)rs_sub(pre.p[j], w.bj[j]), st[j]);
    double r, whole;
    rs_split(t, q, rs_inv_pow2(q), r, whole);
    rem[j] = (T)r;  // exact: a multiple of the grid below q
    ct[j] = rs_mul(rs_add((double)pre.c[j], whole), q);
  }
}

// Replays run r from its start: running slot totals kept in [0, q) by moving whole q into
// the carry (rare), each converted in rs_convert_win's order with the carry terms computed
// once per carry change; the cumulative sums replace the values.
template <typename T, int K, int E>
RS_DEV void rs_replay(T* vals, unsigned r, const RsWin<T, K>& w, T (&rem)[K], double (&ct)[K]) {
  typedef typename RsF<T>::U U;
  const int VEC = RsF<T>::VEC;
  double head = rs_add(rs_add(0.0, ct[0]), ct[1]);
  // One vector per iteration, not unrolled: as fast on the H200 as the whole run unrolled
  // (measured), with a fraction of the code and registers.
#pragma unroll 1
  for (int u = 0; u < E / VEC; ++u) {
    T* at = vals + rs_vec_pos<T, E>(r, u);
    T x[RsF<T>::VEC];
    rs_ld16(at, x);
#pragma unroll
    for (int e = 0; e < VEC; ++e) {
      T v = x[e];
      bool out_of_range = false;
#pragma unroll
      for (int j = 0; j < K; ++j) {
        const T d = rs_sub(w.bj[j], rs_add(w.bj[j], rs_low1(v)));
        rem[j] = rs_sub(rem[j], d);
        if (j + 1 < K) v = rs_add(v, d);
        // Outside [0, q) as bits: a negative remainder has the sign bit set. (A -0
        // remainder counts as outside; its split leaves it as it is.)
        out_of_range |= rs_bits(rem[j]) >= (U)rs_bits(w.b6[j]);
      }
      if (out_of_range) {
#pragma unroll
        for (int j = 0; j < K; ++j) {
          const double q = (double)w.b6[j];
          double r, whole;
          rs_split((double)rem[j], q, rs_inv_pow2(q), r, whole);
          rem[j] = (T)r;
          ct[j] = rs_add(ct[j], rs_mul(whole, q));  // exact: integers times a power of two
        }
        head = rs_add(rs_add(0.0, ct[0]), ct[1]);
      }
      // rs_convert_win's order: C0, C1, P0, then (C_i, P_{i-1}), then P_{K-1}.
      double y = rs_add(head, (double)rem[0]);
#pragma unroll
      for (int j = 2; j < K; ++j) {
        y = rs_add(y, ct[j]);
        y = rs_add(y, (double)rem[j - 1]);
      }
      y = rs_add(y, (double)rem[K - 1]);
      x[e] = rs_narrow(y, (T)0);
    }
    rs_st16(at, x);
  }
}

// The state of a tile whose largest magnitude gives a window with a cached conversion
// (see RsWin; no NaN or Inf): the window starts at that magnitude's bin (as rs_update puts
// it), every value's pieces are taken against the window's bins, the block sums them per
// slot exactly, and the last thread writes the renormalised state (remainder in [0, q),
// carry the number of whole q), which is the state any order of deposits reaches. Each
// thread takes the run of E consecutive values tid * E.. of the tile (as the scan pass
// does). Other tiles are appended to `list` (*count counts) for rs_tile_reduce_body.
// With `parts` (and `tops`), the pass also hands the scan pass what it would compute again:
// parts[(t * K + j) * blockDim + tid] the sum of slot j's pieces of the runs before tid's,
// and tops[t] the window's top bin (RS_TOP_NONE where it records none).
// Shared memory: see rs_fixed_smem.
template <typename T, int K, int E>
RS_DEV void rs_tile_reduce_fixed_body(const T* x, rs_u64 n, T* tiles, rs_u32* count, rs_u32* list, T* parts,
                                      rs_u32* tops) {
  typedef typename RsF<T>::U U;
  RS_DYN_SHARED(rs_smem);
  const unsigned tid = RS_TID, B = RS_BDIM;
  const RsFixedSmem<T> sm = rs_fixed_smem<T, K>(rs_smem);
  const rs_u64 tile = (rs_u64)B * E;
  const rs_u64 base = RS_BID * tile;
  if (tile > rs_fast_tile_max<T>()) {  // the same for every thread
    rs_tile_reduce_other<T>(count, list, tops);
    return;
  }
  // The last tile may be partial: zeros stand for the values past n (a zero adds nothing
  // once the window exists, and no window comes from a zero that a value would not give).
  const unsigned cnt = (unsigned)(n - base < tile ? n - base : tile);
  rs_u32 mx = 0;  // the largest key of this thread's share (any share will do)
  {
    T v[E];
    rs_fetch<T, E>(x + base, cnt, v);
#pragma unroll
    for (int j = 0; j < E; ++j) {
      const rs_u32 m = rs_mag_key(v[j]);
      mx = m > mx ? m : mx;
    }
    rs_put<T, E, false>(x + base, cnt, v, sm.vals);
  }
  // rs_block_max's first barrier publishes the tile.
  const U top_mag = rs_block_max<T>(rs_key_mag<T>(mx), sm.M);
  RsAcc<T, K> s;
  rs_clear(s);
  RsWin<T, K> w;
  w.fast = false;
  if (top_mag < RsF<T>::INF_BITS) {
    rs_update(s, rs_index<T>(top_mag));
    rs_win_set(w, s);
  }
  if (!w.fast) {  // the same for every thread
    rs_tile_reduce_other<T>(count, list, tops);
    return;
  }
  T part[K];
  rs_parts<T, K, E>(sm.vals, tid, w, part);
  rs_block_exclusive_parts<T, K>(part, sm.D);
  const bool hand = parts && tile <= rs_reuse_tile_max<T>();
  if (hand) {
#pragma unroll
    for (int j = 0; j < K; ++j) {
      parts[(RS_BID * K + j) * B + tid] = (T)sm.D[j * rs_part_row(B) + rs_part_pos(tid)];  // exact (see above)
    }
  }
  if (tid == B - 1) {
    if (tops) tops[RS_BID] = hand ? (rs_u32)rs_window_index(s.p[0]) : RS_TOP_NONE;
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const double q = (double)w.b6[j];
      double rem, whole;
      rs_split(rs_add(sm.D[j * rs_part_row(B) + rs_part_pos(tid)], (double)part[j]), q, rs_inv_pow2(q), rem, whole);
      s.p[j] = rs_add(w.bj[j], (T)rem);  // exact: the remainder is below q = B / 6
      s.c[j] = (T)whole;
    }
    rs_store(tiles, RS_BID * (rs_u64)(2 * K + 1), 1, s);
  }
}

// The fixed-window tile scan, for a tile (not the first, which the host has the general
// kernel scan alone, beside the other passes) whose prefix state has a cached window (see
// RsWin) that no value of the tile raises. Every value's pieces are then
// taken against the window's bins, independent of the state (as in the core's scan). Each
// thread takes the run of E consecutive values tid * E.. and needs the sums of the pieces of
// the runs before it: when the reduce pass recorded them for this window (tops[t] is the
// prefix's top bin), it reads them from `parts`; otherwise each thread sums its own pieces
// per slot and the block scans those sums exactly (integers times the slot's grid, so any
// order). Each thread then replays its run from its own start (rs_replay).
// A tile that does not qualify writes nothing to `out`: thread 0 appends its number to
// `list` (*count counts) for rs_tile_scan_body. Only this path is in this kernel, so that it
// keeps few registers (occupancy). The prefix state (rs_tile_prefix, then the start state
// when there is one) is merged by thread 0 alone and read by the others from shared memory;
// whether its window qualifies is decided on that merged prefix.
// Shared memory: see rs_fixed_smem.
template <typename T, int K, int E>
RS_DEV void rs_tile_scan_fixed_body(const T* x, T* out, rs_u64 n, const T* prefixes, const T* start, rs_u64 ntiles,
                                    rs_u32* count, rs_u32* list, const T* parts, const rs_u32* tops) {
  RS_DYN_SHARED(rs_smem);
  const unsigned tid = RS_TID, B = RS_BDIM;
  const RsFixedSmem<T> sm = rs_fixed_smem<T, K>(rs_smem);
  const rs_u64 tile = (rs_u64)B * E;
  const rs_u64 base = RS_BID * tile;

  if (RS_BID == 0) return;  // tile 0: the host runs rs_tile_scan_body on it alone
  if (tile > rs_fast_tile_max<T>()) {
    if (tid == 0) list[RS_ATOMIC_ADD_U32(count, 1u)] = (rs_u32)RS_BID;
    return;
  }
  // The last tile may be partial: zeros stand for the values past n (they come after every
  // value, so no output depends on them, and none is written).
  const unsigned cnt = (unsigned)(n - base < tile ? n - base : tile);
  // Every load this thread needs, at once (one memory latency): its share of the tile, the
  // handed sums (and thread 0: the prefix's two states).
  T v[E];
  rs_fetch<T, E>(x + base, cnt, v);
  T handed[K];
  rs_u32 top = RS_TOP_NONE;
  if (parts) {
#pragma unroll
    for (int j = 0; j < K; ++j) handed[j] = parts[(RS_BID * K + j) * B + tid];
    top = tops[RS_BID];
  }
  rs_put<T, E, false>(x + base, cnt, v, sm.vals);
  if (tid == 0) {  // after the stores above: the tile's values need no registers now
    RsAcc<T, K> p;
    rs_tile_prefix<T, K>(prefixes, ntiles, RS_BID, p);
    rs_merge_start<T, K>(start, p);
    rs_store(sm.pre, 0, 1, p);  // renormalised (a merge's result)
  }
  RS_SYNC();
  RsAcc<T, K> pre;
  rs_load(sm.pre, 0, 1, pre);
  RsWin<T, K> w;
  rs_win_set(w, pre);
  if (!w.fast) {  // the same for every thread of the block
    if (tid == 0) list[RS_ATOMIC_ADD_U32(count, 1u)] = (rs_u32)RS_BID;
    return;
  }
  double st[K];
  if (top == (rs_u32)rs_window_index(pre.p[0])) {  // the same for the block
    // The reduce pass took this tile's pieces against this window: its largest magnitude
    // gave this top bin, so no value raises the window.
#pragma unroll
    for (int j = 0; j < K; ++j) st[j] = (double)handed[j];
  } else {
    if (rs_block_max<T>(rs_run_max<T, E>(sm.vals, tid), sm.M) >= w.thr) {
      // A value raises the window (or is NaN or Inf): the same for all.
      if (tid == 0) list[RS_ATOMIC_ADD_U32(count, 1u)] = (rs_u32)RS_BID;
      return;
    }
    T part[K];
    rs_parts<T, K, E>(sm.vals, tid, w, part);
    rs_block_exclusive_parts<T, K>(part, sm.D);
#pragma unroll
    for (int j = 0; j < K; ++j) st[j] = sm.D[j * rs_part_row(B) + rs_part_pos(tid)];
  }
  T rem[K];
  double ct[K];
  rs_start<T, K>(pre, w, st, rem, ct);
  rs_replay<T, K, E>(sm.vals, tid, w, rem, ct);
  rs_stage_out<T, E>(sm.vals, out + base, cnt);
}

// The general tile scan, for tile `t`: per-thread segment states, a block-wide exclusive
// scan of states, then each thread replays its E elements, writing value(prefix) after each.
// The tile's prefix is the tiles' before it (none: empty) merged with `start` (null: none).
template <typename T, int K, int E>
RS_DEV void rs_tile_scan_one(const T* x, T* out, rs_u64 n, const T* prefixes, const T* start, rs_u64 ntiles,
                             rs_u64 t, RsFold<K> f) {
  RS_DYN_SHARED(rs_smem);
  const unsigned tid = RS_TID, B = RS_BDIM;
  T* S = reinterpret_cast<T*>(rs_smem + 16);
  T* vals = S + (2 * f.get() + 1) * (B + RS_RAKE);
  const rs_u64 tile = (rs_u64)B * E;
  const rs_u64 base = t * tile;
  const rs_u64 rem = n - base;
  const unsigned cnt = (unsigned)(rem < tile ? rem : tile);
#pragma unroll
  for (int j = 0; j < E; ++j) {
    const unsigned i = (unsigned)j * B + tid;
    if (i < cnt) vals[rs_pad<E>(i)] = x[base + i];
  }
  RS_SYNC();
  const unsigned lo = tid * (unsigned)E;
  RsAcc<T, K> a(f);
  rs_clear(a);
  if (lo + E <= cnt) {
    T v[E];
#pragma unroll
    for (int j = 0; j < E; ++j) v[j] = vals[rs_pad<E>(lo + j)];
    rs_add_chunk(a, v);
  } else {
    for (unsigned i = lo; i < cnt; ++i) rs_add_one(a, vals[rs_pad<E>(i)]);
  }
  rs_block_exclusive_scan(a, S);
  RsAcc<T, K> pre(f);
  if (prefixes) {
    rs_tile_prefix<T, K>(prefixes, ntiles, t, pre);
  } else {
    rs_clear(pre);
  }
  rs_merge_start<T, K>(start, pre);
  rs_merge(pre, a);
  const unsigned hi = lo + E < cnt ? lo + E : cnt;
  // Each element: the state after it, renormalised, converted. The common case (no special
  // value, window unchanged) deposits and converts with the cached window; anything else
  // takes the general path and refreshes the cache. Both give the same state and bits.
  RsWin<T, K> w;
  rs_win_set(w, pre);
#pragma unroll 1
  for (unsigned i = lo; i < hi; ++i) {
    const unsigned at = rs_pad<E>(i);
    const T x = vals[at];
    if (w.fast && (rs_bits(x) & ~RsF<T>::SIGN) < w.thr) {
      rs_deposit(pre, x);
      rs_renorm(pre);
      vals[at] = rs_convert_win<K>(pre, w);
    } else {
      rs_add_one(pre, x);
      rs_renorm(pre);
      pre.pending = 0;
      vals[at] = rs_value(pre);
      rs_win_set(w, pre);
    }
  }
  RS_SYNC();
#pragma unroll
  for (int j = 0; j < E; ++j) {
    const unsigned i = (unsigned)j * B + tid;
    if (i < cnt) out[base + i] = vals[rs_pad<E>(i)];
  }
}

// The general tile scan over every tile (list null: tile = block) or over the *count tiles
// that rs_tile_scan_fixed_body listed (grid-stride over the list; any grid size).
template <typename T, int K, int E>
RS_DEV void rs_tile_scan_body(const T* x, T* out, rs_u64 n, const T* prefixes, const T* start, rs_u64 ntiles,
                              const rs_u32* count, const rs_u32* list, RsFold<K> f) {
  // One call site (the body is large): without a list, this block's tile only.
  const rs_u64 cnt = list ? (rs_u64)*count : RS_BID + 1;
#pragma unroll 1
  for (rs_u64 i = RS_BID; i < cnt; i += RS_GDIM) {
    rs_tile_scan_one<T, K, E>(x, out, n, prefixes, start, ntiles, list ? (rs_u64)list[i] : i, f);
    RS_SYNC();  // the next tile reuses the shared memory
  }
}

// The tiles' prefix tree, after the reduce pass: blocks scan groups of RS_GROUP tile states
// in place (grid-stride: any grid) and write their totals to level 1; the last block to
// finish (ctl[2] counts them, atomics and fences) scans level 1 in place. Then the prefix of
// tile t is the merge of two states (rs_tile_prefix). ctl[2] is reset by that block, and
// block 0 zeroes the tile lists' counts (ctl[0]: the reduce pass's, read by now; ctl[1]:
// the scan pass's, about to be counted), so a call needs no memset.
// Shared memory: 16 bytes, then (2K + 1) (blockDim + RS_RAKE) values.
template <typename T, int K>
RS_DEV void rs_tile_prefixes_body(T* tiles, rs_u64 ntiles, rs_u32* ctl, RsFold<K> f) {
  RS_DYN_SHARED(rs_smem);
  rs_u32* flag = reinterpret_cast<rs_u32*>(rs_smem);
  T* S = reinterpret_cast<T*>(rs_smem + 16);
  const unsigned tid = RS_TID, B = RS_BDIM;
  const rs_u64 st = 2 * f.get() + 1;
  const rs_u64 ng = rs_groups(ntiles);
  T* level1 = tiles + ntiles * st;
  if (RS_BID == 0 && tid == 0) {
    ctl[0] = 0;
    ctl[1] = 0;
  }
#pragma unroll 1
  for (rs_u64 g = RS_BID; g < ng; g += RS_GDIM) {
    const rs_u64 first = g * RS_GROUP;
    const rs_u64 size = ntiles - first < RS_GROUP ? ntiles - first : RS_GROUP;
    // The next group may reuse S at once: a scan's first and last accesses to it are each
    // thread's own slot.
    rs_scan_states<T, K>(tiles + first * st, size, level1 + g * st, S, f);
  }
  if (tid == B - 1) {  // the thread that wrote this block's totals
    RS_FENCE();
    *flag = RS_ATOMIC_ADD_U32(ctl + 2, 1u) + 1u == (rs_u32)RS_GDIM ? 1u : 0u;
  }
  RS_SYNC();
  if (!*flag) return;  // the same for every thread
  RS_FENCE();
  rs_scan_states<T, K>(level1, ng, (T*)0, S, f);
  if (tid == 0) ctl[2] = 0;
}

// ---- Segmented sums: the sum of each group of a flat span, in one pass over the values -----
//
// Groups (RsGroups) are segments (offsets: group g is [off[g], off[g + 1])) or the rows of a
// matrix (offsets null: row g is [g * stride, g * stride + cols); the positions between a
// row's end and the next row's begin are skipped). rs_seg_prep, first, finds the group of
// each tile's first position (tiles of blockDim * RsF<T>::SEG_E positions of rs_seg_sum)
// and checks the offsets. A group of more positions than a tile (at least lmin) is long.
// The long groups, and every group of segments that begins in a sparse chunk (few groups in
// m tiles: RsGroups::sparse), are block groups: rs_seg_long adds them as the sum adds, in
// chunks of m tiles (per-thread states over 16-byte loads, a block merge for each piece of a
// block group in a chunk), writing a group within a chunk and leaving the pieces of one that
// crosses chunks (lheads, ltails). The other groups (short) are rs_seg_sum's, over the tiles
// that rs_seg_list lists (those holding a position of a short group; a block group's
// positions are a gap to it and are not read). A tile that one
// group holds whole is added as the sum adds (any order, a block merge). Otherwise each
// thread adds its E consecutive positions group by group, writes the sum of every group that
// begins and ends within its positions, and hands the state of the group still open at its
// end to a segmented block scan (rs_seg_block_scan), after which the thread where a group
// ends (that began earlier in the tile) writes its sum. A short group crossing tiles leaves
// per-tile pieces: `tails[t]` (the piece of the group open at the end of tile t, from its
// begin or the tile's start) and `heads[t]` (the piece of the group holding the tile's first
// position, when it began before the tile). rs_seg_join merges the pieces of every group
// that crosses tiles or chunks and writes empty groups' +0. With offsets the host has not
// read, the kernels after rs_seg_prep take its verdict (rs_seg_bad) and do nothing when the
// offsets are bad. Every group's sum is the merge of exact states of its values, so its bits
// are those of the core's sum of the group alone, whatever the tiles, chunks, blocks or grid.

// The groups of a segmented sum. With `lmin` (not 0), some groups are rs_seg_long's (block
// groups): every group of at least lmin positions (a long group), and, for segments, every
// group that begins in a sparse chunk (chunk c of m tiles, csize positions, is sparse when
// the groups from tile_first[c * m], the one holding its first position, to tile_first[c * m
// + m], the one holding the position after it, number at most m / 2 + 1, with m >= 2: so few
// that rs_seg_long adds each of them as a piece, cheaper than rs_seg_sum's tiles; a pure
// function of tile_first, so every kernel sees the same groups as block groups). end() (the
// view of rs_seg_sum and of the join's short pieces) gives a block group's begin, so that its
// positions are a gap there; end_all() is the true end.
struct RsGroups {
  const rs_u64* off;
  rs_u64 nseg, stride, cols, lmin;
  const rs_u64* tile_first;
  rs_u64 ntiles, m, csize;
  RS_MEMBER rs_u64 begin(rs_u64 g) const { return off ? off[g] : g * stride; }
  RS_MEMBER rs_u64 end_all(rs_u64 g) const { return off ? off[g + 1] : g * stride + cols; }
  RS_MEMBER bool is_long(rs_u64 g) const { return lmin != 0 && end_all(g) - begin(g) >= lmin; }
  // The chunk of tile t (tiles number below 2^31 and m at most 256: a 32-bit division).
  RS_MEMBER rs_u64 chunk_of(rs_u64 t) const { return m >= 2 ? (rs_u64)((rs_u32)t / (rs_u32)m) : 0; }
  // The last group that may meet chunk c (the one holding the position after it, or the last).
  RS_MEMBER rs_u64 chunk_last(rs_u64 c) const { return c * m + m < ntiles ? tile_first[c * m + m] : nseg - 1; }
  RS_MEMBER bool sparse(rs_u64 c) const {
    if (lmin == 0 || !off || m < 2 || c * m >= ntiles) return false;
    return chunk_last(c) - tile_first[c * m] <= m / 2;
  }
  // Whether g, a group that meets chunk c, is a block group. A short group that meets chunk c
  // began in it or in the chunk before (it is no longer than a tile), so no division finds
  // the chunk it began in.
  RS_MEMBER bool is_block(rs_u64 g, rs_u64 c) const {
    if (is_long(g)) return true;
    return m >= 2 && sparse(begin(g) >= c * csize || c == 0 ? c : c - 1);
  }
  RS_MEMBER rs_u64 end(rs_u64 g, rs_u64 c) const { return is_block(g, c) ? begin(g) : end_all(g); }
  // end(g, c) given sp = sparse(c): no load of tile_first for a group begun in chunk c.
  RS_MEMBER rs_u64 end_at(rs_u64 g, rs_u64 c, bool sp) const {
    const rs_u64 b = begin(g);
    if (is_long(g)) return b;
    const bool blk = b >= c * csize || c == 0 ? sp : m >= 2 && sparse(c - 1);
    return blk ? b : end_all(g);
  }
  // The begin of the next group (none: the largest position).
  RS_MEMBER rs_u64 next(rs_u64 g) const { return g + 1 < nseg ? begin(g + 1) : ~(rs_u64)0; }
  // The last group that begins at or before p (the group holding p, or the row whose gap
  // holds p); begin(0) is 0.
  RS_MEMBER rs_u64 find(rs_u64 p) const {
    rs_u64 lo = 0, hi = nseg;
    while (hi - lo > 1) {
      const rs_u64 mid = lo + (hi - lo) / 2;
      if (begin(mid) <= p) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
};

RS_DEV RsGroups rs_seg_groups(const rs_u64* off, rs_u64 nseg, rs_u64 stride, rs_u64 cols) {
  RsGroups G;
  G.off = off;
  G.nseg = nseg;
  G.stride = stride;
  G.cols = cols;
  G.lmin = 0;
  G.tile_first = 0;
  G.ntiles = 0;
  G.m = 0;
  G.csize = 0;
  return G;
}

// The groups with the block groups (the long ones, at least lmin positions, lmin > the short
// tile; and those of the sparse chunks of m tiles) left to rs_seg_long.
RS_DEV RsGroups rs_seg_groups_long(const rs_u64* off, rs_u64 nseg, rs_u64 stride, rs_u64 cols, rs_u64 lmin,
                                   const rs_u64* tile_first, rs_u64 ntiles, rs_u64 tile, rs_u64 m) {
  RsGroups G = rs_seg_groups(off, nseg, stride, cols);
  G.lmin = lmin;
  G.tile_first = tile_first;
  G.ntiles = ntiles;
  G.m = m;
  G.csize = m * tile;
  return G;
}

// Checks the segment offsets off[0..=nseg] (the first 0, none below the one before, the last
// n, none longer than cap): err[0] = 1 for a bad offset, err[1] = 1 for a segment past the
// capacity (both zeroed by the host; only ever set). Grid-stride over the segments: any grid.
RS_DEV void rs_seg_check(const rs_u64* off, rs_u64 nseg, rs_u64 n, rs_u64 cap, rs_u32* err) {
  const rs_u64 nthreads = RS_GDIM * (rs_u64)RS_BDIM;
  for (rs_u64 g = RS_BID * (rs_u64)RS_BDIM + RS_TID; g < nseg; g += nthreads) {
    const rs_u64 b = off[g], e = off[g + 1];
    if (e < b || (g == 0 && b != 0) || (g + 1 == nseg && e != n)) err[0] = 1u;
    if (e >= b && e - b > cap) err[1] = 1u;
  }
}

// Checks segment offsets (off non-null: the first 0, none below the one before, the last n,
// none longer than cap; err[0] = 1 for a bad offset, err[1] = 1 for a segment past the
// capacity; both zeroed by the host) and writes tile_first[t], the group of position t * tile.
RS_KERNEL void rs_seg_prep(const rs_u64* off, rs_u64 nseg, rs_u64 stride, rs_u64 cols, rs_u64 n, rs_u64 cap,
                           rs_u64 tile, rs_u64 ntiles, rs_u64* tile_first, rs_u32* err) {
  const RsGroups G = rs_seg_groups(off, nseg, stride, cols);
  const rs_u64 nthreads = RS_GDIM * (rs_u64)RS_BDIM;
  const rs_u64 gtid = RS_BID * (rs_u64)RS_BDIM + RS_TID;
  if (off) rs_seg_check(off, nseg, n, cap, err);
  for (rs_u64 t = gtid; t < ntiles; t += nthreads) tile_first[t] = G.find(t * tile);
}

// Segmented exclusive scan of the threads' states in thread order: `fresh` (a thread whose
// open group began in it, or that has none) starts a new run. On return a holds the merge of
// the states of the threads from the last fresh one before it up to the one before it
// (renormalised; empty after a fresh thread's predecessor... of thread 0). Raking, as
// rs_block_exclusive_scan. S holds (2K + 1) (blockDim + RS_RAKE) values, F blockDim +
// RS_RAKE words. Every thread reaches every barrier.
template <typename T, int K>
RS_DEV void rs_seg_block_scan(RsAcc<T, K>& a, bool fresh, T* S, rs_u32* F) {
  const unsigned tid = RS_TID, B = RS_BDIM;
  const unsigned SB = B + RS_RAKE;
  const unsigned R = B < RS_RAKE ? B : RS_RAKE;
  const unsigned seg = rs_rake_seg(B);
  rs_renorm(a);
  a.pending = 0;
  rs_store(S, tid, SB, a);
  F[tid] = fresh ? 1u : 0u;
  RS_SYNC();
  const bool raker = tid < R;
  const unsigned lo = tid * seg;
  const unsigned hi = lo + seg < B ? lo + seg : B;
  RsAcc<T, K> run(a.k);
  rs_clear(run);
  rs_u32 rf = 0;
  if (raker) {
    for (unsigned i = lo; i < hi; ++i) {
      RsAcc<T, K> o(a.k);
      rs_load(S, i, SB, o);
      if (F[i]) {
        run = o;
        rf = 1u;
      } else {
        rs_merge_renormed(run, o);
      }
    }
    rs_store(S, B + tid, SB, run);
    F[B + tid] = rf;
  }
  RS_SYNC();
  for (unsigned off = 1; off < R; off <<= 1) {
    RsAcc<T, K> o(a.k);
    rs_u32 of = 0;
    const bool has = raker && tid >= off;
    if (has) {
      rs_load(S, B + tid - off, SB, o);
      of = F[B + tid - off];
    }
    RS_SYNC();
    if (has) {
      if (!rf) rs_merge_renormed(run, o);
      rf |= of;
      rs_store(S, B + tid, SB, run);
      F[B + tid] = rf;
    }
    RS_SYNC();
  }
  if (raker) {
    RsAcc<T, K> pre(a.k);
    if (tid > 0) {
      rs_load(S, B + tid - 1, SB, pre);
    } else {
      rs_clear(pre);
    }
    for (unsigned i = lo; i < hi; ++i) {
      RsAcc<T, K> o(a.k);
      rs_load(S, i, SB, o);
      const rs_u32 fi = F[i];
      rs_store(S, i, SB, pre);
      if (fi) {
        pre = o;
      } else {
        rs_merge_renormed(pre, o);
      }
    }
  }
  RS_SYNC();
  rs_load(S, tid, SB, a);  // no barrier after: the one caller does not use S again
}

// The value of a state (renormalised first).
template <typename T, int K>
RS_DEV T rs_finish(RsAcc<T, K>& a) {
  rs_renorm(a);
  a.pending = 0;
  return rs_value(a);
}

// Shared memory of rs_seg_sum: 16 bytes, blockDim group numbers, the scan's (2K + 1)
// (blockDim + RS_RAKE) values, the tile (blockDim * (E + 1) values, padded), the scan's
// blockDim + RS_RAKE flags.
// The positions [ts + la, ts + lb) of tile t (ts = t * tile, cnt positions) hold every
// position of the tile that a short group (not a block group) holds. In a sparse chunk every
// group that begins in the tile is a block group: only ga = tile_first[t], begun in an
// earlier chunk, can be short there, from the tile's start. Otherwise: before la, the gap of
// ga (a block group's positions, or a row's gap); from lb, a long group that begins in the
// tile and goes on past it (tile_first[t + 1]: with lmin above the tile, no other long group
// meets the tile, and in a chunk that is not sparse the block groups that begin there are the
// long ones). la >= lb: the tile has nothing for rs_seg_sum.
// Also sp = G.sparse(ct) (ct: the tile's chunk) and ea = G.end(ga, ct), for the callers.
RS_DEV void rs_seg_short_range(const RsGroups& G, const rs_u64* tile_first, rs_u64 ntiles, rs_u64 t, rs_u64 ts,
                               unsigned cnt, unsigned& la, unsigned& lb, bool& sp, rs_u64& ea) {
  const rs_u64 ga = tile_first[t];
  const rs_u64 ct = G.chunk_of(t);
  sp = G.sparse(ct);
  ea = G.end_at(ga, ct, sp);
  if (sp) {
    la = 0;
    lb = ea > ts ? (unsigned)(ea - ts < cnt ? ea - ts : cnt) : 0u;
    return;
  }
  const rs_u64 na = G.next(ga);
  la = ea <= ts ? (unsigned)(na - ts < cnt ? na - ts : cnt) : 0u;
  lb = cnt;
  if (t + 1 < ntiles) {
    const rs_u64 gb = tile_first[t + 1];
    const rs_u64 bz = G.begin(gb);
    if (gb != ga && bz > ts && bz < ts + cnt && G.is_long(gb)) lb = (unsigned)(bz - ts);
  }
}

// The end of a group that begins in a tile of a chunk that is not sparse (a block group's
// begin, a short group's end); with G.lmin = 1, that of one that begins in a sparse chunk.
RS_DEV rs_u64 rs_seg_end_in(const RsGroups& G, rs_u64 g) { return G.is_long(g) ? G.begin(g) : G.end_all(g); }

// The offsets' verdict that rs_seg_prep wrote earlier on the stream (err[0]: a bad offset,
// err[1]: a segment past the capacity), for the segmented sum's kernels after it: each
// returns at once when either is set, so that bad offsets leave every output untouched
// without the host reading the verdict between the launches. Null: nothing to check (the
// host checked the offsets, or there are none).
RS_DEV bool rs_seg_bad(const rs_u32* err) { return err != 0 && (err[0] | err[1]) != 0u; }

// The tiles of `tile` positions that hold a position of a short group, appended to `list`
// (*count counts; zeroed by the host) for rs_seg_sum. Grid-stride: any grid. Nothing when
// rs_seg_bad(err).
RS_KERNEL void rs_seg_list(const rs_u64* off, rs_u64 nseg, rs_u64 stride, rs_u64 cols, rs_u64 lmin, rs_u64 span,
                           rs_u64 tile, rs_u64 ntiles, rs_u64 m, const rs_u64* tile_first, rs_u32* count,
                           rs_u32* list, const rs_u32* err) {
  if (rs_seg_bad(err)) return;
  const RsGroups G = rs_seg_groups_long(off, nseg, stride, cols, lmin, tile_first, ntiles, tile, m);
  const rs_u64 nthreads = RS_GDIM * (rs_u64)RS_BDIM;
  for (rs_u64 t = RS_BID * (rs_u64)RS_BDIM + RS_TID; t < ntiles; t += nthreads) {
    const rs_u64 ts = t * tile;
    const rs_u64 left = span > ts ? span - ts : 0;
    const unsigned cnt = (unsigned)(left < tile ? left : tile);
    unsigned la, lb;
    bool sp;
    rs_u64 ea;
    rs_seg_short_range(G, tile_first, ntiles, t, ts, cnt, la, lb, sp, ea);
    if (la < lb) list[RS_ATOMIC_ADD_U32(count, 1u)] = (rs_u32)t;
  }
}

template <typename T, int K, int E>
RS_DEV void rs_seg_sum_body(const T* x, RsGroups G, rs_u64 span, const rs_u64* tile_first, rs_u64 ntiles,
                            rs_u64 t, T* heads, T* tails, T* out, RsFold<K> f) {
  RS_DYN_SHARED(rs_smem);
  const unsigned tid = RS_TID, B = RS_BDIM;
  const rs_u64 st = 2 * f.get() + 1;
  rs_u64* tfirst = reinterpret_cast<rs_u64*>(rs_smem + 16);
  T* S = reinterpret_cast<T*>(tfirst + B);
  T* vals = S + st * (B + RS_RAKE);
  rs_u32* F = reinterpret_cast<rs_u32*>(vals + (rs_u64)B * (E + 1));
  const rs_u64 tile = (rs_u64)B * E;
  const rs_u64 ts = t * tile;
  const rs_u64 left = span > ts ? span - ts : 0;
  const unsigned cnt = (unsigned)(left < tile ? left : tile);
  // Each thread's first position's group: the groups that meet the tile mark the threads
  // whose first position they hold (tile_first[t]: the group of the tile's first position;
  // the groups after it begin after it).
  const rs_u64 ga = tile_first[t];
  const rs_u64 gb = t + 1 < ntiles ? tile_first[t + 1] : G.nseg - 1;
  // Only the positions [la, lb) can hold a short group's: the others are not read.
  unsigned la, lb;
  bool sp;
  rs_u64 ea;
  rs_seg_short_range(G, tile_first, ntiles, t, ts, cnt, la, lb, sp, ea);
  if (la >= lb) return;  // the same for every thread
  // Every group but ga meeting the tile begins in it: in a sparse chunk, each is a block
  // group, as a long one (lmin 1) is for rs_seg_end_in; ga's end is ea.
  if (sp) G.lmin = 1;
  if (cnt > 0 && G.begin(ga) <= ts && ea >= ts + cnt && G.next(ga) >= ts + cnt) {
    // One group holds the whole tile (the same for every thread): the values in any order,
    // per-thread states and a block merge, as the sum.
    RsAcc<T, K> a(f);
    rs_clear(a);
    if (cnt == tile) {
      const int M = RsF<T>::TILE_E;
#pragma unroll 1
      for (int c = 0; c < E; c += M) {
        T v[M];
#pragma unroll
        for (int j = 0; j < M; ++j) v[j] = x[ts + (rs_u64)(c + j) * B + tid];
        rs_add_chunk(a, v);
      }
    } else {
      for (unsigned i = tid; i < cnt; i += B) rs_add_one(a, x[ts + i]);
    }
    rs_block_reduce(a, S);
    if (tid == 0) {
      const rs_u64 b = G.begin(ga), e = ea;
      if (b == ts && e == ts + cnt) {
        out[ga] = rs_finish(a);
      } else {
        rs_renorm(a);
        if (b < ts) rs_store(heads, t * st, 1, a);
        if (e > ts + cnt) rs_store(tails, t * st, 1, a);
      }
    }
    return;
  }
  for (rs_u64 g = ga + tid; g <= gb; g += B) {
    const rs_u64 b = G.begin(g), nb = G.next(g);
    const rs_u64 lo = b > ts ? (b - ts < cnt ? b - ts : cnt) : 0;
    const rs_u64 hi = nb - ts < cnt ? nb - ts : cnt;  // nb > ts for every g >= ga
    for (rs_u64 j = (lo + E - 1) / E; j * E < hi; ++j) tfirst[j] = g;
  }
#pragma unroll
  for (int j = 0; j < E; ++j) {
    const unsigned i = (unsigned)j * B + tid;
    if (i >= la && i < lb) vals[rs_pad<E>(i)] = x[ts + i];  // the others are never read
  }
  RS_SYNC();
  const unsigned lo = tid * (unsigned)E;
  const unsigned hi = lo + E < cnt ? lo + E : cnt;
  RsAcc<T, K> cur(f), head(f);
  rs_clear(cur);
  rs_clear(head);
  bool brk = false;   // the thread's first group, begun before it, ended in it: `head`
  bool fresh = true;  // the group open at the thread's end began in it, or there is none
  bool open = false;  // a group is open at the thread's end (its piece in `cur`)
  rs_u64 g = 0, first_g = 0;
  if (lo < hi) {
    g = tfirst[tid];
    first_g = g;
    rs_u64 e = g == ga ? ea : rs_seg_end_in(G, g), nb = G.next(g);
    const rs_u64 p0 = ts + lo;
    bool before = G.begin(g) < p0;  // the current group began before this thread
    if (hi - lo == (unsigned)E && nb > ts + hi - 1 && e >= ts + hi) {
      // One group holds every position: chunks.
      const int M = RsF<T>::TILE_E;
#pragma unroll 1
      for (int c = 0; c < E; c += M) {
        T v[M];
#pragma unroll
        for (int j = 0; j < M; ++j) v[j] = vals[rs_pad<E>(lo + c + j)];
        rs_add_chunk(cur, v);
      }
      if (e == ts + hi) {
        if (before) {
          head = cur;
          brk = true;
        } else {
          out[g] = rs_finish(cur);
        }
        rs_clear(cur);
      }
    } else {
#pragma unroll 1
      for (unsigned i = lo; i < hi; ++i) {
        const rs_u64 p = ts + i;
        if (p >= nb) {  // a later group begins at or before p (empty ones skipped)
          do {
            ++g;
          } while (g + 1 < G.nseg && G.begin(g + 1) <= p);
          e = rs_seg_end_in(G, g);  // g > ga
          nb = G.next(g);
          before = false;
        }
        if (p < e) {
          rs_add_one(cur, vals[rs_pad<E>(i)]);
          if (p + 1 == e) {
            if (before) {
              head = cur;
              brk = true;
            } else {
              out[g] = rs_finish(cur);
            }
            rs_clear(cur);
            before = false;
          }
        }
      }
    }
    open = ts + hi < e;
    fresh = !(open && before);
  }
  RsAcc<T, K> mine = cur;
  rs_seg_block_scan(cur, fresh, S, F);  // cur: the open group's state in the threads before
  if (brk) {
    rs_renorm(head);
    rs_merge_renormed(cur, head);
    if (G.begin(first_g) >= ts) {
      out[first_g] = rs_finish(cur);
    } else {
      rs_store(heads, t * st, 1, cur);
    }
  }
  if (open && hi == cnt) {
    // The last thread with positions: its group goes on past the tile.
    rs_renorm(mine);
    if (fresh) {
      cur = mine;
    } else {
      rs_merge_renormed(cur, mine);
    }
    rs_store(tails, t * st, 1, cur);
    if (G.begin(g) < ts) rs_store(heads, t * st, 1, cur);
  }
}

// rs_seg_sum: the tiles rs_seg_list listed, grid-stride (any grid; their order does not
// matter: each tile writes only its own pieces and the groups it ends).
template <typename T, int K, int E>
RS_DEV void rs_seg_sum_tiles(const T* x, RsGroups G, rs_u64 span, const rs_u64* tile_first, rs_u64 ntiles,
                             const rs_u32* count, const rs_u32* list, T* heads, T* tails, T* out, RsFold<K> f) {
  const rs_u64 n = *count;
#pragma unroll 1
  for (rs_u64 i = RS_BID; i < n; i += RS_GDIM) {
    rs_seg_sum_body<T, K, E>(x, G, span, tile_first, ntiles, list[i], heads, tails, out, f);
    RS_SYNC();  // the next tile's block merge writes S, which the scan above reads last
  }
}

// Adds the n values at xp (any alignment) into the states of B threads (this one is number
// tid of them), as the sum adds: the values before the first 16-byte boundary and after the
// last whole vector one at a time, the rest as 16-byte vectors, RS_UNROLL of them per
// thread and chunk (BATCH_END: the vectors left at the end and the values before and after
// them in one round of loads). No barrier.
template <bool BATCH_END = false, typename T, int K>
RS_DEV void rs_range_add(RsAcc<T, K>& a, const T* xp, rs_u64 n, unsigned tid, unsigned B) {
  const int VEC = RsF<T>::VEC;
  const rs_u64 mis = ((rs_u64)(reinterpret_cast<unsigned long long>(xp)) / sizeof(T)) % (rs_u64)VEC;
  rs_u64 head = mis ? (rs_u64)VEC - mis : 0;
  if (head > n) head = n;
  const T* xv = xp + head;
  const rs_u64 nvec = (n - head) / (rs_u64)VEC;
  const rs_u64 tail = head + nvec * (rs_u64)VEC;
  const rs_u64 per_iter = (rs_u64)B * RS_UNROLL;
  const rs_u64 full = nvec / per_iter;
  // As in rs_sum_body: this thread's vectors of an iteration are `step` values apart.
  const rs_u64 step = (rs_u64)B * (rs_u64)VEC;
  rs_u64 at = (rs_u64)tid * (rs_u64)VEC;
  rs_u32 thr = rs_add_thr(a);
#pragma unroll 1
  for (rs_u64 it = 0; it < full; ++it, at += RS_UNROLL * step) {
    T v[RS_UNROLL * RsF<T>::VEC];
#pragma unroll
    for (int u = 0; u < RS_UNROLL; ++u) {
      T w[RsF<T>::VEC];
      rs_ld16(xv + at + (rs_u64)u * step, w);
#pragma unroll
      for (int e = 0; e < VEC; ++e) v[u * VEC + e] = w[e];
    }
    rs_add_chunk_thr(a, v, thr);
  }
  if constexpr (!BATCH_END) {
    for (rs_u64 vi = full * per_iter + tid; vi < nvec; vi += B) {
      T w[RsF<T>::VEC];
      rs_ld16(xv + vi * (rs_u64)VEC, w);
      rs_add_chunk(a, w);
    }
    for (rs_u64 i = tid; i < head; i += B) rs_add_one(a, xp[i]);
    for (rs_u64 i = tail + tid; i < n; i += B) rs_add_one(a, xp[i]);
  } else {
    // BATCH_END: the last part step as one more: this thread's vectors left (at most
    // RS_UNROLL: fewer than per_iter are left; zeros in place of the others, which deposit
    // nothing) and its first value before the boundary and after the last vector, all
    // loaded before any is added, so that their loads are in flight together (one after
    // another, a range's end costs as many waits on memory as a full step's loads). Then the
    // head and the tail, in the order a loop over them would add them. The dense path's f64
    // pieces take it (H100, 2026-12-07 22:12-22:31: rs_seg_dense_teams 6% faster at an
    // average of 500, rs_seg_dense within 1%); f32 does not: its zeros cost deposits that
    // f32's issue rate cannot spare (rs_seg_dense 12% slower at an average of 2000, 1.5-2.5%
    // faster at 1e4; rs_seg_dense_teams 11% slower at 500), and one more step of the main
    // loop with the vectors past the range masked cost every step (6-8% slower at 1e4).
    const rs_u64 v0 = full * per_iter + tid;
    T v[RS_UNROLL * RsF<T>::VEC];
#pragma unroll
    for (int u = 0; u < RS_UNROLL; ++u) {
      T w[RsF<T>::VEC];
      const rs_u64 vi = v0 + (rs_u64)u * B;
      if (vi < nvec) {
        rs_ld16(xv + vi * (rs_u64)VEC, w);
      } else {
#pragma unroll
        for (int e = 0; e < VEC; ++e) w[e] = (T)0;
      }
#pragma unroll
      for (int e = 0; e < VEC; ++e) v[u * VEC + e] = w[e];
    }
    const bool h1 = tid < head, t1 = tail + tid < n;
    const T hv = h1 ? xp[tid] : (T)0, tv = t1 ? xp[tail + tid] : (T)0;
    if (v0 < nvec) rs_add_chunk_thr(a, v, thr);
    if (h1) rs_add_one(a, hv);
    for (rs_u64 i = tid + B; i < head; i += B) rs_add_one(a, xp[i]);  // blocks under VEC threads
    if (t1) rs_add_one(a, tv);
    for (rs_u64 i = tail + tid + B; i < n; i += B) rs_add_one(a, xp[i]);
  }
}

// rs_range_add over every thread of the block.
template <typename T, int K>
RS_DEV void rs_block_add_range(RsAcc<T, K>& a, const T* xp, rs_u64 n) {
  rs_range_add(a, xp, n, RS_TID, RS_BDIM);
}

// Element i * B + tid of a chunk of rs_rows_short_body (nr rows from xr, columns c0..c0 + C)
// into v[i]: row (i * B + tid) / C, column c0 + (i * B + tid) % C (zero past the row's end
// or the last row).
template <typename T, int C>
RS_DEV void rs_rows_fetch(const T* xr, rs_u64 nr, rs_u64 cols, rs_u64 stride, rs_u64 c0, T (&v)[C]) {
  const unsigned tid = RS_TID, B = RS_BDIM;
#pragma unroll
  for (int i = 0; i < C; ++i) {
    const unsigned e = (unsigned)i * B + tid;
    const rs_u64 row = e / C, col = c0 + e % C;
    v[i] = row < nr && col < cols ? xr[row * stride + col] : (T)0;
  }
}

// The sums of many short rows (row r is x[r * stride .. r * stride + cols)): one thread per
// row, each adding its row alone into its own state; an empty row gives +0. The bits are the
// core's sum of the row alone, as every path's. A block takes blockDim consecutive rows
// (grid-stride over such groups, any grid and block) in chunks of C = RS_UNROLL * VEC
// columns (64 bytes of each row): the block loads a chunk of its rows coalesced (consecutive
// threads, consecutive values of a row, then the next row's) into shared memory, one padded
// row of C + 1 values per thread (conflict-free reads of a row's values), and each thread
// adds its row's C values as the sum adds a chunk; the next chunk's loads are issued before
// that. The last chunk, of fewer than C columns, is added one value at a time (no padding:
// a zero added to an empty state would not be the row's sum). For rows of a few hundred
// values at most (the host's choice): a thread adds its row serially. Shared memory: 16
// bytes, then blockDim * (C + 1) values. Every thread reaches every barrier (the chunks
// are the same for every row).
template <typename T, int K>
RS_DEV void rs_rows_short_body(const T* x, rs_u64 rows, rs_u64 cols, rs_u64 stride, T* out, RsFold<K> f) {
  RS_DYN_SHARED(rs_smem);
  T* S = reinterpret_cast<T*>(rs_smem + 16);
  const int C = RS_UNROLL * RsF<T>::VEC;
  const unsigned tid = RS_TID, B = RS_BDIM;
  const rs_u64 nchunks = (cols + C - 1) / C;
#pragma unroll 1
  for (rs_u64 r0 = RS_BID * (rs_u64)B; r0 < rows; r0 += RS_GDIM * (rs_u64)B) {
    const rs_u64 nr = rows - r0 < B ? rows - r0 : B;
    RsAcc<T, K> a(f);
    rs_clear(a);
    rs_u32 thr = 0;  // rs_add_thr(a), kept by rs_add_chunk_thr
    T v[C];
    if (nchunks) rs_rows_fetch(x + r0 * stride, nr, cols, stride, 0, v);
#pragma unroll 1
    for (rs_u64 c = 0; c < nchunks; ++c) {
      RS_SYNC();  // every thread has read the chunk before from S
#pragma unroll
      for (int i = 0; i < C; ++i) {
        const unsigned e = (unsigned)i * B + tid;
        S[(e / C) * (C + 1) + e % C] = v[i];
      }
      RS_SYNC();
      const rs_u64 c0 = c * C;
      if (c + 1 < nchunks) rs_rows_fetch(x + r0 * stride, nr, cols, stride, c0 + C, v);
      const T* mine = S + tid * (C + 1);
      if (tid < nr) {
        if (cols - c0 >= (rs_u64)C) {
          T w[C];
#pragma unroll
          for (int j = 0; j < C; ++j) w[j] = mine[j];
          rs_add_chunk_thr(a, w, thr);
        } else {
          for (int j = 0; j < (int)(cols - c0); ++j) rs_add_one(a, mine[j]);
        }
      }
    }
    if (tid < nr) out[r0 + tid] = cols ? rs_finish(a) : (T)0;
  }
}

// Threads per row of rs_rows_long (a constant of the algorithm, unrelated to the warp width).
#define RS_ROW_TEAM 32

// The sums of many long rows (row r is x[r * stride .. r * stride + cols)): a team of
// RS_ROW_TEAM consecutive threads adds each row (fewer if the block is smaller), as the sum
// adds (per-thread states over 16-byte loads), then the teams merge their threads' states
// at once (a tree in shared memory) and each team's first thread writes its row's sum; an
// empty row gives +0. A block takes blockDim / RS_ROW_TEAM consecutive rows at a time
// (grid-stride over such groups, any grid; threads past the last whole team only take part
// in the barriers). The bits are the core's sum of the row alone, as every path's. Shared
// memory: 16 bytes, then (2K + 1) blockDim values. Every thread reaches every barrier (the
// groups of rows are the same for the whole block).
template <typename T, int K>
RS_DEV void rs_rows_long_body(const T* x, rs_u64 rows, rs_u64 cols, rs_u64 stride, T* out, RsFold<K> f) {
  RS_DYN_SHARED(rs_smem);
  T* S = reinterpret_cast<T*>(rs_smem + 16);
  const unsigned tid = RS_TID, B = RS_BDIM;
  const unsigned size = B < RS_ROW_TEAM ? B : RS_ROW_TEAM;
  const unsigned teams = B / size, team = tid / size, lane = tid % size;
#pragma unroll 1
  for (rs_u64 r0 = RS_BID * (rs_u64)teams; r0 < rows; r0 += RS_GDIM * (rs_u64)teams) {
    const rs_u64 r = r0 + team;
    const bool mine = team < teams && r < rows;
    RsAcc<T, K> a(f);
    rs_clear(a);
    if (mine) rs_range_add(a, x + r * stride, cols, lane, size);
    rs_team_reduce(a, S, lane, size);
    if (mine && lane == 0) out[r] = cols ? rs_finish(a) : (T)0;
  }
}

// The block groups (G.lmin: the groups of at least lmin positions, lmin above the short tile,
// and those of segments that begin in a sparse chunk), shaped as the sum: chunk c is the
// positions [c * m * tile, (c + 1) * m * tile) of the span (m short tiles; grid-stride over
// the chunks, any grid). Each piece of a block group in the chunk is added by the whole
// block (per-thread states over 16-byte loads, a block merge): a group within the chunk is
// written, the piece of a group begun before the chunk goes to lheads[c], that of a group
// going on past it to ltails[c] (both for a group holding the whole chunk), for rs_seg_join.
// In a sparse chunk the candidates are every group from tile_first[c * m] to
// G.chunk_last(c) (at most m / 2 + 1). Otherwise every block group meeting the chunk is long
// (or, begun in a sparse chunk before, holds its first position) and holds one of its tiles'
// first positions or the position after the chunk (a long group is longer than a tile), so
// the groups tile_first[c * m .. c * m + m] are the candidates; the threads look them up
// together (C: g, begin, end of each, or no group; two copies, one for the block's even
// chunks and one for its odd ones, so that a chunk's candidates are written while no thread
// can still read those of the chunk before). Shared memory: 16 bytes, (2K + 1) blockDim
// values, then 6 (m + 1) words.
template <typename T, int K>
RS_DEV void rs_seg_long_body(const T* x, RsGroups G, rs_u64 span, const rs_u64* tile_first, rs_u64 ntiles,
                             rs_u64 tile, rs_u64 m, T* lheads, T* ltails, T* out, RsFold<K> f) {
  RS_DYN_SHARED(rs_smem);
  const unsigned tid = RS_TID, B = RS_BDIM;
  const rs_u64 st = 2 * f.get() + 1;
  T* S = reinterpret_cast<T*>(rs_smem + 16);
  rs_u64* C2 = reinterpret_cast<rs_u64*>(S + st * B);
  const rs_u64 csize = m * tile;
  const rs_u64 nchunks = (span + csize - 1) / csize;
  unsigned odd = 0;
#pragma unroll 1
  for (rs_u64 c = RS_BID; c < nchunks; c += RS_GDIM, odd ^= 1u) {
    // The barrier after these writes is passed only once every thread has read the last
    // candidates of the block's previous chunk (the other copy).
    rs_u64* C = C2 + 3 * (m + 1) * odd;
    const rs_u64 cs = c * csize;
    const rs_u64 ce = span - cs < csize ? span : cs + csize;
    const rs_u64 t0 = c * m;
    // A sparse chunk: every group from lo to hi (at most m / 2 + 1) is a candidate.
    const bool sparse = G.sparse(c);
    const rs_u64 lo = sparse ? tile_first[t0] : 0, hi = sparse ? G.chunk_last(c) : 0;
    for (rs_u64 i = tid; i <= m; i += B) {
      const rs_u64 t = t0 + i;  // past the last tile: no candidate
      rs_u64 g;
      bool fresh;  // a group not listed before
      if (sparse) {
        g = lo + i <= hi ? lo + i : ~(rs_u64)0;
        fresh = true;
      } else {
        g = t < ntiles ? tile_first[t] : ~(rs_u64)0;
        fresh = i == 0 || tile_first[t - 1] != g;
      }
      rs_u64 b = 0, e = 0;
      if (g != ~(rs_u64)0 && fresh && G.is_block(g, c)) {
        b = G.begin(g);
        e = G.end_all(g);
      }
      C[3 * i] = g;
      C[3 * i + 1] = b;
      C[3 * i + 2] = e;
    }
    RS_SYNC();
#pragma unroll 1
    for (rs_u64 i = 0; i <= m; ++i) {  // the same for every thread
      const rs_u64 g = C[3 * i], b = C[3 * i + 1], e = C[3 * i + 2];
      const rs_u64 p0 = b > cs ? b : cs, p1 = e < ce ? e : ce;
      if (p0 >= p1) continue;  // no long group, or none in the chunk
      RsAcc<T, K> a(f);
      rs_clear(a);
      rs_block_add_range(a, x + p0, p1 - p0);
      rs_block_reduce(a, S);
      // No barrier before the next piece's reduction: rs_block_reduce ends with one, and its
      // result is in thread 0's registers.
      if (tid == 0) {
        if (b >= cs && e <= ce) {
          out[g] = rs_finish(a);
        } else {
          if (b < cs) rs_store(lheads, c * st, 1, a);
          if (e > ce) rs_store(ltails, c * st, 1, a);
        }
      }
    }
  }
}

// The merge of a group's pieces in units t0..=t (the piece in unit t0 from tails, those of
// the units after it from heads) into thread 0's registers, renormalised, by the whole block
// (every thread reaches every barrier; S: rs_block_reduce's shared memory).
template <typename T, int K>
RS_DEV void rs_block_join_pieces(RsAcc<T, K>& acc, rs_u64 t0, rs_u64 t, const T* tails, const T* heads, T* S) {
  const unsigned tid = RS_TID, B = RS_BDIM;
  const rs_u64 st = 2 * acc.k.get() + 1;
  rs_clear(acc);
  for (rs_u64 i = t0 + tid; i <= t; i += B) {
    RsAcc<T, K> o(acc.k);
    rs_load(i == t0 ? tails : heads, i * st, 1, o);
    rs_merge_renormed(acc, o);
  }
  rs_block_reduce(acc, S);
}

// The sums of the groups that cross units (tiles, or chunks of `step` tiles for the long
// groups), block-wide for each unit where one ends: the piece in its first unit (tails) and
// those of the units after it (heads). `longs`: the long groups (true ends); otherwise the
// short ones (G.end, where a long group looks empty).
template <typename T, int K>
RS_DEV void rs_seg_join_cross(RsGroups G, rs_u64 span, const rs_u64* tile_first, rs_u64 step, rs_u64 nunits,
                              rs_u64 size, const T* heads, const T* tails, T* out, bool longs, T* S, RsFold<K> f) {
  const unsigned tid = RS_TID;
#pragma unroll 1
  for (rs_u64 t = RS_BID; t < nunits; t += RS_GDIM) {
    const rs_u64 ts = t * size;
    const rs_u64 te = span - ts < size ? span : ts + size;
    const rs_u64 g = tile_first[t * step];
    const rs_u64 b = G.begin(g);
    const rs_u64 cu = G.chunk_of(t * step);  // g meets the unit's chunk
    const rs_u64 e = longs ? (G.is_block(g, cu) ? G.end_all(g) : b) : G.end(g, cu);
    if (b < ts && ts < e && e <= te) {  // the same for every thread
      RsAcc<T, K> acc(f);
      rs_block_join_pieces(acc, b / size, t, tails, heads, S);
      // No barrier before the next unit's reduction: rs_block_reduce ends with one, and its
      // result is in thread 0's registers.
      if (tid == 0) out[g] = rs_finish(acc);
    }
  }
}

// The sums of the groups that cross tiles (short: heads, tails) or chunks of m tiles (long:
// lheads, ltails), then +0 for every empty group. Shared memory: 16 bytes, then (2K + 1)
// blockDim values.
template <typename T, int K>
RS_DEV void rs_seg_join_body(RsGroups G, rs_u64 span, const rs_u64* tile_first, rs_u64 ntiles, rs_u64 tile,
                             rs_u64 m, const T* heads, const T* tails, const T* lheads, const T* ltails, T* out,
                             RsFold<K> f) {
  RS_DYN_SHARED(rs_smem);
  T* S = reinterpret_cast<T*>(rs_smem + 16);
  const unsigned tid = RS_TID, B = RS_BDIM;
  const rs_u64 st = 2 * f.get() + 1;
  const rs_u64 nthreads = RS_GDIM * (rs_u64)B;
  // A short group crosses one tile boundary at most (it is no longer than a tile): one
  // thread for each tile where one ends.
  for (rs_u64 t = RS_BID * (rs_u64)B + tid; t < ntiles; t += nthreads) {
    const rs_u64 ts = t * tile;
    const rs_u64 te = span - ts < tile ? span : ts + tile;
    const rs_u64 g = tile_first[t];
    const rs_u64 b = G.begin(g), e = G.end(g, G.chunk_of(t));
    if (b < ts && ts < e && e <= te) {
      const rs_u64 t0 = b / tile;
      RsAcc<T, K> acc(f);
      rs_load(tails, t0 * st, 1, acc);
      for (rs_u64 i = t0 + 1; i <= t; ++i) {
        RsAcc<T, K> o(f);
        rs_load(heads, i * st, 1, o);
        rs_merge_renormed(acc, o);
      }
      out[g] = rs_finish(acc);
    }
  }
  if (G.lmin) {
    const rs_u64 nchunks = (span + m * tile - 1) / (m * tile);
    rs_seg_join_cross(G, span, tile_first, m, nchunks, m * tile, lheads, ltails, out, true, S, f);
  }
  for (rs_u64 g = RS_BID * (rs_u64)B + tid; g < G.nseg; g += nthreads)
    if (G.begin(g) == G.end_all(g)) out[g] = (T)0;
}

// ---- Segments of many positions each: two kernels ------------------------------------------
//
// Segments whose average length is many tiles (the host's choice) take two kernels instead
// of five, so that a call pays two launches: rs_seg_dense checks the offsets (as rs_seg_prep
// does) and adds every group piece by piece, as rs_seg_long adds a block group (per-thread
// states over 16-byte loads, a block merge for each piece), in chunks cut by a merge path:
// chunk c takes the diagonals [c D, (c + 1) D) of the walk over the positions and the
// segments' ends, where an end counts w positions (about a piece's merge), so that no chunk
// holds many more positions or pieces than another however the lengths are spread. It
// stores the state of a group within its chunk in slots[g] (whole[g] = 1) and the pieces of
// a group that crosses chunks in ltails (its first chunk c0; whole[g] = c0 + 2) and lheads
// (the chunks after); pos[c] is chunk c's first position and first[c] the first group that
// may meet it (one that begins at or before pos[c]; the one holding it, if any).
// rs_seg_dense_join hands the verdict to the host (in page-locked memory where it can, so
// that no copy follows), zeroes the error words of the next call (the host alternates two
// pairs, so that no memset precedes a call), takes the verdict (rs_seg_bad: nothing is
// written when the offsets are bad) and writes every group: from its slot, from its pieces
// (block-wide, by the chunk where it ends), or +0 when it is empty. The host passes the span,
// or ~0 where it has not read the last offset (each dense kernel then reads it,
// rs_dense_span); the join hands the last offset back with the verdict. The same bits as
// every other path: a group's sum is the merge of exact states of its values.

// The last index i in [0, n) with pred(j, i), for each of N searches j at once (pred(j, 0)
// taken as true; pred(j, .) monotone: true, then false), found by the whole block: each round
// every thread tests one point of each open range, the points spread evenly, and the count of
// true points narrows the range to the gap after the last true one (points a power of two
// apart: a range of L + 1 to at most 2 L / (B + 1) + 1). U: 3 N words of shared memory, the counts of three rounds in turn
// (one counted, one read, one zeroed for the next), zeroed by rs_block_search_init before
// the block's first search; r: the block's rounds so far (kept across its searches, so that
// no barrier is needed between two). Every thread reaches every barrier and gets every
// result. With a pred that is not monotone (bad offsets) it gives some index in [0, n) in
// as many rounds. n >= 1.
template <int N>
RS_DEV void rs_block_search_init(rs_u32* U) {
  for (unsigned i = RS_TID; i < 3u * N; i += RS_BDIM) U[i] = 0;
  RS_SYNC();
}

template <int N, typename P>
RS_DEV void rs_block_search(rs_u64 n, const P& pred, rs_u64 (&res)[N], rs_u32* U, unsigned& r) {
  const unsigned tid = RS_TID, B = RS_BDIM;
  rs_u64 lo[N], hi[N];
  for (int j = 0; j < N; ++j) {
    lo[j] = 0;
    hi[j] = n;
  }
  for (;; ++r) {
    bool more = false;
    for (int j = 0; j < N; ++j) more |= hi[j] > lo[j] + 1;
    if (!more) break;  // the same for every thread
    rs_u32* cnt = U + (r % 3) * N;
    // Zero the next round's counts: the buffer of the round two before this one, which every
    // thread read before the barrier of the round before, which this thread has passed.
    for (unsigned i = tid; i < (unsigned)N; i += B) U[((r + 1) % 3) * N + i] = 0;
    rs_u64 step[N];
    for (int j = 0; j < N; ++j) {
      // Points lo + (t + 1) step below hi, step the least power of two with B + 1 steps past
      // the range (shifts only: no 64-bit division; halves for a block of one thread).
      const rs_u64 L = hi[j] > lo[j] + 1 ? hi[j] - lo[j] - 1 : 0;
      step[j] = 1;
      while (step[j] * (B + 1) <= L) step[j] <<= 1;
      const rs_u64 at = lo[j] + step[j] * (tid + 1);
      if (L > 0 && at < hi[j] && pred(j, at)) RS_ATOMIC_ADD_U32(&cnt[j], 1u);
    }
    RS_SYNC();
    for (int j = 0; j < N; ++j) {
      if (hi[j] <= lo[j] + 1) continue;
      // The last true point (c - 1) and the first false one (c, or hi); at most the points
      // tested (a bound that only a missing barrier could reach).
      const rs_u64 c = cnt[j] < B ? cnt[j] : B;
      const rs_u64 z = lo[j] + step[j] * (c + 1);
      lo[j] += step[j] * c;
      if (z < hi[j]) hi[j] = z;
      if (hi[j] <= lo[j]) hi[j] = lo[j] + 1;
    }
  }
  for (int j = 0; j < N; ++j) res[j] = lo[j];
}

// The merge path's test: segment i begins at or before diagonal d[j].
struct RsDensePred {
  const rs_u64* off;
  rs_u64 w;
  const rs_u64 (&d)[2];
  RS_MEMBER bool operator()(int j, rs_u64 i) const { return off[i] + w * i <= d[j]; }
};

// Chunk c's diagonals [d[0], d[1]) cut into positions p[0] <= p[1] in [0, span] (the position
// of diagonal d: min(d - w s, off[s + 1]) for s, the last segment with off[s] + w s <= d), and
// s[0], the last group that begins at or before p[0] (the first one that may meet the chunk).
struct RsDenseCut {
  rs_u64 p[2], s[2];
};

RS_DEV RsDenseCut rs_dense_cut(const rs_u64* off, rs_u64 nseg, rs_u64 span, rs_u64 w, const rs_u64 (&d)[2],
                               bool last, rs_u32* U, unsigned& r) {
  RsDenseCut cut;
  const RsDensePred pred{off, w, d};
  rs_block_search<2>(nseg, pred, cut.s, U, r);
  for (int j = 0; j < 2; ++j) {
    const rs_u64 ws = w * cut.s[j];
    const rs_u64 q = d[j] > ws ? d[j] - ws : 0, e = off[cut.s[j] + 1];
    const rs_u64 p = q < e ? q : e;
    cut.p[j] = p < span ? p : span;
  }
  if (last) cut.p[1] = span;
  if (cut.p[1] < cut.p[0]) cut.p[1] = cut.p[0];  // bad offsets only
  return cut;
}

// The vectors a thread of rs_seg_dense_teams should have in a piece before teams smaller
// than the block add pieces side by side.
#define RS_DENSE_TEAM_VECS 8

// Whether the dense path's pieces end in one round of loads (rs_range_add's BATCH_END) and
// rs_seg_dense's walk loads each group's end ahead: f64 only (measured in rs_range_add).
template <typename T>
struct RsDenseBatched {
  static constexpr bool value = sizeof(T) == 8;
};

// Where the dense path keeps group g's state a (its piece in chunk c of [p0, p1), the group
// [b, e)): the group's slot when the chunk holds all of it, else the chunk's head or tail
// piece (whole[g] names the group's first chunk).
template <typename T, int K>
RS_DEV void rs_dense_keep(const RsAcc<T, K>& a, rs_u64 g, rs_u64 c, rs_u64 b, rs_u64 e, rs_u64 p0, rs_u64 p1,
                          T* slots, rs_u32* whole, T* lheads, T* ltails) {
  const rs_u64 st = 2 * a.k.get() + 1;
  if (b >= p0 && e <= p1) {
    rs_store(slots, g * st, 1, a);
    whole[g] = 1u;
  } else {
    if (b >= p0) whole[g] = (rs_u32)c + 2u;
    if (b < p0) rs_store(lheads, c * st, 1, a);
    if (e > p1) rs_store(ltails, c * st, 1, a);
  }
}

// Chunk c's pieces, [p0, p1) from group g on (at most `walk` groups), one group at a time,
// added and merged by the whole block (rs_seg_dense). Every thread reaches every barrier.
template <typename T, int K>
RS_DEV void rs_dense_pieces_block(const T* x, const rs_u64* off, rs_u64 nseg, rs_u64 cap, rs_u64 c, rs_u64 g,
                                  rs_u64 p0, rs_u64 p1, rs_u64 walk, T* slots, rs_u32* whole, T* lheads,
                                  T* ltails, T* S, RsFold<K> f) {
  // Where the pieces end in one round of loads (RsDenseBatched: f64), each group's begin
  // comes from the group before (its end) and the next group's end is loaded before this
  // group's piece is added, so that no piece waits for its offsets. f32 reads both when it
  // reaches the group, as it did when it was measured.
  constexpr bool AHEAD = RsDenseBatched<T>::value;
  rs_u64 e = AHEAD && g < nseg ? off[g] : 0;
  rs_u64 en = AHEAD && g < nseg ? off[g + 1] : 0;
#pragma unroll 1
  for (rs_u64 i = 0; i < walk && g < nseg; ++i, ++g) {  // the same for every thread
    rs_u64 b;
    if constexpr (AHEAD) {
      b = e;
      e = en;
    } else {
      b = off[g];
      e = off[g + 1];
    }
    if (b >= p1) break;
    if constexpr (AHEAD) en = g + 1 < nseg ? off[g + 2] : 0;
    const rs_u64 q0 = b > p0 ? b : p0, q1 = e < p1 ? e : p1;
    // Empty, ended before the chunk, or bad (decreasing, or past the capacity: the check
    // refuses the call, and a segment past the capacity is never read).
    if (q0 >= q1 || e - b > cap) continue;
    RsAcc<T, K> a(f);
    rs_clear(a);
    rs_range_add<RsDenseBatched<T>::value>(a, x + q0, q1 - q0, RS_TID, RS_BDIM);
    rs_block_reduce(a, S);
    // No barrier before the next piece's reduction: rs_block_reduce ends with one, and its
    // result is in thread 0's registers.
    if (RS_TID == 0) rs_dense_keep(a, g, c, b, e, p0, p1, slots, whole, lheads, ltails);
  }
}

// The same by teams of 2^lg consecutive threads (the last one may be short), each adding a
// group's piece, so that the pieces of a round share the merges' barriers
// (rs_seg_dense_teams): the whole block while the chunk's pieces (the groups from g to gl)
// average RS_DENSE_TEAM_VECS vectors a thread or more, else the largest team (at least 8
// threads) whose threads get that many. The same for every thread (the cut is). No
// division: the team is found by comparisons.
template <typename T, int K>
RS_DEV void rs_dense_pieces_teams(const T* x, const rs_u64* off, rs_u64 nseg, rs_u64 cap, rs_u64 c, rs_u64 g,
                                  rs_u64 gl, rs_u64 p0, rs_u64 p1, rs_u64 walk, T* slots, rs_u32* whole,
                                  T* lheads, T* ltails, T* S, RsFold<K> f) {
  const unsigned tid = RS_TID, B = RS_BDIM;
  const rs_u64 ng = (gl >= g ? gl - g : 0) + 1;
  unsigned lg = 0;
  while ((2u << lg) <= B) ++lg;
  while (lg > 3 && p1 - p0 < ng * ((rs_u64)RsF<T>::VEC * RS_DENSE_TEAM_VECS << lg)) --lg;
  const unsigned tsz = 1u << lg, team = tid >> lg, lane = tid & (tsz - 1);
  const unsigned nteams = (B + tsz - 1) >> lg;
  const unsigned tn = B - (team << lg) < tsz ? B - (team << lg) : tsz;  // threads in this team
#pragma unroll 1
  for (rs_u64 i = 0, g0 = g; i < walk && g0 < nseg; i += nteams, g0 += nteams) {
    if (off[g0] >= p1) break;  // the same for every thread
    // This team's group: g0 + team (the walk's (i + team)-th).
    const rs_u64 gt = g0 + team;
    RsAcc<T, K> a(f);
    rs_clear(a);
    bool mine = false;
    rs_u64 b = 0, e = 0;
    if (gt < nseg && i + team < walk) {
      b = off[gt];
      e = off[gt + 1];
      const rs_u64 q0 = b > p0 ? b : p0, q1 = e < p1 ? e : p1;
      // Empty, ended before the chunk, begun after it, or bad (decreasing, or past the
      // capacity: the check refuses the call, and a segment past the capacity is never read).
      if (b < p1 && q0 < q1 && e - b <= cap) {
        rs_range_add<RsDenseBatched<T>::value>(a, x + q0, q1 - q0, lane, tn);
        mine = true;
      }
    }
    rs_team_reduce(a, S, lane, tsz);
    // No barrier before the next round's merges: rs_team_reduce ends with one, and each
    // team's result is in its first thread's registers.
    if (mine && lane == 0) rs_dense_keep(a, gt, c, b, e, p0, p1, slots, whole, lheads, ltails);
  }
}

// rs_seg_dense's and rs_seg_dense_teams' adds (TEAMS: which walk over a chunk's pieces):
// chunks c = blockIdx, blockIdx + gridDim, ... of nchunks (any grid).
// Shared memory: 16 bytes, (2K + 1) blockDim values, then 6 words. Every thread reaches
// every barrier (the walk over a chunk's groups is the same for all). A value is read only
// within a segment whose own offsets are in order and at most cap apart (so none of a
// segment past the capacity, as the other paths). With bad offsets it stays within
// x[0..span), off[0..=nseg] and its outputs, and ends: a chunk's walk stops
// after D / w + 2 groups, more than a chunk meets with good ones (the groups from its first
// one to the last that begins before its end all begin on its diagonals, at most one within
// w of another), and its cut takes as many rounds as with good ones.
template <typename T, int K, bool TEAMS>
RS_DEV void rs_seg_dense_body(const T* x, const rs_u64* off, rs_u64 nseg, rs_u64 span, rs_u64 cap, rs_u64 w,
                              rs_u64 nchunks, rs_u64* pos, rs_u64* first, T* slots, rs_u32* whole, T* lheads,
                              T* ltails, RsFold<K> f) {
  RS_DYN_SHARED(rs_smem);
  const unsigned tid = RS_TID, B = RS_BDIM;
  const rs_u64 st = 2 * f.get() + 1;
  T* S = reinterpret_cast<T*>(rs_smem + 16);
  rs_u32* U = reinterpret_cast<rs_u32*>(S + st * B);
  const rs_u64 total = span + w * nseg;
  const rs_u64 D = (total + nchunks - 1) / nchunks;
  const rs_u64 walk = D / w + 2;
  unsigned r = 0;
  rs_block_search_init<2>(U);
#pragma unroll 1
  for (rs_u64 c = RS_BID; c < nchunks; c += RS_GDIM) {
    const rs_u64 d0 = c * D < total ? c * D : total;
    const rs_u64 d[2] = {d0, c + 1 < nchunks && d0 + D < total ? d0 + D : total};
    const RsDenseCut cut = rs_dense_cut(off, nseg, span, w, d, c + 1 == nchunks, U, r);
    const rs_u64 p0 = cut.p[0], p1 = cut.p[1];
    if (tid == 0) {
      pos[c] = p0;
      first[c] = cut.s[0];
      if (c + 1 == nchunks) pos[nchunks] = span;
    }
    if constexpr (TEAMS) {
      rs_dense_pieces_teams(x, off, nseg, cap, c, cut.s[0], cut.s[1], p0, p1, walk, slots, whole, lheads, ltails,
                            S, f);
    } else {
      rs_dense_pieces_block(x, off, nseg, cap, c, cut.s[0], p0, p1, walk, slots, whole, lheads, ltails, S, f);
    }
  }
}

// The span the dense kernels take: `span`, or with ~0 (the host did not read it) the last
// offset.
RS_DEV rs_u64 rs_dense_span(const rs_u64* off, rs_u64 nseg, rs_u64 span) {
  return span == ~(rs_u64)0 ? off[nseg] : span;
}

// rs_seg_dense_join's first thread: the verdict err (when not null) to verdict[0..2] (1 for
// a bad offset, for a segment past the capacity; else 0) with the last offset after it (a
// 64-bit word at verdict + 2, 8-byte aligned: the span, for the host's next choice), and
// zeros to clear[0..2] (when not null): the error words the next call will take.
RS_DEV void rs_seg_dense_verdict(const rs_u32* err, rs_u32* verdict, rs_u32* clear, const rs_u64* off,
                                 rs_u64 nseg) {
  if (RS_BID != 0 || RS_TID != 0) return;
  if (err != 0 && verdict != 0) {
    verdict[0] = err[0] != 0u ? 1u : 0u;
    verdict[1] = err[1] != 0u ? 1u : 0u;
    *reinterpret_cast<rs_u64*>(verdict + 2) = off[nseg];
  }
  if (clear != 0) {
    clear[0] = 0u;
    clear[1] = 0u;
  }
}

// rs_seg_dense_join's writes (good offsets): the groups that cross chunks, by the chunk where
// each ends (grid-stride over the chunks; block-wide for a group of many pieces), then every
// other group, a thread each (grid-stride). Shared memory: 16 bytes, then (2K + 1) blockDim
// values.
template <typename T, int K>
RS_DEV void rs_seg_dense_join_body(const rs_u64* off, rs_u64 nseg, rs_u64 nchunks, const rs_u64* pos,
                                   const rs_u64* first, const T* slots, const rs_u32* whole, const T* lheads,
                                   const T* ltails, T* out, RsFold<K> f) {
  RS_DYN_SHARED(rs_smem);
  const unsigned tid = RS_TID, B = RS_BDIM;
  const rs_u64 st = 2 * f.get() + 1;
  T* S = reinterpret_cast<T*>(rs_smem + 16);
#pragma unroll 1
  for (rs_u64 c = RS_BID; c < nchunks; c += RS_GDIM) {
    const rs_u64 p0 = pos[c], p1 = pos[c + 1], g = first[c];
    const rs_u64 b = off[g], e = off[g + 1];
    if (!(b < p0 && p0 < e && e <= p1)) continue;  // the same for every thread
    // The chunk where g began (before c: it wrote whole[g]; the bound only keeps a missing
    // write from reading past the pieces).
    const rs_u32 wg = whole[g];
    if (wg < 2u || (rs_u64)(wg - 2u) >= c) continue;
    const rs_u64 c0 = wg - 2u;
    RsAcc<T, K> acc(f);
    if (c - c0 < 4) {  // a few pieces: one thread merges them
      if (tid == 0) {
        rs_load(ltails, c0 * st, 1, acc);
        for (rs_u64 i = c0 + 1; i <= c; ++i) {
          RsAcc<T, K> o(f);
          rs_load(lheads, i * st, 1, o);
          rs_merge_renormed(acc, o);
        }
        out[g] = rs_finish(acc);
      }
      continue;
    }
    rs_block_join_pieces(acc, c0, c, ltails, lheads, S);
    // No barrier before the next chunk's reduction: rs_block_reduce ends with one, and its
    // result is in thread 0's registers.
    if (tid == 0) out[g] = rs_finish(acc);
  }
  const rs_u64 nthreads = RS_GDIM * (rs_u64)B;
  for (rs_u64 g = RS_BID * (rs_u64)B + tid; g < nseg; g += nthreads) {
    const rs_u64 b = off[g], e = off[g + 1];
    if (b == e) {
      out[g] = (T)0;
    } else if (whole[g] == 1u) {
      RsAcc<T, K> a(f);
      rs_load(slots, g * st, 1, a);
      out[g] = rs_finish(a);
    }
  }
}

// ---- Segmented cumsums: running sums that start afresh at every segment -----------------
//
// Element j of segment g gets the value of the state of x[off[g]..=j]. Tiles of blockDim *
// RsF<T>::SEG_E positions, one per block (any block size and grid): rs_segcs_reduce writes
// each tile's tail, the state of its positions from the begin of the group holding its last
// position (or from the tile's start, if that group began before), and whether that group
// begins in the tile (a cut); rs_segcs_carry (one block) turns the tails in place into each
// tile's carry, the state of the positions before the tile of the group holding its first
// position (a segmented exclusive scan: a cut starts afresh); rs_segcs_scan marks the
// tile's group begins, scans the threads' states (each the state of the positions after
// the last begin in its run) with restarts at the begins, merges the carry into the prefix
// of the positions before the tile's first begin, and replays each thread's positions as
// rs_tile_scan_one does. rs_seg_prep, before them, finds each tile's first group and checks
// the offsets. Every running sum is the exact merge of the states of its group's values up
// to it, so its bits are the core's, whatever the tiles, blocks or grid.

// The tail of tile t and its cut. Shared memory: 16 bytes, then (2K + 1) blockDim values.
template <typename T, int K, int E>
RS_DEV void rs_segcs_reduce_body(const T* x, RsGroups G, rs_u64 n, T* tails, rs_u32* cuts, RsFold<K> f) {
  RS_DYN_SHARED(rs_smem);
  T* S = reinterpret_cast<T*>(rs_smem + 16);
  const unsigned tid = RS_TID, B = RS_BDIM;
  const rs_u64 tile = (rs_u64)B * E;
  const rs_u64 t = RS_BID;
  const rs_u64 ts = t * tile;
  const rs_u64 te = n - ts < tile ? n : ts + tile;  // ts < n: one block per tile
  const rs_u64 r = G.begin(G.find(te - 1));         // the begin of the last position's group
  const rs_u64 a0 = r > ts ? r : ts;
  RsAcc<T, K> a(f);
  rs_clear(a);
  for (rs_u64 i = a0 + tid; i < te; i += B) rs_add_one(a, x[i]);
  rs_block_reduce(a, S);
  if (tid == 0) {
    rs_renorm(a);
    rs_store(tails, t * (rs_u64)(2 * f.get() + 1), 1, a);
    cuts[t] = r >= ts ? 1u : 0u;
  }
}

// The carries, in place of the tails (one block). Shared memory: 16 bytes, (2K + 1)
// (blockDim + RS_RAKE) values, blockDim + RS_RAKE words.
template <typename T, int K>
RS_DEV void rs_segcs_carry_body(T* s, const rs_u32* cuts, rs_u64 cnt, RsFold<K> f) {
  RS_DYN_SHARED(rs_smem);
  const unsigned tid = RS_TID, B = RS_BDIM;
  const rs_u64 st = 2 * f.get() + 1;
  T* S = reinterpret_cast<T*>(rs_smem + 16);
  rs_u32* F = reinterpret_cast<rs_u32*>(S + st * (B + RS_RAKE));
  rs_u64 m = 1;  // tiles per thread: a power of two at least cnt / B (no run-time division)
  while (m * B < cnt) m <<= 1;
  const rs_u64 lo = tid * m < cnt ? tid * m : cnt;
  const rs_u64 hi = lo + m < cnt ? lo + m : cnt;
  RsAcc<T, K> a(f);
  rs_clear(a);
  bool fresh = false;  // a cut in this thread's run: its state starts there
  for (rs_u64 i = lo; i < hi; ++i) {
    RsAcc<T, K> o(f);
    rs_load(s, i * st, 1, o);
    if (cuts[i]) {
      a = o;
      fresh = true;
    } else {
      rs_merge_renormed(a, o);
    }
  }
  rs_seg_block_scan(a, fresh, S, F);
  for (rs_u64 i = lo; i < hi; ++i) {
    RsAcc<T, K> o(f);
    rs_load(s, i * st, 1, o);
    rs_store(s, i * st, 1, a);
    if (cuts[i]) {
      a = o;
    } else {
      rs_merge_renormed(a, o);
    }
  }
}

// The running sums of tile t. Shared memory: 16 bytes, (2K + 1) (blockDim + RS_RAKE)
// values, the tile (blockDim * (E + 1) values, padded), blockDim + RS_RAKE words, then
// blockDim * E bytes (the begins).
template <typename T, int K, int E>
RS_DEV void rs_segcs_scan_body(const T* x, T* out, RsGroups G, rs_u64 n, const rs_u64* tile_first, rs_u64 ntiles,
                               const T* carries, RsFold<K> f) {
  RS_DYN_SHARED(rs_smem);
  const unsigned tid = RS_TID, B = RS_BDIM;
  const rs_u64 st = 2 * f.get() + 1;
  T* S = reinterpret_cast<T*>(rs_smem + 16);
  T* vals = S + st * (B + RS_RAKE);
  rs_u32* F = reinterpret_cast<rs_u32*>(vals + (rs_u64)B * (E + 1));
  unsigned char* cut = reinterpret_cast<unsigned char*>(F + B + RS_RAKE);
  const rs_u64 t = RS_BID;
  const rs_u64 tile = (rs_u64)B * E;
  const rs_u64 ts = t * tile;
  const unsigned cnt = (unsigned)(n - ts < tile ? n - ts : tile);  // ts < n: one block per tile
#pragma unroll
  for (int j = 0; j < E; ++j) {
    const unsigned i = (unsigned)j * B + tid;
    if (i < cnt) vals[rs_pad<E>(i)] = x[ts + i];
    cut[i] = 0;
  }
  RS_SYNC();
  // The begins in the tile: each non-empty group's (one writer per position). The tile's
  // first group (tile_first[t], holding position ts) begins at or before ts; the others
  // begin after ts.
  const rs_u64 ga = tile_first[t];
  const rs_u64 gb = t + 1 < ntiles ? tile_first[t + 1] : G.nseg - 1;
  if (tid == 0 && G.begin(ga) == ts) cut[0] = 1;
  for (rs_u64 g = ga + 1 + tid; g <= gb; g += B) {
    const rs_u64 b = G.begin(g);
    if (b < ts + cnt && b < G.end_all(g)) cut[b - ts] = 1;
  }
  // The first begin at or after ts (relative; cnt or more: none in the tile): the positions
  // before it continue a group begun before the tile.
  const rs_u64 first = G.begin(ga) == ts ? 0 : (ga + 1 < G.nseg ? G.begin(ga + 1) - ts : cnt);
  RS_SYNC();
  const unsigned lo = tid * (unsigned)E;
  const unsigned hi = lo + E < cnt ? lo + E : cnt;
  RsAcc<T, K> a(f);
  rs_clear(a);
  bool fresh = false;  // a begin in this thread's positions: its state starts at the last
  bool any = false;
  for (unsigned i = lo; i < hi; ++i) any |= cut[i] != 0;
  if (!any && hi - lo == (unsigned)E) {
    const int M = RsF<T>::TILE_E;
#pragma unroll 1
    for (int c = 0; c < E; c += M) {
      T v[M];
#pragma unroll
      for (int j = 0; j < M; ++j) v[j] = vals[rs_pad<E>(lo + c + j)];
      rs_add_chunk(a, v);
    }
  } else {
#pragma unroll 1
    for (unsigned i = lo; i < hi; ++i) {
      if (cut[i]) {
        rs_clear(a);
        fresh = true;
      }
      rs_add_one(a, vals[rs_pad<E>(i)]);
    }
  }
  rs_seg_block_scan(a, fresh, S, F);  // a: the open group's state in the threads before
  if ((rs_u64)lo < first) {
    RsAcc<T, K> c(f);
    rs_load(carries, t * st, 1, c);
    rs_merge_renormed(a, c);
  }
  RsWin<T, K> w;
  rs_win_set(w, a);
#pragma unroll 1
  for (unsigned i = lo; i < hi; ++i) {
    const unsigned at = rs_pad<E>(i);
    const T v = vals[at];
    if (cut[i]) {
      rs_clear(a);
      w.fast = false;
    }
    if (w.fast && (rs_bits(v) & ~RsF<T>::SIGN) < w.thr) {
      rs_deposit(a, v);
      rs_renorm(a);
      vals[at] = rs_convert_win<K>(a, w);
    } else {
      rs_add_one(a, v);
      rs_renorm(a);
      a.pending = 0;
      vals[at] = rs_value(a);
      rs_win_set(w, a);
    }
  }
  RS_SYNC();
#pragma unroll
  for (int j = 0; j < E; ++j) {
    const unsigned i = (unsigned)j * B + tid;
    if (i < cnt) out[ts + i] = vals[rs_pad<E>(i)];
  }
}

// ---- Keyed sums: the sum of the values of each key (a counting sort, then segments) -------
//
// rs_key_count counts each key's values into counts[1 + k] (counts: nkeys + 1 words, zeroed
// by the host) and reports a key outside [0, nkeys) (err[0] = 1); the host reads that
// verdict back before anything else runs, so a bad key leaves every output untouched. The
// inclusive scan of the counts (rs_u64_scan_up, _parts, _down: integers, exact in any
// order) turns them into CSR offsets, and a copy of them into one cursor per key.
// rs_key_scatter_* moves each value to its key's next free position (an atomic add on the
// cursor), and the segmented kernels sum each key's segment of the gathered values. Where a
// key's values land within its segment depends on the schedule, but a segment's sum is the
// merge of exact states of its values, which does not depend on their order: each key's bits
// are those of the core's sum of that key's values alone, for any grid, block or timing.
//
// With few keys (nkeys <= RS_KEY_LOCAL; the host passes `hist`) each block counts its own
// contiguous chunk of the input in shared memory and stores those counts at hist[block *
// nkeys + k]; the scatter, on the same grid (so the same chunks), reserves each key's places
// for its whole chunk with one global atomic add per key, then places its values by
// shared-memory atomics. Otherwise both passes gather equal keys in a shared-memory table
// (open addressing, RS_KEY_TS slots) so that a key many values share (skewed keys) does not
// take an atomic add per value on one address: the count keeps one table for the block's
// whole share (its first keys keep the slots; a key that finds none in RS_KEY_PROBES_COUNT
// probes takes its own atomic add) and adds each slot's count at the end; the scatter
// takes tiles of blockDim * RS_KEY_U values, one table per tile (RS_KEY_PROBES probes), and
// claims each slot's places with one global atomic add.

#ifndef RS_KEY_LOCAL
#define RS_KEY_LOCAL 4096
#endif
// Words per thread of the integer scans.
#define RS_SCAN_E 8
// Values per thread at a time in the keyed passes.
#ifndef RS_KEY_U
#define RS_KEY_U 4
#endif
// Slots of a key table (a power of two: 2^RS_KEY_TS_LOG2; one table per block in the count,
// one per tile in the scatter), and the probes a key makes in the scatter.
#ifndef RS_KEY_TS_LOG2
#define RS_KEY_TS_LOG2 11
#endif
#define RS_KEY_TS (1u << RS_KEY_TS_LOG2)
#ifndef RS_KEY_PROBES
#define RS_KEY_PROBES 8
#endif
// The count's table is kept for a block's whole share, so it fills: fewer probes.
#ifndef RS_KEY_PROBES_COUNT
#define RS_KEY_PROBES_COUNT 2
#endif
#define RS_KEY_EMPTY (~(rs_u64)0)

// The slot of key k in a table (tk: keys, tc: counts), claimed or found within `probes`
// slots, with the count of the values of k before this one in `rank`; -1 when the probes
// find no slot. Any number of threads may insert at once.
RS_DEV int rs_key_slot(rs_u64* tk, rs_u32* tc, rs_u64 k, rs_u32& rank, int probes) {
  rs_u32 s = (rs_u32)((k * 0x9E3779B97F4A7C15ull) >> (64 - RS_KEY_TS_LOG2));
  for (int p = 0; p < probes; ++p) {
    const rs_u64 old = RS_ATOMIC_CAS_U64(tk + s, RS_KEY_EMPTY, k);
    if (old == RS_KEY_EMPTY || old == k) {
      rank = RS_ATOMIC_ADD_U32(tc + s, 1u);
      return (int)s;
    }
    s = (s + 1) & (RS_KEY_TS - 1);
  }
  return -1;
}

// Every slot of the table empty (before the block's first tile).
RS_DEV void rs_key_table_clear(rs_u64* tk, rs_u32* tc) {
  for (rs_u32 s = RS_TID; s < RS_KEY_TS; s += RS_BDIM) {
    tk[s] = RS_KEY_EMPTY;
    tc[s] = 0;
  }
}

// The chunk [lo, hi) of block b of a grid of g blocks over n positions.
RS_DEV void rs_key_chunk(rs_u64 n, rs_u64 b, rs_u64 g, rs_u64& lo, rs_u64& hi) {
  const rs_u64 per = n / g, extra = n % g;
  lo = b * per + (b < extra ? b : extra);
  hi = lo + per + (b < extra ? 1 : 0);
}

// Shared memory: nkeys 32-bit counts with `hist`; without, a table of RS_KEY_TS 64-bit keys
// and 32-bit counts.
RS_DEV void rs_key_count_body(const rs_i64* keys, rs_u64 n, rs_u64 nkeys, rs_u64* counts, rs_u32* hist, rs_u32* err) {
  RS_DYN_SHARED(rs_smem);
  const unsigned tid = RS_TID, B = RS_BDIM;
  bool bad = false;
  if (hist) {
    rs_u32* h = reinterpret_cast<rs_u32*>(rs_smem);
    for (rs_u64 k = tid; k < nkeys; k += B) h[k] = 0;
    RS_SYNC();
    rs_u64 lo, hi;
    rs_key_chunk(n, RS_BID, RS_GDIM, lo, hi);
    for (rs_u64 i = lo + tid; i < hi; i += B) {
      const rs_i64 k = keys[i];
      if (k < 0 || (rs_u64)k >= nkeys) {
        bad = true;
      } else {
        RS_ATOMIC_ADD_U32(h + k, 1u);
      }
    }
    RS_SYNC();
    for (rs_u64 k = tid; k < nkeys; k += B) {
      const rs_u32 c = h[k];
      hist[RS_BID * nkeys + k] = c;
      if (c) RS_ATOMIC_ADD_U64(counts + 1 + k, (rs_u64)c);
    }
  } else {
    // One table for the block's whole share (no barrier per tile): the keys that take its
    // slots first keep them, the others take their own atomic adds after a few probes.
    rs_u64* tk = reinterpret_cast<rs_u64*>(rs_smem);
    rs_u32* tc = reinterpret_cast<rs_u32*>(tk + RS_KEY_TS);
    rs_key_table_clear(tk, tc);
    RS_SYNC();
    const rs_u64 step = RS_GDIM * (rs_u64)B;
    for (rs_u64 i = RS_BID * (rs_u64)B + tid; i < n; i += step) {
      const rs_i64 k = keys[i];
      rs_u32 rank;
      if (k < 0 || (rs_u64)k >= nkeys) {
        bad = true;
      } else if (rs_key_slot(tk, tc, (rs_u64)k, rank, RS_KEY_PROBES_COUNT) < 0) {
        RS_ATOMIC_ADD_U64(counts + 1 + k, (rs_u64)1);
      }
    }
    RS_SYNC();
    for (rs_u32 s = tid; s < RS_KEY_TS; s += B)
      if (tc[s]) RS_ATOMIC_ADD_U64(counts + 1 + tk[s], (rs_u64)tc[s]);
  }
  if (bad) err[0] = 1u;
}

// The exclusive sum of v over the block's threads (thread 0 adds them in turn: the integer
// arrays scanned here are short beside the values); `total` gets the block's sum. S holds
// blockDim + 1 words. Every thread reaches both barriers. S may be reused right after: a
// thread writes only its own word before the next call's first barrier, and thread 0 the
// others only after it, when every thread has read its own.
RS_DEV rs_u64 rs_u64_block_exclusive(rs_u64 v, rs_u64* S, rs_u64& total) {
  const unsigned tid = RS_TID, B = RS_BDIM;
  S[tid] = v;
  RS_SYNC();
  if (tid == 0) {
    rs_u64 run = 0;
    for (unsigned i = 0; i < B; ++i) {
      const rs_u64 w = S[i];
      S[i] = run;
      run += w;
    }
    S[B] = run;
  }
  RS_SYNC();
  total = S[B];
  return S[tid];
}

// The sum of each tile of blockDim * RS_SCAN_E words of a (n words): part[t]. Shared memory:
// blockDim + 1 words.
RS_DEV void rs_u64_scan_up_body(const rs_u64* a, rs_u64 n, rs_u64* part) {
  RS_DYN_SHARED(rs_smem);
  rs_u64* S = reinterpret_cast<rs_u64*>(rs_smem);
  const unsigned tid = RS_TID, B = RS_BDIM;
  const rs_u64 tile = (rs_u64)B * RS_SCAN_E;
  for (rs_u64 t = RS_BID; t * tile < n; t += RS_GDIM) {
    const rs_u64 te = n - t * tile < tile ? n : (t + 1) * tile;
    rs_u64 v = 0;
    for (rs_u64 i = t * tile + tid; i < te; i += B) v += a[i];
    rs_u64 total;
    rs_u64_block_exclusive(v, S, total);
    if (tid == 0) part[t] = total;
  }
}

// part[0..nparts) to its exclusive prefix sums, by one block. Shared memory: blockDim + 1
// words.
RS_DEV void rs_u64_scan_parts_body(rs_u64* part, rs_u64 nparts) {
  RS_DYN_SHARED(rs_smem);
  rs_u64* S = reinterpret_cast<rs_u64*>(rs_smem);
  const unsigned tid = RS_TID, B = RS_BDIM;
  if (RS_BID != 0) return;  // the same for the block
  const rs_u64 tile = (rs_u64)B * RS_SCAN_E;
  rs_u64 carry = 0;
  for (rs_u64 base = 0; base < nparts; base += tile) {
    const rs_u64 i0 = base + (rs_u64)tid * RS_SCAN_E;
    rs_u64 v = 0;
    for (rs_u64 j = 0; j < RS_SCAN_E && i0 + j < nparts; ++j) v += part[i0 + j];
    rs_u64 total;
    rs_u64 run = carry + rs_u64_block_exclusive(v, S, total);
    for (rs_u64 j = 0; j < RS_SCAN_E && i0 + j < nparts; ++j) {
      const rs_u64 w = part[i0 + j];
      part[i0 + j] = run;
      run += w;
    }
    carry += total;
  }
}

// a (n words) to its inclusive prefix sums, tile t starting from part[t] (the exclusive
// prefix of the tiles before it); `copy` (when not null) gets them too. Shared memory:
// blockDim + 1 words.
RS_DEV void rs_u64_scan_down_body(rs_u64* a, rs_u64 n, const rs_u64* part, rs_u64* copy) {
  RS_DYN_SHARED(rs_smem);
  rs_u64* S = reinterpret_cast<rs_u64*>(rs_smem);
  const unsigned tid = RS_TID, B = RS_BDIM;
  const rs_u64 tile = (rs_u64)B * RS_SCAN_E;
  for (rs_u64 t = RS_BID; t * tile < n; t += RS_GDIM) {
    const rs_u64 i0 = t * tile + (rs_u64)tid * RS_SCAN_E;
    rs_u64 v = 0;
    for (rs_u64 j = 0; j < RS_SCAN_E && i0 + j < n; ++j) v += a[i0 + j];
    rs_u64 total;
    rs_u64 run = part[t] + rs_u64_block_exclusive(v, S, total);
    for (rs_u64 j = 0; j < RS_SCAN_E && i0 + j < n; ++j) {
      run += a[i0 + j];
      a[i0 + j] = run;
      if (copy) copy[i0 + j] = run;
    }
  }
}

// Each value to its key's next free position: sorted[cursor[k]++] (the keys were checked by
// rs_key_count). With `hist` each block claims its chunk's places per key once (one global
// atomic add per key), then counts its own values within them by 32-bit shared-memory
// atomics (a block holds fewer than 2^31 values), RS_KEY_U values per thread at a time:
// their keys and values loaded, their places claimed, then the values stored, so that a
// thread has RS_KEY_U atomics in flight. Without, each tile's equal keys are gathered in the
// table, each slot claims its values' places with one global atomic add, and each value
// goes to its slot's base plus its rank (a value with no slot claims its own place).
// Shared memory: nkeys 64-bit bases and nkeys 32-bit counts with `hist`; without, a table
// of RS_KEY_TS 64-bit keys, 64-bit bases and 32-bit counts.
template <typename T>
RS_DEV void rs_key_scatter_body(const T* x, const rs_i64* keys, rs_u64 n, rs_u64 nkeys, rs_u64* cursor,
                                const rs_u32* hist, T* sorted) {
  RS_DYN_SHARED(rs_smem);
  const unsigned tid = RS_TID, B = RS_BDIM;
  if (hist) {
    rs_u64* base = reinterpret_cast<rs_u64*>(rs_smem);
    rs_u32* seen = reinterpret_cast<rs_u32*>(base + nkeys);
    for (rs_u64 k = tid; k < nkeys; k += B) {
      const rs_u32 c = hist[RS_BID * nkeys + k];
      base[k] = c ? RS_ATOMIC_ADD_U64(cursor + k, (rs_u64)c) : 0;
      seen[k] = 0;
    }
    RS_SYNC();
    rs_u64 lo, hi;
    rs_key_chunk(n, RS_BID, RS_GDIM, lo, hi);
    rs_u64 i = lo + tid;
    for (; i + (rs_u64)(RS_KEY_U - 1) * B < hi; i += (rs_u64)RS_KEY_U * B) {
      rs_i64 k[RS_KEY_U];
      T v[RS_KEY_U];
      rs_u64 at[RS_KEY_U];
      for (int u = 0; u < RS_KEY_U; ++u) {
        k[u] = keys[i + (rs_u64)u * B];
        v[u] = x[i + (rs_u64)u * B];
      }
      for (int u = 0; u < RS_KEY_U; ++u) at[u] = RS_ATOMIC_ADD_U32(seen + k[u], 1u);
      for (int u = 0; u < RS_KEY_U; ++u) sorted[base[k[u]] + at[u]] = v[u];
    }
    for (; i < hi; i += B) {
      const rs_i64 k = keys[i];
      sorted[base[k] + RS_ATOMIC_ADD_U32(seen + k, 1u)] = x[i];
    }
  } else {
    rs_u64* tk = reinterpret_cast<rs_u64*>(rs_smem);
    rs_u64* tb = tk + RS_KEY_TS;
    rs_u32* tc = reinterpret_cast<rs_u32*>(tb + RS_KEY_TS);
    rs_key_table_clear(tk, tc);
    RS_SYNC();
    const rs_u64 Tn = (rs_u64)B * RS_KEY_U;
    for (rs_u64 t0 = RS_BID * Tn; t0 < n; t0 += RS_GDIM * Tn) {
      rs_i64 k[RS_KEY_U];
      T v[RS_KEY_U];
      rs_u64 at[RS_KEY_U];
      int sl[RS_KEY_U];
      rs_u32 rk[RS_KEY_U];
      for (int u = 0; u < RS_KEY_U; ++u) {
        const rs_u64 i = t0 + (rs_u64)u * B + tid;
        k[u] = i < n ? keys[i] : 0;
        v[u] = i < n ? x[i] : T(0);
      }
      for (int u = 0; u < RS_KEY_U; ++u) {
        sl[u] = -1;
        rk[u] = 0;
        at[u] = 0;
        if (t0 + (rs_u64)u * B + tid < n) {
          sl[u] = rs_key_slot(tk, tc, (rs_u64)k[u], rk[u], RS_KEY_PROBES);
          if (sl[u] < 0) at[u] = RS_ATOMIC_ADD_U64(cursor + k[u], (rs_u64)1);
        }
      }
      RS_SYNC();
      // Each slot's places claimed at once; the slot emptied for the next tile (its base
      // stays until the next tile's claims, after the values below are stored).
      for (rs_u32 s = tid; s < RS_KEY_TS; s += B) {
        if (tc[s]) tb[s] = RS_ATOMIC_ADD_U64(cursor + tk[s], (rs_u64)tc[s]);
        tk[s] = RS_KEY_EMPTY;
        tc[s] = 0;
      }
      RS_SYNC();
      for (int u = 0; u < RS_KEY_U; ++u) {
        if (t0 + (rs_u64)u * B + tid < n) sorted[sl[u] >= 0 ? tb[sl[u]] + rk[u] : at[u]] = v[u];
      }
    }
  }
}

// The kernels (thin wrappers: the bodies, with their dynamic shared memory, have C++ linkage
// as every other kernel body's).
RS_KERNEL void rs_key_count(const rs_i64* keys, rs_u64 n, rs_u64 nkeys, rs_u64* counts, rs_u32* hist, rs_u32* err) {
  rs_key_count_body(keys, n, nkeys, counts, hist, err);
}
RS_KERNEL void rs_u64_scan_up(const rs_u64* a, rs_u64 n, rs_u64* part) { rs_u64_scan_up_body(a, n, part); }
RS_KERNEL void rs_u64_scan_parts(rs_u64* part, rs_u64 nparts) { rs_u64_scan_parts_body(part, nparts); }
RS_KERNEL void rs_u64_scan_down(rs_u64* a, rs_u64 n, const rs_u64* part, rs_u64* copy) {
  rs_u64_scan_down_body(a, n, part, copy);
}
RS_KERNEL void rs_key_scatter_f64(const double* x, const rs_i64* keys, rs_u64 n, rs_u64 nkeys, rs_u64* cursor,
                                  const rs_u32* hist, double* sorted) {
  rs_key_scatter_body<double>(x, keys, n, nkeys, cursor, hist, sorted);
}
RS_KERNEL void rs_key_scatter_f32(const float* x, const rs_i64* keys, rs_u64 n, rs_u64 nkeys, rs_u64* cursor,
                                  const rs_u32* hist, float* sorted) {
  rs_key_scatter_body<float>(x, keys, n, nkeys, cursor, hist, sorted);
}

// ---- Keyed sums by key ranges: a partition, then exact integer sums in shared memory ----
//
// The host's path for many keys (more than RS_KEY_LOCAL, at most RS_KR_MAXR ranges): the keys
// are cut into ranges of 2^s consecutive keys (key >> s is a key's range), 2^s as large as a
// block's shared memory holds one accumulator per key of a range. Then:
//   rs_kr_count   counts the values of each range (hist, shared-memory counts per block) and
//                 checks every key (err[0] = 1 for a key outside [0, nkeys)); the host reads
//                 that verdict back before anything else runs. An integer scan (the
//                 rs_u64_scan kernels) turns the counts into each range's start and a cursor.
//   rs_kr_part_*  one or two partition passes move the (key, value) pairs so that each
//                 range's pairs are contiguous (keys as 32-bit words): a block takes a tile,
//                 counts its pairs per digit of the range number in shared memory, claims
//                 each digit's places with one global atomic add, stages the pairs in
//                 shared memory in digit order and writes them out, so that the stores of a
//                 digit are consecutive. A first pass by the range's high digit and a second
//                 within each high digit's segment (rs_kr_part2_*) by the low digit, where
//                 the ranges need more than one digit.
//   rs_kr_plan    (one block) each segment's tiles: its length over the tile size, rounded
//                 up (at least one for a range, so that every key's sum is written), as
//                 prefix sums; a block finds its segment by a binary search.
//   rs_kr_acc_*   each block takes a tile of one range and keeps, in shared memory, each key's
//                 window (the bin of its largest magnitude so far) and, per slot of the
//                 window, the sum of its values' pieces as an integer (units of the slot's
//                 last place; 64-bit for f64, 32-bit for f32): rounds of RS_KR_ACC_U values
//                 a thread: the keys' window ranks (atomic maximum), a barrier, each key
//                 whose rank rose raises its window (its sums move down the slots, the lowest
//                 dropped; skipped when no rank rose in the round), a barrier, each value's
//                 pieces added (atomic adds). At the end each key's sums become its
//                 renormalised state: primary = the slot's bin plus the sum modulo a quarter
//                 of the bin's binade, carry = the whole quarters. A range of one tile writes
//                 each key's value; a range of several stores the states, and rs_kr_merge_*
//                 merges each key's states in order and writes its value.
// Why the bits are the core's: a value's piece in a slot is the rounding of its remainder to
// the slot's grid (the forced low bit rules out ties), whatever the slot's running sum, so
// the pieces are those of the core's deposits with the same window; a slot's sum of pieces is
// exact (integers), so its renormalised state is a function of the multiset alone; the core
// raises a window the same way (the slots above take nothing from values below them: their
// pieces round to zero there), and merges are exact. So a key's state, hence its bits, cannot
// depend on the order, the partition, the schedule, the grid or the block size. No sum can
// overflow: a value in a window's bins is below 2^(W-1) units of the top slot's last place,
// and a remainder below half a unit of the slot above, which is 2^(W-1) units of the next
// (the bins are W bits apart), so every piece is at most 2^39 units (f64) or 2^12 (f32); a
// tile holds at most 2^21 values for f64 and 2^17 for f32 (the host's limits), so every sum
// stays below 2^60 and 2^29.

// Values per thread of a partition tile, and of a round of the accumulation.
#ifndef RS_KR_U
#define RS_KR_U 8
#endif
#ifndef RS_KR_ACC_U
#define RS_KR_ACC_U 8
#endif
#ifndef RS_KR_COUNT_U
#define RS_KR_COUNT_U 4
#endif

// The segment g of a list of segments over the starts `start` (start[g * stride] up to
// start[min((g + 1) * stride, last)]).
RS_DEV void rs_kr_seg(const rs_u64* start, rs_u64 g, rs_u64 stride, rs_u64 last, rs_u64& lo, rs_u64& hi) {
  const rs_u64 e = (g + 1) * stride;
  lo = start[g * stride];
  hi = start[e < last ? e : last];
}

// The segment of block b: g with first[g] <= b < first[g + 1] (first: nseg + 1 non-decreasing
// words, first[0] = 0), or nseg when b >= first[nseg].
RS_DEV rs_u64 rs_kr_find(const rs_u64* first, rs_u64 nseg, rs_u64 b) {
  if (b >= first[nseg]) return nseg;
  rs_u64 lo = 0, hi = nseg;
  while (hi - lo > 1) {
    const rs_u64 mid = lo + (hi - lo) / 2;
    if (first[mid] <= b) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// hist[r] (nr words, zeroed by the host) gets the number of values whose key is in range r;
// err[0] = 1 for a key outside [0, nkeys). Shared memory: nr 32-bit counts (a block counts
// fewer than 2^32 values: the host's limit on n).
RS_DEV void rs_kr_count_body(const rs_i64* keys, rs_u64 n, rs_u64 nkeys, rs_u64 s, rs_u64 nr, rs_u64* hist,
                             rs_u32* err) {
  RS_DYN_SHARED(rs_smem);
  rs_u32* h = reinterpret_cast<rs_u32*>(rs_smem);
  const unsigned tid = RS_TID, B = RS_BDIM;
  for (rs_u64 r = tid; r < nr; r += B) h[r] = 0;
  RS_SYNC();
  bool bad = false;
  const rs_u64 step = RS_GDIM * (rs_u64)B;
  rs_u64 i = RS_BID * (rs_u64)B + tid;
  // RS_KR_COUNT_U keys in flight a thread (the pass is a read of the keys), then the rest.
  for (; i + (RS_KR_COUNT_U - 1) * step < n; i += RS_KR_COUNT_U * step) {
    rs_i64 k[RS_KR_COUNT_U];
#pragma unroll
    for (int u = 0; u < RS_KR_COUNT_U; ++u) k[u] = keys[i + u * step];
#pragma unroll
    for (int u = 0; u < RS_KR_COUNT_U; ++u) {
      if (k[u] < 0 || (rs_u64)k[u] >= nkeys) {
        bad = true;
      } else {
        RS_ATOMIC_ADD_U32(h + ((rs_u64)k[u] >> s), 1u);
      }
    }
  }
  for (; i < n; i += step) {
    const rs_i64 k = keys[i];
    if (k < 0 || (rs_u64)k >= nkeys) {
      bad = true;
    } else {
      RS_ATOMIC_ADD_U32(h + ((rs_u64)k >> s), 1u);
    }
  }
  RS_SYNC();
  for (rs_u64 r = tid; r < nr; r += B) {
    const rs_u32 c = h[r];
    if (c) RS_ATOMIC_ADD_U64(hist + r, (rs_u64)c);
  }
  if (bad) err[0] = 1u;
}

// The tiles of each of nseg segments (rs_kr_seg over start, stride, last) of `tile` positions,
// at least `at_least`: first[g] = the tiles of the segments before g (first[nseg] all of
// them); with `multi`, multi[g] = those of the segments before g that have more than one tile.
// `copy` (when not null) gets start[0..=last]. One block; shared memory: blockDim + 1 words.
RS_DEV void rs_kr_plan_body(const rs_u64* start, rs_u64 nseg, rs_u64 stride, rs_u64 last, rs_u64 tile,
                            rs_u64 at_least, rs_u64* first, rs_u64* multi, rs_u64* copy) {
  RS_DYN_SHARED(rs_smem);
  rs_u64* S = reinterpret_cast<rs_u64*>(rs_smem);
  const unsigned tid = RS_TID, B = RS_BDIM;
  if (RS_BID != 0) return;  // the same for the block
  if (copy)
    for (rs_u64 i = tid; i <= last; i += B) copy[i] = start[i];
  const rs_u64 per = (nseg + B - 1) / B, g0 = (rs_u64)tid * per;
  rs_u64 v = 0, vm = 0;
  for (rs_u64 g = g0; g < g0 + per && g < nseg; ++g) {
    rs_u64 lo, hi;
    rs_kr_seg(start, g, stride, last, lo, hi);
    rs_u64 t = (hi - lo + tile - 1) / tile;
    t = t < at_least ? at_least : t;
    v += t;
    vm += t > 1 ? t : 0;
  }
  rs_u64 total, total_m;
  rs_u64 run = rs_u64_block_exclusive(v, S, total);
  rs_u64 run_m = rs_u64_block_exclusive(vm, S, total_m);
  for (rs_u64 g = g0; g < g0 + per && g < nseg; ++g) {
    rs_u64 lo, hi;
    rs_kr_seg(start, g, stride, last, lo, hi);
    rs_u64 t = (hi - lo + tile - 1) / tile;
    t = t < at_least ? at_least : t;
    first[g] = run;
    run += t;
    if (multi) multi[g] = run_m;
    run_m += t > 1 ? t : 0;
  }
  if (tid == 0) {
    first[nseg] = total;
    if (multi) multi[nseg] = total_m;
  }
}

// One partition pass: the pairs of each segment (without `start`: one segment, [0, n), its
// tiles taken in turn by the blocks; with it, block b takes tile b - first[g] of segment g,
// rs_kr_seg(start, g, stride, last)) are moved, by the digit d = ((key >> s) >> lo) & (D - 1)
// of their range, to cursor[g * stride + (d << lo)] onward (each digit's places claimed once a
// tile), keys as 32-bit words. Shared memory: D 64-bit bases, blockDim * RS_KR_U values and
// keys, D + 16 32-bit counts.
template <typename T, typename KT>
RS_DEV void rs_kr_part_body(const T* x, const KT* keys, rs_u64 n, rs_u64 s, rs_u64 lo, rs_u64 D,
                            const rs_u64* start, rs_u64 stride, rs_u64 last, const rs_u64* first,
                            rs_u64 nseg, rs_u64* cursor, T* xo, rs_u32* ko) {
  RS_DYN_SHARED(rs_smem);
  const unsigned tid = RS_TID, B = RS_BDIM;
  const rs_u64 TP = (rs_u64)B * RS_KR_U;
  rs_u64* gb = reinterpret_cast<rs_u64*>(rs_smem);
  T* xs = reinterpret_cast<T*>(gb + D);
  rs_u32* ks = reinterpret_cast<rs_u32*>(xs + TP);
  rs_u32* cnt = ks + TP;
  rs_u32* lst = cnt + D;
  rs_u32* part = lst + D;
  rs_u64 t0, t1, step, cbase = 0;
  if (start) {
    const rs_u64 g = rs_kr_find(first, nseg, RS_BID);
    if (g == nseg) return;  // the same for the block
    rs_u64 a, e;
    rs_kr_seg(start, g, stride, last, a, e);
    t0 = a + (RS_BID - first[g]) * TP;
    t1 = t0 + TP < e ? t0 + TP : e;
    step = 0;
    cbase = g * stride;
  } else {
    t0 = RS_BID * TP;
    t1 = t0 + TP < n ? t0 + TP : n;
    step = RS_GDIM * TP;
  }
  const rs_u32 mask = (rs_u32)(D - 1);
  const rs_u32 C = (rs_u32)((D + 15) / 16);
  while (t0 < t1) {
    for (rs_u64 d = tid; d < D; d += B) cnt[d] = 0;
    RS_SYNC();
    KT kk[RS_KR_U];
    T v[RS_KR_U];
    rs_u32 dg[RS_KR_U], rk[RS_KR_U];
#pragma unroll
    for (int u = 0; u < RS_KR_U; ++u) {
      const rs_u64 i = t0 + (rs_u64)u * B + tid;
      kk[u] = i < t1 ? keys[i] : (KT)0;
      v[u] = i < t1 ? x[i] : (T)0;
    }
#pragma unroll
    for (int u = 0; u < RS_KR_U; ++u) {
      dg[u] = (rs_u32)((((rs_u64)kk[u]) >> s) >> lo) & mask;
      rk[u] = t0 + (rs_u64)u * B + tid < t1 ? RS_ATOMIC_ADD_U32(cnt + dg[u], 1u) : 0u;
    }
    RS_SYNC();
    // Each digit's places claimed; the digits' local starts: C threads sum 16 counts each.
    for (rs_u64 d = tid; d < D; d += B) {
      const rs_u32 c = cnt[d];
      if (c) gb[d] = RS_ATOMIC_ADD_U64(cursor + cbase + (d << lo), (rs_u64)c);
    }
    for (rs_u32 c = tid; c < C; c += B) {
      rs_u32 sum = 0;
      for (rs_u32 j = 0; j < 16 && c * 16 + j < D; ++j) sum += cnt[c * 16 + j];
      part[c] = sum;
    }
    RS_SYNC();
    for (rs_u32 c = tid; c < C; c += B) {
      rs_u32 run = 0;
      for (rs_u32 j = 0; j < c; ++j) run += part[j];
      for (rs_u32 j = 0; j < 16 && c * 16 + j < D; ++j) {
        lst[c * 16 + j] = run;
        run += cnt[c * 16 + j];
      }
    }
    RS_SYNC();
#pragma unroll
    for (int u = 0; u < RS_KR_U; ++u) {
      if (t0 + (rs_u64)u * B + tid < t1) {
        const rs_u32 p = lst[dg[u]] + rk[u];
        xs[p] = v[u];
        ks[p] = (rs_u32)kk[u];
      }
    }
    RS_SYNC();
    // In digit order: each digit's values go to consecutive places.
    const rs_u32 m = (rs_u32)(t1 - t0);
    for (rs_u32 p = tid; p < m; p += B) {
      const rs_u32 k = ks[p];
      const rs_u32 d = (rs_u32)((((rs_u64)k) >> s) >> lo) & mask;
      const rs_u64 at = gb[d] + (p - lst[d]);
      xo[at] = xs[p];
      ko[at] = k;
    }
    if (step == 0) break;
    t0 += step;
    t1 = t0 + TP < n ? t0 + TP : n;
  }
}

// A slot's sum of pieces in the accumulation, in units of the slot's last place, two's
// complement, added by atomic adds (wrapping, so the order cannot matter) and exact where the
// host's tiles keep the sums in range: f32's in one 32-bit word, f64's in two (low, high).
// Shared-memory atomic adds of 32 bits are native; 64-bit ones are compare-and-swap loops on
// some GPUs (sm_90), so f64's low word takes a 32-bit add whose old value shows the carry,
// and the high word the piece's high half plus that carry (skipped when zero): the words
// hold the 64-bit sum exactly (every wrap of the low word is one carry).
struct RsKrWide {
  rs_u32 lo, hi;
};
template <typename T>
struct RsKrSum;
template <>
struct RsKrSum<double> {
  typedef RsKrWide S;
};
template <>
struct RsKrSum<float> {
  typedef rs_u32 S;
};
RS_DEV void rs_kr_add(RsKrWide* p, rs_i64 v) {
  const rs_u32 lo = (rs_u32)(rs_u64)v;
  const rs_u32 old = RS_ATOMIC_ADD_U32(&p->lo, lo);
  const rs_u32 hi = (rs_u32)((rs_u64)v >> 32) + ((rs_u32)(old + lo) < old ? 1u : 0u);
  if (hi) RS_ATOMIC_ADD_U32(&p->hi, hi);
}
RS_DEV void rs_kr_add(rs_u32* p, rs_i64 v) { RS_ATOMIC_ADD_U32(p, (rs_u32)v); }
RS_DEV rs_i64 rs_kr_signed(const RsKrWide& v) { return (rs_i64)(((rs_u64)v.hi << 32) | v.lo); }
RS_DEV rs_i64 rs_kr_signed(rs_u32 v) { return (rs_i64)(int)v; }

// A key's slot sums with its window raised by `by` slots (the sums move down, the lowest
// `by` dropped, the new top ones zero).
template <typename S>
RS_DEV void rs_kr_raise(S* sums, int k, int by) {
  for (int j = k - 1; j >= 0; --j) sums[j] = j >= by ? sums[j - by] : S();
}

// The pieces of a finite x in the window starting at bin w (the core's deposit, rs_deposit or
// rs_deposit_top, against the slots' bins: the same pieces), each added to its slot's sum in
// units of the slot's last place (q and the bin share their exponent).
template <typename T>
RS_DEV void rs_kr_deposit(typename RsKrSum<T>::S* sums, int k, int w, T x) {
  typedef typename RsF<T>::U U;
  for (int j = 0; j < k; ++j) {
    const T m = rs_bin<T>(w + j);
    T q;
    if (j == 0 && w == 0) {
      q = rs_add(m, rs_low1(rs_mul(x, rs_pow2<T>(RsF<T>::COMP_EXP))));
      const T d = rs_mul(rs_sub(m, q), rs_pow2<T>(-RsF<T>::COMP_EXP - 1));
      x = rs_add(x, d);
      x = rs_add(x, d);
    } else {
      q = rs_add(m, rs_low1(x));
      x = rs_add(x, rs_sub(m, q));
    }
    const U diff = (U)(rs_bits(q) - rs_bits(m));
    const rs_i64 piece = sizeof(U) == 8 ? (rs_i64)diff : (rs_i64)(int)(rs_u32)diff;
    if (piece) rs_kr_add(sums + j, piece);
    // A zero remainder leaves nothing for the slots below (its low bit rounds away).
    if (rs_is_zero(x)) return;
  }
}

// The renormalised state of a key from its window (w: its top bin plus one, 0 for none) and
// slot sums, with its flags.
template <typename T, int K>
RS_DEV void rs_kr_state(RsAcc<T, K>& a, rs_u32 w, const typename RsKrSum<T>::S* sums, rs_u32 flags) {
  typedef typename RsF<T>::U U;
  rs_clear(a);
  a.flags = flags;
  if (w == 0) return;
  const int k = a.k.get();
  const int sh = RsF<T>::MANT - 2;
  for (int j = 0; j < k; ++j) {
    const rs_i64 S = rs_kr_signed(sums[j]);
    a.p[j] = rs_from_bits((U)(rs_bits(rs_bin<T>((int)w - 1 + j)) + (U)(S & (((rs_i64)1 << sh) - 1))));
    a.c[j] = (T)(S >> sh);
  }
}

// One tile of one range (see the section's comment). keys: 32-bit keys of the range's pairs
// (contiguous from start[r]); first/multi: rs_kr_plan's over the ranges (stride 1). Shared
// memory: 2^s * fold sums (RsKrSum), then 2^s 32-bit window ranks (MAX_INDEX + 1 - the bin
// index of the largest magnitude, 0 for none), windows and flags, then one word: the last
// round that raised a rank.
template <typename T, int K>
RS_DEV void rs_kr_acc_body(const T* x, const rs_u32* keys, const rs_u64* start, const rs_u64* first,
                           const rs_u64* multi, rs_u64 nr, rs_u64 s, rs_u64 nkeys, rs_u64 tile, T* out,
                           T* partial, RsFold<K> fold) {
  typedef typename RsF<T>::U U;
  typedef typename RsKrSum<T>::S S;
  RS_DYN_SHARED(rs_smem);
  const unsigned tid = RS_TID, B = RS_BDIM;
  const int k = fold.get();
  const rs_u64 L = (rs_u64)1 << s;
  const rs_u64 r = rs_kr_find(first, nr, RS_BID);
  if (r == nr) return;  // the same for the block
  const rs_u64 t = RS_BID - first[r], np = first[r + 1] - first[r];
  const rs_u64 a0 = start[r] + t * tile, e = start[r + 1];
  const rs_u64 a1 = a0 + tile < e ? a0 + tile : e;
  S* sums = reinterpret_cast<S*>(rs_smem);
  rs_u32* mx = reinterpret_cast<rs_u32*>(sums + L * (rs_u64)k);
  rs_u32* win = mx + L;
  rs_u32* fl = win + L;
  rs_u32* raised = fl + L;
  for (rs_u64 i = tid; i < L * (rs_u64)k; i += B) sums[i] = S();
  for (rs_u64 i = tid; i < L; i += B) {
    mx[i] = 0;
    win[i] = 0;
    fl[i] = 0;
  }
  if (tid == 0) *raised = 0;
  const rs_u32 none = (rs_u32)L;
  RS_SYNC();
  // Two barriers a round: the windows' pass sees every rank of the round and waits for the
  // previous round's deposits; the deposits see the raised windows. Between them nothing
  // writes `raised`, so every thread reads the same word; a round that raised no rank (most
  // rounds, once each key's window is set) leaves every window as it is and skips the pass.
  rs_u32 round = 0;
  for (rs_u64 c0 = a0; c0 < a1; c0 += (rs_u64)B * RS_KR_ACC_U) {
    ++round;
    rs_u32 lk[RS_KR_ACC_U];
    T v[RS_KR_ACC_U];
#pragma unroll
    for (int u = 0; u < RS_KR_ACC_U; ++u) {
      const rs_u64 i = c0 + (rs_u64)u * B + tid;
      lk[u] = none;
      v[u] = (T)0;
      if (i < a1) {
        lk[u] = keys[i] & (rs_u32)(L - 1);
        v[u] = x[i];
      }
    }
#pragma unroll
    for (int u = 0; u < RS_KR_ACC_U; ++u) {
      if (lk[u] == none) continue;
      const U bits = rs_bits(v[u]);
      const U mag = bits & ~RsF<T>::SIGN;
      if (mag >= RsF<T>::INF_BITS) {
        RS_ATOMIC_OR_U32(fl + lk[u], rs_special_flag<T>(bits));
        lk[u] = none;
      } else {
        const rs_u32 m = (rs_u32)(RsF<T>::MAX_INDEX + 1 - rs_index<T>(mag));
        // A stale read only costs an atomic: the rank never falls.
        if (m > mx[lk[u]]) {
          RS_ATOMIC_MAX_U32(mx + lk[u], m);
          RS_ATOMIC_MAX_U32(raised, round);
        }
      }
    }
    RS_SYNC();
    if (*raised == round) {
      for (rs_u64 j = tid; j < L; j += B) {
        const rs_u32 m = mx[j];
        if (m == 0) continue;
        const rs_u32 ix = (rs_u32)RsF<T>::MAX_INDEX + 1 - m;
        const rs_u32 w = win[j];
        if (w == 0 || ix + 1 < w) {
          if (w != 0) rs_kr_raise(sums + j * (rs_u64)k, k, (int)(w - 1 - ix));
          win[j] = ix + 1;
        }
      }
    }
    RS_SYNC();
#pragma unroll
    for (int u = 0; u < RS_KR_ACC_U; ++u)
      if (lk[u] != none) rs_kr_deposit<T>(sums + lk[u] * (rs_u64)k, k, (int)win[lk[u]] - 1, v[u]);
  }
  RS_SYNC();
  for (rs_u64 j = tid; j < L; j += B) {
    const rs_u64 key = r * L + j;
    if (key >= nkeys) break;
    RsAcc<T, K> a(fold);
    rs_kr_state(a, win[j], sums + j * (rs_u64)k, fl[j]);
    if (np == 1) {
      out[key] = rs_value(a);
    } else {
      rs_store(partial, ((multi[r] + t) * L + j) * (rs_u64)(2 * k + 1), 1, a);
    }
  }
}

// The value of each key of a range of several tiles: its tiles' states merged in order.
template <typename T, int K>
RS_DEV void rs_kr_merge_body(const rs_u64* first, const rs_u64* multi, rs_u64 s, rs_u64 nkeys, const T* partial,
                             T* out, RsFold<K> fold) {
  const int k = fold.get();
  const rs_u64 L = (rs_u64)1 << s;
  for (rs_u64 key = RS_BID * RS_BDIM + RS_TID; key < nkeys; key += RS_GDIM * RS_BDIM) {
    const rs_u64 r = key >> s, np = first[r + 1] - first[r];
    if (np <= 1) continue;
    RsAcc<T, K> a(fold), b(fold);
    rs_clear(a);
    for (rs_u64 t = 0; t < np; ++t) {
      rs_load(partial, ((multi[r] + t) * L + (key & (L - 1))) * (rs_u64)(2 * k + 1), 1, b);
      rs_merge_renormed(a, b);
    }
    out[key] = rs_value(a);
  }
}

// The kernels (thin wrappers, as the keyed kernels above).
RS_KERNEL void rs_kr_count(const rs_i64* keys, rs_u64 n, rs_u64 nkeys, rs_u64 s, rs_u64 nr, rs_u64* hist,
                           rs_u32* err) {
  rs_kr_count_body(keys, n, nkeys, s, nr, hist, err);
}
RS_KERNEL void rs_kr_plan(const rs_u64* start, rs_u64 nseg, rs_u64 stride, rs_u64 last, rs_u64 tile,
                          rs_u64 at_least, rs_u64* first, rs_u64* multi, rs_u64* copy) {
  rs_kr_plan_body(start, nseg, stride, last, tile, at_least, first, multi, copy);
}
#define RS_INSTANTIATE_KR(T, TN, K)                                                                 \
  RS_KERNEL void rs_kr_part_##TN(const T* x, const rs_i64* keys, rs_u64 n, rs_u64 s, rs_u64 lo,     \
                                 rs_u64 D, rs_u64* cursor, T* xo, rs_u32* ko) {                     \
    rs_kr_part_body<T, rs_i64>(x, keys, n, s, lo, D, nullptr, 0, 0, nullptr, 0, cursor, xo, ko);    \
  }                                                                                                 \
  RS_KERNEL void rs_kr_part2_##TN(const T* x, const rs_u32* keys, rs_u64 s, rs_u64 D,               \
                                  const rs_u64* start, rs_u64 stride, rs_u64 last,                  \
                                  const rs_u64* first, rs_u64 nseg, rs_u64* cursor, T* xo,          \
                                  rs_u32* ko) {                                                     \
    rs_kr_part_body<T, rs_u32>(x, keys, 0, s, 0, D, start, stride, last, first, nseg, cursor, xo,  \
                               ko);                                                                 \
  }                                                                                                 \
  RS_KERNEL void rs_kr_acc_##TN(const T* x, const rs_u32* keys, const rs_u64* start,                \
                                const rs_u64* first, const rs_u64* multi, rs_u64 nr, rs_u64 s,      \
                                rs_u64 nkeys, rs_u64 tile, T* out, T* partial, rs_u64 fold) {       \
    rs_kr_acc_body<T, K>(x, keys, start, first, multi, nr, s, nkeys, tile, out, partial,            \
                         RsFold<K>(fold));                                                          \
  }                                                                                                 \
  RS_KERNEL void rs_kr_merge_##TN(const rs_u64* first, const rs_u64* multi, rs_u64 s, rs_u64 nkeys, \
                                  const T* partial, T* out, rs_u64 fold) {                          \
    rs_kr_merge_body<T, K>(first, multi, s, nkeys, partial, out, RsFold<K>(fold));                  \
  }

RS_INSTANTIATE_KR(double, f64, -52)
RS_INSTANTIATE_KR(float, f32, -21)

// ---- The single-pass cumsum: decoupled look-back over the tiles' states ----------------
//
// One launch of ntiles blocks. Each block takes the next tile number from a counter (so
// every tile before it belongs to a block that is running or done: the look-back always
// progresses), loads its tile once, computes the tile's state (its aggregate), publishes it,
// then looks back over the tiles before it, merging their aggregates until it finds a tile
// that has published its inclusive prefix (tile 0 always does, with the start merged in),
// publishes its own inclusive prefix and scans its tile from the exclusive one. Every state
// published is renormalised, and the exact merge of renormalised states does not depend on
// their order or grouping, so a tile's prefix has the same bits whichever tiles the
// look-back found done: the outputs are those of the one-at-a-time definition for any grid,
// block and timing. A tile on the fixed-window path (its largest magnitude gives a window
// with a cached conversion, and its prefix's window is one that no value of the tile raises)
// is read from global memory once and written once. Any other tile (tile 0 without a start,
// a tile with NaN or Inf or values at the top bins, one whose values raise its prefix's
// window) writes nothing: its block stores its exclusive prefix (start included) at
// prefixes[t] in rs_tile_prefix's layout (the group's level-1 state empty) and appends t to
// `list`, and the general kernel (rs_tile_scan_body, a null start) scans the listed tiles
// after this launch. Only the fixed-window scan is in this kernel, so that it keeps few
// registers (occupancy).
//
// Publication: per tile two states (aggregate, inclusive) in `states` and a status word,
// (epoch << 2) | 1 for the aggregate, (epoch << 2) | 2 for the inclusive prefix; words of
// another epoch (an earlier call) read as nothing published. The host gives every call a
// new epoch (1 .. 2^30 - 1), and zeroes the words when it allocates them or runs out of
// epochs, so a call needs no memset. The state words are stored, then a fence, then the
// status word; a reader reads the status word, then a fence, then the state words
// (volatile). Control words: ctl[0] the tile counter (the block that takes the last tile
// resets it: every block has taken its tile by then), ctl[1 + epoch % 2] this call's list
// count, which the general kernel reads after this launch; the block of tile 0 zeroes the
// other, the previous call's (read by a kernel that has finished), so the next call finds it
// zero.

// Status values of a tile's word (the low two bits).
#define RS_LB_AGGREGATE 1u
#define RS_LB_INCLUSIVE 2u

// Whether tile t (> 0) publishes its inclusive prefix (the emulator withholds some, so that
// the look-back's aggregate path runs although its blocks run one after another).
#ifndef RS_LB_PUBLISH_INCLUSIVE
#define RS_LB_PUBLISH_INCLUSIVE(t) true
#endif

// The look-back kernel's shared memory in bytes: rs_fixed_smem's layout, with room at
// `vals` for the tile or for a block reduce's states (B (2K + 1) values).
template <typename T, int K, int E>
RS_DEV rs_u64 rs_lb_smem_bytes(unsigned B) {
  const rs_u64 st = 2 * K + 1;
  const rs_u64 m = 16 + (rs_u64)K * (rs_part_row(B) + RS_RAKE) * sizeof(double);
  const rs_u64 v = (m + (rs_u64)(B + RS_RAKE) * sizeof(typename RsF<T>::U) + st * sizeof(T) + 15) & ~(rs_u64)15;
  return v + (rs_u64)B * ((rs_u64)E > st ? (rs_u64)E : st) * sizeof(T);
}

// Publishes state a of tile t (which: 0 aggregate, 1 inclusive) with its status word.
template <typename T, int K>
RS_DEV void rs_lb_publish(T* states, rs_u32* status, rs_u64 t, rs_u32 which, rs_u32 epoch, const RsAcc<T, K>& a) {
  rs_store(states, (2 * t + which) * (rs_u64)(2 * K + 1), 1, a);
  RS_FENCE();
  volatile rs_u32* vs = status;
  vs[t] = (epoch << 2) | (which ? RS_LB_INCLUSIVE : RS_LB_AGGREGATE);
}

// The exclusive prefix of tile t > 0 (renormalised), from the tiles before it: their
// aggregates, from t - 1 down, until one whose inclusive prefix is published (tile 0's
// always is). Waits for each tile's first publication.
template <typename T, int K>
RS_DEV void rs_lb_look_back(const T* states, const rs_u32* status, rs_u64 t, rs_u32 epoch, RsAcc<T, K>& pre) {
  const volatile rs_u32* vs = status;
  const volatile T* vt = states;
  const rs_u64 st = 2 * K + 1;
  rs_clear(pre);
  rs_u64 j = t;
#pragma unroll 1
  while (j > 0) {
    --j;
    rs_u32 w = vs[j];
#pragma unroll 1
    while ((w >> 2) != epoch) w = vs[j];
    RS_FENCE();
    const bool inclusive = (w & 3u) == RS_LB_INCLUSIVE;
    RsAcc<T, K> o;
    rs_load_volatile(vt, (2 * j + (inclusive ? 1u : 0u)) * st, o);
    rs_merge_renormed(pre, o);
    if (inclusive) break;
  }
}

template <typename T, int K, int E>
RS_DEV void rs_cumsum_lookback_body(const T* x, T* out, rs_u64 n, const T* start, rs_u64 ntiles, T* states,
                                    rs_u32* status, rs_u32* ctl, T* prefixes, rs_u32* list, rs_u32 epoch) {
  typedef typename RsF<T>::U U;
  RS_DYN_SHARED(rs_smem);
  const unsigned tid = RS_TID, B = RS_BDIM;
  const RsFixedSmem<T> sm = rs_fixed_smem<T, K>(rs_smem);
  rs_u32* tile_no = reinterpret_cast<rs_u32*>(rs_smem);  // the 16-byte header
  if (tid == B - 1) {
    const rs_u32 got = RS_ATOMIC_ADD_U32(ctl, 1u);
    if ((rs_u64)got + 1 == ntiles) ctl[0] = 0;  // the last tile: every block has its own
    if (got == 0) ctl[1 + ((epoch + 1) & 1u)] = 0;  // the previous call's list count
    *tile_no = got;
  }
  RS_SYNC();
  const rs_u64 t = *tile_no;
  if (t >= ntiles) return;  // (a grid of ntiles blocks: never; the same for the block)
  const rs_u64 tile = (rs_u64)B * E;
  const rs_u64 base = t * tile;
  // The last tile may be partial: zeros stand for the values past n (see the fixed kernels).
  const unsigned cnt = (unsigned)(n - base < tile ? n - base : tile);
  rs_u32 mx = 0;  // the largest key (rs_mag_key)
  {
    T v[E];
    rs_fetch<T, E>(x + base, cnt, v);
#pragma unroll
    for (int j = 0; j < E; ++j) {
      const rs_u32 m = rs_mag_key(v[j]);
      mx = m > mx ? m : mx;
    }
    rs_put<T, E, false>(x + base, cnt, v, sm.vals);
  }
  // rs_block_max's first barrier publishes the tile.
  const U top_mag = rs_block_max<T>(rs_key_mag<T>(mx), sm.M);
  // The tile's state (thread `pub` holds it): the fixed-window reduce (as
  // rs_tile_reduce_fixed_body), keeping each thread's exclusive sums of pieces for the scan,
  // or per-thread states and a block merge.
  RsAcc<T, K> agg;
  rs_clear(agg);
  RsWin<T, K> w;
  w.fast = false;
  if (tile <= rs_fast_tile_max<T>() && top_mag < RsF<T>::INF_BITS) {
    rs_update(agg, rs_index<T>(top_mag));
    rs_win_set(w, agg);
  }
  const bool own = w.fast;  // the same for every thread
  const int own_top = own ? rs_window_index(agg.p[0]) : -1;
  double sown[K];
  unsigned pub = 0;
  if (own) {
    T part[K];
    rs_parts<T, K, E>(sm.vals, tid, w, part);
    rs_block_exclusive_parts<T, K>(part, sm.D);
#pragma unroll
    for (int j = 0; j < K; ++j) sown[j] = sm.D[j * rs_part_row(B) + rs_part_pos(tid)];
    pub = B - 1;
    if (tid == B - 1) {
#pragma unroll
      for (int j = 0; j < K; ++j) {
        const double q = (double)w.b6[j];
        double rem, whole;
        rs_split(rs_add(sown[j], (double)part[j]), q, rs_inv_pow2(q), rem, whole);
        agg.p[j] = rs_add(w.bj[j], (T)rem);  // exact: the remainder is below q = B / 6
        agg.c[j] = (T)whole;
      }
    }
  } else {
    // From global memory (the tile in shared memory is not read again): the block reduce's
    // states go where the tile was, clear of the magnitudes that rs_block_max's last reads
    // take. (The general kernel scans this tile.)
#pragma unroll
    for (int j = 0; j < K; ++j) sown[j] = 0.0;
    rs_clear(agg);
    if (base + tile <= n) {
      T v[E];
#pragma unroll
      for (int j = 0; j < E; ++j) v[j] = x[base + (rs_u64)j * B + tid];
      rs_add_chunk(agg, v);
    } else {
      for (int j = 0; j < E; ++j) {
        const rs_u64 i = base + (rs_u64)j * B + tid;
        if (i < n) rs_add_one(agg, x[i]);
      }
    }
    rs_block_reduce(agg, sm.vals);
  }
  if (tid == pub) {
    RsAcc<T, K> pre;
    if (t == 0) {
      rs_clear(pre);
      rs_merge_start<T, K>(start, pre);
    } else {
      rs_lb_publish<T, K>(states, status, t, 0u, epoch, agg);
      rs_lb_look_back<T, K>(states, status, t, epoch, pre);
    }
    if (t == 0 || RS_LB_PUBLISH_INCLUSIVE(t)) {
      RsAcc<T, K> inc = agg, p = pre;
      rs_merge_renormed(inc, p);
      rs_lb_publish<T, K>(states, status, t, 1u, epoch, inc);
    }
    rs_store(sm.pre, 0, 1, pre);
  }
  RS_SYNC();
  RsAcc<T, K> pre;
  rs_load(sm.pre, 0, 1, pre);
  RsWin<T, K> pw;
  rs_win_set(pw, pre);
  // The fixed-window scan when the tile's values leave the prefix's window unchanged (its
  // largest magnitude is below the threshold): the same for the block.
  if (!(own && pw.fast && top_mag < pw.thr)) {
    if (tid == 0) {
      const rs_u64 st = 2 * K + 1;
      rs_store(prefixes, t * st, 1, pre);
      RsAcc<T, K> e;
      rs_clear(e);
      rs_store(prefixes, (ntiles + t / RS_GROUP) * st, 1, e);  // the same empty state for the group
      list[RS_ATOMIC_ADD_U32(ctl + 1 + (epoch & 1u), 1u)] = (rs_u32)t;
    }
    return;
  }
  double stv[K];
  if (rs_window_index(pre.p[0]) == own_top) {
    // The pieces against the prefix's window are those the reduce took.
#pragma unroll
    for (int j = 0; j < K; ++j) stv[j] = sown[j];
  } else {
    T part[K];
    rs_parts<T, K, E>(sm.vals, tid, pw, part);
    rs_block_exclusive_parts<T, K>(part, sm.D);
#pragma unroll
    for (int j = 0; j < K; ++j) stv[j] = sm.D[j * rs_part_row(B) + rs_part_pos(tid)];
  }
  T rem[K];
  double ct[K];
  rs_start<T, K>(pre, pw, stv, rem, ct);
  rs_replay<T, K, E>(sm.vals, tid, pw, rem, ct);
  rs_stage_out<T, E>(sm.vals, out + base, cnt);
}

// The kernels of one type at fold K (K > 0), or at any fold up to -K (K < 0: the fold is the
// last argument; the kernels named _kn), with the suffix _k##KN. Every kernel takes the fold
// as its last argument (a constant fold's kernels ignore it), so that one argument list
// serves both.
#define RS_INSTANTIATE_GENERAL(T, TN, KN, K)                                                          \
  RS_KERNEL void RS_SUM_BOUNDS_##TN##_##KN rs_sum_##TN##_k##KN(const T* x, rs_u64 n, T* states,             \
                                                        rs_u32* counter, T* result, rs_u64 fold) {  \
    rs_sum_body<T, K>(x, n, states, counter, result, RsFold<K>(fold));                              \
  }                                                                                                 \
  RS_KERNEL void rs_rows_short_##TN##_k##KN(const T* x, rs_u64 rows, rs_u64 cols, rs_u64 stride,     \
                                            T* out, rs_u64 fold) {                                  \
    rs_rows_short_body<T, K>(x, rows, cols, stride, out, RsFold<K>(fold));                          \
  }                                                                                                 \
  RS_KERNEL void rs_rows_long_##TN##_k##KN(const T* x, rs_u64 rows, rs_u64 cols, rs_u64 stride,      \
                                           T* out, rs_u64 fold) {                                   \
    rs_rows_long_body<T, K>(x, rows, cols, stride, out, RsFold<K>(fold));                           \
  }                                                                                                 \
  RS_KERNEL void rs_tile_reduce_##TN##_k##KN(const T* x, rs_u64 n, T* tiles, const rs_u32* count,   \
                                             const rs_u32* list, rs_u64 fold) {                     \
    rs_tile_reduce_body<T, K, RsF<T>::TILE_E>(x, n, tiles, count, list, RsFold<K>(fold));           \
  }                                                                                                 \
  RS_KERNEL void rs_tile_prefixes_##TN##_k##KN(T* tiles, rs_u64 ntiles, rs_u32* ctl, rs_u64 fold) { \
    rs_tile_prefixes_body<T, K>(tiles, ntiles, ctl, RsFold<K>(fold));                               \
  }                                                                                                 \
  RS_KERNEL void rs_tile_scan_##TN##_k##KN(const T* x, T* out, rs_u64 n, const T* prefixes,         \
                                           const T* start, rs_u64 ntiles, const rs_u32* count,      \
                                           const rs_u32* list, rs_u64 fold) {                       \
    rs_tile_scan_body<T, K, RsF<T>::TILE_E>(x, out, n, prefixes, start, ntiles, count, list,        \
                                            RsFold<K>(fold));                                       \
  }                                                                                                 \
  RS_KERNEL void rs_seg_sum_##TN##_k##KN(const T* x, const rs_u64* off, rs_u64 nseg, rs_u64 stride,  \
                                         rs_u64 cols, rs_u64 lmin, rs_u64 span,                     \
                                         const rs_u64* tile_first, rs_u64 ntiles, rs_u64 m,         \
                                         const rs_u32* count, const rs_u32* list, T* heads,         \
                                         T* tails, T* out, const rs_u32* err, rs_u64 fold) {        \
    if (rs_seg_bad(err)) return;                                                                    \
    const rs_u64 tile = (rs_u64)RS_BDIM * RsF<T>::SEG_E;                                            \
    rs_seg_sum_tiles<T, K, RsF<T>::SEG_E>(                                                          \
        x, rs_seg_groups_long(off, nseg, stride, cols, lmin, tile_first, ntiles, tile, m), span,     \
        tile_first, ntiles, count, list, heads, tails, out, RsFold<K>(fold));                       \
  }                                                                                                 \
  RS_KERNEL void rs_seg_long_##TN##_k##KN(const T* x, const rs_u64* off, rs_u64 nseg, rs_u64 stride, \
                                          rs_u64 cols, rs_u64 lmin, rs_u64 span,                    \
                                          const rs_u64* tile_first, rs_u64 ntiles, rs_u64 tile,     \
                                          rs_u64 m, T* lheads, T* ltails, T* out, const rs_u32* err, \
                                          rs_u64 fold) {                                            \
    if (rs_seg_bad(err)) return;                                                                    \
    rs_seg_long_body<T, K>(x, rs_seg_groups_long(off, nseg, stride, cols, lmin, tile_first, ntiles, tile, m), \
                           span, tile_first, ntiles, tile, m, lheads, ltails, out, RsFold<K>(fold)); \
  }                                                                                                 \
  RS_KERNEL void rs_seg_join_##TN##_k##KN(const rs_u64* off, rs_u64 nseg, rs_u64 stride, rs_u64 cols, \
                                          rs_u64 lmin, rs_u64 span, const rs_u64* tile_first,       \
                                          rs_u64 ntiles, rs_u64 tile, rs_u64 m, const T* heads,     \
                                          const T* tails, const T* lheads, const T* ltails, T* out, \
                                          const rs_u32* err, rs_u64 fold) {                         \
    if (rs_seg_bad(err)) return;                                                                    \
    rs_seg_join_body<T, K>(rs_seg_groups_long(off, nseg, stride, cols, lmin, tile_first, ntiles, tile, m), \
                           span, tile_first, ntiles, tile, m, heads, tails, lheads, ltails, out,    \
                           RsFold<K>(fold));                                                        \
    }                                                                                                 \
  RS_KERNEL void RS_DENSE_BOUNDS_##TN##_##KN rs_seg_dense_##TN##_k##KN(const T* x, const rs_u64* off, rs_u64 nseg, rs_u64 span,  \
                                           rs_u64 cap, rs_u64 w, rs_u64 nchunks, rs_u64* pos,       \
                                           rs_u64* first, T* slots, rs_u32* whole, T* lheads,       \
                                           T* ltails, rs_u32* err, rs_u64 fold) {                   \
    span = rs_dense_span(off, nseg, span);                                                          \
    rs_seg_check(off, nseg, span, cap, err);                                                        \
    rs_seg_dense_body<T, K, false>(x, off, nseg, span, cap, w, nchunks, pos, first, slots, whole,    \
                                   lheads, ltails, RsFold<K>(fold));                                \
  }                                                                                                 \
  RS_KERNEL void RS_DENSE_BOUNDS_##TN##_##KN rs_seg_dense_teams_##TN##_k##KN(const T* x, const rs_u64* off, rs_u64 nseg, rs_u64 span,  \
                                           rs_u64 cap, rs_u64 w, rs_u64 nchunks, rs_u64* pos,       \
                                           rs_u64* first, T* slots, rs_u32* whole, T* lheads,       \
                                           T* ltails, rs_u32* err, rs_u64 fold) {                   \
    span = rs_dense_span(off, nseg, span);                                                          \
    rs_seg_check(off, nseg, span, cap, err);                                                        \
    rs_seg_dense_body<T, K, true>(x, off, nseg, span, cap, w, nchunks, pos, first, slots, whole,     \
                                  lheads, ltails, RsFold<K>(fold));                                 \
  }                                                                                                 \
  RS_KERNEL void rs_seg_dense_join_##TN##_k##KN(const rs_u64* off, rs_u64 nseg, rs_u64 nchunks,      \
                                                const rs_u64* pos, const rs_u64* first,             \
                                                const T* slots, const rs_u32* whole,                \
                                                const T* lheads, const T* ltails, T* out,           \
                                                const rs_u32* err, rs_u32* verdict, rs_u32* clear,  \
                                                rs_u64 fold) {                                      \
    rs_seg_dense_verdict(err, verdict, clear, off, nseg);                                           \
    if (rs_seg_bad(err)) return;                                                                    \
    rs_seg_dense_join_body<T, K>(off, nseg, nchunks, pos, first, slots, whole, lheads, ltails, out, \
                                 RsFold<K>(fold));                                                  \
  }

// A constant fold: the general kernels and the fixed-window ones (whose per-slot arrays of
// the block need a constant fold).
#define RS_INSTANTIATE(T, TN, K)                                                                    \
  RS_INSTANTIATE_GENERAL(T, TN, K, K)                                                               \
  RS_KERNEL void rs_tile_reduce_fixed_##TN##_k##K(const T* x, rs_u64 n, T* tiles, rs_u32* count,    \
                                                  rs_u32* list, T* parts, rs_u32* tops,             \
                                                  rs_u64 fold) {                                    \
    (void)fold;                                                                                     \
    rs_tile_reduce_fixed_body<T, K, RsF<T>::TILE_E>(x, n, tiles, count, list, parts, tops);         \
  }                                                                                                 \
  RS_KERNEL void rs_tile_scan_fixed_##TN##_k##K(const T* x, T* out, rs_u64 n, const T* prefixes,    \
                                                const T* start, rs_u64 ntiles, rs_u32* count,       \
                                                rs_u32* list, const T* parts, const rs_u32* tops,   \
                                                rs_u64 fold) {                                      \
    (void)fold;                                                                                     \
    rs_tile_scan_fixed_body<T, K, RsF<T>::TILE_E>(x, out, n, prefixes, start, ntiles, count, list,  \
                                                  parts, tops);                                     \
  }                                                                                                 \
  RS_KERNEL void rs_cumsum_lookback_##TN##_k##K(const T* x, T* out, rs_u64 n, const T* start,       \
                                                rs_u64 ntiles, T* states, rs_u32* status,           \
                                                rs_u32* ctl, T* prefixes, rs_u32* list,             \
                                                rs_u64 epoch, rs_u64 fold) {                        \
    (void)fold;                                                                                     \
    rs_cumsum_lookback_body<T, K, RsF<T>::TILE_E>(x, out, n, start, ntiles, states, status, ctl,     \
                                                  prefixes, list, (rs_u32)epoch);                   \
  }

// The sum kernel's launch bounds per type and fold (CUDA): folds 4 to 8 keep every slot in
// registers (f64 without bounds: 68 at fold 4, 84 to 124 at folds 5 to 8, which left two
// blocks of 256 threads per multiprocessor); bounded to three blocks (at most 80 registers;
// f64 folds 6 to 8 then spill a little to local memory) more loads are in flight: f64 folds
// 5 to 8 went from 84-85% to 91-96% of the plain read on the H200 (2026-12-03). f64 fold 8
// is bounded to two blocks (126 registers, nothing in local memory): at three it ran at
// 444 G values/s at 1e9 in the 2026-12-05 runs, at two 529 (92% of the plain read); f32 fold
// 8 (80 registers either way) is the same at two or three. The others have no bounds.
#define RS_SUM_BOUNDS_f64_2
#define RS_SUM_BOUNDS_f64_3
#define RS_SUM_BOUNDS_f64_4 RS_BOUNDS(256, 3)
#define RS_SUM_BOUNDS_f64_5 RS_BOUNDS(256, 3)
#define RS_SUM_BOUNDS_f64_6 RS_BOUNDS(256, 3)
#define RS_SUM_BOUNDS_f64_7 RS_BOUNDS(256, 3)
#define RS_SUM_BOUNDS_f64_8 RS_BOUNDS(256, 2)
#define RS_SUM_BOUNDS_f64_n
#define RS_SUM_BOUNDS_f32_2
#define RS_SUM_BOUNDS_f32_3
#define RS_SUM_BOUNDS_f32_4 RS_BOUNDS(256, 3)
#define RS_SUM_BOUNDS_f32_5 RS_BOUNDS(256, 3)
#define RS_SUM_BOUNDS_f32_6 RS_BOUNDS(256, 3)
#define RS_SUM_BOUNDS_f32_7 RS_BOUNDS(256, 3)
#define RS_SUM_BOUNDS_f32_8 RS_BOUNDS(256, 3)
#define RS_SUM_BOUNDS_f32_n

// The dense path's first kernel's launch bounds (CUDA): blocks of at most 64 threads (the
// host's), 14 of them a multiprocessor (at most 72 registers, as rs_seg_long's), where that
// spills at most 36 bytes (sm_90): without bounds f32 folds 2 to 5 took 79 to 94 registers and
// f64 folds 2 and 3 75 (12 blocks of 64 threads at most). The others have no bounds.
#define RS_DENSE_BOUNDS_f64_2 RS_BOUNDS(64, 14)
#define RS_DENSE_BOUNDS_f64_3 RS_BOUNDS(64, 14)
#define RS_DENSE_BOUNDS_f64_4
#define RS_DENSE_BOUNDS_f64_5
#define RS_DENSE_BOUNDS_f64_6
#define RS_DENSE_BOUNDS_f64_7
#define RS_DENSE_BOUNDS_f64_8
#define RS_DENSE_BOUNDS_f64_n
#define RS_DENSE_BOUNDS_f32_2 RS_BOUNDS(64, 14)
#define RS_DENSE_BOUNDS_f32_3 RS_BOUNDS(64, 14)
#define RS_DENSE_BOUNDS_f32_4 RS_BOUNDS(64, 14)
#define RS_DENSE_BOUNDS_f32_5 RS_BOUNDS(64, 14)
#define RS_DENSE_BOUNDS_f32_6
#define RS_DENSE_BOUNDS_f32_7
#define RS_DENSE_BOUNDS_f32_8
#define RS_DENSE_BOUNDS_f32_n

// The folds of the tuned kernels; the larger ones (to the format's largest, f64 52 and f32
// 21) run on the run-time-fold kernels, built once per type (no fixed-window kernels: the
// general path takes every tile).
RS_INSTANTIATE(double, f64, 2)
RS_INSTANTIATE(double, f64, 3)
RS_INSTANTIATE(double, f64, 4)
RS_INSTANTIATE(double, f64, 5)
RS_INSTANTIATE(double, f64, 6)
RS_INSTANTIATE(double, f64, 7)
RS_INSTANTIATE(double, f64, 8)
RS_INSTANTIATE(float, f32, 2)
RS_INSTANTIATE(float, f32, 3)
RS_INSTANTIATE(float, f32, 4)
RS_INSTANTIATE(float, f32, 5)
RS_INSTANTIATE(float, f32, 6)
RS_INSTANTIATE(float, f32, 7)
RS_INSTANTIATE(float, f32, 8)
RS_INSTANTIATE_GENERAL(double, f64, n, -52)
RS_INSTANTIATE_GENERAL(float, f32, n, -21)

// The segmented cumsum's kernels: the run-time-fold ones only, for every fold (2..=52 f64,
// 2..=21 f32), suffix _kn.
#define RS_INSTANTIATE_SEGCS(T, TN, K)                                                              \
  RS_KERNEL void rs_segcs_reduce_##TN##_kn(const T* x, const rs_u64* off, rs_u64 nseg, rs_u64 n,    \
                                           T* tails, rs_u32* cuts, rs_u64 fold) {                   \
    rs_segcs_reduce_body<T, K, RsF<T>::SEG_E>(x, rs_seg_groups(off, nseg, 0, 0), n, tails, cuts,    \
                                              RsFold<K>(fold));                                     \
  }                                                                                                 \
  RS_KERNEL void rs_segcs_carry_##TN##_kn(T* tails, const rs_u32* cuts, rs_u64 ntiles, rs_u64 fold) { \
    rs_segcs_carry_body<T, K>(tails, cuts, ntiles, RsFold<K>(fold));                                \
  }                                                                                                 \
  RS_KERNEL void rs_segcs_scan_##TN##_kn(const T* x, T* out, const rs_u64* off, rs_u64 nseg,        \
                                         rs_u64 n, const rs_u64* tile_first, rs_u64 ntiles,         \
                                         const T* carries, rs_u64 fold) {                           \
    rs_segcs_scan_body<T, K, RsF<T>::SEG_E>(x, out, rs_seg_groups(off, nseg, 0, 0), n, tile_first,  \
                                            ntiles, carries, RsFold<K>(fold));                      \
  }

RS_INSTANTIATE_SEGCS(double, f64, -52)
RS_INSTANTIATE_SEGCS(float, f32, -21)

// The arithmetic probe: out64[i] = in64[2i] op in64[2i+1] (add for i < 8, mul for
// 8 <= i < 12), the same for f32, and out32[12 + i] = f32(in64[24 + i]) for i < 4.
// The host checks every result's bits (subnormals kept, ties to even, signed zeros).
RS_KERNEL void rs_probe(const rs_u64* in64, rs_u64* out64, const rs_u32* in32, rs_u32* out32) {
  if (RS_TID != 0 || RS_BID != 0) return;
  for (int i = 0; i < 12; ++i) {
    double a = rs_from_bits(in64[2 * i]), b = rs_from_bits(in64[2 * i + 1]);
    out64[i] = rs_bits(i < 8 ? rs_add(a, b) : rs_mul(a, b));
    float fa = rs_from_bits(in32[2 * i]), fb = rs_from_bits(in32[2 * i + 1]);
    out32[i] = rs_bits(i < 8 ? rs_add(fa, fb) : rs_mul(fa, fb));
  }
  for (int i = 0; i < 4; ++i) out32[12 + i] = rs_bits(rs_d2f(rs_from_bits(in64[24 + i])));
}
