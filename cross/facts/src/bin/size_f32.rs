//! Code-size probe: the shared program plus one `reprosum_core::sum::<f32>` (K = 3).

#![no_std]
#![no_main]

use core::hint::black_box;

reprosum_baremetal::entry!(main);

fn main() -> u32 {
    // Both inputs, as in the other probes.
    black_box(&reprosum_facts::PROBE_F64[..]);
    let xs = black_box(&reprosum_facts::PROBE_F32[..]);
    match reprosum_core::sum::<f32>(xs) {
        Ok(s) => black_box(s.to_bits()),
        Err(_) => 1,
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    reprosum_baremetal::exit(101)
}
