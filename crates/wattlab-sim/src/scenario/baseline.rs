//! The baseline of a power mode's saving: the same scenario with every station's power saving
//! off, worked out on the typed scenario. Its TOML text (written beside the results) is the
//! effective table with the same changes, listed as [`TableEdit`]s.

use super::power_save::PowerSaveConfig;
use super::schema::Scenario;

/// A scenario with power saving off, and what was turned off to make it.
#[derive(Clone, Debug)]
pub struct Baseline {
    /// The scenario to run as the baseline.
    pub scenario: Scenario,
    /// What was changed, in words (`wlan.bss (psm)`, `[[tunnel]] (removed)`, ...), in order.
    pub changes: Vec<String>,
    /// The same changes as edits of the scenario's TOML table.
    pub edits: Vec<TableEdit>,
}

impl Baseline {
    /// "power saving off: " and the changes, as provenance and the baseline's text say it.
    pub fn description(&self) -> String {
        format!("power saving off: {}", self.changes.join(", "))
    }
}

/// One step of a path into the scenario's TOML table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    /// A key of a table.
    Key(&'static str),
    /// An entry of an array of tables (`[[wlan]]`).
    Index(usize),
}

/// An edit of the scenario's TOML table: set the string at `path`, or remove it (`value` None).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableEdit {
    /// Where: the last step is the key set or removed.
    pub path: Vec<Seg>,
    /// The string value written, or None to remove the key.
    pub value: Option<&'static str>,
}

impl TableEdit {
    /// Apply the edit to `table` (nothing if the path's parent is not there).
    pub fn apply(&self, table: &mut toml::Table) {
        let Some((Seg::Key(last), parents)) = self.path.split_last() else { return };
        let mut cur = table;
        let mut steps = parents.iter().peekable();
        while let Some(seg) = steps.next() {
            let Seg::Key(k) = seg else { return };
            let Some(mut v) = cur.get_mut(*k) else { return };
            if let Some(Seg::Index(n)) = steps.peek() {
                steps.next();
                let Some(item) = v.as_array_mut().and_then(|a| a.get_mut(*n)) else { return };
                v = item;
            }
            let Some(t) = v.as_table_mut() else { return };
            cur = t;
        }
        match self.value {
            Some(v) => {
                cur.insert(last.to_string(), toml::Value::String(v.to_string()));
            }
            None => {
                cur.remove(*last);
            }
        }
    }
}

impl Scenario {
    /// This scenario with every station's power saving off: `cam` on each `[[wireless]]` hop,
    /// `[[wlan]]` and `[[wlan.station]]`, no agent settings and no `[[tunnel]]`, the same
    /// traffic without the scheme. A scheme that is also a transport is replaced by the legacy
    /// transport it replaces: a `psna-read`/`psna-send` flow (paper 001's split connection)
    /// becomes end-to-end TCP, `bulk-download`/`bulk-upload`, as the paper's legacy baseline.
    /// `None` if no station uses a power-save mode (nothing to turn off).
    pub fn baseline(&self) -> Option<Baseline> {
        let mut scn = self.clone();
        let mut changes = Vec::new();
        let mut edits = Vec::new();
        for (i, hop) in scn.wireless.iter_mut().enumerate() {
            let name = hop.name.as_ref().map_or(format!("wireless.{i}"), |n| format!("wireless.{n}"));
            let at = vec![Seg::Key("wireless"), Seg::Index(i)];
            if let Some(mode) = power_off(&mut hop.power_save, &at, &mut edits) {
                changes.push(format!("{name} ({mode})"));
            }
        }
        for (i, bss) in scn.wlan.iter_mut().enumerate() {
            let name = bss.name.as_ref().map_or(format!("wlan.{i}"), |n| format!("wlan.{n}"));
            for (j, st) in bss.station_overrides.iter_mut().enumerate() {
                let at = vec![Seg::Key("wlan"), Seg::Index(i), Seg::Key("station"), Seg::Index(j)];
                if let Some(mode) = power_off(&mut st.power_save, &at, &mut edits) {
                    changes.push(format!("{name}.station.{} ({mode})", st.node.get_ref()));
                }
            }
            let at = vec![Seg::Key("wlan"), Seg::Index(i)];
            if let Some(mode) = power_off(&mut bss.power_save, &at, &mut edits) {
                changes.push(format!("{name} ({mode})"));
            }
        }
        // The SCTP tunnel exists to save energy: the baseline carries the flows without it.
        if !scn.tunnels.is_empty() {
            scn.tunnels.clear();
            changes.push("[[tunnel]] (removed)".into());
            edits.push(TableEdit { path: vec![Seg::Key("tunnel")], value: None });
        }
        if changes.is_empty() {
            return None;
        }
        for (i, f) in scn.flows.iter_mut().enumerate() {
            let legacy = match f.kind.as_str() {
                "psna-read" => "bulk-download",
                "psna-send" => "bulk-upload",
                _ => continue,
            };
            let name = f.name.as_ref().map_or(format!("flow.{i}"), |n| format!("flow {n}"));
            changes.push(format!("{name} as legacy TCP ({legacy})"));
            f.kind = legacy.to_string();
            f.psna = None;
            let at = |k| vec![Seg::Key("flow"), Seg::Index(i), Seg::Key(k)];
            edits.push(TableEdit { path: at("kind"), value: Some(legacy) });
            edits.push(TableEdit { path: at("psna"), value: None });
        }
        Some(Baseline { scenario: scn, changes, edits })
    }
}

/// Turns one station's (or hop's, or BSS's) power saving off: mode `cam`, no agent, the other
/// settings kept ([`PowerSaveConfig::without_power_save`]). Returns the mode it had if that was
/// not `cam`; `at` is the section holding the settings, where the same edits are recorded (the
/// `power_save` key as written: a name, or a table with a `mode`; an agent in the table or as
/// the older flat `agent` key).
fn power_off(power_save: &mut PowerSaveConfig, at: &[Seg], edits: &mut Vec<TableEdit>) -> Option<String> {
    let key = |ks: &[&'static str]| at.iter().cloned().chain(ks.iter().map(|k| Seg::Key(k))).collect::<Vec<_>>();
    let mode = power_save.mode_name().unwrap_or("cam").to_string();
    let table_form = power_save.is_table();
    *power_save = power_save.without_power_save();
    edits.push(TableEdit { path: key(&["agent"]), value: None });
    edits.push(TableEdit { path: key(&["power_save", "agent"]), value: None });
    if mode == "cam" {
        return None;
    }
    let path = if table_form { key(&["power_save", "mode"]) } else { key(&["power_save"]) };
    edits.push(TableEdit { path, value: Some("cam") });
    Some(mode)
}
