//! Validation that tells the truth (issue 27 item 8): every impossible run of the hostile
//! trial is refused at the file, line, column and key the user must change, or warned about
//! by the cost estimate before it starts.

mod common;

use common::{assert_located, build, error};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use wattlab_sim::{BuildOptions, Simulation};

/// server -- ap (wired), ap -- client (`hop_lines`: a `[[wlan]]` or `[[wireless]]`), then `flows`.
fn scenario(hop_lines: &str, flows: &str) -> String {
    format!(
        "[simulation]\nduration = \"20s\"\n\n[[node]]\nname = \"server\"\nkind = \"host\"\n[[node]]\nname = \"ap\"\nkind = \"ap\"\n\
         [[node]]\nname = \"client\"\nkind = \"host\"\nradio = {{ profile = \"wavelan-dsss\", policies = [\"always-on\"] }}\n\n\
         [[link]]\nname = \"wired\"\na = \"server\"\nb = \"ap\"\nrate = \"100Mbps\"\ndelay = \"5ms\"\n\n{hop_lines}\n\n{flows}"
    )
}

const WLAN: &str = "[[wlan]]\nname = \"bss\"\nap = \"ap\"\nstations = [\"client\"]\nphy = \"80211a\"\nrate = \"54Mbps\"\n";
const HOP: &str = "[[wireless]]\nname = \"hop\"\nap = \"ap\"\nstation = \"client\"\nrate = \"11Mbps\"\n";

fn wwp(extra: &str) -> String {
    scenario(HOP, &format!("[[flow]]\nkind = \"wwp-bulk\"\nname = \"w\"\nfrom = \"server\"\nto = \"client\"\nbytes = \"20kB\"\n{extra}\n"))
}

/// Refused at the line of `needle`, with a column, the key `key`, and a message saying `says`.
fn assert_refused(text: &str, needle: &str, key: &str, says: &str) {
    assert_located(&error(text), text, needle, key, says);
}

