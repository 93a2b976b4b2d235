//! Import of EnergyBox's Wi-Fi configuration files (Vergara, Nadjm-Tehrani et al., Linköping
//! University), so that its users can switch.
//!
//! EnergyBox keeps a device file (`POWER_IN_PSM`, `POWER_IN_CAM`, `POWER_IN_CAMH`, in **watts**:
//! its Samsung Galaxy S2 file says `POWER_IN_CAM=0.25`, 250 mW) and a network file
//! (`PSM_TO_CAM_THRESHOLD`, `CAM_PSM_INACTIVITY_TIME` and `CAM_TIME_WIMDOW` in ms (sic:
//! WIMDOW), `WINDOW_DATA_RATE_THRESHOLD` in bytes per window), both Java-properties style
//! `KEY=VALUE` lines with a `TYPE` (`DeviceWifi`, `Wifi`). Any number of files may be given; a
//! key given twice is an error, and so are EnergyBox's 3G files (`TYPE=Device3G`/`3G`).
//!
//! The mapping onto wattlab's one radio model:
//!
//! - `POWER_IN_PSM` → sleep. It is EnergyBox's *average* power in PSM, beacon wake-ups
//!   included, so the imported adaptive-PSM policy charges no separate beacons;
//! - `POWER_IN_CAM` → idle; `POWER_IN_CAMH` → idle_high;
//! - EnergyBox has no tx/rx split and no airtime: a packet is an instant, and the radio draws
//!   the power of the state it is in. The analyzer therefore costs packets as instants
//!   (`Airtime::Instant`) when EnergyBox files are given, and tx = rx = CAMH only matters if the
//!   user picks a PHY instead;
//! - no transition costs (EnergyBox has none);
//! - `CAM_PSM_INACTIVITY_TIME` → adaptive PSM's timeout, and the time the costed run goes on
//!   after the last packet (EnergyBox's timeline ends there, in CAM);
//! - `CAM_TIME_WIMDOW` → its window, laid as EnergyBox lays it: fixed windows aligned to the
//!   first packet ([`WindowKind::Fixed`]);
//! - `WINDOW_DATA_RATE_THRESHOLD` → its byte threshold, over frame lengths as captured (EnergyBox
//!   sums the frames' wire lengths, link header included);
//! - `PSM_TO_CAM_THRESHOLD` is read and reported but changes nothing: EnergyBox's Wi-Fi engine
//!   promotes PSM → CAM on any packet, and so does wattlab.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use wattlab_core::energy::{AdaptivePsmParams, DeviceProfile, PsmParams, RadioState, WindowKind};
use wattlab_core::Duration;

use crate::energybox_engine::EngineSettings;

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
const IGNORED: [&str; 1] = ["NAME"];

/// The `TYPE`s of EnergyBox's Wi-Fi device and network files.
const WIFI_TYPES: [&str; 2] = ["DeviceWifi", "Wifi"];

/// Above this many watts a value is not a Wi-Fi card's power (a file written in mW).
const MAX_PLAUSIBLE_W: f64 = 10.0;

