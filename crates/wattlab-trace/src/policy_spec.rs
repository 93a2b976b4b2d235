//! Policy specifications as users write them: `NAME[:key=value,...]`.
//!
//! | name | keys (defaults) |
//! |---|---|
//! | `always-on` | none |
//! | `oracle` | none |
//! | `psm` | `beacon` (102.4ms), `listen` (the PHY's beacon airtime) |
//! | `adaptive-psm` | `timeout` (220ms), `window` (50ms, or `fixed`/`sliding`), `windows` (`sliding`), `threshold` (3000 bytes), `bytes` (`ip`), `beacon`, `listen` |
//! | `twt` | `interval`, `duration` (both required), `offset` (0): an 802.11ax TWT agreement; received packets move into its service periods ([`crate::twt`]) |
//! | `replay` | `policy`, `node` (rows of the `--transitions` file to use) |
//! | `observed` | `listen` (`beacons`), `overhear` (`idle`), `stamp` (`end`), `padding` (0): what a monitor capture shows the station `--client-mac` doing ([`crate::observed`]) |
//! | `energybox` | none: EnergyBox's engine, emulated with its artifacts, on the EnergyBox files' settings |
//!
//! Durations take a unit (`ns`, `us`, `ms`, `s`); a bare number is milliseconds.
//!
//! `windows=fixed` (or `window=fixed`) lays adaptive PSM's throughput windows end to end from
//! the start of the run, as EnergyBox does; `bytes=frame` counts the frames' captured (wire)
//! lengths, link header included, as EnergyBox does, instead of IP lengths. Both are the
//! defaults when EnergyBox files are imported.

use std::path::Path;

use wattlab_core::energy::{AccountingPolicy, AdaptivePsmParams, PsmParams, RadioState, TwtSchedule, WindowKind};
use wattlab_core::power::PolicyName;
use wattlab_core::{Duration, Time};

use crate::energybox::EnergyBoxConfig;
use crate::energybox_engine::EngineSettings;
use crate::observed::{ObservedParams, OBSERVED_KEYS};
use crate::transitions::{load_transitions, RowFilter};

/// The policy that is not an accounting policy of the registry: a recorded schedule.
pub const REPLAY: &str = "replay";

/// EnergyBox's own engine, emulated (see [`crate::energybox_engine`]).
pub const ENERGYBOX: &str = "energybox";

/// What a monitor capture shows the station doing (see [`crate::observed`]).
pub const OBSERVED: &str = "observed";

/// Names of the policies, for help texts and errors: the registry's accounting policies
/// ([`PolicyName`]), `twt`, `replay` and `energybox`.
pub fn policy_names() -> String {
    format!("{}, {}, {REPLAY}, {ENERGYBOX}, {OBSERVED}", PolicyName::help(), PolicyName::Twt)
}

/// What a policy does.
#[derive(Clone, Debug, PartialEq)]
pub enum PolicyKind {
    /// A policy that decides the radio's state in each gap (see [`AccountingPolicy`]).
    Accounting(AccountingPolicy),
    /// The recorded `(instant, state)` schedule, replayed.
    Replay(Vec<(Time, RadioState)>),
    /// EnergyBox's engine with its settings: its own number, artifacts included.
    EnergyBox(EngineSettings),
    /// An 802.11ax TWT agreement: received packets held until its service periods
    /// ([`crate::twt`]), the radio costed by the core's TWT meter.
    Twt(TwtSchedule),
    /// What an 802.11 capture shows the station `--client-mac` doing ([`crate::observed`]).
    Observed(ObservedParams),
}

/// Which length of a packet adaptive PSM's throughput window counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ByteCount {
    /// The IP packet's length (default).
    #[default]
    Ip,
    /// The frame's length on the wire as captured, link header included (EnergyBox).
    Frame,
}

/// One policy to cost a capture under, with the label it is reported by.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicySpec {
    /// The text the user gave (e.g. `psm:beacon=204.8ms`), unique within a run.
    pub label: String,
    /// The policy.
    pub kind: PolicyKind,
    /// What adaptive PSM's window counts (other policies count nothing).
    pub count: ByteCount,
}

/// What a spec's defaults depend on.
#[derive(Clone, Copy, Debug, Default)]
pub struct SpecContext<'a> {
    /// Beacon timing of the PHY in use.
    pub psm: Option<PsmParams>,
    /// EnergyBox settings, which give adaptive PSM's defaults.
    pub energybox: Option<&'a EnergyBoxConfig>,
    /// The `--transitions` file, for `replay`.
    pub transitions: Option<&'a Path>,
}

