//! Seed 002 Ch. 4's SCTP tunnel in the simulator (`scenarios/tunnel-4flows.toml`): four TCP
//! flows of one client (2 up, 2 down, 450 kB/s together) through the tunnel with m = 5 and
//! U-APSD, against the same flows without the tunnel under CAM (the thesis's baseline) and
//! under 802.11 PSM. docs/tunnel.md quotes what these print.

use std::process::Command;
use wattlab_sim::{BuildOptions, Simulation, Summary};

const SCENARIO: &str = include_str!("../../../scenarios/tunnel-4flows.toml");

/// The scenario without its `[[tunnel]]` section, the station in `mode`.
fn without_tunnel(mode: &str) -> String {
    let start = SCENARIO.find("\n[[tunnel]]").expect("the scenario has a tunnel");
    let end = start + SCENARIO[start..].find("\n[[flow]]").expect("flows follow");
    let text = format!("{}{}", &SCENARIO[..start], &SCENARIO[end..]);
    text.replace("power_save = \"u-apsd\"", &format!("power_save = {mode:?}"))
}

fn run(text: &str, overrides: &[String]) -> Summary {
    let sim = Simulation::from_toml(text, "tunnel-4flows.toml", None, overrides, &BuildOptions::default()).expect("builds");
    sim.run().expect("runs").summary
}

/// The client's radio energy under the run's power mode (J).
fn client_energy(s: &Summary) -> f64 {
    let mode = s.radios.iter().filter(|r| r.node == "client").find(|r| r.policy != "always-on");
    mode.or_else(|| s.radios.iter().find(|r| r.node == "client")).expect("client radio").energy_j
}

/// Aggregate goodput (B/s) and the flows' mean TCP RTT (ms, averaged over flows).
fn traffic(s: &Summary) -> (f64, f64) {
    let goodput: f64 = s.flows.iter().map(|f| f.goodput_bps / 8.0).sum();
    let rtts: Vec<f64> = s.flows.iter().filter_map(|f| f.tcp().mean_rtt_ms).collect();
    (goodput, rtts.iter().sum::<f64>() / rtts.len().max(1) as f64)
}

#[test]
fn tunnel_with_uapsd_saves_energy_against_cam_and_reports_psm() {
    let tunnel = run(SCENARIO, &[]);
    let cam = run(&without_tunnel("cam"), &[]);
    let psm = run(&without_tunnel("psm"), &[]);
    let (e_t, e_c, e_p) = (client_energy(&tunnel), client_energy(&cam), client_energy(&psm));
    let (g_t, rtt_t) = traffic(&tunnel);
    let (g_c, rtt_c) = traffic(&cam);
    let (g_p, rtt_p) = traffic(&psm);
    eprintln!("tunnel m=5 u-apsd: {e_t:.3} J, {g_t:.0} B/s, mean TCP RTT {rtt_t:.1} ms");
    eprintln!("no tunnel, cam:    {e_c:.3} J, {g_c:.0} B/s, mean TCP RTT {rtt_c:.1} ms");
    eprintln!("no tunnel, psm:    {e_p:.3} J, {g_p:.0} B/s, mean TCP RTT {rtt_p:.1} ms");
    eprintln!("saving vs cam {:.1} %, vs psm {:.1} %", 100.0 * (1.0 - e_t / e_c), 100.0 * (1.0 - e_t / e_p));
    for t in &tunnel.tunnels {
        eprintln!("{t:?}");
    }
    assert_tunnel_saves(&tunnel, &cam, &psm);
}

