//! The trace energy analyzer against captures whose truth is known: simulator runs (whose
//! radio the simulator metered itself, from the same packets) and closed forms.

mod common;

use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};

use common::*;
use pcap_file::{DataLink, Endianness, TsResolution};
use wattlab_core::energy::{builtin_profile, DeviceProfile, EnergyReport, PsmParams, RadioState};
use wattlab_core::{Duration, Time};
use wattlab_sim::build::BuildOptions;
use wattlab_sim::output::RunOutput;
use wattlab_sim::Simulation;
use wattlab_trace::airtime::{Airtime, Direction};
use wattlab_trace::energy::*;
use wattlab_trace::policy_spec::{PolicySpec, SpecContext};
use wattlab_trace::TraceReader;

/// The client of every scenario here (the third node).
const CLIENT: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 3));

/// server ──(100 Mb/s, 10 ms)── ap ~~(20 Mb/s `[[wireless]]` hop, no loss)~~ client, a
/// download of `bytes`; `hop` and `more` are TOML added to the hop and after the flow.
fn scenario(profile: &str, bytes: &str, hop: &str, more: &str) -> String {
    format!(
        r#"
name = "trace-energy"
[simulation]
seed = 1
[[node]]
name = "server"
kind = "host"
[[node]]
name = "ap"
kind = "ap"
[[node]]
name = "client"
kind = "host"
radio = {{ profile = "{profile}", policies = ["always-on", "oracle"] }}
[[link]]
name = "wired"
a = "server"
b = "ap"
rate = "100Mbps"
delay = "10ms"
[[wireless]]
name = "wlan"
ap = "ap"
station = "client"
rate = "20Mbps"
{hop}
[[flow]]
kind = "bulk-download"
name = "dl"
client = "client"
server = "server"
bytes = "{bytes}"
{more}
"#
    )
}

/// A fresh directory for one test's files.
fn out_dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wattlab-trace-energy-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `text`, capturing the client's wireless interface; returns the run and the capture.
fn simulate(text: &str, dir: &Path, timeseries: bool) -> (RunOutput, PathBuf) {
    let opts = BuildOptions { out_dir: Some(dir.to_path_buf()), pcaps: vec!["client:wlan0".into()], timeseries, ..Default::default() };
    let out = Simulation::from_toml(text, "trace-energy.toml", None, &[], &opts)
        .expect("scenario builds")
        .run()
        .expect("run succeeds");
    assert!(out.summary.completed, "the download finishes");
    (out, dir.join("client-wlan0.pcap"))
}

/// The simulator's report for the client's radio under `policy`.
fn sim_report<'a>(out: &'a RunOutput, policy: &str) -> &'a EnergyReport {
    &out.summary.radios.iter().find(|r| r.node == "client" && r.policy == policy).expect("radio report").report
}

fn options(profile: &str, airtime: Airtime, policies: &[&str], cx: &SpecContext) -> EnergyOptions {
    EnergyOptions {
        client: Some(CLIENT),
        profile: builtin_profile(profile).unwrap(),
        airtime,
        policies: policies.iter().map(|p| PolicySpec::parse(p, cx).unwrap()).collect(),
        bin: Duration::from_millis(100),
        tail: Duration::ZERO,
        timeline: TimelineOutput::Off,
        time: wattlab_trace::timecheck::TimeLimits::default(),
        max_connections: DEFAULT_MAX_CONNECTIONS,
        client_mac: None,
    }
}

fn outcome<'a>(a: &'a EnergyAnalysis, label: &str) -> &'a PolicyOutcome {
    a.policies.iter().find(|p| p.label == label).expect("policy in the analysis")
}

/// Power of `s` in µW (so `ns × power` is fJ).
fn p(profile: &DeviceProfile, s: RadioState) -> i128 {
    profile.power_uw(s) as i128
}

/// One packet to or from the client: capture time, direction, IP length, group-addressed.
#[derive(Clone, Copy, Debug)]
struct Pkt {
    ts: Time,
    dir: Direction,
    ip_len: u32,
    group: bool,
}

/// The client's packets, read independently of the analyzer, in capture order.
fn client_packets(path: &Path) -> Vec<Pkt> {
    let mut r = TraceReader::open(path).unwrap();
    let mut v = Vec::new();
    while let Some(x) = r.next_packet() {
        let x = x.unwrap();
        let dir = if x.src == CLIENT {
            Direction::Up
        } else if x.dst == CLIENT {
            Direction::Down
        } else {
            continue;
        };
        v.push(Pkt { ts: Time(x.ts_ns), dir, ip_len: x.ip_len, group: false });
    }
    v
}

