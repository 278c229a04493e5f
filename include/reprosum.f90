! reprosum: bit-reproducible floating-point sums and cumulative sums, the Fortran interface of
! libreprosum (include/reprosum.h). Fortran 2008 with iso_c_binding; link the C library as
! for C (README: "Fortran"):
!
!   gfortran -c include/reprosum.f90                      ! reprosum.mod, reprosum.o
!   gfortran app.f90 reprosum.o target/release/libreprosum.a \
!            -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc
!
! Design
!
! * Status functions, as the C API. Every operation is a function returning an
!   integer(c_int32_t) status: ADN_OK (0) or one of the ADN_* codes below (the values of
!   reprosum.h). Outputs are arguments, written only on success (intent(inout): on an error
!   they keep their value, as in C). Generic names choose the real(real64) or real(real32)
!   routine from the arguments; array lengths come from size():
!
!     st = adn_sum(x, s [, fold])              s = the sum of x(:)
!     st = adn_cumsum(x, y [, fold])           y(i) = the sum of x(1:i); size(y) >= size(x)
!                                              (else ADN_BUFFER_TOO_SMALL); y(1:size(x)) written
!     st = adn_cumsum_inplace(x [, fold])      x(i) = the sum of the old x(1:i)
!     st = adn_cumsum_from(start, x, y)        y(i) = start merged with x(1:i) (start's fold)
!     st = adn_cumsum_from_inplace(start, x)
!
!   Use adn_cumsum_inplace rather than adn_cumsum(x, x): Fortran forbids passing one array
!   to two arguments when one of them is written.
!
! * Value functions, for expressions: s = adn_sum_value(x [, fold] [, stat]). Without stat an
!   error writes the status text to error_unit and stops the program (error stop; an MPI
!   program that must end all ranks cleanly passes stat and calls MPI_Abort); with stat the
!   status is stored there and the result is a quiet NaN on error.
!
! * Accumulators: type(adn_acc_f64) and type(adn_acc_f32), bind(C) with private components,
!   of the C structs' size and alignment (1024 and 512 bytes, 8-byte aligned; c_sizeof
!   checks it in the tests). A fresh variable is refused (ADN_NOT_INITIALIZED) until
!   adn_acc_init or adn_acc_from_bytes sets it up. Assignment copies one. The bytes are
!   meaningful to the same build of the library (e.g. all ranks of an MPI job, sent as
!   c_sizeof(acc) bytes); adn_acc_to_bytes gives the portable encoding:
!
!     st = adn_acc_init(acc [, fold])          empty, fold 2..52 (real64) / 2..21 (real32)
!     st = adn_acc_add(acc, x)                 x a scalar or a rank-1 array
!     st = adn_acc_add_array(acc, x)           x a rank-1 array
!     st = adn_acc_merge(acc, other)           exact: any order of merges gives the same bits
!     st = adn_acc_value(acc, s)               the sum so far
!     st = adn_acc_count(acc, n)               integer(c_int64_t) n: values added so far
!     st = adn_acc_to_bytes(acc, buf, len)     integer(c_int8_t) buf(:) of at least
!                                              ADN_ACC_ENCODED_MAX bytes, integer(c_size_t) len
!     st = adn_acc_from_bytes(acc, buf(1:len))
!
! * adn_status_string(st): the status text as a Fortran string (character(len=:),
!   allocatable); every value has one.
!
! * Threads: st = adn_set_num_threads(n) (0: the default, ADN_NUM_THREADS or the cores the
!   process may use), n = adn_get_num_threads().
!
! * GPUs (CUDA, HIP): the host-array forms copy x to the device,
!
!     st = adn_cuda_sum(x, s [, fold])         adn_hip_sum
!     st = adn_cuda_cumsum(x, y [, fold])      adn_hip_cumsum
!     st = adn_cuda_acc_add_array(acc, x)      adn_hip_acc_add_array: acc on the host
!     st = adn_cuda_cumsum_from(start, x, y)   adn_hip_cumsum_from
!
!   and device memory goes as type(c_ptr) with its length, so that any way of allocating it
!   works (cudaMalloc through iso_c_binding, or e.g. transfer(c_devloc(a), c_null_ptr) for a
!   CUDA Fortran device array a):
!
!     st = adn_cuda_sum(xptr, n, s [, fold])   integer(c_size_t) n; the type of s (real64 or
!                                              real32) gives the element type
!     st = adn_cuda_acc_add_array(acc, xptr, n)   the type of acc gives the element type
!
!   Everything else on the device through the C functions themselves (below), which take
!   type(c_ptr) for every array: adn_cuda_cumsum_f64_fold(inptr, outptr, n, fold),
!   adn_cuda_cumsum_f64_from(start, inptr, outptr, n), the _stream forms (a cudaStream_t /
!   hipStream_t as type(c_ptr); c_null_ptr is the default stream), and the f32 and hip
!   twins. A library built without the back end returns ADN_NOT_BUILT.
!
! * The C functions themselves are public too, under their C names (adn_sum_f64,
!   adn_acc_f64_add_array, ...), with array arguments as assumed-size arrays (host) or
!   type(c_ptr) (GPU entry points), lengths as integer(c_size_t) and folds as integer(c_int),
!   all by value.
!
! Folds are default integers, ADN_DEFAULT_FOLD (3) when absent; a negative fold is refused
! (ADN_INVALID_FOLD). Every routine may be called from several threads at once (one
! accumulator per thread).
!
! SPDX-License-Identifier: MIT OR Apache-2.0
module reprosum
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: real32, real64, error_unit
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
  implicit none
  private

  ! The generic routines take real(real64) / real(real32); the C functions double / float.
  ! (A compile-time division by zero if they differ.)
  integer, parameter, private :: kinds_match = &
    1 / merge(1, 0, real64 == c_double .and. real32 == c_float)

  ! ---- constants (reprosum.h) ----
  integer(c_int), parameter, public :: ADN_VERSION_MAJOR = 0
  integer(c_int), parameter, public :: ADN_VERSION_MINOR = 1
  integer(c_int), parameter, public :: ADN_VERSION_PATCH = 0
  integer(c_int), parameter, public :: ADN_MIN_FOLD = 2
  integer(c_int), parameter, public :: ADN_DEFAULT_FOLD = 3
  integer(c_int), parameter, public :: ADN_MAX_FOLD_F64 = 52
  integer(c_int), parameter, public :: ADN_MAX_FOLD_F32 = 21
  integer(c_int), parameter, public :: ADN_MAX_FOLD_GPU = 52
  integer(c_int64_t), parameter, public :: ADN_CAPACITY_F64 = 9223372036854773760_c_int64_t
  integer(c_int64_t), parameter, public :: ADN_CAPACITY_F32 = 4294966784_c_int64_t
  integer(c_size_t), parameter, public :: ADN_ACC_ENCODED_MAX = 852
  integer, parameter, public :: ADN_ACC_F64_STATE_WORDS = 127
  integer, parameter, public :: ADN_ACC_F32_STATE_WORDS = 63

  ! ---- status codes (reprosum.h; fixed values, new ones are added after the last) ----
  integer(c_int32_t), parameter, public :: ADN_OK = 0
  integer(c_int32_t), parameter, public :: ADN_NULL_POINTER = 1
  integer(c_int32_t), parameter, public :: ADN_CAPACITY_EXCEEDED = 2
  integer(c_int32_t), parameter, public :: ADN_INVALID_FOLD = 3
  integer(c_int32_t), parameter, public :: ADN_OVERLAP = 4
  integer(c_int32_t), parameter, public :: ADN_BAD_ENCODING = 5
  integer(c_int32_t), parameter, public :: ADN_NOT_BUILT = 6
  integer(c_int32_t), parameter, public :: ADN_NO_DEVICE = 7
  integer(c_int32_t), parameter, public :: ADN_DEVICE_ERROR = 8
  integer(c_int32_t), parameter, public :: ADN_OUT_OF_MEMORY = 9
  integer(c_int32_t), parameter, public :: ADN_INTERNAL_ERROR = 10
  integer(c_int32_t), parameter, public :: ADN_FOLD_MISMATCH = 11
  integer(c_int32_t), parameter, public :: ADN_BUFFER_TOO_SMALL = 12
  integer(c_int32_t), parameter, public :: ADN_NOT_INITIALIZED = 13
  integer(c_int32_t), parameter, public :: ADN_MISALIGNED = 14
  integer(c_int32_t), parameter, public :: ADN_INVALID_POINTER = 15
  integer(c_int32_t), parameter, public :: ADN_MPI_ERROR = 16
  integer(c_int32_t), parameter, public :: ADN_KEY_OUT_OF_RANGE = 17
  integer(c_int32_t), parameter, public :: ADN_INVALID_OFFSETS = 18
  integer(c_int32_t), parameter, public :: ADN_INVALID_STRIDE = 19

  ! ---- accumulators (the C structs: a tag word and the state) ----
  type, bind(C), public :: adn_acc_f64
    private
    integer(c_int64_t) :: tag = 0_c_int64_t
    integer(c_int64_t) :: state(ADN_ACC_F64_STATE_WORDS)
  end type adn_acc_f64

  type, bind(C), public :: adn_acc_f32
    private
    integer(c_int64_t) :: tag = 0_c_int64_t
    integer(c_int64_t) :: state(ADN_ACC_F32_STATE_WORDS)
  end type adn_acc_f32

  ! ---- the generic routines ----
  public :: adn_sum, adn_sum_value, adn_cumsum, adn_cumsum_inplace, adn_cumsum_from
  public :: adn_cumsum_from_inplace, adn_acc_init, adn_acc_add, adn_acc_add_array
  public :: adn_acc_merge, adn_acc_value, adn_acc_count, adn_acc_to_bytes, adn_acc_from_bytes
  public :: adn_status_string, adn_version, adn_cuda_sum, adn_cuda_cumsum, adn_hip_sum, adn_hip_cumsum
  public :: adn_cuda_acc_add_array, adn_cuda_cumsum_from, adn_hip_acc_add_array, adn_hip_cumsum_from

  interface adn_sum
    module procedure sum_r64, sum_r32
  end interface adn_sum
  interface adn_sum_value
    module procedure sum_value_r64, sum_value_r32
  end interface adn_sum_value
  interface adn_cumsum
    module procedure cumsum_r64, cumsum_r32
  end interface adn_cumsum
  interface adn_cumsum_inplace
    module procedure cumsum_inplace_r64, cumsum_inplace_r32
  end interface adn_cumsum_inplace
  interface adn_cumsum_from
    module procedure cumsum_from_r64, cumsum_from_r32
  end interface adn_cumsum_from
  interface adn_cumsum_from_inplace
    module procedure cumsum_from_inplace_r64, cumsum_from_inplace_r32
  end interface adn_cumsum_from_inplace
  interface adn_acc_init
    module procedure acc_init_r64, acc_init_r32
  end interface adn_acc_init
  interface adn_acc_add
    module procedure acc_add_r64, acc_add_r32, acc_add_array_r64, acc_add_array_r32
  end interface adn_acc_add
  interface adn_acc_add_array
    module procedure acc_add_array_r64, acc_add_array_r32
  end interface adn_acc_add_array
  interface adn_acc_merge
    module procedure acc_merge_r64, acc_merge_r32
  end interface adn_acc_merge
  interface adn_acc_value
    module procedure acc_value_r64, acc_value_r32
  end interface adn_acc_value
  interface adn_acc_count
    module procedure acc_count_r64, acc_count_r32
  end interface adn_acc_count
  interface adn_acc_to_bytes
    module procedure acc_to_bytes_r64, acc_to_bytes_r32
  end interface adn_acc_to_bytes
  interface adn_acc_from_bytes
    module procedure acc_from_bytes_r64, acc_from_bytes_r32
  end interface adn_acc_from_bytes
  interface adn_cuda_sum
    module procedure cuda_sum_r64, cuda_sum_r32, cuda_sum_ptr_r64, cuda_sum_ptr_r32
  end interface adn_cuda_sum
  interface adn_cuda_cumsum
    module procedure cuda_cumsum_r64, cuda_cumsum_r32
  end interface adn_cuda_cumsum
  interface adn_hip_sum
    module procedure hip_sum_r64, hip_sum_r32, hip_sum_ptr_r64, hip_sum_ptr_r32
  end interface adn_hip_sum
  interface adn_hip_cumsum
    module procedure hip_cumsum_r64, hip_cumsum_r32
  end interface adn_hip_cumsum
  interface adn_cuda_acc_add_array
    module procedure cuda_acc_add_array_r64, cuda_acc_add_array_r32
    module procedure cuda_acc_add_ptr_r64, cuda_acc_add_ptr_r32
  end interface adn_cuda_acc_add_array
  interface adn_cuda_cumsum_from
    module procedure cuda_cumsum_from_r64, cuda_cumsum_from_r32
  end interface adn_cuda_cumsum_from
  interface adn_hip_acc_add_array
    module procedure hip_acc_add_array_r64, hip_acc_add_array_r32
    module procedure hip_acc_add_ptr_r64, hip_acc_add_ptr_r32
  end interface adn_hip_acc_add_array
  interface adn_hip_cumsum_from
    module procedure hip_cumsum_from_r64, hip_cumsum_from_r32
  end interface adn_hip_cumsum_from

  ! ---- the C functions (reprosum.h), public under their C names ----
  public :: adn_acc_f32_add, adn_acc_f32_add_array, adn_acc_f32_count, adn_acc_f32_from_bytes
  public :: adn_acc_f32_init, adn_acc_f32_merge, adn_acc_f32_to_bytes, adn_acc_f32_value
  public :: adn_acc_f64_add, adn_acc_f64_add_array, adn_acc_f64_count, adn_acc_f64_from_bytes
  public :: adn_acc_f64_init, adn_acc_f64_merge, adn_acc_f64_to_bytes, adn_acc_f64_value
  public :: adn_cuda_acc_f32_add_array, adn_cuda_acc_f32_add_array_stream
  public :: adn_cuda_acc_f64_add_array, adn_cuda_acc_f64_add_array_stream, adn_cuda_cumsum_f32
  public :: adn_cuda_cumsum_f32_fold, adn_cuda_cumsum_f32_from, adn_cuda_cumsum_f32_from_stream
  public :: adn_cuda_cumsum_f32_stream, adn_cuda_cumsum_f64, adn_cuda_cumsum_f64_fold
  public :: adn_cuda_cumsum_f64_from, adn_cuda_cumsum_f64_from_stream, adn_cuda_cumsum_f64_stream
  public :: adn_cuda_sum_f32, adn_cuda_sum_f32_fold, adn_cuda_sum_f32_stream, adn_cuda_sum_f64
  public :: adn_cuda_sum_f64_fold, adn_cuda_sum_f64_stream, adn_cumsum_f32, adn_cumsum_f32_fold
  public :: adn_cumsum_f32_from, adn_cumsum_f64, adn_cumsum_f64_fold, adn_cumsum_f64_from
  public :: adn_get_num_threads, adn_hip_acc_f32_add_array, adn_hip_acc_f32_add_array_stream
  public :: adn_hip_acc_f64_add_array, adn_hip_acc_f64_add_array_stream, adn_hip_cumsum_f32
  public :: adn_hip_cumsum_f32_fold, adn_hip_cumsum_f32_from, adn_hip_cumsum_f32_from_stream
  public :: adn_hip_cumsum_f32_stream, adn_hip_cumsum_f64, adn_hip_cumsum_f64_fold
  public :: adn_hip_cumsum_f64_from, adn_hip_cumsum_f64_from_stream, adn_hip_cumsum_f64_stream
  public :: adn_hip_sum_f32, adn_hip_sum_f32_fold, adn_hip_sum_f32_stream, adn_hip_sum_f64
  public :: adn_hip_sum_f64_fold, adn_hip_sum_f64_stream, adn_set_num_threads, adn_sum_f32
  public :: adn_sum_f32_fold, adn_sum_f64, adn_sum_f64_fold
  public :: adn_segmented_sum_f64, adn_segmented_sum_f32, adn_sum_rows_f64, adn_sum_rows_f32
  public :: adn_sum_by_key_f64, adn_sum_by_key_f32, adn_segmented_cumsum_f64
  public :: adn_segmented_cumsum_f32, adn_acc_f64_add_segments, adn_acc_f32_add_segments
  public :: adn_acc_f64_add_by_key, adn_acc_f32_add_by_key
  public :: adn_cuda_segmented_sum_f64, adn_cuda_sum_rows_f64, adn_cuda_segmented_sum_f64_stream
  public :: adn_cuda_sum_rows_f64_stream, adn_cuda_segmented_sum_f32, adn_cuda_sum_rows_f32
  public :: adn_cuda_segmented_sum_f32_stream, adn_cuda_sum_rows_f32_stream, adn_hip_segmented_sum_f64
  public :: adn_hip_sum_rows_f64, adn_hip_segmented_sum_f64_stream, adn_hip_sum_rows_f64_stream
  public :: adn_hip_segmented_sum_f32, adn_hip_sum_rows_f32, adn_hip_segmented_sum_f32_stream
  public :: adn_hip_sum_rows_f32_stream
  public :: adn_cuda_sum_by_key_f64, adn_cuda_sum_by_key_f64_stream, adn_cuda_sum_by_key_f32
  public :: adn_cuda_sum_by_key_f32_stream, adn_hip_sum_by_key_f64, adn_hip_sum_by_key_f64_stream
  public :: adn_hip_sum_by_key_f32, adn_hip_sum_by_key_f32_stream
  public :: adn_cuda_segmented_cumsum_f64, adn_cuda_segmented_cumsum_f64_stream, adn_cuda_segmented_cumsum_f32
  public :: adn_cuda_segmented_cumsum_f32_stream, adn_hip_segmented_cumsum_f64, adn_hip_segmented_cumsum_f64_stream
  public :: adn_hip_segmented_cumsum_f32, adn_hip_segmented_cumsum_f32_stream

  interface
    ! ---- host: segmented, row and keyed sums, segmented cumulative sums (reprosum.h) ----
    ! The C entry points as they are: offsets and keys are 0-based (offsets(1) = 0, and
    ! offsets(nseg + 1) is the number of values), keys in 0 .. nkeys - 1.
    function adn_segmented_sum_f64(x, offsets, nseg, fold, out) &
        bind(C, name="adn_segmented_sum_f64") result(st)
      import
      real(c_double), intent(in) :: x(*)
      integer(c_size_t), intent(in) :: offsets(*)
      integer(c_size_t), value :: nseg
      integer(c_int), value :: fold
      real(c_double), intent(inout) :: out(*)
      integer(c_int32_t) :: st
    end function adn_segmented_sum_f64
    function adn_sum_rows_f64(x, rows, cols, row_stride, fold, out) &
        bind(C, name="adn_sum_rows_f64") result(st)
      import
      real(c_double), intent(in) :: x(*)
      integer(c_size_t), value :: rows, cols, row_stride
      integer(c_int), value :: fold
      real(c_double), intent(inout) :: out(*)
      integer(c_int32_t) :: st
    end function adn_sum_rows_f64
    function adn_sum_by_key_f64(x, keys, n, nkeys, fold, out) &
        bind(C, name="adn_sum_by_key_f64") result(st)
      import
      real(c_double), intent(in) :: x(*)
      integer(c_int64_t), intent(in) :: keys(*)
      integer(c_size_t), value :: n, nkeys
      integer(c_int), value :: fold
      real(c_double), intent(inout) :: out(*)
      integer(c_int32_t) :: st
    end function adn_sum_by_key_f64
    function adn_segmented_cumsum_f64(input, out, offsets, nseg, fold) &
        bind(C, name="adn_segmented_cumsum_f64") result(st)
      import
      real(c_double), intent(in) :: input(*)
      real(c_double), intent(inout) :: out(*)
      integer(c_size_t), intent(in) :: offsets(*)
      integer(c_size_t), value :: nseg
      integer(c_int), value :: fold
      integer(c_int32_t) :: st
    end function adn_segmented_cumsum_f64
    function adn_segmented_sum_f32(x, offsets, nseg, fold, out) &
        bind(C, name="adn_segmented_sum_f32") result(st)
      import
      real(c_float), intent(in) :: x(*)
      integer(c_size_t), intent(in) :: offsets(*)
      integer(c_size_t), value :: nseg
      integer(c_int), value :: fold
      real(c_float), intent(inout) :: out(*)
      integer(c_int32_t) :: st
    end function adn_segmented_sum_f32
    function adn_sum_rows_f32(x, rows, cols, row_stride, fold, out) &
        bind(C, name="adn_sum_rows_f32") result(st)
      import
      real(c_float), intent(in) :: x(*)
      integer(c_size_t), value :: rows, cols, row_stride
      integer(c_int), value :: fold
      real(c_float), intent(inout) :: out(*)
      integer(c_int32_t) :: st
    end function adn_sum_rows_f32
    function adn_sum_by_key_f32(x, keys, n, nkeys, fold, out) &
        bind(C, name="adn_sum_by_key_f32") result(st)
      import
      real(c_float), intent(in) :: x(*)
      integer(c_int64_t), intent(in) :: keys(*)
      integer(c_size_t), value :: n, nkeys
      integer(c_int), value :: fold
      real(c_float), intent(inout) :: out(*)
      integer(c_int32_t) :: st
    end function adn_sum_by_key_f32
    function adn_segmented_cumsum_f32(input, out, offsets, nseg, fold) &
        bind(C, name="adn_segmented_cumsum_f32") result(st)
      import
      real(c_float), intent(in) :: input(*)
      real(c_float), intent(inout) :: out(*)
      integer(c_size_t), intent(in) :: offsets(*)
      integer(c_size_t), value :: nseg
      integer(c_int), value :: fold
      integer(c_int32_t) :: st
    end function adn_segmented_cumsum_f32
    ! Each segment's (each key's) values added to its own accumulator: accs(i) gains segment
    ! i - 1 (key i - 1), so shards added call after call, or on ranks whose accumulator arrays
    ! are then merged, give each group the state of all its values.
    function adn_acc_f64_add_segments(accs, x, offsets, nseg) &
        bind(C, name="adn_acc_f64_add_segments") result(st)
      import
      type(adn_acc_f64), intent(inout) :: accs(*)
      real(c_double), intent(in) :: x(*)
      integer(c_size_t), intent(in) :: offsets(*)
      integer(c_size_t), value :: nseg
      integer(c_int32_t) :: st
    end function adn_acc_f64_add_segments
    function adn_acc_f32_add_segments(accs, x, offsets, nseg) &
        bind(C, name="adn_acc_f32_add_segments") result(st)
      import
      type(adn_acc_f32), intent(inout) :: accs(*)
      real(c_float), intent(in) :: x(*)
      integer(c_size_t), intent(in) :: offsets(*)
      integer(c_size_t), value :: nseg
      integer(c_int32_t) :: st
    end function adn_acc_f32_add_segments
    function adn_acc_f64_add_by_key(accs, nkeys, x, keys, n) &
        bind(C, name="adn_acc_f64_add_by_key") result(st)
      import
      type(adn_acc_f64), intent(inout) :: accs(*)
      integer(c_size_t), value :: nkeys
      real(c_double), intent(in) :: x(*)
      integer(c_int64_t), intent(in) :: keys(*)
      integer(c_size_t), value :: n
      integer(c_int32_t) :: st
    end function adn_acc_f64_add_by_key
    function adn_acc_f32_add_by_key(accs, nkeys, x, keys, n) &
        bind(C, name="adn_acc_f32_add_by_key") result(st)
      import
      type(adn_acc_f32), intent(inout) :: accs(*)
      integer(c_size_t), value :: nkeys
      real(c_float), intent(in) :: x(*)
      integer(c_int64_t), intent(in) :: keys(*)
      integer(c_size_t), value :: n
      integer(c_int32_t) :: st
    end function adn_acc_f32_add_by_key
    ! ---- host: whole-array sums and cumulative sums (reprosum.h) ----
    function adn_sum_f64(x, n, out) bind(C, name="adn_sum_f64") result(st)
      import
      real(c_double), intent(in) :: x(*)
      integer(c_size_t), value :: n
      real(c_double), intent(inout) :: out
      integer(c_int32_t) :: st
    end function adn_sum_f64
    function adn_sum_f64_fold(x, n, fold, out) bind(C, name="adn_sum_f64_fold") result(st)
      import
      real(c_double), intent(in) :: x(*)
      integer(c_size_t), value :: n
      integer(c_int), value :: fold
      real(c_double), intent(inout) :: out
      integer(c_int32_t) :: st
    end function adn_sum_f64_fold
    function adn_cumsum_f64(input, out, n) bind(C, name="adn_cumsum_f64") result(st)
      import
      real(c_double), intent(in) :: input(*)
      real(c_double), intent(inout) :: out(*)
      integer(c_size_t), value :: n
      integer(c_int32_t) :: st
    end function adn_cumsum_f64
    function adn_cumsum_f64_fold(input, out, n, fold) bind(C, name="adn_cumsum_f64_fold") result(st)
      import
      real(c_double), intent(in) :: input(*)
      real(c_double), intent(inout) :: out(*)
      integer(c_size_t), value :: n
      integer(c_int), value :: fold
      integer(c_int32_t) :: st
    end function adn_cumsum_f64_fold
    function adn_cumsum_f64_from(start, input, out, n) &
        bind(C, name="adn_cumsum_f64_from") result(st)
      import
      type(adn_acc_f64), intent(in) :: start
      real(c_double), intent(in) :: input(*)
      real(c_double), intent(inout) :: out(*)
      integer(c_size_t), value :: n
      integer(c_int32_t) :: st
    end function adn_cumsum_f64_from
    function adn_sum_f32(x, n, out) bind(C, name="adn_sum_f32") result(st)
      import
      real(c_float), intent(in) :: x(*)
      integer(c_size_t), value :: n
      real(c_float), intent(inout) :: out
      integer(c_int32_t) :: st
    end function adn_sum_f32
    function adn_sum_f32_fold(x, n, fold, out) bind(C, name="adn_sum_f32_fold") result(st)
      import
      real(c_float), intent(in) :: x(*)
      integer(c_size_t), value :: n
      integer(c_int), value :: fold
      real(c_float), intent(inout) :: out
      integer(c_int32_t) :: st
    end function adn_sum_f32_fold
    function adn_cumsum_f32(input, out, n) bind(C, name="adn_cumsum_f32") result(st)
      import
      real(c_float), intent(in) :: input(*)
      real(c_float), intent(inout) :: out(*)
      integer(c_size_t), value :: n
      integer(c_int32_t) :: st
    end function adn_cumsum_f32
    function adn_cumsum_f32_fold(input, out, n, fold) bind(C, name="adn_cumsum_f32_fold") result(st)
      import
      real(c_float), intent(in) :: input(*)
      real(c_float), intent(inout) :: out(*)
      integer(c_size_t), value :: n
      integer(c_int), value :: fold
      integer(c_int32_t) :: st
    end function adn_cumsum_f32_fold
    function adn_cumsum_f32_from(start, input, out, n) &
        bind(C, name="adn_cumsum_f32_from") result(st)
      import
      type(adn_acc_f32), intent(in) :: start
      real(c_float), intent(in) :: input(*)
      real(c_float), intent(inout) :: out(*)
      integer(c_size_t), value :: n
      integer(c_int32_t) :: st
    end function adn_cumsum_f32_from
    ! ---- host: accumulators ----
    function adn_acc_f64_init(acc, fold) bind(C, name="adn_acc_f64_init") result(st)
      import
      type(adn_acc_f64), intent(inout) :: acc
      integer(c_int), value :: fold
      integer(c_int32_t) :: st
    end function adn_acc_f64_init
    function adn_acc_f64_add(acc, x) bind(C, name="adn_acc_f64_add") result(st)
      import
      type(adn_acc_f64), intent(inout) :: acc
      real(c_double), value :: x
      integer(c_int32_t) :: st
    end function adn_acc_f64_add
    function adn_acc_f64_add_array(acc, x, n) bind(C, name="adn_acc_f64_add_array") result(st)
      import
      type(adn_acc_f64), intent(inout) :: acc
      real(c_double), intent(in) :: x(*)
      integer(c_size_t), value :: n
      integer(c_int32_t) :: st
    end function adn_acc_f64_add_array
    function adn_acc_f64_merge(acc, other) bind(C, name="adn_acc_f64_merge") result(st)
      import
      type(adn_acc_f64), intent(inout) :: acc
      type(adn_acc_f64), intent(in) :: other
      integer(c_int32_t) :: st
    end function adn_acc_f64_merge
    function adn_acc_f64_value(acc, out) bind(C, name="adn_acc_f64_value") result(st)
      import
      type(adn_acc_f64), intent(in) :: acc
      real(c_double), intent(inout) :: out
      integer(c_int32_t) :: st
    end function adn_acc_f64_value
    function adn_acc_f64_count(acc, out) bind(C, name="adn_acc_f64_count") result(st)
      import
      type(adn_acc_f64), intent(in) :: acc
      integer(c_int64_t), intent(inout) :: out
      integer(c_int32_t) :: st
    end function adn_acc_f64_count
    function adn_acc_f64_to_bytes(acc, buf, cap, len) &
        bind(C, name="adn_acc_f64_to_bytes") result(st)
      import
      type(adn_acc_f64), intent(in) :: acc
      integer(c_int8_t), intent(inout) :: buf(*)
      integer(c_size_t), value :: cap
      integer(c_size_t), intent(inout) :: len
      integer(c_int32_t) :: st
    end function adn_acc_f64_to_bytes
    function adn_acc_f64_from_bytes(acc, bytes, n) bind(C, name="adn_acc_f64_from_bytes") result(st)
      import
      type(adn_acc_f64), intent(inout) :: acc
      integer(c_int8_t), intent(in) :: bytes(*)
      integer(c_size_t), value :: n
      integer(c_int32_t) :: st
    end function adn_acc_f64_from_bytes
    function adn_acc_f32_init(acc, fold) bind(C, name="adn_acc_f32_init") result(st)
      import
      type(adn_acc_f32), intent(inout) :: acc
      integer(c_int), value :: fold
      integer(c_int32_t) :: st
    end function adn_acc_f32_init
    function adn_acc_f32_add(acc, x) bind(C, name="adn_acc_f32_add") result(st)
      import
      type(adn_acc_f32), intent(inout) :: acc
      real(c_float), value :: x
      integer(c_int32_t) :: st
    end function adn_acc_f32_add
    function adn_acc_f32_add_array(acc, x, n) bind(C, name="adn_acc_f32_add_array") result(st)
      import
      type(adn_acc_f32), intent(inout) :: acc
      real(c_float), intent(in) :: x(*)
      integer(c_size_t), value :: n
      integer(c_int32_t) :: st
    end function adn_acc_f32_add_array
    function adn_acc_f32_merge(acc, other) bind(C, name="adn_acc_f32_merge") result(st)
      import
      type(adn_acc_f32), intent(inout) :: acc
      type(adn_acc_f32), intent(in) :: other
      integer(c_int32_t) :: st
    end function adn_acc_f32_merge
    function adn_acc_f32_value(acc, out) bind(C, name="adn_acc_f32_value") result(st)
      import
      type(adn_acc_f32), intent(in) :: acc
      real(c_float), intent(inout) :: out
      integer(c_int32_t) :: st
    end function adn_acc_f32_value
    function adn_acc_f32_count(acc, out) bind(C, name="adn_acc_f32_count") result(st)
      import
      type(adn_acc_f32), intent(in) :: acc
      integer(c_int64_t), intent(inout) :: out
      integer(c_int32_t) :: st
    end function adn_acc_f32_count
    function adn_acc_f32_to_bytes(acc, buf, cap, len) &
        bind(C, name="adn_acc_f32_to_bytes") result(st)
      import
      type(adn_acc_f32), intent(in) :: acc
      integer(c_int8_t), intent(inout) :: buf(*)
      integer(c_size_t), value :: cap
      integer(c_size_t), intent(inout) :: len
      integer(c_int32_t) :: st
    end function adn_acc_f32_to_bytes
    function adn_acc_f32_from_bytes(acc, bytes, n) bind(C, name="adn_acc_f32_from_bytes") result(st)
      import
      type(adn_acc_f32), intent(inout) :: acc
      integer(c_int8_t), intent(in) :: bytes(*)
      integer(c_size_t), value :: n
      integer(c_int32_t) :: st
    end function adn_acc_f32_from_bytes
    ! ---- threads ----
    function adn_set_num_threads(n) bind(C, name="adn_set_num_threads") result(st)
      import
      integer(c_int), value :: n
      integer(c_int32_t) :: st
    end function adn_set_num_threads
    function adn_get_num_threads() bind(C, name="adn_get_num_threads") result(n)
      import
      integer(c_int) :: n
    end function adn_get_num_threads
    ! ---- CUDA: device memory (or host memory) as type(c_ptr) ----
    function adn_cuda_sum_f64(x, n, out) bind(C, name="adn_cuda_sum_f64") result(st)
      import
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      real(c_double), intent(inout) :: out
      integer(c_int32_t) :: st
    end function adn_cuda_sum_f64
    function adn_cuda_sum_f64_fold(x, n, fold, out) bind(C, name="adn_cuda_sum_f64_fold") result(st)
      import
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      integer(c_int), value :: fold
      real(c_double), intent(inout) :: out
      integer(c_int32_t) :: st
    end function adn_cuda_sum_f64_fold
    function adn_cuda_sum_f64_stream(x, n, fold, out, stream) &
        bind(C, name="adn_cuda_sum_f64_stream") result(st)
      import
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      integer(c_int), value :: fold
      real(c_double), intent(inout) :: out
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_cuda_sum_f64_stream
    function adn_cuda_cumsum_f64(input, out, n) bind(C, name="adn_cuda_cumsum_f64") result(st)
      import
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      integer(c_size_t), value :: n
      integer(c_int32_t) :: st
    end function adn_cuda_cumsum_f64
    function adn_cuda_cumsum_f64_fold(input, out, n, fold) &
        bind(C, name="adn_cuda_cumsum_f64_fold") result(st)
      import
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      integer(c_size_t), value :: n
      integer(c_int), value :: fold
      integer(c_int32_t) :: st
    end function adn_cuda_cumsum_f64_fold
    function adn_cuda_cumsum_f64_stream(input, out, n, fold, stream) &
        bind(C, name="adn_cuda_cumsum_f64_stream") result(st)
      import
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      integer(c_size_t), value :: n
      integer(c_int), value :: fold
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_cuda_cumsum_f64_stream
    function adn_cuda_acc_f64_add_array(acc, x, n) &
        bind(C, name="adn_cuda_acc_f64_add_array") result(st)
      import
      type(adn_acc_f64), intent(inout) :: acc
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      integer(c_int32_t) :: st
    end function adn_cuda_acc_f64_add_array
    function adn_cuda_acc_f64_add_array_stream(acc, x, n, stream) &
        bind(C, name="adn_cuda_acc_f64_add_array_stream") result(st)
      import
      type(adn_acc_f64), intent(inout) :: acc
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_cuda_acc_f64_add_array_stream
    function adn_cuda_cumsum_f64_from(start, input, out, n) &
        bind(C, name="adn_cuda_cumsum_f64_from") result(st)
      import
      type(adn_acc_f64), intent(in) :: start
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      integer(c_size_t), value :: n
      integer(c_int32_t) :: st
    end function adn_cuda_cumsum_f64_from
    function adn_cuda_cumsum_f64_from_stream(start, input, out, n, stream) &
        bind(C, name="adn_cuda_cumsum_f64_from_stream") result(st)
      import
      type(adn_acc_f64), intent(in) :: start
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      integer(c_size_t), value :: n
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_cuda_cumsum_f64_from_stream
    function adn_cuda_sum_f32(x, n, out) bind(C, name="adn_cuda_sum_f32") result(st)
      import
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      real(c_float), intent(inout) :: out
      integer(c_int32_t) :: st
    end function adn_cuda_sum_f32
    function adn_cuda_sum_f32_fold(x, n, fold, out) bind(C, name="adn_cuda_sum_f32_fold") result(st)
      import
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      integer(c_int), value :: fold
      real(c_float), intent(inout) :: out
      integer(c_int32_t) :: st
    end function adn_cuda_sum_f32_fold
    function adn_cuda_sum_f32_stream(x, n, fold, out, stream) &
        bind(C, name="adn_cuda_sum_f32_stream") result(st)
      import
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      integer(c_int), value :: fold
      real(c_float), intent(inout) :: out
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_cuda_sum_f32_stream
    function adn_cuda_cumsum_f32(input, out, n) bind(C, name="adn_cuda_cumsum_f32") result(st)
      import
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      integer(c_size_t), value :: n
      integer(c_int32_t) :: st
    end function adn_cuda_cumsum_f32
    function adn_cuda_cumsum_f32_fold(input, out, n, fold) &
        bind(C, name="adn_cuda_cumsum_f32_fold") result(st)
      import
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      integer(c_size_t), value :: n
      integer(c_int), value :: fold
      integer(c_int32_t) :: st
    end function adn_cuda_cumsum_f32_fold
    function adn_cuda_cumsum_f32_stream(input, out, n, fold, stream) &
        bind(C, name="adn_cuda_cumsum_f32_stream") result(st)
      import
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      integer(c_size_t), value :: n
      integer(c_int), value :: fold
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_cuda_cumsum_f32_stream
    function adn_cuda_acc_f32_add_array(acc, x, n) &
        bind(C, name="adn_cuda_acc_f32_add_array") result(st)
      import
      type(adn_acc_f32), intent(inout) :: acc
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      integer(c_int32_t) :: st
    end function adn_cuda_acc_f32_add_array
    function adn_cuda_acc_f32_add_array_stream(acc, x, n, stream) &
        bind(C, name="adn_cuda_acc_f32_add_array_stream") result(st)
      import
      type(adn_acc_f32), intent(inout) :: acc
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_cuda_acc_f32_add_array_stream
    function adn_cuda_cumsum_f32_from(start, input, out, n) &
        bind(C, name="adn_cuda_cumsum_f32_from") result(st)
      import
      type(adn_acc_f32), intent(in) :: start
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      integer(c_size_t), value :: n
      integer(c_int32_t) :: st
    end function adn_cuda_cumsum_f32_from
    function adn_cuda_cumsum_f32_from_stream(start, input, out, n, stream) &
        bind(C, name="adn_cuda_cumsum_f32_from_stream") result(st)
      import
      type(adn_acc_f32), intent(in) :: start
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      integer(c_size_t), value :: n
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_cuda_cumsum_f32_from_stream
    ! ---- HIP: device memory (or host memory) as type(c_ptr) ----
    function adn_hip_sum_f64(x, n, out) bind(C, name="adn_hip_sum_f64") result(st)
      import
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      real(c_double), intent(inout) :: out
      integer(c_int32_t) :: st
    end function adn_hip_sum_f64
    function adn_hip_sum_f64_fold(x, n, fold, out) bind(C, name="adn_hip_sum_f64_fold") result(st)
      import
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      integer(c_int), value :: fold
      real(c_double), intent(inout) :: out
      integer(c_int32_t) :: st
    end function adn_hip_sum_f64_fold
    function adn_hip_sum_f64_stream(x, n, fold, out, stream) &
        bind(C, name="adn_hip_sum_f64_stream") result(st)
      import
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      integer(c_int), value :: fold
      real(c_double), intent(inout) :: out
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_hip_sum_f64_stream
    function adn_hip_cumsum_f64(input, out, n) bind(C, name="adn_hip_cumsum_f64") result(st)
      import
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      integer(c_size_t), value :: n
      integer(c_int32_t) :: st
    end function adn_hip_cumsum_f64
    function adn_hip_cumsum_f64_fold(input, out, n, fold) &
        bind(C, name="adn_hip_cumsum_f64_fold") result(st)
      import
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      integer(c_size_t), value :: n
      integer(c_int), value :: fold
      integer(c_int32_t) :: st
    end function adn_hip_cumsum_f64_fold
    function adn_hip_cumsum_f64_stream(input, out, n, fold, stream) &
        bind(C, name="adn_hip_cumsum_f64_stream") result(st)
      import
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      integer(c_size_t), value :: n
      integer(c_int), value :: fold
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_hip_cumsum_f64_stream
    function adn_hip_acc_f64_add_array(acc, x, n) &
        bind(C, name="adn_hip_acc_f64_add_array") result(st)
      import
      type(adn_acc_f64), intent(inout) :: acc
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      integer(c_int32_t) :: st
    end function adn_hip_acc_f64_add_array
    function adn_hip_acc_f64_add_array_stream(acc, x, n, stream) &
        bind(C, name="adn_hip_acc_f64_add_array_stream") result(st)
      import
      type(adn_acc_f64), intent(inout) :: acc
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_hip_acc_f64_add_array_stream
    function adn_hip_cumsum_f64_from(start, input, out, n) &
        bind(C, name="adn_hip_cumsum_f64_from") result(st)
      import
      type(adn_acc_f64), intent(in) :: start
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      integer(c_size_t), value :: n
      integer(c_int32_t) :: st
    end function adn_hip_cumsum_f64_from
    function adn_hip_cumsum_f64_from_stream(start, input, out, n, stream) &
        bind(C, name="adn_hip_cumsum_f64_from_stream") result(st)
      import
      type(adn_acc_f64), intent(in) :: start
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      integer(c_size_t), value :: n
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_hip_cumsum_f64_from_stream
    function adn_hip_sum_f32(x, n, out) bind(C, name="adn_hip_sum_f32") result(st)
      import
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      real(c_float), intent(inout) :: out
      integer(c_int32_t) :: st
    end function adn_hip_sum_f32
    function adn_hip_sum_f32_fold(x, n, fold, out) bind(C, name="adn_hip_sum_f32_fold") result(st)
      import
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      integer(c_int), value :: fold
      real(c_float), intent(inout) :: out
      integer(c_int32_t) :: st
    end function adn_hip_sum_f32_fold
    function adn_hip_sum_f32_stream(x, n, fold, out, stream) &
        bind(C, name="adn_hip_sum_f32_stream") result(st)
      import
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      integer(c_int), value :: fold
      real(c_float), intent(inout) :: out
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_hip_sum_f32_stream
    function adn_hip_cumsum_f32(input, out, n) bind(C, name="adn_hip_cumsum_f32") result(st)
      import
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      integer(c_size_t), value :: n
      integer(c_int32_t) :: st
    end function adn_hip_cumsum_f32
    function adn_hip_cumsum_f32_fold(input, out, n, fold) &
        bind(C, name="adn_hip_cumsum_f32_fold") result(st)
      import
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      integer(c_size_t), value :: n
      integer(c_int), value :: fold
      integer(c_int32_t) :: st
    end function adn_hip_cumsum_f32_fold
    function adn_hip_cumsum_f32_stream(input, out, n, fold, stream) &
        bind(C, name="adn_hip_cumsum_f32_stream") result(st)
      import
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      integer(c_size_t), value :: n
      integer(c_int), value :: fold
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_hip_cumsum_f32_stream
    function adn_hip_acc_f32_add_array(acc, x, n) &
        bind(C, name="adn_hip_acc_f32_add_array") result(st)
      import
      type(adn_acc_f32), intent(inout) :: acc
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      integer(c_int32_t) :: st
    end function adn_hip_acc_f32_add_array
    function adn_hip_acc_f32_add_array_stream(acc, x, n, stream) &
        bind(C, name="adn_hip_acc_f32_add_array_stream") result(st)
      import
      type(adn_acc_f32), intent(inout) :: acc
      type(c_ptr), value :: x
      integer(c_size_t), value :: n
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_hip_acc_f32_add_array_stream
    function adn_hip_cumsum_f32_from(start, input, out, n) &
        bind(C, name="adn_hip_cumsum_f32_from") result(st)
      import
      type(adn_acc_f32), intent(in) :: start
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      integer(c_size_t), value :: n
      integer(c_int32_t) :: st
    end function adn_hip_cumsum_f32_from
    function adn_hip_cumsum_f32_from_stream(start, input, out, n, stream) &
        bind(C, name="adn_hip_cumsum_f32_from_stream") result(st)
      import
      type(adn_acc_f32), intent(in) :: start
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      integer(c_size_t), value :: n
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_hip_cumsum_f32_from_stream
    ! ---- GPU segmented and row sums: x, offsets and out as C pointers (device or host) ----
    function adn_cuda_segmented_sum_f64(x, offsets, nseg, fold, out) &
        bind(C, name="adn_cuda_segmented_sum_f64") result(st)
      import
      type(c_ptr), value :: x
      type(c_ptr), value :: offsets
      integer(c_size_t), value :: nseg
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      integer(c_int32_t) :: st
    end function adn_cuda_segmented_sum_f64
    function adn_cuda_sum_rows_f64(x, rows, cols, row_stride, fold, out) &
        bind(C, name="adn_cuda_sum_rows_f64") result(st)
      import
      type(c_ptr), value :: x
      integer(c_size_t), value :: rows, cols, row_stride
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      integer(c_int32_t) :: st
    end function adn_cuda_sum_rows_f64
    function adn_cuda_segmented_sum_f64_stream(x, offsets, nseg, fold, out, stream) &
        bind(C, name="adn_cuda_segmented_sum_f64_stream") result(st)
      import
      type(c_ptr), value :: x
      type(c_ptr), value :: offsets
      integer(c_size_t), value :: nseg
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_cuda_segmented_sum_f64_stream
    function adn_cuda_sum_rows_f64_stream(x, rows, cols, row_stride, fold, out, stream) &
        bind(C, name="adn_cuda_sum_rows_f64_stream") result(st)
      import
      type(c_ptr), value :: x
      integer(c_size_t), value :: rows, cols, row_stride
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_cuda_sum_rows_f64_stream
    function adn_cuda_segmented_sum_f32(x, offsets, nseg, fold, out) &
        bind(C, name="adn_cuda_segmented_sum_f32") result(st)
      import
      type(c_ptr), value :: x
      type(c_ptr), value :: offsets
      integer(c_size_t), value :: nseg
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      integer(c_int32_t) :: st
    end function adn_cuda_segmented_sum_f32
    function adn_cuda_sum_rows_f32(x, rows, cols, row_stride, fold, out) &
        bind(C, name="adn_cuda_sum_rows_f32") result(st)
      import
      type(c_ptr), value :: x
      integer(c_size_t), value :: rows, cols, row_stride
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      integer(c_int32_t) :: st
    end function adn_cuda_sum_rows_f32
    function adn_cuda_segmented_sum_f32_stream(x, offsets, nseg, fold, out, stream) &
        bind(C, name="adn_cuda_segmented_sum_f32_stream") result(st)
      import
      type(c_ptr), value :: x
      type(c_ptr), value :: offsets
      integer(c_size_t), value :: nseg
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_cuda_segmented_sum_f32_stream
    function adn_cuda_sum_rows_f32_stream(x, rows, cols, row_stride, fold, out, stream) &
        bind(C, name="adn_cuda_sum_rows_f32_stream") result(st)
      import
      type(c_ptr), value :: x
      integer(c_size_t), value :: rows, cols, row_stride
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_cuda_sum_rows_f32_stream
    function adn_hip_segmented_sum_f64(x, offsets, nseg, fold, out) &
        bind(C, name="adn_hip_segmented_sum_f64") result(st)
      import
      type(c_ptr), value :: x
      type(c_ptr), value :: offsets
      integer(c_size_t), value :: nseg
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      integer(c_int32_t) :: st
    end function adn_hip_segmented_sum_f64
    function adn_hip_sum_rows_f64(x, rows, cols, row_stride, fold, out) &
        bind(C, name="adn_hip_sum_rows_f64") result(st)
      import
      type(c_ptr), value :: x
      integer(c_size_t), value :: rows, cols, row_stride
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      integer(c_int32_t) :: st
    end function adn_hip_sum_rows_f64
    function adn_hip_segmented_sum_f64_stream(x, offsets, nseg, fold, out, stream) &
        bind(C, name="adn_hip_segmented_sum_f64_stream") result(st)
      import
      type(c_ptr), value :: x
      type(c_ptr), value :: offsets
      integer(c_size_t), value :: nseg
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_hip_segmented_sum_f64_stream
    function adn_hip_sum_rows_f64_stream(x, rows, cols, row_stride, fold, out, stream) &
        bind(C, name="adn_hip_sum_rows_f64_stream") result(st)
      import
      type(c_ptr), value :: x
      integer(c_size_t), value :: rows, cols, row_stride
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_hip_sum_rows_f64_stream
    function adn_hip_segmented_sum_f32(x, offsets, nseg, fold, out) &
        bind(C, name="adn_hip_segmented_sum_f32") result(st)
      import
      type(c_ptr), value :: x
      type(c_ptr), value :: offsets
      integer(c_size_t), value :: nseg
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      integer(c_int32_t) :: st
    end function adn_hip_segmented_sum_f32
    function adn_hip_sum_rows_f32(x, rows, cols, row_stride, fold, out) &
        bind(C, name="adn_hip_sum_rows_f32") result(st)
      import
      type(c_ptr), value :: x
      integer(c_size_t), value :: rows, cols, row_stride
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      integer(c_int32_t) :: st
    end function adn_hip_sum_rows_f32
    function adn_hip_segmented_sum_f32_stream(x, offsets, nseg, fold, out, stream) &
        bind(C, name="adn_hip_segmented_sum_f32_stream") result(st)
      import
      type(c_ptr), value :: x
      type(c_ptr), value :: offsets
      integer(c_size_t), value :: nseg
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_hip_segmented_sum_f32_stream
    function adn_hip_sum_rows_f32_stream(x, rows, cols, row_stride, fold, out, stream) &
        bind(C, name="adn_hip_sum_rows_f32_stream") result(st)
      import
      type(c_ptr), value :: x
      integer(c_size_t), value :: rows, cols, row_stride
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_hip_sum_rows_f32_stream
    ! ---- GPU keyed sums: x, keys and out as C pointers (device or host) ----
    function adn_cuda_sum_by_key_f64(x, keys, n, nkeys, fold, out) &
        bind(C, name="adn_cuda_sum_by_key_f64") result(st)
      import
      type(c_ptr), value :: x
      type(c_ptr), value :: keys
      integer(c_size_t), value :: n, nkeys
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      integer(c_int32_t) :: st
    end function adn_cuda_sum_by_key_f64
    function adn_cuda_sum_by_key_f64_stream(x, keys, n, nkeys, fold, out, stream) &
        bind(C, name="adn_cuda_sum_by_key_f64_stream") result(st)
      import
      type(c_ptr), value :: x
      type(c_ptr), value :: keys
      integer(c_size_t), value :: n, nkeys
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_cuda_sum_by_key_f64_stream
    function adn_cuda_sum_by_key_f32(x, keys, n, nkeys, fold, out) &
        bind(C, name="adn_cuda_sum_by_key_f32") result(st)
      import
      type(c_ptr), value :: x
      type(c_ptr), value :: keys
      integer(c_size_t), value :: n, nkeys
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      integer(c_int32_t) :: st
    end function adn_cuda_sum_by_key_f32
    function adn_cuda_sum_by_key_f32_stream(x, keys, n, nkeys, fold, out, stream) &
        bind(C, name="adn_cuda_sum_by_key_f32_stream") result(st)
      import
      type(c_ptr), value :: x
      type(c_ptr), value :: keys
      integer(c_size_t), value :: n, nkeys
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_cuda_sum_by_key_f32_stream
    function adn_hip_sum_by_key_f64(x, keys, n, nkeys, fold, out) &
        bind(C, name="adn_hip_sum_by_key_f64") result(st)
      import
      type(c_ptr), value :: x
      type(c_ptr), value :: keys
      integer(c_size_t), value :: n, nkeys
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      integer(c_int32_t) :: st
    end function adn_hip_sum_by_key_f64
    function adn_hip_sum_by_key_f64_stream(x, keys, n, nkeys, fold, out, stream) &
        bind(C, name="adn_hip_sum_by_key_f64_stream") result(st)
      import
      type(c_ptr), value :: x
      type(c_ptr), value :: keys
      integer(c_size_t), value :: n, nkeys
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_hip_sum_by_key_f64_stream
    function adn_hip_sum_by_key_f32(x, keys, n, nkeys, fold, out) &
        bind(C, name="adn_hip_sum_by_key_f32") result(st)
      import
      type(c_ptr), value :: x
      type(c_ptr), value :: keys
      integer(c_size_t), value :: n, nkeys
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      integer(c_int32_t) :: st
    end function adn_hip_sum_by_key_f32
    function adn_hip_sum_by_key_f32_stream(x, keys, n, nkeys, fold, out, stream) &
        bind(C, name="adn_hip_sum_by_key_f32_stream") result(st)
      import
      type(c_ptr), value :: x
      type(c_ptr), value :: keys
      integer(c_size_t), value :: n, nkeys
      integer(c_int), value :: fold
      type(c_ptr), value :: out
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_hip_sum_by_key_f32_stream
    function adn_cuda_segmented_cumsum_f64(input, out, offsets, nseg, fold) &
        bind(C, name="adn_cuda_segmented_cumsum_f64") result(st)
      import
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      type(c_ptr), value :: offsets
      integer(c_size_t), value :: nseg
      integer(c_int), value :: fold
      integer(c_int32_t) :: st
    end function adn_cuda_segmented_cumsum_f64
    function adn_cuda_segmented_cumsum_f64_stream(input, out, offsets, nseg, fold, stream) &
        bind(C, name="adn_cuda_segmented_cumsum_f64_stream") result(st)
      import
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      type(c_ptr), value :: offsets
      integer(c_size_t), value :: nseg
      integer(c_int), value :: fold
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_cuda_segmented_cumsum_f64_stream
    function adn_cuda_segmented_cumsum_f32(input, out, offsets, nseg, fold) &
        bind(C, name="adn_cuda_segmented_cumsum_f32") result(st)
      import
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      type(c_ptr), value :: offsets
      integer(c_size_t), value :: nseg
      integer(c_int), value :: fold
      integer(c_int32_t) :: st
    end function adn_cuda_segmented_cumsum_f32
    function adn_cuda_segmented_cumsum_f32_stream(input, out, offsets, nseg, fold, stream) &
        bind(C, name="adn_cuda_segmented_cumsum_f32_stream") result(st)
      import
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      type(c_ptr), value :: offsets
      integer(c_size_t), value :: nseg
      integer(c_int), value :: fold
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_cuda_segmented_cumsum_f32_stream
    function adn_hip_segmented_cumsum_f64(input, out, offsets, nseg, fold) &
        bind(C, name="adn_hip_segmented_cumsum_f64") result(st)
      import
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      type(c_ptr), value :: offsets
      integer(c_size_t), value :: nseg
      integer(c_int), value :: fold
      integer(c_int32_t) :: st
    end function adn_hip_segmented_cumsum_f64
    function adn_hip_segmented_cumsum_f64_stream(input, out, offsets, nseg, fold, stream) &
        bind(C, name="adn_hip_segmented_cumsum_f64_stream") result(st)
      import
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      type(c_ptr), value :: offsets
      integer(c_size_t), value :: nseg
      integer(c_int), value :: fold
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_hip_segmented_cumsum_f64_stream
    function adn_hip_segmented_cumsum_f32(input, out, offsets, nseg, fold) &
        bind(C, name="adn_hip_segmented_cumsum_f32") result(st)
      import
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      type(c_ptr), value :: offsets
      integer(c_size_t), value :: nseg
      integer(c_int), value :: fold
      integer(c_int32_t) :: st
    end function adn_hip_segmented_cumsum_f32
    function adn_hip_segmented_cumsum_f32_stream(input, out, offsets, nseg, fold, stream) &
        bind(C, name="adn_hip_segmented_cumsum_f32_stream") result(st)
      import
      type(c_ptr), value :: input
      type(c_ptr), value :: out
      type(c_ptr), value :: offsets
      integer(c_size_t), value :: nseg
      integer(c_int), value :: fold
      type(c_ptr), value :: stream
      integer(c_int32_t) :: st
    end function adn_hip_segmented_cumsum_f32_stream
  end interface

  interface
    function c_status_string(status) bind(C, name="adn_status_string") result(p)
      import
      integer(c_int32_t), value :: status
      type(c_ptr) :: p
    end function c_status_string
    function c_version() bind(C, name="adn_version") result(p)
      import
      type(c_ptr) :: p
    end function c_version
    function c_strlen(s) bind(C, name="strlen") result(n)
      import
      type(c_ptr), value :: s
      integer(c_size_t) :: n
    end function c_strlen
  end interface

