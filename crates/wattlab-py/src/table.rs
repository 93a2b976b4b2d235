//! Result tables across the boundary as Arrow record batches, with no column lists: any
//! `serde::Serialize` table, a struct of `Vec` columns (`FlowSeries`, `PageTable`...) or a
//! sequence of row structs (the summary's flows, the trace's connections), becomes one Arrow
//! [`RecordBatch`] by walking its serde form. The Rust field names are the column names, in
//! their order; a field added in Rust appears in Python with no other change.
//!
//! Why a serde walk and not `serde_arrow`: the tables are mostly structs of columns (serde_arrow
//! reads rows), integers take pandas' width (below) whatever their Rust type, and the flows of a
//! run are rows of different kinds (`#[serde(flatten)]` of an untagged enum: a map per row),
//! whose columns are the union of the kinds' in order of first appearance, as pandas makes a
//! DataFrame of such records. The Arrow arrays are built with arrow-rs and handed to Python
//! through the Arrow PyCapsule interface (`__arrow_c_stream__`), which `pyarrow.table(t)`,
//! polars and DuckDB import without a copy.
//!
//! Types: integers `Int64` (`UInt64` once a value passes 2⁶³ − 1, what pandas infers from
//! Python ints), floats `Float64`, bools `Boolean`, text and enums' unit variants (by serde
//! name) `Utf8`, a sequence of numbers in a cell `List<Float64>`; a missing value (`None`, or a
//! column a row's kind does not have) is null. An `Option` column of a struct of columns is
//! marked optional in its field's metadata (`wattlab:optional`): pandas shows it as nullable
//! `Int64`; in rows, an integer column with a missing value is float in pandas, as pandas makes
//! records (the summary's tables are what they were as JSON records). A column with no value
//! at all is of the `Null` type, or `Float64` if some rows lack it (pandas' records again). Index columns named in
//! [`Table::with_names`] (a flow index, a link index) hold the names they index. A ragged
//! table or a cell that is not a scalar is an `InternalError` (a bug), never a crash.

use arrow_array::builder::{ArrayBuilder, Float64Builder, ListBuilder, StringBuilder};
use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int64Array, ListArray, NullArray, RecordBatch, RecordBatchIterator,
    RecordBatchOptions, StringArray, StructArray, UInt64Array,
};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, Schema};
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;
use pyo3::types::{PyCapsule, PyDict, PyList};
use serde::ser::{self, Impossible, Serialize, SerializeMap, SerializeSeq, SerializeStruct, Serializer};
use std::collections::HashMap;
use std::ffi::CString;
use std::fmt;
use std::sync::{Arc, Mutex, TryLockError};

/// Field metadata key saying the Rust column is an `Option` (pandas: nullable `Int64`).
pub const OPTIONAL: &str = "wattlab:optional";

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

/// Values of one type, and which of them are valid once one is missing.
struct Values<T> {
    v: Vec<T>,
    valid: Option<Vec<bool>>,
}

impl<T: Copy> Values<T> {
    /// `nones` missing values, stood for by `fill`.
    fn missing_first(nones: usize, fill: T) -> Values<T> {
        Values { v: vec![fill; nones], valid: (nones > 0).then(|| vec![false; nones]) }
    }

    fn push(&mut self, x: T) {
        if let Some(m) = &mut self.valid {
            m.push(true);
        }
        self.v.push(x);
    }

    fn push_missing(&mut self, fill: T) {
        let n = self.v.len();
        self.valid.get_or_insert_with(|| vec![true; n]).push(false);
        self.v.push(fill);
    }

    fn nulls(&self) -> Option<NullBuffer> {
        self.valid.as_ref().map(|m| NullBuffer::from(m.as_slice()))
    }
}

/// Cells that are sequences of numbers (a ping flow's round-trip times).
struct Lists {
    builder: ListBuilder<Float64Builder>,
}

/// One column being collected; its kind is set by its first value.
enum Kind {
    /// No value yet but `nones` missing ones.
    Unknown { nones: usize },
    /// Signed integers (and unsigned ones up to 2⁶³ − 1).
    Int(Values<i64>),
    /// Unsigned integers, once one passed 2⁶³ − 1.
    UInt(Values<u64>),
    /// Floats.
    Float(Values<f64>),
    /// Booleans.
    Bool(Values<bool>),
    /// Text.
    Str(StringBuilder),
    /// Lists of numbers.
    List(Lists),
}

/// A column: its values, whether its Rust type is an `Option` (in a struct of columns), and
/// whether a row lacked it (another kind's column).
struct Column {
    kind: Kind,
    optional: bool,
    absent: bool,
}

/// The values of one kind of column: `Kind::Int(v)` → `Some(v)`.
type Get<T> = fn(&mut Kind) -> Option<&mut Values<T>>;

