//! Zero-copy views of Arrow arrays handed over as their buffers, and builders for the buffers of
//! the arrays the kernels return.
//!
//! The Python side (`textreuse/kernels.py`) passes an array as `arr.buffers()` plus `arr.offset`
//! and `len(arr)`; the buffers arrive through the buffer protocol ([`PyUntypedBuffer`]), so no
//! byte of the input is copied. Every offset is checked against the buffer it indexes and every
//! string is checked to be UTF-8 before it is used: a malformed array is a `ValueError`, never
//! undefined behaviour.
use std::fmt;

use pyo3::buffer::PyUntypedBuffer;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// A problem with an input array, reported to Python as a `ValueError`.
#[derive(Debug)]
pub(crate) struct ColumnError(pub(crate) String);

impl fmt::Display for ColumnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<ColumnError> for PyErr {
    fn from(e: ColumnError) -> PyErr {
        PyValueError::new_err(e.0)
    }
}

/// A Python buffer held for the duration of a call: keeps the exporting object alive and its
/// memory in place.
pub(crate) struct HeldBuffer(Option<PyUntypedBuffer>);

impl HeldBuffer {
    /// Takes a buffer from `obj` (a `pyarrow.Buffer`, `bytes`, ...), or holds nothing for `None`.
    pub(crate) fn get(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<HeldBuffer> {
        let Some(obj) = obj else {
            return Ok(HeldBuffer(None));
        };
        let buf = PyUntypedBuffer::get(obj).map_err(|e| {
            PyTypeError::new_err(format!("{what}: expected a buffer (pyarrow.Buffer), {e}"))
        })?;
        if !buf.is_c_contiguous() {
            return Err(PyValueError::new_err(format!(
                "{what}: the buffer is not contiguous"
            )));
        }
        Ok(HeldBuffer(Some(buf)))
    }

    /// The bytes of the buffer (empty when none is held).
    pub(crate) fn bytes(&self) -> &[u8] {
        match &self.0 {
            None => &[],
            Some(buf) if buf.len_bytes() == 0 => &[],
            // SAFETY: `PyObject_GetBuffer` succeeded and the buffer is C-contiguous, so
            // `buf_ptr()` points at `len_bytes()` readable bytes, which stay valid and in place
            // until the buffer is released when `self` drops; the returned slice borrows `self`.
            // Arrow buffers are immutable, so nothing writes to them while they are read (a
            // writable exporter mutated concurrently by another thread would be the caller's
            // data race, as with any buffer-protocol consumer).
            Some(buf) => unsafe {
                std::slice::from_raw_parts(buf.buf_ptr().cast::<u8>(), buf.len_bytes())
            },
        }
    }
}

/// `(validity, values or offsets, data, offset, length)`.
type Parts<'py> = (
    Option<Bound<'py, PyAny>>,
    Option<Bound<'py, PyAny>>,
    Option<Bound<'py, PyAny>>,
    usize,
    usize,
);

/// The parts of an Arrow array as `kernels.py` passes them: `(validity, values or offsets,
/// data, offset, length)`; `data` is `None` for fixed-width arrays.
pub(crate) struct HeldArray {
    validity: HeldBuffer,
    values: HeldBuffer,
    data: HeldBuffer,
    offset: usize,
    len: usize,
}

impl HeldArray {
    /// Extracts the parts tuple. `what` names the argument in error messages.
    pub(crate) fn extract(parts: &Bound<'_, PyAny>, what: &str) -> PyResult<HeldArray> {
        let (validity, values, data, offset, len): Parts<'_> = parts.extract().map_err(|e| {
            PyTypeError::new_err(format!(
                "{what}: expected (validity, values, data, offset, length), {e}"
            ))
        })?;
        Ok(HeldArray {
            validity: HeldBuffer::get(validity.as_ref(), what)?,
            values: HeldBuffer::get(values.as_ref(), what)?,
            data: HeldBuffer::get(data.as_ref(), what)?,
            offset,
            len,
        })
    }

    /// A view of a `string` (`large = false`, 32-bit offsets) or `large_string` array.
    pub(crate) fn strings(&self, large: bool, what: &str) -> Result<StrColumn<'_>, ColumnError> {
        StrColumn::new(
            Validity::new(self.validity.bytes(), self.offset, self.len, what)?,
            self.values.bytes(),
            self.data.bytes(),
            self.offset,
            self.len,
            large,
            what,
        )
    }

    /// A view of an `int64` array.
    pub(crate) fn int64(&self, what: &str) -> Result<I64Column<'_>, ColumnError> {
        I64Column::new(
            Validity::new(self.validity.bytes(), self.offset, self.len, what)?,
            self.values.bytes(),
            self.offset,
            self.len,
            what,
        )
    }

    /// The number of rows.
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

/// An Arrow validity bitmap (bit `offset + i`, least significant bit first), or none (all valid).
#[derive(Clone, Copy)]
pub(crate) struct Validity<'a> {
    bits: Option<&'a [u8]>,
    offset: usize,
}

