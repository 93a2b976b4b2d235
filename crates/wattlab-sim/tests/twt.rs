//! 802.11ax individual TWT end to end: the setup exchange at association (its airtime), the
//! AP holding a station's frames until its service periods, the station dozing outside them,
//! on an 802.11ax BSS and on the `[[wireless]]` hop; a PHY that cannot carry TWT is refused.

use wattlab_sim::{BuildOptions, Simulation, Summary};

/// A server, an AP and one station; `medium` is the hop or BSS section, `flows` the flows.
fn scenario(medium: &str, flows: &str, duration: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"
[[node]]
name = "server"
kind = "host"
[[node]]
name = "ap"
kind = "ap"
[[node]]
name = "client"
kind = "host"
radio = {{ profile = "wavelan-dsss", policies = ["always-on"] }}
[[link]]
a = "server"
b = "ap"
rate = "1Gbps"
delay = "1ms"
{medium}
{flows}
"#
    )
}

fn bss(mode: &str, phy: &str) -> String {
    format!("[[wlan]]\nname = \"bss\"\nap = \"ap\"\nstations = [\"client\"]\nphy = \"{phy}\"\nmcs = 7\nnss = 1\nwidth = 20\ngi = \"800ns\"\npower_save = \"{mode}\"\n")
}

/// 200-byte datagrams every 10 ms from the server for 2 s (200 of them).
const CBR: &str = "[[flow]]\nkind = \"udp-cbr\"\nname = \"down\"\nfrom = \"server\"\nto = \"client\"\nrate = \"160kbps\"\npacket_size = \"200B\"\nduration = \"2s\"\n";

