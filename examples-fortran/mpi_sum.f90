! A distributed reproducible sum and cumulative sum in Fortran with MPI (mpi_f08): each rank
! adds its block of an array to an accumulator; MPI_Allreduce merges the accumulators with a
! user operation (the sum), MPI_Exscan gives each rank the merge of the ranks before it, from
! which adn_cumsum_from continues over the rank's block (the cumulative sum). The bits are the
! single-process ones for any number of ranks and any split.
!
!   mpif90 -std=f2008 -O2 -ffp-contract=off include/reprosum.f90 examples-fortran/mt19937.f90 \
!          examples-fortran/mpi_sum.f90 target/release/libreprosum.a \
!          -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o mpi_sum_f
!   mpirun -n 4 ./mpi_sum_f
!
! The array is SyclReproSum's "double, 1M wide-range" input (examples-fortran/mt19937.f90,
! the generator of examples-c/mt19937.h) and real(x * 1e-9, real32) of it. For two splits
! (even blocks; blocks growing as (r/p)^2) rank 0 prints the line examples-c/mpi_cumsum.c
! prints (see there), with lang=fortran:
!   mpi_cumsum lang=fortran ranks=P split=NAME sum_f64=HEX sum_f64_k2=HEX sum_f32=HEX
!              cumsum_f64=HEX cumsum_f32=HEX OK
! and the program stops with a non-zero code if any sum or element differs from the
! single-process result, or the double sum from the known answer 0x430FC878C605717F.
module reprosum_mpi_ops
  use, intrinsic :: iso_c_binding
  use mpi_f08
  use reprosum
  implicit none
  private
  public :: merge_f64, merge_f32

  interface
    function c_memcpy(dst, src, n) bind(C, name="memcpy") result(p)
      import
      type(c_ptr), value :: dst, src
      integer(c_size_t), value :: n
      type(c_ptr) :: p
    end function c_memcpy
  end interface

