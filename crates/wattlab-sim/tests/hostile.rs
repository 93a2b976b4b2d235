//! Hostile and clumsy scenarios (issue 16): each is refused with a located error, or runs and
//! ends; none hangs, panics or is costed silently.

mod common;

use common::{assert_located, build, error, line_of};
use wattlab_sim::{BuildOptions, Simulation};

/// server -- ap, then `hop` (a `[[wlan]]` or `[[wireless]]` section) to the client, then `extra`.
fn wlan_scenario(wlan_lines: &str, extra: &str) -> String {
    format!(
        "[simulation]\nduration = \"1s\"\n\n[[node]]\nname = \"server\"\nkind = \"host\"\n[[node]]\nname = \"ap\"\nkind = \"ap\"\n\
         [[node]]\nname = \"client\"\nkind = \"host\"\n\n[[link]]\nname = \"wired\"\na = \"server\"\nb = \"ap\"\nrate = \"100Mbps\"\ndelay = \"5ms\"\n\n\
         [[wlan]]\nap = \"ap\"\nstations = [\"client\"]\nphy = \"80211a\"\nrate = \"54Mbps\"\n{wlan_lines}\n\n\
         [[flow]]\nkind = \"bulk-download\"\nclient = \"client\"\nserver = \"server\"\nbytes = \"200kB\"\n{extra}"
    )
}

#[test]
fn zero_psm_and_uapsd_periods_are_refused_and_the_shortest_valid_one_ends() {
    // Issue 16 item 4: both never ended, even with duration = "1ms".
    let text = wlan_scenario("power_save = \"ideal-psm\"\nideal_psm_interval = \"0s\"", "");
    assert_located(&error(&text), &text, "ideal_psm_interval", "wlan[0].ideal_psm_interval", "out of range");
    let text = wlan_scenario("power_save = \"u-apsd\"\nuapsd_trigger_interval = \"0s\"", "");
    assert_located(&error(&text), &text, "uapsd_trigger_interval", "wlan[0].uapsd_trigger_interval", "\"1ms\"..=\"60s\"");
    for key in ["beacon_interval", "listen_interval = 0\n#", "station_queue = 0\n#"] {
        let line = if key.contains('=') { key.to_string() } else { format!("{key} = \"1ns\"") };
        let text = wlan_scenario(&format!("power_save = \"psm\"\n{line}"), "");
        assert!(error(&text).message.contains("out of range"), "{key}: {}", error(&text));
    }
    for hop in ["power_save = \"ideal-psm\"\nideal_psm_interval = \"1ms\"", "power_save = \"u-apsd\"\nuapsd_trigger_interval = \"1ms\""] {
        let sim = build(&wlan_scenario(hop, "")).unwrap();
        let out = sim.run().unwrap();
        assert!(out.summary.completed, "{hop}: the download completes");
    }
}

#[test]
fn every_period_rate_and_queue_has_a_range() {
    let base = wlan_scenario("", "");
    let cases: &[(&str, &str, &str)] = &[
        ("[output]\nsample_interval = \"0s\"", "sample_interval", "output.sample_interval"),
        ("[output]\nsample_interval = \"2h\"", "sample_interval", "output.sample_interval"),
        ("tcp = { min_rto = \"0s\" }", "min_rto", "flow[0].tcp.min_rto"),
        ("tcp = { delayed_ack_timeout = \"0s\" }", "delayed_ack_timeout", "flow[0].tcp.delayed_ack_timeout"),
        ("tcp = { timer_tick = \"0s\" }", "timer_tick", "flow[0].tcp.timer_tick"),
        ("tcp = { timer_tick = \"2s\" }", "timer_tick", "flow[0].tcp.timer_tick"),
        ("tcp = { initial_cwnd = 100000 }", "initial_cwnd", "flow[0].tcp.initial_cwnd"),
        ("tcp = { mss = 65535 }", "mss", "flow[0].tcp.mss"),
        ("port = 0", "port = 0", "flow[0].port"),
        ("start = \"2s\"", "start", "flow[0].start"),
        ("reader = { pause = [\"5s\", \"2s\"] }", "pause", "flow[0].reader.pause"),
    ];
    for (extra, needle, key) in cases {
        let text = format!("{base}{extra}\n");
        let e = error(&text);
        assert_eq!(e.key.as_deref(), Some(*key), "{extra}: {e}");
        assert_eq!(e.line, Some(line_of(&text, needle)), "{extra}: {e}");
    }
    // Links: delay, queue, jitter.
    let link = |x: &str| base.replace("delay = \"5ms\"", &format!("delay = \"5ms\"\n{x}"));
    for (x, key) in [
        ("queue = { packets = 0 }", "link[0].queue.packets"),
        ("queue = { packets = 2000000 }", "link[0].queue.packets"),
        ("a_to_b = { jitter = { model = \"constant\", value = \"2min\" } }", "link[0].a_to_b.jitter.value"),
        ("b_to_a = { jitter = { model = \"gamma\", shape = 0.0, scale = \"1ms\" } }", "link[0].b_to_a.jitter.shape"),
    ] {
        assert_eq!(error(&link(x)).key.as_deref(), Some(key), "{x}");
    }
    assert!(error(&base.replace("delay = \"5ms\"", "delay = \"61s\"")).message.contains("out of range"));
}

