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
    assert_eq!(spec.power_save.to_string(), "cc");
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
    assert_eq!(psm.power_save.to_string(), "ideal-psm");
    assert_eq!(plan::path_params(&psm).psm_beacon, Some(Duration::from_millis(100)));
    let adaptive = plan::load(&s, "adaptive-psm".parse().unwrap(), &[]).unwrap();
    assert_eq!(adaptive.power_save.to_string(), "adaptive-psm:timeout=100ms");
    let p = plan::path_params(&adaptive);
    assert_eq!(p.psm_beacon, Some(Duration::from_millis(100)));
    assert_eq!(
        p.mode,
        Some(wattlab_core::power::PowerSave::AdaptivePsm { timeout: Duration::from_millis(100), listen_interval: 1 })
    );
    let cam = plan::load(&s, LivePolicy::AlwaysOn, &[]).unwrap();
    assert!(cam.agent.is_none() && cam.power_save.to_string() == "cam");
    let summary = PlanSummary::of(&cam, LivePolicy::AlwaysOn, &[]).unwrap();
    assert_eq!((summary.linux_cc.as_str(), summary.initial_cwnd, summary.min_rto_ms), ("reno", 2, 200));
    assert!(!summary.slow_start_after_idle, "textbook: the testbed turns Linux's restart after idle off");
    let linux = plan::load(&s, LivePolicy::AlwaysOn, &["flow.0.tcp.profile=\"linux\"".to_string()]).unwrap();
    assert!(PlanSummary::of(&linux, LivePolicy::AlwaysOn, &[]).unwrap().slow_start_after_idle, "linux: stock Linux's restart");
    assert!((summary.base_rtt_s - 0.060002).abs() < 1e-9);
}

#[test]
fn scenarios_without_a_live_equivalent_are_refused_with_the_reason() {
    // A web flow over three sites: the testbed has one server namespace.
    let e = plan::load(&scenario("web.toml"), LivePolicy::AlwaysOn, &[]).unwrap_err();
    assert!(e.contains("web.toml") && e.contains("browses one server") && e.contains("site0, site1, site2"), "{e}");
    // One site: the simulator's page plan, its bytes the responses' (bodies and headers).
    let web = plan::load(&scenario("yan-cc-web-live.toml"), LivePolicy::Cc, &[]).unwrap();
    let w = web.web.as_ref().expect("a web flow's plan");
    assert_eq!((w.pages.len(), w.max_connections, web.port), (10, 4, 80));
    assert_eq!(web.bytes, w.target_bytes());
    assert_eq!(PlanSummary::of(&web, LivePolicy::Cc, &[]).unwrap().kind, "web");
    let spec = plan::load(&scenario("yan-cc-download.toml"), LivePolicy::AlwaysOn, &["flow.0.tcp.cc=tahoe".into()]).unwrap();
    let e = PlanSummary::of(&spec, LivePolicy::AlwaysOn, &[]).unwrap_err();
    assert!(e.contains("Tahoe"), "{e}");
    let e = plan::load(&scenario("missing.toml"), LivePolicy::AlwaysOn, &[]).unwrap_err();
    assert!(e.contains("missing.toml"), "{e}");
}

