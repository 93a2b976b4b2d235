//! Savings at equal work: a power mode's run against its baseline (the same scenario and seed
//! with power saving off), flow by flow, and a saving only where both did the same work
//! (docs/scenario.md, "Savings need the same work"):
//!
//! - a flow that completed in the baseline (its work is its size: a download, a finite stream)
//!   must complete in the run with exactly the same application bytes and, for datagram flows,
//!   the same datagrams received;
//! - a flow the baseline did not complete (its work is set by the run's stop time: background
//!   flows, open-ended streams, a run cut by its time limit) must deliver the baseline's bytes
//!   and datagrams within [`TIME_BOUNDED_TOLERANCE`]: a mode that holds data (a PSM buffer, a
//!   tunnel's inlet) moves what it holds at the stop past it.
//!
//! Anything else is lost (or extra) work, reported as such, and no saving is computed.

use crate::output::{FlowSummary, RadioBasis, Summary};
use serde::Serialize;
use std::collections::HashMap;

/// The MB of `energy_j_per_mb`: 10^6 bytes of application payload delivered.
pub const MB: f64 = 1e6;

/// Relative difference of bytes and datagrams allowed for a flow that its baseline run did not
/// complete (1 %). A mode that holds data (a PSM or U-APSD buffer, a tunnel's inlet, BSD's sleep
/// of at most 0.9 s) moves what it holds at the stop time past it: a fixed amount, not a share
/// of the run (the shipped tunnel scenario: 0.05 % of each flow in 20 s, 0.1 % in 3 s). A loss
/// the mode causes all along (a full AP buffer, a radio asleep) is a share of the run and far
/// larger; a difference within 1 % changes a saving by less than 1 % of the energy those bytes
/// cost.
pub const TIME_BOUNDED_TOLERANCE: f64 = 1e-2;

/// What the savings rows say their baseline is.
const BASELINE: &str = "same scenario and seed, power_save = cam (always-on; PSNA flows as end-to-end TCP)";

/// The columns of a savings row, in order (Python's `api.SAVINGS_COLUMNS`).
pub const SAVINGS_COLUMNS: [&str; 19] = [
    "node", "profile", "mode", "energy_j", "completion_s", "baseline_energy_j", "baseline_completion_s",
    "saving", "slowdown", "same_work", "saving_note", "lost_bytes", "lost_datagrams", "flows_not_completed",
    "delivered_bytes", "baseline_delivered_bytes", "energy_j_per_mb", "baseline_energy_j_per_mb", "baseline",
];

/// The work one flow did, as compared.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowWork {
    /// Flow name (flows are matched by name).
    pub name: String,
    /// Application bytes delivered.
    pub bytes_delivered: u64,
    /// The flow completed.
    pub completed: bool,
    /// Datagrams received (udp-cbr and ping flows), else None.
    pub datagrams_received: Option<u64>,
    /// Node that sends the data.
    pub sender: String,
    /// Node that receives it.
    pub receiver: String,
}

impl From<&FlowSummary> for FlowWork {
    fn from(f: &FlowSummary) -> FlowWork {
        FlowWork {
            name: f.name.clone(),
            bytes_delivered: f.bytes_delivered,
            completed: f.completed,
            datagrams_received: f.datagrams_received(),
            sender: f.sender.clone(),
            receiver: f.receiver.clone(),
        }
    }
}

/// One radio's energy row of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct RadioWork {
    /// Node of the radio.
    pub node: String,
    /// Device profile.
    pub profile: String,
    /// Accounting policy or power mode.
    pub policy: String,
    /// True for the row of the power mode the run used (basis `mode`).
    pub is_mode: bool,
    /// Energy (J).
    pub energy_j: f64,
}

/// What a run did, as far as savings need it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunWork {
    /// Its flows.
    pub flows: Vec<FlowWork>,
    /// Its radios' rows.
    pub radios: Vec<RadioWork>,
    /// Every sized flow completed before the time limit.
    pub completed: bool,
    /// Simulated time the results cover (s).
    pub end_time_s: f64,
    /// When each flow completed, from the run's start (its start plus its completion time, s;
    /// None if it did not): flows that start late end late.
    pub completion_ends_s: Vec<Option<f64>>,
    /// The run had an SCTP tunnel (which the baseline drops).
    pub has_tunnels: bool,
}