/// What the files said, with where each value came from.
#[derive(Clone, Debug, Default)]
pub struct EnergyBoxConfig {
    values: BTreeMap<&'static str, (f64, String)>,
    /// A file said `TYPE=DeviceWifi` or `TYPE=Wifi` (an EnergyBox file, even without keys).
    typed: bool,
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
            if k == "TYPE" {
                if !WIFI_TYPES.contains(&v) {
                    return Err(at(format!(
                        "TYPE={v}: not an EnergyBox Wi-Fi file (wattlab imports its Wi-Fi model: TYPE=DeviceWifi or Wifi)"
                    )));
                }
                self.typed = true;
                continue;
            }
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
            if key.starts_with("POWER_IN_") && x > MAX_PLAUSIBLE_W {
                return Err(at(format!(
                    "key `{key}`: {v} W is not a Wi-Fi card's power; EnergyBox files give watts \
                     (its Samsung Galaxy S2 file has POWER_IN_CAM=0.25, i.e. 250 mW): was this file written in mW?"
                )));
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
        // Watts to microwatts.
        let uw = |k: &str| (self.get(k).unwrap_or(0.0) * 1e6).round() as u64;
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
        derived.insert("power_mw.rx".into(), "= POWER_IN_CAMH: EnergyBox has no rx/tx split (nor airtime)".into());
        derived.insert("power_mw.tx".into(), "= POWER_IN_CAMH: EnergyBox has no rx/tx split (nor airtime)".into());
        derived.insert("power_mw.off".into(), "0: EnergyBox has no off state".into());
        let mut source = String::from("EnergyBox Wi-Fi configuration:");
        for k in powers {
            let (x, at) = &self.values[k];
            let _ = write!(source, " {k}={x} W ({at});");
        }
        Ok(Some(DeviceProfile::from_powers(
            "energybox",
            "imported from EnergyBox Wi-Fi configuration files",
            source.trim_end_matches(';'),
            power,
            derived,
        )))
    }

    /// Adaptive PSM with the files' timing over EnergyBox's fixed windows, the rest from
    /// `base`; beacons are not charged separately when the files give the powers
    /// (`POWER_IN_PSM` already averages them).
    pub fn adaptive(&self, base: AdaptivePsmParams) -> AdaptivePsmParams {
        let ms = |k: &str| self.get(k).map(Self::ms_to_duration);
        let mut q = base;
        if self.is_empty() {
            return q;
        }
        q.windows = WindowKind::Fixed;
        if let Some(t) = ms("CAM_PSM_INACTIVITY_TIME") {
            q.timeout = t;
        }
        if let Some(w) = ms("CAM_TIME_WIMDOW") {
            q.window = w;
        }
        if let Some(b) = self.get("WINDOW_DATA_RATE_THRESHOLD") {
            q.high_bytes = b.round() as u64;
        }
        q.psm = self.psm(q.psm);
        q
    }

    /// Static PSM's beacon timing: no separate beacon cost when the files give the powers
    /// (`POWER_IN_PSM` already averages the beacon wake-ups).
    pub fn psm(&self, base: PsmParams) -> PsmParams {
        if self.has_device() {
            PsmParams { beacon_listen: Duration::ZERO, ..base }
        } else {
            base
        }
    }

    /// The settings of EnergyBox's engine as it reads them: the files' doubles, and for a
    /// network key not given the default of EnergyBox's `PropertiesWifi` (200 ms, 50 ms,
    /// 3000 bytes). Powers not given are 0 (see [`EnergyBoxConfig::has_device`]).
    pub fn engine_settings(&self) -> EngineSettings {
        let or = |k: &str, d: f64| self.get(k).unwrap_or(d);
        EngineSettings {
            inactivity_ms: or("CAM_PSM_INACTIVITY_TIME", 200.0),
            window_ms: or("CAM_TIME_WIMDOW", 50.0),
            threshold: or("WINDOW_DATA_RATE_THRESHOLD", 3000.0),
            power_w: [or("POWER_IN_PSM", 0.0), or("POWER_IN_CAM", 0.0), or("POWER_IN_CAMH", 0.0)],
        }
    }