/// What the tunnel must show against the same flows without it under CAM and PSM.
fn assert_tunnel_saves(tunnel: &Summary, cam: &Summary, psm: &Summary) {
    let (e_t, e_c) = (client_energy(tunnel), client_energy(cam));
    let ((g_t, rtt_t), (g_c, rtt_c), (_, rtt_p)) = (traffic(tunnel), traffic(cam), traffic(psm));
    // The same traffic got through (within 5 % of the CAM run's goodput).
    assert!((g_t - g_c).abs() < 0.05 * g_c, "tunnel {g_t:.0} B/s vs cam {g_c:.0} B/s");
    assert!(g_c > 0.9 * 450_000.0, "the four flows reach their 450 kB/s: {g_c:.0}");
    // The clarification's target: at least 40 % less client radio energy than CAM.
    assert!(e_t < 0.6 * e_c, "tunnel {e_t:.3} J vs cam {e_c:.3} J");
    // Its price is delay: more than CAM's, less than PSM's (which waits for beacons).
    assert!(rtt_c < rtt_t && rtt_t < rtt_p, "RTT cam {rtt_c:.1}, tunnel {rtt_t:.1}, psm {rtt_p:.1} ms");
    // The tunnel's bursts really happened, every inner packet once.
    let client = tunnel.tunnels.iter().find(|t| t.node == "client").expect("client end");
    assert!(client.stats.released_full + client.stats.released_burst_rule > 0);
    assert!(client.stats.triggers > 0, "the estimator sent explicit triggers");
    assert_eq!(client.stats.dropped_malformed, 0);
}

/// Runs 300 ms of the scenario with `extra` tunnel keys, capturing the client's interface;
/// returns the capture's path (in `dir`) and its SCTP packets and inner TCP packets, read by
/// etherparse and our decoder (CRC32c verified).
fn capture(extra: &str, dir: &std::path::Path) -> (std::path::PathBuf, usize, usize) {
    std::fs::create_dir_all(dir).unwrap();
    let opts = BuildOptions { out_dir: Some(dir.to_path_buf()), pcaps: vec!["client:wlan0".into()], timeseries: false, ..Default::default() };
    let text = SCENARIO.replace("burst = 5", &format!("burst = 5\n{extra}"));
    let sim = Simulation::from_toml(&text, "tunnel-4flows.toml", None, &["simulation.duration=\"300ms\"".into()], &opts).unwrap();
    sim.run().unwrap();
    let path = dir.join("client-wlan0.pcap");
    let bytes = std::fs::read(&path).unwrap();
    let mut reader = pcap_file::pcap::PcapReader::new(&bytes[..]).unwrap();
    let (mut sctp, mut inner_tcp) = (0, 0);
    while let Some(pkt) = reader.next_packet() {
        let pkt = pkt.unwrap();
        let frame = etherparse::SlicedPacket::from_ethernet(&pkt.data).unwrap();
        let payload = match &frame.transport {
            Some(etherparse::TransportSlice::Udp(udp)) => {
                assert_eq!((udp.source_port(), udp.destination_port()), (9899, 9899));
                udp.payload()
            }
            _ => match &frame.net {
                Some(etherparse::NetSlice::Ipv4(ip)) if ip.header().protocol().0 == 132 => ip.payload().payload,
                _ => continue,
            },
        };
        let v = wattlab_core::wire::sctp::decode_sctp(payload).expect("a valid SCTP packet, CRC32c included");
        sctp += 1;
        if v.header.data.is_some() {
            let inner = etherparse::SlicedPacket::from_ip(v.data).expect("the DATA chunk holds an IP packet");
            assert!(matches!(inner.transport, Some(etherparse::TransportSlice::Tcp(_))));
            inner_tcp += 1;
        }
    }
    assert!(sctp > 20 && inner_tcp > 10, "{sctp} SCTP packets, {inner_tcp} with an inner TCP packet");
    (path, sctp, inner_tcp)
}

/// Output of `name args.. path`, or `None` (with the reason printed) when it cannot run.
fn tool(name: &str, args: &[&str], path: &std::path::Path) -> Option<String> {
    match Command::new(name).args(args).arg(path).output() {
        Ok(out) => {
            assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
            Some(String::from_utf8_lossy(&out.stdout).into_owned())
        }
        Err(e) => {
            eprintln!("skipping the {name} check: cannot run {name} ({e})");
            None
        }
    }
}

