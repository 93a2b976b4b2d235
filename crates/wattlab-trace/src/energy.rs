//! The trace analyzer: what a capture's traffic costs the client's radio, under one or more
//! power policies, all driving the one radio energy model of `wattlab_core::energy`.
//!
//! One streaming pass (two if the client must be found first): each packet to or from the
//! client becomes radio intervals ([`crate::airtime`]), fed to every policy's meter, tagged
//! with its connection for attribution. Memory grows with the number of connections and of
//! throughput bins holding packets, not with the number of packets nor the capture's time
//! span; time grows with the packets, not the gaps between them (a dozing gap is costed in
//! closed form). State timelines are kept in memory only when asked, or streamed to CSV files.
//!
//! Timestamps are checked first ([`crate::timecheck`]): a clock that goes backwards by more
//! than a few ms, a gap beyond the bound, a sub-second field out of range make the analysis
//! refuse the capture unless [`TimeLimits::accept`] is set, and then the result says so.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::net::IpAddr;
use std::path::{Path, PathBuf};

use serde::Serialize;

use wattlab_core::energy::{
    own_bucket, tail_bucket, AccountingPolicy, Activity, DeviceProfile, EnergyReport, PolicyMeter, RadioState, ReplayMeter, StateEnergy,
    TransitionEnergy,
};
use wattlab_core::{Duration, Time};

use crate::airtime::{Airtime, Direction, Interval, FRAME_MTU};
pub use crate::connections::{ConnKey, Connection, DEFAULT_MAX_CONNECTIONS, MAX_MAX_CONNECTIONS};
use crate::connections::ConnTable;
use crate::energybox_engine::{EbState, EnergyBoxEngine, EngineOutcome};
use crate::observed::ObservedOutcome;
use crate::policy_spec::{ByteCount, PolicyKind, PolicySpec};
use crate::throughput::ThroughputBins;
use crate::timecheck::{TimeCheck, TimeLimits, TimeReport};
use crate::twt::{Held, TwtOutcome, TwtShift};
use crate::{address_totals_capped, CaptureFormat, Frame, Stats, Totals, TraceError, TracePacket, TraceReader, Transport};

/// Where the state timelines go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimelineOutput {
    /// Not kept.
    Off,
    /// Kept in memory ([`PolicyOutcome::timeline`]).
    Memory,
    /// Streamed to `DIR/timeline_<n>.csv` (`time_s,state`; `n` is the policy's position).
    Csv(PathBuf),
}

/// What to analyze and how.
#[derive(Clone, Debug)]
pub struct EnergyOptions {
    /// The client's address; `None`: the address with the most traffic.
    pub client: Option<IpAddr>,
    /// The radio's power model.
    pub profile: DeviceProfile,
    /// Packet sizes to radio intervals.
    pub airtime: Airtime,
    /// Policies to cost the capture under (labels unique).
    pub policies: Vec<PolicySpec>,
    /// Throughput bin width.
    pub bin: Duration,
    /// How long the costed run goes on after the last packet's last interval (0: it ends
    /// there; EnergyBox's timeline ends an inactivity timeout later).
    pub tail: Duration,
    /// State timelines.
    pub timeline: TimelineOutput,
    /// Timestamp checks: reordering tolerance, longest gap, and whether to cost a capture
    /// that fails them.
    pub time: TimeLimits,
    /// Connections kept (1 to [`MAX_MAX_CONNECTIONS`]; default [`DEFAULT_MAX_CONNECTIONS`]):
    /// beyond, the least recently used is folded into an `other` row, counters and energy,
    /// so memory does not grow with the number of connections. Also bounds the addresses
    /// kept while looking for the client.
    pub max_connections: u32,
    /// The station whose radio the `observed` policy costs, by its 802.11 MAC address (a
    /// monitor-mode capture; `--client-mac`).
    pub client_mac: Option<[u8; 6]>,
}

/// The shortest throughput bin accepted (1 µs).
pub const MIN_BIN: Duration = Duration(1_000);
/// The longest throughput bin accepted (1 day).
pub const MAX_BIN: Duration = Duration(86_400_000_000_000);
/// The longest run costed after the last packet (1 day).
pub const MAX_TAIL: Duration = Duration(86_400_000_000_000);
/// The slowest `link` rate accepted (1 kb/s).
pub const MIN_LINK_BPS: u64 = 1_000;
/// The fastest `link` rate accepted (100 Gb/s).
pub const MAX_LINK_BPS: u64 = 100_000_000_000;

/// How the client address was chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientChoice {
    /// Given by the user.
    Given,
    /// The busiest host address; `ties` lists others with exactly as much traffic (client and
    /// server tie in a capture of a single connection: the one receiving more is chosen).
    Busiest {
        /// Equally busy addresses.
        ties: Vec<IpAddr>,
        /// Busier multicast, broadcast or unspecified addresses passed over (at most 5): they
        /// cannot be a client.
        skipped: Vec<IpAddr>,
        /// Bytes by which the counts may fall short: more distinct addresses than
        /// `max_connections` were seen, and the ranking is a bounded summary (0: exact).
        undercount: u64,
    },
}

/// A policy's radio state changes, by column.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Timeline {
    /// When the state was entered, ns since the epoch.
    pub time_ns: Vec<u64>,
    /// The state entered.
    pub state: Vec<RadioState>,
}

impl Timeline {
    /// Number of state changes.
    pub fn len(&self) -> usize {
        self.time_ns.len()
    }

    /// True if there are none.
    pub fn is_empty(&self) -> bool {
        self.time_ns.is_empty()
    }

    /// The changes as `(ns since the epoch, state)`, in order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, RadioState)> + '_ {
        self.time_ns.iter().copied().zip(self.state.iter().copied())
    }
}

