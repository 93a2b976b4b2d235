//! Result tables across the boundary with no column lists: any `serde::Serialize` table, a
//! struct of `Vec` columns (`TimeSeries`'s `FlowSeries`, `PageTable`...) or a sequence of row
//! structs (the trace's connections), becomes a Python dict {column name: values} by walking
//! its serde form. The Rust field names are the column names, in their order; a field added
//! in Rust appears in Python with no other change.
//!
//! Values: integers as numpy `int64` arrays (`uint64` when a value passes 2⁶³ − 1, as pandas
//! infers from Python ints), floats as `float64`, bools as `bool`; text (and enums' unit
//! variants, by their serde name) as a list of `str`, each distinct string made once; an
//! optional integer column as a `(values, missing)` pair of arrays (pandas' `Int64`); other
//! optional columns with `None`, or NaN for floats. A column with no value at all is an empty
//! list (its type is unknown). Tables are converted when Python first asks ([`Columns`]), so
//! a run whose tables are never read never imports numpy.

use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString, PyTuple};
use serde::ser::{self, Impossible, Serialize, SerializeSeq, SerializeStruct, Serializer};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, TryLockError};

/// Why a value is not a table (a wattlab bug: result tables are built to be one).
#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

fn err<T>(msg: impl Into<String>) -> Result<T, Error> {
    Err(Error(msg.into()))
}

/// Distinct strings become one Python `str` each: a radio timeline's millions of states are
/// six objects, not millions. The first few distinct strings are found by a scan (no hashing,
/// no allocation per cell), more in a map, up to [`MAX_CACHED`].
struct Strings<'py> {
    py: Python<'py>,
    few: Vec<(Box<str>, Py<PyString>)>,
    many: HashMap<Box<str>, Py<PyString>>,
}

/// Strings kept in the scanned list.
const FEW: usize = 16;
/// Strings remembered at most (a column of distinct texts stops being cached there).
const MAX_CACHED: usize = 4096;

impl<'py> Strings<'py> {
    fn new(py: Python<'py>) -> Strings<'py> {
        Strings { py, few: Vec::with_capacity(FEW), many: HashMap::new() }
    }

    fn get(&mut self, s: &str) -> PyObject {
        if let Some((_, v)) = self.few.iter().find(|(k, _)| &**k == s) {
            return v.clone_ref(self.py).into_any();
        }
        if let Some(v) = self.many.get(s) {
            return v.clone_ref(self.py).into_any();
        }
        let v = PyString::new(self.py, s).unbind();
        if self.few.len() < FEW {
            self.few.push((s.into(), v.clone_ref(self.py)));
        } else if self.many.len() < MAX_CACHED {
            self.many.insert(s.into(), v.clone_ref(self.py));
        }
        v.into_any()
    }
}

/// Values of one type, and which of them are missing once one is (or the column is optional).
struct Values<T> {
    v: Vec<T>,
    missing: Option<Vec<bool>>,
}

impl<T: Copy> Values<T> {
    /// `nones` missing values, stood for by `fill`.
    fn missing_first(nones: usize, fill: T) -> Values<T> {
        Values { v: vec![fill; nones], missing: (nones > 0).then(|| vec![true; nones]) }
    }

    fn push(&mut self, x: T) {
        if let Some(m) = &mut self.missing {
            m.push(false);
        }
        self.v.push(x);
    }

    fn push_missing(&mut self, fill: T) {
        self.nullable();
        self.missing.as_mut().expect("made nullable").push(true);
        self.v.push(fill);
    }

