//! `power_save`: a station's power-save mode and the settings its name does not carry, one
//! sub-table shared by the `[[wireless]]` hop, the `[[wlan]]` BSS and a `[[wlan.station]]`,
//! with its ranges checked here beside its fields.
//!
//! Written `power_save = "psm"` (the mode alone) or as a table,
//! `power_save = { mode = "psm", listen_interval = 3 }`. The settings' older spelling, flat
//! keys beside `power_save` (`listen_interval = 3`), is still read: [`normalize`] moves them
//! into the table right after parsing, the one place that knows it, and errors then name
//! the keys as they were written.

use super::error::ScenarioError;
use super::ranges::{Check, PERIOD_RANGE_NS};
use super::schema::{AgentSettings, Scenario};
use super::units::Dur;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::fmt;
use toml::Spanned;
use wattlab_core::power::PowerSaveSettings;
use wattlab_core::Duration;

/// A station's power management: a registry mode (`cam`, the default, `psm`, `ideal-psm`,
/// `bsd-P`, `u-apsd`, `cc`, `psna`, `external`) and its settings.
#[derive(Clone, Debug, Default)]
pub struct PowerSaveConfig {
    /// The mode's name (None: `cam`, or the BSS's for a `[[wlan.station]]`).
    pub mode: Option<Spanned<String>>,
    /// `[[wireless]]` only: the period of the hop's beacon clock (default 100 ms, paper 000's
    /// Orinoco AP). A `[[wlan]]`'s beacons are its own `beacon_interval`.
    pub beacon_interval: Option<Dur>,
    /// `psm`: beacons between wake-ups (default 1).
    pub listen_interval: Option<u32>,
    /// `ideal-psm`: time between release instants (default: a hop's beacon interval, a BSS's
    /// 100 ms, paper 000).
    pub ideal_psm_interval: Option<Dur>,
    /// `u-apsd`: a trigger this often when nothing went uplink (default: never).
    pub uapsd_trigger_interval: Option<Dur>,
    /// `u-apsd`: frames per service period (default 0 = all held).
    pub uapsd_max_sp: Option<u32>,
    /// `cc`: the client-centered agent's settings (docs/agent.md).
    pub agent: Option<AgentSettings>,
    /// Written `power_save = "NAME"`: the mode's key is `power_save` itself.
    short: bool,
    /// The settings were written as flat keys beside `power_save` (the older form).
    flat: bool,
}

/// The table form, as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    #[serde(default)]
    mode: Option<Spanned<String>>,
    #[serde(default)]
    beacon_interval: Option<Dur>,
    #[serde(default)]
    listen_interval: Option<u32>,
    #[serde(default)]
    ideal_psm_interval: Option<Dur>,
    #[serde(default)]
    uapsd_trigger_interval: Option<Dur>,
    #[serde(default)]
    uapsd_max_sp: Option<u32>,
    #[serde(default)]
    agent: Option<AgentSettings>,
}

/// A mode's name or a table, before the short form gets its span.
enum Written {
    Name(String),
    Table(Box<Table>),
}