impl Extend<(u64, RadioState)> for Timeline {
    fn extend<I: IntoIterator<Item = (u64, RadioState)>>(&mut self, rows: I) {
        for (t, s) in rows {
            self.time_ns.push(t);
            self.state.push(s);
        }
    }
}

/// The result of one policy.
#[derive(Clone, Debug)]
pub struct PolicyOutcome {
    /// The spec's label.
    pub label: String,
    /// The policy's name.
    pub name: &'static str,
    /// Energy and time per state.
    pub report: EnergyReport,
    /// Beacons received while dozing (PSM policies).
    pub beacons: u64,
    /// Received packets that arrived while the replayed schedule had the radio dormant: a
    /// sleeping radio never hears them, so they are not costed.
    pub rx_while_dormant: u64,
    /// Activity intervals the replayed schedule had no awake time for (the radio woke).
    pub busy_while_dormant: u64,
    /// Energy per connection: `(own, tail)` fJ, indexed by connection id (0: before the
    /// first packet). Own: its frames and the wake-ups they needed; tail: the radio's time
    /// after its frame until the next one (idle, beacons, sleep, down transitions).
    pub by_connection: Vec<(u128, u128)>,
    /// State changes, when kept in memory.
    pub timeline: Timeline,
    /// The CSV the timeline was streamed to.
    pub timeline_file: Option<PathBuf>,
    /// Beacons the timeline does not show one by one: past the first
    /// `TIMELINE_BEACONS_PER_GAP` of a dozing gap, the timeline shows one dormant stretch up
    /// to the gap's last beacon (the report counts and costs every beacon).
    pub timeline_elided_beacons: u64,
    /// State changes the policy asked of the radio meter while the capture was read: its
    /// work, which grows with the packets and not with the gaps between them (0 for replay
    /// and EnergyBox's engine).
    pub state_changes: u64,
    /// EnergyBox's engine's own result, unrounded and as printed, with its artifacts (the
    /// `energybox` policy only; its `report` carries the same times and energies in ns/nJ).
    pub energybox: Option<EngineOutcome>,
    /// What a `twt` policy did to the packets (held, delays, SPs; `twt` only).
    pub twt: Option<TwtOutcome>,
    /// What the capture showed the station doing (`observed` only).
    pub observed: Option<ObservedOutcome>,
}

/// Everything the analyzer found.
#[derive(Clone, Debug)]
pub struct EnergyAnalysis {
    /// The capture's path.
    pub path: String,
    /// Container format.
    pub format: CaptureFormat,
    /// The client.
    pub client: IpAddr,
    /// How it was chosen.
    pub choice: ClientChoice,
    /// The busiest addresses (at most 5) with their totals, when the client was chosen.
    pub ranked: Vec<(IpAddr, Totals)>,
    /// Reader statistics (records, IP packets, skips by reason).
    pub stats: Stats,
    /// Start of the costed run (the first interval), ns since the epoch.
    pub start_ns: u64,
    /// End of the costed run (the last interval's end plus the tail), ns.
    pub end_ns: u64,
    /// The time costed after the last interval, ns.
    pub tail_ns: u64,
    /// Packets sent by the client.
    pub packets_up: u64,
    /// Packets received by the client (unicast and group-addressed).
    pub packets_down: u64,
    /// IP bytes sent.
    pub bytes_up: u64,
    /// IP bytes received.
    pub bytes_down: u64,
    /// Of the received packets, broadcast or multicast ones (not acknowledged on the air).
    pub group_down: u64,
    /// IP packets neither from nor to the client (not costed).
    pub foreign_packets: u64,
    /// Packets longer than one frame (costed as several frames).
    pub oversize_packets: u64,
    /// Sent packets whose exchange waited for the radio to finish the previous one.
    pub deferred_packets: u64,
    /// Their total wait, ns.
    pub deferred_ns: u64,
    /// The airtime model.
    pub airtime: Airtime,
    /// The policies' results, in the order given.
    pub policies: Vec<PolicyOutcome>,
    /// Connections, by id (index = id − 1); if more than `max_connections` were seen, the
    /// last row is `other`, with the evicted ones ([`Connection::connections`]).
    pub connections: Vec<Connection>,
    /// Connections evicted into the `other` row (0: every connection has its own row).
    pub connections_evicted: u64,
    /// The most connections kept.
    pub max_connections: u32,
    /// Throughput bin width, ns.
    pub bin_ns: u64,
    /// Where the throughput bins start: the start of the costed run (`start_ns`), ns since
    /// the epoch.
    pub throughput_origin_ns: u64,
    /// Bins with traffic, in order: `(k, [up, down])` bytes of the bin starting at
    /// `throughput_origin_ns + k × bin_ns`, by capture time (bins without traffic are left
    /// out; `k` is negative only for packets before the first, with odd times accepted).
    pub throughput: Vec<(i64, [u64; 2])>,
    /// The timestamp checks' findings (see [`crate::timecheck`]).
    pub time: TimeReport,
    /// The limits they were checked against.
    pub time_limits: TimeLimits,
}

impl EnergyAnalysis {
    /// Warnings about a result built on odd timestamps (empty if the capture's clock passed
    /// the checks).
    pub fn time_warnings(&self) -> Vec<String> {
        self.time.warnings(&self.time_limits)
    }
}