    fn nullable(&mut self) {
        let n = self.v.len();
        self.missing.get_or_insert_with(|| vec![false; n]);
    }
}

/// One column being collected; its kind is set by its first value.
enum Column {
    /// No value yet but `nones` missing ones.
    Unknown { nones: usize },
    /// Signed integers (and unsigned ones up to 2⁶³ − 1).
    Int(Values<i64>),
    /// Unsigned integers, once one passed 2⁶³ − 1.
    UInt(Values<u64>),
    /// Floats; a missing one is NaN.
    Float(Values<f64>),
    /// Booleans.
    Bool(Values<bool>),
    /// Python objects: strings, None.
    Obj(Vec<PyObject>),
}

/// The values of one kind of column: `Column::Int(v)` → `Some(v)`.
type Get<T> = fn(&mut Column) -> Option<&mut Values<T>>;

impl Column {
    fn len(&self) -> usize {
        match self {
            Column::Unknown { nones } => *nones,
            Column::Int(x) => x.v.len(),
            Column::UInt(x) => x.v.len(),
            Column::Float(x) => x.v.len(),
            Column::Bool(x) => x.v.len(),
            Column::Obj(v) => v.len(),
        }
    }

    /// Marks an integer or boolean column as one that may miss values.
    fn nullable(&mut self) {
        match self {
            Column::Int(x) => x.nullable(),
            Column::UInt(x) => x.nullable(),
            Column::Bool(x) => x.nullable(),
            _ => {}
        }
    }

    fn none(&mut self, py: Python<'_>) {
        match self {
            Column::Unknown { nones } => *nones += 1,
            Column::Int(x) => x.push_missing(0),
            Column::UInt(x) => x.push_missing(0),
            Column::Float(x) => x.push_missing(f64::NAN),
            Column::Bool(x) => x.push_missing(false),
            Column::Obj(v) => v.push(py.None()),
        }
    }

    /// Pushes `x` onto a column of its kind (`make` starts one, `get` finds one); `what` names
    /// the kind when the column holds another.
    fn typed<T: Copy>(&mut self, x: T, fill: T, make: fn(Values<T>) -> Column, get: Get<T>, what: &str) -> Result<(), Error> {
        if let Column::Unknown { nones } = *self {
            *self = make(Values::missing_first(nones, fill));
        }
        match get(self) {
            Some(values) => {
                values.push(x);
                Ok(())
            }
            None => err(format!("a column mixes {what} with other values")),
        }
    }

    fn int(&mut self, x: i64) -> Result<(), Error> {
        match self {
            Column::UInt(values) if x >= 0 => {
                values.push(x as u64);
                Ok(())
            }
            _ => self.typed(x, 0, Column::Int, |c| if let Column::Int(v) = c { Some(v) } else { None }, "integers"),
        }
    }

    fn uint(&mut self, x: u64) -> Result<(), Error> {
        match (i64::try_from(x), &mut *self) {
            (Ok(_), Column::UInt(values)) => {
                values.push(x);
                return Ok(());
            }
            (Ok(small), _) => return self.int(small),
            // Past 2⁶³ − 1: an integer column of non-negative values becomes unsigned.
            (Err(_), Column::Int(values)) if values.v.iter().all(|&y| y >= 0) => {
                let v = values.v.iter().map(|&y| y as u64).collect();
                *self = Column::UInt(Values { v, missing: values.missing.take() });
            }
            _ => {}
        }
        self.typed(x, 0, Column::UInt, |c| if let Column::UInt(v) = c { Some(v) } else { None }, "integers past 2**63 - 1")
    }

    fn float(&mut self, x: f64) -> Result<(), Error> {
        self.typed(x, f64::NAN, Column::Float, |c| if let Column::Float(v) = c { Some(v) } else { None }, "floats")
    }

    fn bool(&mut self, x: bool) -> Result<(), Error> {
        self.typed(x, false, Column::Bool, |c| if let Column::Bool(v) = c { Some(v) } else { None }, "booleans")
    }

    fn object(&mut self, py: Python<'_>, x: PyObject) -> Result<(), Error> {
        if let Column::Unknown { nones } = *self {
            *self = Column::Obj((0..nones).map(|_| py.None()).collect());
        }
        match self {
            Column::Obj(v) => {
                v.push(x);
                Ok(())
            }
            _ => err("a column mixes text with other values"),
        }
    }

