//! Import of EnergyBox's Wi-Fi configuration files (Vergara, Nadjm-Tehrani et al., Linköping
//! University), so that its users can switch.
//!
//! EnergyBox keeps a device file (`POWER_IN_PSM`, `POWER_IN_CAM`, `POWER_IN_CAMH`, in mW) and a
//! network file (`PSM_TO_CAM_THRESHOLD`, `CAM_PSM_INACTIVITY_TIME` and `CAM_TIME_WIMDOW` in ms
//! (sic: WIMDOW), `WINDOW_DATA_RATE_THRESHOLD` in bytes per window), both Java-properties
//! style `KEY=VALUE` lines. Any number of files may be given; a key given twice is an error.
//!
//! The mapping onto wattlab's one radio model:
//!
//! - `POWER_IN_PSM` → sleep. It is EnergyBox's *average* power in PSM, beacon wake-ups
//!   included, so the imported adaptive-PSM policy charges no separate beacons;
//! - `POWER_IN_CAM` → idle; `POWER_IN_CAMH` → idle_high;
//! - EnergyBox has no tx/rx split, so tx = rx = CAMH, the power of a radio busy with traffic
//!   (EnergyBox itself charges a frame whatever state it falls in: the difference is the
//!   frames' airtime × (CAMH − CAM), small next to the tails);
//! - no transition costs (EnergyBox has none);
//! - `CAM_PSM_INACTIVITY_TIME` → adaptive PSM's timeout, `CAM_TIME_WIMDOW` → its window,
//!   `WINDOW_DATA_RATE_THRESHOLD` → its byte threshold;
//! - `PSM_TO_CAM_THRESHOLD` is read and reported but changes nothing: EnergyBox's Wi-Fi engine
//!   promotes PSM → CAM on any packet, and so does wattlab.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use wattlab_core::energy::{AdaptivePsmParams, DeviceProfile, PsmParams, RadioState};
use wattlab_core::Duration;

/// Every key EnergyBox's Wi-Fi model reads.
pub const KEYS: [&str; 7] = [
    "POWER_IN_PSM",
    "POWER_IN_CAM",
    "POWER_IN_CAMH",
    "PSM_TO_CAM_THRESHOLD",
    "CAM_PSM_INACTIVITY_TIME",
    "CAM_TIME_WIMDOW",
    "WINDOW_DATA_RATE_THRESHOLD",
];

/// Keys EnergyBox files carry that this importer accepts and ignores (file metadata).
const IGNORED: [&str; 2] = ["TYPE", "NAME"];

/// What the files said, with where each value came from.
#[derive(Clone, Debug, Default)]
pub struct EnergyBoxConfig {
    values: BTreeMap<&'static str, (f64, String)>,
    /// Notes for the user (ignored keys, the unused promotion threshold).
    pub notes: Vec<String>,
}

impl EnergyBoxConfig {
    /// Reads and merges `paths` (device and network files, in any order).
    pub fn load(paths: &[impl AsRef<Path>]) -> Result<EnergyBoxConfig, String> {
        let mut cfg = EnergyBoxConfig::default();
        for p in paths {
            let p = p.as_ref();
            let text = std::fs::read_to_string(p)
                .map_err(|e| format!("{}: cannot read EnergyBox file: {e}", p.display()))?;
            cfg.add_text(&text, &p.display().to_string())?;
        }
        Ok(cfg)
    }