/// What a half-duplex radio does with a capture's packets, computed here from the spec
/// (docs/trace.md, "Ordering"): packets go in the order their first interval starts (a received
/// one's frames end at its capture time, so they start before it; ties in capture order), each
/// packet's frame exchange stays together, a sent packet waits until the radio is free (the
/// sender defers), and a received interval starting before the previous end is clipped to it.
#[derive(Debug, Default, PartialEq, Eq)]
struct Sums {
    tx_ns: u64,
    rx_ns: u64,
    clipped_ns: u64,
    deferred: u64,
    deferred_ns: u64,
    start: u64,
    end: u64,
    /// Intervals fed (a bound on the number of gaps between them, less one).
    intervals: u64,
}

fn first_start(k: &Pkt, airtime: &Airtime) -> Time {
    let mut first = None;
    airtime.for_each(k.ts, k.dir, k.ip_len, k.group, |(s, _, _)| {
        first.get_or_insert(s);
    });
    first.unwrap()
}

fn expected_sums(pkts: &[Pkt], airtime: &Airtime) -> Sums {
    let mut order: Vec<(Time, Pkt)> = pkts.iter().map(|k| (first_start(k, airtime), *k)).collect();
    order.sort_by_key(|e| e.0); // stable: ties stay in capture order
    let mut s = Sums { start: order[0].0.as_nanos(), ..Sums::default() };
    let mut last_end = s.start;
    for (_, k) in order {
        let mut t = k.ts.as_nanos();
        if k.dir == Direction::Up && last_end > t {
            s.deferred += 1;
            s.deferred_ns += last_end - t;
            t = last_end;
        }
        let mut exchange = Vec::new();
        airtime.for_each(Time(t), k.dir, k.ip_len, k.group, |i| exchange.push(i));
        for (a, b, kind) in exchange {
            let (a, b) = (a.as_nanos(), b.as_nanos());
            s.intervals += 1;
            s.clipped_ns += b.min(last_end).saturating_sub(a);
            let a = a.max(last_end);
            if b <= a {
                continue;
            }
            match kind.state() {
                RadioState::Tx => s.tx_ns += b - a,
                RadioState::Rx => s.rx_ns += b - a,
                _ => {}
            }
            last_end = b;
        }
    }
    s.end = last_end;
    s
}