    /// The column as Python values (see the module's documentation).
    fn into_py(self, py: Python<'_>) -> PyResult<PyObject> {
        fn pair<'py>(py: Python<'py>, values: Bound<'py, PyAny>, missing: Vec<bool>) -> PyResult<PyObject> {
            Ok(PyTuple::new(py, [values, missing.into_pyarray(py).into_any()])?.into_any().unbind())
        }
        Ok(match self {
            Column::Unknown { nones } => PyList::new(py, (0..nones).map(|_| py.None()))?.into_any().unbind(),
            Column::Int(Values { v, missing: None }) => v.into_pyarray(py).into_any().unbind(),
            Column::Int(Values { v, missing: Some(m) }) => pair(py, v.into_pyarray(py).into_any(), m)?,
            Column::UInt(Values { v, missing: None }) => v.into_pyarray(py).into_any().unbind(),
            Column::UInt(Values { v, missing: Some(m) }) => pair(py, v.into_pyarray(py).into_any(), m)?,
            Column::Float(Values { v, .. }) => v.into_pyarray(py).into_any().unbind(),
            Column::Bool(Values { v, missing: None }) => v.into_pyarray(py).into_any().unbind(),
            Column::Bool(Values { v, missing: Some(m) }) => {
                let items = v.into_iter().zip(m).map(|(b, gone)| if gone { py.None() } else { PyBool::new(py, b).to_owned().into_any().unbind() });
                PyList::new(py, items)?.into_any().unbind()
            }
            Column::Obj(v) => PyList::new(py, v)?.into_any().unbind(),
        })
    }
}

/// Pushes one serialized value (a cell) onto a column.
struct Cell<'a, 'py> {
    col: &'a mut Column,
    strings: &'a mut Strings<'py>,
}

macro_rules! cells {
    ($($method:ident($ty:ty) => $push:ident as $as:ty;)*) => {
        $(fn $method(self, v: $ty) -> Result<(), Error> {
            self.col.$push(v as $as)
        })*
    };
}

macro_rules! refuse {
    ($($method:ident($($arg:ty),*);)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<Self::Ok, Error> {
            err(format!("a table cell cannot be a {}", &stringify!($method)["serialize_".len()..]))
        })*
    };
}

