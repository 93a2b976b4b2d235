//! The scenario's `tcp.*` keys in one table, [`KEYS`]: each row says what values its key takes,
//! how a written value is checked and set over the profile's [`TcpConfig`], and what a live run
//! (Linux's own TCP) refuses. [`tcp_config`] (the simulator's build and the live plan) and
//! [`live_refusal`] (the live plan) walk it; tests hold `docs/scenario.md` and
//! `tests/python/test_errors.py` to it.
//!
//! Adding a tcp option is one row (plus its `TcpSettings` field, `TcpConfig` field and profile
//! value). A key not written keeps the profile's value; a written one overrides it. Rows run in
//! order, so a row may check what an earlier row set (`needs`). Messages are
//! templates: `{v}` is the value (its canonical name in `needs`, the written text in `live`), `{cc}`
//! the congestion control's name.

use crate::scenario::flow::tcp::{max_window, MAX_WINDOW_SCALE};
use crate::scenario::TcpSettings;
use wattlab_core::tcp::{
    CongestionControlKind, CubicVariant, HyStartMode, InFlight, OooLimit, PrrVariant, RecoveryPoint, RtoMode, RtoRearm, RtoTimer, RttSample, TcpConfig,
    TcpProfile, VegasRetransmit,
};

/// Congestion-control names accepted in scenarios: every `CongestionControlKind::name()`
/// (aliases "westwood+" and "new-reno" are accepted too but not listed).
pub const CC_NAMES: &[&str] = &[
    "tahoe", "reno", "newreno", "sack", "vegas", "westwood", "cubic", "ackloss",
];

/// The scenario name `sack`: ns-2's `Sack1` sender, i.e. Reno's window arithmetic with SACK
/// negotiated, so recovery follows RFC 6675 (see `tcp.sack` to add SACK to any algorithm).
const SACK_NAME: &str = "sack";

/// What values a key takes.
pub enum Values {
    /// `true` or `false`.
    Switch,
    /// One of these names, case-insensitive.
    Names(fn() -> Vec<&'static str>),
    /// A count or size, range-checked by its row.
    Number,
    /// A duration.
    Duration,
    /// Not a key of its own: a check of the keys before it, reported at `key`.
    Check,
}

/// Sets a key's written value, if any, on the config built so far; `Err` is the message.
pub type Apply = fn(&TcpSettings, &mut TcpConfig) -> Result<(), String>;

/// What a live run says of a written value Linux's TCP cannot do (`None`: it can).
pub type Live = fn(&TcpSettings, &TcpConfig) -> Option<String>;

/// One `tcp.*` key of a flow.
pub struct TcpKey {
    /// The key as errors name it (`tcp.prr_variant`).
    pub key: &'static str,
    /// What values it takes.
    pub values: Values,
    /// Checks the written value and sets the config.
    pub apply: Apply,
    /// The config's value of this key, as a scenario writes it (`linux`, `true`, `1460`).
    pub value: fn(&TcpConfig) -> String,
    /// The live testbed's refusal, if it refuses any value.
    pub live: Option<Live>,
}

impl TcpKey {
    /// The key without `tcp.` (`prr_variant`), as in scenarios.
    pub fn name(&self) -> &'static str {
        self.key.trim_start_matches("tcp.")
    }
}

/// `says` with `{cc}` replaced by `c`'s congestion control and then `{v}` by `v`.
fn fill(says: &str, v: &str, c: &TcpConfig) -> String {
    says.replace("{cc}", c.congestion_control.name()).replace("{v}", v)
}

/// `Some(e)`, or `None` when the row gives no `e`.
macro_rules! opt {
    () => { None };
    ($e:expr) => { Some($e) };
}

/// The row of key `f`: when it is written, `apply` runs BODY with `v` (the written value, by
/// reference), `c` (the config so far) and, if named, `t` (all the written settings).
macro_rules! row {
    ($f:ident, $values:expr, $value:expr, |$v:ident, $c:ident $(, $t:ident)?| $body:block, live: $live:expr) => {
        TcpKey {
            key: concat!("tcp.", stringify!($f)),
            values: $values,
            value: $value,
            apply: |written: &TcpSettings, $c: &mut TcpConfig| {
                $( let $t = written; )?
                if let Some($v) = &written.$f $body
                Ok(())
            },
            live: $live,
        }
    };
}