impl<'a> Validity<'a> {
    fn new(bits: &'a [u8], offset: usize, len: usize, what: &str) -> Result<Self, ColumnError> {
        if bits.is_empty() {
            return Ok(Validity { bits: None, offset });
        }
        let need = offset
            .checked_add(len)
            .map(|bits| bits.div_ceil(8))
            .unwrap_or(usize::MAX);
        if bits.len() < need {
            return Err(ColumnError(format!(
                "{what}: the validity bitmap has {} bytes, {need} needed for offset {offset} and \
                 length {len}",
                bits.len()
            )));
        }
        Ok(Validity {
            bits: Some(bits),
            offset,
        })
    }

    #[inline]
    fn is_valid(&self, i: usize) -> bool {
        match self.bits {
            None => true,
            Some(bits) => {
                let bit = self.offset + i;
                bits[bit / 8] >> (bit % 8) & 1 == 1
            }
        }
    }
}

/// `(offset + count) * width`, saturating (a saturated need is never met by a real buffer).
fn bytes_needed(offset: usize, count: usize, width: usize) -> usize {
    offset
        .checked_add(count)
        .and_then(|n| n.checked_mul(width))
        .unwrap_or(usize::MAX)
}

/// A read-only view of an Arrow `string` / `large_string` array.
pub(crate) struct StrColumn<'a> {
    validity: Validity<'a>,
    offsets: &'a [u8],
    width: usize,
    data: &'a [u8],
    offset: usize,
    len: usize,
    what: String,
}

impl<'a> StrColumn<'a> {
    fn new(
        validity: Validity<'a>,
        offsets: &'a [u8],
        data: &'a [u8],
        offset: usize,
        len: usize,
        large: bool,
        what: &str,
    ) -> Result<Self, ColumnError> {
        let width = if large { 8 } else { 4 };
        let need = bytes_needed(offset, len.saturating_add(1), width);
        if len > 0 && offsets.len() < need {
            return Err(ColumnError(format!(
                "{what}: the offsets buffer has {} bytes, {need} needed for offset {offset} and \
                 length {len}",
                offsets.len(),
            )));
        }
        Ok(StrColumn {
            validity,
            offsets,
            width,
            data,
            offset,
            len,
            what: what.to_string(),
        })
    }

    /// The number of rows.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Offset number `k` of the buffer (native byte order, as Arrow keeps it in memory).
    #[inline]
    fn raw_offset(&self, k: usize) -> i64 {
        let at = k * self.width;
        if self.width == 4 {
            let b: [u8; 4] = self.offsets[at..at + 4].try_into().expect("4 bytes");
            i32::from_ne_bytes(b) as i64
        } else {
            let b: [u8; 8] = self.offsets[at..at + 8].try_into().expect("8 bytes");
            i64::from_ne_bytes(b)
        }
    }

    /// Row `i` (`i < len`): `None` for a null, the string otherwise.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Result<Option<&'a str>, ColumnError> {
        if !self.validity.is_valid(i) {
            return Ok(None);
        }
        let (start, end) = (
            self.raw_offset(self.offset + i),
            self.raw_offset(self.offset + i + 1),
        );
        if start < 0 || end < start || end as u64 > self.data.len() as u64 {
            return Err(ColumnError(format!(
                "{}: row {i} has offsets {start}..{end} outside the {} bytes of string data",
                self.what,
                self.data.len()
            )));
        }
        let bytes = &self.data[start as usize..end as usize];
        std::str::from_utf8(bytes)
            .map(Some)
            .map_err(|e| ColumnError(format!("{}: row {i} is not valid UTF-8 ({e})", self.what)))
    }
}

/// A read-only view of an Arrow `int64` array.
pub(crate) struct I64Column<'a> {
    validity: Validity<'a>,
    values: &'a [u8],
    offset: usize,
    len: usize,
}

impl<'a> I64Column<'a> {
    fn new(
        validity: Validity<'a>,
        values: &'a [u8],
        offset: usize,
        len: usize,
        what: &str,
    ) -> Result<Self, ColumnError> {
        let need = bytes_needed(offset, len, 8);
        if len > 0 && values.len() < need {
            return Err(ColumnError(format!(
                "{what}: the values buffer has {} bytes, {need} needed for offset {offset} and \
                 length {len}",
                values.len(),
            )));
        }
        Ok(I64Column {
            validity,
            values,
            offset,
            len,
        })
    }

    /// The number of rows.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Row `i` (`i < len`), `None` for a null.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<i64> {
        if !self.validity.is_valid(i) {
            return None;
        }
        let at = (self.offset + i) * 8;
        let b: [u8; 8] = self.values[at..at + 8].try_into().expect("8 bytes");
        Some(i64::from_ne_bytes(b))
    }

    /// Row `i`, or an error naming `what` for a null.
    #[inline]
    pub(crate) fn required(&self, i: usize, what: &str) -> Result<i64, ColumnError> {
        self.get(i).ok_or_else(|| {
            ColumnError(format!(
                "{what}: row {i} is null (this column must not have nulls)"
            ))
        })
    }
}