/// Always-on over 802.11g airtime is a closed form: the radio idles for the whole run and pays
/// the difference to Tx or Rx power while sending or receiving, so
/// `E = T·P_idle + tx·(P_tx − P_idle) + rx·(P_rx − P_idle)`, exactly in fJ (ns × µW), with the
/// tx and rx times of the frame exchanges computed here independently.
#[test]
fn always_on_is_the_closed_form_over_80211_airtime() {
    let dir = out_dir("closed-form");
    let (_, pcap) = simulate(&scenario("atheros-ar5004", "300kB", "", ""), &dir, false);
    let air = Airtime::parse("802.11g@54").unwrap();
    let a = analyze(&pcap, &options("atheros-ar5004", air, &["always-on"], &SpecContext::default())).unwrap();
    let r = &a.policies[0].report;
    let pkts = client_packets(&pcap);
    let want = expected_sums(&pkts, &air);
    assert_eq!(a.packets_up + a.packets_down, pkts.len() as u64);
    assert!(a.packets_down > 200 && a.packets_up > 50, "{} down, {} up", a.packets_down, a.packets_up);
    // The TCP ACK a station sends as a segment is in must wait for the MAC ACK of that segment
    // (SIFS + ACK): it is deferred.
    assert!(want.deferred > 0);
    let got = Sums {
        tx_ns: r.tx.time_ns,
        rx_ns: r.rx.time_ns,
        clipped_ns: r.clipped_activity_ns,
        deferred: a.deferred_packets,
        deferred_ns: a.deferred_ns,
        start: a.start_ns,
        end: a.end_ns,
        intervals: want.intervals,
    };
    assert_eq!(got, want);
    assert_eq!((r.start_ns, r.end_ns, r.duration_ns), (a.start_ns, a.end_ns, a.end_ns - a.start_ns));
    let prof = builtin_profile("atheros-ar5004").unwrap();
    let (idle, tx, rx) = (p(&prof, RadioState::Idle), p(&prof, RadioState::Tx), p(&prof, RadioState::Rx));
    let e = r.duration_ns as i128 * idle + want.tx_ns as i128 * (tx - idle) + want.rx_ns as i128 * (rx - idle);
    assert_eq!(r.total_energy_fj as i128, e);
    assert_eq!(r.idle.time_ns, r.duration_ns - want.tx_ns - want.rx_ns);
    assert_eq!((r.sleep.time_ns, r.transitions.count, r.short_dormant_intervals), (0, 0, 0));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `link@R` charges what the simulator's `[[wireless]]` hop charges the radio (`ip_len × 8 / R`
/// per frame). With no propagation delay and no loss, a received frame ends exactly at its
/// capture and a sent one starts at it, and the hop is half-duplex, so the analyzer must see
/// exactly the simulator's radio intervals: same rx time, same tx time except frames the run's
/// end cut off, and the same energy under always-on and oracle but for those frames.
#[test]
fn link_airtime_reproduces_the_simulator_radio() {
    let dir = out_dir("link");
    let text = scenario("atheros-ar5004", "300kB", "delay = \"0us\"", "");
    let (out, pcap) = simulate(&text, &dir, false);
    let hop = out.summary.links.iter().find(|l| l.name == "wlan:ap->client").expect("hop link");
    assert_eq!((hop.rate_bps, hop.stats.losses, hop.stats.queue_drops), (20_000_000, 0, 0));
    let air = Airtime::parse("link@20").unwrap();
    let a = analyze(&pcap, &options("atheros-ar5004", air, &["always-on", "oracle"], &SpecContext::default())).unwrap();
    let sim_on = sim_report(&out, "always-on");
    let end = sim_on.end_ns;
    // The run stops when the download completes, as the client starts sending its last packets
    // (FIN): the simulator meters up to its end, the capture has the whole frames.
    let cut: u64 = client_packets(&pcap)
        .iter()
        .filter(|k| k.dir == Direction::Up && k.ts.as_nanos() >= end)
        .map(|k| Duration::transmission(u64::from(k.ip_len), 20_000_000).as_nanos())
        .sum();
    assert!(cut > 0);
    assert_eq!(a.packets_down, hop.stats.packets_delivered);
    let prof = builtin_profile("atheros-ar5004").unwrap();
    for label in ["always-on", "oracle"] {
        let (sim, got) = (sim_report(&out, label), &outcome(&a, label).report);
        assert_eq!(got.clipped_activity_ns, 0, "{label}");
        assert_eq!(got.rx.time_ns, sim.rx.time_ns, "{label}");
        assert_eq!(got.tx.time_ns, sim.tx.time_ns + cut, "{label}");
        assert_eq!((got.start_ns, got.end_ns), (sim.start_ns, end + cut), "{label}");
        assert_eq!(got.sleep.time_ns, sim.sleep.time_ns, "{label}");
        assert_eq!(got.transitions, sim.transitions, "{label}");
        assert_eq!(got.total_energy_fj, sim.total_energy_fj + u128::from(cut) * prof.power_uw(RadioState::Tx) as u128, "{label}");
    }
    assert!(outcome(&a, "oracle").report.sleep.time_ns > 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Same capture, every accounting policy: the oracle never costs more than always-on; PSM and
/// adaptive PSM never less than the oracle (up to 1 ns of idle power per gap: the break-even
/// time is rounded up to the ns); and per-connection attribution splits each total exactly.
#[test]
fn policies_bound_each_other_and_attribution_splits_the_total() {
    let dir = out_dir("policies");
    // The download, then pings 0.5 s apart: long gaps to sleep in, and a second connection.
    let ping = "[[flow]]\nkind = \"ping\"\nname = \"ping\"\nfrom = \"client\"\nto = \"server\"\ncount = 4\ninterval = \"0.5s\"\n";
    let (_, pcap) = simulate(&scenario("atheros-ar5004", "300kB", "", ping), &dir, false);
    let air = Airtime::default_phy();
    let Airtime::Phy { phy, .. } = air else { unreachable!() };
    let cx = SpecContext { psm: Some(PsmParams::for_phy(&phy)), ..SpecContext::default() };
    let labels = ["always-on", "oracle", "psm", "adaptive-psm"];
    let a = analyze(&pcap, &options("atheros-ar5004", air, &labels, &cx)).unwrap();
    let prof = builtin_profile("atheros-ar5004").unwrap();
    let r: Vec<&EnergyReport> = labels.iter().map(|l| &outcome(&a, l).report).collect();
    let sums = expected_sums(&client_packets(&pcap), &air);
    let slack = (sums.intervals as u128 + 1) * prof.power_uw(RadioState::Idle) as u128;
    assert!(r[1].total_energy_fj <= r[0].total_energy_fj, "oracle > always-on");
    assert!(r[1].total_energy_fj < r[0].total_energy_fj / 2, "the oracle sleeps through the pings' gaps");
    assert!(r[1].total_energy_fj <= r[2].total_energy_fj + slack, "oracle > psm");
    assert!(r[1].total_energy_fj <= r[3].total_energy_fj + slack, "oracle > adaptive-psm");
    assert!(outcome(&a, "psm").beacons > 10);
    for (l, x) in labels.iter().zip(&r) {
        // Same frames for all; PSM's beacon receptions add rx time.
        assert_eq!((x.tx.time_ns, x.clipped_activity_ns), (r[0].tx.time_ns, r[0].clipped_activity_ns), "{l}");
        assert!(x.rx.time_ns >= r[0].rx.time_ns, "{l}");
        assert_eq!((x.start_ns, x.end_ns), (a.start_ns, a.end_ns), "{l}");
    }
    // Two connections: the TCP download and the pings (ICMP echo).
    assert_eq!(a.connections.len(), 2);
    assert_eq!(a.connections.iter().map(|c| (c.protocol, c.remote)).collect::<Vec<_>>(), [
        (6, IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1))),
        (1, IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)))
    ]);
    assert_eq!(a.connections[1].packets_up, 4);
    for (l, o) in labels.iter().zip(&a.policies) {
        assert_eq!(o.by_connection.len(), a.connections.len() + 1, "{l}");
        let split: u128 = o.by_connection.iter().map(|&(own, tail)| own + tail).sum();
        assert_eq!(split, o.report.total_energy_fj, "{l}");
        assert!(o.by_connection[1..].iter().all(|&(own, _)| own > 0), "{l}: {:?}", o.by_connection);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Seed 000's emulated download with the client-centered agent: the agent's sleep/wake
/// schedule, as the simulator recorded it (its `cc` meter's timeline), replayed over the
/// client's capture, must cost what the simulator's `cc` meter did. Run as the scenario is
/// (the agent never drops a packet), and with jitter on the wired link and no wake guard, so
/// that the agent sleeps through arrivals (dropped) and wakes in the middle of frames.
#[test]
fn replaying_the_cc_agent_schedule_matches_the_simulator() {
    let (dropped, dormant) = check_replay("as-is", &[]);
    assert_eq!((dropped, dormant), (0, 0));
    let late = [
        "link.internet.a_to_b={ jitter = { model = \"gamma\", shape = 2.0, scale = \"3ms\" } }".to_string(),
        "wireless.hop.agent={ wake_guard = \"0us\", wake_var_factor = 0.0 }".to_string(),
    ];
    let (dropped, dormant) = check_replay("late", &late);
    assert!(dropped > 0 && dormant > 0, "{dropped} dropped, {dormant} received while dormant");
}

/// Runs `scenarios/yan-cc-download.toml` with `overrides`, replays the `cc` meter's timeline
/// over the capture and checks it against the simulator; returns the packets the agent
/// dropped asleep and the replay's `rx_while_dormant`.
fn check_replay(case: &str, overrides: &[String]) -> (u64, u64) {
    let dir = out_dir(&format!("replay-{case}"));
    let opts = BuildOptions { out_dir: Some(dir.clone()), pcaps: vec!["client:wlan0".into()], timeseries: true, ..Default::default() };
    let text = include_str!("../../../scenarios/yan-cc-download.toml");
    let out = Simulation::from_toml(text, "yan-cc-download.toml", None, overrides, &opts).unwrap().run().unwrap();
    assert!(out.summary.completed);
    let pcap = dir.join("client-wlan0.pcap");
    let cc = sim_report(&out, "cc");
    let ts = out.timeseries.as_ref().expect("time series");
    let rows: Vec<(f64, &str)> = (0..ts.radio.time_s.len())
        .filter(|&i| ts.radio.node[i] == "client" && ts.radio.policy[i] == "cc")
        .map(|i| (ts.radio.time_s[i], ts.radio.state[i]))
        .collect();
    assert!(rows.len() > 1000, "{case}: {} cc rows", rows.len());
    let csv = dir.join("cc.csv");
    let text: String = rows.iter().map(|(t, s)| format!("{t},{s}\n")).collect();
    std::fs::write(&csv, format!("time_s,state\n{text}")).unwrap();

    let hop = out.summary.links.iter().find(|l| l.name == "hop:ap->client").expect("hop link");
    let dropped = out.summary.wireless[0].stats.dropped_asleep;
    let rate = hop.rate_bps;
    let air = Airtime::Link { rate_bps: rate };
    let cx = SpecContext { transitions: Some(&csv), ..SpecContext::default() };
    let a = analyze(&pcap, &options("wavelan-dsss", air, &["replay"], &cx)).unwrap();
    let o = outcome(&a, "replay");
    let r = &o.report;

    // Packets the hop lost, or the agent dropped because its radio slept, never reach the
    // client's interface: the capture has exactly the delivered ones.
    assert_eq!(a.packets_down + hop.stats.losses + dropped, hop.stats.packets_sent, "{case}");
    assert_eq!(a.packets_down, hop.stats.packets_delivered, "{case}");
    // The replay reproduces the schedule: the same sleep and the same wake-ups.
    assert_eq!(r.sleep.time_ns, cc.sleep.time_ns, "{case}");
    assert_eq!((r.transitions.time_ns, r.transitions.energy_nj), (cc.transitions.time_ns, cc.transitions.energy_nj), "{case}");
    // Except dozes of no duration: the simulator's meter dozes and wakes at one instant when
    // the agent sleeps the radio as the station starts sending (the doze is deferred to the end
    // of the activity in progress). Those cost nothing but count two transitions and a short
    // dormant interval; the time series keeps one state per instant, so a replay never sees
    // them. (And one down leg more if the simulator's meter ends asleep after the capture.)
    assert_eq!(r.short_dormant_intervals, 0, "{case}");
    let extra = cc.transitions.count - r.transitions.count - 2 * cc.short_dormant_intervals;
    assert!(extra <= 1, "{case}: {:?} vs {:?}, {} short", cc.transitions, r.transitions, cc.short_dormant_intervals);
    // The hop's 1 µs propagation delay: a received packet is captured 1 µs after the radio
    // finished it, so a reply the station started meanwhile is deferred by (at most) 1 µs;
    // shifted, not shortened: the same transmit time.
    assert_eq!((r.tx.time_ns, r.clipped_activity_ns), (cc.tx.time_ns, 0), "{case}");
    assert!(a.deferred_ns <= a.deferred_packets * 1000, "{case}: {} ns over {}", a.deferred_ns, a.deferred_packets);
    // Received-frame time the capture lacks: frames the radio received but the interface never
    // delivered (lost on the hop, or dropped by the agent as it fell asleep), and at most one
    // frame the AP was still sending when the run ended.
    let uncaptured = Duration::transmission(hop.stats.bytes_sent - a.bytes_down, rate).as_nanos();
    let frame = Duration::transmission(1500, rate).as_nanos();
    let missing_rx = cc.rx.time_ns - r.rx.time_ns;
    assert!(missing_rx <= uncaptured + frame, "{case}: {missing_rx} vs {uncaptured}");
    if dropped == 0 {
        // Every uncaptured frame was lost on the air, after the radio had received it.
        assert!(hop.stats.losses > 0 && missing_rx >= uncaptured, "{case}: {missing_rx} vs {uncaptured}");
    }

    // Energy: the replay differs from the simulator's meter only by the above, so the
    // difference is at most the uncaptured frames' reception above idle power (the schedule
    // has the radio awake for them) plus the final frame at rx power; the 1 µs deferrals move
    // transmissions within awake time and cost nothing.
    let prof = builtin_profile("wavelan-dsss").unwrap();
    let (idle, rxp) = (p(&prof, RadioState::Idle), p(&prof, RadioState::Rx));
    let bound = uncaptured as i128 * (rxp - idle) + frame as i128 * rxp;
    let diff = cc.total_energy_fj as i128 - r.total_energy_fj as i128;
    eprintln!(
        "{case}: replay {:.6} J, simulator cc {:.6} J: relative difference {:.3e} (bound {:.3e}); {} frames lost on the \
         hop, {dropped} dropped asleep, {} sent packets deferred by {} ns, {} received while dormant",
        r.energy_j(),
        cc.energy_j(),
        diff as f64 / cc.total_energy_fj as f64,
        bound as f64 / cc.total_energy_fj as f64,
        hop.stats.losses,
        a.deferred_packets,
        a.deferred_ns,
        o.rx_while_dormant
    );
    assert!(diff.abs() <= bound, "{case}: {diff} fJ > {bound} fJ");

    // Received packets the schedule has dormant when their reception starts: the radio woke
    // while the AP was sending them (the simulator's radio did not hear them: it was asleep
    // when the frame started), so the replay does not cost them. Computed from the rows and
    // the capture.
    let sched: Vec<(u64, bool)> =
        rows.iter().map(|&(t, s)| ((t * 1e9).round() as u64, s == "sleep" || s == "off")).collect();
    let dormant_at = |t: u64| {
        let i = sched.partition_point(|&(at, _)| at <= t);
        i > 0 && sched[i - 1].1
    };
    let expect = client_packets(&pcap)
        .iter()
        .filter(|k| k.dir == Direction::Down)
        .filter(|k| dormant_at(first_start(k, &air).as_nanos()))
        .count() as u64;
    assert_eq!(o.rx_while_dormant, expect, "{case}");
    // The simulator logs the radio awake (tx) whenever the station sends, asleep or not.
    assert_eq!(o.busy_while_dormant, 0, "{case}");
    std::fs::remove_dir_all(&dir).unwrap();
    (dropped, o.rx_while_dormant)
}

/// `TimelineOutput::Csv` streams each policy's state changes (over several drains: the capture
/// has more than 4096 packets); on a card without transition costs, the time between rows,
/// summed per state, is the report's time in that state, and at the profile's powers its
/// energy. The in-memory timeline holds the same rows.
#[test]
fn csv_timelines_reproduce_the_report() {
    let dir = out_dir("timeline");
    let ping = "[[flow]]\nkind = \"ping\"\nname = \"ping\"\nfrom = \"client\"\nto = \"server\"\ncount = 3\ninterval = \"0.3s\"\n";
    let (_, pcap) = simulate(&scenario("wavelan-turbo-2mbps", "5MB", "", ping), &dir, false);
    let labels = ["always-on", "oracle", "psm", "adaptive-psm:timeout=50ms"];
    let mut opts = options("wavelan-turbo-2mbps", Airtime::default_phy(), &labels, &SpecContext::default());
    let prof = opts.profile.clone();
    assert!(prof.transition(RadioState::Sleep, RadioState::Idle).is_none());
    let tl = dir.join("timelines");
    std::fs::create_dir_all(&tl).unwrap();
    opts.timeline = TimelineOutput::Csv(tl.clone());
    let a = analyze(&pcap, &opts).unwrap();
    assert!(a.packets_up + a.packets_down > 4096);
    opts.timeline = TimelineOutput::Memory;
    let m = analyze(&pcap, &opts).unwrap();
    for (i, o) in a.policies.iter().enumerate() {
        let path = timeline_path(&tl, i);
        assert_eq!(o.timeline_file.as_deref(), Some(path.as_path()));
        assert!(o.timeline.is_empty());
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("time_s,state"));
        let rows: Vec<(u64, RadioState)> = lines
            .map(|l| {
                let (t, s) = l.split_once(',').unwrap();
                let (sec, frac) = t.split_once('.').unwrap();
                assert_eq!(frac.len(), 9, "{l}");
                (sec.parse::<u64>().unwrap() * 1_000_000_000 + frac.parse::<u64>().unwrap(), s.parse().unwrap())
            })
            .collect();
        assert_eq!(rows, m.policies[i].timeline.iter().collect::<Vec<_>>(), "{}", o.label);
        assert!(rows.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 != w[1].1), "{}: not time-ordered", o.label);
        assert_eq!(rows[0].0, a.start_ns);
        assert!(rows.last().unwrap().0 <= a.end_ns);
        let mut per = [0u64; RadioState::COUNT];
        for (k, &(t, s)) in rows.iter().enumerate() {
            let next = rows.get(k + 1).map_or(a.end_ns, |r| r.0);
            per[s.index()] += next - t;
        }
        let r = &o.report;
        let energy: u128 = RadioState::ALL.iter().map(|&s| per[s.index()] as u128 * prof.power_uw(s) as u128).sum();
        for s in RadioState::ALL {
            assert_eq!(per[s.index()], r.time_in(s).as_nanos(), "{} {s}", o.label);
        }
        assert_eq!((r.transitions.time_ns, energy), (0, r.total_energy_fj), "{}", o.label);
        assert!(rows.len() > 1000, "{}: {} rows", o.label, rows.len());
    }
    // The policies differ: the oracle and PSM sleep, always-on never does.
    assert_eq!(a.policies[0].report.sleep.time_ns, 0);
    assert!(a.policies[1].report.sleep.time_ns > 0 && a.policies[2].report.sleep.time_ns > 0);
    assert!(a.policies[3].report.idle_high.time_ns > 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A client address the capture never mentions: an error naming the file, the address asked
/// for and the busiest one (probably the one meant).
#[test]
fn a_client_without_packets_is_an_error_naming_the_busiest_address() {
    let dir = out_dir("no-client");
    let (a, b, c) = ([192, 168, 1, 20], [93, 184, 216, 34], [1, 1, 1, 1]);
    let frames: Vec<(u64, Vec<u8>)> = [(a, b), (b, a), (a, c), (a, b)]
        .iter()
        .enumerate()
        .map(|(i, &(s, d))| (1_000_000 * i as u64, ethernet(&ipv4_tcp(s, d, (40000, 443), 1, 1, 100))))
        .collect();
    let path = dir.join("three-hosts.pcap");
    std::fs::write(&path, pcap(DataLink::ETHERNET, TsResolution::NanoSecond, Endianness::Little, &frames)).unwrap();
    let mut opts = options("orinoco", Airtime::default_phy(), &["always-on"], &SpecContext::default());
    opts.client = Some(IpAddr::V4(Ipv4Addr::new(10, 9, 9, 9)));
    let e = analyze(&path, &opts).unwrap_err();
    let AnalysisError::Invalid(msg) = &e else { panic!("{e:?}") };
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains("no packets to or from 10.9.9.9") && msg.contains("4 IP packets"), "{msg}");
    assert!(msg.contains("busiest address: 192.168.1.20"), "{msg}");
    // Without a client, the busiest is analyzed.
    opts.client = None;
    let ok = analyze(&path, &opts).unwrap();
    assert_eq!(ok.client, IpAddr::V4(Ipv4Addr::new(192, 168, 1, 20)));
    assert_eq!(ok.choice, ClientChoice::Busiest { ties: vec![], skipped: vec![], undercount: 0 });
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A reply captured at the same instant as the packet it answers, but written first (as the
/// simulator does when its half-duplex hop starts the station's frame the moment the AP's
/// ends): the received frame ended at that instant, so the radio did it first, and neither
/// frame may be clipped as an overlap.
#[test]
fn a_reception_captured_after_a_reply_at_the_same_instant_is_not_clipped() {
    let dir = out_dir("order");
    let (c, s) = ([10, 0, 0, 3], [10, 0, 0, 1]);
    let t = 1_000_000_000u64;
    let frames = vec![
        (t - 600_000, ethernet(&ipv4_tcp(s, c, (80, 40000), 1, 1, 1460))),
        (t, ethernet(&ipv4_tcp(c, s, (40000, 80), 1, 2921, 0))), // the ACK, written first
        (t, ethernet(&ipv4_tcp(s, c, (80, 40000), 1461, 1, 1460))),
    ];
    let path = dir.join("order.pcap");
    std::fs::write(&path, pcap(DataLink::ETHERNET, TsResolution::NanoSecond, Endianness::Little, &frames)).unwrap();
    let a = analyze(&path, &options("orinoco", Airtime::parse("link@20").unwrap(), &["always-on"], &SpecContext::default()))
        .unwrap();
    let r = &a.policies[0].report;
    // 1500 B at 20 Mb/s: 600 µs; the 40-byte ACK: 16 µs.
    assert_eq!((r.rx.time_ns, r.tx.time_ns, r.clipped_activity_ns), (1_200_000, 16_000, 0));
    assert_eq!((a.start_ns, a.end_ns), (t - 1_200_000, t + 16_000));
    std::fs::remove_dir_all(&dir).unwrap();
}


/// `twt:interval=100ms,duration=10ms` on a hand-made capture over `link@20` (a 1500-byte
/// packet takes 600 µs, a 40-byte ACK 16 µs), run start T: received packets inside an SP go
/// at once, those outside wait for the next SP in order, an exchange under way at an SP's end
/// completes, a send waits for the radio; every time and the delays computed by hand.
#[test]
fn twt_moves_received_packets_into_service_periods_as_computed_by_hand() {
    let dir = out_dir("twt");
    let (c, s) = ([10, 0, 0, 3], [10, 0, 0, 1]);
    let t0 = 1_000_000_000u64;
    let us = |x: u64| t0 + x * 1_000;
    let down = |seq: u32| ethernet(&ipv4_tcp(s, c, (80, 40000), seq, 1, 1460));
    let up = || ethernet(&ipv4_tcp(c, s, (40000, 80), 1, 1, 0));
    // Capture times (a received packet's: its frame's end).
    let frames = vec![
        (us(600), down(1)),        // #1 starts at T (SP 0): at once
        (us(30_600), down(2)),     // #2 starts at 30 ms: held to SP 1 (100 ms), +70 ms
        (us(31_200), down(3)),     // #3 starts at 30.6 ms: behind #2, at 100.6 ms, +70 ms
        (us(50_000), up()),        // the client sends at 50 ms: wakes, the AP keeps holding
        (us(105_600), down(4)),    // #4 starts at 105 ms inside SP 1: at once
        (us(110_500), down(5)),    // #5 starts at 109.9 ms inside SP 1: completes at 110.5
        (us(111_100), down(6)),    // #6 starts at 110.5 ms, SP 1 over: at 200 ms, +89.5 ms
        (us(200_300), up()),       // a send at 200.3 ms waits for #6's end (200.6 ms)
    ];
    let path = dir.join("twt.pcap");
    std::fs::write(&path, pcap(DataLink::ETHERNET, TsResolution::NanoSecond, Endianness::Little, &frames)).unwrap();
    let text = "name = \"t\"\ndescription = \"d\"\nsource = \"s\"\n[power_mw]\n\
                off = 0\nsleep = 10\nidle = 100\nrx = 400\ntx = 500\n";
    let mut opts = options("orinoco", Airtime::parse("link@20").unwrap(), &["always-on", "twt:interval=100ms,duration=10ms"], &SpecContext::default());
    opts.profile = DeviceProfile::from_toml_str(text, "t.toml").unwrap();
    opts.timeline = TimelineOutput::Memory;
    let a = analyze(&path, &opts).unwrap();
    let twt = outcome(&a, "twt:interval=100ms,duration=10ms");
    let w = twt.twt.as_ref().expect("twt outcome");
    assert_eq!((w.received, w.held, w.service_periods), (6, 3, 3));
    // Delays 0, 70, 70, 0, 0, 89.5 ms: mean 229.5/6 ms; p95 (nearest rank 6 of 6) = max.
    assert!((w.delay_mean_ns - 229.5e6 / 6.0).abs() < 1.0, "{w:?}");
    assert_eq!((w.delay_p95_ns, w.delay_max_ns), (89_500_000, 89_500_000));
    assert_eq!((w.deferred_sends, w.deferred_send_ns), (1, 300_000));
    assert_eq!(w.last_end_ns, us(200_616));
    // The capture's own last interval is the send at 200.3 ms (200.316): 0.3 ms earlier.
    assert_eq!(w.late_end_ns, 300_000);
    assert_eq!(twt.beacons, 0);
    // The run ends at the last delivery, for every policy (same span).
    assert_eq!((a.start_ns, a.end_ns), (t0, us(200_616)));
    let r = &twt.report;
    // rx 6 × 600 µs; tx 2 × 16 µs; idle: the rest of SP 0 after #1 (9.4 ms), 101.2–105 and
    // 105.6–109.9 ms in SP 1; asleep the rest: 10–50, 50.016–100, 110.5–200 ms.
    assert_eq!((r.rx.time_ns, r.tx.time_ns), (3_600_000, 32_000));
    assert_eq!((r.idle.time_ns, r.sleep.time_ns), (17_500_000, 179_484_000));
    assert_eq!(r.total_energy_fj, 3_600_000 * 400_000 + 32_000 * 500_000 + 17_500_000 * 100_000 + 179_484_000 * 10_000);
    assert_eq!(r.clipped_activity_ns, 0);
    let tl: Vec<(u64, RadioState)> = twt.timeline.iter().map(|(t, s)| ((t - t0) / 1_000, s)).collect();
    use RadioState::*;
    assert_eq!(
        tl,
        vec![
            (0, Rx), (600, Idle), (10_000, Sleep), (50_000, Tx), (50_016, Sleep), (100_000, Rx),
            (101_200, Idle), (105_000, Rx), (105_600, Idle), (109_900, Rx), (110_500, Sleep), (200_000, Rx), (200_600, Tx),
        ]
    );
    // Same work: always-on has the capture's packets where they are, over the same span.
    let on = &outcome(&a, "always-on").report;
    assert_eq!((on.rx.time_ns, on.tx.time_ns, on.duration_ns), (3_600_000, 32_000, r.duration_ns));
    assert!(outcome(&a, "always-on").twt.is_none());
    std::fs::remove_dir_all(&dir).unwrap();
}