impl From<&Summary> for RunWork {
    fn from(s: &Summary) -> RunWork {
        RunWork {
            flows: s.flows.iter().map(FlowWork::from).collect(),
            radios: s
                .radios
                .iter()
                .map(|r| RadioWork {
                    node: r.node.clone(),
                    profile: r.profile.clone(),
                    policy: r.policy.clone(),
                    is_mode: r.basis == RadioBasis::Mode,
                    energy_j: r.energy_j,
                })
                .collect(),
            completed: s.completed,
            end_time_s: s.end_time_s,
            completion_ends_s: s.flows.iter().map(|f| f.completion_time_s.map(|c| f.start_s + c)).collect(),
            has_tunnels: !s.tunnels.is_empty(),
        }
    }
}

impl RunWork {
    /// When the run's last finite flow completed, from the run's start (the run's end if one
    /// did not).
    pub fn completion_s(&self) -> f64 {
        let last = self.completion_ends_s.iter().flatten().copied().reduce(f64::max);
        match last {
            Some(t) if self.completed => t,
            _ => self.end_time_s,
        }
    }
}

/// How the work of one run differs from another's (its baseline's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkDiff {
    /// The same work by the rules of this module.
    pub same_work: bool,
    /// Application bytes the baseline delivered and the run did not, summed over flows
    /// (negative if the run delivered more).
    pub lost_bytes: i64,
    /// The same for datagrams received by udp-cbr and ping flows (None without such flows).
    pub lost_datagrams: Option<i64>,
    /// Names of flows the baseline completed and the run did not, comma separated ("" if none).
    pub flows_not_completed: String,
}

/// How the work of `run` differs from that of `base`, over every flow of the runs.
pub fn compare_work(run: &[FlowWork], base: &[FlowWork]) -> WorkDiff {
    let mut base_flows: HashMap<&str, &FlowWork> = HashMap::new();
    for f in base {
        base_flows.insert(&f.name, f);
    }
    let run_names: std::collections::HashSet<&str> = run.iter().map(|f| f.name.as_str()).collect();
    let mut same = run_names.len() == base_flows.len() && run_names.iter().all(|n| base_flows.contains_key(n));
    let (mut lost_bytes, mut lost_dgrams, mut have_dgrams, mut not_done) = (0i64, 0i64, false, Vec::new());
    for f in run {
        let Some(b) = base_flows.get(f.name.as_str()) else { continue };
        lost_bytes += b.bytes_delivered as i64 - f.bytes_delivered as i64;
        let (d_run, d_base) = (f.datagrams_received, b.datagrams_received);
        if d_run.is_some() || d_base.is_some() {
            have_dgrams = true;
            lost_dgrams += d_base.unwrap_or(0) as i64 - d_run.unwrap_or(0) as i64;
        }
        if b.completed {
            if !f.completed {
                not_done.push(f.name.as_str());
            }
            same &= f.completed && f.bytes_delivered == b.bytes_delivered && d_run == d_base;
        } else {
            same &= close(f.bytes_delivered, b.bytes_delivered) && close(d_run.unwrap_or(0), d_base.unwrap_or(0));
        }
    }
    WorkDiff {
        same_work: same,
        lost_bytes,
        lost_datagrams: have_dgrams.then_some(lost_dgrams),
        flows_not_completed: not_done.join(", "),
    }
}

/// `got` within [`TIME_BOUNDED_TOLERANCE`] of `want`.
fn close(got: u64, want: u64) -> bool {
    got.abs_diff(want) as f64 <= TIME_BOUNDED_TOLERANCE * want as f64
}

/// Application bytes delivered by the flows with an end (sender or receiver) at `node`: the
/// work its radio carried.
pub fn delivered_bytes(flows: &[FlowWork], node: &str) -> u64 {
    flows.iter().filter(|f| f.sender == node || f.receiver == node).map(|f| f.bytes_delivered).sum()
}

/// Energy per MB (10^6 bytes) delivered; None when nothing was.
pub fn joules_per_mb(energy_j: f64, delivered: u64) -> Option<f64> {
    (delivered > 0).then(|| energy_j / (delivered as f64 / MB))
}

/// What differs, in words: "lost 2.79 MB; lost 2,723 datagrams; not completed: stream".
pub fn describe_loss(lost_bytes: i64, lost_datagrams: Option<i64>, flows_not_completed: &str) -> String {
    let mut parts = Vec::new();
    let (b, d) = (lost_bytes, lost_datagrams.unwrap_or(0));
    if b > 0 {
        parts.push(format!("lost {} MB", fmt_g6(b as f64 / MB)));
    } else if b < 0 {
        parts.push(format!("{} MB more delivered", fmt_g6(-b as f64 / MB)));
    }
    if d > 0 {
        parts.push(format!("lost {} datagrams", thousands(d)));
    } else if d < 0 {
        parts.push(format!("{} datagrams more", thousands(-d)));
    }
    if !flows_not_completed.is_empty() {
        parts.push(format!("not completed: {flows_not_completed}"));
    }
    if parts.is_empty() {
        "flows completed differently".into()
    } else {
        parts.join("; ")
    }
}

