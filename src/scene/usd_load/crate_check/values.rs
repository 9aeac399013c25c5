//! Every field's value, walked as `CrateFile::value` reads it (openusd 0.6, `usdc/reader.rs`).
//!
//! A value rep ([`Rep`]) says the type, and where the value lies or the value itself.

use std::collections::HashMap;

use super::rep::{Rep, VEC_SIZES, ty};
use super::{Limits, Reader, Structure, coding, encoded_ints_block, version};

/// Deepest nesting of dictionaries and time samples the reader is allowed to recurse through
/// (`read_custom_data` and `TimeSamples` call `value` again, one stack frame chain per level);
/// USD's own files nest a few levels. Text's bound, [`crate::scene::USD_MAX_NESTING`], is far
/// higher because prims nest in text; a crate file's prims are one flat path table, so only
/// values nest here, and the loading thread's stack holds this many levels many times over.
const MAX_DEPTH: u32 = 64;

/// What the reader allocates per dictionary entry, list item or string-like element beyond its
/// bytes in the file (a `String` or `Path` and a map slot): a nominal cost, so that a value
/// made of many small shared parts still counts against the cap.
const ENTRY_COST: u64 = 64;

/// What one value makes the reader do: how many levels it recurses below it, and about how many
/// bytes it allocates, counting shared parts once per use, as the reader decodes them.
#[derive(Clone, Copy, Default)]
struct Walked {
    /// Nesting levels below this value.
    height: u32,
    /// Bytes the reader allocates for it.
    bytes: u64,
}

impl Walked {
    /// A value of `bytes` with nothing nested.
    fn leaf(bytes: u64) -> Self {
        Self { height: 0, bytes }
    }

    /// Adds a nested value (one level down) to this one.
    fn nest(&mut self, child: Walked) {
        self.height = self.height.max(child.height + 1);
        self.bytes = self.bytes.saturating_add(child.bytes);
    }
}

/// Which table a u32 index points into.
#[derive(Clone, Copy)]
enum Table {
    /// TOKENS.
    Tokens,
    /// STRINGS (then TOKENS through the string's token index).
    Strings,
    /// PATHS.
    Paths,
}

/// What a list of a list op holds (`read_list_op`'s `read` closure).
#[derive(Clone, Copy)]
enum Items {
    /// A count-prefixed vector of u32 indices.
    Indices(Table),
    /// A count-prefixed vector of plain values of this many bytes.
    Plain(u64),
    /// References (`read_reference`).
    References,
    /// Payloads (`read_payload`).
    Payloads,
}

/// Checks every field's value; the crate reads them lazily, one at a time.
pub(super) fn check_fields(
    bytes: &[u8],
    structure: &Structure,
    limits: &Limits,
) -> Result<(), String> {
    let mut walker = Walker {
        bytes,
        structure,
        limits,
        done: HashMap::new(),
    };
    for &rep in &structure.reps {
        walker.value(rep, 0)?;
    }
    Ok(())
}

/// The walk over the values.
struct Walker<'a> {
    /// The whole file.
    bytes: &'a [u8],
    /// The structural sections.
    structure: &'a Structure,
    /// Length and allocation cap.
    limits: &'a Limits,
    /// Value reps already walked: fields, dictionary entries and samples share values, and
    /// walking a shared value once keeps the check linear where the reader's decoding is not.
    done: HashMap<u64, Walked>,
}

impl<'a> Walker<'a> {
    /// Walks one value `depth` levels of nesting down.
    fn value(&mut self, rep: u64, depth: u32) -> Result<Walked, String> {
        let v = Rep(rep);
        let deep = || {
            format!(
                "USDC value at byte {} nests dictionaries or time samples more than {MAX_DEPTH} deep",
                v.payload()
            )
        };
        if depth > MAX_DEPTH {
            return Err(deep());
        }
        if let Some(&walked) = self.done.get(&rep) {
            return if depth + walked.height > MAX_DEPTH {
                Err(deep())
            } else {
                Ok(walked)
            };
        }
        let walked = self.read(v, depth)?;
        self.limits.allocation("value", v.payload(), walked.bytes)?;
        self.done.insert(rep, walked);
        Ok(walked)
    }

