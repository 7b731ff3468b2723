//! NumPy interop without a Rust NumPy dependency: uint64 arrays go out as `numpy.frombuffer`
//! over a `bytearray` Rust filled (writable, one copy), and come in through the buffer protocol.
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyByteArray, PyBytes, PyString};

/// `numpy.frombuffer`, imported once.
static FROMBUFFER: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// A 1-D numpy `uint64` array holding `values`.
pub(crate) fn u64_array<'py>(py: Python<'py>, values: &[u64]) -> PyResult<Bound<'py, PyAny>> {
    let bytes = PyByteArray::new_with(py, values.len() * 8, |buf| {
        for (out, v) in buf.chunks_exact_mut(8).zip(values) {
            out.copy_from_slice(&v.to_ne_bytes());
        }
        Ok(())
    })?;
    FROMBUFFER
        .import(py, "numpy", "frombuffer")?
        .call1((bytes, "uint64"))
}

/// `numpy.empty`, imported once.
static EMPTY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// A new, uninitialized 2-D numpy `uint64` array of `rows` x `cols` (C order).
pub(crate) fn empty_u64_matrix<'py>(
    py: Python<'py>,
    rows: usize,
    cols: usize,
) -> PyResult<Bound<'py, PyAny>> {
    EMPTY
        .import(py, "numpy", "empty")?
        .call1(((rows, cols), "uint64"))
}

/// Runs `fill` with the GIL released on the values of `matrix`, a C-contiguous uint64 array
/// made by [`empty_u64_matrix`] and not yet shared with any other code.
pub(crate) fn with_u64_matrix_mut<T: Send>(
    py: Python<'_>,
    matrix: &Bound<'_, PyAny>,
    fill: impl FnOnce(&mut [u64]) -> T + Send,
) -> PyResult<T> {
    let buf = PyBuffer::<u64>::get(matrix)?;
    if buf.readonly() || !buf.is_c_contiguous() {
        return Err(PyValueError::new_err(
            "expected a writable C-contiguous uint64 array",
        ));
    }
    let len = buf.item_count();
    let ptr = buf.buf_ptr() as usize;
    Ok(py.detach(move || {
        // SAFETY: `buf` keeps the array's memory alive and exported for this whole call; the
        // array is C-contiguous with `len` uint64 items, writable, and new (the caller made it
        // with `empty_u64_matrix` and has handed it to no one), so nothing else reads or writes
        // it while the GIL is released.
        let values = unsafe { std::slice::from_raw_parts_mut(ptr as *mut u64, len) };
        fill(values)
    }))
}

/// A 2-D numpy `uint64` array of `cols` columns holding `values` row by row.
pub(crate) fn u64_matrix<'py>(
    py: Python<'py>,
    values: &[u64],
    cols: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let rows = values.len().checked_div(cols).unwrap_or(0);
    u64_array(py, values)?.call_method1("reshape", (rows, cols))
}

/// A uint64 buffer (a numpy `uint64` array, `array.array("Q")`), if `obj` exports one in native
/// byte order.
pub(crate) fn u64_buffer(obj: &Bound<'_, PyAny>) -> Option<PyBuffer<u64>> {
    let buf = PyBuffer::<u64>::get(obj).ok()?;
    // pyo3 accepts `>` on little-endian machines as well: refuse any explicit foreign order.
    let native = match buf.format().to_bytes().first() {
        Some(b'>' | b'!') => cfg!(target_endian = "big"),
        Some(b'<') => cfg!(target_endian = "little"),
        _ => true,
    };
    native.then_some(buf)
}

/// A signature given from Python: a 1-D uint64 buffer (what [`u64_array`] makes, what
/// `Signer.sign` returns), an object with a `hashvalues` attribute (a datasketch `MinHash`),
/// or an iterable of ints in `0..2**64`. `what` names it in errors. The length is not checked.
pub(crate) fn signature(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u64>> {
    let py = obj.py();
    if let Some(buf) = u64_buffer(obj) {
        if buf.dimensions() != 1 {
            return Err(PyValueError::new_err(format!(
                "{what}: a signature is a 1-D array, got shape {:?}",
                buf.shape()
            )));
        }
        return buf.to_vec(py);
    }
    if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() {
        return Err(PyTypeError::new_err(format!(
            "{what}: a signature is a uint64 array or a sequence of ints, not {}",
            type_name(obj)
        )));
    }
    if let Ok(values) = obj.getattr(pyo3::intern!(py, "hashvalues")) {
        return signature(&values, what);
    }
    let items = obj.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "{what}: a signature is a uint64 array or a sequence of ints, not {}",
            type_name(obj)
        ))
    })?;
    items
        .enumerate()
        .map(|(i, item)| {
            let item = item?;
            item.extract::<u64>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{what}[{i}] is not an int in 0..2**64: {}",
                    item.repr().map(|r| r.to_string()).unwrap_or_default()
                ))
            })
        })
        .collect()
}

/// The name of `obj`'s type, for error messages.
pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default()
}