/// Why an analysis failed: the capture, the options or an output file.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    /// The capture cannot be read.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// The options or the data make no analysis possible (the message says why).
    #[error("{0}")]
    Invalid(String),
    /// The capture's timestamps fail the checks (the message names the first problem's
    /// packet and byte offset, counts them all and says how to go on).
    #[error("{message}")]
    OddTimes {
        /// What was found.
        message: String,
        /// The findings.
        report: Box<TimeReport>,
    },
    /// A timeline file cannot be written.
    #[error("{path}: cannot write: {source}")]
    Output {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// True for broadcast and multicast destinations (frames the AP sends unacknowledged).
fn is_group(a: IpAddr) -> bool {
    match a {
        IpAddr::V4(v) => v.is_multicast() || v.is_broadcast(),
        IpAddr::V6(v) => v.is_multicast(),
    }
}

fn ports(p: &TracePacket) -> (u16, u16) {
    match p.transport {
        Transport::Tcp(t) => (t.src_port, t.dst_port),
        Transport::Udp(u) => (u.src_port, u.dst_port),
        _ => (0, 0),
    }
}

/// A policy's meter.
enum Meter {
    Policy(Box<PolicyMeter>),
    Replay(Box<ReplayMeter>),
}

struct Running {
    label: String,
    name: &'static str,
    count: ByteCount,
    meter: Meter,
    /// A `twt` policy's placement of packets (its meter costs them where it puts them).
    twt: Option<Box<TwtShift>>,
    rx_while_dormant: u64,
    sink: Option<(PathBuf, BufWriter<File>)>,
    timeline: Timeline,
}

fn write_rows(w: &mut BufWriter<File>, rows: &mut dyn Iterator<Item = (Time, RadioState)>) -> std::io::Result<()> {
    for (t, s) in rows {
        writeln!(w, "{}.{:09},{}", t.as_nanos() / 1_000_000_000, t.as_nanos() % 1_000_000_000, s.as_str())?;
    }
    Ok(())
}

impl Running {
    /// Moves logged state changes out to the sink or the in-memory timeline.
    fn drain(&mut self) -> Result<(), AnalysisError> {
        let mut rows: Vec<(Time, RadioState)> = Vec::new();
        let mut push = |t: Time, s: RadioState| rows.push((t, s));
        match &mut self.meter {
            Meter::Policy(m) => m.drain_timeline(&mut push),
            Meter::Replay(m) => m.drain_timeline(&mut push),
        }
        self.emit(rows)
    }

    fn emit(&mut self, rows: Vec<(Time, RadioState)>) -> Result<(), AnalysisError> {
        match &mut self.sink {
            Some((path, w)) => write_rows(w, &mut rows.into_iter()).map_err(|source| AnalysisError::Output {
                path: path.display().to_string(),
                source,
            }),
            None => {
                self.timeline.extend(rows.into_iter().map(|(t, s)| (t.as_nanos(), s)));
                Ok(())
            }
        }
    }
}

/// Drain timelines every this many packets (bounds their memory).
const DRAIN_EVERY: u64 = 4096;

/// Analyzes the capture at `path`.
pub fn analyze(path: &Path, opts: &EnergyOptions) -> Result<EnergyAnalysis, AnalysisError> {
    run(|| TraceReader::open(path), &path.display().to_string(), opts)
}

/// Analyzes a capture held in memory; `name` names it in errors and the result.
pub fn analyze_bytes(bytes: &[u8], name: &str, opts: &EnergyOptions) -> Result<EnergyAnalysis, AnalysisError> {
    run(|| TraceReader::new(bytes, name), name, opts)
}

/// Checks the options against their documented ranges (the message names the option).
pub fn check_options(opts: &EnergyOptions) -> Result<(), AnalysisError> {
    let bad = |m: String| Err(AnalysisError::Invalid(m));
    if opts.policies.is_empty() {
        return bad("no policy to cost the capture under".into());
    }
    for (i, p) in opts.policies.iter().enumerate() {
        if opts.policies[..i].iter().any(|q| q.label == p.label) {
            return bad(format!("policy `{}` given twice", p.label));
        }
        if let PolicyKind::Accounting(a) = &p.kind {
            if let Err(e) = a.check() {
                return bad(format!("policy `{}`: setting {e}", p.label));
            }
        }
        if matches!(p.kind, PolicyKind::Observed(_)) && opts.client_mac.is_none() {
            return bad(format!(
                "policy `{}` costs one station of an 802.11 capture: give its MAC address with --client-mac \
                 (Python: client_mac=...)",
                p.label
            ));
        }
    }
    if !(MIN_BIN..=MAX_BIN).contains(&opts.bin) {
        return bad(format!("throughput bin {} ns is out of range (1 µs to 1 day)", opts.bin.as_nanos()));
    }
    if !(1..=MAX_MAX_CONNECTIONS).contains(&opts.max_connections) {
        return bad(format!("max_connections {} is out of range (1 to {MAX_MAX_CONNECTIONS})", opts.max_connections));
    }
    if opts.tail > MAX_TAIL {
        return bad(format!("tail {} s is out of range (0 to 1 day)", opts.tail.as_secs_f64()));
    }
    match opts.airtime {
        Airtime::Link { rate_bps } if !(MIN_LINK_BPS..=MAX_LINK_BPS).contains(&rate_bps) => {
            return bad(format!("link rate {rate_bps} b/s is out of range (0.001 to 100000 Mb/s)"));
        }
        Airtime::Phy { phy, rate_kbps } => {
            if let Err(e) = phy.check_rate(rate_kbps) {
                return bad(e.to_string());
            }
        }
        _ => {}
    }
    opts.time.check().map_err(AnalysisError::Invalid)
}

/// True for an address that can be a client: not multicast, broadcast or unspecified.
fn is_host(a: IpAddr) -> bool {
    !is_group(a) && !a.is_unspecified()
}

/// The client, how it was chosen, and the busiest candidates.
type Choice = (IpAddr, ClientChoice, Vec<(IpAddr, Totals)>);

/// The client: the busiest host address (one that is not multicast, broadcast or
/// unspecified), in bounded memory.
fn choose_client<R: Read>(reader: &mut TraceReader<R>, path: &str, cap: u32) -> Result<Choice, AnalysisError> {
    let totals = address_totals_capped(reader, cap as usize)?;
    let undercount = totals.undercount();
    let all = totals.ranked();
    let ranked: Vec<(IpAddr, Totals)> = all.iter().copied().filter(|(x, _)| is_host(*x)).collect();
    let Some(&(best, t)) = ranked.first() else {
        return Err(AnalysisError::Invalid(if all.is_empty() {
            format!(
                "{path}: no IP packets, so no client address to analyze ({} records, {} skipped)",
                reader.stats().records,
                reader.stats().skipped.total_packets()
            )
        } else {
            format!(
                "{path}: no unicast address to take for the client: the capture's IP packets are between multicast, \
                 broadcast or unspecified addresses only ({}); pass the client's address with --client ADDR \
                 (Python: client=...)",
                all.iter().take(3).map(|(x, _)| x.to_string()).collect::<Vec<_>>().join(", ")
            )
        }));
    };
    // Both ends of a single connection tie; among tied addresses take the one that receives
    // the most (a mobile client mostly downloads), and say so.
    let tied: Vec<(IpAddr, Totals)> =
        ranked.iter().copied().filter(|(_, x)| (x.bytes, x.packets) == (t.bytes, t.packets)).collect();
    let best = tied.iter().max_by_key(|(a, x)| (x.bytes - x.tx_bytes, std::cmp::Reverse(*a))).map_or(best, |e| e.0);
    let ties = tied.iter().map(|e| e.0).filter(|a| *a != best).collect();
    let skipped = all.iter().filter(|(x, _)| !is_host(*x)).take(5).map(|(x, _)| *x).collect();
    Ok((best, ClientChoice::Busiest { ties, skipped, undercount }, ranked.into_iter().take(5).collect()))
}

/// An `energybox` policy's engine, fed every frame in file order.
struct EngineRun {
    /// Position among the policies.
    index: usize,
    label: String,
    engine: EnergyBoxEngine,
    sink: Option<Sink>,
    timeline: Timeline,
}

impl EngineRun {
    /// Moves the engine's decided state changes to the sink or the in-memory timeline.
    fn drain(&mut self) -> Result<(), AnalysisError> {
        let first = self.engine.first_ns().unwrap_or(0);
        let at = |x: f64| Time((i128::from(first) + (x * 1e9).round() as i128).clamp(0, i128::from(u64::MAX)) as u64);
        let mut rows: Vec<(Time, RadioState)> = Vec::new();
        self.engine.drain_changes(|x, s: EbState| rows.push((at(x), s.radio())));
        match &mut self.sink {
            Some((path, w)) => write_rows(w, &mut rows.into_iter())
                .map_err(|source| AnalysisError::Output { path: path.display().to_string(), source }),
            None => {
                self.timeline.extend(rows.into_iter().map(|(t, s)| (t.as_nanos(), s)));
                Ok(())
            }
        }
    }
}

/// A timeline CSV being written, and its path.
type Sink = (PathBuf, BufWriter<File>);

/// The timeline sink of the `i`-th policy: `None` if timelines are off, `Some(None)` for memory.
fn open_sink(opts: &EnergyOptions, i: usize) -> Result<Option<Option<Sink>>, AnalysisError> {
    Ok(match &opts.timeline {
        TimelineOutput::Off => None,
        TimelineOutput::Memory => Some(None),
        TimelineOutput::Csv(dir) => {
            let path = timeline_path(dir, i);
            let out = |source| AnalysisError::Output { path: path.display().to_string(), source };
            let mut w = BufWriter::new(File::create(&path).map_err(out)?);
            writeln!(w, "time_s,state").map_err(out)?;
            Some(Some((path, w)))
        }
    })
}

/// The `energybox` policy's row: EnergyBox's times and energies (its doubles, in ns and nJ).
fn engine_report(o: &EngineOutcome, profile: &DeviceProfile, label: &str) -> EnergyReport {
    let ns = |s: f64| (s * 1e9).round().max(0.0) as u64;
    let state = |i: usize| {
        let j = o.time_s[i] * o.settings.power_w[i];
        StateEnergy { time_ns: ns(o.time_s[i]), energy_nj: ns(j), energy_j: j }
    };
    let (sleep, idle, idle_high) = (state(0), state(1), state(2));
    let start = o.first_ns;
    let end = start.saturating_add(ns(o.end_s));
    EnergyReport {
        profile: profile.name().to_string(),
        policy: Some(label.to_string()),
        start_ns: start,
        end_ns: end,
        duration_ns: end - start,
        off: StateEnergy::default(),
        awake_idle_energy_nj: idle.energy_nj + idle_high.energy_nj,
        awake_idle_energy_j: idle.energy_j + idle_high.energy_j,
        sleep,
        idle,
        idle_high,
        rx: StateEnergy::default(),
        tx: StateEnergy::default(),
        transitions: TransitionEnergy::default(),
        total_energy_nj: ns(o.energy_j),
        total_energy_j: o.energy_j,
        short_dormant_intervals: 0,
        clipped_activity_ns: 0,
        total_energy_fj: (o.energy_j * 1e15).round().max(0.0) as u128,
    }
}

/// The analysis, over a capture that `open` opens (once to find the client if none is given,
/// once to cost it); `path` names it.
fn run<R: Read>(
    mut open: impl FnMut() -> Result<TraceReader<R>, TraceError>,
    path: &str,
    opts: &EnergyOptions,
) -> Result<EnergyAnalysis, AnalysisError> {
    check_options(opts)?;
    let (client, choice, ranked) = match opts.client {
        Some(c) => (c, ClientChoice::Given, Vec::new()),
        None => choose_client(&mut open()?, path, opts.max_connections)?,
    };

    let mut reader = open()?;
    let mut a = Counts::default();
    let mut check = TimeCheck::new(opts.time);
    // Packets out of order by up to the tolerance wait in the heap until they are back in order.
    let reorder = opts.time.reorder;
    let conns = ConnTable::new(opts.max_connections);
    let mut feeder = Feeder {
        opts,
        run: Vec::new(),
        intervals: Vec::with_capacity(256),
        twt_intervals: Vec::with_capacity(256),
        start: Time::ZERO,
        end: Time::ZERO,
        fed: 0,
        deferred: 0,
        deferred_ns: 0,
        throughput: ThroughputBins::default(),
        other: conns.other_id(),
        conns,
    };
    let mut engines = Vec::new();
    for (index, spec) in opts.policies.iter().enumerate() {
        if let PolicyKind::EnergyBox(settings) = &spec.kind {
            let sink = open_sink(opts, index)?;
            let engine = EnergyBoxEngine::new(*settings, sink.is_some());
            engines.push(EngineRun { index, label: spec.label.clone(), engine, sink: sink.flatten(), timeline: Timeline::default() });
        }
    }
    // A received packet's frames end at its capture time, so its intervals start before
    // packets captured just ahead of it: packets wait in a heap, ordered by their first
    // interval's start, until no later packet can start earlier (the longest lead seen).
    let mut pending: BinaryHeap<Reverse<Pending>> = BinaryHeap::with_capacity(64);
    let mut lead = opts.airtime.lead(FRAME_MTU);
    let mut longest = FRAME_MTU;
    let mut seq: u64 = 0;
    let mut leads = Leads::default();
    let mut frames: u64 = 0;
    let mut last_index: Option<u64> = None;

    while let Some(f) = reader.next_frame() {
        let f = f?;
        // EnergyBox's engine counts every frame of the capture, in file order.
        let (ts_ns, orig_len) = match f {
            Frame::Ip(p) => (p.ts_ns, p.orig_len),
            Frame::Skipped(s) => (s.ts_ns, s.orig_len),
        };
        // An A-MSDU's IP subframes share their record's index: EnergyBox sees one frame.
        let (index, first_of_record) = match f {
            Frame::Ip(p) => (p.index, last_index != Some(p.index)),
            Frame::Skipped(s) => (s.index, true),
        };
        last_index = Some(index);
        if !engines.is_empty() && first_of_record {
            frames += 1;
            for e in &mut engines {
                e.engine.frame(ts_ns, orig_len);
                if frames.is_multiple_of(DRAIN_EVERY) {
                    e.drain()?;
                }
            }
        }
        let Frame::Ip(p) = f else { continue };
        let (dir, peer) = if p.src == client {
            (Direction::Up, p.dst)
        } else if p.dst == client || is_group(p.dst) {
            (Direction::Down, if p.dst == client { p.src } else { p.dst })
        } else {
            a.foreign += 1;
            continue;
        };
        if check.observe(&p).is_some() && !opts.time.accept {
            return Err(refuse(path, check, &mut reader, client));
        }
        let group = is_group(p.dst);
        let t = Time(p.ts_ns);
        if p.ip_len > FRAME_MTU {
            a.oversize += 1;
        }
        if p.ip_len > longest {
            longest = p.ip_len;
            lead = opts.airtime.lead(longest);
        }
        let first = match dir {
            Direction::Up => t,
            Direction::Down => t - leads.get(&opts.airtime, p.ip_len, group),
        };
        let (sp, dp) = ports(&p);
        let key: ConnKey = match dir {
            Direction::Up => (p.protocol, sp, peer, dp),
            Direction::Down => (p.protocol, dp, peer, sp),
        };
        let bytes = u64::from(p.ip_len);
        match dir {
            Direction::Up => {
                a.packets_up += 1;
                a.bytes_up += bytes;
            }
            Direction::Down => {
                a.packets_down += 1;
                a.bytes_down += bytes;
                a.group_down += group as u64;
            }
        }
        pending.push(Reverse(Pending {
            start: first,
            seq,
            t,
            up: dir == Direction::Up,
            ip_len: p.ip_len,
            frame_len: p.orig_len,
            group,
            key,
        }));
        seq += 1;
        let horizon = Time(check.latest_ns()) - lead - reorder;
        while let Some(Reverse(q)) = pending.peek() {
            if q.start > horizon {
                break;
            }
            let q = *q;
            pending.pop();
            feeder.release(q)?;
        }
    }
    while let Some(Reverse(q)) = pending.pop() {
        feeder.release(q)?;
    }
    feeder.deliver_held(Time(u64::MAX))?;
    // Packets a `twt` policy held may be delivered after the capture's last one: every policy
    // is costed over the same span, to the last delivery.
    let capture_end = feeder.end;
    let twt_end = feeder.run.iter().filter_map(|r| r.twt.as_ref().map(|w| w.end())).max();
    feeder.end = feeder.end.max(twt_end.unwrap_or(Time::ZERO));
    let Feeder { run, start, end, deferred, deferred_ns, throughput, fed, conns, .. } = feeder;
    if fed == 0 {
        // Only a given client can have no packets (a chosen one has the most), and then nothing
        // was ranked: rank now (a second pass, on this error path only) to name the address
        // the user probably meant.
        let busiest = match ranked.first() {
            Some(&(b, _)) => Some(b),
            None => match choose_client(&mut open()?, path, opts.max_connections) {
                Ok((b, _, _)) => Some(b),
                Err(_) => None,
            },
        };
        return Err(AnalysisError::Invalid(format!(
            "{path}: no packets to or from {client} ({} IP packets in the capture){}",
            reader.stats().packets,
            busiest.map_or(String::new(), |b| format!("; busiest address: {b}"))
        )));
    }
    let end = end.max(start) + opts.tail;
    let (max_connections, evicted) = (conns.cap(), conns.evicted());
    let conns = conns.into_rows();
    let owners = conns.last().map_or(0, |c| c.id as usize) + 1;

    let mut policies = Vec::with_capacity(opts.policies.len());
    let mut metered = run.into_iter();
    let mut engines = engines.into_iter();
    for (i, spec) in opts.policies.iter().enumerate() {
        if let PolicyKind::EnergyBox(_) = &spec.kind {
            let mut e = engines.next().expect("one engine per energybox policy");
            debug_assert_eq!(e.index, i);
            let outcome = e.engine.finish().map_err(AnalysisError::Invalid)?;
            e.drain()?;
            let timeline_file = finish_sink(e.sink.take())?;
            let outcome = outcome.ok_or_else(|| AnalysisError::Invalid(format!("{path}: no frames for EnergyBox's engine")))?;
            policies.push(PolicyOutcome {
                label: e.label.clone(),
                name: spec.name(),
                report: engine_report(&outcome, &opts.profile, &e.label),
                beacons: 0,
                rx_while_dormant: 0,
                busy_while_dormant: 0,
                by_connection: Vec::new(),
                timeline: e.timeline,
                timeline_file,
                timeline_elided_beacons: 0,
                state_changes: 0,
                energybox: Some(outcome),
                twt: None,
                observed: None,
            });
            continue;
        }
        if let PolicyKind::Observed(params) = &spec.kind {
            policies.push(observed_policy(&mut open, path, opts, &spec.label, *params, i)?);
            continue;
        }
        let mut r = metered.next().expect("one meter per accounting or replay policy");
        r.drain()?;
        let logged = r.sink.is_some() || opts.timeline == TimelineOutput::Memory;
        let changes = match &r.meter {
            Meter::Policy(m) => m.state_changes(),
            Meter::Replay(_) => 0,
        };
        let (report, beacons, busy, buckets, rest, elided) = match &r.meter {
            Meter::Policy(m) => {
                let mut rest = m.timeline().to_vec();
                if logged {
                    rest.extend(m.trailing_timeline(end));
                }
                let elided = m.timeline_elided_beacons_until(end);
                (m.report(end), m.beacons_until(end), 0, m.energy_by_bucket(end), rest, elided)
            }
            Meter::Replay(m) => {
                let mut rest = m.timeline().to_vec();
                if logged {
                    rest.extend(m.trailing_timeline(end));
                }
                (m.report(end), 0, m.busy_while_dormant(), m.energy_by_bucket(end), rest, 0)
            }
        };
        r.emit(rest)?;
        let timeline_file = finish_sink(r.sink.take())?;
        let mut report = report;
        report.policy = Some(r.label.clone());
        let mut by_connection = vec![(0u128, 0u128); owners];
        for (b, fj) in buckets.into_iter().enumerate() {
            let (owner, tail) = (b / 2, b % 2 == 1);
            if let Some(e) = by_connection.get_mut(owner) {
                if tail {
                    e.1 += fj;
                } else {
                    e.0 += fj;
                }
            }
        }
        policies.push(PolicyOutcome {
            label: r.label,
            name: r.name,
            report,
            // A TWT station listens to no beacon: its meter's wake cycles are the SPs.
            beacons: if r.twt.is_some() { 0 } else { beacons },
            rx_while_dormant: r.rx_while_dormant,
            busy_while_dormant: busy,
            by_connection,
            timeline: r.timeline,
            timeline_file,
            timeline_elided_beacons: elided,
            state_changes: changes,
            energybox: None,
            twt: r.twt.as_ref().map(|w| w.outcome(end, capture_end)),
            observed: None,
        });
    }
    debug_assert!(own_bucket(1) == 2 && tail_bucket(1) == 3);

    Ok(EnergyAnalysis {
        path: path.to_string(),
        format: reader.format(),
        client,
        choice,
        ranked,
        stats: *reader.stats(),
        start_ns: start.as_nanos(),
        end_ns: end.as_nanos(),
        tail_ns: opts.tail.as_nanos(),
        packets_up: a.packets_up,
        packets_down: a.packets_down,
        bytes_up: a.bytes_up,
        bytes_down: a.bytes_down,
        group_down: a.group_down,
        foreign_packets: a.foreign,
        oversize_packets: a.oversize,
        deferred_packets: deferred,
        deferred_ns,
        airtime: opts.airtime,
        policies,
        connections: conns,
        connections_evicted: evicted,
        max_connections,
        bin_ns: opts.bin.as_nanos(),
        throughput_origin_ns: start.as_nanos(),
        throughput: throughput.finish(),
        time: *check.report(),
        time_limits: opts.time,
    })
}

/// The `observed` policy's row (the `i`-th policy): its own passes over the 802.11 frames.
fn observed_policy<R: Read>(
    open: &mut impl FnMut() -> Result<TraceReader<R>, TraceError>,
    path: &str,
    opts: &EnergyOptions,
    label: &str,
    params: crate::observed::ObservedParams,
    i: usize,
) -> Result<PolicyOutcome, AnalysisError> {
    let mac = opts.client_mac.expect("checked by check_options");
    // Records without PHY fields (plain 802.11) are timed at the --phy rate.
    let fallback = match opts.airtime {
        Airtime::Phy { phy, rate_kbps } => Some((phy, wattlab_core::wlan::TxVector::Legacy { kbps: rate_kbps })),
        _ => None,
    };
    let sink = open_sink(opts, i)?;
    let o = crate::observed::cost(&mut *open, path, mac, params, &opts.profile, fallback, opts.tail, sink.is_some())
        .map_err(AnalysisError::Invalid)?;
    let mut report = o.report;
    report.policy = Some(label.to_string());
    let mut timeline = Timeline::default();
    let timeline_file = match sink.flatten() {
        Some((p, mut w)) => {
            write_rows(&mut w, &mut o.timeline.into_iter())
                .map_err(|source| AnalysisError::Output { path: p.display().to_string(), source })?;
            finish_sink(Some((p, w)))?
        }
        None => {
            timeline.extend(o.timeline.into_iter().map(|(t, s)| (t.as_nanos(), s)));
            None
        }
    };
    Ok(PolicyOutcome {
        label: label.to_string(),
        name: crate::policy_spec::OBSERVED,
        report,
        beacons: o.outcome.beacons,
        rx_while_dormant: 0,
        busy_while_dormant: 0,
        by_connection: Vec::new(),
        timeline,
        timeline_file,
        timeline_elided_beacons: 0,
        state_changes: 0,
        energybox: None,
        twt: None,
        observed: Some(o.outcome),
    })
}

/// Flushes a timeline sink; the file it wrote.
fn finish_sink(sink: Option<Sink>) -> Result<Option<PathBuf>, AnalysisError> {
    match sink {
        Some((path, mut w)) => {
            w.flush().map_err(|source| AnalysisError::Output { path: path.display().to_string(), source })?;
            Ok(Some(path))
        }
        None => Ok(None),
    }
}

/// The refusal of a capture whose timestamps fail the checks: reads the rest of it (the
/// reader alone, no costing) to count every problem, and names the first.
fn refuse<R: Read>(path: &str, mut check: TimeCheck, reader: &mut TraceReader<R>, client: IpAddr) -> AnalysisError {
    while let Some(Ok(p)) = reader.next_packet() {
        if p.src == client || p.dst == client || is_group(p.dst) {
            check.observe(&p);
        }
    }
    let report = *check.report();
    let limits = check.limits();
    let first = report.describe_first(limits).unwrap_or_default();
    let mut message = format!("{path}: {first}.\nThe capture's timestamps cannot be costed as they are: ");
    message.push_str(&report.warnings(limits).join("; "));
    message.push_str(&format!(
        " (in {} packets to or from {client}).\nA capture whose clock jumped is costed as if the radio lived through the jump; \
         to cost it anyway, flagged, pass --accept-odd-times (Python: accept_odd_times=True){}",
        report.checked,
        if report.gaps.count > 0 { ", or raise the longest gap allowed with --max-gap (max_gap_s=)" } else { "" }
    ));
    AnalysisError::OddTimes { message, report: Box::new(report) }
}

/// Leads of received packets up to one frame long, by size, computed once each (the airtime
/// of every received packet is otherwise computed twice: to order it and to feed it).
#[derive(Default)]
struct Leads {
    /// Lead in ns by `2 × ip_len + group`; `u64::MAX` until computed.
    ns: Vec<u64>,
}

impl Leads {
    fn get(&mut self, airtime: &Airtime, ip_len: u32, group: bool) -> Duration {
        if ip_len > FRAME_MTU {
            return airtime.lead_of(ip_len, group);
        }
        if self.ns.is_empty() {
            self.ns = vec![u64::MAX; 2 * (FRAME_MTU as usize + 1)];
        }
        let slot = &mut self.ns[2 * ip_len as usize + group as usize];
        if *slot == u64::MAX {
            *slot = airtime.lead_of(ip_len, group).as_nanos();
        }
        Duration::from_nanos(*slot)
    }
}

/// A packet waiting to be fed, ordered by its first interval's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Pending {
    start: Time,
    seq: u64,
    t: Time,
    up: bool,
    ip_len: u32,
    /// The frame's length on the wire, as captured.
    frame_len: u32,
    group: bool,
    /// The connection (its id is taken when the packet is released, in time order).
    key: ConnKey,
}

