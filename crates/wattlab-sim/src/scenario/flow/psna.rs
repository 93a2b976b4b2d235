//! `[[flow]] kind = "psna-read"` / `"psna-send"` ([`PsnaFlow`]) and its `psna = { ... }` table:
//! overrides of seed 001's PSNA parameters (the mobile's [`MobileConfig`], the daemon's
//! [`DaemonConfig`] and its [`EstimatorConfig`]), written with the scenario's units.
//! Users read `docs/scenario.md`; what each parameter means is in `docs/psna.md`.

use super::tcp::TcpSettings;
use crate::scenario::check::{fmt_ns, Check};
use crate::scenario::units::{Dur, Size};
use serde::Deserialize;
use wattlab_core::psna::{DaemonConfig, EstimatorConfig, MobileConfig};

/// `kind = "psna-read"` / `"psna-send"`: the mobile `client` reads an object from, or sends
/// one to, the fixed host `server` through the PSNA daemon on `ap`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PsnaFlow {
    /// The mobile (a station).
    pub client: String,
    /// The fixed host.
    pub server: String,
    /// The node running the PSNA daemon (default: the client's AP).
    #[serde(default)]
    pub ap: Option<String>,
    /// Bytes of the object.
    pub bytes: Size,
    /// Request size of the daemon's TCP connection to the fixed host (default 100 B).
    #[serde(default)]
    pub request: Option<Size>,
    /// TCP settings of the daemon–fixed host connection.
    #[serde(default)]
    pub tcp: Option<TcpSettings>,
    /// Overrides of the PSNA parameters.
    #[serde(default)]
    pub psna: Option<PsnaSettings>,
}

impl PsnaFlow {
    /// Checks every number against its valid range; `key` is the flow's path (`flow[0]`).
    pub(crate) fn check_ranges(&self, key: &str, c: &mut Check) {
        if let Some(t) = &self.tcp {
            t.check_ranges(&format!("{key}.tcp"), c);
        }
    }
}

/// PSNA parameter overrides; every key is optional and defaults to `docs/psna.md`'s value.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PsnaSettings {
    /// EWMA weight α of the previous estimate, 0 < α < 1 (default 0.9).
    #[serde(default)]
    pub alpha: Option<f64>,
    /// Data packets per estimator interval Δ_i (default 10).
    #[serde(default)]
    pub min_packets: Option<u32>,
    /// Samples averaged before the EWMA takes over (default 10).
    #[serde(default)]
    pub mean_samples: Option<u32>,
    /// Bytes per FH packet when counting packets (default 1460 B).
    #[serde(default)]
    pub fh_segment_size: Option<Size>,
    /// DATA payload per PS-TP message, both ways (default 1400 B).
    #[serde(default)]
    pub chunk_size: Option<Size>,
    /// Largest object the daemon buffers (default 64 MiB).
    #[serde(default)]
    pub max_object: Option<Size>,
    /// Longest Residual_Time sent (default 1 h).
    #[serde(default)]
    pub max_residual: Option<Dur>,
    /// The daemon drops a transfer the mobile was silent for this long (default 2 h).
    #[serde(default)]
    pub abandon_after: Option<Dur>,
    /// A finished transfer answers duplicates this long (default 60 s).
    #[serde(default)]
    pub linger: Option<Dur>,
    /// The mobile's retransmission timeout (default 100 ms).
    #[serde(default)]
    pub rto: Option<Dur>,
    /// Retransmissions of one request before the transfer fails (default 10).
    #[serde(default)]
    pub max_retries: Option<u32>,
    /// Re-poll interval while on and waiting for a deferred answer (default 5 s).
    #[serde(default)]
    pub wait_poll_interval: Option<Dur>,
    /// Longest on-wait for a first Residual_Time (default 600 s).
    #[serde(default)]
    pub max_wait_on: Option<Dur>,
    /// A Residual_Time shorter than this keeps the radio on (default 0 s).
    #[serde(default)]
    pub min_sleep: Option<Dur>,
    /// From radio on to the Poll (default 0 s).
    #[serde(default)]
    pub resume_delay: Option<Dur>,
    /// The daemon's UDP port on the AP (default 7300).
    #[serde(default)]
    pub daemon_port: Option<u16>,
    /// Test hook: the fixed host's application stops (closes its connection) after this many
    /// object bytes (default: serves them all).
    #[serde(default)]
    pub fh_stop_after: Option<Size>,
}

