//! Typed reads of checked accessors through gltf's readers and their conversions.
//!
//! Only [`Valid`] accessors are read, so gltf's slice arithmetic stays in bounds.
//! An accessor without a buffer view reads as zeros (then sparse values, if any), or as
//! its Draco-decoded elements.

use gltf::accessor::util::ItemIter;
use gltf::accessor::{DataType, Item, Iter};
use gltf::animation::util::{MorphTargetWeights, Rotations};
use gltf::mesh::util::{ReadIndices, ReadJoints, ReadWeights};

use super::accessor::Valid;
use super::source::Data;
use crate::scene::SceneError;

impl<'a> Data<'a> {
    /// Reads `acc` as elements of `T` and converts them with `convert`; zeros when unbacked.
    fn typed<T: Item, O: Clone>(
        &self,
        acc: &Valid<'a>,
        zero: O,
        convert: impl FnOnce(Iter<'a, T>) -> Vec<O>,
    ) -> Result<Vec<O>, SceneError> {
        // gltf only debug-asserts this; a mismatch would misread every element.
        if std::mem::size_of::<T>() != acc.elem_size {
            return Err(SceneError::Invalid(format!(
                "accessor {}: read with the wrong element size (loader bug)",
                acc.index
            )));
        }
        self.charge((acc.count as u64).saturating_mul(std::mem::size_of::<O>() as u64))?;
        let buffers = self.buffers;
        let get = move |b: gltf::Buffer<'_>| buffers.get(b.index()).map(Vec::as_slice);
        let iter = match acc.decoded {
            // Draco-decoded elements, packed (their length is checked against the count).
            Some(bytes) => Some(Iter::Standard(ItemIter::new(bytes, acc.elem_size))),
            None => Iter::<T>::new(acc.inner.clone(), get),
        };
        let out = match iter {
            Some(iter) => convert(iter),
            None => vec![zero; acc.count],
        };
        if out.len() != acc.count {
            return Err(SceneError::AccessorInvalid {
                accessor: acc.index,
                reason: format!("read {} elements instead of {}", out.len(), acc.count),
            });
        }
        Ok(out)
    }

    /// Error for a component type the caller's `Format` should have excluded.
    fn unexpected(acc: &Valid<'a>) -> SceneError {
        SceneError::Invalid(format!(
            "accessor {}: unexpected component type {:?} (loader bug)",
            acc.index, acc.data_type
        ))
    }

    /// Reads float elements of any fixed shape (`f32`, `[f32; 3]`, `[[f32; 4]; 4]`, ...).
    pub fn read<T: Item + Copy>(&self, acc: &Valid<'a>) -> Result<Vec<T>, SceneError> {
        self.typed(acc, T::zero(), |it| it.collect())
    }

    /// Reads vertex indices (U8, U16, U32) as `u32`.
    pub fn read_indices(&self, acc: &Valid<'a>) -> Result<Vec<u32>, SceneError> {
        let all = |r: ReadIndices<'a>| r.into_u32().collect();
        match acc.data_type {
            DataType::U8 => self.typed(acc, 0, |it| all(ReadIndices::U8(it))),
            DataType::U16 => self.typed(acc, 0, |it| all(ReadIndices::U16(it))),
            DataType::U32 => self.typed(acc, 0, |it| all(ReadIndices::U32(it))),
            _ => Err(Self::unexpected(acc)),
        }
    }

    /// Reads JOINTS_n (U8, U16) as `[u16; 4]`.
    pub fn read_joints(&self, acc: &Valid<'a>) -> Result<Vec<[u16; 4]>, SceneError> {
        let all = |r: ReadJoints<'a>| r.into_u16().collect();
        match acc.data_type {
            DataType::U8 => self.typed(acc, [0; 4], |it| all(ReadJoints::U8(it))),
            DataType::U16 => self.typed(acc, [0; 4], |it| all(ReadJoints::U16(it))),
            _ => Err(Self::unexpected(acc)),
        }
    }

    /// Reads WEIGHTS_n (normalised U8, U16, or F32) as `[f32; 4]`.
    pub fn read_weights(&self, acc: &Valid<'a>) -> Result<Vec<[f32; 4]>, SceneError> {
        let all = |r: ReadWeights<'a>| r.into_f32().collect();
        match acc.data_type {
            DataType::U8 => self.typed(acc, [0.0; 4], |it| all(ReadWeights::U8(it))),
            DataType::U16 => self.typed(acc, [0.0; 4], |it| all(ReadWeights::U16(it))),
            DataType::F32 => self.typed(acc, [0.0; 4], |it| all(ReadWeights::F32(it))),
            _ => Err(Self::unexpected(acc)),
        }
    }

    /// Reads N-component vertex data of any component type as floats.
    ///
    /// Integers (KHR_mesh_quantization, or core normalised TEXCOORD) are mapped
    /// to [0, 1] or [-1, 1] when the accessor is `normalized`, else converted as is.
    pub fn read_floats<const N: usize>(&self, acc: &Valid<'a>) -> Result<Vec<[f32; N]>, SceneError>
    where
        [f32; N]: Item,
        [i8; N]: Item,
        [u8; N]: Item,
        [i16; N]: Item,
        [u16; N]: Item,
        [u32; N]: Item,
    {
        let norm = acc.normalized;
        // glTF 2.0 spec, 3.11: the normalisation of each integer type.
        match acc.data_type {
            DataType::F32 => self.floats::<f32, N>(acc, |x| x),
            DataType::I8 => self.floats::<i8, N>(acc, |x| scaled(f32::from(x), norm, 127.0)),
            DataType::U8 => self.floats::<u8, N>(acc, |x| scaled(f32::from(x), norm, 255.0)),
            DataType::I16 => self.floats::<i16, N>(acc, |x| scaled(f32::from(x), norm, 32767.0)),
            DataType::U16 => self.floats::<u16, N>(acc, |x| scaled(f32::from(x), norm, 65535.0)),
            DataType::U32 => self.floats::<u32, N>(acc, |x| x as f32),
        }
    }

    /// Reads `[T; N]` elements and converts each component with `convert`.
    fn floats<T: Copy, const N: usize>(
        &self,
        acc: &Valid<'a>,
        convert: impl Fn(T) -> f32,
    ) -> Result<Vec<[f32; N]>, SceneError>
    where
        [T; N]: Item,
    {
        self.typed(acc, [0.0; N], |it: Iter<'a, [T; N]>| {
            it.map(|v| v.map(&convert)).collect()
        })
    }

    /// Reads rotation keys (normalised I8, U8, I16, U16, or F32) as `[f32; 4]` xyzw.
    pub fn read_rotations(&self, acc: &Valid<'a>) -> Result<Vec<[f32; 4]>, SceneError> {
        let all = |r: Rotations<'a>| r.into_f32().collect();
        match acc.data_type {
            DataType::I8 => self.typed(acc, [0.0; 4], |it| all(Rotations::I8(it))),
            DataType::U8 => self.typed(acc, [0.0; 4], |it| all(Rotations::U8(it))),
            DataType::I16 => self.typed(acc, [0.0; 4], |it| all(Rotations::I16(it))),
            DataType::U16 => self.typed(acc, [0.0; 4], |it| all(Rotations::U16(it))),
            DataType::F32 => self.typed(acc, [0.0; 4], |it| all(Rotations::F32(it))),
            _ => Err(Self::unexpected(acc)),
        }
    }

    /// Reads morph target weight keys (normalised I8, U8, I16, U16, or F32) as `f32`.
    pub fn read_morph_weights(&self, acc: &Valid<'a>) -> Result<Vec<f32>, SceneError> {
        let all = |r: MorphTargetWeights<'a>| r.into_f32().collect();
        match acc.data_type {
            DataType::I8 => self.typed(acc, 0.0, |it| all(MorphTargetWeights::I8(it))),
            DataType::U8 => self.typed(acc, 0.0, |it| all(MorphTargetWeights::U8(it))),
            DataType::I16 => self.typed(acc, 0.0, |it| all(MorphTargetWeights::I16(it))),
            DataType::U16 => self.typed(acc, 0.0, |it| all(MorphTargetWeights::U16(it))),
            DataType::F32 => self.typed(acc, 0.0, |it| all(MorphTargetWeights::F32(it))),
            _ => Err(Self::unexpected(acc)),
        }
    }
}

/// An integer component as a float: divided by the type's maximum (and clamped to -1) when normalised.
fn scaled(x: f32, normalized: bool, max: f32) -> f32 {
    if normalized { (x / max).max(-1.0) } else { x }
}
