//! Reading a scenario: TOML text → [`Scenario`], with `--set key=value` overrides.

use super::error::ScenarioError;
use super::schema::Scenario;
use super::source::ScenarioSource;
use serde::Deserialize;
use toml::de::DeTable;
use toml::Spanned;

/// Largest scenario text accepted (16 MiB; the 20,000-node tree of the tests is 2 MB): a
/// larger input is refused before it is parsed, so memory stays bounded whatever is given.
pub const MAX_SCENARIO_BYTES: usize = 16 << 20;

/// Parse scenario text (no overrides). `origin` names the file in error messages.
pub fn parse(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
    if text.len() > MAX_SCENARIO_BYTES {
        return Err(too_large(origin, text.len() as u64));
    }
    let root = super::source::parse_document(text).map_err(|e| toml_error(origin, text, None, &e))?;
    deserialize(root, text, origin)
}

/// The typed scenario of a parsed document whose spans point into `text`.
pub(crate) fn deserialize(root: Spanned<DeTable<'_>>, text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
    let mut scn = serde_path_to_error::deserialize::<_, Scenario>(toml::de::Deserializer::from(root)).map_err(|e| {
        let path = e.path().to_string();
        let key = (path != "." && !path.is_empty()).then_some(path);
        let err = toml_error(origin, text, key, e.inner());
        refine_in_flow(err, text)
    })?;
    super::power_save::normalize(&mut scn, origin, text)?;
    Ok(scn)
}

pub(crate) fn too_large(origin: &str, len: u64) -> ScenarioError {
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

/// An error about a whole `[[flow]]` table (serde buffers those and loses the spans inside):
/// moved to the key or value its message quotes (`unknown field `reder``, `size `1e30B` ...`),
/// with that key's path, when the flow's table has it.
fn refine_in_flow(mut err: ScenarioError, text: &str) -> ScenarioError {
    let Some(key) = err.key.clone().filter(|k| k.starts_with("flow[") && k.ends_with(']')) else { return err };
    // Every quoted piece, in order: `Tbps` in "unknown rate unit `Tbps` in `1Tbps`" is not
    // written alone, `1Tbps` is.
    let quoted: Vec<&str> = err.message.split('`').skip(1).step_by(2).collect();
    if let Some((span, path)) = quoted.iter().find_map(|q| super::locate::find_in(text, &key, q)) {
        let (line, col) = super::error::line_col(text, span.start);
        err.line = Some(line);
        err.column = Some(col);
        err.key = Some(path);
    }
    err
}

pub(crate) fn toml_error(origin: &str, text: &str, key: Option<String>, e: &toml::de::Error) -> ScenarioError {
    ScenarioError::at_span(origin, text, e.span(), key, e.message().trim().to_string())
}

/// [`parse_with_overrides`], also returning the effective text (the overridden table as
/// TOML, None without overrides). Parses the text once ([`ScenarioSource`]).
pub fn parse_effective(text: &str, origin: &str, overrides: &[String]) -> Result<(Scenario, Option<String>), ScenarioError> {
    let parsed = ScenarioSource::from_text(text, origin).with_overrides(overrides.to_vec()).parse()?;
    let generated = (!overrides.is_empty()).then(|| parsed.effective_text().to_string());
    Ok((parsed.scenario, generated))
}

/// How errors name a scenario read with overrides: `FILE (with --set a=1 b=2)`.
pub fn with_overrides(origin: &str, overrides: &[String]) -> String {
    format!("{origin} (with --set {})", overrides.join(" "))
}

/// Parse scenario text and apply overrides such as `link.wired.rate=10Mbps` or
/// `flow.0.bytes="1MB"` (see [`ScenarioSource`]). In a path, an array of tables (`[[link]]`) is
/// indexed by position or by the `name` of an entry. A value is read as TOML, or as a string if
/// it is not valid TOML.
pub fn parse_with_overrides(text: &str, origin: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    ScenarioSource::from_text(text, origin).with_overrides(overrides.to_vec()).parse().map(|p| p.scenario)
}

/// The effective scenario with every station's power saving off, as TOML (see
/// [`Scenario::baseline`]); `None` if no station uses a power-save mode.
pub fn without_power_save(text: &str, origin: &str, overrides: &[String]) -> Result<Option<String>, ScenarioError> {
    let parsed = ScenarioSource::from_text(text, origin).with_overrides(overrides.to_vec()).parse_keeping(true)?;
    match parsed.scenario.baseline() {
        None => Ok(None),
        Some(b) => parsed.baseline_text(&b).expect("the table was kept").map(Some),
    }
}

/// Deserialize any sub-structure from a TOML value (used by tests and tools).
pub fn from_value<T: for<'de> Deserialize<'de>>(v: toml::Value) -> Result<T, toml::de::Error> {
    T::deserialize(v)
}
