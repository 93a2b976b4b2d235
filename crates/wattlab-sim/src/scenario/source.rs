//! A scenario as the user gave it (text, where it came from, `--set` overrides) and its one
//! parse: the TOML document is read once into a spanned table, the overrides are applied to
//! that table, and the typed [`Scenario`] is deserialized from it. Values keep the spans of the
//! user's file, so errors point into it; a value an override wrote has no span (errors about it
//! name the overrides and the line of its key in the file, when written there).

use super::error::ScenarioError;
use super::load::{read_file, too_large, MAX_SCENARIO_BYTES};
use super::schema::Scenario;
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// Where a scenario's text came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A file, by the path the user gave.
    Path(PathBuf),
    /// Text given directly, by the name errors give it (`<scenario>`).
    Name(String),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Path(p) => write!(f, "{}", p.display()),
            Origin::Name(n) => f.write_str(n),
        }
    }
}

/// A scenario as given: its text, its origin and the `key=value` overrides to apply to it.
#[derive(Clone, Debug)]
pub struct ScenarioSource {
    /// The TOML text as given (the user's file, unchanged).
    pub text: String,
    /// Where it came from.
    pub origin: Origin,
    /// `--set key=value` overrides, applied in order.
    pub overrides: Vec<String>,
}

impl ScenarioSource {
    /// Read a scenario file (see [`read_file`]: bounded, regular files of UTF-8 only).
    pub fn from_file(path: &Path) -> Result<ScenarioSource, ScenarioError> {
        Ok(ScenarioSource { text: read_file(path)?, origin: Origin::Path(path.to_path_buf()), overrides: Vec::new() })
    }

    /// Scenario text given directly; `name` stands for the file in errors.
    pub fn from_text(text: impl Into<String>, name: impl Into<String>) -> ScenarioSource {
        ScenarioSource { text: text.into(), origin: Origin::Name(name.into()), overrides: Vec::new() }
    }

    /// The same source with these overrides (replacing any it had).
    pub fn with_overrides(mut self, overrides: Vec<String>) -> ScenarioSource {
        self.overrides = overrides;
        self
    }

    /// How errors and provenance name the scenario: the path, or the name given.
    pub fn origin_name(&self) -> String {
        self.origin.to_string()
    }

    /// How errors about the overridden scenario name it: `FILE (with --set a=1 b=2)`.
    pub fn origin_with_overrides(&self) -> String {
        super::load::with_overrides(&self.origin_name(), &self.overrides)
    }

    /// Parse the text once, apply the overrides and deserialize the typed scenario.
    pub fn parse(self) -> Result<ParsedScenario, ScenarioError> {
        self.parse_keeping(false)
    }

    /// [`parse`](Self::parse); `keep_table` also keeps the effective TOML table (always kept
    /// with overrides), from which the baseline's text is written ([`ParsedScenario::baseline_text`]).
    pub fn parse_keeping(self, keep_table: bool) -> Result<ParsedScenario, ScenarioError> {
        let origin = self.origin_name();
        if self.text.len() > MAX_SCENARIO_BYTES {
            return Err(too_large(&origin, self.text.len() as u64));
        }
        // The override values' own small documents (`v = VALUE`) must outlive the table they go in.
        let values: Vec<(String, String)> = self.overrides.iter().map(|o| override_parts(o)).collect::<Result<_, _>>()?;
        let mut root = parse_document(&self.text).map_err(|e| super::load::toml_error(&origin, &self.text, None, &e))?;
        for (spec, (path, raw)) in self.overrides.iter().zip(&values) {
            apply_override(root.get_mut(), spec, path, raw)?;
        }
        let table = (keep_table || !self.overrides.is_empty()).then(|| root.clone());
        let scenario = super::load::deserialize(root, &self.text, &origin).map_err(|mut e| {
            // An error with a place is in the user's file; one without is in what the
            // overrides wrote (their values have no span).
            if !self.overrides.is_empty() && e.line.is_none() {
                e.origin = self.origin_with_overrides();
            }
            e
        })?;
        let table = match table {
            None => None,
            Some(t) => Some(to_table(t).map_err(|e| ScenarioError::general(&self.origin_with_overrides(), None, e.to_string()))?),
        };
        let effective = match (&table, self.overrides.is_empty()) {
            (Some(t), false) => Some(render(t, &origin, &format!("# {origin} with --set {}\n", self.overrides.join(" --set ")))?),
            _ => None,
        };
        Ok(ParsedScenario { source: self, scenario, table, effective })
    }
}

/// A scenario parsed from its [`ScenarioSource`]: the typed scenario the overrides made, and
/// the text that runs.
#[derive(Clone, Debug)]
pub struct ParsedScenario {
    /// What was parsed.
    pub source: ScenarioSource,
    /// The typed scenario, overrides applied; spans point into `source.text`.
    pub scenario: Scenario,
    /// The effective document as a TOML table (with overrides, or when asked for).
    table: Option<toml::Table>,
    /// The effective text when it is not the source's own (overrides applied).
    effective: Option<String>,
}

