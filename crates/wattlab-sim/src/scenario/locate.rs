//! Finding the line of a key inside the n-th entry of an array of tables (`[[flow]]`), for
//! errors about values whose span serde could not keep.

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
}