fn run(text: &str) -> Summary {
    let sim = Simulation::from_toml(text, "twt.toml", Some(3), &[], &BuildOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    sim.run().unwrap_or_else(|e| panic!("{e}")).summary
}

fn flow(s: &Summary) -> serde_json::Value {
    serde_json::to_value(&s.flows[0]).unwrap()
}

/// With no traffic, the station's only frames are its TWT Setup request (48 B at the 24 Mb/s
/// basic rate: 20 µs + 4 µs × ⌈(16 + 384 + 6) / 96⌉ = 40 µs), SIFS (16 µs) and the AP's ACK
/// (14 B: 20 + 4 × ⌈134 / 96⌉ = 28 µs): 84 µs; the AP's response costs it as much.
#[test]
fn the_setup_exchange_is_on_the_air_at_association() {
    let s = run(&scenario(&bss("twt:interval=100ms,duration=4000us", "802.11ax"), "", "1s"));
    let w = &s.wlans[0];
    let (ap, sta) = (&w.stations[0], &w.stations[1]);
    assert_eq!((ap.stats.attempts, sta.stats.attempts), (1, 1));
    assert_eq!((ap.stats.airtime_ns, sta.stats.airtime_ns), (84_000, 84_000));
    // Then it dozes outside its SPs: 9 SPs in 1 s (at 100, 200 ... 900 ms) of 4096 µs, not
    // 4000: the AP's response carries the duration its element can (16 × 256 µs, rounded up)
    // and both ends follow it (was 36..37 ms before the rounding); awake otherwise only for
    // the setup (channel access and the two exchanges, under 1 ms).
    assert_eq!(sta.stats.dozes, 10);
    let awake_ns = 1_000_000_000 - sta.stats.doze_ns;
    assert!((36_864_000..37_864_000).contains(&awake_ns), "awake {awake_ns} ns");
}

/// Downlink datagrams every 10 ms with SPs every 100 ms: the AP holds each until the next
/// SP (a mean wait of ~50 ms: the arrivals are spread evenly over the interval), all are
/// delivered, and the station dozes outside its 4 ms SPs (the run ends with the flow, ~2 s).
#[test]
fn frames_are_held_until_the_service_period_and_all_delivered() {
    let mode = "twt:interval=100ms,duration=4000us";
    let s = run(&scenario(&bss(mode, "802.11ax"), CBR, "3s"));
    let f = flow(&s);
    assert_eq!((f["datagrams_sent"].as_u64(), f["datagrams_received"].as_u64()), (Some(200), Some(200)), "{f}");
    let mean = f["delay_mean_ms"].as_f64().unwrap();
    let max = f["delay_max_ms"].as_f64().unwrap();
    assert!((45.0..=56.0).contains(&mean), "mean delay {mean} ms");
    assert!(max <= 101.5, "no datagram waits more than one interval: {max} ms");
    let sta = &s.wlans[0].stations[1].stats;
    let end_ns = (s.end_time_s * 1e9).round() as u64;
    let sps = end_ns / 100_000_000;
    // The last datagram (sent at 1.99 s) is delivered in the SP at 2.0 s, and the run ends in
    // it: one doze after the setup and one after each of the 19 SPs before.
    assert_eq!((sps, sta.dozes), (20, 20));
    // Each SP lasts the negotiated 4096 µs (4000 rounded up to 16 × 256 µs; was 4 ms).
    let awake_ns = end_ns - sta.doze_ns;
    let last = end_ns - 2_000_000_000;
    assert!(awake_ns >= 19 * 4_096_000 + last && awake_ns < 19 * 4_096_000 + last + 1_000_000, "awake {awake_ns} ns");
    // The radio meter sleeps as long, less a wake-up and a doze transition per SP.
    let r = s.radios.iter().find(|r| r.policy == mode).unwrap();
    assert_eq!(r.report.sleep.time_ns + r.report.transitions.time_ns, sta.doze_ns);
    // Against always awake (cam) the same datagrams arrive ~1 ms after they are sent.
    let cam = run(&scenario(&bss("cam", "802.11ax"), CBR, "3s"));
    assert!(flow(&cam)["delay_mean_ms"].as_f64().unwrap() < 2.0);
}

/// Announced: the AP waits for the station's QoS-Null in each SP (one Null frame per SP).
#[test]
fn an_announced_agreement_sends_a_null_frame_each_service_period() {
    let s = run(&scenario(&bss("twt:interval=100ms,duration=4000us,announced=true", "802.11ax"), CBR, "3s"));
    assert_eq!(flow(&s)["datagrams_received"].as_u64(), Some(200));
    let sta = &s.wlans[0].stations[1].stats;
    assert_eq!(sta.null_frames, sta.dozes, "one Null per SP (the run ends in the 20th)");
    assert!(sta.null_frames >= 19, "{} Null frames", sta.null_frames);
    let mean = flow(&s)["delay_mean_ms"].as_f64().unwrap();
    assert!((45.0..=56.0).contains(&mean), "mean delay {mean} ms");
}

#[test]
fn a_phy_without_twt_is_refused_with_the_key() {
    for phy in ["802.11n", "802.11ac", "80211a"] {
        let text = scenario(&bss("twt:interval=100ms,duration=4000us", phy).replace("mcs = 7\nnss = 1\nwidth = 20\ngi = \"800ns\"\n", if phy == "80211a" { "rate = \"54Mbps\"\n" } else { "mcs = 7\n" }), "", "1s");
        let e = Simulation::from_toml(&text, "twt.toml", None, &[], &BuildOptions::default()).err().unwrap_or_else(|| panic!("{phy} accepted")).to_string();
        assert!(e.contains("needs an 802.11ax (HE) PHY") && e.contains("power_save"), "{e}");
    }
}

/// The hop has no air for a setup exchange: the agreement holds from t = 0 and SPs are at
/// multiples of the interval; a datagram waits for the next one.
#[test]
fn on_the_hop_datagrams_wait_for_the_next_service_period() {
    let hop = "[[wireless]]\nname = \"hop\"\nap = \"ap\"\nstation = \"client\"\nrate = \"54Mbps\"\npower_save = \"twt:interval=50ms,duration=2000us\"\n";
    let s = run(&scenario(hop, CBR, "3s"));
    let f = flow(&s);
    assert_eq!(f["datagrams_received"].as_u64(), Some(200), "{f}");
    let mean = f["delay_mean_ms"].as_f64().unwrap();
    assert!((20.0..=28.0).contains(&mean), "mean delay {mean} ms (50 ms interval)");
    let h = &s.wireless[0];
    assert!(h.stats.packets_held >= 150, "{:?}", h.stats);
}


/// Per-station SP offsets on one BSS: `a` has SPs at multiples of 100 ms, `b` (offset 50 ms)
/// at 50, 150, 250 ms... One 200-byte datagram every 100 ms from t = 10 ms to each (at the
/// AP 1 ms later): `a`'s wait until the next multiple of 100 ms (a delay of 90 ms), `b`'s
/// until the next 50 + 100 k ms (40 ms), plus under 1 ms of medium access in the SP.
/// Without the offset both stations would wake together and share every SP.
#[test]
fn per_station_offsets_move_each_stations_service_periods() {
    let mode = "twt:interval=100ms,duration=4000us";
    let medium = format!(
        "[[wlan]]\nname = \"bss\"\nap = \"ap\"\nstations = [\"client\", \"b\"]\nphy = \"802.11ax\"\nmcs = 7\npower_save = \"{mode}\"\n\
         [[wlan.station]]\nnode = \"b\"\npower_save = \"{mode},offset=50000us\"\n"
    );
    let cbr = |to: &str| {
        format!("[[flow]]\nkind = \"udp-cbr\"\nfrom = \"server\"\nto = \"{to}\"\nrate = \"16kbps\"\npacket_size = \"200B\"\nstart = \"10ms\"\nduration = \"2s\"\n")
    };
    let text = scenario(&medium, &format!("{}{}", cbr("client"), cbr("b")), "3s")
        .replace("[[link]]", "[[node]]\nname = \"b\"\nkind = \"host\"\nradio = { profile = \"wavelan-dsss\", policies = [\"always-on\"] }\n[[link]]");
    let s = run(&text);
    let f = |i: usize| serde_json::to_value(&s.flows[i]).unwrap();
    for (i, wait) in [(0, 90.0), (1, 40.0)] {
        let f = f(i);
        assert_eq!(f["datagrams_sent"].as_u64(), f["datagrams_received"].as_u64(), "{f}");
        assert_eq!(f["datagrams_received"].as_u64(), Some(20), "{f}");
        for key in ["delay_min_ms", "delay_max_ms"] {
            let d = f[key].as_f64().unwrap();
            assert!((wait..wait + 1.0).contains(&d), "flow {i} {key} {d} ms, expected {wait} + 0..1 ms");
        }
    }
    // Each station's radio row is named by its own agreement.
    let rows: Vec<_> = s.radios.iter().filter(|r| r.policy.starts_with("twt:")).map(|r| r.policy.clone()).collect();
    assert!(rows.contains(&format!("{mode},offset=50000us")), "{rows:?}");
}

/// Trigger-enabled, no traffic: at each SP start the AP sends a Basic Trigger (34 B at the
/// 24 Mb/s control rate: 20 µs + 4 µs × ⌈(16 + 272 + 6) / 96⌉ = 36 µs, then SIFS 16 µs: 52 µs
/// of the AP's medium time) and the station answers with a QoS-Null (its TB PPDU) that the AP
/// acknowledges. Over 1 s: the setup (84 µs each way) and 9 SPs (100 … 900 ms).
#[test]
fn a_trigger_enabled_sp_starts_with_the_aps_trigger_and_the_stations_answer() {
    let s = run(&scenario(&bss("twt:interval=100ms,duration=4000us,trigger=true", "802.11ax"), "", "1s"));
    let w = &s.wlans[0];
    let (ap, sta) = (&w.stations[0].stats, &w.stations[1].stats);
    assert_eq!(ap.attempts, 1 + 9, "the setup response and one trigger per SP");
    assert_eq!(ap.airtime_ns, 84_000 + 9 * 52_000);
    assert_eq!((sta.attempts, sta.null_frames), (1 + 9, 9), "the setup request and one QoS-Null per SP");
    assert_eq!(sta.dozes, 10);
    assert_eq!(sta.collisions, 0);
}

/// The station's answer to a trigger is an HE TB PPDU (802.11ax-2021 27.4.3): its QoS-Null
/// (30 B: one data symbol at MCS 7, 20 MHz) takes 20 + 4 + 8 + HE-STF 8 = 40 µs, one 2x HE-LTF
/// with 1.6 µs GI (a TB PPDU has no 0.8 µs GI) 8 µs and one 14.4 µs symbol: 62.4 µs, where
/// the station's own HE SU PPDU takes 36 + 7.2 + 13.6 = 56.8 µs; then SIFS 16 µs and the
/// AP's ACK (28 µs, as for the setup above). Over 1 s: the setup (84 µs) and 9 answers.
#[test]
fn the_answer_to_a_trigger_is_an_he_tb_ppdu() {
    let s = run(&scenario(&bss("twt:interval=100ms,duration=4000us,trigger=true", "802.11ax"), "", "1s"));
    let sta = &s.wlans[0].stations[1].stats;
    assert_eq!(sta.null_frames, 9);
    assert_eq!(sta.airtime_ns, 84_000 + 9 * (62_400 + 16_000 + 28_000), "an HE SU answer would be 9 x 5.6 us shorter");
}

/// Uplink under a trigger-enabled agreement waits for the SP's trigger: one 200-byte
/// datagram every 100 ms from t = 10 ms from the station reaches the server 90–91 ms later
/// (the wait for the SP at the next multiple of 100 ms, its trigger and TB PPDU, the 1 ms
/// link), where the same agreement without the Trigger bit sends it at once (the station
/// wakes for its own frames: its radio's wake-up latency, channel access and the 1 ms link,
/// 3.5 ms at most here).
#[test]
fn trigger_enabled_uplink_waits_for_the_trigger() {
    let up = "[[flow]]\nkind = \"udp-cbr\"\nfrom = \"client\"\nto = \"server\"\nrate = \"16kbps\"\npacket_size = \"200B\"\nstart = \"10ms\"\nduration = \"2s\"\n";
    let delays = |mode: &str| {
        let s = run(&scenario(&bss(mode, "802.11ax"), up, "3s"));
        let f = flow(&s);
        assert_eq!(f["datagrams_received"].as_u64(), Some(20), "{mode}: {f}");
        (f["delay_min_ms"].as_f64().unwrap(), f["delay_max_ms"].as_f64().unwrap())
    };
    let (min, max) = delays("twt:interval=100ms,duration=4000us,trigger=true");
    eprintln!("triggered uplink delay {min:.3}..{max:.3} ms");
    assert!(min >= 90.0 && max < 92.0, "triggered uplink: {min}..{max} ms");
    let (_, max) = delays("twt:interval=100ms,duration=4000us");
    assert!(max < 5.0, "uplink without the Trigger bit goes at once: max {max} ms");
}

/// Downlink under a trigger-enabled agreement: the AP sends only after the station's answer
/// to its trigger (one QoS-Null per SP, as an announced agreement's), all datagrams arrive.
#[test]
fn trigger_enabled_downlink_waits_for_the_stations_answer() {
    let s = run(&scenario(&bss("twt:interval=100ms,duration=4000us,trigger=true", "802.11ax"), CBR, "3s"));
    let f = flow(&s);
    assert_eq!(f["datagrams_received"].as_u64(), Some(200), "{f}");
    let mean = f["delay_mean_ms"].as_f64().unwrap();
    assert!((45.0..=56.0).contains(&mean), "mean delay {mean} ms");
    let sta = &s.wlans[0].stations[1].stats;
    assert_eq!(sta.null_frames, sta.dozes, "one QoS-Null answer per SP");
}

/// Broadcast TWT (802.11ax-2021 §26.8.3), no traffic, 1 s: the station joins the AP's
/// schedule 1 with a TWT Setup exchange whose element carries a Broadcast TWT Parameter Set
/// (43 B at 24 Mb/s: 20 + 4 × ⌈(16 + 344 + 6) / 96⌉ = 36 µs, SIFS 16, ACK 28: 80 µs each way,
/// 4 µs less than an individual setup's 84), and the AP, which must announce the schedule,
/// sends beacons (a TWT-only BSS has none otherwise): 100 B + the TWT element's 12 B (ID,
/// Length, Control 3, one parameter set 9) at 6 Mb/s, 20 + 4 × ⌈(16 + 896 + 6) / 24⌉ = 176 µs
/// (160 µs without it), at 102.4, 204.8 … 921.6 ms: 9 beacons. The medium is busy for
/// exactly 2 × 80 + 9 × 176 µs, the AP's airtime 80 + 9 × 176 µs. The station still dozes
/// outside its SPs (as individually).
#[test]
fn a_broadcast_schedule_is_joined_by_id_and_announced_in_every_beacon() {
    let s = run(&scenario(&bss("twt:interval=100ms,duration=4000us,broadcast=1", "802.11ax"), "", "1s"));
    let w = &s.wlans[0];
    let (ap, sta) = (&w.stations[0].stats, &w.stations[1].stats);
    // The AP's airtime counts its beacons too.
    assert_eq!((ap.airtime_ns, sta.airtime_ns), (80_000 + 9 * 176_000, 80_000));
    assert_eq!(w.stats.beacons, 9);
    assert_eq!(w.stats.busy_ns, 2 * 80_000 + 9 * 176_000);
    assert_eq!(sta.dozes, 10);
    // The same agreement, individual: no beacons, the longer setup.
    let i = run(&scenario(&bss("twt:interval=100ms,duration=4000us", "802.11ax"), "", "1s"));
    assert_eq!((i.wlans[0].stats.beacons, i.wlans[0].stats.busy_ns), (0, 2 * 84_000));
    // Downlink is held for the SPs and all delivered, as for an individual agreement.
    let d = run(&scenario(&bss("twt:interval=100ms,duration=4000us,broadcast=1", "802.11ax"), CBR, "3s"));
    assert_eq!(flow(&d)["datagrams_received"].as_u64(), Some(200), "{}", flow(&d));
    let mean = flow(&d)["delay_mean_ms"].as_f64().unwrap();
    assert!((45.0..=56.0).contains(&mean), "mean delay {mean} ms");
}

/// Two stations; the BSS's mode for both, `b`'s own in a `[[wlan.station]]` table.
fn two_stations(bss_mode: &str, b_mode: &str, beacons: &str) -> String {
    let medium = format!(
        "[[wlan]]\nname = \"bss\"\nap = \"ap\"\nstations = [\"client\", \"b\"]\nphy = \"802.11ax\"\nmcs = 7\n{beacons}power_save = \"{bss_mode}\"\n\
         [[wlan.station]]\nnode = \"b\"\npower_save = \"{b_mode}\"\n"
    );
    scenario(&medium, "", "1s").replace("[[link]]", "[[node]]\nname = \"b\"\nkind = \"host\"\n[[link]]")
}

/// One Broadcast TWT ID is one schedule: a station joining it with other parameters is an
/// error at its `power_save` line; stations of different IDs may differ; a BSS told not to
/// send beacons cannot announce a schedule.
#[test]
fn stations_of_one_broadcast_id_must_name_one_schedule() {
    let bad = two_stations("twt:interval=100ms,duration=4000us,broadcast=1", "twt:interval=50ms,duration=4000us,broadcast=1", "");
    let e = Simulation::from_toml(&bad, "twt.toml", None, &[], &BuildOptions::default()).err().expect("two schedules under one ID").to_string();
    assert!(e.contains("twt.toml") && e.contains("wlan[0].station[0].power_save") && e.contains("broadcast TWT 1"), "{e}");
    let line = bad.lines().position(|l| l.contains("interval=50ms")).unwrap() + 1;
    assert!(e.starts_with(&format!("twt.toml:{line}:")), "{e}");
    let ok = two_stations("twt:interval=100ms,duration=4000us,broadcast=1", "twt:interval=100ms,duration=4000us,offset=50000us,broadcast=2", "");
    let s = run(&ok);
    // Two schedules in one TWT element: 3 + 2 × 9 = 21 B more per beacon, 121 B:
    // 20 + 4 × ⌈(16 + 968 + 6) / 24⌉ = 188 µs; the AP's airtime is its two setup responses
    // (80 µs each) and 9 beacons.
    let ap = &s.wlans[0].stations[0].stats;
    assert_eq!((s.wlans[0].stats.beacons, ap.airtime_ns, ap.collisions), (9, 2 * 80_000 + 9 * 188_000, 0));
    let off = two_stations("twt:interval=100ms,duration=4000us,broadcast=1", "twt:interval=100ms,duration=4000us,broadcast=1", "beacons = false\n");
    let e = Simulation::from_toml(&off, "twt.toml", None, &[], &BuildOptions::default()).err().expect("no beacons").to_string();
    assert!(e.contains("announced in beacons") && e.contains("beacons"), "{e}");
}

/// The hop has no AP beacons to announce a broadcast schedule: refused at its key.
#[test]
fn a_broadcast_schedule_on_the_hop_is_refused() {
    let hop = "[[wireless]]\nname = \"hop\"\nap = \"ap\"\nstation = \"client\"\nrate = \"54Mbps\"\npower_save = \"twt:interval=50ms,duration=2000us,broadcast=1\"\n";
    let e = Simulation::from_toml(&scenario(hop, "", "1s"), "twt.toml", None, &[], &BuildOptions::default()).err().expect("refused").to_string();
    assert!(e.contains("broadcast TWT needs a [[wlan]]") && e.contains("wireless[0].power_save"), "{e}");
}

/// On a BSS the AP's TWT Setup response carries the wake duration its element can (rounded up
/// to 256 µs: 4000 → 4096 µs) and both ends follow it: a BSS asked for 4000 µs runs exactly as
/// one asked for 4096 µs, while the station's radio row keeps the requested name. On the hop
/// (no element on the air) the duration stays as given: 4000 and 4096 µs differ there by
/// 96 µs per SP.
#[test]
fn a_bss_follows_the_representable_wake_duration_and_the_hop_the_given_one() {
    let asked = run(&scenario(&bss("twt:interval=100ms,duration=4000us", "802.11ax"), CBR, "3s"));
    let exact = run(&scenario(&bss("twt:interval=100ms,duration=4096us", "802.11ax"), CBR, "3s"));
    let (a, e) = (&asked.wlans[0].stations[1], &exact.wlans[0].stations[1]);
    assert_eq!((a.stats.doze_ns, a.stats.dozes), (e.stats.doze_ns, e.stats.dozes));
    assert_eq!(a.power_save, "twt:interval=100ms,duration=4000us");
    assert_eq!((a.twt_wake_duration_us, e.twt_wake_duration_us), (Some(4096), Some(4096)));
    assert_eq!(asked.wlans[0].stations[0].twt_wake_duration_us, None, "the AP has no agreement of its own");
    assert!(asked.radios.iter().any(|r| r.policy == "twt:interval=100ms,duration=4000us"));
    let hop = |d: u32| run(&scenario(&format!("[[wireless]]\nname = \"hop\"\nap = \"ap\"\nstation = \"client\"\nrate = \"54Mbps\"\npower_save = \"twt:interval=100ms,duration={d}us\"\n"), "", "1s"));
    let sleep = |s: &Summary| s.radios.iter().find(|r| r.policy.starts_with("twt:")).unwrap().report.sleep.time_ns;
    // 9 SPs in 1 s on the hop (100 … 900 ms; the machine dozes at once at t = 0, as in
    // docs/validation.md's 280 ms of 300): 9 × 96 µs more asleep with the shorter one.
    assert_eq!(sleep(&hop(4000)) - sleep(&hop(4096)), 9 * 96_000);
}

/// A duration whose representable value (rounded up) is not below the interval is refused at
/// the mode's key, naming the value the AP would answer with and the longest that fits.
#[test]
fn a_wake_duration_that_rounds_up_to_the_interval_is_refused() {
    let text = scenario(&bss("twt:interval=1ms,duration=999us", "802.11ax"), "", "1s");
    let e = Simulation::from_toml(&text, "twt.toml", None, &[], &BuildOptions::default()).err().expect("999 µs in 1 ms accepted").to_string();
    assert!(e.contains("power_save") && e.contains("duration=1024us") && e.contains("duration=768us or less"), "{e}");
}