impl<'py> Serializer for Cell<'_, 'py> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    cells! {
        serialize_bool(bool) => bool as bool;
        serialize_i8(i8) => int as i64;
        serialize_i16(i16) => int as i64;
        serialize_i32(i32) => int as i64;
        serialize_i64(i64) => int as i64;
        serialize_u8(u8) => uint as u64;
        serialize_u16(u16) => uint as u64;
        serialize_u32(u32) => uint as u64;
        serialize_u64(u64) => uint as u64;
        serialize_f32(f32) => float as f64;
        serialize_f64(f64) => float as f64;
    }

    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        let s = self.strings.get(v);
        self.col.object(self.strings.py, s)
    }

    fn serialize_none(self) -> Result<(), Error> {
        self.col.none(self.strings.py);
        Ok(())
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), Error> {
        value.serialize(Cell { col: &mut *self.col, strings: &mut *self.strings })?;
        // An optional column stays nullable (`Int64`) even if no value is missing.
        self.col.nullable();
        Ok(())
    }

    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result<(), Error> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _name: &'static str, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    refuse! {
        serialize_bytes(&[u8]);
        serialize_unit();
        serialize_unit_struct(&'static str);
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(self, _: &'static str, _: u32, _: &'static str, _: &T) -> Result<(), Error> {
        err("a table cell cannot be an enum variant with data")
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        err("a table cell cannot be a sequence")
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        err("a table cell cannot be a tuple")
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, Error> {
        err("a table cell cannot be a tuple struct")
    }
    fn serialize_tuple_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Self::SerializeTupleVariant, Error> {
        err("a table cell cannot be an enum variant with data")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        err("a table cell cannot be a map")
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        err("a table cell cannot be a struct (flatten it into columns)")
    }
    fn serialize_struct_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Self::SerializeStructVariant, Error> {
        err("a table cell cannot be an enum variant with data")
    }
}

/// Named columns, in order.
type Table = Vec<(&'static str, Column)>;

/// Serializes a table: a struct of sequences, or a sequence of structs.
struct TableSer<'a, 'py> {
    strings: &'a mut Strings<'py>,
}

/// A struct of columns being collected.
struct ColumnsOf<'a, 'py> {
    strings: &'a mut Strings<'py>,
    table: Table,
}

/// Collects one field of a struct of columns: it must be a sequence.
struct ColumnSer<'a, 'py> {
    strings: &'a mut Strings<'py>,
    field: &'static str,
}

/// The cells of one column.
struct CellsOf<'a, 'py> {
    strings: &'a mut Strings<'py>,
    col: Column,
}

/// Rows being collected into columns.
struct RowsOf<'a, 'py> {
    strings: &'a mut Strings<'py>,
    table: Table,
    rows: usize,
}

/// One row struct: its fields go to the columns of the same position.
struct RowSer<'a, 'py> {
    strings: &'a mut Strings<'py>,
    table: &'a mut Table,
    first: bool,
}

/// The fields of one row.
struct RowFields<'a, 'py> {
    strings: &'a mut Strings<'py>,
    table: &'a mut Table,
    first: bool,
    at: usize,
}

/// A serializer whose every method but the listed ones refuses `what`.
macro_rules! only {
    ($what:expr) => {
        fn serialize_bool(self, _: bool) -> Result<Self::Ok, Error> { err($what) }
        fn serialize_i8(self, _: i8) -> Result<Self::Ok, Error> { err($what) }
        fn serialize_i16(self, _: i16) -> Result<Self::Ok, Error> { err($what) }
        fn serialize_i32(self, _: i32) -> Result<Self::Ok, Error> { err($what) }
        fn serialize_i64(self, _: i64) -> Result<Self::Ok, Error> { err($what) }
        fn serialize_u8(self, _: u8) -> Result<Self::Ok, Error> { err($what) }
        fn serialize_u16(self, _: u16) -> Result<Self::Ok, Error> { err($what) }
        fn serialize_u32(self, _: u32) -> Result<Self::Ok, Error> { err($what) }
        fn serialize_u64(self, _: u64) -> Result<Self::Ok, Error> { err($what) }
        fn serialize_f32(self, _: f32) -> Result<Self::Ok, Error> { err($what) }
        fn serialize_f64(self, _: f64) -> Result<Self::Ok, Error> { err($what) }
        fn serialize_char(self, _: char) -> Result<Self::Ok, Error> { err($what) }
        fn serialize_str(self, _: &str) -> Result<Self::Ok, Error> { err($what) }
        fn serialize_bytes(self, _: &[u8]) -> Result<Self::Ok, Error> { err($what) }
        fn serialize_none(self) -> Result<Self::Ok, Error> { err($what) }
        fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<Self::Ok, Error> { err($what) }
        fn serialize_unit(self) -> Result<Self::Ok, Error> { err($what) }
        fn serialize_unit_struct(self, _: &'static str) -> Result<Self::Ok, Error> { err($what) }
        fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<Self::Ok, Error> { err($what) }
        fn serialize_newtype_variant<T: ?Sized + Serialize>(self, _: &'static str, _: u32, _: &'static str, _: &T) -> Result<Self::Ok, Error> { err($what) }
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> { err($what) }
        fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, Error> { err($what) }
        fn serialize_tuple_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Self::SerializeTupleVariant, Error> { err($what) }
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> { err($what) }
        fn serialize_struct_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Self::SerializeStructVariant, Error> { err($what) }
    };
}

impl<'a, 'py> Serializer for TableSer<'a, 'py> {
    type Ok = Table;
    type Error = Error;
    type SerializeSeq = RowsOf<'a, 'py>;
    type SerializeTuple = Impossible<Table, Error>;
    type SerializeTupleStruct = Impossible<Table, Error>;
    type SerializeTupleVariant = Impossible<Table, Error>;
    type SerializeMap = Impossible<Table, Error>;
    type SerializeStruct = ColumnsOf<'a, 'py>;
    type SerializeStructVariant = Impossible<Table, Error>;

    only!("a table is a struct of columns or a sequence of row structs");

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result<Table, Error> {
        value.serialize(self)
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<ColumnsOf<'a, 'py>, Error> {
        Ok(ColumnsOf { strings: self.strings, table: Vec::with_capacity(len) })
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<RowsOf<'a, 'py>, Error> {
        Ok(RowsOf { strings: self.strings, table: Vec::new(), rows: 0 })
    }
}

impl SerializeStruct for ColumnsOf<'_, '_> {
    type Ok = Table;
    type Error = Error;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        let col = value.serialize(ColumnSer { strings: self.strings, field: key })?;
        if let Some((first, c)) = self.table.first() {
            if c.len() != col.len() {
                return err(format!("column `{key}` has {} values but `{first}` has {}", col.len(), c.len()));
            }
        }
        self.table.push((key, col));
        Ok(())
    }

    fn end(self) -> Result<Table, Error> {
        Ok(self.table)
    }
}

impl<'a, 'py> Serializer for ColumnSer<'a, 'py> {
    type Ok = Column;
    type Error = Error;
    type SerializeSeq = CellsOf<'a, 'py>;
    type SerializeTuple = Impossible<Column, Error>;
    type SerializeTupleStruct = Impossible<Column, Error>;
    type SerializeTupleVariant = Impossible<Column, Error>;
    type SerializeMap = Impossible<Column, Error>;
    type SerializeStruct = Impossible<Column, Error>;
    type SerializeStructVariant = Impossible<Column, Error>;

    only!("a field of a table struct must be a sequence (a column)");

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result<Column, Error> {
        value.serialize(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        err(format!("field `{}` of a table struct is a struct, not a column", self.field))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<CellsOf<'a, 'py>, Error> {
        let _ = len;
        Ok(CellsOf { strings: self.strings, col: Column::Unknown { nones: 0 } })
    }
}

impl SerializeSeq for CellsOf<'_, '_> {
    type Ok = Column;
    type Error = Error;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(Cell { col: &mut self.col, strings: self.strings })
    }

    fn end(self) -> Result<Column, Error> {
        Ok(self.col)
    }
}

impl SerializeSeq for RowsOf<'_, '_> {
    type Ok = Table;
    type Error = Error;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        let first = self.rows == 0;
        self.rows += 1;
        value.serialize(RowSer { strings: self.strings, table: &mut self.table, first })
    }

    fn end(self) -> Result<Table, Error> {
        Ok(self.table)
    }
}

impl<'a, 'py> Serializer for RowSer<'a, 'py> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = RowFields<'a, 'py>;
    type SerializeStructVariant = Impossible<(), Error>;

    only!("a row of a table must be a struct");

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        err("a row of a table must be a struct")
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<RowFields<'a, 'py>, Error> {
        Ok(RowFields { strings: self.strings, table: self.table, first: self.first, at: 0 })
    }
}

impl SerializeStruct for RowFields<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        if self.first {
            self.table.push((key, Column::Unknown { nones: 0 }));
        }
        match self.table.get_mut(self.at) {
            Some((name, col)) if *name == key => value.serialize(Cell { col, strings: self.strings })?,
            _ => return err(format!("rows differ in their fields (`{key}` at position {})", self.at)),
        }
        self.at += 1;
        Ok(())
    }

    fn end(self) -> Result<(), Error> {
        if self.at != self.table.len() {
            return err("rows differ in their number of fields");
        }
        Ok(())
    }
}

/// The columns of `table` (a struct of columns or a sequence of row structs) as a dict.
pub fn to_dict<'py, T: ?Sized + Serialize>(py: Python<'py>, table: &T) -> PyResult<Bound<'py, PyDict>> {
    let mut strings = Strings::new(py);
    let cols = table
        .serialize(TableSer { strings: &mut strings })
        .map_err(|e| crate::InternalError::new_err(format!("a result table cannot cross to Python (a wattlab bug): {e}")))?;
    let d = PyDict::new(py);
    for (name, col) in cols {
        d.set_item(name, col.into_py(py)?)?;
    }
    Ok(d)
}