impl Column {
    fn new(nones: usize) -> Column {
        Column { kind: Kind::Unknown { nones }, optional: false, absent: nones > 0 }
    }

    fn len(&self) -> usize {
        match &self.kind {
            Kind::Unknown { nones } => *nones,
            Kind::Int(x) => x.v.len(),
            Kind::UInt(x) => x.v.len(),
            Kind::Float(x) => x.v.len(),
            Kind::Bool(x) => x.v.len(),
            Kind::Str(b) => b.len(),
            Kind::List(l) => l.builder.len(),
        }
    }

    fn none(&mut self) {
        match &mut self.kind {
            Kind::Unknown { nones } => *nones += 1,
            Kind::Int(x) => x.push_missing(0),
            Kind::UInt(x) => x.push_missing(0),
            Kind::Float(x) => x.push_missing(0.0),
            Kind::Bool(x) => x.push_missing(false),
            Kind::Str(b) => b.append_null(),
            Kind::List(l) => l.builder.append_null(),
        }
    }

    /// Pushes `x` onto a column of its kind (`make` starts one, `get` finds one); `what` names
    /// the kind when the column holds another.
    fn typed<T: Copy>(&mut self, x: T, fill: T, make: fn(Values<T>) -> Kind, get: Get<T>, what: &str) -> Result<(), Error> {
        if let Kind::Unknown { nones } = self.kind {
            self.kind = make(Values::missing_first(nones, fill));
        }
        match get(&mut self.kind) {
            Some(values) => {
                values.push(x);
                Ok(())
            }
            None => err(format!("a column mixes {what} with other values")),
        }
    }

    fn int(&mut self, x: i64) -> Result<(), Error> {
        match &mut self.kind {
            Kind::UInt(values) if x >= 0 => {
                values.push(x as u64);
                Ok(())
            }
            // Rows of different kinds: a column of floats in one and integers in another is of
            // floats (as pandas makes it).
            Kind::Float(values) => {
                values.push(x as f64);
                Ok(())
            }
            _ => self.typed(x, 0, Kind::Int, |c| if let Kind::Int(v) = c { Some(v) } else { None }, "integers"),
        }
    }

    fn uint(&mut self, x: u64) -> Result<(), Error> {
        match (i64::try_from(x), &mut self.kind) {
            (Ok(_), Kind::UInt(values)) => {
                values.push(x);
                return Ok(());
            }
            (Ok(small), _) => return self.int(small),
            (Err(_), Kind::Float(values)) => {
                values.push(x as f64);
                return Ok(());
            }
            // Past 2⁶³ − 1: an integer column of non-negative values becomes unsigned.
            (Err(_), Kind::Int(values)) if values.v.iter().all(|&y| y >= 0) => {
                let v = values.v.iter().map(|&y| y as u64).collect();
                self.kind = Kind::UInt(Values { v, valid: values.valid.take() });
            }
            _ => {}
        }
        self.typed(x, 0, Kind::UInt, |c| if let Kind::UInt(v) = c { Some(v) } else { None }, "integers past 2**63 - 1")
    }

    fn float(&mut self, x: f64) -> Result<(), Error> {
        match &mut self.kind {
            Kind::Int(values) => {
                let v = values.v.iter().map(|&y| y as f64).collect();
                self.kind = Kind::Float(Values { v, valid: values.valid.take() });
            }
            Kind::UInt(values) => {
                let v = values.v.iter().map(|&y| y as f64).collect();
                self.kind = Kind::Float(Values { v, valid: values.valid.take() });
            }
            _ => {}
        }
        self.typed(x, 0.0, Kind::Float, |c| if let Kind::Float(v) = c { Some(v) } else { None }, "floats")
    }

    fn bool(&mut self, x: bool) -> Result<(), Error> {
        self.typed(x, false, Kind::Bool, |c| if let Kind::Bool(v) = c { Some(v) } else { None }, "booleans")
    }

    fn str(&mut self, x: &str) -> Result<(), Error> {
        if let Kind::Unknown { nones } = self.kind {
            let mut b = StringBuilder::new();
            b.append_nulls(nones);
            self.kind = Kind::Str(b);
        }
        match &mut self.kind {
            Kind::Str(b) => {
                b.append_value(x);
                Ok(())
            }
            _ => err("a column mixes text with other values"),
        }
    }

    /// The list builder of a column of lists (made on its first list).
    fn lists(&mut self) -> Result<&mut ListBuilder<Float64Builder>, Error> {
        if let Kind::Unknown { nones } = self.kind {
            let mut builder = ListBuilder::new(Float64Builder::new());
            for _ in 0..nones {
                builder.append_null();
            }
            self.kind = Kind::List(Lists { builder });
        }
        match &mut self.kind {
            Kind::List(l) => Ok(&mut l.builder),
            _ => err("a column mixes sequences with other values"),
        }
    }

