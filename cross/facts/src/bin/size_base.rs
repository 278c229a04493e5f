//! Code-size probe: the program every probe shares, without a sum.

#![no_std]
#![no_main]

use core::hint::black_box;

reprosum_baremetal::entry!(main);

fn main() -> u32 {
    // Both inputs, as in the other probes.
    black_box(&reprosum_facts::PROBE_F32[..]);
    let xs = black_box(&reprosum_facts::PROBE_F64[..]);
    black_box(xs.len() as u32)
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    reprosum_baremetal::exit(101)
}
