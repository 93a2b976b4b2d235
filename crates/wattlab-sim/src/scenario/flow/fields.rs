//! The keys a kind's struct takes, read from its derived `Deserialize` (serde hands a struct's
//! field names to `deserialize_struct`), so the key lists in error messages are the struct's
//! own and cannot drift from it.

use serde::de::{self, DeserializeOwned, Visitor};
use std::fmt;

/// The field names of `T`, a struct deserialized with `#[derive(Deserialize)]` (empty if `T`
/// is not a struct).
pub fn of<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut fields: &'static [&'static str] = &[];
    let _ = T::deserialize(Probe(&mut fields));
    fields
}

/// A deserializer that only records the field names it is asked for, then stops.
struct Probe<'a>(&'a mut &'static [&'static str]);

/// The probe's "error": it never produces a value.
#[derive(Debug)]
struct Stop;

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field probe")
    }
}

impl std::error::Error for Stop {}

impl de::Error for Stop {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Stop
    }
}

impl<'de> de::Deserializer<'de> for Probe<'_> {
    type Error = Stop;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        Err(Stop)
    }

    fn deserialize_struct<V: Visitor<'de>>(self, _: &'static str, fields: &'static [&'static str], _: V) -> Result<V::Value, Stop> {
        *self.0 = fields;
        Err(Stop)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Two {
        a: u32,
        #[serde(rename = "b_key")]
        b: Option<String>,
    }

    #[test]
    fn lists_a_structs_keys_as_written_in_toml() {
        assert_eq!(of::<Two>(), ["a", "b_key"]);
        assert!(of::<u32>().is_empty());
    }
}