/// The columns of `rows` as a dict; with no rows, the columns of `R::default()` with no values.
pub fn rows_to_dict<'py, R: Serialize + Default>(py: Python<'py>, rows: &[R]) -> PyResult<Bound<'py, PyDict>> {
    if !rows.is_empty() {
        return to_dict(py, rows);
    }
    let d = to_dict(py, std::slice::from_ref(&R::default()))?;
    for name in d.keys() {
        d.set_item(name, PyList::empty(py))?;
    }
    Ok(d)
}

/// A table held in Rust until it is converted.
trait Pending: Send {
    fn convert<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>>;
}

/// A struct of columns.
struct StructTable<T>(T);

impl<T: Serialize + Send> Pending for StructTable<T> {
    fn convert<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        to_dict(py, &self.0)
    }
}

/// Rows of a struct.
struct RowTable<R>(Vec<R>);

impl<R: Serialize + Default + Send> Pending for RowTable<R> {
    fn convert<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        rows_to_dict(py, &self.0)
    }
}

enum State {
    Pending(Box<dyn Pending>),
    Ready(Py<PyDict>),
}

/// A result table, converted to a dict of columns the first time Python asks for it (then
/// the Rust copy is dropped and the dict kept).
#[pyclass(frozen, module = "wattlab._core")]
pub struct Columns {
    state: Mutex<State>,
}

