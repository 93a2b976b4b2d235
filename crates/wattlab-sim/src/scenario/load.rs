//! Reading a scenario: TOML text → [`Scenario`], with `--set key=value` overrides.

use super::error::ScenarioError;
use super::schema::Scenario;
use serde::Deserialize;

/// Parse scenario text. `origin` names the file in error messages.
pub fn parse(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
    let de = toml::Deserializer::parse(text).map_err(|e| toml_error(origin, text, None, &e))?;
    serde_path_to_error::deserialize::<_, Scenario>(de).map_err(|e| {
        let path = e.path().to_string();
        let key = (path != "." && !path.is_empty()).then_some(path);
        toml_error(origin, text, key, e.inner())
    })
}

fn toml_error(origin: &str, text: &str, key: Option<String>, e: &toml::de::Error) -> ScenarioError {
    ScenarioError::at_span(origin, text, e.span(), key, e.message().trim().to_string())
}

/// Parse scenario text and apply overrides such as `link.wired.rate=10Mbps` or
/// `flow.0.bytes="1MB"`. In a path, an array of tables (`[[link]]`) is indexed by position or
/// by the `name` of an entry. A value is read as TOML, or as a string if it is not valid TOML.
pub fn parse_with_overrides(text: &str, origin: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    let scenario = parse(text, origin)?;
    if overrides.is_empty() {
        return Ok(scenario);
    }
    let mut table: toml::Table = text.parse().map_err(|e: toml::de::Error| toml_error(origin, text, None, &e))?;
    for o in overrides {
        apply_override(&mut table, o)?;
    }
    // Re-parse as text so spanned values deserialize; lines then refer to the generated
    // text, not the user's file, so errors name the overrides instead of a line.
    let desc = format!("{origin} (with --set {})", overrides.join(" "));
    let text = toml::to_string(&table).map_err(|e| ScenarioError::general(&desc, None, e.to_string()))?;
    parse(&text, &desc).map_err(|mut e| {
        e.line = None;
        e.column = None;
        e
    })
}

fn apply_override(table: &mut toml::Table, spec: &str) -> Result<(), ScenarioError> {
    let origin = format!("--set {spec}");
    let (path, raw) = spec
        .split_once('=')
        .ok_or_else(|| ScenarioError::general(&origin, None, "expected key=value"))?;
    let path = path.trim();
    let value = parse_value(raw.trim());
    let parts: Vec<&str> = path.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(ScenarioError::general(&origin, Some(path.into()), "empty path segment"));
    }
    let mut cur: &mut toml::Value = {
        let first = parts[0];
        if parts.len() == 1 {
            table.insert(first.to_string(), value);
            return Ok(());
        }
        table
            .entry(first.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()))
    };
    for (i, part) in parts[1..].iter().enumerate() {
        let last = i + 2 == parts.len();
        cur = match cur {
            toml::Value::Array(items) => {
                let idx = match part.parse::<usize>() {
                    Ok(n) => n,
                    Err(_) => items
                        .iter()
                        .position(|it| it.get("name").and_then(|n| n.as_str()) == Some(part))
                        .ok_or_else(|| {
                            ScenarioError::general(&origin, Some(path.into()), format!("no entry named `{part}`"))
                        })?,
                };
                let len = items.len();
                let item = items.get_mut(idx).ok_or_else(|| {
                    ScenarioError::general(&origin, Some(path.into()), format!("index {idx} out of range (there are {len})"))
                })?;
                if last {
                    *item = value;
                    return Ok(());
                }
                item
            }
            toml::Value::Table(t) => {
                if last {
                    t.insert(part.to_string(), value);
                    return Ok(());
                }
                t.entry(part.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()))
            }
            _ => {
                return Err(ScenarioError::general(
                    &origin,
                    Some(path.into()),
                    format!("`{part}` is inside a value that is neither a table nor an array"),
                ))
            }
        };
    }
    Ok(())
}

/// Read a value as TOML (`10`, `true`, `"5MB"`, `{ p = 0.01 }`), else as a bare string.
fn parse_value(raw: &str) -> toml::Value {
    let doc = format!("v = {raw}");
    match doc.parse::<toml::Table>() {
        Ok(mut t) => t.remove("v").unwrap_or_else(|| toml::Value::String(raw.to_string())),
        Err(_) => toml::Value::String(raw.to_string()),
    }
}

/// Deserialize any sub-structure from a TOML value (used by tests and tools).
pub fn from_value<T: for<'de> Deserialize<'de>>(v: toml::Value) -> Result<T, toml::de::Error> {
    T::deserialize(v)
}
