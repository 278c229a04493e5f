//! `std::mt19937` and the "double, 1M wide-range" input of SyclReproSum's README.
//!
//! The input is `std::mt19937 gen(1)` and `std::uniform_real_distribution<double>(-1e12,
//! 1e12)`, 1,000,000 draws. The generator's outputs are fixed by the C++ standard; the
//! distribution is what libstdc++ and libc++ do: `u = fl(g1 + g2 * 2^32) / 2^64` from two
//! draws (g1 first), then `x = fl(fl(u * 2e12) - 1e12)` with no FMA
//! (`tests/vectors/wide_range_1m.py`). Its K = 3 sum is 0x430FC878C605717F.

/// Number of values in the wide-range input.
pub const WIDE_RANGE_LEN: usize = 1_000_000;

/// The 32-bit Mersenne Twister of the C++ standard (`std::mt19937`).
#[derive(Clone)]
pub struct Mt19937 {
    state: [u32; 624],
    index: usize,
}

impl Mt19937 {
    /// Seeded as `std::mt19937(seed)`.
    pub fn new(seed: u32) -> Self {
        let mut state = [0u32; 624];
        state[0] = seed;
        for i in 1..624 {
            let prev = state[i - 1];
            state[i] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        Mt19937 { state, index: 624 }
    }

    fn twist(&mut self) {
        for i in 0..624 {
            let y = (self.state[i] & 0x8000_0000) | (self.state[(i + 1) % 624] & 0x7fff_ffff);
            let mut v = self.state[(i + 397) % 624] ^ (y >> 1);
            if y & 1 != 0 {
                v ^= 0x9908_b0df;
            }
            self.state[i] = v;
        }
        self.index = 0;
    }

    /// The next 32-bit output.
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= 624 {
            self.twist();
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }
}

/// The wide-range input, one value at a time (no allocation).
#[derive(Clone)]
pub struct WideRange {
    rng: Mt19937,
    left: usize,
}

impl WideRange {
    /// The whole 1,000,000-value input.
    pub fn new() -> Self {
        WideRange {
            rng: Mt19937::new(1),
            left: WIDE_RANGE_LEN,
        }
    }
}

impl Default for WideRange {
    fn default() -> Self {
        Self::new()
    }
}

impl Iterator for WideRange {
    type Item = f64;
    fn next(&mut self) -> Option<f64> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let g1 = self.rng.next_u32() as u64;
        let g2 = self.rng.next_u32() as u64;
        // g1 + g2 * 2^32 is an exact 64-bit integer; one rounding to f64, as in the C++.
        let mut u = (g1 + (g2 << 32)) as f64 / 18_446_744_073_709_551_616.0;
        if u >= 1.0 {
            u = f64::from_bits(1.0f64.to_bits() - 1);
        }
        Some(u * 2e12 - 1e12)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}