impl Columns {
    /// A table that is a struct of `Vec` columns.
    pub fn new<T: Serialize + Send + 'static>(table: T) -> Columns {
        Columns { state: Mutex::new(State::Pending(Box::new(StructTable(table)))) }
    }

    /// A table given as rows.
    pub fn rows<R: Serialize + Default + Send + 'static>(rows: Vec<R>) -> Columns {
        Columns { state: Mutex::new(State::Pending(Box::new(RowTable(rows)))) }
    }
}

#[pymethods]
impl Columns {
    /// The table as {column name: values} in the Rust struct's field order: numbers as numpy
    /// arrays, text as lists of str, optional integers as (values, missing) pairs, a column
    /// without values as an empty list. The same dict on every call: do not modify it.
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        crate::guard(|| {
            // Wait for another thread's conversion without holding the GIL it may need.
            let mut state = loop {
                match self.state.try_lock() {
                    Ok(g) => break g,
                    Err(TryLockError::Poisoned(p)) => break p.into_inner(),
                    Err(TryLockError::WouldBlock) => py.allow_threads(std::thread::yield_now),
                }
            };
            let d = match &*state {
                State::Ready(d) => return Ok(d.clone_ref(py)),
                State::Pending(t) => t.convert(py)?.unbind(),
            };
            *state = State::Ready(d.clone_ref(py));
            Ok(d)
        })
    }

    fn __repr__(&self) -> &'static str {
        "<wattlab._core.Columns: a result table; .to_dict() gives its columns>"
    }
}

