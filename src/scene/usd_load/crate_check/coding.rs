//! The two encodings a crate file's compressed blocks use, decoded the way openusd 0.6 reads
//! them (`usdc::reader::decompress_lz4`, `usdc::coding`), but growing the output only as the
//! input actually produces bytes, so a size field in the file never sizes an allocation here.

/// Bytes `coding::encoded_buffer_size::<u32>(count)` sets aside for `count` encoded integers
/// (`read_encoded_ints` uses the 32-bit size for every element type); `None` on overflow.
pub(super) fn encoded_buffer_size(count: u64) -> Option<u64> {
    if count == 0 {
        return Some(0);
    }
    // 4 bytes of common value, 2 bits of code per integer, at most 4 bytes per integer.
    let codes = count.checked_mul(2)?.div_ceil(8);
    4_u64.checked_add(codes)?.checked_add(count.checked_mul(4)?)
}

/// Bytes an integer block must hold before `coding::decode_ints` can decode `count` integers:
/// the common value (8 bytes for 64-bit elements, else 4) and one 2-bit code per integer.
///
/// `decode_ints` slices `data[offset..]` past these unchecked, so a shorter block panics there.
pub(super) fn encoded_header_size(count: u64, wide: bool) -> u64 {
    if count == 0 {
        return 0;
    }
    let common = if wide { 8 } else { 4 };
    common + count.div_ceil(4)
}

/// One LZ4 block of a crate file as USD writes it (`TfFastCompression`): a chunk-count byte (0:
/// one block follows; USD chunks only inputs over about 2 GB, and the crate `todo!()`s on them),
/// then the block, decompressed into at most `max_out` bytes, the buffer the crate reads into.
///
/// Refuses what `lz4_flex::decompress_into` refuses (a literal run or a match offset past what
/// exists, a match offset of 0, output past the buffer), so a block that passes here decodes
/// there to the same bytes.
pub(super) fn decompress(block: &[u8], max_out: u64) -> Result<Vec<u8>, String> {
    let Some((&chunks, input)) = block.split_first() else {
        return Err(String::from("the LZ4 block is empty (no chunk-count byte)"));
    };
    if chunks != 0 {
        return Err(format!(
            "the LZ4 block is split in {chunks} chunks, which openusd 0.6 cannot read"
        ));
    }
    let too_long =
        || format!("the LZ4 block decodes past the {max_out} bytes the reader sets aside");
    let mut out: Vec<u8> = Vec::new();
    let mut at = 0;
    while at < input.len() {
        let token = input[at];
        at += 1;
        let literals = run_length(input, &mut at, usize::from(token >> 4))?;
        let end = at
            .checked_add(literals)
            .filter(|&end| end <= input.len())
            .ok_or_else(|| String::from("an LZ4 literal run goes past the end of its block"))?;
        if (out.len() + literals) as u64 > max_out {
            return Err(too_long());
        }
        out.extend_from_slice(&input[at..end]);
        at = end;
        // The last sequence of a block is literals only.
        if at == input.len() {
            break;
        }
        let offset = match input.get(at..at + 2) {
            Some(&[lo, hi]) => usize::from(u16::from_le_bytes([lo, hi])),
            _ => {
                return Err(String::from(
                    "an LZ4 match offset is cut off by the end of its block",
                ));
            }
        };
        at += 2;
        let length = run_length(input, &mut at, usize::from(token & 0x0f))?.saturating_add(4);
        if offset == 0 || offset > out.len() {
            return Err(format!(
                "an LZ4 match points {offset} bytes back, where {} bytes exist",
                out.len()
            ));
        }
        if (out.len() as u64).saturating_add(length as u64) > max_out {
            return Err(too_long());
        }
        // Byte by byte: a match may overlap the bytes it produces (a run of one byte, say).
        let start = out.len() - offset;
        for i in 0..length {
            let byte = out[start + i];
            out.push(byte);
        }
    }
    Ok(out)
}

/// An LZ4 length: the token's 4-bit `nibble`, and while it is 15, extension bytes added on
/// until one is below 255.
fn run_length(input: &[u8], at: &mut usize, nibble: usize) -> Result<usize, String> {
    let mut length = nibble;
    if nibble == 15 {
        loop {
            let &byte = input
                .get(*at)
                .ok_or_else(|| String::from("an LZ4 length is cut off by the end of its block"))?;
            *at += 1;
            length = length.saturating_add(usize::from(byte));
            if byte != 255 {
                break;
            }
        }
    }
    Ok(length)
}