impl WorkDiff {
    /// [`describe_loss`] of this difference.
    pub fn describe(&self) -> String {
        describe_loss(self.lost_bytes, self.lost_datagrams, &self.flows_not_completed)
    }
}

/// One power mode's radio against the baseline run's always-on radio: a row of the savings
/// table (its fields are the columns, [`SAVINGS_COLUMNS`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SavingsRow {
    /// Node of the radio.
    pub node: String,
    /// Device profile.
    pub profile: String,
    /// The power mode.
    pub mode: String,
    /// Its energy in the run (J).
    pub energy_j: f64,
    /// When the run's last finite flow completed (s; the run's end if one did not).
    pub completion_s: f64,
    /// The baseline's always-on energy of the same radio (J).
    pub baseline_energy_j: f64,
    /// The baseline's completion time (s).
    pub baseline_completion_s: f64,
    /// 1 − energy / baseline energy; None unless the same work was done (NaN if the baseline
    /// spent nothing).
    pub saving: Option<f64>,
    /// completion / baseline completion − 1; None unless the same work was done.
    pub slowdown: Option<f64>,
    /// The run did the baseline's work.
    pub same_work: bool,
    /// Why there is no saving, in words ("" where the work was the same).
    pub saving_note: String,
    /// See [`WorkDiff::lost_bytes`].
    pub lost_bytes: i64,
    /// See [`WorkDiff::lost_datagrams`].
    pub lost_datagrams: Option<i64>,
    /// See [`WorkDiff::flows_not_completed`].
    pub flows_not_completed: String,
    /// Bytes delivered by the flows with an end at the node, in the run.
    pub delivered_bytes: u64,
    /// The same in the baseline.
    pub baseline_delivered_bytes: u64,
    /// Energy per delivered MB in the run (None if nothing was delivered).
    pub energy_j_per_mb: Option<f64>,
    /// The same in the baseline.
    pub baseline_energy_j_per_mb: Option<f64>,
    /// What the baseline is, in words.
    pub baseline: String,
}

/// The savings rows of `run` against `base`: each radio's power-mode row against the baseline
/// run's always-on row of the same radio.
pub fn savings(run: &RunWork, base: &RunWork) -> Vec<SavingsRow> {
    let mut base_rows: HashMap<(&str, &str), &RadioWork> = HashMap::new();
    for r in &base.radios {
        base_rows.insert((&r.node, &r.policy), r);
    }
    let (t_run, t_base) = (run.completion_s(), base.completion_s());
    let diff = compare_work(&run.flows, &base.flows);
    let same = diff.same_work;
    // The baseline drops [[tunnel]] too (Scenario::baseline): say so where it did.
    let what = if run.has_tunnels { format!("{BASELINE}, without the [[tunnel]]") } else { BASELINE.to_string() };
    let mut rows = Vec::new();
    for r in &run.radios {
        let Some(b) = base_rows.get(&(r.node.as_str(), "always-on")) else { continue };
        if !r.is_mode {
            continue;
        }
        let got = delivered_bytes(&run.flows, &r.node);
        let had = delivered_bytes(&base.flows, &r.node);
        rows.push(SavingsRow {
            node: r.node.clone(),
            profile: r.profile.clone(),
            mode: r.policy.clone(),
            energy_j: r.energy_j,
            completion_s: t_run,
            baseline_energy_j: b.energy_j,
            baseline_completion_s: t_base,
            saving: same.then(|| if b.energy_j > 0.0 { 1.0 - r.energy_j / b.energy_j } else { f64::NAN }),
            slowdown: same.then(|| if t_base != 0.0 { t_run / t_base - 1.0 } else { f64::NAN }),
            same_work: same,
            saving_note: if same { String::new() } else { format!("no saving: {}", diff.describe()) },
            lost_bytes: diff.lost_bytes,
            lost_datagrams: diff.lost_datagrams,
            flows_not_completed: diff.flows_not_completed.clone(),
            delivered_bytes: got,
            baseline_delivered_bytes: had,
            energy_j_per_mb: joules_per_mb(r.energy_j, got),
            baseline_energy_j_per_mb: joules_per_mb(b.energy_j, had),
            baseline: what.clone(),
        });
    }
    rows
}

