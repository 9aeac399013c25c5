//! A crate file's value representation: a u64 of flags, a type and a payload
//! (`usdc/layout.rs` `ValueRep` and `Type` in openusd 0.6).

/// The crate type numbers the walk tells apart (`layout.rs` `Type`).
pub(super) mod ty {
    /// `Type::Bool`.
    pub const BOOL: u64 = 1;
    /// `Type::Uchar`.
    pub const UCHAR: u64 = 2;
    /// `Type::Int`.
    pub const INT: u64 = 3;
    /// `Type::Uint`.
    pub const UINT: u64 = 4;
    /// `Type::Int64`.
    pub const INT64: u64 = 5;
    /// `Type::Uint64`.
    pub const UINT64: u64 = 6;
    /// `Type::Half`.
    pub const HALF: u64 = 7;
    /// `Type::Float`.
    pub const FLOAT: u64 = 8;
    /// `Type::Double`.
    pub const DOUBLE: u64 = 9;
    /// `Type::String`.
    pub const STRING: u64 = 10;
    /// `Type::Token`.
    pub const TOKEN: u64 = 11;
    /// `Type::AssetPath`.
    pub const ASSET_PATH: u64 = 12;
    /// `Type::Matrix2d`.
    pub const MATRIX2D: u64 = 13;
    /// `Type::Matrix3d`.
    pub const MATRIX3D: u64 = 14;
    /// `Type::Matrix4d`.
    pub const MATRIX4D: u64 = 15;
    /// `Type::Quatd`.
    pub const QUATD: u64 = 16;
    /// `Type::Quatf`.
    pub const QUATF: u64 = 17;
    /// `Type::Quath`.
    pub const QUATH: u64 = 18;
    /// `Type::Vec2d` (the first of the twelve vector types).
    pub const VEC2D: u64 = 19;
    /// `Type::Vec4i` (the last vector type).
    pub const VEC4I: u64 = 30;
    /// `Type::Dictionary`.
    pub const DICTIONARY: u64 = 31;
    /// `Type::TokenListOp`.
    pub const TOKEN_LIST_OP: u64 = 32;
    /// `Type::StringListOp`.
    pub const STRING_LIST_OP: u64 = 33;
    /// `Type::PathListOp`.
    pub const PATH_LIST_OP: u64 = 34;
    /// `Type::ReferenceListOp`.
    pub const REFERENCE_LIST_OP: u64 = 35;
    /// `Type::IntListOp`.
    pub const INT_LIST_OP: u64 = 36;
    /// `Type::Int64ListOp`.
    pub const INT64_LIST_OP: u64 = 37;
    /// `Type::UIntListOp`.
    pub const UINT_LIST_OP: u64 = 38;
    /// `Type::UInt64ListOp`.
    pub const UINT64_LIST_OP: u64 = 39;
    /// `Type::PathVector`.
    pub const PATH_VECTOR: u64 = 40;
    /// `Type::TokenVector`.
    pub const TOKEN_VECTOR: u64 = 41;
    /// `Type::VariantSelectionMap`.
    pub const VARIANT_SELECTION_MAP: u64 = 45;
    /// `Type::TimeSamples`.
    pub const TIME_SAMPLES: u64 = 46;
    /// `Type::Payload`.
    pub const PAYLOAD: u64 = 47;
    /// `Type::DoubleVector`.
    pub const DOUBLE_VECTOR: u64 = 48;
    /// `Type::LayerOffsetVector`.
    pub const LAYER_OFFSET_VECTOR: u64 = 49;
    /// `Type::StringVector`.
    pub const STRING_VECTOR: u64 = 50;
    /// `Type::UnregisteredValue`.
    pub const UNREGISTERED_VALUE: u64 = 53;
    /// `Type::UnregisteredValueListOp`.
    pub const UNREGISTERED_VALUE_LIST_OP: u64 = 54;
    /// `Type::PayloadListOp`.
    pub const PAYLOAD_LIST_OP: u64 = 55;
    /// `Type::TimeCode`.
    pub const TIME_CODE: u64 = 56;
    /// `Type::PathExpression`.
    pub const PATH_EXPRESSION: u64 = 57;
    /// `Type::Relocates` (the last type openusd 0.6 knows).
    pub const RELOCATES: u64 = 58;
}

/// Bytes per element of the fixed-size array types `Vec2d` (19) to `Vec4i` (30), as
/// `read_gf_array` reads them (`gf::Vec*`, `#[repr(C)]`).
pub(super) const VEC_SIZES: [u64; 12] = [16, 8, 4, 8, 24, 12, 6, 12, 32, 16, 8, 16];

/// A value rep: bit 63 array, 62 inlined, 61 compressed, the crate type in bits 48..56, and in
/// the low 48 bits the value itself (inlined) or the file offset of its bytes.
#[derive(Clone, Copy)]
pub(super) struct Rep(pub(super) u64);

impl Rep {
    /// The crate type number.
    pub(super) fn ty(self) -> u64 {
        (self.0 >> 48) & 0xff
    }
    /// Bit 63.
    pub(super) fn array(self) -> bool {
        self.0 & 1 << 63 != 0
    }
    /// Bit 62.
    pub(super) fn inlined(self) -> bool {
        self.0 & 1 << 62 != 0
    }
    /// Bit 61.
    pub(super) fn compressed(self) -> bool {
        self.0 & 1 << 61 != 0
    }
    /// The low 48 bits.
    pub(super) fn payload(self) -> u64 {
        self.0 & ((1 << 48) - 1)
    }
}