impl ParsedScenario {
    /// The scenario that runs, as TOML: the source text itself without overrides, else its
    /// table with the overrides applied under a comment naming the file and the overrides
    /// (comments are lost).
    pub fn effective_text(&self) -> &str {
        self.effective.as_deref().unwrap_or(&self.source.text)
    }

    /// The baseline's scenario as TOML: the effective table with `baseline`'s edits, under a
    /// comment naming the file, the overrides and what was turned off. None if the table was
    /// not kept (see [`ScenarioSource::parse_keeping`]).
    pub fn baseline_text(&self, baseline: &super::baseline::Baseline) -> Option<Result<String, ScenarioError>> {
        let mut table = self.table.clone()?;
        for edit in &baseline.edits {
            edit.apply(&mut table);
        }
        let origin = self.source.origin_name();
        let sets = if self.source.overrides.is_empty() {
            String::new()
        } else {
            format!(" with --set {}", self.source.overrides.join(" --set "))
        };
        Some(render(&table, &origin, &format!("# {origin}{sets}, power saving off: {}\n", baseline.changes.join(", "))))
    }
}

static DOCUMENT_PARSES: AtomicU64 = AtomicU64::new(0);

/// How many scenario documents the TOML parser has read in this process: every parse of
/// scenario text (a run's, and the error paths' that look a key up again) goes through
/// [`parse_document`]. What the "parsed once" tests count.
pub fn document_parses() -> u64 {
    DOCUMENT_PARSES.load(Ordering::Relaxed)
}

/// Parse scenario text into a spanned table (the one place scenario text meets the parser).
pub(crate) fn parse_document(text: &str) -> Result<Spanned<DeTable<'_>>, toml::de::Error> {
    DOCUMENT_PARSES.fetch_add(1, Ordering::Relaxed);
    DeTable::parse(text)
}

fn to_table(t: Spanned<DeTable<'_>>) -> Result<toml::Table, toml::de::Error> {
    use serde::Deserialize;
    toml::Table::deserialize(toml::de::Deserializer::from(t))
}

fn render(table: &toml::Table, origin: &str, header: &str) -> Result<String, ScenarioError> {
    let body = toml::to_string(table).map_err(|e| ScenarioError::general(origin, None, e.to_string()))?;
    Ok(format!("{header}{body}"))
}

/// `key=value` split (the key trimmed), and the value as a one-key document `v = VALUE`.
fn override_parts(spec: &str) -> Result<(String, String), ScenarioError> {
    let (path, raw) = spec
        .split_once('=')
        .ok_or_else(|| ScenarioError::general(&format!("--set {spec}"), None, "expected key=value"))?;
    Ok((path.trim().to_string(), format!("v = {}", raw.trim())))
}

/// The value of an override: its text read as TOML (`10`, `true`, `"5MB"`, `{ p = 0.01 }`),
/// else as a bare string; with no spans (it is not in the user's file).
fn override_value<'i>(doc: &'i str) -> Spanned<DeValue<'i>> {
    let raw = &doc["v = ".len()..];
    // A value's own one-line document, not the scenario's (not counted as a scenario parse).
    let parsed = DeTable::parse(doc).ok().and_then(|t| t.into_inner().remove("v"));
    let mut v = parsed.unwrap_or_else(|| Spanned::new(0..0, DeValue::String(Cow::Borrowed(raw))));
    unspan(&mut v);
    v
}

/// `v` and everything in it with no span (0..0: "not written in the file").
fn unspan(v: &mut Spanned<DeValue<'_>>) {
    let inner = std::mem::replace(v, Spanned::new(0..0, DeValue::Boolean(false))).into_inner();
    *v = Spanned::new(0..0, inner);
    match v.get_mut() {
        DeValue::Array(items) => items.iter_mut().for_each(unspan),
        DeValue::Table(t) => {
            for (k, mut item) in std::mem::take(t) {
                unspan(&mut item);
                t.insert(Spanned::new(0..0, k.into_inner()), item);
            }
        }
        _ => {}
    }
}

fn key<'i>(name: &str) -> Spanned<Cow<'i, str>> {
    Spanned::new(0..0, Cow::Owned(name.to_string()))
}

fn new_table<'i>() -> Spanned<DeValue<'i>> {
    Spanned::new(0..0, DeValue::Table(DeTable::new()))
}

/// `power_save = "NAME"` becomes `{ mode = "NAME" }` when an override sets a key inside it
/// (`wireless.0.power_save.listen_interval=2`).
fn power_save_as_table<'i>(t: &mut DeTable<'i>) {
    if let Some(v) = t.get_mut("power_save") {
        if let DeValue::String(name) = v.get_ref() {
            let mut mode = DeTable::new();
            mode.insert(key("mode"), Spanned::new(v.span(), DeValue::String(name.clone())));
            *v = Spanned::new(v.span(), DeValue::Table(mode));
        }
    }
}

