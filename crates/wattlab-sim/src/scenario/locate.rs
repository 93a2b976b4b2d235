//! Finding where a key is written, for errors about values whose span serde could not keep:
//! by dotted key path (`flow[0].tcp.min_rto`) in the parsed document, or the line of a key
//! inside the n-th entry of an array of tables (`[[flow]]`).

use std::ops::Range;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// Where inside the value at `path` (a table: `flow[2]`) the text `needle` is written: a key
/// of that name, or a string, integer or float value written as `needle`. Returns the
/// span and the dotted key path (`flow[2].bytes`). Serde loses the spans inside `[[flow]]`
/// tables; their messages quote the offending key or value, which this finds again.
pub fn find_in(source: &str, path: &str, needle: &str) -> Option<(Range<usize>, String)> {
    let doc = super::source::parse_document(source).ok()?;
    let mut value: Option<&Spanned<DeValue>> = None;
    for seg in path.split('.') {
        let (name, index) = match seg.split_once('[') {
            Some((n, rest)) => (n, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (seg, None),
        };
        let table = match value.map(|v| v.get_ref()) {
            None => doc.get_ref(),
            Some(DeValue::Table(t)) => t,
            Some(_) => return None,
        };
        let v = table.iter().find(|(k, _)| k.get_ref().as_ref() == name)?.1;
        value = Some(match (index, v.get_ref()) {
            (None, _) => v,
            (Some(i), DeValue::Array(items)) => items.get(i)?,
            _ => return None,
        });
    }
    search(value?, needle, path)
}

fn search(v: &Spanned<DeValue>, needle: &str, path: &str) -> Option<(Range<usize>, String)> {
    match v.get_ref() {
        DeValue::Table(t) => t.iter().find_map(|(k, v)| {
            let key = format!("{path}.{}", k.get_ref());
            if k.get_ref().as_ref() == needle {
                return Some((k.span(), key));
            }
            search(v, needle, &key)
        }),
        DeValue::Array(items) => items.iter().enumerate().find_map(|(i, v)| search(v, needle, &format!("{path}[{i}]"))),
        DeValue::String(s) if s.as_ref() == needle => Some((v.span(), path.to_string())),
        DeValue::Integer(n) if n.as_str() == needle => Some((v.span(), path.to_string())),
        DeValue::Float(f) if f.as_str() == needle => Some((v.span(), path.to_string())),
        _ => None,
    }
}

/// Byte span of the value at `path` (`wlan[0].ideal_psm_interval`, `flow[2].reader.pause`,
/// `link[1]`) in `source`, or of its deepest ancestor that is written there; None if `source`
/// does not parse or nothing of the path is written. Only for error paths: it parses `source`.
pub fn locate_key(source: &str, path: &str) -> Option<Range<usize>> {
    let doc = super::source::parse_document(source).ok()?;
    let mut found: Option<Range<usize>> = None;
    let mut table: Option<&DeTable> = Some(doc.get_ref());
    let mut value: Option<&Spanned<DeValue>> = None;
    for seg in path.split('.') {
        let (name, index) = match seg.split_once('[') {
            Some((n, rest)) => (n, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (seg, None),
        };
        if let Some(v) = value {
            table = match v.get_ref() {
                DeValue::Table(t) => Some(t),
                _ => None,
            };
        }
        let Some(t) = table else { break };
        let Some((_, v)) = t.iter().find(|(k, _)| k.get_ref().as_ref() == name) else { break };
        value = Some(v);
        found = Some(v.span());
        if let Some(i) = index {
            let DeValue::Array(items) = v.get_ref() else { break };
            let Some(item) = items.get(i) else { break };
            value = Some(item);
            found = Some(item.span());
        }
    }
    found.filter(|r| r.end > r.start || r.start > 0)
}

/// 1-based line of `key = ...` inside the `index`-th `[[table]]` of `source`, or of the
/// table header itself if the key is not written there (e.g. it was defaulted).
pub fn locate_in_array(source: &str, table: &str, index: usize, key: &str) -> Option<usize> {
    let header = format!("[[{table}]]");
    let mut seen = 0usize;
    let mut in_entry = false;
    let mut header_line = None;
    for (n, line) in source.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with('[') {
            if in_entry {
                break; // left the entry without finding the key
            }
            if t.starts_with(&header) {
                if seen == index {
                    in_entry = true;
                    header_line = Some(n + 1);
                }
                seen += 1;
            }
            continue;
        }
        if in_entry {
            if let Some(rest) = t.strip_prefix(key) {
                if rest.trim_start().starts_with('=') {
                    return Some(n + 1);
                }
            }
        }
    }
    header_line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_key_in_nth_entry() {
        let src = "[[flow]]\nkind = \"a\"\nserver = \"x\"\n\n[[flow]]\nkind = \"b\"\nserver = \"y\"\n[other]\n";
        assert_eq!(locate_in_array(src, "flow", 0, "server"), Some(3));
        assert_eq!(locate_in_array(src, "flow", 1, "server"), Some(7));
        assert_eq!(locate_in_array(src, "flow", 1, "port"), Some(5));
        assert_eq!(locate_in_array(src, "flow", 2, "server"), None);
    }

    #[test]
    fn finds_a_quoted_key_or_value_inside_a_table() {
        let src = "[[flow]]\nkind = \"a\"\nbytes = \"1e30B\"\ntcp = { mss = 70000, cc = \"x\" }\n";
        let at = |needle| find_in(src, "flow[0]", needle).map(|(r, k)| (crate::scenario::error::line_col(src, r.start), k));
        assert_eq!(at("1e30B"), Some(((3, 9), "flow[0].bytes".to_string())));
        assert_eq!(at("70000"), Some(((4, 15), "flow[0].tcp.mss".to_string())));
        assert_eq!(at("cc"), Some(((4, 22), "flow[0].tcp.cc".to_string())));
        assert_eq!(at("nothing"), None);
    }

    #[test]
    fn locates_dotted_paths_and_falls_back_to_the_deepest_ancestor() {
        let src = "[[flow]]\nkind = \"a\"\n\n[[flow]]\nkind = \"b\"\ntcp = { min_rto = \"0s\" }\n";
        let line = |p| locate_key(src, p).map(|r| crate::scenario::error::line_col(src, r.start));
        assert_eq!(line("flow[1].tcp.min_rto"), Some((6, 19)));
        assert_eq!(line("flow[1].kind"), Some((5, 8)));
        assert_eq!(line("flow[1].tcp.nothing").map(|l| l.0), Some(6));
        assert_eq!(line("nothing"), None);
        assert_eq!(locate_key("x = [", "x"), None);
    }
}