/// The three configurations, checked.
#[derive(Clone, Debug)]
pub struct PsnaConfigs {
    /// The mobile's.
    pub mobile: MobileConfig,
    /// The daemon's (its estimator inside).
    pub daemon: DaemonConfig,
}

impl PsnaSettings {
    /// The configurations these settings give; an error is (key inside `psna`, or "" for the
    /// table itself; message).
    pub fn configs(&self) -> Result<PsnaConfigs, (&'static str, String)> {
        let mut e = EstimatorConfig::default();
        if let Some(a) = self.alpha {
            if !(a > 0.0 && a < 1.0) {
                return Err(("alpha", "must be in (0, 1)".into()));
            }
            e.alpha = a;
        }
        if let Some(n) = self.min_packets {
            if n == 0 {
                return Err(("min_packets", "must be at least 1 packet".into()));
            }
            e.min_packets = n;
        }
        if let Some(n) = self.mean_samples {
            e.mean_samples = n;
        }
        if let Some(s) = self.fh_segment_size {
            e.fh_segment_size = u32::try_from(s.bytes())
                .ok()
                .filter(|&n| (1..=65_535).contains(&n))
                .ok_or(("fh_segment_size", "must be 1..=65535 bytes".to_string()))?;
        }
        let mut d = DaemonConfig {
            estimator: e,
            ..DaemonConfig::default()
        };
        let mut m = MobileConfig::default();
        if let Some(s) = self.chunk_size {
            // 1472 B of UDP payload fit a 1500-byte MTU; 18 B are the DATA header and offset.
            let c = u16::try_from(s.bytes())
                .ok()
                .filter(|&n| (1..=1454).contains(&n))
                .ok_or((
                    "chunk_size",
                    "must be 1..=1454 bytes (a DATA message in one 1500-byte IP packet)"
                        .to_string(),
                ))?;
            d.chunk_size = c;
            m.chunk_size = c;
        }
        if let Some(s) = self.max_object {
            // The daemon holds the whole object in memory (and a sending mobile its copy).
            if !(1..=MAX_OBJECT).contains(&s.bytes()) {
                return Err(("max_object", format!("{} B is out of range: must be 1..={MAX_OBJECT} B (4 GiB; the object is held in memory)", s.bytes())));
            }
            d.max_object = s.bytes();
        }
        let pos = |v: Option<Dur>,
                   key: &'static str|
         -> Result<Option<wattlab_core::Duration>, (&'static str, String)> {
            match v {
                Some(d) if d.0 == 0 => Err((key, "must be positive".into())),
                other => Ok(other.map(Dur::get)),
            }
        };
        if let Some(v) = self.max_residual {
            // The daemon's Residual_Time has millisecond resolution: a shorter longest one
            // would make every answer "0", i.e. never let the mobile sleep.
            if v.0 < MIN_RESIDUAL.as_nanos() {
                return Err((
                    "max_residual",
                    format!("must be at least {} (the daemon announces Residual_Times in whole milliseconds)", fmt_ns(MIN_RESIDUAL.as_nanos())),
                ));
            }
            d.max_residual = v.get();
        }
        if let Some(v) = pos(self.abandon_after, "abandon_after")? {
            d.abandon_after = v;
        }
        if let Some(v) = self.linger {
            d.linger = v.get();
        }
        if let Some(v) = pos(self.rto, "rto")? {
            m.rto = v;
        }
        if let Some(v) = self.max_retries {
            m.max_retries = v;
        }
        if let Some(v) = pos(self.wait_poll_interval, "wait_poll_interval")? {
            m.wait_poll_interval = v;
        }
        if let Some(v) = pos(self.max_wait_on, "max_wait_on")? {
            m.max_wait_on = v;
        }
        if let Some(v) = self.min_sleep {
            m.min_sleep = v.get();
        }
        if let Some(v) = self.resume_delay {
            m.resume_delay = v.get();
        }
        if d.abandon_after <= d.max_residual {
            return Err((
                "abandon_after",
                "must exceed max_residual (a sleeping mobile is not gone)".into(),
            ));
        }
        if self.daemon_port == Some(0) {
            return Err(("daemon_port", "0 is not a port: must be 1..=65535".into()));
        }
        d.validate().map_err(|e| (blame(e.0), e.to_string()))?;
        m.validate().map_err(|e| (blame(e.0), e.to_string()))?;
        Ok(PsnaConfigs {
            mobile: m,
            daemon: d,
        })
    }
}

