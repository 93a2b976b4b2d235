//! What made a run: the scenario (path and hash), the overrides, the seed and wattlab's
//! version, written into every summary so a result can be traced back and rerun.

use serde::Serialize;
use sha2::{Digest, Sha256};

/// The inputs and the version behind one run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Provenance {
    /// Where the scenario came from (its path, or `<scenario>` for text).
    pub scenario: String,
    /// SHA-256 of the scenario text as given (before overrides), hex.
    pub scenario_sha256: String,
    /// The `--set key=value` overrides, in order.
    pub overrides: Vec<String>,
    /// The seed every random stream derives from.
    pub seed: u64,
    /// wattlab's version.
    pub wattlab_version: String,
    /// The git commit the simulator was built from (`-dirty` with uncommitted changes to its
    /// sources), or `unknown` outside a git checkout.
    pub commit: String,
    /// Set on a baseline run only: what was turned off in the scenario above (the user's file,
    /// its hash and overrides) to make it (`power saving off: wlan.bss (psm)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// The device profile files the scenario names by path, each `PATH sha256:HEX` (absent
    /// when every radio uses a built-in profile).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub profile_files: Vec<String>,
    /// When the run starts in its captures (RFC 3339; `output.pcap_epoch`): present when a
    /// capture was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pcap_epoch: Option<String>,
}

impl Provenance {
    /// The provenance of a run of `text` (from `origin`) with `overrides` and `seed`.
    pub fn new(text: &str, origin: &str, overrides: &[String], seed: u64) -> Provenance {
        Provenance {
            scenario: origin.to_string(),
            scenario_sha256: sha256_hex(text.as_bytes()),
            overrides: overrides.to_vec(),
            seed,
            wattlab_version: env!("CARGO_PKG_VERSION").to_string(),
            commit: commit().to_string(),
            baseline: None,
            profile_files: Vec::new(),
            pcap_epoch: None,
        }
    }

    /// The provenance of a run of `source` (its text as given, origin and overrides) with `seed`.
    pub fn of(source: &crate::scenario::ScenarioSource, seed: u64) -> Provenance {
        Provenance::new(&source.text, &source.origin_name(), &source.overrides, seed)
    }

    /// This provenance for the baseline of the run: the same file, hash, overrides and seed,
    /// and what was turned off (`description`).
    pub fn for_baseline(&self, description: String) -> Provenance {
        Provenance { baseline: Some(description), ..self.clone() }
    }
}

/// SHA-256 of `bytes`, hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The git commit wattlab was built from (see `build.rs`), or `unknown`.
pub fn commit() -> &'static str {
    option_env!("WATTLAB_COMMIT").unwrap_or("unknown")
}
