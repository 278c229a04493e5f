! std::mt19937 and the "double, 1M wide-range" input of SyclReproSum's README, in Fortran, for
! the examples and tests: the same values as examples-c/mt19937.h (and reprosum-testkit's
! mt.rs). std::mt19937 gen(1); per value two draws g1, g2 and u = (g1 + g2 * 2^32) / 2^64
! (rounded once to double), x = u * 2e12 - 1e12 (no FMA: compile with -ffp-contract=off). The
! K = 3 sum of the 1,000,000 values is 0x430FC878C605717F.
!
! Fortran has no unsigned integers: the 32-bit state words live in int64 (always below 2^32),
! and the 64-bit draw g1 + g2 * 2^32 is converted to double as unsigned, rounded once.
module mt19937
  use, intrinsic :: iso_fortran_env, only: int32, int64, real32, real64
  implicit none
  private
  public :: wide_range_fill, f64_bits, f32_bits, hex64, hex32, mix
  integer, parameter, public :: WIDE_RANGE_LEN = 1000000
  integer(int64), parameter, public :: WIDE_RANGE_SUM_BITS = int(z'430FC878C605717F', int64)

  integer(int64), parameter :: MASK32 = int(z'FFFFFFFF', int64)

  type, public :: mt19937_state
    integer(int64) :: s(0:623) = 0
    integer :: idx = 624
  end type mt19937_state

contains

  subroutine mt_seed(m, seed)
    type(mt19937_state), intent(out) :: m
    integer(int64), intent(in) :: seed
    integer :: i
    integer(int64) :: prev
    m%s(0) = iand(seed, MASK32)
    do i = 1, 623
      prev = m%s(i - 1)
      ! 1812433253 * (a 32-bit value) < 2^63: no overflow in int64.
      m%s(i) = iand(1812433253_int64 * ieor(prev, ishft(prev, -30)) + i, MASK32)
    end do
    m%idx = 624
  end subroutine mt_seed

  function mt_next(m) result(y)
    type(mt19937_state), intent(inout) :: m
    integer(int64) :: y, v
    integer :: i
    if (m%idx >= 624) then
      do i = 0, 623
        y = ior(iand(m%s(i), int(z'80000000', int64)), iand(m%s(mod(i + 1, 624)), int(z'7FFFFFFF', int64)))
        v = ieor(m%s(mod(i + 397, 624)), ishft(y, -1))
        if (iand(y, 1_int64) /= 0) v = ieor(v, int(z'9908B0DF', int64))
        m%s(i) = v
      end do
      m%idx = 0
    end if
    y = m%s(m%idx)
    m%idx = m%idx + 1
    y = ieor(y, ishft(y, -11))
    y = ieor(y, iand(ishft(y, 7), int(z'9D2C5680', int64)))
    y = ieor(y, iand(ishft(y, 15), int(z'EFC60000', int64)))
    y = ieor(y, ishft(y, -18))
  end function mt_next

  ! The unsigned 64-bit value of v's bits as a double, rounded once (to nearest, ties to
  ! even): above 2^63, halve with the dropped bit kept as a sticky bit, then double.
  pure function u64_to_f64(v) result(d)
    integer(int64), intent(in) :: v
    real(real64) :: d
    if (v >= 0) then
      d = real(v, real64)
    else
      d = real(ior(ishft(v, -1), iand(v, 1_int64)), real64) * 2.0_real64
    end if
  end function u64_to_f64

  ! x(1:n) = the first n values of the wide-range input (n <= WIDE_RANGE_LEN).
  subroutine wide_range_fill(x)
    real(real64), intent(out) :: x(:)
    type(mt19937_state) :: m
    integer(int64) :: g1, g2
    real(real64) :: u
    integer :: i
    call mt_seed(m, 1_int64)
    do i = 1, size(x)
      g1 = mt_next(m)
      g2 = mt_next(m)
      u = u64_to_f64(ior(g1, ishft(g2, 32))) / 18446744073709551616.0_real64
      if (u >= 1.0_real64) u = nearest(1.0_real64, -1.0_real64)
      x(i) = u * 2.0e12_real64 - 1.0e12_real64
    end do
  end subroutine wide_range_fill

  elemental function f64_bits(x) result(b)
    real(real64), intent(in) :: x
    integer(int64) :: b
    b = transfer(x, 0_int64)
  end function f64_bits

  ! The bits of a float, zero-extended.
  elemental function f32_bits(x) result(b)
    real(real32), intent(in) :: x
    integer(int64) :: b
    b = iand(int(transfer(x, 0_int32), int64), MASK32)
  end function f32_bits

  ! 16 upper-case hex digits of the bits.
  function hex64(b) result(s)
    integer(int64), intent(in) :: b
    character(len=16) :: s
    write (s, '(z16.16)') b
  end function hex64

  function hex32(b) result(s)
    integer(int64), intent(in) :: b
    character(len=8) :: s
    write (s, '(z8.8)') b
  end function hex32

  ! A value's contribution to a cumulative sum's checksum: its bits rotated left by its
  ! 0-based global index mod 64. The checksum is the XOR of the contributions, so it does not
  ! depend on how the array is split (examples-c/mpi_cumsum.c computes the same).
  elemental function mix(b, i) result(h)
    integer(int64), intent(in) :: b, i
    integer(int64) :: h
    h = ishftc(b, int(mod(i, 64_int64)))
  end function mix

end module mt19937