/// Largest `max_object`: 4 GiB, held whole by the daemon.
pub const MAX_OBJECT: u64 = 4 << 30;

/// Shortest `max_residual` the daemon accepts ([`DaemonConfig::validate`]).
const MIN_RESIDUAL: wattlab_core::Duration = wattlab_core::Duration::from_millis(1);

/// The key a core `validate` message is about: the key it starts with, or "" (the `psna`
/// table as a whole). The checks above catch each value first; this keeps a later core rule
/// from blaming a key the user did not write.
fn blame(msg: &str) -> &'static str {
    const KEYS: [&str; 12] = [
        "alpha", "min_packets", "fh_segment_size", "chunk_size", "max_residual", "abandon_after",
        "rto", "wait_poll_interval", "max_wait_on", "mean_samples", "max_object", "linger",
    ];
    KEYS.into_iter().find(|k| msg.starts_with(k)).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_cores_and_overrides_convert_units() {
        let c = PsnaSettings::default().configs().unwrap();
        assert_eq!(
            (c.mobile, c.daemon),
            (MobileConfig::default(), DaemonConfig::default())
        );
        let s: PsnaSettings = toml::from_str("alpha = 0.5\nmin_packets = 20\nrto = \"250ms\"\nmax_residual = \"600s\"\nchunk_size = \"1kB\"").unwrap();
        let c = s.configs().unwrap();
        assert_eq!(
            (c.daemon.estimator.alpha, c.daemon.estimator.min_packets),
            (0.5, 20)
        );
        assert_eq!(
            (c.mobile.rto.as_nanos(), c.daemon.max_residual.as_nanos()),
            (250_000_000, 600_000_000_000)
        );
        assert_eq!((c.mobile.chunk_size, c.daemon.chunk_size), (1000, 1000));
    }

    #[test]
    fn bad_values_name_their_key() {
        let bad = |t: &str| {
            toml::from_str::<PsnaSettings>(t)
                .unwrap()
                .configs()
                .unwrap_err()
                .0
        };
        assert_eq!(bad("alpha = 1.0"), "alpha");
        assert_eq!(bad("min_packets = 0"), "min_packets");
        assert_eq!(bad("rto = \"0s\""), "rto");
        assert_eq!(bad("chunk_size = \"2kB\""), "chunk_size");
        assert_eq!(bad("max_residual = \"180min\""), "abandon_after");
        // Issue 27: refused naming `alpha`, which was not written.
        assert_eq!(bad("max_residual = \"1ns\""), "max_residual");
        assert_eq!(bad("max_residual = \"999us\""), "max_residual");
        assert_eq!(bad("daemon_port = 0"), "daemon_port");
        assert_eq!(blame("chunk_size and max_residual (≥ 1 ms) must be positive"), "chunk_size");
        assert!(toml::from_str::<PsnaSettings>("alfa = 0.9").is_err());
    }
}
