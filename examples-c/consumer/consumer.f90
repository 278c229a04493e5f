! The Fortran twin of consumer.c, through the reprosum module (include/reprosum.f90, compiled
! into this program by CMake's reprosum::fortran target or by the pkg-config build in
! .ci/install.sh).
!
!   consumer_f FILE...      prints "sum HEX" per file of raw doubles (the machine's byte
!                           order: little-endian on the platforms CI runs)
!
! The module's status form, `st = adn_sum(x, s)` (generic over real64 / real32 arrays, the
! status codes of C). Until include/reprosum.f90 is in the tree, .ci/install.sh's
! fortran_consumer says so and does not build this.
program consumer
  use, intrinsic :: iso_fortran_env, only: int64, real64, error_unit
  use reprosum
  implicit none
  character(len=4096) :: path
  real(real64), allocatable :: x(:)
  real(real64) :: s
  integer(int64) :: bytes
  integer :: i, u, st

  do i = 1, command_argument_count()
    call get_command_argument(i, path)
    open (newunit=u, file=trim(path), access='stream', form='unformatted', status='old', &
          action='read')
    inquire (unit=u, size=bytes)
    if (mod(bytes, 8_int64) /= 0) then
      write (error_unit, '(A)') trim(path)//': not a whole number of doubles'
      stop 2
    end if
    allocate (x(bytes/8))
    if (size(x) > 0) read (u) x
    close (u)
    st = adn_sum(x, s)
    if (st /= ADN_OK) then
      write (error_unit, '(A,I0)') 'adn_sum: status ', st
      stop 1
    end if
    write (*, '(A,1X,Z16.16)') 'sum', transfer(s, 0_int64)
    deallocate (x)
  end do
end program consumer
