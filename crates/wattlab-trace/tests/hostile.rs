//! Hostile input to the trace analyzer (issue 16): captures whose clock jumps, goes backwards or
//! carries impossible fields, options out of range, and mutated captures. Nothing may panic,
//! abort or hang; memory and time must not follow the capture's time span; garbage is refused,
//! or costed flagged when the user accepts it.

#[path = "support/fuzz.rs"]
mod fuzz;

use std::time::Instant;

use fuzz::*;
use proptest::prelude::*;
use wattlab_core::energy::{AccountingPolicy, PsmParams};
use wattlab_core::Duration;
use wattlab_trace::airtime::Airtime;
use wattlab_trace::energy::{analyze, analyze_bytes, check_options, AnalysisError, EnergyAnalysis, EnergyOptions, TimelineOutput};
use wattlab_trace::policy_spec::{PolicyKind, PolicySpec, SpecContext};

const S: u64 = 1_000_000_000;
const T0: u64 = T0_S as u64 * S;
const TEN_YEARS: u64 = 10 * 365 * 86_400 * S;

/// The base capture of these tests: 40 packets 50 ms apart (its honest cost is a few J).
fn base() -> Vec<(u64, Vec<u8>)> {
    download(40, T0, 50_000_000)
}

fn ns_pcap(pkts: &[(u64, Vec<u8>)]) -> (Vec<u8>, Vec<Rec>) {
    let recs = records(pkts, true);
    (pcap(true, false, &recs), recs)
}

fn with(accept: bool, f: impl FnOnce(&mut EnergyOptions)) -> EnergyOptions {
    let mut o = options(accept);
    f(&mut o);
    o
}

fn refused(bytes: &[u8], opts: &EnergyOptions) -> (String, wattlab_trace::timecheck::TimeReport) {
    match analyze_bytes(bytes, "odd.pcap", opts) {
        Err(AnalysisError::OddTimes { message, report }) => (message, *report),
        other => panic!("expected a refusal for odd times, got {:?}", other.map(|a| a.time)),
    }
}

fn energy_of(a: &EnergyAnalysis, label: &str) -> u128 {
    a.policies.iter().find(|p| p.label == label).unwrap().report.total_energy_fj
}

// ---- Item 1: one bad timestamp must not abort, hang or fill the machine ----

/// One packet 10 years late: refused by default (naming it); accepted, costed in bounded time
/// with throughput bins for the packets only (it asked for 100 GB of dense bins before).
#[test]
fn a_packet_ten_years_late_is_refused_or_costed_in_bounded_time_and_memory() {
    let mut pkts = base();
    pkts[20].0 += TEN_YEARS;
    let (bytes, recs) = ns_pcap(&pkts);
    let (msg, report) = refused(&bytes, &options(false));
    let at = format!("packet 20 at byte offset {}", pcap_offset(&recs, 20));
    assert!(msg.starts_with(&format!("odd.pcap: {at}: a gap of 9.99 years")), "{msg}");
    assert!(msg.contains("--accept-odd-times") && msg.contains("--max-gap"), "{msg}");
    assert_eq!((report.gaps.count, report.backward.count), (1, 19));
    let start = Instant::now();
    let a = analyze_bytes(&bytes, "odd.pcap", &options(true)).unwrap();
    assert!(start.elapsed().as_secs() < 10, "{:?}", start.elapsed());
    check_invariants(&a).unwrap();
    assert!(a.throughput.len() <= 40, "{} bins", a.throughput.len());
    assert!(a.end_ns - a.start_ns > TEN_YEARS);
    let w = a.time_warnings().join("\n");
    assert!(w.contains("1 gap longer than 1.00 days (longest 9.99 years)") && w.contains(&at), "{w}");
    // Every beacon of the decade is costed, and the timeline shows a bounded number of them.
    let psm = a.policies.iter().find(|p| p.label == "psm").unwrap();
    assert!(psm.beacons > 3_000_000_000, "{}", psm.beacons);
    assert!(psm.timeline.len() < 20_000 && psm.timeline_elided_beacons > 3_000_000_000);
}