/// The little buffers of fixed-width output arrays, written in native byte order.
pub(crate) trait PushNe {
    /// Appends `v`'s native-endian bytes.
    fn push_ne_u32(&mut self, v: u32);
    /// Appends `v`'s native-endian bytes.
    fn push_ne_u64(&mut self, v: u64);
}

impl PushNe for Vec<u8> {
    #[inline]
    fn push_ne_u32(&mut self, v: u32) {
        self.extend_from_slice(&v.to_ne_bytes());
    }

    #[inline]
    fn push_ne_u64(&mut self, v: u64) {
        self.extend_from_slice(&v.to_ne_bytes());
    }
}

/// A bit-packed Arrow bitmap (values of a boolean array, or a validity bitmap) being built.
#[derive(Default)]
pub(crate) struct Bitmap {
    bytes: Vec<u8>,
    len: usize,
    ones: usize,
}

impl Bitmap {
    /// An empty bitmap with room for `n` bits.
    pub(crate) fn with_capacity(n: usize) -> Bitmap {
        Bitmap {
            bytes: Vec::with_capacity(n.div_ceil(8)),
            len: 0,
            ones: 0,
        }
    }

    /// Appends one bit.
    #[inline]
    pub(crate) fn push(&mut self, bit: bool) {
        if self.len.is_multiple_of(8) {
            self.bytes.push(0);
        }
        if bit {
            *self.bytes.last_mut().expect("pushed above") |= 1 << (self.len % 8);
            self.ones += 1;
        }
        self.len += 1;
    }

    /// The number of set bits.
    pub(crate) fn ones(&self) -> usize {
        self.ones
    }

    /// The number of bits.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The packed bytes.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

/// An Arrow `string` array (32-bit offsets) being built.
pub(crate) struct StringBuilder {
    offsets: Vec<u8>,
    data: Vec<u8>,
}

impl StringBuilder {
    /// An empty array.
    pub(crate) fn new() -> StringBuilder {
        let mut offsets = Vec::new();
        offsets.push_ne_u32(0);
        StringBuilder {
            offsets,
            data: Vec::new(),
        }
    }

    /// Appends one string; fails when the data would exceed the 2 GiB of 32-bit offsets.
    pub(crate) fn push(&mut self, s: &str) -> Result<(), ColumnError> {
        self.data.extend_from_slice(s.as_bytes());
        let end = i32::try_from(self.data.len()).map_err(|_| {
            ColumnError(
                "the output strings exceed 2 GiB, the limit of an Arrow string array; pass \
                 smaller batches"
                    .to_string(),
            )
        })?;
        self.offsets.push_ne_u32(end as u32);
        Ok(())
    }

    /// `(offsets, data)`.
    pub(crate) fn into_buffers(self) -> (Vec<u8>, Vec<u8>) {
        (self.offsets, self.data)
    }
}

/// An Arrow `string` array with nulls (32-bit offsets) being built.
pub(crate) struct NullableStrings {
    strings: StringBuilder,
    valid: Bitmap,
}

impl NullableStrings {
    /// An empty array.
    pub(crate) fn new() -> NullableStrings {
        NullableStrings {
            strings: StringBuilder::new(),
            valid: Bitmap::default(),
        }
    }

    /// Appends one string or a null; fails as [`StringBuilder::push`] does.
    pub(crate) fn push(&mut self, s: Option<&str>) -> Result<(), ColumnError> {
        self.strings.push(s.unwrap_or(""))?;
        self.valid.push(s.is_some());
        Ok(())
    }

    /// `(offsets, data, validity)`; no validity bitmap when no row is null.
    pub(crate) fn into_buffers(self) -> (Vec<u8>, Vec<u8>, Option<Vec<u8>>) {
        let (offsets, data) = self.strings.into_buffers();
        (offsets, data, validity(self.valid))
    }
}

/// An Arrow `int64` array with nulls being built.
#[derive(Default)]
pub(crate) struct NullableInt64 {
    values: Vec<u8>,
    valid: Bitmap,
}

impl NullableInt64 {
    /// Appends one value or a null.
    pub(crate) fn push(&mut self, v: Option<i64>) {
        self.values.extend_from_slice(&v.unwrap_or(0).to_ne_bytes());
        self.valid.push(v.is_some());
    }

    /// `(values, validity)`; no validity bitmap when no row is null.
    pub(crate) fn into_buffers(self) -> (Vec<u8>, Option<Vec<u8>>) {
        (self.values, validity(self.valid))
    }
}

/// A validity bitmap's bytes, or none when every row is valid.
fn validity(valid: Bitmap) -> Option<Vec<u8>> {
    (valid.ones() < valid.len()).then(|| valid.into_bytes())
}
