//! A check of a layer's bytes before the `openusd` crate (0.6) parses them.
//!
//! The crate's `.usdc` reader allocates sizes read straight from the file (`vec![..; count]`,
//! `Vec::with_capacity(count)`) before it reads the bytes they describe, and a failed
//! allocation aborts the process, which no `catch_unwind` turns into an error. It also recurses
//! on nested dictionaries. So every layer dqview opens passes [`check_layer_bytes`] first
//! (through the resolver in [`super::guard`]): it follows the crate's reader in reading order,
//! takes every count the reader turns into an allocation, and refuses the file where that
//! allocation would exceed what the bytes can hold, an index the reader uses unchecked is out of
//! range, or a nesting would recurse without bound. Where the reader itself returns an error
//! before reading on (a wrong flag, an unknown type), the check leaves that error to it.
//!
//! `.usdz` packages get their ZIP structure checked ([`zip`]) and each packaged crate file the
//! same check; `.usda` text its bracket nesting ([`text`]: the text parser recurses per level).

mod coding;
mod paths;
mod rep;
mod text;
mod values;
pub(super) mod zip;

#[cfg(test)]
pub(super) mod tests;

/// The crate file magic (`usdc::MAGIC`).
const MAGIC: &[u8] = b"PXR-USDC";

/// Checks one layer's bytes (a crate file, a ZIP package or text) before the crate parses them;
/// the error is one line saying what is wrong and where.
///
/// `max_bytes` caps what one structure or value may make the reader allocate
/// ([`crate::scene::LoadOptions::max_buffer_bytes`]): LZ4 can expand about 255 times, so a small
/// file can still describe gigabytes of integers.
pub fn check_layer_bytes(bytes: &[u8], max_bytes: u64) -> Result<(), String> {
    if bytes.starts_with(MAGIC) {
        check_crate(bytes, max_bytes)
    } else if bytes.starts_with(b"PK") {
        zip::check_package(bytes, max_bytes)
    } else {
        text::check_text(bytes)
    }
}

/// The crate check: the structural sections as `CrateFile::open` reads them, then every field's value.
fn check_crate(bytes: &[u8], max_bytes: u64) -> Result<(), String> {
    let limits = Limits {
        len: bytes.len() as u64,
        max_bytes,
    };
    let structure = structure(bytes, &limits)?;
    values::check_fields(bytes, &structure, &limits)
}

/// The file length and the allocation cap every count is held against.
pub(super) struct Limits {
    /// Bytes in the file.
    len: u64,
    /// The most one structure or value may make the reader allocate.
    max_bytes: u64,
}

impl Limits {
    /// `count` elements of `size` bytes read at `r`: refused unless they lie in the file, since
    /// the reader allocates them before it reads them; returns their byte length.
    fn elements(&self, r: &Reader, what: &str, count: u64, size: u64) -> Result<u64, String> {
        match count.checked_mul(size) {
            Some(bytes) if bytes <= r.remaining() => Ok(bytes),
            _ => Err(format!(
                "USDC {what} at byte {} claims {} elements of {size} bytes, but only {} of the file's {} bytes follow",
                r.pos,
                quantity(count),
                quantity(r.remaining()),
                quantity(self.len),
            )),
        }
    }

    /// Refuses a decoded size over the cap.
    fn allocation(&self, what: &str, at: u64, bytes: u64) -> Result<(), String> {
        if bytes <= self.max_bytes {
            return Ok(());
        }
        Err(format!(
            "USDC {what} at byte {at} would decode to {} bytes, over the limit of {} bytes (raise it with --max-buffer-bytes)",
            quantity(bytes),
            quantity(self.max_bytes),
        ))
    }
}

/// A count for a message: grouped digits, or `3.4e18` when it is absurd anyway.
pub(super) fn quantity(n: u64) -> String {
    if n >= 1_000_000_000_000 {
        return format!("{:.1e}", n as f64);
    }
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A name from the file for a one-line message: escaped, so a newline in it stays `\n`.
pub(super) fn shown(name: &[u8]) -> String {
    String::from_utf8_lossy(name).escape_debug().to_string()
}

/// A read position in the file, read as the crate's `Cursor` is: little-endian, an error past the end.
#[derive(Clone)]
pub(super) struct Reader<'a> {
    /// The whole file.
    bytes: &'a [u8],
    /// The next byte read; may lie past the end after a seek, as a `Cursor`'s may.
    pos: u64,
}