/// What the run failed to deliver against its baseline, in words (None if the work was the
/// same): the warning of `wattlab run`.
pub fn lost_work(run: &RunWork, base: &RunWork) -> Option<String> {
    let diff = compare_work(&run.flows, &base.flows);
    (!diff.same_work).then(|| diff.describe())
}

impl RunWork {
    /// Per radio node, in order of first appearance: the energy its radio spent under the
    /// run's power mode (the `mode` row), or always-on when it ran none (never slept).
    pub fn radio_energy(&self) -> Vec<(String, f64)> {
        let mut out: Vec<(String, f64)> = Vec::new();
        let mut put = |node: &str, e: f64, replace: bool| match out.iter_mut().find(|(n, _)| n == node) {
            Some(slot) if replace => slot.1 = e,
            Some(_) => {}
            None => out.push((node.to_string(), e)),
        };
        for r in self.radios.iter().filter(|r| r.is_mode) {
            put(&r.node, r.energy_j, true);
        }
        for r in self.radios.iter().filter(|r| r.policy == "always-on") {
            put(&r.node, r.energy_j, false);
        }
        out
    }
}

/// One radio node of a run against another run (`run --compare`: each value against the first).
#[derive(Clone, Debug, PartialEq)]
pub struct NodeComparison {
    /// The node.
    pub node: String,
    /// Its radio's energy (see [`RunWork::radio_energy`], J).
    pub energy_j: f64,
    /// Per MB delivered by its flows (None if nothing was).
    pub energy_j_per_mb: Option<f64>,
    /// 1 − energy / the other run's; None unless the same work was done (NaN if the other run
    /// has no energy for the node).
    pub saving: Option<f64>,
}

/// A run against another run of the same scenario and seed with one setting changed.
#[derive(Clone, Debug, PartialEq)]
pub struct RunComparison {
    /// How the work differs.
    pub diff: WorkDiff,
    /// Each radio node.
    pub nodes: Vec<NodeComparison>,
    /// The run's completion time (s).
    pub completion_s: f64,
    /// completion / the other's − 1; None unless the same work was done.
    pub slowdown: Option<f64>,
}

/// `run` against `first` (the energy and completion `run --compare` reports for each value).
pub fn compare_runs(run: &RunWork, first: &RunWork) -> RunComparison {
    let diff = compare_work(&run.flows, &first.flows);
    let same = diff.same_work;
    let base_e = first.radio_energy();
    let (t, base_t) = (run.completion_s(), first.completion_s());
    let nodes = run
        .radio_energy()
        .into_iter()
        .map(|(node, joules)| {
            let b = base_e.iter().find(|(n, _)| *n == node).map(|(_, e)| *e).filter(|e| *e != 0.0);
            NodeComparison {
                energy_j_per_mb: joules_per_mb(joules, delivered_bytes(&run.flows, &node)),
                saving: same.then(|| b.map_or(f64::NAN, |b| 1.0 - joules / b)),
                energy_j: joules,
                node,
            }
        })
        .collect();
    let slowdown = same.then(|| if base_t != 0.0 { t / base_t - 1.0 } else { f64::NAN });
    RunComparison { diff, nodes, completion_s: t, slowdown }
}

/// `x` as Python's `format(x, ".6g")`: 6 significant digits, trailing zeros dropped, exponent
/// form below 1e-4 and from 1e6.
pub fn fmt_g6(x: f64) -> String {
    const P: i32 = 6;
    if x == 0.0 {
        return if x.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    if !x.is_finite() {
        return if x.is_nan() { "nan".into() } else if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    // The exponent after rounding to P digits, as %e gives it.
    let sci = format!("{:.*e}", (P - 1) as usize, x);
    let (mantissa, exp) = sci.split_once('e').expect("an exponent");
    let exp: i32 = exp.parse().expect("an integer exponent");
    let strip = |s: &str| if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s.to_string() };
    if (-4..P).contains(&exp) {
        strip(&format!("{:.*}", (P - 1 - exp) as usize, x))
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip(mantissa), exp.abs())
    }
}