/// `power_save=NAME` on a section whose `power_save` is a table sets its `mode` and keeps its
/// settings; any other value replaces the key.
fn set_power_save<'i>(t: &mut DeTable<'i>, value: Spanned<DeValue<'i>>) {
    if let (Some(ps), DeValue::String(_)) = (t.get_mut("power_save"), value.get_ref()) {
        if let DeValue::Table(ps) = ps.get_mut() {
            ps.insert(key("mode"), value);
            return;
        }
    }
    t.insert(key("power_save"), value);
}

/// Apply one override such as `link.wired.rate=10Mbps` or `flow.0.bytes="1MB"`: in a path, an
/// array of tables (`[[link]]`) is indexed by position or by the `name` of an entry.
fn apply_override<'i>(table: &mut DeTable<'i>, spec: &str, path: &str, doc: &'i str) -> Result<(), ScenarioError> {
    let origin = format!("--set {spec}");
    let value = override_value(doc);
    let parts: Vec<&str> = path.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(ScenarioError::general(&origin, Some(path.into()), "empty path segment"));
    }
    if parts.len() == 1 {
        table.insert(key(parts[0]), value);
        return Ok(());
    }
    let mut cur: &mut Spanned<DeValue<'i>> = table.entry(key(parts[0])).or_insert_with(new_table);
    for (i, part) in parts[1..].iter().enumerate() {
        let last = i + 2 == parts.len();
        cur = match cur.get_mut() {
            DeValue::Array(items) => {
                let idx = match part.parse::<usize>() {
                    Ok(n) => n,
                    Err(_) => items
                        .iter()
                        .position(|it| it.get_ref().get("name").and_then(|n| n.get_ref().as_str()) == Some(part))
                        .ok_or_else(|| ScenarioError::general(&origin, Some(path.into()), format!("no entry named `{part}`")))?,
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
            DeValue::Table(t) => {
                if *part == "power_save" {
                    if last {
                        set_power_save(t, value);
                        return Ok(());
                    }
                    power_save_as_table(t);
                }
                if last {
                    t.insert(key(part), value);
                    return Ok(());
                }
                t.entry(key(part)).or_insert_with(new_table)
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

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "name = \"t\"\n[[node]]\nname = \"a\"\nkind = \"host\"\n[[node]]\nname = \"b\"\nkind = \"host\"\n\
        [[link]]\nname = \"l\"\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n";

    #[test]
    fn overrides_reach_the_typed_scenario_and_the_effective_text() {
        let sets = vec!["link.l.rate=1Mbps".to_string(), "simulation.seed=7".to_string()];
        let p = ScenarioSource::from_text(TEXT, "t.toml").with_overrides(sets).parse().unwrap();
        assert_eq!(p.scenario.links[0].rate.bps(), 1_000_000);
        assert_eq!(p.scenario.simulation.seed, 7);
        assert!(p.effective_text().starts_with("# t.toml with --set link.l.rate=1Mbps --set simulation.seed=7\n"));
        // Values not overridden keep their place in the user's file.
        assert_eq!(&TEXT[p.scenario.links[0].a.span()], "\"a\"");
        // Without overrides the effective text is the file itself.
        let p = ScenarioSource::from_text(TEXT, "t.toml").parse().unwrap();
        assert_eq!(p.effective_text(), TEXT);
    }

    #[test]
    fn one_document_parse_whatever_the_overrides() {
        let sets: Vec<String> = (0..5).map(|i| format!("simulation.seed={i}")).collect();
        let before = document_parses();
        ScenarioSource::from_text(TEXT, "t.toml").with_overrides(sets).parse_keeping(true).unwrap();
        // Other tests parse on other threads at the same time: at least one, and this parse
        // added one (checked exactly by the integration test `parse_once`, alone in its process).
        assert!(document_parses() > before);
    }

    #[test]
    fn bad_overrides_name_themselves() {
        let err = |s: &str| ScenarioSource::from_text(TEXT, "t.toml").with_overrides(vec![s.into()]).parse().unwrap_err();
        assert_eq!(err("link.x.rate=1").message, "no entry named `x`");
        assert_eq!(err("link.5.rate=1").message, "index 5 out of range (there are 1)");
        assert_eq!(err("name.x=1").message, "`x` is inside a value that is neither a table nor an array");
        assert_eq!(err("nokey").message, "expected key=value");
        let e = err("link.l.rate=10Mbit");
        assert!(e.origin.starts_with("t.toml (with --set link.l.rate=10Mbit)"), "{e}");
        assert_eq!(e.line, None, "{e}");
        // An error in the file itself keeps its line, overrides or not.
        let bad = TEXT.replace("delay = \"1ms\"", "delay = \"1 parsec\"");
        let e = ScenarioSource::from_text(bad.clone(), "t.toml").with_overrides(vec!["simulation.seed=1".into()]).parse().unwrap_err();
        assert_eq!((e.origin.as_str(), e.line), ("t.toml", Some(13)), "{e}");
    }
}