/// A `true`/`false` key setting the config's field of the same name. `needs OK => WHY`: `true`
/// is refused (WHY) unless OK(config); `live off [if COND] => SAYS`: a live run refuses `false`.
macro_rules! switch {
    ($f:ident $(, needs $ok:expr => $why:literal)? $(, live off $(if $cond:expr)? => $says:literal)?) => {
        row!($f, Values::Switch, |c| c.$f.to_string(), |v, c| {
            $(
                let ok: fn(&TcpConfig) -> bool = $ok;
                if *v && !ok(c) {
                    return Err(fill($why, "true", c));
                }
            )?
            c.$f = *v;
        }, live: opt!($(|t: &TcpSettings, _c: &TcpConfig| {
            let off = t.$f == Some(false) $( && { let cond: fn(&TcpConfig) -> bool = $cond; cond(_c) } )?;
            off.then(|| $says.to_string())
        })?))
    };
}

/// A key naming a value of `Enum` (a `named_option!`), setting the config's field of the same
/// name. `needs OK => WHY`: a value other than the default is refused (WHY) unless OK(config);
/// `live unless V => SAYS`: a live run refuses any written value that is not V (Linux's).
macro_rules! named {
    ($f:ident: $Enum:ident $(, needs $ok:expr => $why:literal)? $(, live unless $linux:ident => $says:literal)?) => {
        row!($f, Values::Names(|| $Enum::ALL.iter().map(|v| v.name()).collect()), |c| c.$f.name().to_string(), |v, c| {
            c.$f = $Enum::from_name(v).map_err(|e| e.to_string())?;
            $(
                let ok: fn(&TcpConfig) -> bool = $ok;
                if c.$f != $Enum::default() && !ok(c) {
                    return Err(fill($why, c.$f.name(), c));
                }
            )?
        }, live: opt!($(|t: &TcpSettings, c: &TcpConfig| {
            t.$f.as_deref().filter(|_| c.$f != $Enum::$linux).map(|v| fill($says, v, c))
        })?))
    };
}

/// A duration key setting the config's field of the same name (`Some` for an optional one);
/// `live any => SAYS`: a live run refuses it written at all.
macro_rules! duration {
    ($f:ident $(=> $wrap:ident)? $(, live any => $says:literal)?) => {
        row!($f, Values::Duration, |c| format!("{:?}", c.$f), |v, c| {
            c.$f = $($wrap)?(v.get());
        }, live: opt!($(|t: &TcpSettings, _c: &TcpConfig| t.$f.is_some().then(|| $says.to_string()))?))
    };
}

/// A number key of type `T`: refused (WHY, `{v}` the value) outside `RANGE`, else `SET(config, v)`
/// (without `set`: the config's field of the same name is set, `Some` for an optional one).
macro_rules! number {
    ($f:ident: $T:ident in $range:expr, $why:literal, set $set:expr) => {
        row!($f, Values::Number, |c| format!("{:?}", c.$f), |v, c| {
            if !($range).contains(v) {
                return Err(fill($why, &v.to_string(), c));
            }
            let set: fn(&mut TcpConfig, $T) -> Result<(), String> = $set;
            set(c, *v)?;
        }, live: None)
    };
    ($f:ident: $T:ident in $range:expr, $why:literal $(=> $wrap:ident)?) => {
        number!($f: $T in $range, $why, set |c, v| {
            c.$f = $($wrap)?(v);
            Ok(())
        })
    };
}