/// Feeds released packets to the meters (created at the first release, so the run starts at
/// the earliest interval).
struct Feeder<'a> {
    opts: &'a EnergyOptions,
    run: Vec<Running>,
    intervals: Vec<Interval>,
    /// A `twt` policy's packet's intervals, where the policy placed it.
    twt_intervals: Vec<Interval>,
    start: Time,
    end: Time,
    fed: u64,
    deferred: u64,
    deferred_ns: u64,
    /// Bytes per bin of capture time from the run's start (packets come out of the heap in
    /// order, so a capture reordered within the tolerance gives the sorted capture's bins).
    throughput: ThroughputBins,
    /// The client's connections, bounded.
    conns: ConnTable,
    /// The owner evicted connections' energy is folded into.
    other: u32,
}

impl Feeder<'_> {
    /// Feeds every `twt` policy the held packets whose delivery starts by `now`, in order.
    fn deliver_held(&mut self, now: Time) -> Result<(), AnalysisError> {
        for r in &mut self.run {
            let (Some(w), Meter::Policy(m)) = (&mut r.twt, &mut r.meter) else { continue };
            while let Some((h, at)) = w.due(now) {
                // The packet's frames, shifted as a whole: its data frame ends `at − start`
                // later than the capture has it.
                let t = h.t + (at - h.start);
                let iv = &mut self.twt_intervals;
                iv.clear();
                self.opts.airtime.for_each(t, Direction::Down, h.ip_len, h.group, |i| iv.push(i));
                feed_policy(m, iv, Activity::Rx, h.bytes, h.owner);
                w.placed(iv.last().map_or(t, |i| i.1));
            }
        }
        Ok(())
    }

    fn release(&mut self, q: Pending) -> Result<(), AnalysisError> {
        let dir = if q.up { Direction::Up } else { Direction::Down };
        // A sender defers while its radio is still busy (e.g. ACKing the frame just received);
        // received frames are where the capture puts them.
        let mut t = q.t;
        if q.up && self.end > t {
            self.deferred += 1;
            self.deferred_ns = self.deferred_ns.saturating_add((self.end - t).as_nanos());
            t = self.end;
        }
        self.intervals.clear();
        let iv = &mut self.intervals;
        self.opts.airtime.for_each(t, dir, q.ip_len, q.group, |i| iv.push(i));
        if self.fed == 0 {
            // The first packet: the run starts here (the meters too; EnergyBox's engine, if it
            // is the only policy, has none).
            self.start = q.start;
            self.run = start_meters(self.opts, q.start)?;
        }
        let (owner, reused) = self.conns.slot(q.key, q.t.as_nanos());
        if reused {
            // The id's previous connection was evicted into `other`: so is its energy, charged
            // or in progress, before the id is charged for its new connection.
            for r in &mut self.run {
                match &mut r.meter {
                    Meter::Policy(m) => m.fold_owner(owner, self.other),
                    Meter::Replay(m) => m.fold_owner(owner, self.other),
                }
            }
        }
        self.conns.row_mut(owner).count(q.up, u64::from(q.ip_len), q.t.as_nanos());
        let bin = ThroughputBins::index(q.t.as_nanos(), self.start.as_nanos(), self.opts.bin.as_nanos());
        self.throughput.add(bin, usize::from(!q.up), u64::from(q.ip_len));
        let data = if q.up { Activity::Tx } else { Activity::Rx };
        self.deliver_held(q.start)?;
        for r in &mut self.run {
            let bytes = u64::from(match r.count {
                ByteCount::Ip => q.ip_len,
                ByteCount::Frame => q.frame_len,
            });
            match (&mut r.twt, &mut r.meter) {
                (Some(w), Meter::Policy(m)) if q.up => {
                    // The client sends when the capture has it, once its radio is free.
                    let at = w.send_at(q.t);
                    let iv = &mut self.twt_intervals;
                    iv.clear();
                    self.opts.airtime.for_each(at, dir, q.ip_len, q.group, |i| iv.push(i));
                    feed_policy(m, iv, data, bytes, owner);
                    w.placed(iv.last().map_or(at, |i| i.1));
                }
                (Some(w), _) => w.hold(Held { start: q.start, t: q.t, ip_len: q.ip_len, group: q.group, bytes, owner }),
                _ => feed(r, &self.intervals, dir, data, bytes, owner),
            }
        }
        // A received packet that finds an SP open and the radio free goes at once.
        self.deliver_held(q.start)?;
        if let Some(last) = self.intervals.last() {
            self.end = self.end.max(last.1);
        }
        self.fed += 1;
        if self.fed.is_multiple_of(DRAIN_EVERY) {
            for r in &mut self.run {
                r.drain()?;
            }
        }
        Ok(())
    }
}