/// `n` with thousands separators, as Python's `format(n, ",")`.
fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(name: &str, bytes: u64, completed: bool, dgrams: Option<u64>) -> FlowWork {
        FlowWork { name: name.into(), bytes_delivered: bytes, completed, datagrams_received: dgrams, ..Default::default() }
    }

    #[test]
    fn equal_work_is_exact_for_completed_flows_and_within_one_percent_for_cut_ones() {
        let base = [flow("a", 1000, true, None), flow("s", 500, true, Some(5))];
        let d = compare_work(&base, &base);
        assert_eq!((d.same_work, d.lost_bytes, d.lost_datagrams, d.flows_not_completed.as_str()), (true, 0, Some(0), ""));
        let d = compare_work(&[flow("a", 1000, true, None), flow("s", 400, false, Some(4))], &base);
        assert_eq!((d.same_work, d.lost_bytes, d.lost_datagrams, d.flows_not_completed.as_str()), (false, 100, Some(1), "s"));
        assert_eq!(d.describe(), "lost 0.0001 MB; lost 1 datagrams; not completed: s");
        let d = compare_work(&[flow("a", 1200, true, None)], &[flow("a", 1000, true, None)]);
        assert!(!d.same_work && d.lost_bytes == -200 && d.describe() == "0.0002 MB more delivered");
        let cut = [flow("bg", 2_000_000, false, None), flow("s", 100_000, false, Some(10_000))];
        assert!(compare_work(&[flow("bg", 1_980_000, false, None), flow("s", 100_000, false, Some(9_900))], &cut).same_work);
        assert!(!compare_work(&[flow("bg", 1_979_999, false, None), flow("s", 100_000, false, Some(10_000))], &cut).same_work);
        assert!(!compare_work(&[flow("bg", 2_000_000, false, None), flow("s", 100_000, false, Some(9_899))], &cut).same_work);
        // A flow missing on one side: different work.
        assert!(!compare_work(&[flow("a", 1000, true, None)], &base[..]).same_work);
        assert_eq!(joules_per_mb(2.0, 0), None);
        assert_eq!(joules_per_mb(2.0, 500_000), Some(4.0));
    }

    #[test]
    fn numbers_are_written_as_python_writes_them() {
        for (x, want) in [
            (0.0001, "0.0001"), (2.79, "2.79"), (2.7912345, "2.79123"), (1234567.0, "1.23457e+06"),
            (0.00001234, "1.234e-05"), (100.0, "100"), (999999.5, "1e+06"), (0.1, "0.1"), (123456.4, "123456"),
        ] {
            assert_eq!(fmt_g6(x), want, "{x}");
        }
        assert_eq!(thousands(2723), "2,723");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(thousands(999), "999");
        assert_eq!(describe_loss(0, None, ""), "flows completed differently");
        assert_eq!(describe_loss(-5_000_000, Some(-1234), ""), "5 MB more delivered; 1,234 datagrams more");
    }

    fn run_of(energy: f64, flows: Vec<FlowWork>, mode: bool) -> RunWork {
        RunWork {
            radios: vec![RadioWork { node: "c".into(), profile: "p".into(), policy: if mode { "psm" } else { "always-on" }.into(), is_mode: mode, energy_j: energy }],
            completion_ends_s: flows.iter().map(|f| f.completed.then_some(2.0)).collect(),
            flows,
            completed: true,
            end_time_s: 3.0,
            has_tunnels: false,
        }
    }

    #[test]
    fn a_saving_needs_the_same_work_and_names_its_baseline() {
        let f = |b, c| FlowWork { receiver: "c".into(), ..flow("x", b, c, None) };
        let base = run_of(10.0, vec![f(1000, true)], false);
        let rows = savings(&run_of(4.0, vec![f(1000, true)], true), &base);
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!((r.saving, r.slowdown, r.same_work, r.saving_note.as_str()), (Some(0.6), Some(0.0), true, ""));
        assert_eq!((r.energy_j_per_mb, r.baseline_energy_j_per_mb), (Some(4000.0), Some(10_000.0)));
        assert_eq!(r.baseline, BASELINE);
        let mut lossy = run_of(1.0, vec![f(600, false)], true);
        lossy.completed = false;
        let r = &savings(&lossy, &base)[0];
        assert_eq!((r.saving, r.slowdown, r.same_work, r.lost_bytes), (None, None, false, 400));
        assert_eq!(r.saving_note, "no saving: lost 0.0004 MB; not completed: x");
        assert_eq!(r.completion_s, 3.0, "a run that did not complete ends at its end");
        assert_eq!(lost_work(&lossy, &base).as_deref(), Some("lost 0.0004 MB; not completed: x"));
        // The row's fields are the table's columns, in order.
        let json = serde_json::to_value(r).unwrap();
        let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
        let mut want = SAVINGS_COLUMNS.to_vec();
        want.sort_unstable();
        assert_eq!(keys, want, "serde_json's map is sorted; the columns are the fields");
        // Without a power mode row there is nothing to compare.
        assert!(savings(&base, &base).is_empty());
    }
}