/// Each result table's columns as its Rust struct declares them (its serde field names, in
/// order), by table: what the DataFrames must show (the test suite compares them).
#[pyfunction]
pub fn table_columns(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    use wattlab_sim::output::{AgentEventTable, FlowSeries, QueueSeries, RadioSeries, SocketTable};
    use wattlab_trace::energy::{Attribution, Connection, ThroughputTable, Timeline};
    crate::guard(|| {
        let d = PyDict::new(py);
        fn names<'py>(t: Bound<'py, PyDict>) -> Bound<'py, PyList> {
            t.keys()
        }
        d.set_item("flow_series", names(to_dict(py, &FlowSeries::default())?))?;
        d.set_item("queue_series", names(to_dict(py, &QueueSeries::default())?))?;
        d.set_item("radio_series", names(to_dict(py, &RadioSeries::default())?))?;
        d.set_item("pages", names(to_dict(py, &wattlab_sim::apps::web::PageTable::default())?))?;
        d.set_item("objects", names(to_dict(py, &wattlab_sim::apps::web::ObjectTable::default())?))?;
        d.set_item("agent_events", names(to_dict(py, &AgentEventTable::default())?))?;
        d.set_item("sockets", names(to_dict(py, &SocketTable::default())?))?;
        d.set_item("flow_energy", names(to_dict(py, &wattlab_sim::flow_energy::FlowEnergyTable::default())?))?;
        d.set_item("trace_timeline", names(to_dict(py, &Timeline::default())?))?;
        d.set_item("trace_attribution", names(to_dict(py, &Attribution::default())?))?;
        d.set_item("trace_throughput", names(to_dict(py, &ThroughputTable::default())?))?;
        d.set_item("trace_connections", names(rows_to_dict::<Connection>(py, &[])?))?;
        Ok(d)
    })
}

/// A table of every kind of column, for the tests of the conversion.
#[derive(serde::Serialize, Default)]
struct Example {
    small: Vec<i32>,
    big: Vec<u64>,
    optional: Vec<Option<u32>>,
    optional_full: Vec<Option<u32>>,
    ratio: Vec<f64>,
    flag: Vec<bool>,
    text: Vec<&'static str>,
    state: Vec<wattlab_core::energy::RadioState>,
    maybe_text: Vec<Option<String>>,
}

/// A row of [`Example`]'s rows form.
#[derive(serde::Serialize, Default)]
struct ExampleRow {
    id: u32,
    name: String,
    ok: bool,
}

/// For the tests: `case` = `columns` (every kind of column), `rows`, `no-rows`, or a bug:
/// `ragged` (columns of different lengths), `tuples` (rows that are not structs).
#[pyfunction]
pub fn _columns_selftest(case: &str) -> PyResult<Columns> {
    use wattlab_core::energy::RadioState;
    #[derive(serde::Serialize)]
    struct Ragged {
        a: Vec<u32>,
        b: Vec<u32>,
    }
    crate::guard(|| {
        Ok(match case {
            "columns" => Columns::new(Example {
                small: vec![-1, 0, i32::MIN],
                big: vec![1, 1 << 63, u64::MAX],
                optional: vec![Some(1), None, Some(3)],
                optional_full: vec![Some(1), Some(2), Some(3)],
                ratio: vec![0.5, f64::NAN, -1.0],
                flag: vec![true, false, true],
                text: vec!["a", "b", "a"],
                state: vec![RadioState::Idle, RadioState::Sleep, RadioState::IdleHigh],
                maybe_text: vec![None, Some("x".into()), None],
            }),
            "rows" => Columns::rows(vec![
                ExampleRow { id: 1, name: "one".into(), ok: true },
                ExampleRow { id: 2, name: "two".into(), ok: false },
            ]),
            "no-rows" => Columns::rows(Vec::<ExampleRow>::new()),
            "ragged" => Columns::new(Ragged { a: vec![1, 2], b: vec![1] }),
            "tuples" => Columns::new(vec![(1u32, 2.0f64)]),
            other => return Err(pyo3::exceptions::PyValueError::new_err(format!("no case `{other}`"))),
        })
    })
}