impl<'de> Deserialize<'de> for Written {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Written;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a power-save mode's name (\"psm\") or a table { mode = \"psm\", listen_interval = 1, ... }")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Written, E> {
                Ok(Written::Name(v.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Written, A::Error> {
                Table::deserialize(de::value::MapAccessDeserializer::new(map)).map(|t| Written::Table(Box::new(t)))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for PowerSaveConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let written = Spanned::<Written>::deserialize(d)?;
        let span = written.span();
        Ok(match written.into_inner() {
            Written::Name(name) => PowerSaveConfig { mode: Some(Spanned::new(span, name)), short: true, ..Default::default() },
            Written::Table(t) => PowerSaveConfig {
                mode: t.mode,
                beacon_interval: t.beacon_interval,
                listen_interval: t.listen_interval,
                ideal_psm_interval: t.ideal_psm_interval,
                uapsd_trigger_interval: t.uapsd_trigger_interval,
                uapsd_max_sp: t.uapsd_max_sp,
                agent: t.agent,
                short: false,
                flat: false,
            },
        })
    }
}

impl PowerSaveConfig {
    /// A configuration of `mode` with every setting at its default (tests, typed overrides).
    pub fn of(mode: &str) -> PowerSaveConfig {
        PowerSaveConfig { mode: Some(Spanned::new(0..0, mode.to_string())), short: true, ..Default::default() }
    }

    /// The mode's name as written (None if not).
    pub fn mode_name(&self) -> Option<&str> {
        self.mode.as_ref().map(|m| m.get_ref().as_str())
    }

    /// True if `power_save` was written as a table (`{ mode = "psm", ... }`), not as a name.
    pub fn is_table(&self) -> bool {
        !self.short && !self.flat
    }

    /// True if a mode other than `cam` is written.
    pub fn saves_power(&self) -> bool {
        self.mode_name().is_some_and(|m| m != "cam")
    }

    /// The same station with its power saving off: mode `cam`, no agent, the other settings
    /// kept (they do nothing under `cam`). What a run's baseline uses.
    pub fn without_power_save(&self) -> PowerSaveConfig {
        let span = self.mode.as_ref().map_or(0..0, |m| m.span());
        PowerSaveConfig { mode: Some(Spanned::new(span, "cam".to_string())), agent: None, ..self.clone() }
    }

    /// The key path of setting `field` of this table in section `section` (`wlan[0]`), as it
    /// was written: `wlan[0].power_save.listen_interval`, or `wlan[0].listen_interval` in
    /// the flat form; `field = "mode"` is `wlan[0].power_save` in the short form.
    pub fn key(&self, section: &str, field: &str) -> String {
        match field {
            "mode" if self.short || self.flat => format!("{section}.power_save"),
            _ if self.flat => format!("{section}.{field}"),
            _ => format!("{section}.power_save.{field}"),
        }
    }

    /// A `[[wlan.station]]`'s table (`self`) over its BSS's: what the station writes wins.
    pub fn over(&self, bss: &PowerSaveConfig) -> PowerSaveConfig {
        PowerSaveConfig {
            mode: self.mode.clone().or_else(|| bss.mode.clone()),
            beacon_interval: self.beacon_interval.or(bss.beacon_interval),
            listen_interval: self.listen_interval.or(bss.listen_interval),
            ideal_psm_interval: self.ideal_psm_interval.or(bss.ideal_psm_interval),
            uapsd_trigger_interval: self.uapsd_trigger_interval.or(bss.uapsd_trigger_interval),
            uapsd_max_sp: self.uapsd_max_sp.or(bss.uapsd_max_sp),
            agent: self.agent.clone().or_else(|| bss.agent.clone()),
            short: if self.mode.is_some() { self.short } else { bss.short },
            flat: self.flat,
        }
    }

    /// The settings the registry's modes take, `release` the default time between ideal-PSM
    /// release instants.
    pub fn settings(&self, release: Duration) -> PowerSaveSettings {
        PowerSaveSettings {
            listen_interval: self.listen_interval.unwrap_or(1),
            ideal_psm_interval: self.ideal_psm_interval.map_or(release, Dur::get),
            uapsd_trigger_interval: self.uapsd_trigger_interval.map(Dur::get),
            uapsd_max_sp: self.uapsd_max_sp.unwrap_or(0),
        }
    }

    /// The valid range of every setting (the agent's too), first error kept by `c`.
    pub(crate) fn check(&self, c: &mut Check, section: &str) {
        let (lo, hi) = PERIOD_RANGE_NS;
        c.dur(&self.key(section, "beacon_interval"), self.beacon_interval, lo, hi);
        c.dur(&self.key(section, "ideal_psm_interval"), self.ideal_psm_interval, lo, hi);
        c.dur(&self.key(section, "uapsd_trigger_interval"), self.uapsd_trigger_interval, lo, hi);
        c.num(&self.key(section, "listen_interval"), self.listen_interval.map(u64::from), 1, 65_535, " beacons");
        c.num(&self.key(section, "uapsd_max_sp"), self.uapsd_max_sp.map(u64::from), 0, 1000, " frames");
        c.agent(&self.key(section, "agent"), self.agent.as_ref());
    }

    /// Takes the settings written as flat keys in `section` (`flat`, its mode unused) into the
    /// table. Both forms in one section is an error saying what to write instead.
    fn take_flat(&mut self, flat: PowerSaveConfig, section: &str, origin: &str, text: &str) -> Result<(), ScenarioError> {
        let written = flat.written();
        let Some(first) = written.first() else { return Ok(()) };
        if !self.short && self.mode.is_some() || !self.written().is_empty() {
            let mode = self.mode_name().unwrap_or("...");
            return Err(ScenarioError::at_key(origin, text, &format!("{section}.{first}"), format!(
                "`{first}` is written beside a power_save table: write it inside, as power_save = {{ mode = \"{mode}\", {} }}",
                written.iter().map(|k| format!("{k} = ...")).collect::<Vec<_>>().join(", ")
            )));
        }
        *self = PowerSaveConfig { mode: self.mode.take(), short: self.short, flat: true, ..flat };
        Ok(())
    }

    /// The names of the settings written, in the order of the fields.
    fn written(&self) -> Vec<&'static str> {
        [
            ("beacon_interval", self.beacon_interval.is_some()),
            ("listen_interval", self.listen_interval.is_some()),
            ("ideal_psm_interval", self.ideal_psm_interval.is_some()),
            ("uapsd_trigger_interval", self.uapsd_trigger_interval.is_some()),
            ("uapsd_max_sp", self.uapsd_max_sp.is_some()),
            ("agent", self.agent.is_some()),
        ]
        .into_iter()
        .filter_map(|(k, w)| w.then_some(k))
        .collect()
    }
}

/// Moves every section's flat power-save keys (the older spelling) into its `power_save`
/// table: the one place that reads them. `text` is what `scn` was parsed from.
pub fn normalize(scn: &mut Scenario, origin: &str, text: &str) -> Result<(), ScenarioError> {
    for (i, w) in scn.wireless.iter_mut().enumerate() {
        let flat = PowerSaveConfig {
            beacon_interval: w.beacon_interval.take(),
            listen_interval: w.listen_interval.take(),
            uapsd_trigger_interval: w.uapsd_trigger_interval.take(),
            uapsd_max_sp: w.uapsd_max_sp.take(),
            agent: w.agent.take(),
            ..Default::default()
        };
        w.power_save.take_flat(flat, &format!("wireless[{i}]"), origin, text)?;
    }
    for (b, w) in scn.wlan.iter_mut().enumerate() {
        // (The BSS's own beacon_interval is its MAC's, not a power-save setting.)
        let flat = PowerSaveConfig {
            listen_interval: w.listen_interval.take(),
            ideal_psm_interval: w.ideal_psm_interval.take(),
            uapsd_trigger_interval: w.uapsd_trigger_interval.take(),
            uapsd_max_sp: w.uapsd_max_sp.take(),
            agent: w.agent.take(),
            ..Default::default()
        };
        w.power_save.take_flat(flat, &format!("wlan[{b}]"), origin, text)?;
        for (k, s) in w.station_overrides.iter_mut().enumerate() {
            let flat = PowerSaveConfig { listen_interval: s.listen_interval.take(), agent: s.agent.take(), ..Default::default() };
            s.power_save.take_flat(flat, &format!("wlan[{b}].station[{k}]"), origin, text)?;
        }
    }
    Ok(())
}