/// Every `tcp.*` key, in the order they are applied over the profile's config.
pub const KEYS: &[TcpKey] = &[
    row!(profile, Values::Names(|| TcpProfile::ALL.iter().map(|p| p.name()).collect()),
        |c| TcpProfile::ALL.into_iter().find(|p| p.config() == *c).map_or("", |p| p.name()).to_string(),
        |p, c| {
            *c = TcpProfile::from_name(p).map_err(|e| e.to_string())?.config();
        }, live: None),
    row!(cc, Values::Names(|| CC_NAMES.to_vec()), |c| c.congestion_control.name().to_string(), |cc, c| {
        c.congestion_control = match CongestionControlKind::from_name(cc) {
            Ok(kind) => kind,
            Err(_) if cc.eq_ignore_ascii_case(SACK_NAME) => {
                c.sack = true;
                CongestionControlKind::Reno
            }
            Err(_) => return Err(format!("unknown congestion control `{cc}` (known: {})", CC_NAMES.join(", "))),
        };
    }, live: None),
    number!(mss: u16 in 88.., "must be at least 88 bytes"),
    row!(recv_buffer, Values::Number, |c| c.recv_buffer.to_string(), |b, c, t| {
        let ws = t.effective_window_scale();
        if b.bytes() < 1 || b.bytes() > max_window(ws) {
            return Err(format!("must be 1..={} bytes with this window_scale (65535 × 2^window_scale)", max_window(ws)));
        }
        c.recv_buffer = b.bytes() as u32;
    }, live: None),
    number!(window_scale: u8 in 0..=MAX_WINDOW_SCALE, "must be 0..=14 (RFC 7323)" => Some),
    switch!(timestamps),
    switch!(delayed_ack),
    duration!(delayed_ack_timeout),
    number!(ack_every: u32 in 1..=64, "must be 1..=64 segments", set |c, v| {
        if v > 2 && !c.delayed_ack {
            return Err("tcp.ack_every > 2 needs delayed ACK: remove tcp.delayed_ack = false".into());
        }
        c.ack_every = v;
        Ok(())
    }),
    number!(initial_cwnd: u32 in 1.., "must be at least 1 segment"),
    duration!(min_rto),
    duration!(timer_tick => Some,
        live any => "a live run uses Linux's TCP, whose retransmission timer is fine-grained; remove the coarse timer"),
    // Switches a live run refuses `false` of, in the order it checks them.
    switch!(quick_ack,
        live off => "a live run uses Linux's TCP, whose receiver always starts in quick-ACK mode; remove quick_ack = false"),
    switch!(ack_pushed,
        live off => "a live run uses Linux's TCP, which ACKs pushed data when the application's read empties the queue (__tcp_cleanup_rbuf); that cannot be turned off; remove ack_pushed = false"),
    switch!(push_window_end,
        live off => "a live run uses Linux's TCP, which marks PSH on the segment that fills its window (the testbed's server, measured); that cannot be turned off; remove push_window_end = false"),
    switch!(prr,
        live off => "a live run uses Linux's TCP, which always reduces its window by PRR (RFC 6937) in recovery; remove prr = false"),
    named!(rto: RtoMode,
        needs |c| c.timer_tick.is_none() => "rto = \"{v}\" is Linux's fine-grained estimator: remove tcp.timer_tick (a coarse timer has its own RTO)",
        live unless Linux => "a live run uses Linux's TCP, whose retransmission timeout is its own estimator (`linux`: SRTT + rttvar, rttvar ≥ rto_min); `{v}` is not available there"),
    named!(rto_rearm: RtoRearm,
        live unless Linux => "a live run uses Linux's TCP, which also restarts its retransmission timer when it resends snd_una's segment and on SACKs of older data (`linux`); `{v}` is not available there"),
    named!(rto_timer: RtoTimer,
        needs |c| c.timer_tick.is_none() => "rto_timer = \"{v}\" is Linux's jiffies timer wheel: remove tcp.timer_tick (a coarse timer fires on its own ticks)",
        live unless Linux => "a live run uses Linux's TCP, whose retransmission timer fires on the kernel's jiffies timer wheel (`linux`); `{v}` is not available there"),
    named!(rtt_sample: RttSample,
        live unless Linux => "a live run uses Linux's TCP, which times every ACK by the send times of the segments it acknowledges or SACKs (`linux`); `{v}` is not available there"),
    named!(prr_variant: PrrVariant,
        needs |c| c.prr => "prr_variant = \"{v}\" is PRR's rules: set tcp.prr = true (or profile = \"linux\")",
        live unless Linux => "a live run uses Linux's TCP, whose PRR follows `tcp_cwnd_reduction` (`linux`); `{v}` is not available there"),
    switch!(slow_start_after_idle),
    switch!(autotune),
    number!(scaling_ratio: u32 in 0..=255, "{v}/256 is out of range: must be 0..=255/256", set |c, v| {
        if v > 0 && !c.autotune {
            return Err(format!(
                "scaling_ratio = {v} is autotuning's buffer-to-window ratio: set tcp.autotune = true (or profile = \"linux\"), or remove it"
            ));
        }
        c.scaling_ratio = u8::try_from(v).ok().filter(|&r| r > 0);
        Ok(())
    }),
    switch!(cubic_idle_shift,
        needs |c| c.congestion_control == CongestionControlKind::Cubic => "cubic_idle_shift = true shifts CUBIC's growth epoch: set tcp.cc = \"cubic\" (it is {cc})",
        live off if |c| c.congestion_control == CongestionControlKind::Cubic => "a live run uses Linux's CUBIC, which always shifts its growth epoch after idle (CA_EVENT_TX_START); remove cubic_idle_shift = false"),
    named!(hystart: HyStartMode,
        needs |c| c.congestion_control == CongestionControlKind::Cubic => "hystart = \"{v}\" is CUBIC's slow-start exit: set tcp.cc = \"cubic\" (it is {cc})",
        live unless Linux => "a live run uses Linux's CUBIC, whose slow-start exit is its HyStart (`linux`); `{v}` is not available there (Linux has no HyStart++, and HyStart is switched off only host-wide, by the tcp_cubic module's `hystart` parameter)"),
    named!(cubic: CubicVariant,
        needs |c| c.congestion_control == CongestionControlKind::Cubic => "cubic = \"{v}\" is CUBIC's window arithmetic: set tcp.cc = \"cubic\" (it is {cc})",
        live unless Linux => "a live run uses Linux's CUBIC, whose window arithmetic is `linux` (tcp_cubic.c); `{v}` is not available there"),
    named!(vegas_retransmit: VegasRetransmit,
        needs |c| c.congestion_control == CongestionControlKind::Vegas => "vegas_retransmit = \"{v}\" is Vegas's loss recovery: set tcp.cc = \"vegas\" (it is {cc})",
        live unless Rfc => "a live run uses Linux's Vegas, which keeps Linux's loss recovery (no Vegas fine-grained retransmission); `{v}` is not available there"),
    named!(ooo_limit: OooLimit,
        live unless Rcvbuf => "a live run uses Linux's TCP, whose out-of-order queue is bounded by the receive buffer's memory and whose scoreboard by nothing (`rcvbuf`); `{v}` is not available there"),
    TcpKey {
        // Only a profile's buffer can fail here: a written one was checked by its row.
        key: "tcp.window_scale",
        values: Values::Check,
        value: |_| String::new(),
        apply: |_, c| {
            if c.recv_buffer as u64 > max_window(c.window_scale) {
                return Err(format!(
                    "the profile's recv_buffer of {} B needs a window_scale of at least {}: raise tcp.window_scale or set tcp.recv_buffer too",
                    c.recv_buffer,
                    (0..=MAX_WINDOW_SCALE).find(|&s| max_window(Some(s)) >= c.recv_buffer as u64).unwrap_or(MAX_WINDOW_SCALE)
                ));
            }
            Ok(())
        },
        live: None,
    },
    row!(sack, Values::Switch, |c| c.sack.to_string(), |v, c, t| {
        if !v && t.cc.as_deref().is_some_and(|n| n.eq_ignore_ascii_case(SACK_NAME)) {
            return Err("cc = \"sack\" needs SACK: remove tcp.sack = false".into());
        }
        c.sack = *v;
    }, live: None),
    named!(recovery_point: RecoveryPoint,
        needs |c| c.sack => "recovery_point = \"{v}\" is a rule of SACK recovery: set tcp.sack = true (or profile = \"linux\")",
        live unless Linux => "a live run uses Linux's TCP, which is back in Open once snd_una reaches the recovery point (`linux`); `{v}` is not available there"),
    named!(in_flight: InFlight,
        needs |c| c.sack => "in_flight = \"{v}\" subtracts SACKed data: set tcp.sack = true (or profile = \"linux\")",
        live unless Linux => "a live run uses Linux's TCP, which leaves SACKed segments out of its flight in every state (`linux`, tcp_packets_in_flight); `{v}` is not available there"),
    // RACK-TLP works on SACK information (RFC 8985 §2, as in Linux): a written `true` without
    // SACK would do nothing, so it is refused.
    switch!(rack,
        needs |c| c.sack => "tcp.rack = true needs SACK: set tcp.sack = true (or profile = \"linux\")",
        live off => "a live run uses Linux's TCP, which marks losses with RACK (net.ipv4.tcp_recovery = 1), and the testbed does not change that sysctl; remove rack = false"),
    switch!(tlp,
        needs |c| c.sack => "tcp.tlp = true needs SACK: set tcp.sack = true (or profile = \"linux\")",
        live off => "a live run uses Linux's TCP, which sends tail loss probes (net.ipv4.tcp_early_retrans = 3), and the testbed does not change that sysctl; remove tlp = false"),
    // Linux compresses only SACKs (`__tcp_ack_snd_check`: `!tcp_is_sack(tp)` sends at once).
    switch!(sack_compress,
        needs |c| c.sack => "tcp.sack_compress = true needs SACK: set tcp.sack = true (or profile = \"linux\")",
        live off => "a live run uses Linux's TCP, which compresses SACKs (net.ipv4.tcp_comp_sack_nr = 44), and the testbed does not change that sysctl; remove sack_compress = false"),
];

