//! Records the git commit the simulator was built from (`WATTLAB_COMMIT`), so that every run's
//! summary says which version made it. Outside a git checkout (a source tarball) it is unset.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // A new commit, a checkout or an edit anywhere in the sources changes the answer.
    for p in [".git/HEAD", ".git/refs/heads", ".git/packed-refs", "crates", "python", "profiles", "Cargo.toml", "Cargo.lock"] {
        let path = root.join(p);
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    let dir = root.to_string_lossy().to_string();
    if let Some(commit) = git(&["-C", &dir, "rev-parse", "--short=12", "HEAD"]) {
        let dirty = git(&["-C", &dir, "status", "--porcelain", "--untracked-files=no", "--", "crates", "python", "profiles", "Cargo.toml", "Cargo.lock"])
            .is_some_and(|s| !s.is_empty());
        println!("cargo:rustc-env=WATTLAB_COMMIT={commit}{}", if dirty { "-dirty" } else { "" });
    }
}