contains

  ! The address p + offset bytes.
  function offset(p, bytes) result(q)
    type(c_ptr), intent(in) :: p
    integer(c_size_t), intent(in) :: bytes
    type(c_ptr) :: q
    q = transfer(transfer(p, 0_c_intptr_t) + int(bytes, c_intptr_t), c_null_ptr)
  end function offset

  ! The MPI user operations: inout(i) = merge(inout(i), in(i)). The elements are copied to
  ! and from aligned variables (MPI's buffers need not be aligned). A merge cannot fail here
  ! (every rank uses fold 3); if it did, the job is aborted, since a user operation has no
  ! way to return an error (include/reprosum_mpi.h poisons the result instead).
  subroutine merge_f64(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    type(adn_acc_f64), target :: a, b
    type(c_ptr) :: p
    integer(c_size_t) :: i, sz
    sz = c_sizeof(a)
    do i = 0, len - 1
      p = c_memcpy(c_loc(a), offset(inoutvec, i * sz), sz)
      p = c_memcpy(c_loc(b), offset(invec, i * sz), sz)
      if (adn_acc_merge(a, b) /= ADN_OK) call MPI_Abort(MPI_COMM_WORLD, 3)
      p = c_memcpy(offset(inoutvec, i * sz), c_loc(a), sz)
    end do
  end subroutine merge_f64

  subroutine merge_f32(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    type(adn_acc_f32), target :: a, b
    type(c_ptr) :: p
    integer(c_size_t) :: i, sz
    sz = c_sizeof(a)
    do i = 0, len - 1
      p = c_memcpy(c_loc(a), offset(inoutvec, i * sz), sz)
      p = c_memcpy(c_loc(b), offset(invec, i * sz), sz)
      if (adn_acc_merge(a, b) /= ADN_OK) call MPI_Abort(MPI_COMM_WORLD, 3)
      p = c_memcpy(offset(inoutvec, i * sz), c_loc(a), sz)
    end do
  end subroutine merge_f32

end module reprosum_mpi_ops

program mpi_sum_example
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64, real32, real64, error_unit
  use mpi_f08
  use reprosum
  use reprosum_mpi_ops
  use mt19937
  implicit none

  integer, parameter :: n = WIDE_RANGE_LEN
  real(real64), allocatable :: x(:), want(:), got(:)
  real(real32), allocatable :: xf(:), wantf(:), gotf(:)
  type(adn_acc_f64) :: acc, acc2, total, total2, prefix
  type(adn_acc_f32) :: accf, totalf, prefixf
  type(MPI_Datatype) :: t64, t32
  type(MPI_Op) :: op64, op32
  real(real64) :: sum64, sum64k2, s64, s64k2
  real(real32) :: sum32, s32
  integer(int64) :: h(2), hall(2), i
  integer :: rank, nranks, sp, lo, hi
  logical :: ok, all_ok, bad
  character(len=6), parameter :: splits(2) = ['even  ', 'square']

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)

  allocate (x(n), want(n), got(n), xf(n), wantf(n), gotf(n))
  call wide_range_fill(x)
  xf = real(x * 1.0e-9_real64, real32)

  ! The single-process results.
  call check(adn_sum(x, sum64), 'sum')
  call check(adn_sum(x, sum64k2, fold=2), 'sum k2')
  call check(adn_sum(xf, sum32), 'sum real32')
  call check(adn_cumsum(x, want), 'cumsum')
  call check(adn_cumsum(xf, wantf), 'cumsum real32')
  bad = f64_bits(sum64) /= WIDE_RANGE_SUM_BITS

  ! The accumulators travel as opaque bytes: one element of a contiguous byte type each.
  call MPI_Type_contiguous(int(c_sizeof(acc)), MPI_BYTE, t64)
  call MPI_Type_contiguous(int(c_sizeof(accf)), MPI_BYTE, t32)
  call MPI_Type_commit(t64)
  call MPI_Type_commit(t32)
  call MPI_Op_create(merge_f64, .true., op64) ! commutative: merging is exact
  call MPI_Op_create(merge_f32, .true., op32)

  do sp = 1, 2
    ! This rank's block x(lo:hi), as examples-c/mpi_cumsum.c (1-based here).
    if (sp == 1) then
      lo = int(int(n, int64) * rank / nranks) + 1
      hi = int(int(n, int64) * (rank + 1) / nranks)
    else
      lo = int(int(n, int64) * rank * rank / (int(nranks, int64) * nranks)) + 1
      hi = int(int(n, int64) * (rank + 1) * (rank + 1) / (int(nranks, int64) * nranks))
    end if

    ! The sums: local accumulators, merged by MPI_Allreduce.
    call check(adn_acc_init(acc, 3), 'init')
    call check(adn_acc_init(acc2, 2), 'init k2')
    call check(adn_acc_init(accf, 3), 'init real32')
    call check(adn_acc_add(acc, x(lo:hi)), 'add')
    call check(adn_acc_add(acc2, x(lo:hi)), 'add k2')
    call check(adn_acc_add(accf, xf(lo:hi)), 'add real32')
    call MPI_Allreduce(acc, total, 1, t64, op64, MPI_COMM_WORLD)
    call MPI_Allreduce(acc2, total2, 1, t64, op64, MPI_COMM_WORLD)
    call MPI_Allreduce(accf, totalf, 1, t32, op32, MPI_COMM_WORLD)
    call check(adn_acc_value(total, s64), 'value')
    call check(adn_acc_value(total2, s64k2), 'value k2')
    call check(adn_acc_value(totalf, s32), 'value real32')

    ! The cumulative sums: the merge of the ranks before this one (rank 0: empty, as
    ! MPI_Exscan leaves its result undefined), then on over the block.
    call MPI_Exscan(acc, prefix, 1, t64, op64, MPI_COMM_WORLD)
    call MPI_Exscan(accf, prefixf, 1, t32, op32, MPI_COMM_WORLD)
    if (rank == 0) then
      call check(adn_acc_init(prefix, 3), 'empty prefix')
      call check(adn_acc_init(prefixf, 3), 'empty prefix real32')
    end if
    call check(adn_cumsum_from(prefix, x(lo:hi), got(lo:hi)), 'cumsum_from')
    call check(adn_cumsum_from(prefixf, xf(lo:hi), gotf(lo:hi)), 'cumsum_from real32')

    ! Compare with the single-process results; the checksums of examples-c/mpi_cumsum.c.
    ok = f64_bits(s64) == f64_bits(sum64) .and. f64_bits(s64k2) == f64_bits(sum64k2) &
         .and. f32_bits(s32) == f32_bits(sum32)
    ok = ok .and. all(f64_bits(got(lo:hi)) == f64_bits(want(lo:hi))) &
         .and. all(f32_bits(gotf(lo:hi)) == f32_bits(wantf(lo:hi)))
    h = 0
    do i = lo, hi
      h(1) = ieor(h(1), mix(f64_bits(got(i)), i - 1))
      h(2) = ieor(h(2), mix(f32_bits(gotf(i)), i - 1))
    end do
    call MPI_Allreduce(ok, all_ok, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
    call MPI_Allreduce(h, hall, 2, MPI_INTEGER8, MPI_BXOR, MPI_COMM_WORLD)
    if (rank == 0) then
      write (*, '(a, i0, 15a)') 'mpi_cumsum lang=fortran ranks=', nranks, ' split=', trim(splits(sp)), &
        ' sum_f64=', hex64(f64_bits(s64)), ' sum_f64_k2=', hex64(f64_bits(s64k2)), &
        ' sum_f32=', hex32(f32_bits(s32)), ' cumsum_f64=', hex64(hall(1)), &
        ' cumsum_f32=', hex64(hall(2)), ' ', trim(merge('OK      ', 'MISMATCH', all_ok))
    end if
    bad = bad .or. .not. all_ok
  end do

  call MPI_Op_free(op64)
  call MPI_Op_free(op32)
  call MPI_Type_free(t64)
  call MPI_Type_free(t32)
  call MPI_Finalize()
  if (bad) error stop 1

contains

  subroutine check(st, what)
    integer, intent(in) :: st
    character(len=*), intent(in) :: what
    if (st /= ADN_OK) then
      write (error_unit, '(3a)') what, ': ', adn_status_string(st)
      call MPI_Abort(MPI_COMM_WORLD, 2)
    end if
  end subroutine check

end program mpi_sum_example
