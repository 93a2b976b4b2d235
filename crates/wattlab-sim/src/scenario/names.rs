//! Names that reports and `--set` use must be unique: links and wireless hops (their channels
//! share the links table), WLANs, and flows. A duplicate is an error at the second one, so
//! `--set link.NAME.rate=...` can never change one of two links silently.

use super::error::ScenarioError;
use super::schema::Scenario;
use std::collections::HashMap;

/// Refuse a name given twice among links and wireless hops, among WLANs, or among flows
/// (default names included: two unnamed links between the same nodes are both `a-b`).
pub fn check(scn: &Scenario, source: &str, origin: &str) -> Result<(), ScenarioError> {
    let mut hops = Names::default();
    for (i, l) in scn.links.iter().enumerate() {
        let name = l.name.clone().unwrap_or_else(|| format!("{}-{}", l.a.get_ref(), l.b.get_ref()));
        hops.add(name, format!("link[{i}]"), l.name.is_some(), source, origin)?;
    }
    for (i, w) in scn.wireless.iter().enumerate() {
        let name = w.name.clone().unwrap_or_else(|| format!("{}-{}", w.ap.get_ref(), w.station.get_ref()));
        hops.add(name, format!("wireless[{i}]"), w.name.is_some(), source, origin)?;
    }
    let mut wlans = Names::default();
    for (i, w) in scn.wlan.iter().enumerate() {
        let name = w.name.clone().unwrap_or_else(|| format!("wlan{i}"));
        wlans.add(name, format!("wlan[{i}]"), w.name.is_some(), source, origin)?;
    }
    let mut flows = Names::default();
    for (i, f) in scn.flows.iter().enumerate() {
        let given = f.name.clone();
        let explicit = given.is_some();
        flows.add(given.unwrap_or_else(|| format!("flow{i}")), format!("flow[{i}]"), explicit, source, origin)?;
    }
    Ok(())
}

/// Names seen so far in one namespace, with the key of the entry that took each.
#[derive(Default)]
struct Names(HashMap<String, String>);

impl Names {
    fn add(&mut self, name: String, key: String, explicit: bool, source: &str, origin: &str) -> Result<(), ScenarioError> {
        if let Some(first) = self.0.get(&name) {
            let at = if explicit { format!("{key}.name") } else { key.clone() };
            let how = if explicit { "" } else { " (its default name)" };
            return Err(ScenarioError::at_key(origin, source, &at, format!(
                "the name `{name}`{how} is already used by {first}: give each a unique `name` (reports and --set tell them apart by it)"
            )));
        }
        self.0.insert(name, key);
        Ok(())
    }
}