    /// The column as an Arrow field and array; `names` replaces an integer index by the name it
    /// indexes.
    fn finish(self, name: &str, names: Option<&[String]>) -> Result<(Field, ArrayRef), Error> {
        let optional = self.optional;
        let array: ArrayRef = match self.kind {
            Kind::Int(x) if names.is_some() => Arc::new(named(name, names.unwrap_or_default(), &x.v, x.nulls())?),
            // Missing in every row, and lacking in some (pandas makes such records' column float).
            Kind::Unknown { nones } if self.absent => Arc::new(Float64Array::new_null(nones)),
            Kind::Unknown { nones } => Arc::new(NullArray::new(nones)),
            Kind::Int(x) => Arc::new(Int64Array::new(x.v.into(), x.valid.map(|m| NullBuffer::from(m)))),
            Kind::UInt(x) => Arc::new(UInt64Array::new(x.v.into(), x.valid.map(|m| NullBuffer::from(m)))),
            Kind::Float(x) => Arc::new(Float64Array::new(x.v.into(), x.valid.map(|m| NullBuffer::from(m)))),
            Kind::Bool(x) => {
                let nulls = x.nulls();
                Arc::new(BooleanArray::new(x.v.into_iter().collect(), nulls))
            }
            Kind::Str(mut b) => Arc::new(b.finish()),
            Kind::List(mut l) => Arc::new(l.builder.finish()),
        };
        let dt = array.data_type().clone();
        let nullable = array.null_count() > 0 || optional || dt == DataType::Null;
        let mut field = Field::new(name, dt, nullable);
        if optional {
            field = field.with_metadata(HashMap::from([(OPTIONAL.to_string(), "true".to_string())]));
        }
        Ok((field, array))
    }
}

/// The names an index column's values index.
fn named(column: &str, names: &[String], idx: &[i64], nulls: Option<NullBuffer>) -> Result<StringArray, Error> {
    let mut b = StringBuilder::with_capacity(idx.len(), idx.len() * 8);
    for (i, &k) in idx.iter().enumerate() {
        if nulls.as_ref().is_some_and(|n| n.is_null(i)) {
            b.append_null();
            continue;
        }
        match usize::try_from(k).ok().and_then(|k| names.get(k)) {
            Some(n) => b.append_value(n),
            None => return err(format!("column `{column}` indexes {k}, past its {} names", names.len())),
        }
    }
    Ok(b.finish())
}

/// Pushes one serialized value (a cell) onto a column; `columns`: the cell is in a struct of
/// columns (where an `Option` column is marked optional).
struct Cell<'a> {
    col: &'a mut Column,
    columns: bool,
}

macro_rules! cells {
    ($($method:ident($ty:ty) => $push:ident as $as:ty;)*) => {
        $(fn $method(self, v: $ty) -> Result<(), Error> {
            self.col.$push(v as $as)
        })*
    };
}

impl<'a> Serializer for Cell<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ListCell<'a>;
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
        self.col.str(v.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.col.str(v)
    }

    fn serialize_none(self) -> Result<(), Error> {
        self.col.optional |= self.columns;
        self.col.none();
        Ok(())
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), Error> {
        self.col.optional |= self.columns;
        value.serialize(Cell { col: &mut *self.col, columns: self.columns })
    }

    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result<(), Error> {
        self.col.str(variant)
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _name: &'static str, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<ListCell<'a>, Error> {
        self.col.lists()?;
        Ok(ListCell { col: self.col })
    }

    fn serialize_bytes(self, _: &[u8]) -> Result<(), Error> {
        err("a table cell cannot be bytes")
    }
    fn serialize_unit(self) -> Result<(), Error> {
        err("a table cell cannot be a unit")
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        err("a table cell cannot be a unit struct")
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(self, _: &'static str, _: u32, _: &'static str, _: &T) -> Result<(), Error> {
        err("a table cell cannot be an enum variant with data")
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

/// The numbers of one list cell.
struct ListCell<'a> {
    col: &'a mut Column,
}

impl SerializeSeq for ListCell<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        let x = value.serialize(Number)?;
        self.col.lists()?.values().append_value(x);
        Ok(())
    }

    fn end(self) -> Result<(), Error> {
        self.col.lists()?.append(true);
        Ok(())
    }
}

/// A number inside a list cell, as a float.
struct Number;

/// A serializer whose every method but the listed ones refuses `what`.
macro_rules! only {
    ($what:expr) => {
        fn serialize_bool(self, _: bool) -> Result<Self::Ok, Error> { err($what) }
        fn serialize_char(self, _: char) -> Result<Self::Ok, Error> { err($what) }
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
        fn serialize_struct_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Self::SerializeStructVariant, Error> { err($what) }
    };
}