/// TCP settings of a flow: the profile's config with every written key applied in [`KEYS`]'
/// order; errors are (field, message) for the caller to locate.
pub fn tcp_config(t: &TcpSettings) -> Result<TcpConfig, (&'static str, String)> {
    let mut c = TcpConfig::default();
    for k in KEYS {
        (k.apply)(t, &mut c).map_err(|m| (k.key, m))?;
    }
    Ok(c)
}

/// The first written key (in [`KEYS`]' order) a live run refuses, as `tcp.KEY: reason`, given
/// the settings and the config [`tcp_config`] made of them.
pub fn live_refusal(t: &TcpSettings, c: &TcpConfig) -> Option<String> {
    KEYS.iter().find_map(|k| k.live.and_then(|refuses| refuses(t, c)).map(|says| format!("{}: {says}", k.key)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wattlab_core::tcp::HyStartMode;

    /// The settings a `tcp = { ... }` table with `keys` (TOML, comma-separated) gives.
    fn written(keys: &str) -> TcpSettings {
        #[derive(serde::Deserialize)]
        struct Flow {
            tcp: TcpSettings,
        }
        toml::from_str::<Flow>(&format!("tcp = {{ {keys} }}")).unwrap_or_else(|e| panic!("{keys}: {e}")).tcp
    }

    /// Each named key (but `profile` and `cc`, tested below) defaults to its first name, and
    /// each of its names, written in any case, overrides either profile (with what it needs).
    #[test]
    fn every_named_key_defaults_to_its_first_name_and_each_written_name_overrides_the_profile() {
        let mut checked = 0;
        for k in KEYS.iter().filter(|k| !matches!(k.key, "tcp.profile" | "tcp.cc")) {
            let Values::Names(names) = k.values else { continue };
            assert_eq!((k.value)(&TcpConfig::default()), names()[0], "{}", k.key);
            for (profile, n) in ["textbook", "linux"].into_iter().flat_map(|p| names().into_iter().map(move |n| (p, n))) {
                let settings = ["", ", cc = \"cubic\"", ", cc = \"vegas\""]
                    .map(|cc| written(&format!("profile = \"{profile}\", sack = true, prr = true, {} = \"{}\"{cc}", k.name(), n.to_uppercase())));
                let built = settings.iter().find_map(|t| tcp_config(t).ok());
                assert_eq!(built.map(|c| (k.value)(&c)), Some(n.to_string()), "{} = {n} on {profile}", k.key);
                checked += 1;
            }
        }
        assert!(checked >= 34, "{checked}: 17 names of 8 keys on 2 profiles");
    }

    #[test]
    fn every_named_key_lists_its_names_when_refusing_an_unknown_one() {
        for k in KEYS {
            if let Values::Names(names) = k.values {
                let e = tcp_config(&written(&format!("{} = \"bsd9\"", k.name()))).unwrap_err();
                assert_eq!(e.0, k.key);
                assert!(e.1.ends_with(&format!("`bsd9` (known: {})", names().join(", "))), "{e:?}");
            }
        }
    }

    /// A live run refuses what Linux's TCP does not do: each named key's every value but the
    /// linux profile's, each refusing switch's `false` (the linux profile's being `true`).
    #[test]
    fn a_live_run_accepts_exactly_the_linux_profiles_value_of_each_refusing_key() {
        let linux = TcpProfile::Linux.config();
        let mut refusing = 0;
        for k in KEYS.iter().filter(|k| k.live.is_some()) {
            let values: Vec<&str> = match k.values {
                Values::Names(names) => names(),
                Values::Switch => vec!["true", "false"],
                Values::Duration => vec!["\"500ms\""],
                _ => panic!("{}: a live refusal of a number", k.key),
            };
            for v in values {
                let v = if matches!(k.values, Values::Names(_)) { format!("\"{v}\"") } else { v.to_string() };
                // On the linux profile (with the algorithm the key belongs to) the value builds.
                let t = ["", ", cc = \"vegas\"", ", rto = \"rfc6298\""].iter().map(|cc| written(&format!("profile = \"linux\", {} = {v}{cc}", k.name()))).find(|t| tcp_config(t).is_ok());
                let Some(t) = t else { continue };
                let c = tcp_config(&t).unwrap();
                let refused = live_refusal(&t, &c);
                let linuxs = !matches!(k.values, Values::Duration) && v.trim_matches('"') == (k.value)(&linux);
                assert_eq!(refused.is_some(), !linuxs, "{} = {v}: {refused:?}", k.key);
                if let Some(m) = refused {
                    assert!(m.starts_with(&format!("{}: a live run uses Linux's ", k.key)), "{m}");
                    refusing += 1;
                }
            }
        }
        assert!(refusing >= 16, "{refusing}");
        assert_eq!(live_refusal(&written(""), &TcpConfig::default()), None, "nothing written, nothing refused");
    }

    /// The docs' `tcp` key table (`docs/scenario.md`): a row of each key, naming its values, its
    /// default and the linux profile's, and a live run's refusal.
    #[test]
    fn scenario_md_has_a_row_of_each_key_that_agrees_with_the_table() {
        let md = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/scenario.md")).unwrap();
        let rows: Vec<(Vec<&str>, &str)> = md
            .lines()
            .skip_while(|l| !l.starts_with("| `tcp` key |"))
            .skip(2)
            .take_while(|l| l.starts_with('|'))
            .map(|l| {
                let cells: Vec<&str> = l.split(" | ").collect();
                (cells[0].trim_start_matches("| ").split(", ").map(|n| n.trim_matches('`')).collect(), l)
            })
            .collect();
        let (textbook, linux) = (TcpConfig::default(), TcpProfile::Linux.config());
        for k in KEYS.iter().filter(|k| !matches!(k.values, Values::Check)) {
            let Some((_, line)) = rows.iter().find(|(names, _)| names.contains(&k.name())) else { panic!("docs/scenario.md: no row of tcp.{}", k.name()) };
            let default = line.split(" | ").nth(1).unwrap();
            if let Values::Names(names) = k.values {
                for n in names() {
                    assert!(line.contains(&format!("`{n}`")), "docs/scenario.md, tcp.{}: `{n}` missing: {line}", k.name());
                }
            }
            if matches!(k.values, Values::Names(_) | Values::Switch) && k.key != "tcp.profile" {
                let (tb, lx) = ((k.value)(&textbook), (k.value)(&linux));
                assert!(default.contains(&tb), "docs/scenario.md, tcp.{}: default {tb} not in `{default}`", k.name());
                if tb != lx {
                    assert!(default.contains(&format!("`{lx}` in `linux`")), "docs/scenario.md, tcp.{}: `{lx}` in `linux` not in `{default}`", k.name());
                }
            }
            let says_live = line.contains("a live run refuses") || line.contains("Not available in live runs");
            assert_eq!(says_live, k.live.is_some(), "docs/scenario.md, tcp.{}: live refusal {}", k.name(), if says_live { "documented, not in KEYS" } else { "not documented" });
        }
    }

    /// `tests/python/test_errors.py` has a row (file, line, field) of each key that refuses
    /// more than a range: every named key, every switch that refuses `true` or `false` alone.
    #[test]
    fn test_errors_py_has_a_row_of_each_refusing_key() {
        let py = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/python/test_errors.py")).unwrap();
        let params: String = py.split("def test_a_bad_tcp_setting_names_field_and_line").next().unwrap().rsplit("@pytest.mark.parametrize").next().unwrap().into();
        for k in KEYS.iter().filter(|k| !matches!(k.values, Values::Check)) {
            let refuses = match k.values {
                Values::Names(_) => true,
                Values::Switch => ["true", "false"].iter().any(|v| tcp_config(&written(&format!("{} = {v}", k.name()))).is_err()),
                _ => false,
            };
            if refuses {
                assert!(params.contains(&format!(", \"{}\", ", k.name())), "tests/python/test_errors.py: no row of tcp.{}", k.name());
            }
        }
    }

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
        let t = TcpSettings { ack_pushed: Some(false), push_window_end: Some(false), ..linux.clone() };
        assert_eq!(tcp_config(&t).map(|c| (c.ack_pushed, c.push_window_end)), Ok((false, false)));
        assert_eq!(tcp_config(&linux).map(|c| c.sack_compress), Ok(true), "linux compresses SACKs");
        let t = TcpSettings { sack_compress: Some(false), ..linux.clone() };
        assert_eq!(tcp_config(&t).map(|c| c.sack_compress), Ok(false));
        let t = TcpSettings { sack_compress: Some(true), ..Default::default() };
        let e = tcp_config(&t).unwrap_err();
        assert!(e.0 == "tcp.sack_compress" && e.1.contains("needs SACK"), "{e:?}");
        let t = TcpSettings { sack_compress: Some(true), sack: Some(true), ..Default::default() };
        assert_eq!(tcp_config(&t).map(|c| c.sack_compress), Ok(true));
        let c = tcp_config(&TcpSettings::default()).unwrap();
        assert_eq!((c.scaling_ratio, c.ack_pushed, c.push_window_end, c.sack_compress), (None, false, false, false), "textbook: none of them");
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
    fn in_flight_names_are_checked_need_sack_and_linux_sets_it() {
        let t = TcpSettings { in_flight: Some("pipe".into()), sack: Some(true), ..Default::default() };
        assert_eq!(tcp_config(&t), Err(("tcp.in_flight", "unknown in_flight `pipe` (known: rfc5681, linux)".into())));
        let t = TcpSettings { in_flight: Some("linux".into()), ..Default::default() };
        assert_eq!(tcp_config(&t).unwrap_err().0, "tcp.in_flight", "textbook has no SACK");
        let t = TcpSettings { in_flight: Some("LINUX".into()), sack: Some(true), ..Default::default() };
        assert_eq!(tcp_config(&t).map(|c| c.in_flight), Ok(InFlight::Linux));
        let linux = TcpSettings { profile: Some("linux".into()), ..Default::default() };
        assert_eq!(tcp_config(&linux).map(|c| c.in_flight), Ok(InFlight::Linux), "tcp_packets_in_flight");
        let t = TcpSettings { in_flight: Some("rfc5681".into()), ..linux };
        assert_eq!(tcp_config(&t).map(|c| c.in_flight), Ok(InFlight::Rfc5681), "a written key overrides the profile");
        assert_eq!(tcp_config(&TcpSettings::default()).map(|c| c.in_flight), Ok(InFlight::Rfc5681));
    }
}
