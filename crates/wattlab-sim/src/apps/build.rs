//! What a kind's builder gets to turn its `[[flow]]` into a [`Flow`](super::Flow): node
//! lookups, the host stack (listeners, bound sockets), the RNG streams, the paths its packets
//! need, and errors located at its keys.

use super::FlowRecord;
use crate::rng::RngStreams;
use crate::scenario::flow::tcp::{max_window, MAX_WINDOW_SCALE};
use crate::scenario::{FlowConfig, ScenarioError, TcpSettings};
use crate::stack::Stack;
use std::net::Ipv4Addr;
use wattlab_core::tcp::{
    CongestionControlKind, CubicVariant, HyStartMode, InFlight, OooLimit, PrrVariant, RecoveryPoint, RtoMode, RtoRearm, RtoTimer, RttSample, TcpConfig,
    TcpProfile, VegasRetransmit,
};
use wattlab_core::Time;

/// Congestion-control names accepted in scenarios: every `CongestionControlKind::name()`
/// (aliases "westwood+" and "new-reno" are accepted too but not listed).
pub const CC_NAMES: &[&str] = &[
    "tahoe", "reno", "newreno", "sack", "vegas", "westwood", "cubic", "ackloss",
];

/// The scenario name `sack`: ns-2's `Sack1` sender, i.e. Reno's window arithmetic with SACK
/// negotiated, so recovery follows RFC 6675 (see `tcp.sack` to add SACK to any algorithm).
const SACK_NAME: &str = "sack";

/// A path the flow's packets take: (from, to, flow index, key of the far end, both ways).
pub type Path = (u32, u32, usize, &'static str, bool);

/// The builder's view of the simulation being built.
pub struct BuildCx<'a> {
    /// Position of the `[[flow]]`.
    pub index: usize,
    /// The flow's settings.
    pub cfg: &'a FlowConfig,
    /// Node index by name.
    pub nodes: &'a dyn Fn(&str) -> Option<u32>,
    /// Every node's name (for errors).
    pub node_names: &'a [String],
    /// Node addresses, by index.
    pub addrs: &'a [Ipv4Addr],
    /// The host stack: listeners and bound sockets.
    pub stack: &'a mut Stack,
    /// Named random streams.
    pub streams: &'a RngStreams,
    /// Paths the flows need routes for.
    pub paths: &'a mut Vec<Path>,
    /// The access point a station node is associated with (its `[[wireless]]` hop's or
    /// `[[wlan]]`'s), if it is one.
    pub ap_of: &'a dyn Fn(u32) -> Option<u32>,
    /// An error at `flow[i].FIELD`.
    pub err: &'a dyn Fn(usize, &str, String) -> ScenarioError,
    /// The PSNA card of each node with a `psna-read`/`psna-send` flow, shared by its flows.
    pub psna_cards: &'a mut super::psna::Cards,
}

impl BuildCx<'_> {
    /// An error at this flow's key `field`.
    pub fn error(&self, field: &str, msg: impl Into<String>) -> ScenarioError {
        (self.err)(self.index, field, msg.into())
    }

    /// The node called `name`, for key `field`.
    pub fn node(&self, field: &str, name: &str) -> Result<u32, ScenarioError> {
        (self.nodes)(name).ok_or_else(|| self.error(field, format!("unknown node `{name}` (nodes: {})", self.node_names.join(", "))))
    }

    /// The flow's name (`flowN` by default).
    pub fn name(&self) -> String {
        self.cfg.name.clone().unwrap_or_else(|| format!("flow{}", self.index))
    }

    /// The flow's start time (0 by default).
    pub fn start(&self) -> Time {
        self.cfg.start.map(|d| Time(d.0)).unwrap_or(Time::ZERO)
    }

    /// The flow's record from node `a` (its sender) to node `b` (its receiver), starting at
    /// `start`: name, kind and nodes filled in, the rest (`target_bytes`, `finite`) the kind's.
    pub fn record(&self, a: u32, b: u32, start: Time) -> FlowRecord {
        FlowRecord {
            name: self.name(),
            kind: self.cfg.kind(),
            sender: self.node_names[a as usize].clone(),
            receiver: self.node_names[b as usize].clone(),
            start,
            ..Default::default()
        }
    }

    /// Packets go from `a` to `b` (and back if `both`); `field` names `b`'s key in errors.
    pub fn path(&mut self, a: u32, b: u32, field: &'static str, both: bool) {
        self.paths.push((a, b, self.index, field, both));
    }

    /// The flow's TCP settings (defaults where not written), checked.
    pub fn tcp(&self) -> Result<TcpConfig, ScenarioError> {
        let written = self.cfg.settings.tcp().cloned().unwrap_or_default();
        tcp_config(&written).map_err(|(field, m)| self.error(field, m))
    }
}

