//! The ZIP structure of a `.usdz` package, walked by hand (no ZIP crate): the end record, the
//! central directory, each entry's local header and data inside the file.
//!
//! USDZ stores every entry uncompressed (method 0), so a compressed entry is refused: nothing
//! then inflates, and each entry's bytes are exactly the file's. Packaged crate files get the
//! crate check. ZIP64 and multi-disk archives are refused: USD writes neither.

use super::{MAGIC, check_crate, quantity, shown};

/// One stored entry of a checked package.
pub struct Entry<'a> {
    /// Its name as stored (the packaged path, `/`-separated).
    pub name: &'a [u8],
    /// Its bytes.
    pub data: &'a [u8],
}

/// ZIP signatures, little-endian.
const END_RECORD: u32 = 0x0605_4b50;
const CENTRAL_HEADER: u32 = 0x0201_4b50;
const LOCAL_HEADER: u32 = 0x0403_4b50;

/// Bytes before the variable parts of each record.
const END_RECORD_LEN: usize = 22;
const CENTRAL_HEADER_LEN: usize = 46;
const LOCAL_HEADER_LEN: usize = 30;

/// Checks a package's structure and each packaged crate file.
pub fn check_package(bytes: &[u8], max_bytes: u64) -> Result<(), String> {
    for entry in entries(bytes)? {
        if entry.data.starts_with(MAGIC) {
            check_crate(entry.data, max_bytes)
                .map_err(|e| format!("USDZ entry {}: {e}", shown(entry.name)))?;
        }
    }
    Ok(())
}

/// A package's entries, its ZIP structure checked (not what the entries hold).
pub fn entries(bytes: &[u8]) -> Result<Vec<Entry<'_>>, String> {
    let end = end_record(bytes)?;
    let mut entries = Vec::new();
    // (start of local header, end of data) of each entry, to refuse overlaps.
    let mut spans = Vec::new();
    let mut at = end.directory;
    for index in 0..end.entries {
        let (entry, span, next) = central_entry(bytes, at, &end)
            .map_err(|e| format!("USDZ central directory entry {index} at byte {at}: {e}"))?;
        at = next;
        spans.push(span);
        entries.push(entry);
    }
    // Entries that share bytes would be checked (and read) once per name: refuse them, as no
    // ZIP writer shares them.
    spans.sort_unstable();
    if let Some(pair) = spans.windows(2).find(|w| w[1].0 < w[0].1) {
        return Err(format!(
            "USDZ entries at bytes {} and {} overlap",
            pair[0].0, pair[1].0
        ));
    }
    Ok(entries)
}

/// The end of central directory record.
struct EndRecord {
    /// Its offset.
    at: usize,
    /// Entries in the central directory.
    entries: u16,
    /// Offset of the central directory.
    directory: usize,
}

/// Little-endian `u16` at `at` (the caller checked the bounds).
fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

/// Little-endian `u32` at `at` (the caller checked the bounds).
fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// The end record: the last one in the file's final 64 KiB + 22 bytes (a comment is at most
/// 65,535 bytes), as ZIP readers search for it, checked against the file.
fn end_record(bytes: &[u8]) -> Result<EndRecord, String> {
    let last = bytes.len().checked_sub(END_RECORD_LEN).ok_or_else(|| {
        format!(
            "USDZ package of {} bytes is too short for a ZIP file",
            bytes.len()
        )
    })?;
    let first = last.saturating_sub(usize::from(u16::MAX));
    let at = (first..=last)
        .rev()
        .find(|&at| u32_at(bytes, at) == END_RECORD)
        .ok_or_else(|| String::from("USDZ package has no ZIP end of central directory record"))?;
    let field = |offset: usize| u16_at(bytes, at + offset);
    let (disk, directory_disk, here, entries) = (field(4), field(6), field(8), field(10));
    let size = u32_at(bytes, at + 12);
    let directory = u32_at(bytes, at + 16);
    let comment = usize::from(field(20));
    if [here, entries].contains(&u16::MAX) || [size, directory].contains(&u32::MAX) {
        return Err(format!(
            "USDZ package at byte {at} is a ZIP64 archive, which USDZ does not use"
        ));
    }
    if disk != 0 || directory_disk != 0 || here != entries {
        return Err(format!("USDZ package at byte {at} spans several disks"));
    }
    if at + END_RECORD_LEN + comment > bytes.len() {
        return Err(format!(
            "USDZ end record at byte {at} has a comment past the end of the file"
        ));
    }
    let directory = directory as usize;
    if directory.saturating_add(size as usize) > at {
        return Err(format!(
            "USDZ central directory at byte {directory} ({} bytes) runs into its end record at byte {at}",
            quantity(u64::from(size))
        ));
    }
    Ok(EndRecord {
        at,
        entries,
        directory,
    })
}

/// The central directory entry at `at`: the entry, its (local header, data end) span, and
/// where the next entry starts.
fn central_entry<'a>(
    bytes: &'a [u8],
    at: usize,
    end: &EndRecord,
) -> Result<(Entry<'a>, (usize, usize), usize), String> {
    let fixed_end = at + CENTRAL_HEADER_LEN;
    if fixed_end > end.at || u32_at(bytes, at) != CENTRAL_HEADER {
        return Err(String::from("is not a central directory header"));
    }
    let flags = u16_at(bytes, at + 8);
    let method = u16_at(bytes, at + 10);
    let compressed = u32_at(bytes, at + 20);
    let size = u32_at(bytes, at + 24);
    let variable = [28, 30, 32].map(|offset| usize::from(u16_at(bytes, at + offset)));
    let local = u32_at(bytes, at + 42);
    let next = fixed_end + variable.iter().sum::<usize>();
    if next > end.at {
        return Err(String::from("runs into the end record"));
    }
    let name = &bytes[fixed_end..fixed_end + variable[0]];
    let shown = shown(name);
    if flags & 1 != 0 {
        return Err(format!("({shown}) is encrypted"));
    }
    if method != 0 {
        return Err(format!(
            "({shown}) is compressed (method {method}); USDZ stores its files uncompressed"
        ));
    }
    if [compressed, size, local].contains(&u32::MAX) {
        return Err(format!(
            "({shown}) has ZIP64 sizes, which USDZ does not use"
        ));
    }
    if compressed != size {
        return Err(format!(
            "({shown}) is stored but claims {compressed} bytes stored and {size} unpacked"
        ));
    }
    let local = local as usize;
    let header_end = local + LOCAL_HEADER_LEN;
    if header_end > end.directory || u32_at(bytes, local) != LOCAL_HEADER {
        return Err(format!("({shown}) has no local header at byte {local}"));
    }
    let data = header_end
        + usize::from(u16_at(bytes, local + 26))
        + usize::from(u16_at(bytes, local + 28));
    let data_end = data + size as usize;
    if data_end > end.directory {
        return Err(format!(
            "({shown}) has {} bytes at byte {data}, past the central directory at byte {}",
            quantity(u64::from(size)),
            end.directory
        ));
    }
    let entry = Entry {
        name,
        data: &bytes[data..data_end],
    };
    Ok((entry, (local, data_end), next))
}