#[derive(Default)]
struct Counts {
    packets_up: u64,
    packets_down: u64,
    bytes_up: u64,
    bytes_down: u64,
    group_down: u64,
    foreign: u64,
    oversize: u64,
}

fn start_meters(opts: &EnergyOptions, start: Time) -> Result<Vec<Running>, AnalysisError> {
    let mut run = Vec::with_capacity(opts.policies.len());
    for (i, spec) in opts.policies.iter().enumerate() {
        let mut meter = match &spec.kind {
            PolicyKind::Accounting(p) => {
                let mut m = PolicyMeter::new(*p, &opts.profile, start);
                m.enable_attribution();
                Meter::Policy(Box::new(m))
            }
            PolicyKind::Twt(w) => {
                let mut m = PolicyMeter::new(AccountingPolicy::Twt(*w), &opts.profile, start);
                m.enable_attribution();
                Meter::Policy(Box::new(m))
            }
            PolicyKind::Replay(schedule) => {
                let mut m = ReplayMeter::new(&opts.profile, start, schedule.clone());
                m.enable_attribution();
                Meter::Replay(Box::new(m))
            }
            // EnergyBox's engine reads every frame, in file order (see `run`); `observed` reads
            // the 802.11 frames in passes of its own.
            PolicyKind::EnergyBox(_) | PolicyKind::Observed(_) => continue,
        };
        let sink = open_sink(opts, i)?;
        if sink.is_some() {
            match &mut meter {
                Meter::Policy(m) => m.enable_timeline(),
                Meter::Replay(m) => m.enable_timeline(),
            }
        }
        let twt = match &spec.kind {
            PolicyKind::Twt(w) => Some(Box::new(TwtShift::new(*w, start))),
            _ => None,
        };
        run.push(Running {
            label: spec.label.clone(),
            name: spec.name(),
            count: spec.count,
            meter,
            twt,
            rx_while_dormant: 0,
            sink: sink.flatten(),
            timeline: Timeline::default(),
        });
    }
    Ok(run)
}