/// The methods of a serializer of scalars that refuses them all with `what`.
macro_rules! no_scalars {
    ($what:expr) => {
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
        fn serialize_str(self, _: &str) -> Result<Self::Ok, Error> { err($what) }
    };
}

impl Serializer for Number {
    type Ok = f64;
    type Error = Error;
    type SerializeSeq = Impossible<f64, Error>;
    type SerializeTuple = Impossible<f64, Error>;
    type SerializeTupleStruct = Impossible<f64, Error>;
    type SerializeTupleVariant = Impossible<f64, Error>;
    type SerializeMap = Impossible<f64, Error>;
    type SerializeStruct = Impossible<f64, Error>;
    type SerializeStructVariant = Impossible<f64, Error>;

    only!("a list in a table cell holds numbers only");

    fn serialize_i8(self, v: i8) -> Result<f64, Error> {
        Ok(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<f64, Error> {
        Ok(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<f64, Error> {
        Ok(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<f64, Error> {
        Ok(v as f64)
    }
    fn serialize_u8(self, v: u8) -> Result<f64, Error> {
        Ok(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<f64, Error> {
        Ok(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<f64, Error> {
        Ok(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<f64, Error> {
        Ok(v as f64)
    }
    fn serialize_f32(self, v: f32) -> Result<f64, Error> {
        Ok(v.into())
    }
    fn serialize_f64(self, v: f64) -> Result<f64, Error> {
        Ok(v)
    }
    fn serialize_str(self, _: &str) -> Result<f64, Error> {
        err("a list in a table cell holds numbers only")
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result<f64, Error> {
        value.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        err("a list in a table cell holds numbers only")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        err("a list in a table cell holds numbers only")
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        err("a list in a table cell holds numbers only")
    }
}

/// Named columns, in order, with an index by name (rows may name their fields in any order).
#[derive(Default)]
struct Columns {
    cols: Vec<(String, Column)>,
    by_name: HashMap<String, usize>,
    rows: usize,
}

impl Columns {
    /// The column `key` of the row being collected (made, with a missing value for each earlier
    /// row, on its first appearance); `hint` is where it probably is (the previous row's order).
    fn get(&mut self, key: &str, hint: usize) -> &mut Column {
        let i = match self.cols.get(hint) {
            Some((name, _)) if name == key => hint,
            _ => match self.by_name.get(key) {
                Some(&i) => i,
                None => {
                    self.by_name.insert(key.to_string(), self.cols.len());
                    self.cols.push((key.to_string(), Column::new(self.rows)));
                    self.cols.len() - 1
                }
            },
        };
        &mut self.cols[i].1
    }
}

/// Serializes a table: a struct of columns, or a sequence of rows.
struct TableSer<'a> {
    table: &'a mut Columns,
}

/// A struct of columns being collected.
struct ColumnsOf<'a> {
    table: &'a mut Columns,
}

/// Collects one field of a struct of columns: it must be a sequence.
struct ColumnSer<'a> {
    col: &'a mut Column,
    field: &'static str,
}

/// The cells of one column.
struct CellsOf<'a> {
    col: &'a mut Column,
}

/// Rows being collected into columns.
struct RowsOf<'a> {
    table: &'a mut Columns,
}

/// One row: a struct, or a map (a struct with flattened fields).
struct RowSer<'a> {
    table: &'a mut Columns,
}

/// The fields of one row.
struct RowFields<'a> {
    table: &'a mut Columns,
    at: usize,
    key: Option<String>,
}

impl<'a> Serializer for TableSer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = RowsOf<'a>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = ColumnsOf<'a>;
    type SerializeStructVariant = Impossible<(), Error>;

    only!("a table is a struct of columns or a sequence of rows");
    no_scalars!("a table is a struct of columns or a sequence of rows");

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<ColumnsOf<'a>, Error> {
        Ok(ColumnsOf { table: self.table })
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<RowsOf<'a>, Error> {
        Ok(RowsOf { table: self.table })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        err("a table is a struct of columns or a sequence of rows")
    }
}

impl SerializeStruct for ColumnsOf<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        let mut col = Column::new(0);
        value.serialize(ColumnSer { col: &mut col, field: key })?;
        if let Some((first, c)) = self.table.cols.first() {
            if c.len() != col.len() {
                return err(format!("column `{key}` has {} values but `{first}` has {}", col.len(), c.len()));
            }
        }
        self.table.rows = col.len();
        self.table.by_name.insert(key.to_string(), self.table.cols.len());
        self.table.cols.push((key.to_string(), col));
        Ok(())
    }

    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

impl<'a> Serializer for ColumnSer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = CellsOf<'a>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    only!("a field of a table struct must be a sequence (a column)");
    no_scalars!("a field of a table struct must be a sequence (a column)");

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        err(format!("field `{}` of a table struct is a struct, not a column", self.field))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        err(format!("field `{}` of a table struct is a map, not a column", self.field))
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<CellsOf<'a>, Error> {
        Ok(CellsOf { col: self.col })
    }
}

impl SerializeSeq for CellsOf<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(Cell { col: &mut *self.col, columns: true })
    }

    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

