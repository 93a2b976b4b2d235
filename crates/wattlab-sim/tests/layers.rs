//! The simulator's modules import each other one way (issue 17): no `crate::` import cycle
//! between its top-level modules, read from the source (code lines, not comments or tests).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level module → the top-level modules its code names as `crate::x`.
fn imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("source directory") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let rel = p.strip_prefix(src).unwrap().to_string_lossy().replace('\\', "/");
            if !rel.ends_with(".rs") || rel.contains("tests") || rel == "lib.rs" {
                continue;
            }
            let top = rel.split('/').next().unwrap().trim_end_matches(".rs").to_string();
            let text = std::fs::read_to_string(&p).unwrap();
            for line in text.lines().take_while(|l| !l.trim_start().starts_with("#[cfg(test)]")) {
                let code = line.split("//").next().unwrap();
                for (i, _) in code.match_indices("crate::") {
                    let name: String = code[i + 7..].chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect();
                    if !name.is_empty() && name != top {
                        g.entry(top.clone()).or_default().insert(name);
                    }
                }
            }
        }
    }
    g
}

/// A cycle through `start`, if any (depth-first search).
fn cycle_from(g: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    fn walk(g: &BTreeMap<String, BTreeSet<String>>, at: &str, path: &mut Vec<String>, seen: &mut BTreeSet<String>) -> bool {
        for next in g.get(at).into_iter().flatten() {
            if next == &path[0] {
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if walk(g, next, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    walk(g, start, &mut path, &mut BTreeSet::new()).then_some(path)
}

#[test]
fn the_simulators_modules_import_each_other_one_way() {
    let g = imports(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(g.len() > 10, "read the modules: {g:?}");
    for m in g.keys() {
        assert!(cycle_from(&g, m).is_none(), "import cycle: {:?}", cycle_from(&g, m));
    }
}

#[test]
fn a_cycle_is_found() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.entry("sim".into()).or_default().insert("net".into());
    g.entry("net".into()).or_default().insert("wlan".into());
    assert!(cycle_from(&g, "sim").is_none());
    g.entry("wlan".into()).or_default().insert("sim".into());
    assert_eq!(cycle_from(&g, "sim").unwrap(), ["sim", "net", "wlan"]);
}
