//! No panic reaches Python as pyo3's `PanicException` (a `BaseException` that `except
//! Exception` misses): every binding runs under [`guard`], which turns a panic into
//! `wattlab.InternalError`, an `Exception` that says it is a bug and carries the panic message.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

create_exception!(_core, WattlabError, PyException, "Base class of wattlab's errors (scenario, simulation, internal).");
create_exception!(
    _core,
    InternalError,
    WattlabError,
    "A bug in wattlab (a Rust panic): the message has the panic's text; please report it with the input that caused it."
);

/// Runs `f`, turning a panic into `InternalError` (the panic message included).
pub(crate) fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    guard_with(f, |msg| InternalError::new_err(format!("this is a wattlab bug, please report it (with the input that caused it): {msg}")))
}

/// Runs `f`, turning a panic into the error `to_err` makes of the panic's message.
pub(crate) fn guard_with<T>(f: impl FnOnce() -> PyResult<T>, to_err: impl FnOnce(String) -> PyErr) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".into());
        Err(to_err(msg))
    })
}

/// Panics inside [`guard`] with `message` (the test suite checks what Python then sees).
#[pyfunction]
pub(crate) fn _panic_for_tests(message: &str) -> PyResult<()> {
    guard(|| panic!("{message}"))
}