contains

  ! The library's version, "MAJOR.MINOR.PATCH" (static in the library, copied here): compare
  ! it with ADN_VERSION_MAJOR, _MINOR and _PATCH, the module's.
  function adn_version() result(text)
    character(len=:), allocatable :: text
    text = c_text(c_version())
  end function adn_version

  ! A NUL-terminated C string, copied into a Fortran string.
  function c_text(p) result(text)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: text
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: text)
    do i = 1, n
      text(i:i) = chars(i)
    end do
  end function c_text

  ! The text of a status code (static in the library, copied here).
  function adn_status_string(status) result(text)
    integer, intent(in) :: status
    character(len=:), allocatable :: text
    text = c_text(c_status_string(int(status, c_int32_t)))
  end function adn_status_string

  ! A fold argument: ADN_DEFAULT_FOLD when absent; a negative one becomes a value the library
  ! refuses, as C's unsigned int would.
  pure function fold_arg(fold) result(k)
    integer, intent(in), optional :: fold
    integer(c_int) :: k
    k = ADN_DEFAULT_FOLD
    if (present(fold)) k = int(fold, c_int)
    if (k < 0) k = huge(k)
  end function fold_arg

  ! The status of a value function: into stat, or error stop with the text.
  subroutine check(st, what, stat)
    integer(c_int32_t), intent(in) :: st
    character(len=*), intent(in) :: what
    integer, intent(out), optional :: stat
    if (present(stat)) then
      stat = st
    else if (st /= ADN_OK) then
      write (error_unit, '(a, ": ", a, " (status ", i0, ")")') what, adn_status_string(st), st
      error stop 2
    end if
  end subroutine check

  function sum_r64(x, s, fold) result(st)
    real(real64), intent(in), contiguous :: x(:)
    real(real64), intent(inout) :: s
    integer, intent(in), optional :: fold
    integer(c_int32_t) :: st
    st = adn_sum_f64_fold(x, size(x, kind=c_size_t), fold_arg(fold), s)
  end function sum_r64

  function sum_value_r64(x, fold, stat) result(s)
    real(real64), intent(in), contiguous :: x(:)
    integer, intent(in), optional :: fold
    integer, intent(out), optional :: stat
    real(real64) :: s
    s = ieee_value(s, ieee_quiet_nan)
    call check(adn_sum_f64_fold(x, size(x, kind=c_size_t), fold_arg(fold), s), &
      'adn_sum_value', stat)
  end function sum_value_r64

  function cumsum_r64(x, y, fold) result(st)
    real(real64), intent(in), contiguous :: x(:)
    real(real64), intent(inout), contiguous :: y(:)
    integer, intent(in), optional :: fold
    integer(c_int32_t) :: st
    if (size(y) < size(x)) then
      st = ADN_BUFFER_TOO_SMALL
    else
      st = adn_cumsum_f64_fold(x, y, size(x, kind=c_size_t), fold_arg(fold))
    end if
  end function cumsum_r64

  function cumsum_inplace_r64(x, fold) result(st)
    real(real64), intent(inout), contiguous, target :: x(:)
    integer, intent(in), optional :: fold
    integer(c_int32_t) :: st
    interface
      function c_cumsum(input, out, n, fold) bind(C, name="adn_cumsum_f64_fold") result(st)
        import
        type(c_ptr), value :: input, out
        integer(c_size_t), value :: n
        integer(c_int), value :: fold
        integer(c_int32_t) :: st
      end function c_cumsum
    end interface
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(x) > 0) p = c_loc(x(1))
    st = c_cumsum(p, p, size(x, kind=c_size_t), fold_arg(fold))
  end function cumsum_inplace_r64

  function cumsum_from_r64(start, x, y) result(st)
    type(adn_acc_f64), intent(in) :: start
    real(real64), intent(in), contiguous :: x(:)
    real(real64), intent(inout), contiguous :: y(:)
    integer(c_int32_t) :: st
    if (size(y) < size(x)) then
      st = ADN_BUFFER_TOO_SMALL
    else
      st = adn_cumsum_f64_from(start, x, y, size(x, kind=c_size_t))
    end if
  end function cumsum_from_r64

  function cumsum_from_inplace_r64(start, x) result(st)
    type(adn_acc_f64), intent(in) :: start
    real(real64), intent(inout), contiguous, target :: x(:)
    integer(c_int32_t) :: st
    interface
      function c_cumsum_from(start, input, out, n) bind(C, name="adn_cumsum_f64_from") result(st)
        import
        type(adn_acc_f64), intent(in) :: start
        type(c_ptr), value :: input, out
        integer(c_size_t), value :: n
        integer(c_int32_t) :: st
      end function c_cumsum_from
    end interface
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(x) > 0) p = c_loc(x(1))
    st = c_cumsum_from(start, p, p, size(x, kind=c_size_t))
  end function cumsum_from_inplace_r64

  function acc_init_r64(acc, fold) result(st)
    type(adn_acc_f64), intent(inout) :: acc
    integer, intent(in), optional :: fold
    integer(c_int32_t) :: st
    st = adn_acc_f64_init(acc, fold_arg(fold))
  end function acc_init_r64

  function acc_add_r64(acc, x) result(st)
    type(adn_acc_f64), intent(inout) :: acc
    real(real64), intent(in) :: x
    integer(c_int32_t) :: st
    st = adn_acc_f64_add(acc, x)
  end function acc_add_r64

  function acc_add_array_r64(acc, x) result(st)
    type(adn_acc_f64), intent(inout) :: acc
    real(real64), intent(in), contiguous :: x(:)
    integer(c_int32_t) :: st
    st = adn_acc_f64_add_array(acc, x, size(x, kind=c_size_t))
  end function acc_add_array_r64

  function acc_merge_r64(acc, other) result(st)
    type(adn_acc_f64), intent(inout) :: acc
    type(adn_acc_f64), intent(in) :: other
    integer(c_int32_t) :: st
    st = adn_acc_f64_merge(acc, other)
  end function acc_merge_r64

  function acc_value_r64(acc, s) result(st)
    type(adn_acc_f64), intent(in) :: acc
    real(real64), intent(inout) :: s
    integer(c_int32_t) :: st
    st = adn_acc_f64_value(acc, s)
  end function acc_value_r64

  function acc_count_r64(acc, n) result(st)
    type(adn_acc_f64), intent(in) :: acc
    integer(c_int64_t), intent(inout) :: n
    integer(c_int32_t) :: st
    st = adn_acc_f64_count(acc, n)
  end function acc_count_r64

  function acc_to_bytes_r64(acc, buf, len) result(st)
    type(adn_acc_f64), intent(in) :: acc
    integer(c_int8_t), intent(inout), contiguous :: buf(:)
    integer(c_size_t), intent(inout) :: len
    integer(c_int32_t) :: st
    st = adn_acc_f64_to_bytes(acc, buf, size(buf, kind=c_size_t), len)
  end function acc_to_bytes_r64

  function acc_from_bytes_r64(acc, bytes) result(st)
    type(adn_acc_f64), intent(inout) :: acc
    integer(c_int8_t), intent(in), contiguous :: bytes(:)
    integer(c_int32_t) :: st
    st = adn_acc_f64_from_bytes(acc, bytes, size(bytes, kind=c_size_t))
  end function acc_from_bytes_r64

  function cuda_sum_r64(x, s, fold) result(st)
    real(real64), intent(in), contiguous, target :: x(:)
    real(real64), intent(inout) :: s
    integer, intent(in), optional :: fold
    integer(c_int32_t) :: st
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(x) > 0) p = c_loc(x(1))
    st = adn_cuda_sum_f64_fold(p, size(x, kind=c_size_t), fold_arg(fold), s)
  end function cuda_sum_r64

  function cuda_sum_ptr_r64(x, n, s, fold) result(st)
    type(c_ptr), intent(in) :: x
    integer(c_size_t), intent(in) :: n
    real(real64), intent(inout) :: s
    integer, intent(in), optional :: fold
    integer(c_int32_t) :: st
    st = adn_cuda_sum_f64_fold(x, n, fold_arg(fold), s)
  end function cuda_sum_ptr_r64

  function cuda_cumsum_r64(x, y, fold) result(st)
    real(real64), intent(in), contiguous, target :: x(:)
    real(real64), intent(inout), contiguous, target :: y(:)
    integer, intent(in), optional :: fold
    integer(c_int32_t) :: st
    type(c_ptr) :: p, q
    p = c_null_ptr
    q = c_null_ptr
    if (size(y) < size(x)) then
      st = ADN_BUFFER_TOO_SMALL
      return
    end if
    if (size(x) > 0) p = c_loc(x(1))
    if (size(x) > 0) q = c_loc(y(1))
    st = adn_cuda_cumsum_f64_fold(p, q, size(x, kind=c_size_t), fold_arg(fold))
  end function cuda_cumsum_r64

  function hip_sum_r64(x, s, fold) result(st)
    real(real64), intent(in), contiguous, target :: x(:)
    real(real64), intent(inout) :: s
    integer, intent(in), optional :: fold
    integer(c_int32_t) :: st
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(x) > 0) p = c_loc(x(1))
    st = adn_hip_sum_f64_fold(p, size(x, kind=c_size_t), fold_arg(fold), s)
  end function hip_sum_r64

  function hip_sum_ptr_r64(x, n, s, fold) result(st)
    type(c_ptr), intent(in) :: x
    integer(c_size_t), intent(in) :: n
    real(real64), intent(inout) :: s
    integer, intent(in), optional :: fold
    integer(c_int32_t) :: st
    st = adn_hip_sum_f64_fold(x, n, fold_arg(fold), s)
  end function hip_sum_ptr_r64

  function hip_cumsum_r64(x, y, fold) result(st)
    real(real64), intent(in), contiguous, target :: x(:)
    real(real64), intent(inout), contiguous, target :: y(:)
    integer, intent(in), optional :: fold
    integer(c_int32_t) :: st
    type(c_ptr) :: p, q
    p = c_null_ptr
    q = c_null_ptr
    if (size(y) < size(x)) then
      st = ADN_BUFFER_TOO_SMALL
      return
    end if
    if (size(x) > 0) p = c_loc(x(1))
    if (size(x) > 0) q = c_loc(y(1))
    st = adn_hip_cumsum_f64_fold(p, q, size(x, kind=c_size_t), fold_arg(fold))
  end function hip_cumsum_r64

  function sum_r32(x, s, fold) result(st)
    real(real32), intent(in), contiguous :: x(:)
    real(real32), intent(inout) :: s
    integer, intent(in), optional :: fold
    integer(c_int32_t) :: st
    st = adn_sum_f32_fold(x, size(x, kind=c_size_t), fold_arg(fold), s)
  end function sum_r32

  function sum_value_r32(x, fold, stat) result(s)
    real(real32), intent(in), contiguous :: x(:)
    integer, intent(in), optional :: fold
    integer, intent(out), optional :: stat
    real(real32) :: s
    s = ieee_value(s, ieee_quiet_nan)
    call check(adn_sum_f32_fold(x, size(x, kind=c_size_t), fold_arg(fold), s), &
      'adn_sum_value', stat)
  end function sum_value_r32

  function cumsum_r32(x, y, fold) result(st)
    real(real32), intent(in), contiguous :: x(:)
    real(real32), intent(inout), contiguous :: y(:)
    integer, intent(in), optional :: fold
    integer(c_int32_t) :: st
    if (size(y) < size(x)) then
      st = ADN_BUFFER_TOO_SMALL
    else
      st = adn_cumsum_f32_fold(x, y, size(x, kind=c_size_t), fold_arg(fold))
    end if
  end function cumsum_r32

  function cumsum_inplace_r32(x, fold) result(st)
    real(real32), intent(inout), contiguous, target :: x(:)
    integer, intent(in), optional :: fold
    integer(c_int32_t) :: st
    interface
      function c_cumsum(input, out, n, fold) bind(C, name="adn_cumsum_f32_fold") result(st)
        import
        type(c_ptr), value :: input, out
        integer(c_size_t), value :: n
        integer(c_int), value :: fold
        integer(c_int32_t) :: st
      end function c_cumsum
    end interface
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(x) > 0) p = c_loc(x(1))
    st = c_cumsum(p, p, size(x, kind=c_size_t), fold_arg(fold))
  end function cumsum_inplace_r32

  function cumsum_from_r32(start, x, y) result(st)
    type(adn_acc_f32), intent(in) :: start
    real(real32), intent(in), contiguous :: x(:)
    real(real32), intent(inout), contiguous :: y(:)
    integer(c_int32_t) :: st
    if (size(y) < size(x)) then
      st = ADN_BUFFER_TOO_SMALL
    else
      st = adn_cumsum_f32_from(start, x, y, size(x, kind=c_size_t))
    end if
  end function cumsum_from_r32

  function cumsum_from_inplace_r32(start, x) result(st)
    type(adn_acc_f32), intent(in) :: start
    real(real32), intent(inout), contiguous, target :: x(:)
    integer(c_int32_t) :: st
    interface
      function c_cumsum_from(start, input, out, n) bind(C, name="adn_cumsum_f32_from") result(st)
        import
        type(adn_acc_f32), intent(in) :: start
        type(c_ptr), value :: input, out
        integer(c_size_t), value :: n
        integer(c_int32_t) :: st
      end function c_cumsum_from
    end interface
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(x) > 0) p = c_loc(x(1))
    st = c_cumsum_from(start, p, p, size(x, kind=c_size_t))
  end function cumsum_from_inplace_r32

  function acc_init_r32(acc, fold) result(st)
    type(adn_acc_f32), intent(inout) :: acc
    integer, intent(in), optional :: fold
    integer(c_int32_t) :: st
    st = adn_acc_f32_init(acc, fold_arg(fold))
  end function acc_init_r32

  function acc_add_r32(acc, x) result(st)
    type(adn_acc_f32), intent(inout) :: acc
    real(real32), intent(in) :: x
    integer(c_int32_t) :: st
    st = adn_acc_f32_add(acc, x)
  end function acc_add_r32

  function acc_add_array_r32(acc, x) result(st)
    type(adn_acc_f32), intent(inout) :: acc
    real(real32), intent(in), contiguous :: x(:)
    integer(c_int32_t) :: st
    st = adn_acc_f32_add_array(acc, x, size(x, kind=c_size_t))
  end function acc_add_array_r32

  function acc_merge_r32(acc, other) result(st)
    type(adn_acc_f32), intent(inout) :: acc
    type(adn_acc_f32), intent(in) :: other
    integer(c_int32_t) :: st
    st = adn_acc_f32_merge(acc, other)
  end function acc_merge_r32

  function acc_value_r32(acc, s) result(st)
    type(adn_acc_f32), intent(in) :: acc
    real(real32), intent(inout) :: s
    integer(c_int32_t) :: st
    st = adn_acc_f32_value(acc, s)
  end function acc_value_r32

  function acc_count_r32(acc, n) result(st)
    type(adn_acc_f32), intent(in) :: acc
    integer(c_int64_t), intent(inout) :: n
    integer(c_int32_t) :: st
    st = adn_acc_f32_count(acc, n)
  end function acc_count_r32

  function acc_to_bytes_r32(acc, buf, len) result(st)
    type(adn_acc_f32), intent(in) :: acc
    integer(c_int8_t), intent(inout), contiguous :: buf(:)
    integer(c_size_t), intent(inout) :: len
    integer(c_int32_t) :: st
    st = adn_acc_f32_to_bytes(acc, buf, size(buf, kind=c_size_t), len)
  end function acc_to_bytes_r32

  function acc_from_bytes_r32(acc, bytes) result(st)
    type(adn_acc_f32), intent(inout) :: acc
    integer(c_int8_t), intent(in), contiguous :: bytes(:)
    integer(c_int32_t) :: st
    st = adn_acc_f32_from_bytes(acc, bytes, size(bytes, kind=c_size_t))
  end function acc_from_bytes_r32

  function cuda_sum_r32(x, s, fold) result(st)
    real(real32), intent(in), contiguous, target :: x(:)
    real(real32), intent(inout) :: s
    integer, intent(in), optional :: fold
    integer(c_int32_t) :: st
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(x) > 0) p = c_loc(x(1))
    st = adn_cuda_sum_f32_fold(p, size(x, kind=c_size_t), fold_arg(fold), s)
  end function cuda_sum_r32

  function cuda_sum_ptr_r32(x, n, s, fold) result(st)
    type(c_ptr), intent(in) :: x
    integer(c_size_t), intent(in) :: n
    real(real32), intent(inout) :: s
    integer, intent(in), optional :: fold
    integer(c_int32_t) :: st
    st = adn_cuda_sum_f32_fold(x, n, fold_arg(fold), s)
  end function cuda_sum_ptr_r32

  function cuda_cumsum_r32(x, y, fold) result(st)
    real(real32), intent(in), contiguous, target :: x(:)
    real(real32), intent(inout), contiguous, target :: y(:)
    integer, intent(in), optional :: fold
    integer(c_int32_t) :: st
    type(c_ptr) :: p, q
    p = c_null_ptr
    q = c_null_ptr
    if (size(y) < size(x)) then
      st = ADN_BUFFER_TOO_SMALL
      return
    end if
    if (size(x) > 0) p = c_loc(x(1))
    if (size(x) > 0) q = c_loc(y(1))
    st = adn_cuda_cumsum_f32_fold(p, q, size(x, kind=c_size_t), fold_arg(fold))
  end function cuda_cumsum_r32

  function hip_sum_r32(x, s, fold) result(st)
    real(real32), intent(in), contiguous, target :: x(:)
    real(real32), intent(inout) :: s
    integer, intent(in), optional :: fold
    integer(c_int32_t) :: st
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(x) > 0) p = c_loc(x(1))
    st = adn_hip_sum_f32_fold(p, size(x, kind=c_size_t), fold_arg(fold), s)
  end function hip_sum_r32

  function hip_sum_ptr_r32(x, n, s, fold) result(st)
    type(c_ptr), intent(in) :: x
    integer(c_size_t), intent(in) :: n
    real(real32), intent(inout) :: s
    integer, intent(in), optional :: fold
    integer(c_int32_t) :: st
    st = adn_hip_sum_f32_fold(x, n, fold_arg(fold), s)
  end function hip_sum_ptr_r32

  function hip_cumsum_r32(x, y, fold) result(st)
    real(real32), intent(in), contiguous, target :: x(:)
    real(real32), intent(inout), contiguous, target :: y(:)
    integer, intent(in), optional :: fold
    integer(c_int32_t) :: st
    type(c_ptr) :: p, q
    p = c_null_ptr
    q = c_null_ptr
    if (size(y) < size(x)) then
      st = ADN_BUFFER_TOO_SMALL
      return
    end if
    if (size(x) > 0) p = c_loc(x(1))
    if (size(x) > 0) q = c_loc(y(1))
    st = adn_hip_cumsum_f32_fold(p, q, size(x, kind=c_size_t), fold_arg(fold))
  end function hip_cumsum_r32

  function cuda_acc_add_array_r64(acc, x) result(st)
    type(adn_acc_f64), intent(inout) :: acc
    real(real64), intent(in), contiguous, target :: x(:)
    integer(c_int32_t) :: st
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(x) > 0) p = c_loc(x(1))
    st = adn_cuda_acc_f64_add_array(acc, p, size(x, kind=c_size_t))
  end function cuda_acc_add_array_r64

  function cuda_acc_add_ptr_r64(acc, x, n) result(st)
    type(adn_acc_f64), intent(inout) :: acc
    type(c_ptr), intent(in) :: x
    integer(c_size_t), intent(in) :: n
    integer(c_int32_t) :: st
    st = adn_cuda_acc_f64_add_array(acc, x, n)
  end function cuda_acc_add_ptr_r64

  function cuda_cumsum_from_r64(start, x, y) result(st)
    type(adn_acc_f64), intent(in) :: start
    real(real64), intent(in), contiguous, target :: x(:)
    real(real64), intent(inout), contiguous, target :: y(:)
    integer(c_int32_t) :: st
    type(c_ptr) :: p, q
    p = c_null_ptr
    q = c_null_ptr
    if (size(y) < size(x)) then
      st = ADN_BUFFER_TOO_SMALL
      return
    end if
    if (size(x) > 0) p = c_loc(x(1))
    if (size(x) > 0) q = c_loc(y(1))
    st = adn_cuda_cumsum_f64_from(start, p, q, size(x, kind=c_size_t))
  end function cuda_cumsum_from_r64
  function cuda_acc_add_array_r32(acc, x) result(st)
    type(adn_acc_f32), intent(inout) :: acc
    real(real32), intent(in), contiguous, target :: x(:)
    integer(c_int32_t) :: st
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(x) > 0) p = c_loc(x(1))
    st = adn_cuda_acc_f32_add_array(acc, p, size(x, kind=c_size_t))
  end function cuda_acc_add_array_r32

  function cuda_acc_add_ptr_r32(acc, x, n) result(st)
    type(adn_acc_f32), intent(inout) :: acc
    type(c_ptr), intent(in) :: x
    integer(c_size_t), intent(in) :: n
    integer(c_int32_t) :: st
    st = adn_cuda_acc_f32_add_array(acc, x, n)
  end function cuda_acc_add_ptr_r32

  function cuda_cumsum_from_r32(start, x, y) result(st)
    type(adn_acc_f32), intent(in) :: start
    real(real32), intent(in), contiguous, target :: x(:)
    real(real32), intent(inout), contiguous, target :: y(:)
    integer(c_int32_t) :: st
    type(c_ptr) :: p, q
    p = c_null_ptr
    q = c_null_ptr
    if (size(y) < size(x)) then
      st = ADN_BUFFER_TOO_SMALL
      return
    end if
    if (size(x) > 0) p = c_loc(x(1))
    if (size(x) > 0) q = c_loc(y(1))
    st = adn_cuda_cumsum_f32_from(start, p, q, size(x, kind=c_size_t))
  end function cuda_cumsum_from_r32
  function hip_acc_add_array_r64(acc, x) result(st)
    type(adn_acc_f64), intent(inout) :: acc
    real(real64), intent(in), contiguous, target :: x(:)
    integer(c_int32_t) :: st
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(x) > 0) p = c_loc(x(1))
    st = adn_hip_acc_f64_add_array(acc, p, size(x, kind=c_size_t))
  end function hip_acc_add_array_r64

  function hip_acc_add_ptr_r64(acc, x, n) result(st)
    type(adn_acc_f64), intent(inout) :: acc
    type(c_ptr), intent(in) :: x
    integer(c_size_t), intent(in) :: n
    integer(c_int32_t) :: st
    st = adn_hip_acc_f64_add_array(acc, x, n)
  end function hip_acc_add_ptr_r64

  function hip_cumsum_from_r64(start, x, y) result(st)
    type(adn_acc_f64), intent(in) :: start
    real(real64), intent(in), contiguous, target :: x(:)
    real(real64), intent(inout), contiguous, target :: y(:)
    integer(c_int32_t) :: st
    type(c_ptr) :: p, q
    p = c_null_ptr
    q = c_null_ptr
    if (size(y) < size(x)) then
      st = ADN_BUFFER_TOO_SMALL
      return
    end if
    if (size(x) > 0) p = c_loc(x(1))
    if (size(x) > 0) q = c_loc(y(1))
    st = adn_hip_cumsum_f64_from(start, p, q, size(x, kind=c_size_t))
  end function hip_cumsum_from_r64
  function hip_acc_add_array_r32(acc, x) result(st)
    type(adn_acc_f32), intent(inout) :: acc
    real(real32), intent(in), contiguous, target :: x(:)
    integer(c_int32_t) :: st
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(x) > 0) p = c_loc(x(1))
    st = adn_hip_acc_f32_add_array(acc, p, size(x, kind=c_size_t))
  end function hip_acc_add_array_r32

  function hip_acc_add_ptr_r32(acc, x, n) result(st)
    type(adn_acc_f32), intent(inout) :: acc
    type(c_ptr), intent(in) :: x
    integer(c_size_t), intent(in) :: n
    integer(c_int32_t) :: st
    st = adn_hip_acc_f32_add_array(acc, x, n)
  end function hip_acc_add_ptr_r32

  function hip_cumsum_from_r32(start, x, y) result(st)
    type(adn_acc_f32), intent(in) :: start
    real(real32), intent(in), contiguous, target :: x(:)
    real(real32), intent(inout), contiguous, target :: y(:)
    integer(c_int32_t) :: st
    type(c_ptr) :: p, q
    p = c_null_ptr
    q = c_null_ptr
    if (size(y) < size(x)) then
      st = ADN_BUFFER_TOO_SMALL
      return
    end if
    if (size(x) > 0) p = c_loc(x(1))
    if (size(x) > 0) q = c_loc(y(1))
    st = adn_hip_cumsum_f32_from(start, p, q, size(x, kind=c_size_t))
  end function hip_cumsum_from_r32

end module reprosum
