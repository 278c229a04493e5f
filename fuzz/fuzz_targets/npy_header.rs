//! The `.npy` header reader on arbitrary bytes: never panics, and what it accepts is
//! consistent with the bytes it was given and with the header writer.
#![no_main]

use libfuzzer_sys::fuzz_target;
use reprosum_cli::npy;

fuzz_target!(|data: &[u8]| {
    let pre = npy::preamble(data);
    match npy::parse_header(data) {
        Ok(h) => {
            // The header was all there, and the preamble said where it ends.
            assert!(h.data_offset <= data.len());
            assert!(h.data_offset <= 12 + npy::MAX_HEADER_LEN);
            let p = pre
                .expect("an accepted header has a valid preamble")
                .expect("complete");
            assert_eq!(p.header_end, h.data_offset);
            assert_eq!(p.version, h.version);
            // The declared data length does not overflow, and is checked exactly.
            let data_bytes = (data.len() - h.data_offset) as u64;
            let len = h.len.checked_mul(h.dtype.bytes() as u64).expect("no overflow");
            assert_eq!(h.data_len(), len);
            assert_eq!(h.check_data_len(data_bytes).is_ok(), data_bytes == len);
            // Writing the same array's header and reading it back gives the same facts.
            let w = npy::write_header(h.dtype, h.big_endian, h.len);
            assert_eq!(w.len() % 64, 0);
            let back = npy::parse_header(&w).expect("the writer's header is read");
            assert_eq!(
                (back.dtype, back.big_endian, back.len, back.data_offset),
                (h.dtype, h.big_endian, h.len, w.len())
            );
        }
        Err(e) => {
            // One line, no raw control characters from the input.
            assert!(!e.0.chars().any(char::is_control), "{:?}", e.0);
        }
    }
    // The index-file reader: the same header rules, integer element types.
    if let Ok(h) = npy::parse_index_header(data) {
        assert!(h.data_offset <= data.len());
        assert!(h.len.checked_mul(h.dtype.bytes() as u64).is_some());
        assert!(
            npy::parse_header(data).is_err(),
            "a header is of floats or of integers"
        );
    }
    // The dictionary reader alone, on the whole input as header text.
    if let Ok(d) = npy::parse_dict(data, true) {
        assert!(d.shape.ndim <= data.len());
    }
});
