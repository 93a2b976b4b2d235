//! Reading a scenario: TOML text → [`Scenario`], with `--set key=value` overrides.

use super::error::ScenarioError;
use super::schema::Scenario;
use serde::Deserialize;
use toml::de::DeTable;

/// Largest scenario text accepted (16 MiB; the 20,000-node tree of the tests is 2 MB): a
/// larger input is refused before it is parsed, so memory stays bounded whatever is given.
pub const MAX_SCENARIO_BYTES: usize = 16 << 20;

/// Parse scenario text. `origin` names the file in error messages. The `[[flow]]` tables are
/// read in a second stage, each by its kind ([`super::flow::read_flows`]).
pub fn parse(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
    if text.len() > MAX_SCENARIO_BYTES {
        return Err(too_large(origin, text.len() as u64));
    }
    let mut doc = DeTable::parse(text).map_err(|e| toml_error(origin, text, None, &e))?;
    let flows = doc.get_mut().remove("flow");
    let mut scenario = serde_path_to_error::deserialize::<_, Scenario>(toml::Deserializer::from(doc)).map_err(|e| {
        let path = e.path().to_string();
        let key = (path != "." && !path.is_empty()).then_some(path);
        toml_error(origin, text, key, e.inner())
    })?;
    scenario.flows = super::flow::read_flows(flows, text, origin)?;
    Ok(scenario)
}

fn too_large(origin: &str, len: u64) -> ScenarioError {
    ScenarioError::general(origin, None, format!(
        "the scenario is {len} bytes, more than the {} MiB a scenario may have",
        MAX_SCENARIO_BYTES >> 20
    ))
}

/// Read a scenario file: a regular file of at most [`MAX_SCENARIO_BYTES`] of UTF-8 text.
/// Devices, FIFOs and directories are refused by what they are (`/dev/zero` is never read to
/// the end), and a file that grows past the limit while it is read is refused too.
pub fn read_file(path: &std::path::Path) -> Result<String, ScenarioError> {
    use std::io::Read;
    let origin = path.display().to_string();
    let err = |m: String| ScenarioError::general(&origin, None, m);
    let meta = std::fs::metadata(path).map_err(|e| err(io_reason(&e)))?;
    if meta.is_dir() {
        return Err(err("is a directory, not a scenario file".into()));
    }
    if !meta.is_file() {
        return Err(err("is not a regular file (a device, FIFO or socket): give a scenario file".into()));
    }
    if meta.len() > MAX_SCENARIO_BYTES as u64 {
        return Err(too_large(&origin, meta.len()));
    }
    let file = std::fs::File::open(path).map_err(|e| err(io_reason(&e)))?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_SCENARIO_BYTES as u64 + 1).read_to_end(&mut bytes).map_err(|e| err(io_reason(&e)))?;
    if bytes.len() > MAX_SCENARIO_BYTES {
        return Err(too_large(&origin, bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let text = String::from_utf8_lossy(&e.as_bytes()[..at]).into_owned();
        ScenarioError::at_span(&origin, &text, Some(at..at + 1), None, format!("not UTF-8 text (byte {at})"))
    })
}

/// What an I/O error means, without Rust's `(os error N)` suffix.
fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => {
            let s = e.to_string();
            s.split(" (os error").next().unwrap_or(&s).to_string()
        }
    }
}

fn toml_error(origin: &str, text: &str, key: Option<String>, e: &toml::de::Error) -> ScenarioError {
    ScenarioError::at_span(origin, text, e.span(), key, e.message().trim().to_string())
}

/// [`parse_with_overrides`], also returning the text the scenario was finally parsed from
/// (the overridden table as TOML, None without overrides), whose spans its values carry.
pub fn parse_effective(text: &str, origin: &str, overrides: &[String]) -> Result<(Scenario, Option<String>), ScenarioError> {
    let scenario = parse(text, origin)?;
    if overrides.is_empty() {
        return Ok((scenario, None));
    }
    let table = overridden_table(text, origin, overrides)?;
    let desc = with_overrides(origin, overrides);
    let generated = toml::to_string(&table).map_err(|e| ScenarioError::general(&desc, None, e.to_string()))?;
    let scenario = parse(&generated, &desc).map_err(|mut e| {
        e.line = None;
        e.column = None;
        e
    })?;
    Ok((scenario, Some(generated)))
}

/// How errors name a scenario read with overrides: `FILE (with --set a=1 b=2)`.
pub fn with_overrides(origin: &str, overrides: &[String]) -> String {
    format!("{origin} (with --set {})", overrides.join(" "))
}

/// Parse scenario text and apply overrides such as `link.wired.rate=10Mbps` or
/// `flow.0.bytes="1MB"`. In a path, an array of tables (`[[link]]`) is indexed by position or
/// by the `name` of an entry. A value is read as TOML, or as a string if it is not valid TOML.
pub fn parse_with_overrides(text: &str, origin: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    // Re-parsed as text so spanned values deserialize; lines then refer to the generated
    // text, not the user's file, so errors name the overrides instead of a line.
    parse_effective(text, origin, overrides).map(|(s, _)| s)
}