impl<'a> Reader<'a> {
    /// A reader at byte `pos` of `bytes`.
    fn at(bytes: &'a [u8], pos: u64) -> Self {
        Self { bytes, pos }
    }

    /// Bytes from the position to the end of the file.
    fn remaining(&self) -> u64 {
        (self.bytes.len() as u64).saturating_sub(self.pos)
    }

    /// The next `n` bytes; `what` names them in the error.
    fn take(&mut self, n: u64, what: &str) -> Result<&'a [u8], String> {
        if n > self.remaining() {
            return Err(format!(
                "USDC {what} at byte {} runs past the end of the file ({} bytes)",
                self.pos,
                quantity(self.bytes.len() as u64)
            ));
        }
        let start = self.pos as usize;
        self.pos += n;
        Ok(&self.bytes[start..start + n as usize])
    }

    /// The next `N` bytes as an array.
    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], String> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N as u64, what)?);
        Ok(out)
    }

    /// A `u8`.
    fn u8(&mut self, what: &str) -> Result<u8, String> {
        Ok(self.array::<1>(what)?[0])
    }

    /// A little-endian `u32`.
    fn u32(&mut self, what: &str) -> Result<u32, String> {
        self.array(what).map(u32::from_le_bytes)
    }

    /// A little-endian `u64` (the crate's `read_count`).
    fn u64(&mut self, what: &str) -> Result<u64, String> {
        self.array(what).map(u64::from_le_bytes)
    }

    /// A little-endian `i64`.
    fn i64(&mut self, what: &str) -> Result<i64, String> {
        self.array(what).map(i64::from_le_bytes)
    }
}

/// What the structural sections hold that the value check needs.
pub(super) struct Structure {
    /// The crate version as `major << 16 | minor << 8 | patch` (`Version::as_u32`).
    version: u32,
    /// Tokens in TOKENS.
    tokens: u64,
    /// STRINGS: each string's token index.
    strings: Vec<u32>,
    /// Paths in PATHS (`path_count`).
    paths: u64,
    /// Each field's value representation.
    reps: Vec<u64>,
}

/// `version(major, minor, patch)` as the crate compares versions.
const fn version(major: u32, minor: u32, patch: u32) -> u32 {
    major << 16 | minor << 8 | patch
}

/// A named section of the table of contents.
struct Section {
    /// Name bytes up to the first NUL (empty if there is none, as `Section::name` reads it).
    name: Vec<u8>,
    /// File offset of its start.
    start: u64,
}

/// The bootstrap, the table of contents and the six structural sections, in `CrateFile::open`'s order.
fn structure(bytes: &[u8], limits: &Limits) -> Result<Structure, String> {
    let mut r = Reader::at(bytes, 0);
    let head = r.take(32, "bootstrap header")?;
    let [major, minor, patch] = [head[8], head[9], head[10]].map(u32::from);
    let file_version = version(major, minor, patch);
    // `Version::can_read`: the same major version and a minor no newer than 0.12.
    if major != 0 || minor > 12 {
        return Err(format!(
            "USDC version {major}.{minor}.{patch} is newer than openusd 0.6 reads (0.12.0)"
        ));
    }
    // Below 0.4.0 the reader `todo!()`s in every section.
    if file_version < version(0, 4, 0) {
        return Err(format!(
            "USDC version {major}.{minor}.{patch} is older than openusd 0.6 reads (0.4.0)"
        ));
    }
    let toc = u64::from_le_bytes(head[16..24].try_into().map_err(|_| "bootstrap")?);
    if toc == 0 {
        return Err(String::from("USDC table of contents offset is 0"));
    }
    let sections = sections(&mut Reader::at(bytes, toc), limits)?;
    let find = |name: &str| sections.iter().find(|s| s.name == name.as_bytes());
    let at = |s: Option<&Section>| s.map(|s| Reader::at(bytes, s.start));
    let token_lengths = match at(find("TOKENS")) {
        Some(mut r) => tokens(&mut r, limits)?,
        None => Vec::new(),
    };
    let strings = match at(find("STRINGS")) {
        Some(mut r) => strings(&mut r, limits)?,
        None => Vec::new(),
    };
    let reps = match at(find("FIELDS")) {
        Some(mut r) => fields(&mut r, limits)?,
        None => Vec::new(),
    };
    if let Some(mut r) = at(find("FIELDSETS")) {
        let count = r.u64("FIELDSETS count")?;
        encoded_ints(&mut r, count, false, "FIELDSETS", limits)?;
    }
    let paths = match at(find("PATHS")) {
        Some(mut r) => paths::paths(&mut r, &token_lengths, limits)?,
        None => 0,
    };
    if let Some(mut r) = at(find("SPECS")) {
        let count = r.u64("SPECS count")?;
        for what in [
            "SPECS path indices",
            "SPECS fieldset indices",
            "SPECS types",
        ] {
            encoded_ints(&mut r, count, false, what, limits)?;
        }
    }
    Ok(Structure {
        version: file_version,
        tokens: token_lengths.len() as u64,
        strings,
        paths,
        reps,
    })
}

