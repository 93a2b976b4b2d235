//! A live run reads its scenario exactly as the simulator builds it.

use std::path::PathBuf;

use wattlab_core::Duration;
use wattlab_live::plan::{self, LivePolicy, PlanSummary};
use wattlab_sim::link::QueueLimit;

fn scenario(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(name)
}

#[test]
fn yan_cc_path_agent_and_radio_come_from_the_built_simulation() {
    let spec = plan::load(&scenario("yan-cc-download.toml"), LivePolicy::Cc, &[]).unwrap();
    assert_eq!((spec.bytes, spec.request, spec.port), (5_000_000, 100, 80));
    assert_eq!(spec.wired_down.rate_bps, 100_000_000);
    assert_eq!(spec.wired_down.delay, Duration::from_millis(30));
    assert_eq!(spec.wired_down.queue, QueueLimit::Packets(200));
    assert_eq!(spec.hop_down.rate_bps, 20_000_000);
    assert_eq!(spec.hop_down.queue, QueueLimit::Packets(100));
    // The hop's default delay (1 µs) and loss process come through as the simulator set them.
    assert_eq!(spec.hop_down.delay, Duration::from_micros(1));
    assert!((spec.hop_down.loss.mean_loss() - 0.001).abs() < 1e-12);
    assert_eq!(spec.hop_up.loss.mean_loss(), 0.0);
    assert!(spec.half_duplex);
    assert_eq!(spec.power_save, "external");
    let agent = spec.agent.as_ref().expect("cc has an agent");
    assert_eq!(agent.ts_clock_hz, 1000);
    assert_eq!(agent.link_rate_bps, Some(20_000_000));
    assert_eq!(spec.profile.as_ref().unwrap().name(), "wavelan-dsss");
    // The channels' names are the simulator's: they name the loss and jitter streams.
    let p = plan::path_params(&spec);
    let names = p.names.unwrap();
    assert!(names[1].starts_with("hop:") && names[1].ends_with("->client"), "{names:?}");
    assert!(names[0].starts_with("internet:server->"), "{names:?}");
    assert_eq!(p.psm_beacon, None);
}

#[test]
fn the_policy_sets_the_hop_power_saving() {
    let s = scenario("yan-cc-download.toml");
    let psm = plan::load(&s, LivePolicy::Psm, &[]).unwrap();
    assert_eq!(psm.power_save, "ideal-psm");
    assert_eq!(plan::path_params(&psm).psm_beacon, Some(Duration::from_millis(100)));
    let cam = plan::load(&s, LivePolicy::AlwaysOn, &[]).unwrap();
    assert!(cam.agent.is_none() && cam.power_save == "cam");
    let summary = PlanSummary::of(&cam, LivePolicy::AlwaysOn, &[]).unwrap();
    assert_eq!((summary.linux_cc.as_str(), summary.initial_cwnd, summary.min_rto_ms), ("reno", 2, 200));
    assert!((summary.base_rtt_s - 0.060002).abs() < 1e-9);
}

#[test]
fn scenarios_without_a_live_equivalent_are_refused_with_the_reason() {
    let e = plan::load(&scenario("web.toml"), LivePolicy::AlwaysOn, &[]).unwrap_err();
    assert!(e.contains("web.toml") && e.contains("bulk-download"), "{e}");
    let spec = plan::load(&scenario("yan-cc-download.toml"), LivePolicy::AlwaysOn, &["flow.0.tcp.cc=tahoe".into()]).unwrap();
    let e = PlanSummary::of(&spec, LivePolicy::AlwaysOn, &[]).unwrap_err();
    assert!(e.contains("Tahoe"), "{e}");
    let e = plan::load(&scenario("missing.toml"), LivePolicy::AlwaysOn, &[]).unwrap_err();
    assert!(e.contains("missing.toml"), "{e}");
}