    /// Network keys the files do not give (EnergyBox's engine then uses its defaults).
    pub fn missing_network_keys(&self) -> Vec<&'static str> {
        KEYS[4..].iter().copied().filter(|k| !self.values.contains_key(k)).collect()
    }

    fn ms_to_duration(x: f64) -> Duration {
        Duration::from_nanos((x * 1e6).round().min(u64::MAX as f64) as u64)
    }

    /// True if no file was read (or none gave a key).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty() && self.notes.is_empty() && !self.typed
    }

    /// How long EnergyBox's timeline goes on after the last packet: the inactivity timeout
    /// (in CAM), if the files give it.
    pub fn tail(&self) -> Option<Duration> {
        self.get("CAM_PSM_INACTIVITY_TIME").map(Self::ms_to_duration)
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

    /// EnergyBox's own device file for the Samsung Galaxy S2 (rtslab/EnergyBox,
    /// config/samsungS2_wifi.config), verbatim: powers in watts.
    const SAMSUNG_S2: &str = "#@Device3G, model_ID\n#Thu Apr 10 16:08:02 CEST 2014\nTYPE=DeviceWifi\n\n\
                              #Power parameters\nPOWER_IN_PSM=0.03\nPOWER_IN_CAM=0.25\nPOWER_IN_CAMH=0.45";

    #[test]
    fn device_and_network_files_map_onto_the_radio_model() {
        let mut c = EnergyBoxConfig::default();
        c.add_text(SAMSUNG_S2, "samsungS2_wifi.config").unwrap();
        c.add_text("TYPE=Wifi\nPSM_TO_CAM_THRESHOLD=1\nCAM_PSM_INACTIVITY_TIME=200\nCAM_TIME_WIMDOW=50\nWINDOW_DATA_RATE_THRESHOLD=3000\n", "net.config").unwrap();
        let p = c.profile().unwrap().unwrap();
        // 0.03 W = 30 mW = 30 000 µW (read as mW, it was 1000 times too small).
        assert_eq!(p.power_uw(RadioState::Sleep), 30_000);
        assert_eq!(p.power_uw(RadioState::Idle), 250_000);
        assert_eq!(p.power_uw(RadioState::IdleHigh), 450_000);
        assert_eq!(p.power_uw(RadioState::Tx), 450_000);
        assert!(p.transitions().is_empty() && p.source().contains("samsungS2_wifi.config: line 6"), "{}", p.source());
        let q = c.adaptive(AdaptivePsmParams::default());
        assert_eq!((q.timeout, q.window, q.high_bytes), (Duration::from_millis(200), Duration::from_millis(50), 3000));
        assert_eq!(q.windows, WindowKind::Fixed);
        assert_eq!(q.psm.beacon_listen, Duration::ZERO);
        assert_eq!(c.tail(), Some(Duration::from_millis(200)));
        assert!(c.all_notes().iter().any(|n| n.contains("PSM_TO_CAM_THRESHOLD")));
        // Without EnergyBox files the defaults stay wattlab's (sliding windows, beacons).
        let none = EnergyBoxConfig::default();
        assert!(none.is_empty() && none.tail().is_none());
        assert_eq!(none.adaptive(AdaptivePsmParams::default()), AdaptivePsmParams::default());
    }

    #[test]
    fn milliwatt_values_and_3g_files_are_refused() {
        let mut c = EnergyBoxConfig::default();
        let e = c.add_text("TYPE=DeviceWifi\nPOWER_IN_CAM=250\n", "mw.config").unwrap_err();
        assert!(e.contains("mw.config: line 2") && e.contains("250 W") && e.contains("watts"), "{e}");
        let e = EnergyBoxConfig::default().add_text("TYPE=Device3G\nPOWER_IN_DCH=0.6\n", "3g.config").unwrap_err();
        assert!(e.contains("line 1") && e.contains("Wi-Fi"), "{e}");
    }

    #[test]
    fn errors_name_the_file_line_and_key() {
        let mut c = EnergyBoxConfig::default();
        let e = c.add_text("POWER_IN_PSM=0.03\nPOWER_IN_CAM=lots\n", "d.config").unwrap_err();
        assert!(e.contains("d.config: line 2") && e.contains("POWER_IN_CAM"), "{e}");
        let mut c = EnergyBoxConfig::default();
        let e = c.add_text("just words\n", "x").unwrap_err();
        assert!(e.contains("line 1") && e.contains("KEY=VALUE"), "{e}");
        let mut c = EnergyBoxConfig::default();
        c.add_text("POWER_IN_PSM=0.03\n", "a").unwrap();
        let e = c.add_text("POWER_IN_PSM=0.031\n", "b").unwrap_err();
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