/// The scenario's table with `overrides` applied.
fn overridden_table(text: &str, origin: &str, overrides: &[String]) -> Result<toml::Table, ScenarioError> {
    let mut table: toml::Table = text.parse().map_err(|e: toml::de::Error| toml_error(origin, text, None, &e))?;
    for o in overrides {
        apply_override(&mut table, o)?;
    }
    Ok(table)
}

fn to_text(table: &toml::Table, origin: &str, header: &str) -> Result<String, ScenarioError> {
    let body = toml::to_string(table).map_err(|e| ScenarioError::general(origin, None, e.to_string()))?;
    Ok(format!("{header}{body}"))
}

/// The scenario that runs: `text` itself without overrides, else its table with `overrides`
/// applied (as TOML, under a comment naming the file and the overrides; comments are lost).
pub fn effective_text(text: &str, origin: &str, overrides: &[String]) -> Result<String, ScenarioError> {
    if overrides.is_empty() {
        return Ok(text.to_string());
    }
    let table = overridden_table(text, origin, overrides)?;
    to_text(&table, origin, &format!("# {origin} with --set {}\n", overrides.join(" --set ")))
}

/// The effective scenario with every station's power saving off (`power_save = "cam"` on
/// each `[[wireless]]` hop, `[[wlan]]` and `[[wlan.station]]`, no agent settings and no
/// `[[tunnel]]`): the same traffic without the scheme, the baseline of a power mode's saving. A
/// scheme that is also a transport is replaced by the legacy transport it replaces: a
/// `psna-read`/`psna-send` flow (seed 001's split connection) becomes end-to-end TCP,
/// `bulk-download`/`bulk-upload`, as the paper's legacy baseline. `None` if no station uses a
/// power-save mode (nothing to turn off).
pub fn without_power_save(text: &str, origin: &str, overrides: &[String]) -> Result<Option<String>, ScenarioError> {
    let mut table = overridden_table(text, origin, overrides)?;
    let mut changed = Vec::new();
    let mut cam = |t: &mut toml::Table, what: String| {
        let mode = t.get("power_save").and_then(|v| v.as_str()).unwrap_or("cam");
        if mode != "cam" {
            changed.push(format!("{what} ({mode})"));
            t.insert("power_save".into(), toml::Value::String("cam".into()));
        }
        t.remove("agent");
    };
    if let Some(hops) = table.get_mut("wireless").and_then(|v| v.as_array_mut()) {
        for (i, h) in hops.iter_mut().enumerate() {
            if let Some(t) = h.as_table_mut() {
                let name = t.get("name").and_then(|v| v.as_str()).map_or(format!("wireless.{i}"), |n| format!("wireless.{n}"));
                cam(t, name);
            }
        }
    }
    if let Some(bsss) = table.get_mut("wlan").and_then(|v| v.as_array_mut()) {
        for (i, b) in bsss.iter_mut().enumerate() {
            let Some(t) = b.as_table_mut() else { continue };
            let name = t.get("name").and_then(|v| v.as_str()).map_or(format!("wlan.{i}"), |n| format!("wlan.{n}"));
            if let Some(stations) = t.get_mut("station").and_then(|v| v.as_array_mut()) {
                for (j, st) in stations.iter_mut().enumerate() {
                    if let Some(st) = st.as_table_mut() {
                        let node = st.get("node").and_then(|v| v.as_str()).map_or(format!("{j}"), str::to_string);
                        cam(st, format!("{name}.station.{node}"));
                    }
                }
            }
            cam(t, name);
        }
    }
    // The SCTP tunnel exists to save energy: the baseline carries the flows without it.
    if table.remove("tunnel").is_some() {
        changed.push("[[tunnel]] (removed)".into());
    }
    if changed.is_empty() {
        return Ok(None);
    }
    legacy_transport(&mut table, &mut changed);
    let sets = if overrides.is_empty() { String::new() } else { format!(" with --set {}", overrides.join(" --set ")) };
    to_text(&table, origin, &format!("# {origin}{sets}, power saving off: {}\n", changed.join(", "))).map(Some)
}

/// Turns each split-connection PSNA flow into the end-to-end TCP transfer it stands for.
fn legacy_transport(table: &mut toml::Table, changed: &mut Vec<String>) {
    let Some(flows) = table.get_mut("flow").and_then(|v| v.as_array_mut()) else { return };
    for (i, f) in flows.iter_mut().enumerate() {
        let Some(t) = f.as_table_mut() else { continue };
        let legacy = match t.get("kind").and_then(|v| v.as_str()) {
            Some("psna-read") => "bulk-download",
            Some("psna-send") => "bulk-upload",
            _ => continue,
        };
        let name = t.get("name").and_then(|v| v.as_str()).map_or(format!("flow.{i}"), |n| format!("flow {n}"));
        changed.push(format!("{name} as legacy TCP ({legacy})"));
        t.insert("kind".into(), toml::Value::String(legacy.into()));
        t.remove("psna");
    }
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