/// SCTP over UDP 9899 (the default): tcpdump 4.99 has no SCTP-over-UDP decoder, so it shows UDP
/// and checks the UDP checksum (which covers the SCTP packet and its inner packet); tshark
/// decodes the chunks and checks the CRC32c. Each tool is skipped with the reason when missing.
#[test]
fn the_udp_capture_decodes_as_sctp() {
    let dir = std::env::temp_dir().join(format!("wattlab-tunnel-udp-{}", std::process::id()));
    let (path, sctp, inner_tcp) = capture("", &dir);
    if let Some(text) = tool("tcpdump", &["-nn", "-vv", "-r"], &path) {
        assert_eq!(text.matches(".9899 > ").count(), sctp, "tcpdump sees every packet:\n{text}");
        assert!(!text.contains("bad udp cksum"), "UDP checksums verify:\n{text}");
    }
    if let Some(text) = tool("tshark", &["-o", "sctp.checksum:CRC-32c", "-V", "-r"], &path) {
        assert_eq!(text.matches("Checksum (CRC32C)").count(), sctp, "every SCTP packet decoded");
        assert_eq!(text.matches("(CRC32C)").count(), text.matches("[correct]").count(), "every CRC32c correct");
        assert_eq!(text.matches("DATA chunk").count(), inner_tcp);
        assert!(text.contains("SACK chunk"));
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// SCTP straight over IP (`encapsulation = "ip"`): tcpdump decodes the chunks itself.
#[test]
fn the_ip_capture_decodes_in_tcpdump() {
    let dir = std::env::temp_dir().join(format!("wattlab-tunnel-ip-{}", std::process::id()));
    let (path, sctp, inner_tcp) = capture("encapsulation = \"ip\"", &dir);
    if let Some(text) = tool("tcpdump", &["-nn", "-vv", "-r"], &path) {
        assert_eq!(text.matches("proto SCTP (132)").count(), sctp, "{text}");
        assert_eq!(text.matches("[DATA] (B)(E)").count(), inner_tcp, "{text}");
        assert!(text.contains("[SACK] [cum ack"), "{text}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Bad `[[tunnel]]` settings are errors naming the key, never a panic.
#[test]
fn bad_tunnel_settings_name_their_key() {
    let err = |text: String| Simulation::from_toml(&text, "t.toml", None, &[], &BuildOptions::default()).err().expect("refused");
    let e = err(SCENARIO.replace("client = \"client\"\nburst = 5", "client = \"server\"\nburst = 5"));
    assert_eq!(e.key.as_deref(), Some("tunnel[0].client"), "{e:?}");
    assert!(e.message.contains("not a station"), "{e:?}");
    let e = err(SCENARIO.replace("burst = 5", "burst = 0"));
    assert_eq!(e.key.as_deref(), Some("tunnel[0].burst"), "{e:?}");
    let e = err(SCENARIO.replace("burst = 5", "burst = 5\ntrigger_max = \"1s\""));
    assert_eq!(e.key.as_deref(), Some("tunnel[0].trigger_max"), "{e:?}");
    assert!(e.message.contains("beacon interval"), "{e:?}");
    let e = err(SCENARIO.replace("power_save = \"u-apsd\"", "power_save = \"psm\"").replace("burst = 5", "burst = 5\ntrigger = true"));
    assert_eq!(e.key.as_deref(), Some("tunnel[0].trigger"), "{e:?}");
    let e = err(SCENARIO.replace("burst = 5", "burst = 5\nencapsulation = \"gre\""));
    assert_eq!(e.key.as_deref(), Some("tunnel[0].encapsulation"), "{e:?}");
    let e = err(SCENARIO.replace("burst = 5", "burst = 5\nbogus = 1"));
    assert!(e.message.contains("bogus"), "{e:?}");
}

/// The baseline a run's saving is shown against (Python's `savings`) is the clarification's:
/// the same flows without the tunnel, under CAM; it runs to the same goodput.
#[test]
fn the_power_save_baseline_drops_the_tunnel() {
    let base = wattlab_sim::scenario::without_power_save(SCENARIO, "t.toml", &[]).unwrap().expect("something to turn off");
    assert!(!base.contains("\n[[tunnel]]") && base.contains("power_save = \"cam\""), "{base}");
    assert!(base.starts_with("# t.toml, power saving off: wlan.bss (u-apsd), [[tunnel]] (removed)"), "{base}");
    let s = run(&base, &["simulation.duration=\"2s\"".into()]);
    assert!(s.tunnels.is_empty());
}

/// Same scenario and seed, same results to the byte (the tunnel draws no random numbers).
#[test]
fn tunnel_runs_are_deterministic() {
    let set = ["simulation.duration=\"3s\"".to_string()];
    let a = serde_json::to_string(&run(SCENARIO, &set)).unwrap();
    let b = serde_json::to_string(&run(SCENARIO, &set)).unwrap();
    assert_eq!(a, b);
}

/// `text` with its 802.11a BSS turned into 802.11ax HE-MCS 7, 20 MHz, 1 stream (EDCA, A-MPDU
/// with Block Ack, U-APSD's released frames aggregated).
fn on_80211ax(text: &str) -> String {
    let legacy = "phy = \"802.11a\"\nrate = \"54Mbps\"";
    assert!(text.contains(legacy), "the scenario's BSS is 802.11a at 54 Mb/s");
    text.replace(legacy, "phy = \"802.11ax\"\nmcs = 7\nnss = 1\nwidth = 20")
}

#[test]
fn the_tunnel_saves_energy_on_80211ax_too() {
    // Issue 29 item 6: the same four flows and tunnel over an aggregating 802.11ax BSS.
    let tunnel = run(&on_80211ax(SCENARIO), &[]);
    let cam = run(&on_80211ax(&without_tunnel("cam")), &[]);
    let psm = run(&on_80211ax(&without_tunnel("psm")), &[]);
    let (e_t, e_c, e_p) = (client_energy(&tunnel), client_energy(&cam), client_energy(&psm));
    let (g_t, rtt_t) = traffic(&tunnel);
    let (g_c, rtt_c) = traffic(&cam);
    let (_, rtt_p) = traffic(&psm);
    eprintln!("802.11ax: tunnel {e_t:.3} J {g_t:.0} B/s {rtt_t:.1} ms; cam {e_c:.3} J {g_c:.0} B/s {rtt_c:.1} ms; psm {e_p:.3} J {rtt_p:.1} ms");
    assert!(tunnel.wlans[0].stations.iter().any(|s| s.ampdu_mean > 1.0), "frames went aggregated");
    assert_tunnel_saves(&tunnel, &cam, &psm);
}

/// The handshake chunks of the client's capture, in order, with their times (s), read by our
/// decoder (CRC32c verified).
fn handshake_in_capture(extra: &str, dir: &std::path::Path) -> (std::path::PathBuf, Vec<(f64, String)>) {
    std::fs::create_dir_all(dir).unwrap();
    let opts = BuildOptions { out_dir: Some(dir.to_path_buf()), pcaps: vec!["client:wlan0".into()], timeseries: false, ..Default::default() };
    let text = SCENARIO.replace("burst = 5", &format!("burst = 5\n{extra}"));
    let sim = Simulation::from_toml(&text, "tunnel-4flows.toml", None, &["simulation.duration=\"300ms\"".into()], &opts).unwrap();
    sim.run().unwrap();
    let path = dir.join("client-wlan0.pcap");
    let bytes = std::fs::read(&path).unwrap();
    let mut reader = pcap_file::pcap::PcapReader::new(&bytes[..]).unwrap();
    let mut out = Vec::new();
    let mut first_data = None;
    while let Some(pkt) = reader.next_packet() {
        let pkt = pkt.unwrap();
        let frame = etherparse::SlicedPacket::from_ethernet(&pkt.data).unwrap();
        let Some(etherparse::TransportSlice::Udp(udp)) = &frame.transport else { continue };
        let v = wattlab_core::wire::sctp::decode_sctp(udp.payload()).expect("a valid SCTP packet");
        if let Some(c) = v.header.control {
            let name = format!("{c:?}");
            out.push((pkt.timestamp.as_secs_f64(), name.split('(').next().unwrap().to_string()));
        } else if v.header.data.is_some() && first_data.is_none() {
            first_data = Some(pkt.timestamp.as_secs_f64());
        }
    }
    // No DATA before the association is established.
    if let (Some(d), Some(last)) = (first_data, out.last()) {
        assert!(d >= last.0, "DATA at {d} s before the handshake ended at {} s", last.0);
    }
    (path, out)
}

/// RFC 9260 §5.1 on the wire (issue 32): the client's INIT at time zero, then INIT ACK, COOKIE
/// ECHO and COOKIE ACK before any DATA; `handshake = false` (pre-established) has none. tshark,
/// when installed, names the four chunks and verifies their CRC32c.
#[test]
fn the_association_starts_with_the_handshake_at_time_zero() {
    let dir = std::env::temp_dir().join(format!("wattlab-tunnel-hs-{}", std::process::id()));
    let (path, hs) = handshake_in_capture("", &dir);
    let names: Vec<&str> = hs.iter().map(|h| h.1.as_str()).collect();
    assert_eq!(names, ["Init", "InitAck", "CookieEcho", "CookieAck"], "{hs:?}");
    // The INIT goes at time zero, on the air once the dozing radio woke (1 ms, Table 4.2); the
    // rest is three more frame exchanges.
    assert!(hs[0].0 < 2e-3 && hs[3].0 - hs[0].0 < 2e-3, "the handshake right from time zero: {hs:?}");
    if let Some(text) = tool("tshark", &["-o", "sctp.checksum:CRC-32c", "-V", "-r"], &path) {
        for chunk in ["INIT chunk", "INIT_ACK chunk", "COOKIE_ECHO chunk", "COOKIE_ACK chunk"] {
            assert_eq!(text.matches(chunk).count(), 1, "{chunk}:\n{text}");
        }
        assert_eq!(text.matches("(CRC32C)").count(), text.matches("[correct]").count(), "every CRC32c correct");
    }
    let (_, none) = handshake_in_capture("handshake = false", &dir);
    assert!(none.is_empty(), "{none:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `max_burst` (RFC 9260 §6.1 D): with 4 and m = 5 the endpoints' output is cut (counted in the
/// summary) and every inner packet still arrives; with the default 0 never; out of range is an
/// error naming the key.
#[test]
fn max_burst_caps_the_tunnels_bursts() {
    let set = ["simulation.duration=\"3s\"".to_string()];
    let limited = |s: &Summary| s.tunnels.iter().map(|t| t.stats.max_burst_limited).sum::<u64>();
    let off = run(SCENARIO, &set);
    let on = run(SCENARIO, &[set[0].clone(), "tunnel.0.max_burst=4".into()]);
    assert_eq!(limited(&off), 0);
    assert!(limited(&on) > 0, "{:?}", on.tunnels);
    let (g_off, g_on) = (traffic(&off).0, traffic(&on).0);
    assert!((g_on / g_off - 1.0).abs() < 0.05, "same traffic: {g_on} vs {g_off} B/s");
    let e = Simulation::from_toml(&SCENARIO.replace("burst = 5", "burst = 5\nmax_burst = 5000"), "t.toml", None, &[], &BuildOptions::default())
        .err()
        .expect("refused");
    assert_eq!(e.key.as_deref(), Some("tunnel[0].max_burst"), "{e:?}");
}