#[test]
fn huge_sizes_rates_and_durations_are_refused_not_clamped() {
    // Issue 16 item 8: `1e30B` was clamped to 2^64 - 1.
    let text = wlan_scenario("", "").replace("bytes = \"200kB\"", "bytes = \"1e30B\"");
    let e = error(&text);
    assert!(e.message.contains("out of range") && e.line == Some(line_of(&text, "1e30B")), "{e}");
    let text = wlan_scenario("", "").replace("rate = \"100Mbps\"", "rate = \"1e30Mbps\"");
    assert!(error(&text).message.contains("1 Tbit/s"));
    let text = wlan_scenario("", "").replace("duration = \"1s\"", "duration = \"1e30s\"");
    assert!(error(&text).message.contains("365 days"));
    let text = wlan_scenario("", "").replace("duration = \"1s\"", "duration = \"0s\"");
    assert_eq!(error(&text).key.as_deref(), Some("simulation.duration"));
}

#[test]
fn duplicate_names_are_refused_so_set_cannot_pick_the_first() {
    let base = wlan_scenario("", "");
    let two_links = base.replace(
        "[[wlan]]",
        "[[link]]\nname = \"wired\"\na = \"server\"\nb = \"ap\"\nrate = \"1Mbps\"\ndelay = \"5ms\"\n\n[[wlan]]",
    );
    let e = error(&two_links);
    assert_eq!(e.key.as_deref(), Some("link[1].name"), "{e}");
    assert!(e.message.contains("`wired`") && e.message.contains("link[0]"), "{e}");
    // Through --set the same file is refused too, whatever the override.
    let e = Simulation::from_toml(&two_links, "h.toml", None, &["link.wired.rate=\"2Mbps\"".into()], &BuildOptions::default())
        .err()
        .unwrap();
    assert!(e.message.contains("already used"), "{e}");
    // Default names collide as well: two unnamed parallel links are both `server-ap`.
    let unnamed = base.replace("name = \"wired\"\n", "").replace("[[wlan]]", "[[link]]\na = \"server\"\nb = \"ap\"\nrate = \"1Mbps\"\ndelay = \"5ms\"\n\n[[wlan]]");
    assert!(error(&unnamed).message.contains("`server-ap` (its default name)"), "{}", error(&unnamed));
    let flows = format!("{base}name = \"f\"\n[[flow]]\nkind = \"ping\"\nname = \"f\"\nfrom = \"client\"\nto = \"server\"\n");
    assert_eq!(error(&flows).key.as_deref(), Some("flow[1].name"));
    let wlans = base.replace("[[node]]\nname = \"client\"", "[[node]]\nname = \"ap2\"\nkind = \"ap\"\n[[node]]\nname = \"c2\"\nkind = \"host\"\n[[node]]\nname = \"client\"")
        + "[[wlan]]\nname = \"wlan0\"\nap = \"ap2\"\nstations = [\"c2\"]\nphy = \"80211a\"\nrate = \"54Mbps\"\n";
    assert_eq!(error(&wlans).key.as_deref(), Some("wlan[1].name"), "{}", error(&wlans));
}

#[test]
fn flows_that_cannot_arrive_are_refused() {
    let base = wlan_scenario("", "");
    // To itself.
    let text = base.replace("server = \"server\"", "server = \"client\"");
    let e = error(&text);
    assert!(e.message.contains("both ends"), "{e}");
    assert_eq!(e.key.as_deref(), Some("flow[0].server"));
    // Between unconnected nodes.
    let text = base.replace("[[link]]", "[[node]]\nname = \"island\"\nkind = \"host\"\n\n[[link]]")
        + "[[flow]]\nkind = \"udp-cbr\"\nfrom = \"client\"\nto = \"island\"\nrate = \"1Mbps\"\n";
    let e = error(&text);
    assert!(e.message.contains("cannot reach `island`"), "{e}");
    assert_eq!((e.key.as_deref(), e.line), (Some("flow[1].to"), Some(line_of(&text, "to = \"island\""))));
    // A route loop: the AP sends packets for the server back to the client.
    let text = format!("{base}\n[[route]]\nnode = \"ap\"\ndestination = \"server\"\nvia = \"client\"\n");
    let e = error(&text);
    assert!(e.message.contains("loop") && e.message.contains("ap -> client"), "{e}");
    assert_eq!(e.key.as_deref(), Some("route[0].via"));
    // Through a host, which does not forward.
    let text = base.replace("name = \"ap\"\nkind = \"ap\"", "name = \"ap\"\nkind = \"ap\"\n[[node]]\nname = \"mid\"\nkind = \"host\"")
        .replace("a = \"server\"\nb = \"ap\"", "a = \"server\"\nb = \"mid\"")
        + "[[link]]\nname = \"mid-ap\"\na = \"mid\"\nb = \"ap\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n";
    let e = error(&text);
    assert!(e.message.contains("passes through `mid`, a host"), "{e}");
    // Made a router, the same topology runs.
    assert!(build(&text.replace("name = \"mid\"\nkind = \"host\"", "name = \"mid\"\nkind = \"router\"")).is_ok());
}

