//! A scenario is parsed once (issue 28): a run with `--set` overrides and a power mode, its
//! baseline and their savings all come from one parse of the TOML document, and the baseline's
//! provenance names the user's file, its SHA-256 and the overrides. One test in this file: the
//! parse counter is per process, and no other test may parse beside it.

use sha2::{Digest, Sha256};
use std::path::Path;
use wattlab_sim::scenario::{document_parses, ScenarioSource};
use wattlab_sim::{run, BaselineChoice, RunOptions};

#[test]
fn a_run_with_overrides_and_a_power_mode_parses_its_scenario_once() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/demo.toml");
    let sets = vec!["wireless.wlan.power_save=psm".to_string(), "flow.download.bytes=\"1MB\"".to_string()];
    let source = ScenarioSource::from_file(&path).unwrap().with_overrides(sets.clone());
    let text = source.text.clone();
    let before = document_parses();
    let set = run(source, &RunOptions { baseline: BaselineChoice::IfPowerMode, ..Default::default() }).unwrap();
    assert_eq!(document_parses() - before, 1, "one parse of the scenario for the run, its baseline and the savings");

    let base = set.baseline.expect("psm is a power mode: a baseline ran");
    let p = &base.summary.provenance;
    let sha: String = Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(p.scenario, path.display().to_string());
    assert_eq!(p.scenario_sha256, sha, "the hash of the user's file, not of generated text");
    assert_eq!(p.overrides, sets);
    assert_eq!(p.baseline.as_deref(), Some("power saving off: wireless.wlan (psm)"));
    // The run's provenance is the same but for the baseline note.
    let r = &set.run.summary.provenance;
    assert_eq!((&r.scenario, &r.scenario_sha256, &r.overrides, r.seed), (&p.scenario, &p.scenario_sha256, &p.overrides, p.seed));
    assert_eq!(r.baseline, None);
    // The overrides reached both runs, and the baseline is always-on.
    assert_eq!(set.run.summary.flows[0].target_bytes, Some(1_000_000));
    assert_eq!(base.summary.flows[0].target_bytes, Some(1_000_000));
    assert!(set.baseline_text.unwrap().contains("power_save = \"cam\""));
    assert!(set.effective_text.contains("power_save = \"psm\""));
    let row = &set.savings[0];
    assert_eq!((row.node.as_str(), row.mode.as_str(), set.savings.len()), ("client", "psm", 1));
    assert_eq!(row.same_work, set.lost_work.is_none());
}