/// Parses a duration: `220ms`, `0.5s`, `150us`, `800ns`, or a bare number of milliseconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (num, scale) = if let Some(x) = t.strip_suffix("ns") {
        (x, 1.0)
    } else if let Some(x) = t.strip_suffix("us") {
        (x, 1e3)
    } else if let Some(x) = t.strip_suffix("ms") {
        (x, 1e6)
    } else if let Some(x) = t.strip_suffix('s') {
        (x, 1e9)
    } else {
        (t, 1e6)
    };
    let x: f64 = num.trim().parse().map_err(|_| format!("`{text}` is not a duration (e.g. 220ms, 0.5s, 150us)"))?;
    if !(x.is_finite() && x >= 0.0 && x * scale < 1e18) {
        return Err(format!("duration `{text}` is out of range"));
    }
    Ok(Duration::from_nanos((x * scale).round() as u64))
}

impl PolicySpec {
    /// Parses `NAME[:key=value,...]` (see the module docs).
    pub fn parse(spec: &str, cx: &SpecContext) -> Result<PolicySpec, String> {
        let (name, args) = match spec.split_once(':') {
            Some((n, a)) => (n.trim(), a.trim()),
            None => (spec.trim(), ""),
        };
        let mut pairs = Vec::new();
        for kv in args.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| format!("policy `{spec}`: expected key=value, got `{kv}`"))?;
            pairs.push((k.trim(), v.trim()));
        }
        let bad_key = |k: &str, valid: &[&str]| {
            if valid.is_empty() {
                format!("policy `{spec}`: `{name}` takes no settings (got `{k}`)")
            } else {
                format!("policy `{spec}`: unknown setting `{k}` for `{name}`; valid: {}", valid.join(", "))
            }
        };
        let dur = |k: &str, v: &str| parse_duration(v).map_err(|e| format!("policy `{spec}`: setting `{k}`: {e}"));
        let psm_base = match cx.energybox {
            Some(eb) => eb.psm(cx.psm.unwrap_or_default()),
            None => cx.psm.unwrap_or_default(),
        };
        let set_psm = |p: &mut PsmParams, k: &str, v: &str| -> Result<bool, String> {
            match k {
                "beacon" => {
                    p.beacon_interval = dur(k, v)?;
                    if p.beacon_interval == Duration::ZERO {
                        return Err(format!("policy `{spec}`: setting `beacon` must be > 0"));
                    }
                }
                "listen" => p.beacon_listen = dur(k, v)?,
                _ => return Ok(false),
            }
            Ok(true)
        };
        let mut count = ByteCount::Ip;
        // `adaptive` is an alias of the registry's `adaptive-psm` (EnergyBox's word).
        if name == ENERGYBOX {
            if let Some((k, _)) = pairs.first() {
                return Err(bad_key(k, &[]));
            }
            let eb = cx.energybox.filter(|eb| eb.has_device()).ok_or_else(|| {
                format!(
                    "policy `{spec}`: EnergyBox's engine needs its device settings (POWER_IN_PSM, POWER_IN_CAM, \
                     POWER_IN_CAMH): give its files with --energybox (Python: energybox=[...])"
                )
            })?;
            let settings = eb.engine_settings();
            settings.check().map_err(|e| format!("policy `{spec}`: {e}"))?;
            return Ok(PolicySpec { label: spec.trim().to_string(), kind: PolicyKind::EnergyBox(settings), count: ByteCount::Frame });
        }
        if name == OBSERVED {
            let mut o = ObservedParams::default();
            for (k, v) in &pairs {
                if !o.set(k, v).map_err(|e| format!("policy `{spec}`: {e}"))? {
                    return Err(bad_key(k, &OBSERVED_KEYS));
                }
            }
            return Ok(PolicySpec { label: spec.trim().to_string(), kind: PolicyKind::Observed(o), count: ByteCount::Ip });
        }
        let registered = match name {
            "adaptive" => Ok(PolicyName::AdaptivePsm),
            "twt" => Ok(PolicyName::Twt),
            REPLAY => Err(None),
            other => other.parse::<PolicyName>().map_err(Some),
        };
        let kind = match registered {
            Ok(p @ (PolicyName::AlwaysOn | PolicyName::Oracle | PolicyName::IdealSleep)) => {
                if let Some((k, _)) = pairs.first() {
                    return Err(bad_key(k, &[]));
                }
                PolicyKind::Accounting(AccountingPolicy::with_defaults(p))
            }
            Ok(PolicyName::Psm) => {
                let mut p = psm_base;
                for (k, v) in &pairs {
                    if !set_psm(&mut p, k, v)? {
                        return Err(bad_key(k, &["beacon", "listen"]));
                    }
                }
                PolicyKind::Accounting(AccountingPolicy::Psm(p))
            }
            Ok(PolicyName::AdaptivePsm) => {
                let mut q = AdaptivePsmParams::with_psm(psm_base);
                if let Some(eb) = cx.energybox.filter(|eb| !eb.is_empty()) {
                    q = eb.adaptive(q);
                    count = ByteCount::Frame;
                }
                let kind = |v: &str| match v {
                    "fixed" => Some(WindowKind::Fixed),
                    "sliding" => Some(WindowKind::Sliding),
                    _ => None,
                };
                for (k, v) in &pairs {
                    match *k {
                        "timeout" => q.timeout = dur(k, v)?,
                        "window" if kind(v).is_some() => q.windows = kind(v).expect("checked"),
                        "windows" => {
                            q.windows = kind(v).ok_or_else(|| {
                                format!("policy `{spec}`: setting `windows`: `{v}` is not `fixed` or `sliding`")
                            })?
                        }
                        "bytes" => {
                            count = match *v {
                                "ip" => ByteCount::Ip,
                                "frame" => ByteCount::Frame,
                                _ => return Err(format!("policy `{spec}`: setting `bytes`: `{v}` is not `ip` or `frame`")),
                            }
                        }
                        "window" => {
                            q.window = dur(k, v)?;
                            if q.window == Duration::ZERO {
                                return Err(format!("policy `{spec}`: setting `window` must be > 0"));
                            }
                        }
                        "threshold" => {
                            q.high_bytes = v.parse().map_err(|_| {
                                format!("policy `{spec}`: setting `threshold`: `{v}` is not a whole number of bytes")
                            })?
                        }
                        _ => {
                            if !set_psm(&mut q.psm, k, v)? {
                                return Err(bad_key(
                                    k,
                                    &["timeout", "window", "windows", "threshold", "bytes", "beacon", "listen"],
                                ));
                            }
                        }
                    }
                }
                PolicyKind::Accounting(AccountingPolicy::AdaptivePsm(q))
            }
            Ok(PolicyName::Twt) => {
                let (mut interval, mut duration, mut offset) = (None, None, Duration::ZERO);
                for (k, v) in &pairs {
                    match *k {
                        "interval" => interval = Some(dur(k, v)?),
                        "duration" => duration = Some(dur(k, v)?),
                        "offset" => offset = dur(k, v)?,
                        "announced" => {
                            return Err(format!(
                                "policy `{spec}`: announced agreements are not costed on a capture (the AP would wait \
                                 for a frame of the station in each service period); the simulator's \
                                 power_save = \"twt:...,announced=true\" models them"
                            ))
                        }
                        _ => return Err(bad_key(k, &["interval", "duration", "offset"])),
                    }
                }
                let (Some(interval), Some(duration)) = (interval, duration) else {
                    return Err(format!(
                        "policy `{spec}`: `twt` needs its agreement's `interval` and `duration` \
                         (e.g. twt:interval=100ms,duration=8ms)"
                    ));
                };
                PolicyKind::Twt(TwtSchedule { interval, duration, offset })
            }
            Err(None) => {
                let mut f = RowFilter::default();
                for (k, v) in &pairs {
                    match *k {
                        "policy" => f.policy = Some(v.to_string()),
                        "node" => f.node = Some(v.to_string()),
                        _ => return Err(bad_key(k, &["policy", "node"])),
                    }
                }
                let path = cx.transitions.ok_or_else(|| {
                    format!("policy `{spec}`: replay needs the recorded transitions (--transitions FILE)")
                })?;
                PolicyKind::Replay(load_transitions(path, &f)?)
            }
            Err(Some(_)) => {
                return Err(format!("unknown policy `{name}`; valid: {}", policy_names()));
            }
        };
        if let PolicyKind::Twt(w) = &kind {
            w.check().map_err(|e| format!("policy `{spec}`: setting {e}"))?;
        }
        if let PolicyKind::Accounting(a) = &kind {
            a.check().map_err(|e| {
                let from_eb = cx.energybox.is_some_and(|eb| !eb.is_empty()) && name.starts_with("adaptive");
                format!("policy `{spec}`: setting {e}{}", if from_eb { " (defaults from the EnergyBox files)" } else { "" })
            })?;
        }
        Ok(PolicySpec { label: spec.trim().to_string(), kind, count })
    }

    /// The policy's name (`always-on`, `oracle`, `psm`, `adaptive-psm`, `replay` or
    /// `energybox`).
    pub fn name(&self) -> &'static str {
        match &self.kind {
            PolicyKind::Accounting(p) => p.as_str(),
            PolicyKind::Twt(_) => PolicyName::Twt.as_str(),
            PolicyKind::Replay(_) => REPLAY,
            PolicyKind::EnergyBox(_) => ENERGYBOX,
            PolicyKind::Observed(_) => OBSERVED,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_with_defaults_and_overrides() {
        let cx = SpecContext::default();
        let p = PolicySpec::parse("psm:beacon=204.8ms,listen=200us", &cx).unwrap();
        assert_eq!(
            p.kind,
            PolicyKind::Accounting(AccountingPolicy::Psm(PsmParams {
                beacon_interval: Duration::from_nanos(204_800_000),
                beacon_listen: Duration::from_micros(200)
            }))
        );
        let PolicyKind::Accounting(AccountingPolicy::AdaptivePsm(q)) =
            PolicySpec::parse("adaptive-psm:timeout=0.1s,threshold=9000", &cx).unwrap().kind
        else {
            panic!()
        };
        assert_eq!((q.timeout, q.window, q.high_bytes), (Duration::from_millis(100), Duration::from_millis(50), 9000));
        assert_eq!(q.windows, WindowKind::Sliding);
        // EnergyBox's definitions, by name; the window keeps its length.
        let p = PolicySpec::parse("adaptive-psm:window=fixed,window=20ms,bytes=frame", &cx).unwrap();
        assert_eq!(p.count, ByteCount::Frame);
        let PolicyKind::Accounting(AccountingPolicy::AdaptivePsm(q)) = p.kind else { panic!() };
        assert_eq!((q.windows, q.window), (WindowKind::Fixed, Duration::from_millis(20)));
        let PolicyKind::Accounting(AccountingPolicy::AdaptivePsm(q)) =
            PolicySpec::parse("adaptive-psm:windows=fixed", &cx).unwrap().kind
        else {
            panic!()
        };
        assert_eq!(q.windows, WindowKind::Fixed);
        assert_eq!(PolicySpec::parse(" oracle ", &cx).unwrap().name(), "oracle");
        let p = PolicySpec::parse("twt:interval=100ms,duration=8192us", &cx).unwrap();
        assert_eq!(p.name(), "twt");
        assert_eq!(
            p.kind,
            PolicyKind::Twt(TwtSchedule {
                interval: Duration::from_millis(100),
                duration: Duration::from_micros(8192),
                offset: Duration::ZERO
            })
        );
        for (bad, want) in [
            ("sleepy", "unknown policy `sleepy`; valid: always-on, oracle, ideal-sleep, psm, adaptive-psm, twt, replay, energybox, observed"),
            ("observed:listen=maybe", "setting `listen`: `maybe` is not `beacons` or `none`"),
            ("observed:stamp=middle", "not `end` or `start`"),
            ("observed:padding=4", "0, 8 or 16"),
            ("observed:beacon=1", "unknown setting `beacon` for `observed`; valid: listen, overhear, stamp, padding"),
            ("psm:beacon", "expected key=value"),
            ("psm:foo=1", "unknown setting `foo` for `psm`; valid: beacon, listen"),
            ("oracle:x=1", "takes no settings"),
            ("adaptive-psm:threshold=lots", "whole number of bytes"),
            ("adaptive-psm:windows=tumbling", "not `fixed` or `sliding`"),
            ("adaptive-psm:bytes=bits", "not `ip` or `frame`"),
            ("adaptive-psm:window=soon", "not a duration"),
            ("psm:beacon=0", "must be > 0"),
            ("psm:beacon=soon", "not a duration"),
            ("replay", "--transitions"),
            // Issue 16: ranges checked at parse time, with the valid range.
            ("psm:beacon=1ns", "1 to 65535 TU (1.024 ms to 67.10784 s)"),
            ("psm:beacon=100s", "out of range"),
            ("psm:listen=200ms", "never doze"),
            ("adaptive-psm:window=1ns", "`window` 1 ns is out of range (1 µs to 10 s)"),
            ("adaptive-psm:window=1h", "not a duration"),
            ("adaptive-psm:timeout=7200s", "`timeout` 7200 s is out of range"),
            ("adaptive-psm:timeout=-1s", "out of range"),
            ("adaptive-psm:timeout=nan", "out of range"),
            ("adaptive-psm:threshold=-1", "whole number of bytes"),
            ("twt", "needs its agreement's `interval` and `duration`"),
            ("twt:interval=100ms", "needs its agreement's"),
            ("twt:interval=100ms,duration=100ms", "`duration` 100 ms must be above 0 and shorter than the interval"),
            ("twt:interval=100ms,duration=8ms,offset=150ms", "`offset` 150 ms must be shorter"),
            ("twt:interval=100s,duration=8ms", "`interval` 100 s is out of range"),
            ("twt:interval=100ms,duration=8ms,announced=true", "announced agreements are not costed"),
            ("twt:interval=100ms,duration=8ms,beacon=1", "unknown setting `beacon` for `twt`; valid: interval, duration, offset"),
            ("twt:interval=soon,duration=8ms", "not a duration"),
        ] {
            let e = PolicySpec::parse(bad, &cx).unwrap_err();
            assert!(e.contains(want), "{bad}: {e}");
        }
    }
}