#[test]
fn wwp_segments_must_fit_one_ipv4_packet() {
    // 65529 made 65563-byte IPv4 packets, found only by --pcap after the run.
    let text = wwp("wwp = { segment_size = 65529 }");
    assert_refused(&text, "segment_size", "flow[0].wwp.segment_size", "1..=65501 B");
    // The largest that fits runs, captured: every packet is a valid IPv4 packet.
    let dir = std::env::temp_dir().join(format!("wattlab-validation-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = wwp("packet_size = 65501\nwwp = { segment_size = 65501 }").replace("bytes = \"20kB\"", "bytes = \"300kB\"");
    let opts = BuildOptions { out_dir: Some(dir.clone()), pcaps: vec!["client:wlan0".into()], ..Default::default() };
    let out = Simulation::from_toml(&text, "h.toml", None, &[], &opts).unwrap().run().expect("captures write");
    assert_eq!(out.summary.flows[0].bytes_delivered, 300_000);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_wwp_flow_that_could_deliver_nothing_is_refused() {
    // Both delivered 0 bytes without an error: the application writes whole messages, and a
    // 1024-byte message never fits 40 one-byte segments (nor 65507 bytes 40 × 1024).
    let text = wwp("wwp = { segment_size = 1 }");
    assert_refused(&text, "segment_size", "flow[0].wwp.segment_size", "never fits the WWP sender buffer");
    let text = wwp("packet_size = 65507").replace("bytes = \"20kB\"", "bytes = \"200kB\"");
    assert_refused(&text, "packet_size", "flow[0].packet_size", "40 × 1024 = 40960 B");
    // A transfer smaller than the buffer is one message that fits.
    assert!(build(&wwp("packet_size = 65507")).is_ok());
    let text = wwp("packet_size = 2000\nwwp = { send_buffer_segments = 36, recv_buffer_segments = 36, wave_unit = 12 }")
        .replace("[[flow]]", "[[flow]]\n# buffer 36 x 1024");
    assert!(build(&text).is_ok(), "36 × 1024 B hold a 2000-byte message");
    // Small segments work when the messages fit: every byte arrives.
    let text = wwp("packet_size = 10\nwwp = { segment_size = 1 }").replace("bytes = \"20kB\"", "bytes = \"500B\"");
    let out = build(&text).unwrap().run().unwrap();
    assert_eq!(out.summary.flows[0].bytes_delivered, 500);
    assert!(out.summary.flows[0].completed);
}

fn tunnel(flow_tcp: &str, encapsulation: &str) -> String {
    scenario(
        &format!("{WLAN}power_save = \"u-apsd\"\n\n[[tunnel]]\nname = \"t\"\nclient = \"client\"\nencapsulation = \"{encapsulation}\"\n"),
        &format!("[[flow]]\nkind = \"bulk-download\"\nclient = \"client\"\nserver = \"server\"\nbytes = \"300kB\"\n{flow_tcp}\n"),
    )
}

#[test]
fn tunnelled_tcp_segments_must_fit_one_outer_ipv4_packet() {
    // MSS 65495 inside the tunnel made 65592-byte outer packets (20 IP + 8 UDP + 12 SCTP common
    // + 16 DATA chunk + the 65535-byte inner packet padded to 4): refused at the MSS.
    let text = tunnel("tcp = { mss = 65495 }", "udp");
    assert_refused(&text, "mss", "flow[0].tcp.mss", "at most 65420 B");
    let text = tunnel("tcp = { mss = 65495 }", "ip");
    assert_refused(&text, "mss", "flow[0].tcp.mss", "at most 65428 B");
    // The largest accepted runs with every outer packet captured (a larger one could not be).
    let dir = std::env::temp_dir().join(format!("wattlab-validation-t-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let opts = BuildOptions { out_dir: Some(dir.clone()), pcaps: vec!["client:wlan0".into()], ..Default::default() };
    let text = tunnel("tcp = { mss = 65420, recv_buffer = \"1MB\", window_scale = 5 }", "udp");
    let out = Simulation::from_toml(&text, "h.toml", None, &[], &opts).unwrap().run().expect("every packet is written");
    assert!(out.summary.flows[0].bytes_delivered > 0);
    std::fs::remove_dir_all(&dir).unwrap();
    // A flow of another node does not go through the tunnel.
    let other = tunnel("", "udp").replace("[[flow]]", "[[flow]]\nkind = \"bulk-upload\"\nname = \"wired-only\"\nclient = \"ap\"\nserver = \"server\"\nbytes = \"1kB\"\ntcp = { mss = 65495 }\n\n[[flow]]");
    assert!(build(&other).is_ok(), "{:?}", build(&other).err());
}

fn download(tcp: &str) -> String {
    scenario(WLAN, &format!("[[flow]]\nkind = \"bulk-download\"\nclient = \"client\"\nserver = \"server\"\nbytes = \"100kB\"\ntcp = {{ {tcp} }}\n"))
}

#[test]
fn a_receive_buffer_tcp_cannot_advertise_is_refused_not_clamped() {
    // Clamped silently to 65535 B (the window field without scaling); docs say never.
    assert_refused(&download("recv_buffer = \"1MB\", window_scale = 0"), "recv_buffer", "flow[0].tcp.recv_buffer", "65535 × 2^0 = 65535 B");
    assert_refused(&download("recv_buffer = \"1MB\""), "recv_buffer", "flow[0].tcp.recv_buffer", "without window scaling");
    // 1 MiB with shift 4 lost 16 bytes (65535 × 16 = 1048560): the message says which shift fits.
    assert_refused(&download("recv_buffer = \"1MiB\", window_scale = 4"), "recv_buffer", "flow[0].tcp.recv_buffer", "raise tcp.window_scale to 5");
    assert_refused(&download("window_scale = 15"), "window_scale", "flow[0].tcp.window_scale", "0..=14");
    for ok in ["recv_buffer = \"65535B\"", "recv_buffer = \"1048560B\", window_scale = 4", "recv_buffer = \"1GiB\", window_scale = 14"] {
        let text = download(ok);
        let e = build(&text).err();
        if ok.contains("1GiB") {
            // 65535 × 2^14 is 16 KiB short of 1 GiB: even the largest shift cannot offer it.
            assert!(e.as_ref().is_some_and(|e| e.message.contains("65535 × 2^14")), "{e:?}");
        } else {
            assert!(e.is_none(), "{ok}: {e:?}");
        }
    }
}

fn psna(hop: &str, psna: &str) -> String {
    scenario(hop, &format!("[[flow]]\nkind = \"psna-read\"\nclient = \"client\"\nserver = \"server\"\nbytes = \"100kB\"\n{psna}\n"))
}

#[test]
fn psna_needs_its_mobile_to_drive_the_card() {
    // Ran with the card under cam or u-apsd, costing a scheme that did not run.
    for mode in ["cam", "u-apsd", "psm"] {
        let text = psna(&format!("{WLAN}power_save = \"{mode}\"\n"), "");
        assert_refused(&text, &format!("power_save = \"{mode}\""), "wlan[0].power_save", "needs power_save = \"psna\"");
        let text = psna(&format!("{HOP}power_save = \"{mode}\"\n"), "");
        assert_refused(&text, &format!("power_save = \"{mode}\""), "wireless[0].power_save", &format!("runs \"{mode}\""));
    }
    // A station override is where the mode is decided.
    let text = psna(&format!("{WLAN}power_save = \"psna\"\n[[wlan.station]]\nnode = \"client\"\npower_save = \"cam\"\n"), "");
    assert_refused(&text, "power_save = \"cam\"", "wlan[0].station[0].power_save", "needs power_save");
    // Nothing written (cam by default): at the flow's client.
    let text = psna(WLAN, "");
    assert_refused(&text, "client = \"client\"", "flow[0].client", "(the default)");
    for mode in ["psna", "external"] {
        let text = psna(&format!("{WLAN}power_save = \"{mode}\"\n"), "");
        assert!(build(&text).is_ok(), "{mode}: {:?}", build(&text).err());
    }
}

#[test]
fn psna_settings_are_refused_at_their_own_key() {
    let base = format!("{WLAN}power_save = \"psna\"\n");
    // Was refused naming `alpha`, which the file did not contain.
    assert_refused(&psna(&base, "psna = { max_residual = \"1ns\" }"), "max_residual", "flow[0].psna.max_residual", "at least \"1ms\"");
    // Was accepted.
    assert_refused(&psna(&base, "psna = { daemon_port = 0 }"), "daemon_port", "flow[0].psna.daemon_port", "1..=65535");
    assert!(build(&psna(&base, "psna = { daemon_port = 65535, max_residual = \"1ms\" }")).is_ok());
    // The daemon holds the object whole: a petabyte would abort the process when allocated.
    assert_refused(&psna(&base, "psna = { max_object = \"100000GB\" }"), "max_object", "flow[0].psna.max_object", "4 GiB");
    // Re-polling every nanosecond is warned about, as WWP's timers are.
    let text = psna(&base, "psna = { wait_poll_interval = \"1ns\" }");
    let w = build(&text).unwrap().estimate().warnings();
    assert!(w.iter().any(|w| w.contains("psna.wait_poll_interval")), "{w:?}");
}

#[test]
fn every_port_key_is_a_port() {
    let flows = [
        "kind = \"bulk-download\"\nclient = \"client\"\nserver = \"server\"\nbytes = \"1kB\"",
        "kind = \"udp-cbr\"\nfrom = \"server\"\nto = \"client\"\nrate = \"1Mbps\"\nduration = \"1s\"",
        "kind = \"udp-rr\"\nfrom = \"client\"\nto = \"server\"\ncount = 1",
        "kind = \"wwp-bulk\"\nfrom = \"server\"\nto = \"client\"\nbytes = \"1kB\"",
        "kind = \"web\"\nclient = \"client\"\nservers = [\"server\"]\npages = 1",
        "kind = \"ping\"\nfrom = \"client\"\nto = \"server\"\ncount = 1",
    ];
    for f in flows {
        let text = scenario(HOP, &format!("[[flow]]\n{f}\nport = 0\n"));
        assert_refused(&text, "port = 0", "flow[0].port", "out of range");
    }
    let text = scenario(&format!("{HOP}power_save = \"psna\"\n"), "[[flow]]\nkind = \"psna-send\"\nclient = \"client\"\nserver = \"server\"\nbytes = \"1kB\"\nport = 0\n");
    assert_refused(&text, "port = 0", "flow[0].port", "out of range");
}

#[test]
fn runaway_timers_and_huge_tables_are_warned_about_before_the_run() {
    // SEND_T = 1 ns: ~10^9 events per simulated second, which the estimate did not count.
    let text = wwp("wwp = { send_t = \"1ns\" }").replace("bytes = \"20kB\"", "duration = \"10s\"");
    let est = build(&text).unwrap().estimate();
    let w = est.warnings();
    assert!(w.iter().any(|w| w.contains("protocol timers of flow `w`") && w.contains("wwp.send_t")), "{est:?}");
    // The default timers add a handful of events.
    let est = build(&wwp("").replace("bytes = \"20kB\"", "duration = \"10s\"")).unwrap().estimate();
    assert!(est.warnings().is_empty(), "{est:?}");
    let timers = est.parts.iter().find(|p| p.0.contains("timers")).expect("counted");
    assert!(timers.1 < 100.0, "{timers:?}");

    // A 40 M-row time series of a few gigabytes: a download for a day, sampled every 100 µs.
    let sampled = download("recv_buffer = \"60kB\"")
        .replace("duration = \"20s\"", "duration = \"1000s\"")
        .replace("[simulation]", "[simulation]\nstop_when_done = false")
        .replace("bytes = \"100kB\"", "bytes = \"1GB\"\nbackground = true")
        + "[output]\ntimeseries = true\nsample_interval = \"100us\"\n";
    let est = build(&sampled).unwrap().estimate();
    assert!(est.rows > 3e7 && est.rows < 5e7, "{est:?}");
    let w = est.warnings();
    assert!(w.iter().any(|w| w.contains("GB in memory") && w.contains("sample_interval")), "{w:?}");
    // Unsampled, the same run holds nothing worth a word.
    let plain = sampled.replace("timeseries = true", "timeseries = false");
    assert!(build(&plain).unwrap().estimate().memory < 1e6);
}

fn web(pages: &str, duration: &str) -> String {
    scenario(HOP, &format!("[[flow]]\nkind = \"web\"\nclient = \"client\"\nservers = [\"server\"]\npages = {pages}\n"))
        .replace("duration = \"20s\"", &format!("duration = \"{duration}\""))
}

#[test]
fn the_documented_page_maximum_sets_up_in_memory_proportional_to_what_runs() {
    // 10^7 pages reserved gigabytes of rows up front (an abort under a 4 GB address-space
    // limit); now only the plan is held, and rows grow with the pages viewed.
    let sim = build(&web("10000000", "3600s")).unwrap();
    let est = sim.estimate();
    // An hour fits ~3600 pages (think times of at least 1 s): no memory warning.
    assert!(est.warnings().is_empty(), "{est:?}");
    assert!(est.memory < 1e9, "{est:?}");
    // A year of browsing would fill the memory: said before the run.
    let est = build(&web("10000000", "365d".replace("365d", "525600min").as_str())).unwrap().estimate();
    let w = est.warnings();
    assert!(w.iter().any(|w| w.contains("flow `flow0` (web)") && w.contains("lower pages")), "{w:?}");
}

#[test]
fn a_cancelled_set_up_stops_with_an_error() {
    let cancel = Arc::new(AtomicBool::new(true));
    let opts = BuildOptions { cancel: Some(cancel), ..Default::default() };
    let e = Simulation::from_toml(&download("mss = 1000"), "h.toml", None, &[], &opts).err().expect("cancelled");
    assert!(e.message.contains("interrupted"), "{e}");
}

#[test]
fn default_addresses_stay_unique_past_65535_nodes() {
    // Node 65,536 got 10.0.0.1 again and the scenario was refused at a key it did not write.
    let mut text = String::from("[simulation]\nduration = \"1s\"\n");
    for i in 0..65_540 {
        text += &format!("[[node]]\nname = \"n{i}\"\nkind = \"host\"\n");
    }
    text += "[[link]]\na = \"n0\"\nb = \"n65539\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n";
    text += "[[flow]]\nkind = \"ping\"\nfrom = \"n0\"\nto = \"n65539\"\ncount = 1\n";
    let out = build(&text).expect("valid").run().unwrap();
    // n65539 is 10.1.0.4: the echo request reaches it and the reply comes back.
    assert!(out.summary.flows[0].completed && out.summary.flows[0].bytes_delivered > 0, "{:?}", out.summary.flows[0]);
}