impl SerializeSeq for RowsOf<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(RowSer { table: &mut *self.table })?;
        // A column this row has no value for (another kind's) is missing in it.
        self.table.rows += 1;
        let n = self.table.rows;
        for (_, c) in &mut self.table.cols {
            match c.len() {
                l if l + 1 == n => {
                    c.none();
                    c.absent = true;
                }
                l if l == n => {}
                _ => return err("a row gave a column two values"),
            }
        }
        Ok(())
    }

    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

impl<'a> Serializer for RowSer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = RowFields<'a>;
    type SerializeStruct = RowFields<'a>;
    type SerializeStructVariant = Impossible<(), Error>;

    only!("a row of a table must be a struct");
    no_scalars!("a row of a table must be a struct");

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        err("a row of a table must be a struct")
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<RowFields<'a>, Error> {
        Ok(RowFields { table: self.table, at: 0, key: None })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<RowFields<'a>, Error> {
        Ok(RowFields { table: self.table, at: 0, key: None })
    }
}

impl RowFields<'_> {
    fn field<T: ?Sized + Serialize>(&mut self, key: &str, value: &T) -> Result<(), Error> {
        let rows = self.table.rows;
        let col = self.table.get(key, self.at);
        if col.len() != rows {
            return err(format!("a row gave column `{key}` two values"));
        }
        value.serialize(Cell { col, columns: false })?;
        self.at += 1;
        Ok(())
    }
}

impl SerializeStruct for RowFields<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.field(key, value)
    }

    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

impl SerializeMap for RowFields<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), Error> {
        self.key = Some(key.serialize(Key)?);
        Ok(())
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        let key = self.key.take().ok_or_else(|| Error("a map value without its key".into()))?;
        self.field(&key, value)
    }

    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

/// A row's map key: a column name.
struct Key;

impl Serializer for Key {
    type Ok = String;
    type Error = Error;
    type SerializeSeq = Impossible<String, Error>;
    type SerializeTuple = Impossible<String, Error>;
    type SerializeTupleStruct = Impossible<String, Error>;
    type SerializeTupleVariant = Impossible<String, Error>;
    type SerializeMap = Impossible<String, Error>;
    type SerializeStruct = Impossible<String, Error>;
    type SerializeStructVariant = Impossible<String, Error>;

    only!("a column name must be text");

    fn serialize_i8(self, _: i8) -> Result<String, Error> { err("a column name must be text") }
    fn serialize_i16(self, _: i16) -> Result<String, Error> { err("a column name must be text") }
    fn serialize_i32(self, _: i32) -> Result<String, Error> { err("a column name must be text") }
    fn serialize_i64(self, _: i64) -> Result<String, Error> { err("a column name must be text") }
    fn serialize_u8(self, _: u8) -> Result<String, Error> { err("a column name must be text") }
    fn serialize_u16(self, _: u16) -> Result<String, Error> { err("a column name must be text") }
    fn serialize_u32(self, _: u32) -> Result<String, Error> { err("a column name must be text") }
    fn serialize_u64(self, _: u64) -> Result<String, Error> { err("a column name must be text") }
    fn serialize_f32(self, _: f32) -> Result<String, Error> { err("a column name must be text") }
    fn serialize_f64(self, _: f64) -> Result<String, Error> { err("a column name must be text") }
    fn serialize_str(self, v: &str) -> Result<String, Error> {
        Ok(v.to_string())
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result<String, Error> {
        value.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        err("a column name must be text")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        err("a column name must be text")
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        err("a column name must be text")
    }
}

/// Names for index columns: (column, the names its integers index).
pub type Names = Vec<(&'static str, Arc<Vec<String>>)>;

/// The Arrow record batch of `table` (a struct of columns or a sequence of rows); columns named
/// in `names` hold the names their integers index.
pub fn to_batch<T: ?Sized + Serialize>(table: &T, names: &Names) -> Result<RecordBatch, Error> {
    let mut cols = Columns::default();
    table.serialize(TableSer { table: &mut cols })?;
    batch_of(cols, names)
}

fn batch_of(cols: Columns, names: &Names) -> Result<RecordBatch, Error> {
    let rows = cols.rows;
    let mut fields = Vec::with_capacity(cols.cols.len());
    let mut arrays = Vec::with_capacity(cols.cols.len());
    for (name, col) in cols.cols {
        let index = names.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_slice());
        let (f, a) = col.finish(&name, index)?;
        fields.push(f);
        arrays.push(a);
    }
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), arrays, &options).map_err(|e| Error(e.to_string()))
}

