//! Code-size probe: the shared program plus one `reprosum_core::sum::<f64>` (K = 3).

#![no_std]
#![no_main]

use core::hint::black_box;

reprosum_baremetal::entry!(main);

fn main() -> u32 {
    // Both inputs, as in the other probes.
    black_box(&reprosum_facts::PROBE_F32[..]);
    let xs = black_box(&reprosum_facts::PROBE_F64[..]);
    match reprosum_core::sum::<f64>(xs) {
        Ok(s) => black_box(s.to_bits() as u32),
        Err(_) => 1,
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    reprosum_baremetal::exit(101)
}