/// Feeds one packet's intervals to a policy's meter.
fn feed(r: &mut Running, intervals: &[Interval], dir: Direction, data: Activity, bytes: u64, id: u32) {
    match &mut r.meter {
        Meter::Policy(m) => feed_policy(m, intervals, data, bytes, id),
        Meter::Replay(m) => {
            let Some(&(first, _, _)) = intervals.first() else { return };
            if dir == Direction::Down && m.scheduled_at(first).is_dormant() {
                r.rx_while_dormant += 1;
                return;
            }
            for &(s, e, k) in intervals {
                m.activity(s, e, k, id);
            }
        }
    }
}

/// Feeds one packet's intervals to an accounting policy's meter.
fn feed_policy(m: &mut PolicyMeter, intervals: &[Interval], data: Activity, bytes: u64, id: u32) {
    let mut counted = false;
    for &(s, e, k) in intervals {
        // The window counts the packet once, on its (first) data frame.
        let b = if !counted && k == data {
            counted = true;
            bytes
        } else {
            0
        };
        m.frame(s, e, k, b, id);
    }
}

/// Energy in joules from exact femtojoules.
pub fn fj_to_j(fj: u128) -> f64 {
    fj as f64 * 1e-15
}

/// The file the `i`-th policy's timeline is streamed to under `dir`.
pub fn timeline_path(dir: &Path, i: usize) -> PathBuf {
    dir.join(format!("timeline_{i}.csv"))
}