/// The batch of `rows`; with no rows, the columns of `R::default()` with no values (of the
/// `Null` type).
pub fn rows_to_batch<R: Serialize + Default>(rows: &[R], names: &Names) -> Result<RecordBatch, Error> {
    if !rows.is_empty() {
        return to_batch(rows, names);
    }
    let one = to_batch(std::slice::from_ref(&R::default()), names)?;
    let fields: Vec<Field> = one.schema().fields().iter().map(|f| Field::new(f.name(), DataType::Null, true)).collect();
    let arrays: Vec<ArrayRef> = fields.iter().map(|_| Arc::new(NullArray::new(0)) as ArrayRef).collect();
    let options = RecordBatchOptions::new().with_row_count(Some(0));
    RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), arrays, &options).map_err(|e| Error(e.to_string()))
}

/// A table held in Rust until it is converted.
trait Pending: Send + Sync {
    fn convert(&self) -> Result<RecordBatch, Error>;
}

/// A struct of columns, or rows with no `Default` (an empty one has no columns).
struct Plain<T>(T, Names);

impl<T: Serialize + Send + Sync> Pending for Plain<T> {
    fn convert(&self) -> Result<RecordBatch, Error> {
        to_batch(&self.0, &self.1)
    }
}

/// Rows of a struct whose default names the columns of an empty table.
struct Rows<R>(Vec<R>, Names);

impl<R: Serialize + Default + Send + Sync> Pending for Rows<R> {
    fn convert(&self) -> Result<RecordBatch, Error> {
        rows_to_batch(&self.0, &self.1)
    }
}

enum State {
    Pending(Box<dyn Pending>),
    Ready(RecordBatch),
}

/// A result table: an Arrow record batch, converted from its Rust struct the first time Python
/// asks (then the Rust copy is dropped). `pyarrow.table(t)` imports it through the Arrow
/// PyCapsule interface; `to_pylist()` gives its rows without pyarrow.
#[pyclass(frozen, module = "wattlab._core")]
pub struct Table {
    state: Mutex<State>,
}

impl Table {
    /// A table that is a struct of `Vec` columns, or rows (an empty one has no columns).
    pub fn new<T: Serialize + Send + Sync + 'static>(table: T) -> Table {
        Table::pending(Box::new(Plain(table, Vec::new())))
    }

    /// A table given as rows whose struct's default names the columns of an empty one.
    pub fn rows<R: Serialize + Default + Send + Sync + 'static>(rows: Vec<R>) -> Table {
        Table::pending(Box::new(Rows(rows, Vec::new())))
    }

    /// A struct of columns whose index columns `names` name (`flow` → the flows' names).
    pub fn with_names<T: Serialize + Send + Sync + 'static>(table: T, names: Names) -> Table {
        Table::pending(Box::new(Plain(table, names)))
    }

    fn pending(p: Box<dyn Pending>) -> Table {
        Table { state: Mutex::new(State::Pending(p)) }
    }

    /// The record batch (converted now if it was not yet, with the GIL released).
    pub fn batch(&self, py: Python<'_>) -> PyResult<RecordBatch> {
        // Wait for another thread's conversion without holding the GIL it may need.
        let mut state = loop {
            match self.state.try_lock() {
                Ok(g) => break g,
                Err(TryLockError::Poisoned(p)) => break p.into_inner(),
                Err(TryLockError::WouldBlock) => py.allow_threads(std::thread::yield_now),
            }
        };
        let batch = match &*state {
            State::Ready(b) => return Ok(b.clone()),
            State::Pending(t) => py.allow_threads(|| t.convert()).map_err(|e| {
                crate::InternalError::new_err(format!("a result table cannot cross to Python (a wattlab bug): {e}"))
            })?,
        };
        *state = State::Ready(batch.clone());
        Ok(batch)
    }
}

fn capsule_name(name: &str) -> CString {
    CString::new(name).expect("no NUL in a capsule name")
}

fn arrow_error(e: arrow_schema::ArrowError) -> PyErr {
    crate::InternalError::new_err(format!("a result table cannot cross to Python (a wattlab bug): {e}"))
}