/// `ts_sec = 0xFFFFFFFF` on the last packet hung the PSM policies (every beacon to 2106 walked).
#[test]
fn ts_sec_ffffffff_finishes_quickly_in_every_psm_policy() {
    let (_, mut recs) = ns_pcap(&base());
    recs[39].sec = u32::MAX;
    let bytes = pcap(true, false, &recs);
    let (msg, _) = refused(&bytes, &options(false));
    assert!(msg.contains("to 2106-02-07 06:28:15.950000000 UTC") && msg.contains("a gap of 82.10 years"), "{msg}");
    let dir = std::env::temp_dir().join(format!("wattlab-hostile-ffff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for timeline in [TimelineOutput::Off, TimelineOutput::Memory, TimelineOutput::Csv(dir.clone())] {
        let start = Instant::now();
        let a = analyze_bytes(&bytes, "ffff.pcap", &with(true, |o| o.timeline = timeline.clone())).unwrap();
        assert!(start.elapsed().as_secs() < 10, "{timeline:?}: {:?}", start.elapsed());
        check_invariants(&a).unwrap();
        assert!(a.policies[2].beacons > 20_000_000_000);
    }
    let csv: u64 = (0..5).map(|i| std::fs::metadata(dir.join(format!("timeline_{i}.csv"))).unwrap().len()).sum();
    assert!(csv < 5 << 20, "{csv} bytes of timelines");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Time is linear in packets whatever the gaps: a gap of a second or of ten years (allowed
/// with `max_gap`) costs every policy the same work (state changes), to a few.
#[test]
fn a_ten_year_gap_costs_the_same_work_as_a_one_second_gap() {
    let work = |gap: u64| {
        let mut pkts = base();
        for p in &mut pkts[20..] {
            p.0 += gap;
        }
        let (bytes, _) = ns_pcap(&pkts);
        let opts = with(false, |o| {
            o.timeline = TimelineOutput::Off;
            o.time.max_gap = Duration::from_nanos(2 * TEN_YEARS);
        });
        let start = Instant::now();
        let a = analyze_bytes(&bytes, "gap.pcap", &opts).unwrap();
        assert!(a.time.is_clean());
        (a.policies.iter().map(|p| p.state_changes).collect::<Vec<_>>(), start.elapsed())
    };
    let (short, t_short) = work(S);
    let (long, t_long) = work(TEN_YEARS);
    for (s, l) in short.iter().zip(&long) {
        assert!(*l <= *s + 8, "{short:?} vs {long:?}");
    }
    // A generous factor on the wall time (the work above is the real measure).
    assert!(t_long.as_secs_f64() < 20.0 * t_short.as_secs_f64() + 0.5, "{t_short:?} vs {t_long:?}");
}

/// A valid hour with 1 µs bins aborted (3.6 × 10⁹ dense bins); only bins with traffic remain.
#[test]
fn an_hour_in_one_microsecond_bins_keeps_only_the_bins_with_traffic() {
    let (bytes, _) = ns_pcap(&download(3600, T0, S));
    let a = analyze_bytes(&bytes, "hour.pcap", &with(false, |o| o.bin = Duration::from_micros(1))).unwrap();
    check_invariants(&a).unwrap();
    assert_eq!(a.throughput.len(), 3600);
    assert_eq!(a.throughput.last().unwrap().0, 3599 * 1_000_000 + (a.throughput[0].0));
}

// ---- Item 2: garbage is refused (or costed flagged), never costed silently ----

/// A packet 2048 s late, then time going back: 0.35 J became 1638.7 J without a word.
#[test]
fn a_packet_late_then_time_going_back_is_refused_with_index_and_offset() {
    let honest = analyze_bytes(&ns_pcap(&base()).0, "b.pcap", &options(false)).unwrap();
    let mut pkts = base();
    pkts[20].0 += 2048 * S;
    let (bytes, recs) = ns_pcap(&pkts);
    let (msg, report) = refused(&bytes, &options(false));
    let at = format!("packet 21 at byte offset {}", pcap_offset(&recs, 21));
    assert!(msg.contains(&format!("{at}: time goes backwards by 2047.950 s")), "{msg}");
    assert_eq!((report.backward.count, report.gaps.count, report.checked), (19, 0, 40));
    // Accepted: the jump is costed (1600-odd J of idling) and the result says why.
    let a = analyze_bytes(&bytes, "b.pcap", &options(true)).unwrap();
    assert!(energy_of(&a, "always-on") > 1000 * energy_of(&honest, "always-on") / 2);
    assert!(a.time_warnings()[0].contains(&at));
}

/// Packets in reverse order gave 50 times less energy, silently.
#[test]
fn reversed_packet_order_is_refused() {
    let mut pkts = base();
    pkts.reverse();
    let (bytes, recs) = ns_pcap(&pkts);
    let (msg, report) = refused(&bytes, &options(false));
    assert!(msg.contains(&format!("packet 1 at byte offset {}: time goes backwards by 50.000 ms", pcap_offset(&recs, 1))), "{msg}");
    assert_eq!(report.backward.count, 39);
}

/// A sub-second field of 2 × 10⁹ ns gave 4.4 times the energy; 10⁶ µs is out of range too.
#[test]
fn sub_second_fields_out_of_range_are_refused() {
    for (nanos, frac) in [(true, 2_000_000_000u32), (true, 1_000_000_000), (false, 1_000_000)] {
        let mut recs = records(&base(), nanos);
        recs[5].frac = frac;
        let bytes = pcap(nanos, true, &recs);
        let (msg, report) = refused(&bytes, &options(false));
        let at = format!("packet 5 at byte offset {}", pcap_offset(&recs, 5));
        assert!(msg.contains(&format!("{at}: its sub-second field is out of range")), "{frac}: {msg}");
        assert_eq!(report.fractions.count, 1, "{frac}");
    }
    // At the limit the fields are valid (the last packet, 1.95 s in, moved to 1.999999 s).
    let mut recs = records(&base(), false);
    recs[39].frac = 999_999;
    let a = analyze_bytes(&pcap(false, false, &recs), "ok.pcap", &options(false));
    assert!(a.is_ok(), "{:?}", a.err());
}

/// Concatenated pcapng sections whose clocks go backwards passed silently.
#[test]
fn pcapng_sections_whose_clocks_go_backwards_are_refused() {
    let pkts = base();
    let first = pcapng_section(&pkts[20..]);
    let bytes = [first.clone(), pcapng_section(&pkts[..20])].concat();
    let (msg, report) = refused(&bytes, &options(false));
    // The second section starts after the first (its header and interface blocks first).
    assert!(msg.contains("packet 20 at byte offset") && msg.contains("time goes backwards by 1.950 s"), "{msg}");
    let off = report.backward.first.unwrap().offset;
    assert!(off > first.len() as u64 && off < first.len() as u64 + 100, "{off}");
    // The same sections in order are one clean capture.
    let a = analyze_bytes(&[pcapng_section(&pkts[..20]), first].concat(), "ok.pcapng", &options(false)).unwrap();
    assert!(a.time.is_clean());
}

/// Steps back of a few ms (several interfaces, several CPUs) are tolerated: the packets are
/// put back in order and cost exactly what the sorted capture costs.
#[test]
fn reordering_within_the_tolerance_costs_what_the_sorted_capture_costs() {
    let pkts = download(60, T0, 3_000_000);
    let mut shuffled = pkts.clone();
    for k in (0..58).step_by(4) {
        shuffled.swap(k, k + 2); // 6 ms back
    }
    let sorted = analyze_bytes(&ns_pcap(&pkts).0, "sorted.pcap", &options(false)).unwrap();
    let a = analyze_bytes(&ns_pcap(&shuffled).0, "shuffled.pcap", &options(false)).unwrap();
    // Each swap puts two packets behind the one moved ahead of them (3 and 6 ms).
    assert!(a.time.is_clean() && a.time.reordered == 30, "{:?}", a.time);
    assert_eq!(a.time.reordered_worst_ns, 6_000_000);
    for (x, y) in sorted.policies.iter().zip(&a.policies) {
        if let Some(e) = &y.energybox {
            // EnergyBox's engine costs the frames in file order, as EnergyBox does, and says so.
            assert_eq!(e.frames_out_of_order, 30, "{}", x.label);
            assert_eq!(x.energybox.as_ref().unwrap().frames_out_of_order, 0);
            continue;
        }
        assert_eq!(x.report, y.report, "{}", x.label);
        assert_eq!(x.by_connection, y.by_connection, "{}", x.label);
    }
    assert_eq!(sorted.throughput, a.throughput);
    // Beyond the tolerance (here 5 ms): refused.
    let (msg, _) = refused(&ns_pcap(&shuffled).0, &with(false, |o| o.time.reorder = Duration::from_millis(5)));
    assert!(msg.contains("time goes backwards by 6.000 ms"), "{msg}");
}

/// A gap longer than the bound (1 day) is refused unless the bound is raised.
#[test]
fn a_long_gap_is_refused_unless_the_bound_is_raised() {
    let mut pkts = base();
    for p in &mut pkts[10..] {
        p.0 += 2 * 86_400 * S;
    }
    let (bytes, _) = ns_pcap(&pkts);
    let (msg, report) = refused(&bytes, &options(false));
    assert!(msg.contains("a gap of 2.00 days") && msg.contains("more than the 1.00 days allowed"), "{msg}");
    assert_eq!((report.gaps.count, report.backward.count), (1, 0));
    let a = analyze_bytes(&bytes, "gap.pcap", &with(false, |o| o.time.max_gap = Duration::from_secs(3 * 86_400))).unwrap();
    assert!(a.time.is_clean() && a.time_warnings().is_empty());
    check_invariants(&a).unwrap();
}

/// A file on disk: the message names the file, as every capture error does.
#[test]
fn refusals_name_the_file() {
    let mut pkts = base();
    pkts.swap(3, 30);
    let path = std::env::temp_dir().join(format!("wattlab-hostile-{}.pcap", std::process::id()));
    std::fs::write(&path, ns_pcap(&pkts).0).unwrap();
    let e = analyze(&path, &options(false)).unwrap_err().to_string();
    std::fs::remove_file(&path).unwrap();
    assert!(e.starts_with(&format!("{}: packet 4 at byte offset", path.display())), "{e}");
}

// ---- Item 3: options out of range are errors, never panics ----

#[test]
fn options_out_of_range_are_refused_before_reading() {
    let cx = SpecContext::default();
    let psm = |beacon: u64| PolicySpec {
        label: "psm".into(),
        kind: PolicyKind::Accounting(AccountingPolicy::Psm(PsmParams { beacon_interval: Duration(beacon), beacon_listen: Duration::ZERO })),
        count: Default::default(),
    };
    let cases: Vec<(EnergyOptions, &str)> = vec![
        (with(false, |o| o.bin = Duration::ZERO), "throughput bin 0 ns is out of range (1 µs to 1 day)"),
        (with(false, |o| o.bin = Duration(999)), "out of range"),
        (with(false, |o| o.bin = Duration::from_secs(2 * 86_400)), "out of range"),
        (with(false, |o| o.tail = Duration::from_secs(2 * 86_400)), "tail"),
        (with(false, |o| o.airtime = Airtime::Link { rate_bps: 0 }), "link rate 0 b/s is out of range"),
        (with(false, |o| o.airtime = Airtime::Link { rate_bps: u64::MAX }), "out of range"),
        (with(false, |o| o.policies = vec![psm(1)]), "policy `psm`: setting `beacon` 1 ns is out of range"),
        (with(false, |o| o.policies = vec![]), "no policy"),
        (with(false, |o| o.time.reorder = Duration::from_secs(3600)), "reordering tolerance"),
        (with(false, |o| o.time.max_gap = Duration::ZERO), "maximum gap"),
    ];
    for (opts, want) in cases {
        let e = check_options(&opts).unwrap_err().to_string();
        assert!(e.contains(want), "{want}: {e}");
        // And analyze says the same, without reading the capture.
        let e = analyze_bytes(b"not even a capture", "x.pcap", &opts).unwrap_err().to_string();
        assert!(e.contains(want), "{want}: {e}");
    }
    if let Airtime::Phy { phy, .. } = Airtime::default_phy() {
        let e = check_options(&with(false, |o| o.airtime = Airtime::Phy { phy, rate_kbps: 0 })).unwrap_err();
        assert!(e.to_string().contains("no rate"), "{e}");
    }
    let e = Airtime::parse("link@1e-9").unwrap_err();
    assert!(e.contains("out of range (0.001 to 100000 Mb/s)"), "{e}");
    let e = PolicySpec::parse("adaptive-psm:window=1ns", &cx).unwrap_err();
    assert!(e.contains("`window` 1 ns is out of range (1 µs to 10 s)"), "{e}");
}

// ---- Property tests over the reader and the whole analyzer ----

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    /// Arbitrary bytes behind a pcap or pcapng magic: the reader ends (error or not), the
    /// analyzer gives a result or an error, and nothing panics.
    #[test]
    fn arbitrary_bytes_never_panic(magic in 0usize..4, body in proptest::collection::vec(any::<u8>(), 0..600)) {
        let head: &[u8] = match magic {
            0 => &[0xd4, 0xc3, 0xb2, 0xa1],
            1 => &[0xa1, 0xb2, 0x3c, 0x4d],
            2 => &[0x0a, 0x0d, 0x0d, 0x0a],
            _ => &[],
        };
        let bytes = [head, &body].concat();
        prop_assert!(check_capture(&bytes).is_ok());
    }

    /// Valid captures with arbitrary timestamps (any seconds, any sub-second field, any order),
    /// sizes and directions: with odd times accepted, always a result whose time is conserved
    /// and whose attribution sums to each total; without, a result exactly when the clock
    /// passed the checks.
    #[test]
    fn arbitrary_timestamps_give_a_checked_result(
        nanos in any::<bool>(),
        big in any::<bool>(),
        pkts in proptest::collection::vec((any::<u32>(), any::<u32>(), 0u8..3, 28u16..4000), 1..30),
    ) {
        let recs: Vec<Rec> = pkts.iter().map(|&(sec, frac, kind, len)| {
            let data = match kind { 0 => down(len), 1 => up(len.min(1500)), _ => udp(SERVER, GROUP, len, 1, 2) };
            Rec { sec, frac, data }
        }).collect();
        let bytes = pcap(nanos, big, &recs);
        let lax = analyze_bytes(&bytes, "p.pcap", &options(true));
        let a = lax.map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(check_invariants(&a), Ok(()));
        prop_assert_eq!(a.time.checked, recs.len() as u64);
        match analyze_bytes(&bytes, "p.pcap", &options(false)) {
            Ok(b) => prop_assert!(b.time.is_clean() && a.time.is_clean()),
            Err(AnalysisError::OddTimes { report, .. }) => prop_assert_eq!(*report, a.time),
            Err(e) => prop_assert!(false, "{}", e),
        }
    }

    /// Mutations of valid pcap and pcapng captures (bit flips, nasty words in length and time
    /// fields, insertions, deletions, duplicated chunks): no panic, invariants hold.
    #[test]
    fn mutated_captures_never_panic(seed in any::<u64>(), which in 0usize..7) {
        let mut rng = Rng(seed);
        let input = mutate(&mut rng, &seeds()[which]);
        let r = check_capture(&input);
        prop_assert!(r.is_ok(), "{:?}", r);
    }
}

/// The mutation driver of `examples/fuzz_trace.rs`, for a few seconds: thousands of mutated
/// captures, each read and analyzed strict and lax, without a panic or a broken invariant.
#[test]
fn fuzz_driver_smoke_run() {
    match fuzz::run(16, 1_000_000, 4.0) {
        Ok(t) => {
            eprintln!("fuzz smoke run: {t:?}");
            assert!(t.inputs > 500 && t.analyzed > 50 && t.odd_times > 50 && t.read_errors > 50, "{t:?}");
        }
        Err((input, why)) => {
            let path = std::env::temp_dir().join("wattlab-fuzz-failure.bin");
            std::fs::write(&path, &input).unwrap();
            panic!("{why} (input saved to {})", path.display());
        }
    }
}

/// Bounded memory, in a child process: the analyzer on a capture with a 10-year gap, all
/// policies, timelines streamed, under `ulimit -v` of 512 MB (it asked for 100 GB before),
/// within a time bound. The child is this test binary running the ignored test below.
#[test]
fn a_ten_year_gap_is_costed_under_a_512_mb_memory_limit() {
    let exe = std::env::current_exe().unwrap();
    let start = Instant::now();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -v 524288 && exec "$0" --exact memory_limited_child --ignored --test-threads=1 --nocapture"#)
        .arg(&exe)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child failed ({}): {stdout}\n{stderr}", out.status);
    assert!(stdout.contains("1 passed"), "{stdout}");
    assert!(start.elapsed().as_secs() < 60, "{:?}", start.elapsed());
}

#[test]
#[ignore = "run by a_ten_year_gap_is_costed_under_a_512_mb_memory_limit under ulimit -v"]
fn memory_limited_child() {
    let mut pkts = download(20_000, T0, 1_000_000);
    for p in &mut pkts[10_000..] {
        p.0 += TEN_YEARS;
    }
    let dir = std::env::temp_dir().join(format!("wattlab-hostile-mem-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("gap.pcap");
    std::fs::write(&path, ns_pcap(&pkts).0).unwrap();
    let opts = with(true, |o| {
        o.timeline = TimelineOutput::Csv(dir.clone());
        o.bin = Duration::from_micros(1);
    });
    let a = analyze(&path, &opts).unwrap();
    check_invariants(&a).unwrap();
    assert_eq!(a.time.gaps.count, 1);
    assert!(a.throughput.len() <= 20_000);
    std::fs::remove_dir_all(&dir).unwrap();
}