/// The table of contents: 1 to 63 sections (`read_sections`), each inside the file.
fn sections(r: &mut Reader, limits: &Limits) -> Result<Vec<Section>, String> {
    let count = r.u64("table of contents")?;
    if count == 0 || count >= 64 {
        return Err(format!(
            "USDC table of contents at byte {} claims {} sections (the reader takes 1 to 63)",
            r.pos - 8,
            quantity(count)
        ));
    }
    let mut out = Vec::new();
    for _ in 0..count {
        let at = r.pos;
        let raw = r.take(32, "section entry")?;
        let name = raw[..16].split(|&b| b == 0).next().unwrap_or_default();
        let start = u64::from_le_bytes(raw[16..24].try_into().map_err(|_| "section")?);
        let size = u64::from_le_bytes(raw[24..32].try_into().map_err(|_| "section")?);
        if start.checked_add(size).is_none_or(|end| end > limits.len) {
            return Err(format!(
                "USDC section {} (entry at byte {at}) spans bytes {start} + {size}, past the end of the file ({} bytes)",
                shown(name),
                quantity(limits.len)
            ));
        }
        out.push(Section {
            // `Section::name` reads up to a NUL; a name with none reads as empty.
            name: if raw[..16].contains(&0) {
                name.to_vec()
            } else {
                Vec::new()
            },
            start,
        });
    }
    Ok(out)
}

/// The most bytes an LZ4 block can produce per byte of input: a match length's extension bytes
/// add 255 each, and nothing else in the format expands more.
const LZ4_MAX_RATIO: u64 = 255;

/// One `read_compressed` block: what its LZ4 bytes decode to, or why `lz4_flex` refuses them.
type Decoded = Result<Vec<u8>, String>;

/// Reads one `read_compressed` block at `r` (a u64 compressed size, then LZ4 bytes), decoded
/// into at most `buffer` bytes, the output the reader allocates before decompressing.
///
/// Refuses a compressed size past the end of the file and a buffer over the cap (the reader
/// allocates both before reading). A block that does not decode is returned as such: the
/// reader then fails cleanly, having allocated `buffer`, which the caller must bound.
fn read_block(
    r: &mut Reader,
    buffer: u64,
    what: &str,
    limits: &Limits,
) -> Result<(u64, Decoded), String> {
    let at = r.pos;
    let size = r.u64(what)?;
    if size > r.remaining() {
        return Err(format!(
            "USDC {what} at byte {at} claims {} compressed bytes, but only {} of the file's {} bytes follow",
            quantity(size),
            quantity(r.remaining()),
            quantity(limits.len)
        ));
    }
    limits.allocation(what, at, buffer)?;
    let block = r.take(size, what)?;
    let decoded =
        coding::decompress(block, buffer).map_err(|e| format!("USDC {what} at byte {at}: {e}"));
    Ok((size, decoded))
}

/// A structural [`read_block`]: one that does not decode fails the whole layer in the reader.
fn compressed_block(
    r: &mut Reader,
    buffer: u64,
    what: &str,
    limits: &Limits,
) -> Result<Vec<u8>, String> {
    read_block(r, buffer, what, limits)?.1
}

