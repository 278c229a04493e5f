//! Errors are values, reported before anything is written or changed.

use reprosum::{encoding, Accumulator, DynAccumulator, EncodingError, Error, Float};

/// An accumulator holding `count` values (all NaN, so no values need to exist), built
/// through the byte encoding.
fn full<T: Float>(count: u64) -> DynAccumulator<T> {
    let mut e = DynAccumulator::<T>::new(3).unwrap();
    e.add(T::NAN).unwrap();
    let mut bytes = e.to_bytes().to_vec();
    bytes[8..16].copy_from_slice(&count.to_le_bytes());
    reseal(&mut bytes);
    DynAccumulator::from_bytes(&bytes).unwrap()
}

#[test]
fn add_refuses_to_pass_the_capacity() {
    let mut a = full::<f32>(f32::CAPACITY);
    let before = a.to_bytes().to_vec();
    assert_eq!(a.add(1.0), Err(Error::CapacityExceeded));
    assert_eq!(a.add_slice(&[1.0]), Err(Error::CapacityExceeded));
    assert_eq!(a.to_bytes().to_vec(), before, "state changed by a refused add");

    let mut b = full::<f64>(f64::CAPACITY - 2);
    let before = b.to_bytes().to_vec();
    assert_eq!(b.add_slice(&[1.0, 2.0, 3.0]), Err(Error::CapacityExceeded));
    assert_eq!(
        b.to_bytes().to_vec(),
        before,
        "add_slice must check before adding anything"
    );
    b.add_slice(&[1.0, 2.0]).unwrap();
    assert_eq!(b.count(), f64::CAPACITY);
}

#[test]
fn merge_refuses_to_pass_the_capacity() {
    let mut a = full::<f32>(f32::CAPACITY / 2 + 1);
    let b = full::<f32>(f32::CAPACITY / 2 + 1);
    let before = a.to_bytes().to_vec();
    assert_eq!(a.merge(&b), Err(Error::CapacityExceeded));
    assert_eq!(a.to_bytes().to_vec(), before);
    let c = full::<f32>(f32::CAPACITY / 2 - 1);
    a.merge(&c).unwrap();
    assert_eq!(a.count(), f32::CAPACITY);
}

#[test]
fn folds_out_of_range_are_errors() {
    for k in [0, 1, 53, 1000] {
        assert_eq!(
            DynAccumulator::<f64>::new(k).err(),
            Some(Error::InvalidFold),
            "f64 fold {k}"
        );
        assert_eq!(reprosum::sum_fold(&[1.0f64], k), Err(Error::InvalidFold));
    }
    for k in [0, 1, 22] {
        assert_eq!(
            DynAccumulator::<f32>::new(k).err(),
            Some(Error::InvalidFold),
            "f32 fold {k}"
        );
    }
    assert!(DynAccumulator::<f64>::new(52).is_ok());
    assert!(DynAccumulator::<f32>::new(21).is_ok());
    let mut a = DynAccumulator::<f64>::new(3).unwrap();
    assert_eq!(
        a.merge(&DynAccumulator::new(4).unwrap()),
        Err(Error::FoldMismatch)
    );
}

#[test]
fn cumsum_length_mismatch_writes_nothing() {
    let x = [1.0f64, 2.0, 3.0];
    let mut out = [f64::from_bits(0xDEAD_BEEF); 2];
    assert_eq!(reprosum::cumsum(&x, &mut out), Err(Error::LengthMismatch));
    assert_eq!(
        reprosum::reprosum_core::cumsum(&x, &mut out),
        Err(Error::LengthMismatch)
    );
    assert!(out.iter().all(|v| v.to_bits() == 0xDEAD_BEEF));
    let mut out3 = [f64::from_bits(0xDEAD_BEEF); 3];
    assert_eq!(reprosum::cumsum_fold(&x, &mut out3, 99), Err(Error::InvalidFold));
    assert_eq!(
        reprosum::reprosum_core::cumsum_fold(&x, &mut out3, 1),
        Err(Error::InvalidFold)
    );
    assert!(out3.iter().all(|v| v.to_bits() == 0xDEAD_BEEF));
}

/// CRC-32C written out bit by bit (not the core's table): the checksum of version 2.
fn crc32c(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0x82F6_3B78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// Rewrites the checksum of version-2 bytes after a test changed a field.
fn reseal(b: &mut [u8]) {
    let n = b.len() - 4;
    let crc = crc32c(&b[..n]);
    b[n..].copy_from_slice(&crc.to_le_bytes());
}

/// The same state as version-1 bytes (no checksum).
fn as_v1(b: &[u8]) -> Vec<u8> {
    let mut v = b[..b.len() - 4].to_vec();
    v[4] = 1;
    v
}

#[test]
fn crc32c_check_value() {
    assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    assert_eq!(encoding::crc32c(b"123456789"), 0xE306_9283);
    let long: Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 3) as u8).collect();
    assert_eq!(encoding::crc32c(&long), crc32c(&long));
}