#[test]
fn scenario_files_are_read_with_a_size_limit_and_must_be_regular() {
    use wattlab_sim::scenario::{read_file, MAX_SCENARIO_BYTES};
    let e = read_file(std::path::Path::new("/dev/zero")).unwrap_err();
    assert!(e.message.contains("not a regular file"), "{e}");
    let dir = std::env::temp_dir().join(format!("wattlab-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    assert!(read_file(&dir).unwrap_err().message.contains("directory"));
    let big = dir.join("big.toml");
    std::fs::write(&big, vec![b'#'; MAX_SCENARIO_BYTES + 1]).unwrap();
    assert!(read_file(&big).unwrap_err().message.contains("16 MiB"));
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, b"name = \"x\"\nx = \"\xff\"\n").unwrap();
    let e = read_file(&bad).unwrap_err();
    assert_eq!((e.line, e.message.as_str()), (Some(2), "not UTF-8 text (byte 16)"));
    assert!(read_file(&dir.join("missing.toml")).unwrap_err().message.contains("no such file"));
    std::fs::remove_dir_all(&dir).unwrap();
    // Deep nesting is refused by the parser's recursion limit, not a stack overflow.
    let deep = format!("x = {}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(build(&deep).err().unwrap().message.contains("recursion"));
    // Text given directly is bounded the same way.
    let text = "#".repeat(MAX_SCENARIO_BYTES + 1);
    assert!(build(&text).err().unwrap().message.contains("16 MiB"));
}

#[test]
fn errors_under_set_name_the_overrides_and_the_keys_line() {
    let text = wlan_scenario("", "");
    let sets = ["flow.0.tcp={ min_rto = \"0s\" }".to_string()];
    let e = Simulation::from_toml(&text, "h.toml", None, &sets, &BuildOptions::default()).err().unwrap();
    assert!(e.origin.starts_with("h.toml (with --set flow.0.tcp="), "{e}");
    assert_eq!(e.key.as_deref(), Some("flow[0].tcp.min_rto"));
    // The key is not in the file: the error points at the flow.
    assert_eq!(e.line, Some(line_of(&text, "[[flow]]")), "{e}");
}

#[test]
fn runaway_runs_are_estimated_and_warned_about_ordinary_ones_are_not() {
    // Issue 16 item 5: a UDP CBR at a huge rate ran for days without a word.
    let cbr = wlan_scenario("", "").replace("duration = \"1s\"", "duration = \"60min\"")
        + "[[flow]]\nkind = \"udp-cbr\"\nname = \"blast\"\nfrom = \"server\"\nto = \"client\"\nrate = \"1000Gbps\"\n";
    let est = build(&cbr).unwrap().estimate();
    assert!(est.events > 1e11, "{est:?}");
    let w = est.warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("flow `blast` (udp-cbr)") && w[0].contains("lower its rate") && w[0].contains("days"), "{w:?}");
    // Beacons every millisecond for a year, and dense sampling.
    let beacons = wlan_scenario("power_save = \"psm\"\nbeacon_interval = \"1ms\"", "")
        .replace("duration = \"1s\"", "duration = \"365d\"".replace("365d", "525600min").as_str())
        .replace("[simulation]", "[simulation]\nstop_when_done = false");
    let w = build(&beacons).unwrap().estimate().warnings();
    assert!(w[0].contains("beacons of `wlan0`") && w[0].contains("beacon_interval"), "{w:?}");
    let sampled = wlan_scenario("", "").replace("duration = \"1s\"", "duration = \"600min\"").replace("[simulation]", "[simulation]\nstop_when_done = false")
        + "[output]\ntimeseries = true\nsample_interval = \"100us\"\n";
    assert!(build(&sampled).unwrap().estimate().warnings().iter().any(|w| w.contains("sample_interval")));
    // The reference runs draw no warning, and the estimate is an upper one within 30x: flows
    // sharing an 802.11 channel are each counted at its full rate (ten stations here).
    for case in ["tcp-100mb", "wlan-10sta-tcp", "cc-agent-100mb", "web-100-cc"] {
        let path = format!("{}/../../python/wattlab/bench/{case}.toml", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        let sim = Simulation::from_toml(&text, &path, None, &[], &BuildOptions::default()).unwrap();
        let est = sim.estimate();
        assert!(est.warnings().is_empty(), "{case}: {est:?}");
        let events = sim.run().unwrap().summary.events as f64;
        let ratio = est.events / events;
        assert!((0.5..30.0).contains(&ratio), "{case}: estimated {:.3e}, ran {events:.3e}", est.events);
    }
}
