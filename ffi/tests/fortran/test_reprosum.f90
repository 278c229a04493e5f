! Tests of include/reprosum.f90 (run by .ci/mpi.sh):
!
!   gfortran -std=f2008 -ffp-contract=off include/reprosum.f90 \
!     examples-fortran/mt19937.f90 ffi/tests/fortran/test_reprosum.f90 \
!     target/release/libreprosum.a -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o test_reprosum
!
! The accumulator types' size and alignment (c_sizeof, the distance of array elements), the
! wide-range input's known answer (0x430FC878C605717F, published by SyclReproSum) through
! the generic routines, every route to a sum agreeing bit for bit (sum, cumsum, in place,
! accumulators one value at a time and by arrays, merged halves, the byte encoding,
! cumsum_from, non-contiguous sections), folds, both kinds, the statuses of bad arguments
! (outputs untouched), the status texts, the value functions, thread control, and the GPU
! generics (ADN_NOT_BUILT in a build without a GPU back end, which it says, else the CPU's
! bits).
! Prints "test_reprosum: N passed, 0 failed" and stops with a non-zero code on any failure.
program test_reprosum
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int8, int64, real32, real64
  use, intrinsic :: ieee_arithmetic, only: ieee_is_nan
  use reprosum
  use mt19937
  implicit none
  character(len=32) :: version_text

  integer :: passed = 0, failed = 0
  integer, parameter :: n = WIDE_RANGE_LEN
  real(real64), allocatable :: x(:), y(:), z(:), w(:), strided(:)
  real(real32), allocatable :: xf(:), yf(:)
  type(adn_acc_f64), target :: accs(2)
  type(adn_acc_f64) :: a, b, fresh
  type(adn_acc_f64) :: kaccs(3)
  type(adn_acc_f32) :: af, bf
  real(real64) :: s, s2, s3
  real(real32) :: t, t2
  integer(c_int64_t) :: cnt
  integer(c_int8_t) :: buf(ADN_ACC_ENCODED_MAX), small(10)
  integer(c_size_t) :: blen
  integer :: k, st, i, half
  character(len=:), allocatable :: text
  type(adn_acc_f64) :: never ! default-initialised: refused until set up
  integer(c_size_t) :: offs(4)
  integer(c_int64_t), allocatable :: keys(:)
  real(real64) :: seg(3), segw(3)

  ! Every routine with a side effect is called in a statement of its own (Fortran does not
  ! fix the order in which a statement's operands are evaluated): ok(st, what) checks a
  ! status, expect(cond, what) a condition on the results.

  ! ---- the types: the C structs' size and alignment ----
  call expect(c_sizeof(a) == 1024_c_size_t, 'c_sizeof(adn_acc_f64) == 1024')
  call expect(c_sizeof(af) == 512_c_size_t, 'c_sizeof(adn_acc_f32) == 512')
  call expect(addr(c_loc(accs(2))) - addr(c_loc(accs(1))) == 1024, 'array stride 1024')
  call expect(mod(addr(c_loc(accs(1))), 8_c_intptr_t) == 0, '8-byte aligned')

  ! ---- the known answer ----
  allocate (x(n), y(n), z(n), xf(n), yf(n))
  call wide_range_fill(x)
  xf = real(x * 1.0e-9_real64, real32)
  s = -1
  call ok(adn_sum(x, s), 'adn_sum')
  call expect(f64_bits(s) == WIDE_RANGE_SUM_BITS, 'wide-range known answer '//hex64(f64_bits(s)))
  s2 = adn_sum_value(x)
  call expect(f64_bits(s2) == WIDE_RANGE_SUM_BITS, 'adn_sum_value')
  s2 = adn_sum_value(x, fold=3, stat=st)
  call expect(f64_bits(s2) == WIDE_RANGE_SUM_BITS .and. st == ADN_OK, 'adn_sum_value with stat')
  s2 = -1
  call ok(adn_sum_f64(x, int(n, c_size_t), s2), 'the C function adn_sum_f64')
  call expect(f64_bits(s2) == f64_bits(s), 'the C function adn_sum_f64: bits')

  ! ---- the default fold is the C library's (3), for every generic ----
  ! Large values that cancel exactly and smaller ones 100 and 140 binades below them (exact
  ! power-of-two scalings): folds 2, 3 and 4 (windows of 80, 120, 160 bits) keep different
  ! parts of the small ones.
  allocate (w(size(x)))
  do i = 1, size(x)
    select case (mod(i, 4))
    case (1)
      w(i) = scale(x(i), 100)
    case (2)
      w(i) = -w(i - 1)
    case (3)
      w(i) = x(i)
    case default
      w(i) = scale(x(i), -40)
    end select
  end do
  call ok(adn_sum_f64(w, size(w, kind=c_size_t), s2), 'C sum at the default fold')
  call ok(adn_sum_f64_fold(w, size(w, kind=c_size_t), 2, s3), 'C sum at fold 2')
  call expect(f64_bits(s2) /= f64_bits(s3), 'folds 2 and 3 differ on this input')
  call ok(adn_sum_f64_fold(w, size(w, kind=c_size_t), 4, s3), 'C sum at fold 4')
  call expect(f64_bits(s2) /= f64_bits(s3), 'folds 3 and 4 differ on this input')
  call ok(adn_sum(w, s), 'default-fold sum')
  call expect(f64_bits(s) == f64_bits(s2), 'adn_sum: fold 3')
  s = adn_sum_value(w)
  call expect(f64_bits(s) == f64_bits(s2), 'adn_sum_value: fold 3')
  call ok(adn_cumsum(w, y), 'default-fold cumsum')
  call expect(f64_bits(y(n)) == f64_bits(s2), 'adn_cumsum: fold 3')
  z = w
  call ok(adn_cumsum_inplace(z), 'default-fold cumsum in place')
  call expect(f64_bits(z(n)) == f64_bits(s2), 'adn_cumsum_inplace: fold 3')
  call ok(adn_acc_init(a), 'default-fold init')
  call ok(adn_acc_add(a, w), 'add')
  call ok(adn_acc_value(a, s), 'value')
  call expect(f64_bits(s) == f64_bits(s2), 'adn_acc_init: fold 3')
  do i = 1, size(x)
    select case (mod(i, 4))
    case (1)
      xf(i) = scale(real(x(i) * 1.0e-9_real64, real32), 40)
    case (2)
      xf(i) = -xf(i - 1)
    case default
      xf(i) = scale(real(x(i) * 1.0e-9_real64, real32), 20)
    end select
  end do
  call ok(adn_sum_f32_fold(xf, size(xf, kind=c_size_t), 2, t2), 'C sum real32 at fold 2')
  call ok(adn_sum_f32_fold(xf, size(xf, kind=c_size_t), 3, t), 'C sum real32 at fold 3')
  call expect(f32_bits(t) /= f32_bits(t2), 'real32 folds 2 and 3 differ on this input')
  call ok(adn_sum_f32(xf, size(xf, kind=c_size_t), t), 'C sum real32')
  call ok(adn_sum(xf, t2), 'default-fold sum real32')
  call expect(f32_bits(t) == f32_bits(t2), 'adn_sum real32: fold 3')
  call ok(adn_acc_init(af), 'default-fold init real32')
  call ok(adn_acc_add(af, xf), 'add real32')
  call ok(adn_acc_value(af, t2), 'value real32')
  call expect(f32_bits(t) == f32_bits(t2), 'adn_acc_init real32: fold 3')
  xf = real(x * 1.0e-9_real64, real32)

  ! ---- every route, at several folds, real64 ----
  do k = 2, 8, 3
    call ok(adn_sum(x, s, fold=k), 'sum fold')
    call ok(adn_cumsum(x, y, fold=k), 'cumsum')
    call expect(f64_bits(y(n)) == f64_bits(s), 'cumsum ends at the sum')
    z = x
    call ok(adn_cumsum_inplace(z, fold=k), 'cumsum in place')
    call expect(all(f64_bits(z) == f64_bits(y)), 'in place == out of place')
    call ok(adn_acc_init(a, k), 'init')
    do i = 1, 1000
      st = adn_acc_add(a, x(i))
      if (st /= ADN_OK) call ok(st, 'add')
    end do
    call ok(adn_acc_add(a, x(1001:n)), 'add an array')
    call ok(adn_acc_value(a, s2), 'accumulator value')
    call expect(f64_bits(s2) == f64_bits(s), 'accumulator value: bits')
    call ok(adn_acc_count(a, cnt), 'count')
    call expect(cnt == n, 'count: n')
    half = size(x) / 3
    call ok(adn_acc_init(a, k), 'init a')
    call ok(adn_acc_init(b, k), 'init b')
    call ok(adn_acc_add_array(b, x(half + 1:)), 'second part')
    call ok(adn_acc_add_array(a, x(:half)), 'first part')
    ! cumsum_from: start at the first part's accumulator.
    z = -7
    call ok(adn_cumsum_from(a, x(half + 1:), z(half + 1:)), 'cumsum_from')
    call expect(all(f64_bits(z(half + 1:)) == f64_bits(y(half + 1:))), 'cumsum_from == cumsum')
    call expect(all(f64_bits(z(:half)) == f64_bits(-7.0_real64)), 'cumsum_from writes its output only')
    z(half + 1:) = x(half + 1:)
    call ok(adn_cumsum_from_inplace(a, z(half + 1:)), 'cumsum_from in place')
    call expect(all(f64_bits(z(half + 1:)) == f64_bits(y(half + 1:))), 'cumsum_from in place == cumsum')
    call ok(adn_acc_merge(b, a), 'merge')
    call ok(adn_acc_value(b, s2), 'merged value')
    call expect(f64_bits(s2) == f64_bits(s), 'merged halves')
    ! The byte encoding: 20 + 16 k bytes, read back to the same sum.
    call ok(adn_acc_to_bytes(b, buf, blen), 'to_bytes')
    call expect(blen == 20 + 16 * k, 'to_bytes length')
    call ok(adn_acc_from_bytes(fresh, buf(1:blen)), 'from_bytes')
    call ok(adn_acc_value(fresh, s3), 'value after from_bytes')
    call expect(f64_bits(s3) == f64_bits(s), 'bytes round trip')
    ! Assignment copies an accumulator.
    a = b
    call ok(adn_acc_value(a, s3), 'value of a copy')
    call expect(f64_bits(s3) == f64_bits(s), 'assignment')
  end do
  call ok(adn_sum(x, s, fold=ADN_MAX_FOLD_F64), 'largest fold')
  call ok(adn_sum(x(n:1:-1), s2, fold=ADN_MAX_FOLD_F64), 'reversed (a non-contiguous section)')
  call expect(f64_bits(s2) == f64_bits(s), 'reversed: the same bits')

  ! Non-contiguous sections are copied in (and out): the bits of a contiguous copy.
  strided = x(1:n:7)
  call ok(adn_sum(x(1:n:7), s), 'strided sum')
  call ok(adn_sum(strided, s2), 'sum of the copy')
  call expect(f64_bits(s) == f64_bits(s2), 'strided == contiguous copy')
  call ok(adn_cumsum(x(1:n:7), z(1:size(strided))), 'strided cumsum')
  call ok(adn_cumsum(strided, y(1:size(strided))), 'cumsum of the copy')
  call expect(all(f64_bits(z(1:size(strided))) == f64_bits(y(1:size(strided)))), 'strided cumsum bits')
  z = -7
  call ok(adn_cumsum(strided, z(1:n:7)), 'cumsum into a strided output')
  call expect(all(f64_bits(z(1:n:7)) == f64_bits(y(1:size(strided)))), 'strided output written')
  call expect(f64_bits(z(2)) == f64_bits(-7.0_real64), 'the rest untouched')
  ! Empty arrays: the sum is +0.0.
  s = -1
  call ok(adn_sum(x(1:0), s), 'empty sum')
  call expect(f64_bits(s) == 0_int64, 'the empty sum is +0.0')
  call ok(adn_cumsum(x(1:0), y(1:0)), 'empty cumsum')
  call ok(adn_cumsum_inplace(z(1:0)), 'empty cumsum in place')

  ! ---- real32 ----
  do k = 2, ADN_MAX_FOLD_F32, 19
    call ok(adn_sum(xf, t, k), 'sum real32')
    call ok(adn_cumsum(xf, yf, k), 'cumsum real32')
    call expect(f32_bits(yf(n)) == f32_bits(t), 'cumsum real32 ends at the sum')
    call ok(adn_acc_init(af, k), 'init real32')
    call ok(adn_acc_add(af, xf(1)), 'add real32')
    call ok(adn_acc_add_array(af, xf(2:)), 'add_array real32')
    call ok(adn_acc_value(af, t2), 'value real32')
    call expect(f32_bits(t2) == f32_bits(t), 'accumulator real32')
    call ok(adn_acc_count(af, cnt), 'count real32')
    call expect(cnt == n, 'count real32: n')
    call ok(adn_acc_to_bytes(af, buf, blen), 'to_bytes real32')
    call expect(blen == 20 + 8 * k, 'to_bytes real32 length')
    call ok(adn_acc_from_bytes(bf, buf(1:blen)), 'from_bytes real32')
    call ok(adn_acc_merge(bf, af), 'merge real32')
    call ok(adn_acc_count(bf, cnt), 'count of the merge')
    call expect(cnt == 2 * n, 'merge real32: 2 n')
    t2 = adn_sum_value(xf, k)
    call expect(f32_bits(t2) == f32_bits(t), 'adn_sum_value real32')
    call ok(adn_acc_init(af, k), 'init real32 again')
    call ok(adn_acc_add(af, xf(:n / 2)), 'first half')
    yf(n / 2 + 1:) = xf(n / 2 + 1:)
    call ok(adn_cumsum_from_inplace(af, yf(n / 2 + 1:)), 'cumsum_from real32')
    call expect(f32_bits(yf(n)) == f32_bits(t), 'cumsum_from real32 ends at the sum')
  end do

  ! ---- bad arguments: the statuses, outputs untouched ----
  s = -1
  call bad(adn_sum(x, s, fold=1), ADN_INVALID_FOLD, 'fold 1')
  call bad(adn_sum(x, s, fold=-1), ADN_INVALID_FOLD, 'fold -1')
  call bad(adn_sum(x, s, fold=53), ADN_INVALID_FOLD, 'fold 53')
  call expect(f64_bits(s) == f64_bits(-1.0_real64), 'no output on error')
  call bad(adn_sum(xf, t, fold=22), ADN_INVALID_FOLD, 'fold 22 real32')
  y(1:4) = -1
  call bad(adn_cumsum(x(1:4), y(1:3)), ADN_BUFFER_TOO_SMALL, 'short cumsum output')
  call bad(adn_cumsum(x(1:4), y(1:4), fold=0), ADN_INVALID_FOLD, 'cumsum fold 0')
  call bad(adn_cumsum_inplace(y(1:3), fold=99), ADN_INVALID_FOLD, 'in-place cumsum fold 99')
  call expect(all(f64_bits(y(1:4)) == f64_bits(-1.0_real64)), 'no cumsum output on error')
  call bad(adn_acc_value(never, s), ADN_NOT_INITIALIZED, 'a fresh variable')
  call expect(f64_bits(s) == f64_bits(-1.0_real64), 'no value on error')
  call bad(adn_acc_init(a, 0), ADN_INVALID_FOLD, 'init fold 0')
  call ok(adn_acc_init(a, 3), 'init 3')
  call ok(adn_acc_init(b, 4), 'init 4')
  call bad(adn_acc_merge(a, b), ADN_FOLD_MISMATCH, 'merge of different folds')
  call bad(adn_acc_to_bytes(a, small, blen), ADN_BUFFER_TOO_SMALL, 'to_bytes buffer too small')
  small = 7
  call bad(adn_acc_from_bytes(a, small), ADN_BAD_ENCODING, 'from_bytes of garbage')
  call bad(adn_acc_from_bytes(a, small(1:0)), ADN_BAD_ENCODING, 'from_bytes of nothing')
  call bad(adn_cumsum_from(never, x(1:4), y(1:4)), ADN_NOT_INITIALIZED, 'cumsum_from a fresh variable')
  call bad(adn_cumsum_from(a, x(1:4), y(1:3)), ADN_BUFFER_TOO_SMALL, 'cumsum_from short output')
  t = adn_sum_value(xf, fold=30, stat=st)
  call expect(st == ADN_INVALID_FOLD .and. ieee_is_nan(t), 'adn_sum_value: stat and NaN')

  ! ---- status texts ----
  call expect(adn_status_string(ADN_OK) == 'success', 'text of ADN_OK')
  call expect(adn_status_string(ADN_MPI_ERROR) == 'an MPI call failed', 'text of ADN_MPI_ERROR')
  call expect(adn_status_string(-1) == 'unknown status code', 'text of -1')
  write (version_text, '(i0, ".", i0, ".", i0)') ADN_VERSION_MAJOR, ADN_VERSION_MINOR, ADN_VERSION_PATCH
  call expect(adn_version() == trim(version_text), 'adn_version() is the module''s version')
  call expect(adn_status_string(ADN_INVALID_FOLD) == 'fold outside 2 to 52 (double) or 2 to 21 (float)', &
              'text of ADN_INVALID_FOLD')
  do i = 0, ADN_INVALID_STRIDE
    text = adn_status_string(i)
    if (len(text) == 0 .or. text == 'unknown status code') call expect(.false., 'every code has a text')
  end do

  ! ---- threads: the same bits on 1 and 2 threads ----
  call ok(adn_set_num_threads(1), 'one thread')
  call expect(adn_get_num_threads() == 1, 'get_num_threads 1')
  call ok(adn_sum(x, s), 'sum on one thread')
  call ok(adn_cumsum(x, y), 'cumsum on one thread')
  call ok(adn_set_num_threads(2), 'two threads')
  call expect(adn_get_num_threads() == 2, 'get_num_threads 2')
  call ok(adn_sum(x, s2), 'sum on two threads')
  call ok(adn_cumsum(x, z), 'cumsum on two threads')
  call expect(f64_bits(s) == f64_bits(s2) .and. f64_bits(s) == WIDE_RANGE_SUM_BITS, 'threads: sum bits')
  call expect(all(f64_bits(y) == f64_bits(z)), 'threads: cumsum bits')
  call ok(adn_set_num_threads(0), 'the default')
  call expect(adn_get_num_threads() >= 1, 'get_num_threads default')

  ! ---- segmented, row and keyed sums (the C entry points: 0-based offsets and keys) ----
  offs = [0_c_size_t, 100_c_size_t, 100_c_size_t, int(n, c_size_t)]
  seg = 7.0_real64
  call ok(adn_segmented_sum_f64(x, offs, 3_c_size_t, 3_c_int, seg), 'segmented sum')
  call ok(adn_sum_f64_fold(x(1:100), 100_c_size_t, 3_c_int, segw(1)), 'sum of segment 1')
  segw(2) = 0.0_real64
  call ok(adn_sum_f64_fold(x(101:), int(n - 100, c_size_t), 3_c_int, segw(3)), 'sum of segment 3')
  call expect(all(f64_bits(seg) == f64_bits(segw)), 'segmented sum bits')
  allocate (keys(n))
  keys(1:100) = 0_c_int64_t
  keys(101:) = 2_c_int64_t
  seg = 7.0_real64
  call ok(adn_sum_by_key_f64(x(n:1:-1), keys(n:1:-1), int(n, c_size_t), 3_c_size_t, 3_c_int, seg), 'keyed sum')
  call expect(all(f64_bits(seg) == f64_bits(segw)), 'keyed sum bits (the pairs reversed)')
  keys(1) = 3_c_int64_t
  seg = 7.0_real64
  st = adn_sum_by_key_f64(x, keys, int(n, c_size_t), 3_c_size_t, 3_c_int, seg)
  call expect(st == ADN_KEY_OUT_OF_RANGE .and. all(f64_bits(seg) == f64_bits(7.0_real64)), &
              'a key out of range: nothing written')
  ! The accumulator forms: the pairs in two shards, then one key out of range (nothing added).
  do i = 1, 3
    call ok(adn_acc_f64_init(kaccs(i), 3_c_int), 'init key accumulator')
  end do
  keys(1) = 0_c_int64_t
  call ok(adn_acc_f64_add_by_key(kaccs, 3_c_size_t, x(1:150), keys(1:150), 150_c_size_t), 'add_by_key shard 1')
  call ok(adn_acc_f64_add_by_key(kaccs, 3_c_size_t, x(151:), keys(151:), int(n - 150, c_size_t)), &
          'add_by_key shard 2')
  do i = 1, 3
    call ok(adn_acc_f64_value(kaccs(i), seg(i)), 'key accumulator value')
  end do
  call expect(all(f64_bits(seg) == f64_bits(segw)), 'add_by_key shards: the keyed sum bits')
  keys(1) = -1_c_int64_t
  st = adn_acc_f64_add_by_key(kaccs, 3_c_size_t, x, keys, int(n, c_size_t))
  call ok(adn_acc_f64_value(kaccs(3), seg(3)), 'key accumulator value after the error')
  call expect(st == ADN_KEY_OUT_OF_RANGE .and. f64_bits(seg(3)) == f64_bits(segw(3)), &
              'add_by_key, a negative key: nothing added')
  keys(1) = 0_c_int64_t
  do i = 1, 3
    call ok(adn_acc_f64_init(kaccs(i), 3_c_int), 'init segment accumulator')
  end do
  call ok(adn_acc_f64_add_segments(kaccs, x, offs, 3_c_size_t), 'add_segments')
  do i = 1, 3
    call ok(adn_acc_f64_value(kaccs(i), seg(i)), 'segment accumulator value')
  end do
  call expect(all(f64_bits(seg) == f64_bits(segw)), 'add_segments: the segmented sum bits')
  call ok(adn_sum_rows_f64(x, 2_c_size_t, 100_c_size_t, 100_c_size_t, 3_c_int, seg), 'row sums')
  call expect(f64_bits(seg(1)) == f64_bits(segw(1)), 'row sum bits')
  seg = 7.0_real64
  st = adn_sum_rows_f64(x, 2_c_size_t, 101_c_size_t, 100_c_size_t, 3_c_int, seg)
  call expect(st == ADN_INVALID_STRIDE .and. all(f64_bits(seg) == f64_bits(7.0_real64)), &
              'cols > row_stride: nothing written')
  call ok(adn_segmented_cumsum_f64(x, y, offs, 3_c_size_t, 3_c_int), 'segmented cumsum')
  call ok(adn_cumsum(x(1:100), z(1:100)), 'cumsum of segment 1')
  call ok(adn_cumsum(x(101:), z(101:)), 'cumsum of segment 3')
  call expect(all(f64_bits(y) == f64_bits(z)), 'segmented cumsum bits')
  offs(2) = 101_c_size_t
  st = adn_segmented_sum_f64(x, offs, 3_c_size_t, 3_c_int, seg)
  call expect(st == ADN_INVALID_OFFSETS .and. all(f64_bits(seg) == f64_bits(7.0_real64)), &
              'decreasing offsets: nothing written')

  ! ---- GPUs: ADN_NOT_BUILT without a back end, else the CPU's bits ----
  call gpu('cuda')
  call gpu('hip')

  write (*, '(a, i0, a, i0, a)') 'test_reprosum: ', passed, ' passed, ', failed, ' failed'
  if (failed /= 0) error stop 1

contains

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (ok) then
      passed = passed + 1
    else
      failed = failed + 1
      write (*, '(a, a)') 'FAIL ', what
    end if
  end subroutine expect

  subroutine ok(st, what)
    integer, intent(in) :: st
    character(len=*), intent(in) :: what
    if (st /= ADN_OK) write (*, '(a, i0, 2a)') 'status ', st, ': ', adn_status_string(st)
    call expect(st == ADN_OK, what)
  end subroutine ok

  subroutine bad(st, want, what)
    integer, intent(in) :: st, want
    character(len=*), intent(in) :: what
    if (st /= want) write (*, '(a, i0, a, i0)') 'status ', st, ', expected ', want
    call expect(st == want, what)
  end subroutine bad

  function addr(p) result(v)
    type(c_ptr), intent(in) :: p
    integer(c_intptr_t) :: v
    v = transfer(p, 0_c_intptr_t)
  end function addr

  function c_loc_r64(v) result(p)
    real(real64), intent(in), target :: v(:)
    type(c_ptr) :: p
    p = c_loc(v(1))
  end function c_loc_r64

  ! The GPU generics: a build without the back end returns ADN_NOT_BUILT everywhere (the
  ! comparisons are skipped, and this says so); a build with it must give the CPU's bits.
  subroutine gpu(name)
    character(len=*), intent(in) :: name
    real(real64) :: cs, cc(1000), gs, gp, gc(1000)
    real(real32) :: ct, gt
    real(real64) :: ga(1000), gf(1000)
    type(adn_acc_f64) :: acc_a, acc_p, start
    integer :: st_sum, st_cumsum, st_ptr, st_f32, st_acc, st_accp, st_from, st_fold
    ! The accumulators: 400 values from the host array, 600 from a pointer; the cumulative
    ! sum continued from the first 400.
    call ok(adn_acc_init(acc_a, 4), 'init for the device')
    call ok(adn_acc_init(acc_p, 4), 'init for the device (pointer)')
    call ok(adn_acc_init(start, 4), 'init the start')
    call ok(adn_acc_add(start, x(1:400)), 'the start')
    ga = -7
    if (name == 'cuda') then
      st_sum = adn_cuda_sum(x(1:1000), gs, 4)
      st_cumsum = adn_cuda_cumsum(x(1:1000), gc, 4)
      st_ptr = adn_cuda_sum(c_loc_r64(x), 1000_c_size_t, gp, 4)
      st_f32 = adn_cuda_sum(xf(1:1000), gt)
      st_acc = adn_cuda_acc_add_array(acc_a, x(1:1000))
      st_accp = adn_cuda_acc_add_array(acc_p, c_loc_r64(x), 1000_c_size_t)
      st_from = adn_cuda_cumsum_from(start, x(401:1000), ga(401:1000))
      st_fold = adn_cuda_sum(x(1:1000), gf(1), ADN_MAX_FOLD_GPU + 1)
    else
      st_sum = adn_hip_sum(x(1:1000), gs, 4)
      st_cumsum = adn_hip_cumsum(x(1:1000), gc, 4)
      st_ptr = adn_hip_sum(c_loc_r64(x), 1000_c_size_t, gp, 4)
      st_f32 = adn_hip_sum(xf(1:1000), gt)
      st_acc = adn_hip_acc_add_array(acc_a, x(1:1000))
      st_accp = adn_hip_acc_add_array(acc_p, c_loc_r64(x), 1000_c_size_t)
      st_from = adn_hip_cumsum_from(start, x(401:1000), ga(401:1000))
      st_fold = adn_hip_sum(x(1:1000), gf(1), ADN_MAX_FOLD_GPU + 1)
    end if
    if (st_sum == ADN_NOT_BUILT) then
      call expect(st_cumsum == ADN_NOT_BUILT .and. st_ptr == ADN_NOT_BUILT .and. st_f32 == ADN_NOT_BUILT &
                  .and. st_acc == ADN_NOT_BUILT .and. st_accp == ADN_NOT_BUILT .and. st_from == ADN_NOT_BUILT &
                  .and. st_fold == ADN_NOT_BUILT, name//': every entry point ADN_NOT_BUILT')
      call expect(all(f64_bits(ga) == f64_bits(-7.0_real64)), name//': nothing written')
      write (*, '(a)') name//': library built without this back end (ADN_NOT_BUILT): device comparisons skipped'
    else if (st_sum == ADN_NO_DEVICE) then
      call expect(st_cumsum == ADN_NO_DEVICE, name//': ADN_NO_DEVICE')
      write (*, '(a)') name//': no usable device (ADN_NO_DEVICE): device comparisons skipped'
    else
      call expect(st_sum == ADN_OK .and. st_cumsum == ADN_OK .and. st_ptr == ADN_OK .and. st_f32 == ADN_OK, &
                  name//': statuses')
      call ok(adn_sum(x(1:1000), cs, 4), 'cpu sum')
      call ok(adn_cumsum(x(1:1000), cc, 4), 'cpu cumsum')
      call ok(adn_sum(xf(1:1000), ct), 'cpu sum real32')
      call expect(f64_bits(gs) == f64_bits(cs) .and. f64_bits(gp) == f64_bits(cs), name//': sum bits')
      call expect(all(f64_bits(gc) == f64_bits(cc)), name//': cumsum bits')
      call expect(f32_bits(gt) == f32_bits(ct), name//': real32 bits')
      call expect(st_acc == ADN_OK .and. st_accp == ADN_OK .and. st_from == ADN_OK, name//': accumulator statuses')
      call ok(adn_acc_value(acc_a, gs), 'device accumulator value')
      call ok(adn_acc_value(acc_p, gp), 'device accumulator value (pointer)')
      call expect(f64_bits(gs) == f64_bits(cs) .and. f64_bits(gp) == f64_bits(cs), name//': accumulator bits')
      call expect(all(f64_bits(ga(401:1000)) == f64_bits(cc(401:1000))), name//': cumsum_from bits')
      call expect(st_fold == ADN_INVALID_FOLD, name//": a fold past ADN_MAX_FOLD_GPU")
    end if
  end subroutine gpu

end program test_reprosum