    /// A reader at byte `pos`.
    fn at(&self, pos: u64) -> Reader<'a> {
        Reader::at(self.bytes, pos)
    }

    /// The value of `v`, by type, in the order of `CrateFile::value`'s match arms.
    /// `Walked::default()` stands for a value the reader refuses before reading.
    fn read(&mut self, v: Rep, depth: u32) -> Result<Walked, String> {
        let (array, inlined) = (v.array(), v.inlined());
        let at = v.payload();
        match v.ty() {
            ty::BOOL | ty::UCHAR if array => self.plain_array(v, 1),
            ty::INT | ty::UINT if array => self.int_array(v, 4),
            ty::INT64 | ty::UINT64 if array => self.int_array(v, 8),
            ty::HALF if array => Ok(self.float_array(v, 2)?.1),
            ty::FLOAT if array => Ok(self.float_array(v, 4)?.1),
            ty::DOUBLE | ty::TIME_CODE if array => Ok(self.float_array(v, 8)?.1),
            ty::DOUBLE_VECTOR => Ok(self.float_array(v, 8)?.1),
            ty::STRING_VECTOR if inlined => Ok(Walked::default()),
            ty::STRING_VECTOR => self.indices(&mut self.at(at), Table::Strings),
            // Payload 0 is USD's empty array. The reader reads the bootstrap there as a count
            // ("PXR-USDC", about 4.8e18) whose `count * 4` overflows: a panic (caught), no allocation.
            ty::STRING | ty::ASSET_PATH | ty::PATH_EXPRESSION if array && at == 0 => {
                Ok(Walked::default())
            }
            ty::STRING | ty::ASSET_PATH | ty::PATH_EXPRESSION if array => {
                self.indices(&mut self.at(at), Table::Strings)
            }
            ty::STRING => {
                let index = self.scalar_u32(v)?;
                self.check_index(Table::Strings, u64::from(index), at)
            }
            // An asset path or expression inlined names a token, else a string.
            ty::ASSET_PATH | ty::PATH_EXPRESSION => {
                let index = u64::from(self.scalar_u32(v)?);
                let table = if inlined {
                    Table::Tokens
                } else {
                    Table::Strings
                };
                self.check_index(table, index, at)
            }
            ty::TOKEN if array => {
                let mut r = self.at(at);
                let Some(count) = self.array_len(&mut r, v)? else {
                    return Ok(Walked::default());
                };
                self.index_run(&mut r, count, Table::Tokens)
            }
            // `read_token` unpacks a u64 index.
            ty::TOKEN | ty::UNREGISTERED_VALUE => {
                let index = if inlined {
                    at & 0xffff_ffff
                } else {
                    self.at(at).u64("token index")?
                };
                self.check_index(Table::Tokens, index, at)
            }
            t @ ty::VEC2D..=ty::VEC4I if array => {
                self.plain_array(v, VEC_SIZES[(t - ty::VEC2D) as usize])
            }
            ty::MATRIX2D if array => self.plain_array(v, 4 * 8),
            ty::MATRIX3D if array => self.plain_array(v, 9 * 8),
            ty::MATRIX4D if array => self.plain_array(v, 16 * 8),
            ty::QUATH if array => self.plain_array(v, 4 * 2),
            ty::QUATF if array => self.plain_array(v, 4 * 4),
            ty::QUATD if array => self.plain_array(v, 4 * 8),
            _ => self.read_composite(v, depth),
        }
    }

    /// The rest of [`Walker::read`]'s types, whose arms the array bit does not choose: list ops,
    /// vectors, maps, time samples, dictionaries, relocates, and the scalars.
    fn read_composite(&mut self, v: Rep, depth: u32) -> Result<Walked, String> {
        let (array, inlined, flagged) = (v.array(), v.inlined(), v.compressed());
        let at = v.payload();
        match v.ty() {
            ty::TOKEN_LIST_OP..=ty::UINT64_LIST_OP | ty::UNREGISTERED_VALUE_LIST_OP if inlined => {
                Ok(Walked::default())
            }
            ty::TOKEN_LIST_OP => self.list_op(at, Items::Indices(Table::Tokens), depth),
            ty::STRING_LIST_OP | ty::UNREGISTERED_VALUE_LIST_OP => {
                self.list_op(at, Items::Indices(Table::Strings), depth)
            }
            ty::PATH_LIST_OP => self.list_op(at, Items::Indices(Table::Paths), depth),
            ty::REFERENCE_LIST_OP => self.list_op(at, Items::References, depth),
            ty::INT_LIST_OP | ty::UINT_LIST_OP => self.list_op(at, Items::Plain(4), depth),
            ty::INT64_LIST_OP | ty::UINT64_LIST_OP => self.list_op(at, Items::Plain(8), depth),
            // The reader does not check the inlined flag here.
            ty::PAYLOAD_LIST_OP => self.list_op(at, Items::Payloads, depth),
            ty::TOKEN_VECTOR | ty::PATH_VECTOR if inlined => Ok(Walked::default()),
            ty::TOKEN_VECTOR => self.indices(&mut self.at(at), Table::Tokens),
            ty::PATH_VECTOR => self.indices(&mut self.at(at), Table::Paths),
            ty::LAYER_OFFSET_VECTOR | ty::PAYLOAD | ty::VARIANT_SELECTION_MAP
                if inlined || array || flagged =>
            {
                Ok(Walked::default())
            }
            ty::LAYER_OFFSET_VECTOR => {
                let mut r = self.at(at);
                let count = r.u64("layer offset count")?;
                let bytes = self.limits.elements(&r, "layer offsets", count, 16)?;
                Ok(Walked::leaf(bytes))
            }
            ty::PAYLOAD => self.items(&mut self.at(at), 1, Items::Payloads, depth),
            ty::VARIANT_SELECTION_MAP => self.pairs(at, Table::Strings, "variant selections"),
            ty::TIME_SAMPLES if inlined || flagged => Ok(Walked::default()),
            ty::TIME_SAMPLES => self.time_samples(at, depth),
            ty::DICTIONARY if inlined => Ok(Walked::default()),
            ty::DICTIONARY if flagged || array => Ok(Walked::default()),
            ty::DICTIONARY => self.dictionary(&mut self.at(at), depth),
            ty::RELOCATES if inlined => Ok(Walked::default()),
            ty::RELOCATES => self.pairs(at, Table::Paths, "relocates"),
            // Scalars read a fixed few bytes; unknown types the reader refuses.
            _ => Ok(Walked::default()),
        }
    }

    /// `unpack_value::<u32>`: inlined, the payload's low 32 bits; else 4 bytes at the payload.
    fn scalar_u32(&self, v: Rep) -> Result<u32, String> {
        if v.inlined() {
            Ok(v.payload() as u32)
        } else {
            self.at(v.payload()).u32("string index")
        }
    }

    /// `unpack_array_len`: the element count at the payload (after a u32 shape before 0.5.0;
    /// a u32 count before 0.7.0, else u64). `None` for the empty array (payload 0).
    fn array_len(&self, r: &mut Reader, v: Rep) -> Result<Option<u64>, String> {
        if v.payload() == 0 {
            return Ok(None);
        }
        let file = self.structure.version;
        if file < version(0, 5, 0) {
            r.u32("array shape")?;
        }
        if file < version(0, 7, 0) {
            r.u32("array count").map(|n| Some(u64::from(n)))
        } else {
            r.u64("array count").map(Some)
        }
    }

    /// `read_vec_array` / `read_gf_array`: `count` elements of `size` bytes, read whole.
    fn plain_array(&self, v: Rep, size: u64) -> Result<Walked, String> {
        let mut r = self.at(v.payload());
        let Some(count) = self.array_len(&mut r, v)? else {
            return Ok(Walked::default());
        };
        let bytes = self.limits.elements(&r, "array", count, size)?;
        Ok(Walked::leaf(bytes))
    }

    /// `read_ints`: integer arrays, compressed (from 0.5.0, 4 elements or more) or read whole.
    fn int_array(&self, v: Rep, size: u64) -> Result<Walked, String> {
        let mut r = self.at(v.payload());
        let Some(count) = self.array_len(&mut r, v)? else {
            return Ok(Walked::default());
        };
        if v.compressed() && self.structure.version >= version(0, 5, 0) && count >= 4 {
            let what = "compressed integer array";
            // Decoded or not, the reader's allocations are then bounded by the block.
            let _ = encoded_ints_block(&mut r, count, size == 8, what, self.limits)?;
            return Ok(Walked::leaf(count.saturating_mul(size)));
        }
        let bytes = self.limits.elements(&r, "integer array", count, size)?;
        Ok(Walked::leaf(bytes))
    }

    /// `read_floats`: float arrays and `DoubleVector`s, compressed (from 0.6.0, 4 elements or
    /// more; as integers `'i'` or a lookup table `'t'`) or read whole. Returns the element count,
    /// `None` where the reader refuses the value.
    fn float_array(&self, v: Rep, size: u64) -> Result<(Option<u64>, Walked), String> {
        if v.inlined() {
            return Ok((None, Walked::default()));
        }
        let mut r = self.at(v.payload());
        let Some(count) = self.array_len(&mut r, v)? else {
            return Ok((Some(0), Walked::default()));
        };
        let output = Walked::leaf(count.saturating_mul(size));
        if !(v.compressed() && self.structure.version >= version(0, 6, 0) && count >= 4) {
            let bytes = self.limits.elements(&r, "float array", count, size)?;
            return Ok((Some(count), Walked::leaf(bytes)));
        }
        let code_at = r.pos;
        match r.u8("float array code")? {
            b'i' => {
                let what = "integer-compressed float array";
                let decoded = encoded_ints_block(&mut r, count, false, what, self.limits)?;
                Ok((decoded.ok().map(|_| count), output))
            }
            b't' => {
                let table = u64::from(r.u32("lookup table size")?);
                let bytes = self.limits.elements(&r, "lookup table", table, size)?;
                r.take(bytes, "lookup table")?;
                let what = "lookup table indices";
                let decoded = encoded_ints_block(&mut r, count, false, what, self.limits)?;
                let Ok(data) = decoded else {
                    return Ok((None, output));
                };
                let Ok(indices) = coding::decode_ints(&data, count as usize, false) else {
                    return Ok((None, output));
                };
                // The reader indexes the table with each of them unchecked.
                if let Some(bad) = indices
                    .iter()
                    .map(|&i| i as u32)
                    .find(|&i| u64::from(i) >= table)
                {
                    return Err(format!(
                        "USDC float array at byte {code_at} indexes entry {bad} of its {table}-entry lookup table"
                    ));
                }
                Ok((Some(count), output))
            }
            _ => Ok((None, Walked::default())),
        }
    }

    /// `read_indexed_vec`: a u64 count, then that many u32 indices into `table`.
    fn indices(&self, r: &mut Reader, table: Table) -> Result<Walked, String> {
        let count = r.u64("index count")?;
        self.index_run(r, count, table)
    }

    /// `count` u32 indices into `table` at `r`, each checked.
    fn index_run(&self, r: &mut Reader, count: u64, table: Table) -> Result<Walked, String> {
        let at = r.pos;
        let bytes = self.limits.elements(r, "index list", count, 4)?;
        for chunk in r.take(bytes, "index list")?.chunks_exact(4) {
            let index = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            self.check_index(table, u64::from(index), at)?;
        }
        Ok(Walked::leaf(count.saturating_mul(ENTRY_COST)))
    }

    /// Refuses an index the reader would use unchecked (`tokens[i]`, `tokens[strings[i]]`, `paths[i]`).
    fn check_index(&self, table: Table, index: u64, at: u64) -> Result<Walked, String> {
        let s = self.structure;
        let (name, len) = match table {
            Table::Tokens => ("token", s.tokens),
            Table::Strings => ("string", s.strings.len() as u64),
            Table::Paths => ("path", s.paths),
        };
        if index >= len {
            return Err(format!(
                "USDC value at byte {at} names {name} {index}, but the file has {len}"
            ));
        }
        if let Table::Strings = table {
            let token = s.strings[index as usize];
            if u64::from(token) >= s.tokens {
                return Err(format!(
                    "USDC string {index} (used at byte {at}) names token {token}, but the file has {}",
                    s.tokens
                ));
            }
        }
        Ok(Walked::leaf(ENTRY_COST))
    }

    /// `read_list_op`: a header byte, then each list it announces, in the reader's order
    /// (explicit, added, prepended, appended, deleted, ordered).
    fn list_op(&mut self, at: u64, items: Items, depth: u32) -> Result<Walked, String> {
        let mut r = self.at(at);
        let header = r.u8("list op header")?;
        let mut walked = Walked::default();
        for bit in [1, 2, 5, 6, 3, 4] {
            if header & 1 << bit != 0 {
                let count = r.u64("list count")?;
                let list = self.items(&mut r, count, items, depth)?;
                walked.bytes = walked.bytes.saturating_add(list.bytes);
                walked.height = walked.height.max(list.height);
            }
        }
        Ok(walked)
    }

    /// `count` list items at `r`.
    fn items(
        &mut self,
        r: &mut Reader,
        count: u64,
        items: Items,
        depth: u32,
    ) -> Result<Walked, String> {
        let payload_offset = self.structure.version >= version(0, 8, 0);
        // Least bytes one item takes: the reader reserves `count` items before reading them.
        let size = match items {
            Items::Indices(table) => return self.index_run(r, count, table),
            Items::Plain(size) => {
                let bytes = self.limits.elements(r, "list", count, size)?;
                r.take(bytes, "list")?;
                return Ok(Walked::leaf(bytes));
            }
            // String and path indices, a layer offset, a dictionary's count.
            Items::References => 4 + 4 + 16 + 8,
            Items::Payloads if payload_offset => 4 + 4 + 16,
            Items::Payloads => 4 + 4,
        };
        self.limits
            .elements(r, "reference or payload list", count, size)?;
        let mut walked = Walked::leaf(count.saturating_mul(ENTRY_COST));
        for _ in 0..count {
            let at = r.pos;
            self.check_index(Table::Strings, u64::from(r.u32("asset path")?), at)?;
            self.check_index(Table::Paths, u64::from(r.u32("prim path")?), at)?;
            if matches!(items, Items::References) || payload_offset {
                r.take(16, "layer offset")?;
            }
            if matches!(items, Items::References) {
                // `read_custom_data` recurses, like a nested dictionary.
                walked.nest(self.dictionary(r, depth + 1)?);
            }
        }
        Ok(walked)
    }

    /// A u64 count at `at`, then that many pairs of u32 indices into `table`.
    fn pairs(&self, at: u64, table: Table, what: &str) -> Result<Walked, String> {
        let mut r = self.at(at);
        let count = r.u64(what)?;
        let pairs = count.saturating_mul(2);
        self.limits.elements(&r, what, pairs, 4)?;
        self.index_run(&mut r, pairs, table)
    }

    /// `read_custom_data` at `r`: a u64 count, then each entry's key (a string index), a
    /// recursive offset to its value rep, and the value, `depth` levels down.
    fn dictionary(&mut self, r: &mut Reader, depth: u32) -> Result<Walked, String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "USDC dictionary at byte {} nests more than {MAX_DEPTH} deep",
                r.pos
            ));
        }
        let count = r.u64("dictionary count")?;
        // A valid entry takes at least 20 bytes (key 4, offset 8, rep 8), since USD writes each
        // value's offset forward, past the value's data to its rep (`_RecursiveWrite`).
        self.limits.elements(r, "dictionary", count, 20)?;
        let mut walked = Walked::leaf(count.saturating_mul(ENTRY_COST));
        for _ in 0..count {
            let at = r.pos;
            self.check_index(Table::Strings, u64::from(r.u32("dictionary key")?), at)?;
            let Some(rep) = self.follow_offset(r, true)? else {
                return Ok(walked);
            };
            // `Type::from_repr` knows 0..=58; 0 is `Invalid`: either way the reader stops here.
            if !(1..=ty::RELOCATES).contains(&Rep(rep).ty()) {
                return Ok(walked);
            }
            walked.nest(self.value(rep, depth + 1)?);
        }
        Ok(walked)
    }

    /// `apply_recursive_offset` then a value rep: the rep at the offset's position plus the
    /// offset. `forward` refuses an offset below 8 (inside or before itself), which no valid file
    /// has and which could make a dictionary read the same entry over and over. `None` where
    /// the reader's seek fails (a negative position).
    fn follow_offset(&self, r: &mut Reader, forward: bool) -> Result<Option<u64>, String> {
        let at = r.pos;
        let offset = r.i64("recursive offset")?;
        if forward && offset < 8 {
            return Err(format!(
                "USDC dictionary entry at byte {at} has a value offset of {offset} (values follow their offset)"
            ));
        }
        let Some(to) = (at as i64).checked_add(offset).filter(|&to| to >= 0) else {
            return Ok(None);
        };
        r.pos = to as u64;
        r.u64("value rep").map(Some)
    }

    /// `TimeSamples`: an offset to the times' rep, the times (a double array), an offset to the
    /// sample count, then one value rep per time, each value `depth + 1` levels down.
    fn time_samples(&mut self, at: u64, depth: u32) -> Result<Walked, String> {
        let mut r = self.at(at);
        let Some(times) = self.follow_offset(&mut r, false)? else {
            return Ok(Walked::default());
        };
        let t = Rep(times);
        if !(t.ty() == ty::DOUBLE_VECTOR || (t.ty() == ty::DOUBLE && t.array())) {
            return Ok(Walked::default());
        }
        let (Some(time_count), mut walked) = self.float_array(t, 8)? else {
            return Ok(Walked::default());
        };
        let Some(to) = (r.pos as i64).checked_add(r.clone().i64("recursive offset")?) else {
            return Ok(walked);
        };
        let Ok(mut r) = u64::try_from(to).map(|to| self.at(to)) else {
            return Ok(walked);
        };
        let count = r.u64("time sample count")?;
        // The reader requires one value per time, then reads `count` reps.
        if count != time_count {
            return Ok(walked);
        }
        let bytes = self.limits.elements(&r, "time samples", count, 8)?;
        let reps: Vec<u64> = r
            .take(bytes, "time samples")?
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
            .collect();
        walked.bytes = walked
            .bytes
            .saturating_add(count.saturating_mul(ENTRY_COST));
        for rep in reps {
            walked.nest(self.value(rep, depth + 1)?);
        }
        Ok(walked)
    }
}
