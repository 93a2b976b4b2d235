//! Helpers of the tests of refused scenarios (`hostile.rs`, `validation.rs`): build from text
//! named `h.toml`, and check where an error points.

use wattlab_sim::scenario::ScenarioError;
use wattlab_sim::{BuildOptions, Simulation};

/// The scenario built from `text` (origin `h.toml`).
pub fn build(text: &str) -> Result<Simulation, ScenarioError> {
    Simulation::from_toml(text, "h.toml", None, &[], &BuildOptions::default())
}

/// The error `text` is refused with.
pub fn error(text: &str) -> ScenarioError {
    build(text).err().expect("the scenario must be refused")
}

/// 1-based line of the first line of `text` containing `needle`.
pub fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).expect("needle in text") + 1
}

/// The error names file, line (of `needle`), column and key, and says `says`.
pub fn assert_located(e: &ScenarioError, text: &str, needle: &str, key: &str, says: &str) {
    assert_eq!(e.origin, "h.toml", "{e}");
    assert_eq!(e.key.as_deref(), Some(key), "{e}");
    assert_eq!(e.line, Some(line_of(text, needle)), "{e}");
    assert!(e.column.is_some(), "{e}");
    assert!(e.message.contains(says), "{e}");
}
