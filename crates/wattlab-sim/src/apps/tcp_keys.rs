//! The scenario's `tcp.*` keys in one table, [`KEYS`]: each row says what values its key takes,
//! how a written value is checked and set over the profile's [`TcpConfig`], and what a live run
//! (Linux's own TCP) refuses. [`tcp_config`] (the simulator's build and the live plan) and
//! [`live_refusal`] (the live plan) walk it; tests hold `docs/scenario.md` and
//! `tests/python/test_errors.py` to it.
//!
//! Adding a tcp option is one row (plus its `TcpSettings` field, `TcpConfig` field and profile
//! value). Rows run in order, so a row may check what an earlier row set (`needs`). Messages are
//! templates: `{v}` is the value (its canonical name in `needs`, the written text in `live`), `{cc}`
//! the congestion control's name.

use crate::scenario::flow::tcp::{max_window, MAX_WINDOW_SCALE};
use crate::scenario::TcpSettings;
use wattlab_core::tcp::{
    CongestionControlKind, CubicVariant, HyStartMode, OooLimit, PrrVariant, RecoveryPoint, RtoMode, RtoRearm, TcpConfig, TcpProfile, VegasRetransmit,
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

/// A `true`/`false` key setting the config's field of the same name. `needs OK => WHY`: `true`
/// is refused (WHY) unless OK(config); `live off [if COND] => SAYS`: a live run refuses `false`.
macro_rules! switch {
    ($f:ident $(, needs $ok:expr => $why:literal)? $(, live off $(if $cond:expr)? => $says:literal)?) => {
        TcpKey {
            key: concat!("tcp.", stringify!($f)),
            values: Values::Switch,
            value: |c| c.$f.to_string(),
            apply: |t: &TcpSettings, c: &mut TcpConfig| {
                if let Some(v) = t.$f {
                    $(
                        let ok: fn(&TcpConfig) -> bool = $ok;
                        if v && !ok(c) {
                            return Err(fill($why, "true", c));
                        }
                    )?
                    c.$f = v;
                }
                Ok(())
            },
            live: opt!($(|t: &TcpSettings, _c: &TcpConfig| {
                let off = t.$f == Some(false) $( && { let cond: fn(&TcpConfig) -> bool = $cond; cond(_c) } )?;
                off.then(|| $says.to_string())
            })?),
        }
    };
}

/// A key naming a value of `Enum` (a `named_option!`), setting the config's field of the same
/// name. `needs OK => WHY`: a value other than the default is refused (WHY) unless OK(config);
/// `live unless V => SAYS`: a live run refuses any written value that is not V (Linux's).
macro_rules! named {
    ($f:ident: $Enum:ident $(, needs $ok:expr => $why:literal)? $(, live unless $linux:ident => $says:literal)?) => {
        TcpKey {
            key: concat!("tcp.", stringify!($f)),
            values: Values::Names(|| $Enum::ALL.iter().map(|v| v.name()).collect()),
            value: |c| c.$f.name().to_string(),
            apply: |t: &TcpSettings, c: &mut TcpConfig| {
                if let Some(v) = &t.$f {
                    c.$f = $Enum::from_name(v).map_err(|e| e.to_string())?;
                    $(
                        let ok: fn(&TcpConfig) -> bool = $ok;
                        if c.$f != $Enum::default() && !ok(c) {
                            return Err(fill($why, c.$f.name(), c));
                        }
                    )?
                }
                Ok(())
            },
            live: opt!($(|t: &TcpSettings, c: &TcpConfig| {
                t.$f.as_deref().filter(|_| c.$f != $Enum::$linux).map(|v| fill($says, v, c))
            })?),
        }
    };
}

/// A duration key setting the config's field of the same name (`Some` for an optional one);
/// `live any => SAYS`: a live run refuses it written at all.
macro_rules! duration {
    ($f:ident $(=> $wrap:ident)? $(, live any => $says:literal)?) => {
        TcpKey {
            key: concat!("tcp.", stringify!($f)),
            values: Values::Duration,
            value: |c| format!("{:?}", c.$f),
            apply: |t: &TcpSettings, c: &mut TcpConfig| {
                if let Some(v) = t.$f {
                    c.$f = $($wrap)?(v.get());
                }
                Ok(())
            },
            live: opt!($(|t: &TcpSettings, _c: &TcpConfig| t.$f.is_some().then(|| $says.to_string()))?),
        }
    };
}

/// A number key of type `T`: refused (WHY, `{v}` the value) outside `RANGE`, else `SET(config, v)`.
macro_rules! number {
    ($f:ident: $T:ident in $range:expr, $why:literal, set $set:expr) => {
        TcpKey {
            key: concat!("tcp.", stringify!($f)),
            values: Values::Number,
            value: |c| format!("{:?}", c.$f),
            apply: |t: &TcpSettings, c: &mut TcpConfig| {
                if let Some(v) = t.$f {
                    if !($range).contains(&v) {
                        return Err(fill($why, &v.to_string(), c));
                    }
                    let set: fn(&mut TcpConfig, $T) -> Result<(), String> = $set;
                    set(c, v)?;
                }
                Ok(())
            },
            live: None,
        }
    };
}

/// Every `tcp.*` key, in the order they are applied over the profile's config.
pub const KEYS: &[TcpKey] = &[
    TcpKey {
        key: "tcp.profile",
        values: Values::Names(|| TcpProfile::ALL.iter().map(|p| p.name()).collect()),
        value: |c| TcpProfile::ALL.into_iter().find(|p| p.config() == *c).map_or("", |p| p.name()).to_string(),
        apply: |t, c| {
            if let Some(p) = &t.profile {
                *c = TcpProfile::from_name(p).map_err(|e| e.to_string())?.config();
            }
            Ok(())
        },
        live: None,
    },
    TcpKey {
        key: "tcp.cc",
        values: Values::Names(|| CC_NAMES.to_vec()),
        value: |c| c.congestion_control.name().to_string(),
        apply: |t, c| {
            if let Some(cc) = &t.cc {
                c.congestion_control = match CongestionControlKind::from_name(cc) {
                    Ok(kind) => kind,
                    Err(_) if cc.eq_ignore_ascii_case(SACK_NAME) => {
                        c.sack = true;
                        CongestionControlKind::Reno
                    }
                    Err(_) => return Err(format!("unknown congestion control `{cc}` (known: {})", CC_NAMES.join(", "))),
                };
            }
            Ok(())
        },
        live: None,
    },
    number!(mss: u16 in 88.., "must be at least 88 bytes", set |c, v| {
        c.mss = v;
        Ok(())
    }),
    TcpKey {
        key: "tcp.recv_buffer",
        values: Values::Number,
        value: |c| c.recv_buffer.to_string(),
        apply: |t, c| {
            if let Some(b) = t.recv_buffer {
                let ws = t.effective_window_scale();
                if b.bytes() < 1 || b.bytes() > max_window(ws) {
                    return Err(format!("must be 1..={} bytes with this window_scale (65535 × 2^window_scale)", max_window(ws)));
                }
                c.recv_buffer = b.bytes() as u32;
            }
            Ok(())
        },
        live: None,
    },
    number!(window_scale: u8 in 0..=MAX_WINDOW_SCALE, "must be 0..=14 (RFC 7323)", set |c, v| {
        c.window_scale = Some(v);
        Ok(())
    }),
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
    number!(initial_cwnd: u32 in 1.., "must be at least 1 segment", set |c, v| {
        c.initial_cwnd = v;
        Ok(())
    }),
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
    TcpKey {
        key: "tcp.sack",
        values: Values::Switch,
        value: |c| c.sack.to_string(),
        apply: |t, c| {
            if let Some(v) = t.sack {
                if !v && t.cc.as_deref().is_some_and(|n| n.eq_ignore_ascii_case(SACK_NAME)) {
                    return Err("cc = \"sack\" needs SACK: remove tcp.sack = false".into());
                }
                c.sack = v;
            }
            Ok(())
        },
        live: None,
    },
    named!(recovery_point: RecoveryPoint,
        needs |c| c.sack => "recovery_point = \"{v}\" is a rule of SACK recovery: set tcp.sack = true (or profile = \"linux\")",
        live unless Linux => "a live run uses Linux's TCP, which is back in Open once snd_una reaches the recovery point (`linux`); `{v}` is not available there"),
    // RACK-TLP works on SACK information (RFC 8985 §2, as in Linux): a written `true` without
    // SACK would do nothing, so it is refused.
    switch!(rack,
        needs |c| c.sack => "tcp.rack = true needs SACK: set tcp.sack = true (or profile = \"linux\")",
        live off => "a live run uses Linux's TCP, which marks losses with RACK (net.ipv4.tcp_recovery = 1), and the testbed does not change that sysctl; remove rack = false"),
    switch!(tlp,
        needs |c| c.sack => "tcp.tlp = true needs SACK: set tcp.sack = true (or profile = \"linux\")",
        live off => "a live run uses Linux's TCP, which sends tail loss probes (net.ipv4.tcp_early_retrans = 3), and the testbed does not change that sysctl; remove tlp = false"),
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