#[test]
fn decoding_reports_what_is_wrong() {
    let mut a = Accumulator::<f64, 3>::new();
    a.add_slice(&[1.5, -2.25, 1e300, 3e-310]).unwrap();
    let good = a.to_bytes().to_vec();
    assert_eq!(good.len(), Accumulator::<f64, 3>::ENCODED_LEN);
    assert_eq!(good.len(), encoding::encoded_len(8, 3));
    assert_eq!(good.len(), 68);
    assert_eq!(good[4], 2, "version 2 is written");
    let d = Accumulator::<f64, 3>::from_bytes(&good).unwrap();
    assert_eq!(d.value().to_bits(), a.value().to_bits());

    // Each field checked, in version 2 (checksum rewritten after the change, so the field
    // check itself is what refuses) and in version 1.
    let bad = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = good.clone();
        f(&mut b);
        if b.len() == good.len() {
            reseal(&mut b);
        }
        let v2 = Accumulator::<f64, 3>::from_bytes(&b).err();
        let mut one = as_v1(&good);
        f(&mut one);
        one[4] = 1;
        let v1 = Accumulator::<f64, 3>::from_bytes(&one).err();
        if b.len() == good.len() && b[4] == 2 {
            assert_eq!(v1, v2, "version 1 and 2 refuse the same field");
        }
        v2
    };
    let enc = |e| Some(Error::Encoding(e));
    assert_eq!(bad(&|_| {}), None);
    assert_eq!(bad(&|b| b.truncate(10)), enc(EncodingError::Length));
    assert_eq!(bad(&|b| b.truncate(good.len() - 1)), enc(EncodingError::Length));
    assert_eq!(bad(&|b| b.push(0)), enc(EncodingError::Length));
    assert_eq!(bad(&|b| b[0] = b'X'), enc(EncodingError::Magic));
    assert_eq!(bad(&|b| b[4] = 3), enc(EncodingError::Version));
    assert_eq!(bad(&|b| b[4] = 0), enc(EncodingError::Version));
    assert_eq!(bad(&|b| b[5] = 1), enc(EncodingError::Dtype));
    assert_eq!(bad(&|b| b[7] = 8), enc(EncodingError::Flags));
    assert_eq!(
        bad(&|b| b[8..16].copy_from_slice(&u64::MAX.to_le_bytes())),
        enc(EncodingError::Count)
    );
    // A window needs a value.
    assert_eq!(
        bad(&|b| b[8..16].copy_from_slice(&0u64.to_le_bytes())),
        enc(EncodingError::Count)
    );
    // A primary moved out of its bin, a non-renormalised primary, a fractional carry.
    assert_eq!(bad(&|b| b[23] ^= 0x10), enc(EncodingError::State));
    assert_eq!(bad(&|b| b[22] ^= 0x04), enc(EncodingError::State));
    assert_eq!(
        bad(&|b| b[16 + 3 * 8..16 + 4 * 8].copy_from_slice(&0.5f64.to_le_bytes())),
        enc(EncodingError::State)
    );
    // A carry that four values cannot reach (|S| <= 4 * 2^39 grid steps: carry 1 is 2^50).
    assert_eq!(
        bad(&|b| b[16 + 4 * 8..16 + 5 * 8].copy_from_slice(&1.0f64.to_le_bytes())),
        enc(EncodingError::State)
    );
    // The wrong fold for the const form, and a fold no type has.
    let four = Accumulator::<f64, 4>::new().to_bytes().to_vec();
    assert_eq!(
        Accumulator::<f64, 3>::from_bytes(&four).err(),
        enc(EncodingError::Fold)
    );
    assert!(DynAccumulator::<f64>::from_bytes(&four).is_ok());
    assert_eq!(bad(&|b| b[6] = 60), enc(EncodingError::Fold));
    // f32 bytes are not f64 bytes.
    let f = Accumulator::<f32, 3>::new().to_bytes().to_vec();
    assert_eq!(
        Accumulator::<f64, 3>::from_bytes(&f).err(),
        enc(EncodingError::Dtype)
    );
    assert_eq!(
        DynAccumulator::<f64>::from_bytes(&[]).err(),
        enc(EncodingError::Length)
    );
    // Version-1 bytes of the same state decode to the same state.
    let v1 = Accumulator::<f64, 3>::from_bytes(&as_v1(&good)).unwrap();
    assert_eq!(v1.to_bytes().as_bytes(), &good[..]);
}

/// Any single flipped bit of a version-2 encoding is refused, and the accumulator is left
/// as it was.
#[test]
fn every_flipped_bit_is_refused() {
    let mut a = DynAccumulator::<f32>::new(5).unwrap();
    a.add_slice(&[1.5, -2.25, 1e30, 3e-40, f32::INFINITY]).unwrap();
    let good = a.to_bytes().to_vec();
    let mut flipped = 0;
    for i in 0..good.len() * 8 {
        let mut b = good.clone();
        b[i / 8] ^= 1 << (i % 8);
        assert!(
            DynAccumulator::<f32>::from_bytes(&b).is_err(),
            "bit {i} flipped was accepted"
        );
        flipped += 1;
    }
    assert_eq!(flipped, good.len() * 8);
    // The checksum is what catches a flipped carry bit that still reads as a valid state.
    let mut b = good.clone();
    b[16 + 5 * 4] ^= 1; // lowest bit of primary 0: still in its bin, still renormalised
    assert_eq!(
        DynAccumulator::<f32>::from_bytes(&b).err(),
        Some(Error::Encoding(EncodingError::Checksum))
    );
}