#[test]
fn hostile_scenario_paths_are_refused_before_they_are_read() {
    for (path, want) in [("/dev/zero", "not a regular file"), ("/dev/null", "not a regular file"), ("/", "is a directory")] {
        let e = plan::load(std::path::Path::new(path), LivePolicy::AlwaysOn, &[]).unwrap_err();
        assert!(e.contains(want), "{path}: {e}");
    }
    let dir = std::env::temp_dir().join(format!("wattlab-live-plan-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.toml");
    std::fs::write(&big, vec![b'#'; plan::MAX_SCENARIO_BYTES as usize + 1]).unwrap();
    let e = plan::load(&big, LivePolicy::AlwaysOn, &[]).unwrap_err();
    assert!(e.contains("at most"), "{e}");
    // An empty file: the error names the missing hop, not the policy's own override.
    let empty = dir.join("empty.toml");
    std::fs::write(&empty, "").unwrap();
    let e = plan::load(&empty, LivePolicy::Cc, &[]).unwrap_err();
    assert!(e.contains("exactly one [[wireless]] hop") && !e.contains("power_save") && !e.contains("--set"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_policy_owns_the_hop_power_saving() {
    let s = scenario("yan-cc-download.toml");
    let e = plan::load(&s, LivePolicy::Cc, &["wireless.hop.power_save=\"cam\"".into()]).unwrap_err();
    assert!(e.contains("--policy"), "{e}");
    // A user's bad override is reported with the user's overrides only.
    let e = plan::load(&s, LivePolicy::Cc, &["wireless.0.rate=\"x\"".into()]).unwrap_err();
    assert!(e.contains("wireless.0.rate") && !e.contains("power_save"), "{e}");
}

#[test]
fn the_processes_refuse_out_of_range_timeouts_without_panicking() {
    let exe = env!("CARGO_BIN_EXE_wattlab-live");
    for bad in ["nan", "-5", "0", "inf", "1e300", "x"] {
        let out = std::process::Command::new(exe)
            .args(["fetch", "--connect", "127.0.0.1:9", "--report", "/dev/null", &format!("--idle-timeout={bad}")])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(err.contains("--idle-timeout") && !err.contains("panicked"), "{bad}: {err}");
    }
}

#[test]
fn the_payload_digest_is_that_of_the_dumped_stream() {
    use sha2::{Digest, Sha256};
    let exe = env!("CARGO_BIN_EXE_wattlab-live");
    let run = |extra: &[&str]| {
        let out = std::process::Command::new(exe).args(["payload", "--bytes", "1000003", "--payload-key", "42"]).args(extra).output().unwrap();
        assert!(out.status.success());
        out.stdout
    };
    let dumped = run(&["--dump"]);
    assert_eq!(dumped.len(), 1_000_003);
    let json: serde_json::Value = serde_json::from_slice(&run(&[])).unwrap();
    let hex: String = Sha256::digest(&dumped).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(json["sha256"], hex.as_str());
    assert_eq!(json["bytes"], 1_000_003);
}

#[test]
fn a_wwp_flow_gives_its_ends_parameters_and_impairments() {
    let s = scenario("live-wwp.toml");
    let spec = plan::load(&s, LivePolicy::AlwaysOn, &[]).unwrap();
    let w = spec.wwp.as_ref().expect("a wwp-bulk flow");
    assert!(!w.from_client, "the server sends to the station");
    assert_eq!((w.bytes, w.duration, w.message), (None, Some(Duration::from_secs(20)), 1024));
    assert_eq!(w.config, wattlab_core::wwp::WwpConfig::default());
    assert_eq!((spec.port, spec.start, spec.bytes), (wattlab_sim::apps::wwp_bulk::DEFAULT_PORT, Duration::from_millis(500), 0));
    // VDROP and VDELAY on both directions of the hop, as the simulator built them.
    assert!((spec.hop_down.loss.mean_loss() - 0.05).abs() < 1e-12 && (spec.hop_up.loss.mean_loss() - 0.05).abs() < 1e-12);
    assert!(spec.hop_down.reorder && spec.hop_up.reorder);
    let summary = PlanSummary::of(&spec, LivePolicy::AlwaysOn, &[]).unwrap();
    assert_eq!(summary.kind, "wwp-bulk");
    let p = summary.wwp.unwrap();
    assert_eq!((p.sender.as_str(), p.receiver.as_str(), p.rec_t_s, p.message), ("server", "client", 2.0, 1024));
    // The other way round, with WWP overrides and a byte count.
    let ov = ["flow.0.from=\"client\"", "flow.0.to=\"server\"", "flow.0.bytes=\"100kB\"", "flow.0.wwp={ rec_t = \"1s\", send_t = \"500ms\" }"].map(String::from);
    let up = plan::load(&s, LivePolicy::AlwaysOn, &ov).unwrap();
    let w = up.wwp.unwrap();
    assert!(w.from_client);
    assert_eq!(w.bytes, Some(100_000));
    assert_eq!((w.config.rec_t, w.config.send_t), (Duration::from_secs(1), Duration::from_millis(500)));
    // A bad WWP parameter names the flow's key.
    let e = plan::load(&s, LivePolicy::AlwaysOn, &["flow.0.wwp={ probe_level_cap = 7 }".into()]).unwrap_err();
    assert!(e.contains("probe_level_cap"), "{e}");
}

#[test]
fn a_psna_flow_plans_with_policy_psna_and_its_parameters() {
    let s = scenario("live-psna.toml");
    let (spec, policy) = plan::load_resolved(&s, None, &[]).unwrap();
    assert_eq!(policy, LivePolicy::Psna);
    let p = spec.psna.as_ref().unwrap();
    assert!(p.read && p.daemon_port == 7300 && p.fh_stop_after.is_none());
    assert_eq!((spec.bytes, spec.request, spec.port), (400_000, 100, 80));
    let summary = PlanSummary::of(&spec, policy, &[]).unwrap();
    assert_eq!((summary.kind.as_str(), summary.power_save.as_str()), ("psna-read", "psna"));
    let ov = ["flow.0.kind=\"psna-send\"".to_string(), "flow.0.psna={ rto = \"50ms\", fh_stop_after = \"1kB\" }".into()];
    let (send, _) = plan::load_resolved(&s, Some(LivePolicy::Psna), &ov).unwrap();
    let p = send.psna.as_ref().unwrap();
    assert!(!p.read && p.fh_stop_after == Some(1000) && p.configs.mobile.rto == wattlab_core::Duration::from_millis(50));
    assert_eq!(send.port, 5001);
    let e = plan::load_resolved(&s, Some(LivePolicy::AlwaysOn), &[]).unwrap_err();
    assert!(e.contains("--policy always-on: a PSNA flow's radio is switched by its mobile"), "{e}");
    let e = plan::load_resolved(&scenario("live-download.toml"), Some(LivePolicy::Psna), &[]).unwrap_err();
    assert!(e.contains("--policy psna needs a psna-read or psna-send flow"), "{e}");
    let e = plan::load_resolved(&s, None, &["flow.0.psna={ alpha = 2.0 }".into()]).unwrap_err();
    assert!(e.contains("alpha"), "{e}");
}

#[test]
fn parameterised_policies_use_the_simulators_names() {
    // `adaptive-psm` alone is mac80211's 100 ms; with a timeout and for TWT the names are the
    // simulator's power_save names, parsed by the core's registry, and written back canonically.
    let s = scenario("yan-cc-download.toml");
    for (given, canonical) in [
        ("adaptive-psm", "adaptive-psm:timeout=100ms"),
        ("adaptive-psm:timeout=250ms", "adaptive-psm:timeout=250ms"),
        ("twt:interval=50ms,duration=5000us", "twt:interval=50ms,duration=5000us"),
        ("twt:interval=100ms,duration=8192us,offset=20000us", "twt:interval=100ms,duration=8192us,offset=20000us"),
    ] {
        let policy: LivePolicy = given.parse().unwrap();
        assert_eq!(policy.to_string(), canonical);
        let spec = plan::load(&s, policy, &[]).unwrap();
        assert_eq!(spec.power_save.to_string(), canonical, "{given}");
        let p = plan::path_params(&spec);
        // The core's machine runs the mode on the hop, beacons every beacon_interval.
        assert_eq!(p.mode.map(|m| m.mode().to_string()).as_deref(), Some(canonical));
        assert_eq!(p.psm_beacon, Some(Duration::from_millis(100)));
        let summary = PlanSummary::of(&spec, policy, &[]).unwrap();
        let json = serde_json::to_value(&summary).unwrap();
        assert_eq!(json["policy"], canonical);
        assert_eq!(summary.overrides[0], format!("wireless.0.power_save=\"{canonical}\""));
    }
    let twt: LivePolicy = "twt:interval=50ms,duration=5000us,offset=7000us".parse().unwrap();
    let LivePolicy::Twt(a) = twt else { panic!("{twt:?}") };
    assert_eq!((a.interval_ms, a.duration_us, a.offset_us, a.trigger, a.announced), (50, 5000, 7000, false, false));
    assert_eq!(twt.family(), "twt");
}

#[test]
fn bad_policy_parameters_are_refused_with_the_accepted_forms() {
    for bad in [
        "adaptive-psm:timeout=0ms",
        "adaptive-psm:timeout=10001ms",
        "adaptive-psm:timeout=0.2s",
        "adaptive-psm:timeout=100",
        "twt",
        "twt:interval=100ms",
        "twt:interval=10ms,duration=10000us",
        "twt:interval=10ms,duration=8ms",
        "twt:interval=10ms,duration=100us,offset=10000us",
        "twt:interval=0ms,duration=100us",
        "bsd-50",
        "cam",
        "ideal-psm",
    ] {
        let e = bad.parse::<LivePolicy>().unwrap_err();
        assert!(e.contains(&format!("unknown live policy `{bad}`")), "{bad}: {e}");
        assert!(e.contains("adaptive-psm:timeout=Tms (T = 1..=10000)") && e.contains("twt:interval=Ims,duration=Dus[,offset=Ous] (I = 1..=65535"), "{e}");
    }
    for flag in ["twt:interval=100ms,duration=8192us,trigger=true", "twt:interval=100ms,duration=8192us,announced=true"] {
        let e = flag.parse::<LivePolicy>().unwrap_err();
        assert!(e.contains("change nothing on the emulated hop"), "{e}");
    }
    let e = "twt:interval=100ms,duration=8192us,broadcast=1".parse::<LivePolicy>().unwrap_err();
    assert!(e.contains("broadcast TWT needs an AP"), "{e}");
}