    /// Adds the keys of one file's `text`; `origin` names it in errors.
    pub fn add_text(&mut self, text: &str, origin: &str) -> Result<(), String> {
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            let at = |msg: String| format!("{origin}: line {}: {msg}", i + 1);
            if line.is_empty() || line.starts_with('#') || line.starts_with('!') {
                continue;
            }
            let Some((k, v)) = line.split_once('=').or_else(|| line.split_once(':')) else {
                return Err(at(format!("expected KEY=VALUE, got `{line}`")));
            };
            let (k, v) = (k.trim(), v.trim());
            let Some(&key) = KEYS.iter().find(|&&x| x == k) else {
                if IGNORED.contains(&k) {
                    continue;
                }
                self.notes.push(format!("{origin}: line {}: key `{k}` is not part of EnergyBox's Wi-Fi model; ignored", i + 1));
                continue;
            };
            let x: f64 = v
                .parse()
                .map_err(|_| at(format!("key `{key}`: `{v}` is not a number")))?;
            if !x.is_finite() || x < 0.0 {
                return Err(at(format!("key `{key}`: {v} must be a finite number ≥ 0")));
            }
            if let Some((_, first)) = self.values.get(key) {
                return Err(at(format!("key `{key}` given twice (first at {first})")));
            }
            self.values.insert(key, (x, format!("{origin}: line {}", i + 1)));
        }
        Ok(())
    }

    fn get(&self, key: &str) -> Option<f64> {
        self.values.get(key).map(|(x, _)| *x)
    }

    /// True if the files give the three powers (a device file).
    pub fn has_device(&self) -> bool {
        ["POWER_IN_PSM", "POWER_IN_CAM", "POWER_IN_CAMH"].iter().all(|k| self.values.contains_key(k))
    }

    /// The device profile of the three powers (see the module docs); an error names the
    /// missing keys if only some are given, `None` if none are.
    pub fn profile(&self) -> Result<Option<DeviceProfile>, String> {
        let powers = ["POWER_IN_PSM", "POWER_IN_CAM", "POWER_IN_CAMH"];
        let missing: Vec<&str> = powers.iter().copied().filter(|k| !self.values.contains_key(k)).collect();
        if missing.len() == powers.len() {
            return Ok(None);
        }
        if !missing.is_empty() {
            return Err(format!("EnergyBox device settings incomplete: missing {}", missing.join(", ")));
        }
        let uw = |k: &str| (self.get(k).unwrap_or(0.0) * 1000.0).round() as u64;
        let (psm, cam, camh) = (uw("POWER_IN_PSM"), uw("POWER_IN_CAM"), uw("POWER_IN_CAMH"));
        let mut power = [0u64; RadioState::COUNT];
        power[RadioState::Sleep.index()] = psm;
        power[RadioState::Idle.index()] = cam;
        power[RadioState::IdleHigh.index()] = camh;
        power[RadioState::Rx.index()] = camh;
        power[RadioState::Tx.index()] = camh;
        let mut derived = BTreeMap::new();
        derived.insert("power_mw.sleep".into(), "POWER_IN_PSM (an average over PSM, beacons included)".into());
        derived.insert("power_mw.idle".into(), "POWER_IN_CAM".into());
        derived.insert("power_mw.idle_high".into(), "POWER_IN_CAMH".into());
        derived.insert("power_mw.rx".into(), "= POWER_IN_CAMH: EnergyBox has no rx/tx split".into());
        derived.insert("power_mw.tx".into(), "= POWER_IN_CAMH: EnergyBox has no rx/tx split".into());
        derived.insert("power_mw.off".into(), "0: EnergyBox has no off state".into());
        let mut source = String::from("EnergyBox Wi-Fi configuration:");
        for k in powers {
            let (x, at) = &self.values[k];
            let _ = write!(source, " {k}={x} ({at});");
        }
        Ok(Some(DeviceProfile::from_powers(
            "energybox",
            "imported from EnergyBox Wi-Fi configuration files",
            source.trim_end_matches(';'),
            power,
            derived,
        )))
    }

    /// Adaptive PSM with the files' timing, the rest from `base`; beacons are not charged
    /// separately when the files give the powers (`POWER_IN_PSM` already averages them).
    pub fn adaptive(&self, base: AdaptivePsmParams) -> AdaptivePsmParams {
        let ms = |k: &str| self.get(k).map(|x| Duration::from_nanos((x * 1e6).round() as u64));
        let mut q = base;
        if let Some(t) = ms("CAM_PSM_INACTIVITY_TIME") {
            q.timeout = t;
        }
        if let Some(w) = ms("CAM_TIME_WIMDOW") {
            q.window = w;
        }
        if let Some(b) = self.get("WINDOW_DATA_RATE_THRESHOLD") {
            q.high_bytes = b.round() as u64;
        }
        if self.has_device() {
            q.psm = PsmParams { beacon_listen: Duration::ZERO, ..q.psm };
        }
        q
    }

    /// True if any network (timing) key was given.
    pub fn has_network(&self) -> bool {
        KEYS[3..].iter().any(|k| self.values.contains_key(k))
    }

    /// Notes, plus one about `PSM_TO_CAM_THRESHOLD` when it is given.
    pub fn all_notes(&self) -> Vec<String> {
        let mut v = self.notes.clone();
        if let Some((x, at)) = self.values.get("PSM_TO_CAM_THRESHOLD") {
            v.push(format!(
                "PSM_TO_CAM_THRESHOLD={x} ({at}) is not used: EnergyBox's Wi-Fi engine promotes PSM to CAM on any packet, and so does wattlab"
            ));
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_and_network_files_map_onto_the_radio_model() {
        let mut c = EnergyBoxConfig::default();
        c.add_text("# device\nTYPE=Wifi\nPOWER_IN_PSM=30\nPOWER_IN_CAM = 250.5\nPOWER_IN_CAMH=500\n", "dev.config").unwrap();
        c.add_text("PSM_TO_CAM_THRESHOLD=1\nCAM_PSM_INACTIVITY_TIME=200\nCAM_TIME_WIMDOW=50\nWINDOW_DATA_RATE_THRESHOLD=3000\n", "net.config").unwrap();
        let p = c.profile().unwrap().unwrap();
        assert_eq!(p.power_uw(RadioState::Sleep), 30_000);
        assert_eq!(p.power_uw(RadioState::Idle), 250_500);
        assert_eq!(p.power_uw(RadioState::IdleHigh), 500_000);
        assert_eq!(p.power_uw(RadioState::Tx), 500_000);
        assert!(p.transitions().is_empty() && p.source().contains("dev.config: line 3"));
        let q = c.adaptive(AdaptivePsmParams::default());
        assert_eq!((q.timeout, q.window, q.high_bytes), (Duration::from_millis(200), Duration::from_millis(50), 3000));
        assert_eq!(q.psm.beacon_listen, Duration::ZERO);
        assert!(c.all_notes().iter().any(|n| n.contains("PSM_TO_CAM_THRESHOLD")));
    }

    #[test]
    fn errors_name_the_file_line_and_key() {
        let mut c = EnergyBoxConfig::default();
        let e = c.add_text("POWER_IN_PSM=30\nPOWER_IN_CAM=lots\n", "d.config").unwrap_err();
        assert!(e.contains("d.config: line 2") && e.contains("POWER_IN_CAM"), "{e}");
        let mut c = EnergyBoxConfig::default();
        let e = c.add_text("just words\n", "x").unwrap_err();
        assert!(e.contains("line 1") && e.contains("KEY=VALUE"), "{e}");
        let mut c = EnergyBoxConfig::default();
        c.add_text("POWER_IN_PSM=30\n", "a").unwrap();
        let e = c.add_text("POWER_IN_PSM=31\n", "b").unwrap_err();
        assert!(e.contains("b: line 1") && e.contains("given twice") && e.contains("a: line 1"), "{e}");
        let e = c.profile().unwrap_err();
        assert!(e.contains("POWER_IN_CAM") && e.contains("POWER_IN_CAMH"), "{e}");
        let mut c = EnergyBoxConfig::default();
        let e = c.add_text("POWER_IN_CAM=-3\n", "n").unwrap_err();
        assert!(e.contains("≥ 0"), "{e}");
        c.add_text("FOO=1\n", "n").unwrap();
        assert!(c.notes[0].contains("FOO"));
        assert!(c.profile().unwrap().is_none());
    }
}