/// `count` integers of USD's integer coding (a common value, 2-bit codes, then the deltas that
/// are not the common one), as `coding::decode_ints` decodes them, widened to `i64`; `wide`
/// for 64-bit element types. `count` must fit the block (see [`encoded_header_size`]).
///
/// Like `decode_ints`, every code of the last code byte is decoded, also past `count`.
pub(super) fn decode_ints(data: &[u8], count: usize, wide: bool) -> Result<Vec<i64>, String> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let common_size = if wide { 8 } else { 4 };
    let codes_len = count.div_ceil(4);
    let (common, rest) = data
        .split_at_checked(common_size)
        .ok_or_else(|| String::from("the integer block has no common value"))?;
    let common = signed(common);
    let (codes, mut deltas) = rest
        .split_at_checked(codes_len)
        .ok_or_else(|| String::from("the integer block is shorter than its codes"))?;
    let mut out = Vec::with_capacity(count.saturating_add(3));
    let mut previous = 0_i64;
    for &code_byte in codes {
        for slot in 0..4 {
            // Codes 1, 2, 3 store the delta in 1, 2, 4 bytes (2, 4, 8 for 64-bit elements).
            let width = match (code_byte >> (2 * slot)) & 3 {
                0 => 0,
                code => (1 << (code - 1)) * if wide { 2 } else { 1 },
            };
            let delta = if width == 0 {
                common
            } else {
                let (bytes, rest) = deltas
                    .split_at_checked(width)
                    .ok_or_else(|| String::from("the integer block runs out of deltas"))?;
                deltas = rest;
                signed(bytes)
            };
            previous = previous.wrapping_add(delta);
            out.push(previous);
        }
    }
    out.truncate(count);
    Ok(out)
}

/// A little-endian signed integer of 1, 2, 4 or 8 bytes, sign-extended.
fn signed(bytes: &[u8]) -> i64 {
    let mut wide = [0_u8; 8];
    wide[..bytes.len()].copy_from_slice(bytes);
    let value = i64::from_le_bytes(wide);
    let unused = 64 - 8 * bytes.len() as u32;
    (value << unused) >> unused
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_usds_integer_coding_example() {
        // integerCoding.cpp's example: [123, 124, 125, 100125, 100125, 100126, 100126].
        let mut data = 1_i32.to_le_bytes().to_vec();
        data.extend_from_slice(&0b1100_0001_0001_0001_u16.to_be_bytes());
        data.push(123);
        data.extend_from_slice(&100_000_i32.to_le_bytes());
        data.extend_from_slice(&0_i16.to_le_bytes());
        let ints = decode_ints(&data, 7, false).unwrap();
        assert_eq!(ints, [123, 124, 125, 100_125, 100_125, 100_126, 100_126]);
        assert!(decode_ints(&data[..8], 7, false).is_err());
    }

    #[test]
    fn decompresses_literals_and_overlapping_matches() {
        // "abc", then a 9-byte match 3 back (overlapping itself), then "x".
        let block = [0, 0x35, b'a', b'b', b'c', 3, 0, 0x10, b'x'];
        assert_eq!(decompress(&block, 64).unwrap(), b"abcabcabcabcx");
        assert!(decompress(&block, 12).is_err(), "past the buffer");
        assert!(decompress(&[1, 0x10, b'x'], 64).is_err(), "chunked");
        assert!(
            decompress(&[0, 0x30, b'a'], 64).is_err(),
            "literals past the end"
        );
        assert!(
            decompress(&[0, 0x10, b'a', 2, 0, 0x10, b'x'], 64).is_err(),
            "offset too far"
        );
    }

    #[test]
    fn sizes_match_the_crate() {
        assert_eq!(encoded_buffer_size(0), Some(0));
        assert_eq!(encoded_buffer_size(7), Some(4 + 2 + 28));
        assert_eq!(encoded_buffer_size(u64::MAX), None);
        assert_eq!(encoded_header_size(7, false), 6);
        assert_eq!(encoded_header_size(7, true), 10);
    }
}