/// The decoder is closed under its own operations: the counterexample (an f32
/// fold-3 state with count 1 and a carry of -1, accepted by the old bound, whose own
/// merge re-encoded to refused bytes) is now refused at the door or survives merging.
#[test]
fn accepted_states_stay_accepted() {
    // count 1, window at bin 10, slot 0: carry -1 and the smallest remainder (S = -2^21).
    let top = 10u32;
    let field = |j: u32| 266 - 13 * (top + j);
    let mut b = vec![0u8; 16 + 24];
    b[0..4].copy_from_slice(b"ADNB");
    b[4] = 1;
    b[5] = 1;
    b[6] = 3;
    b[8] = 1;
    for j in 0..3u32 {
        let p = (field(j) << 23) | (2 << 21);
        b[16 + 4 * j as usize..20 + 4 * j as usize].copy_from_slice(&p.to_le_bytes());
    }
    b[28..32].copy_from_slice(&(-1.0f32).to_le_bytes());
    assert_eq!(
        DynAccumulator::<f32>::from_bytes(&b).err(),
        Some(Error::Encoding(EncodingError::State)),
        "|S| = 2^21 is beyond what one value reaches (2^12)"
    );
    // The largest remainder with carry -1: S = -2^12 exactly, which one value can reach.
    let p0 = (field(0) << 23) | (2 << 21) | ((1 << 21) - (1 << 12));
    b[16..20].copy_from_slice(&p0.to_le_bytes());
    let a = DynAccumulator::<f32>::from_bytes(&b).unwrap();
    let mut m = a;
    for _ in 0..12 {
        let before = m;
        m.merge(&before).unwrap();
        m.add(-0.0).unwrap();
        let again = DynAccumulator::<f32>::from_bytes(&m.to_bytes()).unwrap();
        assert_eq!(again.to_bytes().as_bytes(), m.to_bytes().as_bytes());
    }
}

#[test]
fn encoding_is_little_endian_and_states_its_fields() {
    let mut a = Accumulator::<f32, 4>::new();
    a.add_slice(&[1.0, f32::INFINITY, 2.0]).unwrap();
    let b = a.to_bytes();
    assert_eq!(&b[0..4], b"ADNB");
    assert_eq!(b[4], 2, "version");
    assert_eq!(b[5], 1, "f32");
    assert_eq!(b[6], 4, "fold");
    assert_eq!(b[7], 2, "+Inf seen");
    assert_eq!(u64::from_le_bytes(b[8..16].try_into().unwrap()), 3);
    assert_eq!(b.len(), 16 + 2 * 4 * 4 + 4);
    // Primary 0, little-endian: 2.0 (field 128) has index (254 - 128) / 13 = 9, whose
    // reference value has the exponent field 266 - 13 * 9 = 149.
    assert_eq!(u32::from_le_bytes(b[16..20].try_into().unwrap()) >> 23, 149);
    let crc = u32::from_le_bytes(b[48..52].try_into().unwrap());
    assert_eq!(crc, crc32c(&b[..48]), "CRC-32C of everything before it");
}

#[test]
fn special_value_rule() {
    let max = f64::MAX;
    let s = |x: &[f64]| reprosum::sum(x).unwrap().to_bits();
    assert_eq!(s(&[f64::INFINITY, -max, -max]), f64::INFINITY.to_bits());
    assert_eq!(s(&[-max, -max, f64::INFINITY]), f64::INFINITY.to_bits());
    assert_eq!(s(&[-max, -max]), f64::NEG_INFINITY.to_bits());
    assert_eq!(s(&[f64::NEG_INFINITY, 1.0]), f64::NEG_INFINITY.to_bits());
    assert_eq!(s(&[f64::INFINITY, f64::NEG_INFINITY]), 0x7ff8_0000_0000_0000);
    assert_eq!(s(&[f64::from_bits(0xfff0_0000_0000_0001)]), 0x7ff8_0000_0000_0000);
    // +Inf-only and -Inf-only accumulators stay distinct, and merge to NaN.
    let mut p = DynAccumulator::<f32>::new(3).unwrap();
    p.add(f32::INFINITY).unwrap();
    let mut n = DynAccumulator::<f32>::new(3).unwrap();
    n.add(f32::NEG_INFINITY).unwrap();
    assert_ne!(p.to_bytes().to_vec(), n.to_bytes().to_vec());
    p.merge(&n).unwrap();
    assert_eq!(p.value().to_bits(), 0x7fc0_0000);
}