#[pymethods]
impl Table {
    /// The table as an Arrow C stream (one record batch), for `pyarrow.table(t)`, polars,
    /// DuckDB... (the Arrow PyCapsule interface). A requested schema is not honoured: the
    /// table has the one its Rust struct gives it.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(&self, py: Python<'py>, requested_schema: Option<PyObject>) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        crate::guard(|| {
            let batch = self.batch(py)?;
            let schema = batch.schema();
            let reader = RecordBatchIterator::new(vec![Ok(batch)], schema);
            let stream = FFI_ArrowArrayStream::new(Box::new(reader));
            PyCapsule::new(py, stream, Some(capsule_name("arrow_array_stream")))
        })
    }

    /// The table's schema as an Arrow C schema capsule.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        crate::guard(|| {
            let batch = self.batch(py)?;
            let schema = FFI_ArrowSchema::try_from(batch.schema().as_ref()).map_err(arrow_error)?;
            PyCapsule::new(py, schema, Some(capsule_name("arrow_schema")))
        })
    }

    /// The table as one Arrow C array of structs (`pyarrow.record_batch(t)`).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<PyObject>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        let _ = requested_schema;
        crate::guard(|| {
            let data = StructArray::from(self.batch(py)?).into_data();
            let schema = FFI_ArrowSchema::try_from(data.data_type()).map_err(arrow_error)?;
            let array = FFI_ArrowArray::new(&data);
            Ok((
                PyCapsule::new(py, schema, Some(capsule_name("arrow_schema")))?,
                PyCapsule::new(py, array, Some(capsule_name("arrow_array")))?,
            ))
        })
    }

    /// The column names, in order.
    #[getter]
    fn column_names(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        crate::guard(|| Ok(self.batch(py)?.schema().fields().iter().map(|f| f.name().clone()).collect()))
    }

    /// The number of rows.
    #[getter]
    fn num_rows(&self, py: Python<'_>) -> PyResult<usize> {
        crate::guard(|| Ok(self.batch(py)?.num_rows()))
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        self.num_rows(py)
    }

    /// The rows as dicts of Python values (None where missing), without pyarrow: for printing
    /// a small table.
    fn to_pylist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        crate::guard(|| {
            let batch = self.batch(py)?;
            let names: Vec<&String> = batch.schema_ref().fields().iter().map(|f| f.name()).collect();
            let cols: Vec<Vec<PyObject>> = batch.columns().iter().map(|a| py_values(py, a)).collect::<PyResult<_>>()?;
            let rows = PyList::empty(py);
            for i in 0..batch.num_rows() {
                let d = PyDict::new(py);
                for (name, col) in names.iter().zip(&cols) {
                    d.set_item(name.as_str(), col[i].clone_ref(py))?;
                }
                rows.append(d)?;
            }
            Ok(rows)
        })
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        match self.batch(py) {
            Ok(b) => format!("<wattlab._core.Table: {} rows × {} columns; pyarrow.table(t) imports it>", b.num_rows(), b.num_columns()),
            Err(_) => "<wattlab._core.Table: cannot be converted>".to_string(),
        }
    }
}

/// The values of an array as Python objects (None where null).
fn py_values(py: Python<'_>, a: &ArrayRef) -> PyResult<Vec<PyObject>> {
    fn each<T: for<'py> IntoPyObject<'py> + Copy>(py: Python<'_>, a: &dyn Array, get: impl Fn(usize) -> T) -> PyResult<Vec<PyObject>> {
        (0..a.len())
            .map(|i| if a.is_null(i) { Ok(py.None()) } else { get(i).into_py_any(py) })
            .collect()
    }
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, Int64Type, UInt64Type};
    match a.data_type() {
        DataType::Null => Ok((0..a.len()).map(|_| py.None()).collect()),
        DataType::Int64 => each(py, a.as_ref(), |i| a.as_primitive::<Int64Type>().value(i)),
        DataType::UInt64 => each(py, a.as_ref(), |i| a.as_primitive::<UInt64Type>().value(i)),
        DataType::Float64 => each(py, a.as_ref(), |i| a.as_primitive::<Float64Type>().value(i)),
        DataType::Boolean => each(py, a.as_ref(), |i| a.as_boolean().value(i)),
        DataType::Utf8 => {
            let s = a.as_string::<i32>();
            (0..a.len()).map(|i| Ok(if a.is_null(i) { py.None() } else { s.value(i).into_pyobject(py)?.into_any().unbind() })).collect()
        }
        DataType::List(_) => {
            let l: &ListArray = a.as_list::<i32>();
            (0..a.len())
                .map(|i| {
                    if a.is_null(i) {
                        return Ok(py.None());
                    }
                    let v = l.value(i);
                    let values: Vec<f64> = v.as_primitive::<Float64Type>().values().to_vec();
                    Ok(PyList::new(py, values)?.into_any().unbind())
                })
                .collect()
        }
        other => Err(crate::InternalError::new_err(format!("no Python value for an Arrow {other} column"))),
    }
}