/// One `read_encoded_ints(count)` block at `r`: its decoded bytes, or (inner error) why the
/// reader's LZ4 call fails cleanly.
///
/// The reader sizes the LZ4 output by `encoded_buffer_size(count)` and the decoded vector by
/// `count`; `decode_ints` then needs the common value and `count` 2-bit codes in the output.
/// The output is what LZ4 really produced from the file's bytes, so requiring those codes bounds
/// `count` by 4 integers per decoded byte, which every block the reader can decode meets. Where
/// LZ4 fails, the buffer the reader allocated first must still be one LZ4 could have filled.
fn encoded_ints_block(
    r: &mut Reader,
    count: u64,
    wide: bool,
    what: &str,
    limits: &Limits,
) -> Result<Decoded, String> {
    let at = r.pos;
    let claims = || {
        format!(
            "USDC {what} at byte {at} claims {} integers",
            quantity(count)
        )
    };
    let buffer = coding::encoded_buffer_size(count).ok_or_else(claims)?;
    let (size, decoded) = read_block(r, buffer, what, limits)?;
    let Ok(data) = decoded else {
        if buffer > size.saturating_mul(LZ4_MAX_RATIO) {
            return Err(format!(
                "{}, more than its {} compressed bytes can hold",
                claims(),
                quantity(size)
            ));
        }
        return Ok(decoded);
    };
    let needed = coding::encoded_header_size(count, wide);
    if needed > data.len() as u64 {
        return Err(format!(
            "{}, but its block decodes to only {} bytes",
            claims(),
            quantity(data.len() as u64)
        ));
    }
    let element = if wide { 8 } else { 4 };
    limits.allocation(
        what,
        at,
        buffer.saturating_add(count.saturating_mul(element)),
    )?;
    Ok(Ok(data))
}

/// A structural [`encoded_ints_block`]: one that does not decode fails the whole layer.
fn encoded_ints(
    r: &mut Reader,
    count: u64,
    wide: bool,
    what: &str,
    limits: &Limits,
) -> Result<Vec<u8>, String> {
    encoded_ints_block(r, count, wide, what, limits)?
}

/// Decodes an [`encoded_ints`] block (already held to `count`).
fn decode(data: &[u8], count: u64, what: &str) -> Result<Vec<i64>, String> {
    coding::decode_ints(data, count as usize, false).map_err(|e| format!("USDC {what}: {e}"))
}

/// TOKENS (`read_tokens`): the count, the text's size, then its LZ4 block; returns each
/// token's length.
fn tokens(r: &mut Reader, limits: &Limits) -> Result<Vec<u64>, String> {
    let count = r.u64("TOKENS count")?;
    let at = r.pos;
    let size = r.u64("TOKENS size")?;
    let text = compressed_block(r, size, "TOKENS", limits)?;
    // The reader requires exactly `size` decoded bytes, NUL-terminated, in `count` pieces.
    if text.len() as u64 != size {
        return Err(format!(
            "USDC TOKENS at byte {at} claim {} bytes of text, but the block decodes to {}",
            quantity(size),
            quantity(text.len() as u64)
        ));
    }
    let lengths: Vec<u64> = match text.split_last() {
        None => Vec::new(),
        Some((0, body)) => body.split(|&b| b == 0).map(|t| t.len() as u64).collect(),
        Some(_) => return Err(format!("USDC TOKENS at byte {at} are not NUL-terminated")),
    };
    if lengths.len() as u64 != count {
        return Err(format!(
            "USDC TOKENS at byte {at} claim {} tokens, but the text holds {}",
            quantity(count),
            lengths.len()
        ));
    }
    Ok(lengths)
}

/// STRINGS (`read_strings`): a count below 2^27, then that many u32 token indices.
fn strings(r: &mut Reader, limits: &Limits) -> Result<Vec<u32>, String> {
    let count = r.u64("STRINGS count")?;
    let bytes = limits.elements(r, "STRINGS", count, 4)?;
    let raw = r.take(bytes, "STRINGS")?;
    Ok(raw
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// FIELDS (`read_fields`): the count, its token indices, then its value reps, one u64 each.
fn fields(r: &mut Reader, limits: &Limits) -> Result<Vec<u64>, String> {
    let count = r.u64("FIELDS count")?;
    encoded_ints(r, count, false, "FIELDS token indices", limits)?;
    let at = r.pos;
    let buffer = count.saturating_mul(8);
    let reps = compressed_block(r, buffer, "FIELDS value reps", limits)?;
    // The reader pairs `count` token indices with the reps it decodes; valid files have one each.
    if reps.len() as u64 != buffer {
        return Err(format!(
            "USDC FIELDS at byte {at} claim {} value reps, but the block decodes to {} bytes",
            quantity(count),
            quantity(reps.len() as u64)
        ));
    }
    Ok(reps
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
        .collect())
}
