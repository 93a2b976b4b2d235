//! Scenario errors that point at the file, line and key a user must fix.

use std::fmt;
use std::ops::Range;

/// A problem in a scenario: where it is and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file (or `--set` override) the problem is in.
    pub origin: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// Dotted key path, e.g. `link[0].rate`, when known.
    pub key: Option<String>,
    /// What is wrong, and what would be right.
    pub message: String,
}

impl ScenarioError {
    /// An error located by a byte span of `source`.
    pub fn at_span(origin: &str, source: &str, span: Option<Range<usize>>, key: Option<String>, message: impl Into<String>) -> Self {
        let (line, column) = match span {
            Some(r) if r.end > 0 || r.start > 0 => {
                let (l, c) = line_col(source, r.start);
                (Some(l), Some(c))
            }
            _ => (None, None),
        };
        ScenarioError { origin: origin.to_string(), line, column, key, message: message.into() }
    }

    /// An error about the value at dotted key path `key` (`wlan[0].beacon_interval`), located
    /// in `source` by that path (see [`super::locate::locate_key`]).
    pub fn at_key(origin: &str, source: &str, key: &str, message: impl Into<String>) -> Self {
        let span = super::locate::locate_key(source, key);
        Self::at_span(origin, source, span, Some(key.to_string()), message)
    }

    /// This error with a line and column found from its key in `source`, if it has none yet.
    pub fn located_in(mut self, source: &str) -> Self {
        if self.line.is_none() {
            if let Some(r) = self.key.as_deref().and_then(|k| super::locate::locate_key(source, k)) {
                let (l, c) = line_col(source, r.start);
                self.line = Some(l);
                self.column = Some(c);
            }
        }
        self
    }

    /// An error with no position (e.g. about the scenario as a whole).
    pub fn general(origin: &str, key: Option<String>, message: impl Into<String>) -> Self {
        ScenarioError { origin: origin.to_string(), line: None, column: None, key, message: message.into() }
    }
}

/// 1-based (line, column) of a byte offset.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = &source[..offset];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let col = before.rfind('\n').map(|i| offset - i).unwrap_or(offset + 1);
    (line, col)
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.origin)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        write!(f, ": ")?;
        if let Some(k) = &self.key {
            write!(f, "key `{k}`: ")?;
        }
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for ScenarioError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_are_one_based() {
        let src = "a = 1\nbb = 2\n";
        assert_eq!(line_col(src, 0), (1, 1));
        assert_eq!(line_col(src, 6), (2, 1));
        assert_eq!(line_col(src, 9), (2, 4));
        let e = ScenarioError::at_span("x.toml", src, Some(6..8), Some("bb".into()), "bad");
        assert_eq!(e.to_string(), "x.toml:2:1: key `bb`: bad");
    }
}