/// Each result table's columns as its Rust struct declares them (its serde field names, in
/// order), by table: what the DataFrames must show (the test suite compares them).
#[pyfunction]
pub fn table_columns(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    use wattlab_sim::output::{AgentEventTable, FlowSeries, QueueSeries, RadioSeries, SocketTable};
    crate::guard(|| {
        let d = PyDict::new(py);
        fn names(b: Result<RecordBatch, Error>) -> PyResult<Vec<String>> {
            let b = b.map_err(|e| crate::InternalError::new_err(e.to_string()))?;
            Ok(b.schema().fields().iter().map(|f| f.name().clone()).collect())
        }
        let none = Names::new();
        d.set_item("flow_series", names(to_batch(&FlowSeries::default(), &none))?)?;
        d.set_item("queue_series", names(to_batch(&QueueSeries::default(), &none))?)?;
        d.set_item("radio_series", names(to_batch(&RadioSeries::default(), &none))?)?;
        d.set_item("pages", names(to_batch(&wattlab_sim::apps::web::PageTable::default(), &none))?)?;
        d.set_item("objects", names(to_batch(&wattlab_sim::apps::web::ObjectTable::default(), &none))?)?;
        d.set_item("agent_events", names(to_batch(&AgentEventTable::default(), &none))?)?;
        d.set_item("sockets", names(to_batch(&SocketTable::default(), &none))?)?;
        d.set_item("flow_energy", names(to_batch(&wattlab_sim::flow_energy::FlowEnergyTable::default(), &none))?)?;
        use wattlab_trace::tables::{AttributionTable, ConnectionTable, StatesTable, ThroughputTable, TimelineTable};
        d.set_item("trace_states", names(to_batch(&StatesTable::default(), &none))?)?;
        d.set_item("trace_timeline", names(to_batch(&TimelineTable::default(), &none))?)?;
        d.set_item("trace_connections", names(to_batch(&ConnectionTable::default(), &none))?)?;
        d.set_item("trace_attribution", names(to_batch(&AttributionTable::default(), &none))?)?;
        d.set_item("trace_throughput", names(to_batch(&ThroughputTable::default(), &none))?)?;
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
    flow: Vec<u32>,
}

/// A row of [`Example`]'s rows form.
#[derive(serde::Serialize, Default)]
struct ExampleRow {
    id: u32,
    name: String,
    ok: bool,
}

/// Rows of two kinds, each with its own columns (as a run's flows are).
#[derive(serde::Serialize)]
struct KindRow {
    name: &'static str,
    #[serde(flatten)]
    own: KindColumns,
}

/// A row kind's own columns.
#[derive(serde::Serialize)]
#[serde(untagged)]
enum KindColumns {
    A { count: u64, rtt_ms: Vec<f64> },
    B { count: f64, lost: u64 },
}

/// For the tests: `case` = `columns` (every kind of column), `rows`, `no-rows`, `kinds` (rows
/// of two kinds: the union of their columns), or a bug: `ragged` (columns of different
/// lengths), `tuples` (rows that are not structs), `index` (an index past its names).
#[pyfunction]
pub fn _table_selftest(case: &str) -> PyResult<Table> {
    use wattlab_core::energy::RadioState;
    #[derive(serde::Serialize)]
    struct Indexed {
        flow: Vec<u32>,
    }
    #[derive(serde::Serialize)]
    struct Ragged {
        a: Vec<u32>,
        b: Vec<u32>,
    }
    crate::guard(|| {
        let flows = Arc::new(vec!["ftp".to_string(), "web".to_string()]);
        Ok(match case {
            "columns" => Table::with_names(
                Example {
                    small: vec![-1, 0, i32::MIN],
                    big: vec![1, 1 << 63, u64::MAX],
                    optional: vec![Some(1), None, Some(3)],
                    optional_full: vec![Some(1), Some(2), Some(3)],
                    ratio: vec![0.5, f64::NAN, -1.0],
                    flag: vec![true, false, true],
                    text: vec!["a", "b", "a"],
                    state: vec![RadioState::Idle, RadioState::Sleep, RadioState::IdleHigh],
                    maybe_text: vec![None, Some("x".into()), None],
                    flow: vec![1, 0, 1],
                },
                vec![("flow", flows)],
            ),
            "rows" => Table::rows(vec![
                ExampleRow { id: 1, name: "one".into(), ok: true },
                ExampleRow { id: 2, name: "two".into(), ok: false },
            ]),
            "no-rows" => Table::rows(Vec::<ExampleRow>::new()),
            "kinds" => Table::new(vec![
                KindRow { name: "a", own: KindColumns::A { count: 3, rtt_ms: vec![1.5, 2.0] } },
                KindRow { name: "b", own: KindColumns::B { count: 0.5, lost: 7 } },
            ]),
            "ragged" => Table::new(Ragged { a: vec![1, 2], b: vec![1] }),
            "tuples" => Table::new(vec![(1u32, 2.0f64)]),
            "index" => Table::with_names(Indexed { flow: vec![2] }, vec![("flow", flows)]),
            other => return Err(pyo3::exceptions::PyValueError::new_err(format!("no case `{other}`"))),
        })
    })
}