/// TCP settings of a flow; errors are (field, message) for the caller to locate.
pub fn tcp_config(t: &TcpSettings) -> Result<TcpConfig, (&'static str, String)> {
    let mut c = match &t.profile {
        Some(p) => TcpProfile::from_name(p).map_err(|e| ("tcp.profile", e.to_string()))?.config(),
        None => TcpConfig::default(),
    };
    if let Some(cc) = &t.cc {
        c.congestion_control = match CongestionControlKind::from_name(cc) {
            Ok(kind) => kind,
            Err(_) if cc.eq_ignore_ascii_case(SACK_NAME) => {
                c.sack = true;
                CongestionControlKind::Reno
            }
            Err(_) => {
                return Err(("tcp.cc", format!("unknown congestion control `{cc}` (known: {})", CC_NAMES.join(", "))))
            }
        };
    }
    if let Some(m) = t.mss {
        if m < 88 {
            return Err(("tcp.mss", "must be at least 88 bytes".into()));
        }
        c.mss = m;
    }
    if let Some(b) = t.recv_buffer {
        let ws = t.effective_window_scale();
        if b.bytes() < 1 || b.bytes() > max_window(ws) {
            return Err(("tcp.recv_buffer", format!("must be 1..={} bytes with this window_scale (65535 × 2^window_scale)", max_window(ws))));
        }
        c.recv_buffer = b.bytes() as u32;
    }
    if let Some(s) = t.window_scale {
        if s > MAX_WINDOW_SCALE {
            return Err(("tcp.window_scale", "must be 0..=14 (RFC 7323)".into()));
        }
        c.window_scale = Some(s);
    }
    if let Some(v) = t.timestamps {
        c.timestamps = v;
    }
    if let Some(v) = t.delayed_ack {
        c.delayed_ack = v;
    }
    if let Some(v) = t.delayed_ack_timeout {
        c.delayed_ack_timeout = v.get();
    }
    if let Some(v) = t.ack_every {
        if !(1..=64).contains(&v) {
            return Err(("tcp.ack_every", "must be 1..=64 segments".into()));
        }
        if v > 2 && !c.delayed_ack {
            return Err(("tcp.ack_every", "tcp.ack_every > 2 needs delayed ACK: remove tcp.delayed_ack = false".into()));
        }
        c.ack_every = v;
    }
    if let Some(v) = t.initial_cwnd {
        if v == 0 {
            return Err(("tcp.initial_cwnd", "must be at least 1 segment".into()));
        }
        c.initial_cwnd = v;
    }
    if let Some(v) = t.min_rto {
        c.min_rto = v.get();
    }
    if let Some(v) = t.timer_tick {
        c.timer_tick = Some(v.get());
    }
    if let Some(r) = &t.rto {
        c.rto = RtoMode::from_name(r).map_err(|e| ("tcp.rto", e.to_string()))?;
        if c.rto == RtoMode::Linux && c.timer_tick.is_some() {
            return Err(("tcp.rto", "rto = \"linux\" is Linux's fine-grained estimator: remove tcp.timer_tick (a coarse timer has its own RTO)".into()));
        }
    }
    if let Some(r) = &t.rto_rearm {
        c.rto_rearm = RtoRearm::from_name(r).map_err(|e| ("tcp.rto_rearm", e.to_string()))?;
    }
    if let Some(r) = &t.rto_timer {
        c.rto_timer = RtoTimer::from_name(r).map_err(|e| ("tcp.rto_timer", e.to_string()))?;
        if c.rto_timer == RtoTimer::Linux && c.timer_tick.is_some() {
            return Err(("tcp.rto_timer", "rto_timer = \"linux\" is Linux's jiffies timer wheel: remove tcp.timer_tick (a coarse timer fires on its own ticks)".into()));
        }
    }
    if let Some(r) = &t.rtt_sample {
        c.rtt_sample = RttSample::from_name(r).map_err(|e| ("tcp.rtt_sample", e.to_string()))?;
    }
    if let Some(v) = t.prr {
        c.prr = v;
    }
    if let Some(v) = &t.prr_variant {
        c.prr_variant = PrrVariant::from_name(v).map_err(|e| ("tcp.prr_variant", e.to_string()))?;
        if c.prr_variant != PrrVariant::Rfc6937 && !c.prr {
            return Err(("tcp.prr_variant", format!(
                "prr_variant = \"{}\" is PRR's rules: set tcp.prr = true (or profile = \"linux\")",
                c.prr_variant.name()
            )));
        }
    }
    if let Some(v) = t.quick_ack {
        c.quick_ack = v;
    }
    if let Some(v) = t.ack_pushed {
        c.ack_pushed = v;
    }
    if let Some(v) = t.push_window_end {
        c.push_window_end = v;
    }
    if let Some(v) = t.slow_start_after_idle {
        c.slow_start_after_idle = v;
    }
    if let Some(v) = t.autotune {
        c.autotune = v;
    }
    if let Some(r) = t.scaling_ratio {
        let Ok(r) = u8::try_from(r) else {
            return Err(("tcp.scaling_ratio", format!("{r}/256 is out of range: must be 0..=255/256")));
        };
        if r > 0 && !c.autotune {
            return Err(("tcp.scaling_ratio", format!(
                "scaling_ratio = {r} is autotuning's buffer-to-window ratio: set tcp.autotune = true (or profile = \"linux\"), or remove it"
            )));
        }
        c.scaling_ratio = (r > 0).then_some(r);
    }
    if let Some(v) = t.cubic_idle_shift {
        if v && c.congestion_control != CongestionControlKind::Cubic {
            return Err(("tcp.cubic_idle_shift", format!(
                "cubic_idle_shift = true shifts CUBIC's growth epoch: set tcp.cc = \"cubic\" (it is {})",
                c.congestion_control.name()
            )));
        }
        c.cubic_idle_shift = v;
    }
    if let Some(h) = &t.hystart {
        c.hystart = HyStartMode::from_name(h).map_err(|e| ("tcp.hystart", e.to_string()))?;
        if c.hystart != HyStartMode::Off && c.congestion_control != CongestionControlKind::Cubic {
            return Err(("tcp.hystart", format!(
                "hystart = \"{}\" is CUBIC's slow-start exit: set tcp.cc = \"cubic\" (it is {})",
                c.hystart.name(),
                c.congestion_control.name()
            )));
        }
    }
    if let Some(v) = &t.cubic {
        c.cubic = CubicVariant::from_name(v).map_err(|e| ("tcp.cubic", e.to_string()))?;
        if c.cubic != CubicVariant::Rfc9438 && c.congestion_control != CongestionControlKind::Cubic {
            return Err(("tcp.cubic", format!(
                "cubic = \"{}\" is CUBIC's window arithmetic: set tcp.cc = \"cubic\" (it is {})",
                c.cubic.name(),
                c.congestion_control.name()
            )));
        }
    }
    if let Some(m) = &t.vegas_retransmit {
        c.vegas_retransmit = VegasRetransmit::from_name(m).map_err(|e| ("tcp.vegas_retransmit", e.to_string()))?;
        if c.vegas_retransmit != VegasRetransmit::Rfc && c.congestion_control != CongestionControlKind::Vegas {
            return Err(("tcp.vegas_retransmit", format!(
                "vegas_retransmit = \"{}\" is Vegas's loss recovery: set tcp.cc = \"vegas\" (it is {})",
                c.vegas_retransmit.name(),
                c.congestion_control.name()
            )));
        }
    }
    if let Some(m) = &t.ooo_limit {
        c.ooo_limit = OooLimit::from_name(m).map_err(|e| ("tcp.ooo_limit", e.to_string()))?;
    }
    if c.recv_buffer as u64 > max_window(c.window_scale) {
        // Only a profile's buffer can get here: a written one was checked above.
        return Err(("tcp.window_scale", format!(
            "the profile's recv_buffer of {} B needs a window_scale of at least {}: raise tcp.window_scale or set tcp.recv_buffer too",
            c.recv_buffer,
            (0..=MAX_WINDOW_SCALE).find(|&s| max_window(Some(s)) >= c.recv_buffer as u64).unwrap_or(MAX_WINDOW_SCALE)
        )));
    }
    if let Some(v) = t.sack {
        if !v && t.cc.as_deref().is_some_and(|n| n.eq_ignore_ascii_case(SACK_NAME)) {
            return Err(("tcp.sack", "cc = \"sack\" needs SACK: remove tcp.sack = false".into()));
        }
        c.sack = v;
    }
    if let Some(v) = &t.recovery_point {
        c.recovery_point = RecoveryPoint::from_name(v).map_err(|e| ("tcp.recovery_point", e.to_string()))?;
        if c.recovery_point != RecoveryPoint::Rfc6675 && !c.sack {
            return Err(("tcp.recovery_point", format!(
                "recovery_point = \"{}\" is a rule of SACK recovery: set tcp.sack = true (or profile = \"linux\")",
                c.recovery_point.name()
            )));
        }
    }
    if let Some(v) = &t.in_flight {
        c.in_flight = InFlight::from_name(v).map_err(|e| ("tcp.in_flight", e.to_string()))?;
        if c.in_flight != InFlight::Rfc5681 && !c.sack {
            return Err(("tcp.in_flight", format!(
                "in_flight = \"{}\" subtracts SACKed data: set tcp.sack = true (or profile = \"linux\")",
                c.in_flight.name()
            )));
        }
    }
    // RACK-TLP works on SACK information (RFC 8985 §2, as in Linux): a written `true` without
    // SACK would do nothing, so it is refused.
    for (key, v, set) in [("tcp.rack", t.rack, &mut c.rack as &mut bool), ("tcp.tlp", t.tlp, &mut c.tlp)] {
        if let Some(v) = v {
            if v && !c.sack {
                return Err((key, format!("{key} = true needs SACK: set tcp.sack = true (or profile = \"linux\")")));
            }
            *set = v;
        }
    }
    Ok(c)
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_congestion_control_name_is_accepted_and_listed() {
        for kind in CongestionControlKind::ALL {
            assert!(CC_NAMES.contains(&kind.name()), "{} missing from CC_NAMES", kind.name());
            for name in [kind.name().to_string(), kind.name().to_uppercase()] {
                let t = TcpSettings { cc: Some(name), ..Default::default() };
                assert_eq!(tcp_config(&t).map(|c| c.congestion_control), Ok(kind));
            }
        }
        let t = TcpSettings { cc: Some("Westwood+".into()), ..Default::default() };
        assert_eq!(tcp_config(&t).map(|c| c.congestion_control), Ok(CongestionControlKind::Westwood));
        let t = TcpSettings { cc: Some("bbr9".into()), ..Default::default() };
        let (field, msg) = tcp_config(&t).expect_err("unknown name");
        assert_eq!(field, "tcp.cc");
        assert_eq!(msg, format!("unknown congestion control `bbr9` (known: {})", CC_NAMES.join(", ")));
        assert!(msg.contains("tahoe, reno, newreno, sack, vegas, westwood, cubic"), "{msg}");
    }

    #[test]
    fn sack_is_reno_arithmetic_with_sack_negotiated() {
        let t = TcpSettings { cc: Some("SACK".into()), ..Default::default() };
        let c = tcp_config(&t).unwrap();
        assert_eq!((c.congestion_control, c.sack), (CongestionControlKind::Reno, true));
        let t = TcpSettings { cc: Some("cubic".into()), sack: Some(true), ..Default::default() };
        assert!(tcp_config(&t).unwrap().sack);
        let t = TcpSettings { cc: Some("sack".into()), sack: Some(false), ..Default::default() };
        assert!(tcp_config(&t).is_err());
    }

    #[test]
    fn linux_profile_is_the_start_and_written_keys_override_it() {
        let t = TcpSettings { profile: Some("Linux".into()), ..Default::default() };
        assert_eq!(tcp_config(&t), Ok(TcpProfile::Linux.config()));
        // cc = "reno" on the linux profile keeps SACK, PRR and IW10 (Linux's reno module).
        let t = TcpSettings { profile: Some("linux".into()), cc: Some("reno".into()), initial_cwnd: Some(4), ..Default::default() };
        let c = tcp_config(&t).unwrap();
        assert_eq!((c.congestion_control, c.sack, c.prr, c.initial_cwnd), (CongestionControlKind::Reno, true, true, 4));
        let t = TcpSettings { profile: Some("textbook".into()), ..Default::default() };
        assert_eq!(tcp_config(&t), Ok(TcpConfig::default()));
        let t = TcpSettings { prr: Some(true), quick_ack: Some(true), slow_start_after_idle: Some(true), ..Default::default() };
        let c = tcp_config(&t).unwrap();
        assert!(c.prr && c.quick_ack && c.slow_start_after_idle);
        let t = TcpSettings { profile: Some("linux".into()), slow_start_after_idle: Some(false), ..Default::default() };
        assert!(!tcp_config(&t).unwrap().slow_start_after_idle, "a written key overrides the profile");
        assert!(tcp_config(&TcpSettings { profile: Some("linux".into()), ..Default::default() }).unwrap().cubic_idle_shift);
        let t = TcpSettings { profile: Some("linux".into()), cubic_idle_shift: Some(false), ..Default::default() };
        assert!(!tcp_config(&t).unwrap().cubic_idle_shift);
        let t = TcpSettings { cc: Some("reno".into()), cubic_idle_shift: Some(true), ..Default::default() };
        let (key, msg) = tcp_config(&t).unwrap_err();
        assert_eq!(key, "tcp.cubic_idle_shift");
        assert!(msg.contains("set tcp.cc = \"cubic\" (it is reno)"), "{msg}");
        // The linux profile turns HyStart and autotuning on; written keys turn them off.
        let c = tcp_config(&TcpSettings { profile: Some("linux".into()), ..Default::default() }).unwrap();
        assert_eq!((c.hystart, c.autotune), (HyStartMode::Linux, true));
        let t = TcpSettings { profile: Some("linux".into()), hystart: Some("HyStart++".into()), autotune: Some(false), ..Default::default() };
        let c = tcp_config(&t).unwrap();
        assert_eq!((c.hystart, c.autotune), (HyStartMode::HyStartPlusPlus, false));
        // Linux's reno module has no HyStart: the profile's is dropped silently, a written one
        // is an error.
        let c = tcp_config(&TcpSettings { profile: Some("linux".into()), cc: Some("reno".into()), ..Default::default() }).unwrap();
        assert_eq!(c.congestion_control, CongestionControlKind::Reno);
        // RACK and TLP: on in linux, each can be turned off; on needs SACK.
        let t = TcpSettings { profile: Some("linux".into()), rack: Some(false), ..Default::default() };
        let c = tcp_config(&t).unwrap();
        assert!(!c.rack && c.tlp);
        let t = TcpSettings { sack: Some(true), rack: Some(true), tlp: Some(true), ..Default::default() };
        let c = tcp_config(&t).unwrap();
        assert!(c.rack && c.tlp);
        for (rack, tlp, key) in [(Some(true), None, "tcp.rack"), (None, Some(true), "tcp.tlp")] {
            let t = TcpSettings { rack, tlp, ..Default::default() };
            assert_eq!(tcp_config(&t).map_err(|e| e.0), Err(key));
        }
    }

    #[test]
    fn vegas_retransmit_names_and_its_vegas_requirement_are_checked() {
        let t = TcpSettings { cc: Some("vegas".into()), vegas_retransmit: Some("bsd".into()), ..Default::default() };
        assert_eq!(tcp_config(&t), Err(("tcp.vegas_retransmit", "unknown vegas_retransmit `bsd` (known: rfc, ns2)".into())));
        let t = TcpSettings { cc: Some("tahoe".into()), vegas_retransmit: Some("ns2".into()), ..Default::default() };
        let (field, msg) = tcp_config(&t).unwrap_err();
        assert_eq!(field, "tcp.vegas_retransmit");
        assert!(msg.contains("set tcp.cc = \"vegas\" (it is tahoe)"), "{msg}");
        let t = TcpSettings { cc: Some("vegas".into()), vegas_retransmit: Some("NS2".into()), ..Default::default() };
        assert_eq!(tcp_config(&t).map(|c| c.vegas_retransmit), Ok(VegasRetransmit::Ns2));
        let t = TcpSettings { cc: Some("reno".into()), vegas_retransmit: Some("rfc".into()), ..Default::default() };
        assert_eq!(tcp_config(&t).map(|c| c.vegas_retransmit), Ok(VegasRetransmit::Rfc));
        assert_eq!(tcp_config(&TcpSettings::default()).map(|c| c.vegas_retransmit), Ok(VegasRetransmit::Rfc));
    }

    #[test]
    fn scaling_ratio_needs_autotune_is_range_checked_and_linux_sets_it() {
        let linux = TcpSettings { profile: Some("linux".into()), ..Default::default() };
        assert_eq!(tcp_config(&linux).map(|c| (c.scaling_ratio, c.ack_pushed, c.push_window_end)), Ok((Some(162), true, true)));
        let t = TcpSettings { scaling_ratio: Some(0), ..linux.clone() };
        assert_eq!(tcp_config(&t).map(|c| c.scaling_ratio), Ok(None), "0 keeps 1/2");
        let t = TcpSettings { scaling_ratio: Some(300), ..linux.clone() };
        assert_eq!(tcp_config(&t).unwrap_err().0, "tcp.scaling_ratio");
        let t = TcpSettings { scaling_ratio: Some(160), ..Default::default() };
        let e = tcp_config(&t).unwrap_err();
        assert!(e.0 == "tcp.scaling_ratio" && e.1.contains("set tcp.autotune = true"), "{e:?}");
        let t = TcpSettings { ack_pushed: Some(false), push_window_end: Some(false), ..linux };
        assert_eq!(tcp_config(&t).map(|c| (c.ack_pushed, c.push_window_end)), Ok((false, false)));
        let c = tcp_config(&TcpSettings::default()).unwrap();
        assert_eq!((c.scaling_ratio, c.ack_pushed, c.push_window_end), (None, false, false), "textbook: none of them");
    }

    #[test]
    fn prr_variant_names_are_checked_need_prr_and_the_profiles_set_it() {
        let t = TcpSettings { prr_variant: Some("bsd".into()), prr: Some(true), ..Default::default() };
        assert_eq!(tcp_config(&t), Err(("tcp.prr_variant", "unknown prr_variant `bsd` (known: rfc6937, linux)".into())));
        let t = TcpSettings { prr_variant: Some("linux".into()), ..Default::default() };
        assert_eq!(tcp_config(&t).unwrap_err().0, "tcp.prr_variant", "textbook has no PRR");
        let t = TcpSettings { prr_variant: Some("Linux".into()), prr: Some(true), ..Default::default() };
        assert_eq!(tcp_config(&t).map(|c| c.prr_variant), Ok(PrrVariant::Linux));
        let linux = TcpSettings { profile: Some("linux".into()), ..Default::default() };
        assert_eq!(tcp_config(&linux).map(|c| c.prr_variant), Ok(PrrVariant::Linux));
        let t = TcpSettings { prr_variant: Some("rfc6937".into()), ..linux };
        assert_eq!(tcp_config(&t).map(|c| c.prr_variant), Ok(PrrVariant::Rfc6937), "a written key overrides the profile");
        assert_eq!(tcp_config(&TcpSettings::default()).map(|c| c.prr_variant), Ok(PrrVariant::Rfc6937));
    }

    #[test]
    fn recovery_point_names_are_checked_need_sack_and_the_profiles_set_it() {
        let t = TcpSettings { recovery_point: Some("bsd".into()), sack: Some(true), ..Default::default() };
        assert_eq!(tcp_config(&t), Err(("tcp.recovery_point", "unknown recovery_point `bsd` (known: rfc6675, linux)".into())));
        let t = TcpSettings { recovery_point: Some("linux".into()), ..Default::default() };
        assert_eq!(tcp_config(&t).unwrap_err().0, "tcp.recovery_point", "textbook has no SACK");
        let t = TcpSettings { recovery_point: Some("Linux".into()), sack: Some(true), ..Default::default() };
        assert_eq!(tcp_config(&t).map(|c| c.recovery_point), Ok(RecoveryPoint::Linux));
        let linux = TcpSettings { profile: Some("linux".into()), ..Default::default() };
        assert_eq!(tcp_config(&linux).map(|c| c.recovery_point), Ok(RecoveryPoint::Linux));
        let t = TcpSettings { recovery_point: Some("rfc6675".into()), ..linux };
        assert_eq!(tcp_config(&t).map(|c| c.recovery_point), Ok(RecoveryPoint::Rfc6675), "a written key overrides the profile");
        assert_eq!(tcp_config(&TcpSettings::default()).map(|c| c.recovery_point), Ok(RecoveryPoint::Rfc6675));
    }

    #[test]
    fn rtt_sample_names_are_checked_and_the_profiles_set_it() {
        let t = TcpSettings { rtt_sample: Some("bsd".into()), ..Default::default() };
        assert_eq!(tcp_config(&t), Err(("tcp.rtt_sample", "unknown rtt_sample `bsd` (known: rfc, linux)".into())));
        let t = TcpSettings { rtt_sample: Some("Linux".into()), ..Default::default() };
        assert_eq!(tcp_config(&t).map(|c| c.rtt_sample), Ok(RttSample::Linux), "also without SACK (first_ackt)");
        let linux = TcpSettings { profile: Some("linux".into()), ..Default::default() };
        assert_eq!(tcp_config(&linux).map(|c| c.rtt_sample), Ok(RttSample::Linux));
        let t = TcpSettings { rtt_sample: Some("rfc".into()), ..linux };
        assert_eq!(tcp_config(&t).map(|c| c.rtt_sample), Ok(RttSample::Rfc), "a written key overrides the profile");
        assert_eq!(tcp_config(&TcpSettings::default()).map(|c| c.rtt_sample), Ok(RttSample::Rfc));
    }

    #[test]
    fn rto_timer_names_are_checked_refuse_a_coarse_tick_and_the_profiles_set_it() {
        let t = TcpSettings { rto_timer: Some("jiffies".into()), ..Default::default() };
        assert_eq!(tcp_config(&t), Err(("tcp.rto_timer", "unknown rto_timer `jiffies` (known: exact, linux)".into())));
        let t = TcpSettings { rto_timer: Some("linux".into()), ..Default::default() };
        assert_eq!(tcp_config(&t).map(|c| c.rto_timer), Ok(RtoTimer::Linux));
        let tick = crate::scenario::units::Dur::parse("500ms").unwrap();
        let t = TcpSettings { rto_timer: Some("linux".into()), timer_tick: Some(tick), ..Default::default() };
        let (field, msg) = tcp_config(&t).unwrap_err();
        assert_eq!(field, "tcp.rto_timer");
        assert!(msg.contains("remove tcp.timer_tick"), "{msg}");
        let linux = TcpSettings { profile: Some("linux".into()), ..Default::default() };
        assert_eq!(tcp_config(&linux).map(|c| c.rto_timer), Ok(RtoTimer::Linux));
        let t = TcpSettings { rto_timer: Some("Exact".into()), ..linux };
        assert_eq!(tcp_config(&t).map(|c| c.rto_timer), Ok(RtoTimer::Exact), "a written key overrides the profile");
        assert_eq!(tcp_config(&TcpSettings::default()).map(|c| c.rto_timer), Ok(RtoTimer::Exact));
    }

    #[test]
    fn in_flight_names_are_checked_and_need_sack() {
        let t = TcpSettings { in_flight: Some("pipe".into()), sack: Some(true), ..Default::default() };
        assert_eq!(tcp_config(&t), Err(("tcp.in_flight", "unknown in_flight `pipe` (known: rfc5681, linux)".into())));
        let t = TcpSettings { in_flight: Some("linux".into()), ..Default::default() };
        assert_eq!(tcp_config(&t).unwrap_err().0, "tcp.in_flight", "textbook has no SACK");
        let t = TcpSettings { in_flight: Some("LINUX".into()), sack: Some(true), ..Default::default() };
        assert_eq!(tcp_config(&t).map(|c| c.in_flight), Ok(InFlight::Linux));
        let linux = TcpSettings { profile: Some("linux".into()), ..Default::default() };
        assert_eq!(tcp_config(&linux).map(|c| c.in_flight), Ok(InFlight::Rfc5681), "not in the profile yet");
        let t = TcpSettings { in_flight: Some("linux".into()), ..linux };
        assert_eq!(tcp_config(&t).map(|c| c.in_flight), Ok(InFlight::Linux), "a written key overrides the profile (SACK from it)");
        assert_eq!(tcp_config(&TcpSettings::default()).map(|c| c.in_flight), Ok(InFlight::Rfc5681));
    }

    #[test]
    fn ooo_limit_names_are_checked_and_the_profiles_set_it() {
        let t = TcpSettings { ooo_limit: Some("ranges64".into()), ..Default::default() };
        assert_eq!(tcp_config(&t), Err(("tcp.ooo_limit", "unknown ooo_limit `ranges64` (known: ranges32, rcvbuf)".into())));
        assert_eq!(tcp_config(&TcpSettings::default()).map(|c| c.ooo_limit), Ok(OooLimit::Ranges32));
        let linux = TcpSettings { profile: Some("linux".into()), ..Default::default() };
        assert_eq!(tcp_config(&linux).map(|c| c.ooo_limit), Ok(OooLimit::Rcvbuf));
        let t = TcpSettings { ooo_limit: Some("Ranges32".into()), ..linux };
        assert_eq!(tcp_config(&t).map(|c| c.ooo_limit), Ok(OooLimit::Ranges32), "a written key overrides the profile");
        let t = TcpSettings { ooo_limit: Some("rcvbuf".into()), ..Default::default() };
        assert_eq!(tcp_config(&t).map(|c| c.ooo_limit), Ok(OooLimit::Rcvbuf), "textbook with Linux's bound");
    }

    #[test]
    fn hystart_names_and_its_cubic_requirement_are_checked() {
        let t = TcpSettings { cc: Some("cubic".into()), hystart: Some("fast".into()), ..Default::default() };
        assert_eq!(tcp_config(&t), Err(("tcp.hystart", "unknown hystart `fast` (known: off, linux, hystart++)".into())));
        let t = TcpSettings { hystart: Some("linux".into()), ..Default::default() };
        let (field, msg) = tcp_config(&t).unwrap_err();
        assert_eq!(field, "tcp.hystart");
        assert!(msg.contains("set tcp.cc = \"cubic\" (it is newreno)"), "{msg}");
        let t = TcpSettings { hystart: Some("off".into()), ..Default::default() };
        assert_eq!(tcp_config(&t).map(|c| c.hystart), Ok(HyStartMode::Off));
    }

    #[test]
    fn cubic_variant_names_and_its_cubic_requirement_are_checked() {
        let t = TcpSettings { cc: Some("cubic".into()), cubic: Some("bic".into()), ..Default::default() };
        assert_eq!(tcp_config(&t), Err(("tcp.cubic", "unknown cubic `bic` (known: rfc9438, linux)".into())));
        let t = TcpSettings { cubic: Some("linux".into()), ..Default::default() };
        let (field, msg) = tcp_config(&t).unwrap_err();
        assert_eq!(field, "tcp.cubic");
        assert!(msg.contains("set tcp.cc = \"cubic\" (it is newreno)"), "{msg}");
        // Default RFC 9438; on in the linux profile; a written key overrides it.
        assert_eq!(tcp_config(&TcpSettings::default()).map(|c| c.cubic), Ok(CubicVariant::Rfc9438));
        let linux = TcpSettings { profile: Some("linux".into()), ..Default::default() };
        assert_eq!(tcp_config(&linux).map(|c| c.cubic), Ok(CubicVariant::Linux));
        let t = TcpSettings { cubic: Some("RFC9438".into()), ..linux };
        assert_eq!(tcp_config(&t).map(|c| c.cubic), Ok(CubicVariant::Rfc9438));
    }

    #[test]
    fn rto_names_profiles_and_the_coarse_timer_conflict_are_checked() {
        assert_eq!(tcp_config(&TcpSettings::default()).map(|c| c.rto), Ok(RtoMode::Rfc6298));
        let t = TcpSettings { profile: Some("linux".into()), ..Default::default() };
        assert_eq!(tcp_config(&t).map(|c| c.rto), Ok(RtoMode::Linux));
        let t = TcpSettings { profile: Some("linux".into()), rto: Some("RFC6298".into()), ..Default::default() };
        assert_eq!(tcp_config(&t).map(|c| c.rto), Ok(RtoMode::Rfc6298));
        let t = TcpSettings { rto: Some("linux".into()), ..Default::default() };
        assert_eq!(tcp_config(&t).map(|c| c.rto), Ok(RtoMode::Linux));
        let t = TcpSettings { rto: Some("bsd".into()), ..Default::default() };
        assert_eq!(tcp_config(&t), Err(("tcp.rto", "unknown rto `bsd` (known: rfc6298, linux)".into())));
        let tick = crate::scenario::units::Dur::parse("500ms").unwrap();
        let t = TcpSettings { rto: Some("linux".into()), timer_tick: Some(tick), ..Default::default() };
        let (field, msg) = tcp_config(&t).unwrap_err();
        assert_eq!(field, "tcp.rto");
        assert!(msg.contains("remove tcp.timer_tick"), "{msg}");
    }

    #[test]
    fn rto_rearm_names_and_profiles_are_checked() {
        assert_eq!(tcp_config(&TcpSettings::default()).map(|c| c.rto_rearm), Ok(RtoRearm::Rfc6298));
        let linux = TcpSettings { profile: Some("linux".into()), ..Default::default() };
        assert_eq!(tcp_config(&linux).map(|c| c.rto_rearm), Ok(RtoRearm::Linux));
        let t = TcpSettings { rto_rearm: Some("RFC6298".into()), ..linux };
        assert_eq!(tcp_config(&t).map(|c| c.rto_rearm), Ok(RtoRearm::Rfc6298), "a written key overrides the profile");
        let t = TcpSettings { rto_rearm: Some("linux".into()), ..Default::default() };
        assert_eq!(tcp_config(&t).map(|c| c.rto_rearm), Ok(RtoRearm::Linux), "also without SACK (the head rule)");
        let t = TcpSettings { rto_rearm: Some("bsd".into()), ..Default::default() };
        assert_eq!(tcp_config(&t), Err(("tcp.rto_rearm", "unknown rto_rearm `bsd` (known: rfc6298, linux)".into())));
    }

    #[test]
    fn bad_profile_and_unadvertisable_profile_buffer_are_named_errors() {
        let t = TcpSettings { profile: Some("bsd".into()), ..Default::default() };
        assert_eq!(tcp_config(&t), Err(("tcp.profile", "unknown TCP profile `bsd` (known: textbook, linux)".into())));
        // The linux profile's 16 MiB window needs shift >= 9.
        let t = TcpSettings { profile: Some("linux".into()), window_scale: Some(2), ..Default::default() };
        let (field, msg) = tcp_config(&t).unwrap_err();
        assert_eq!(field, "tcp.window_scale");
        assert!(msg.contains("at least 9"), "{msg}");
        // A written buffer is checked against the profile's shift (10), not against "none".
        let t = TcpSettings { profile: Some("linux".into()), recv_buffer: Some(crate::scenario::units::Size(1 << 20)), ..Default::default() };
        assert_eq!(tcp_config(&t).map(|c| c.recv_buffer), Ok(1 << 20));
    }
}
