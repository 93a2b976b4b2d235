//! Device profiles: per-state powers and transition costs of one wireless NIC, loaded from TOML.
//!
//! A profile file gives powers in milliwatts and durations in microseconds as floats (that is
//! how papers quote them); they are stored as integer microwatts and nanoseconds so that the
//! meter's accounting is exact. Every profile must say where its numbers come from (`source`)
//! and which of them are derived or assumed (`[derived]`). See `profiles/*.toml` for examples.

use super::state::RadioState;
use crate::time::Duration;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use toml::Spanned;

/// Largest power accepted in a profile, in milliwatts (1 MW): far above any radio, and small
/// enough that ns × µW products never come near overflowing the u128 accumulators.
const MAX_POWER_MW: f64 = 1e9;
/// Largest transition duration accepted, in microseconds (one hour).
const MAX_DURATION_US: f64 = 3.6e9;

/// A state transition of the radio: how long it takes and what it draws meanwhile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transition {
    /// State left (one of `from`/`to` is dormant, the other is `Idle`).
    pub from: RadioState,
    /// State entered.
    pub to: RadioState,
    /// How long the transition takes.
    pub duration: Duration,
    /// Power drawn during the transition, in microwatts.
    pub power_uw: u64,
    /// Where the numbers come from (citation or stated assumption).
    pub source: String,
}

impl Transition {
    /// Energy of one full transition, in femtojoules (ns × µW).
    pub fn energy_fj(&self) -> u128 {
        self.duration.as_nanos() as u128 * self.power_uw as u128
    }
}

/// Channel widths a `[[ppdu_power]]` entry may name, MHz (802.11-2020 HT/VHT/HE widths).
pub const PPDU_WIDTHS_MHZ: [u16; 4] = [20, 40, 80, 160];
/// Most spatial streams a `[[ppdu_power]]` entry may name (VHT and HE allow 8).
pub const MAX_PPDU_NSS: u8 = 8;

/// Transmit and receive power for PPDUs of one channel width and number of spatial streams
/// (a `[[ppdu_power]]` entry): what the radio draws while it sends or receives such a PPDU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PpduPower {
    /// Channel width of the PPDU, MHz.
    pub width_mhz: u16,
    /// Spatial streams of the PPDU.
    pub nss: u8,
    /// Power while transmitting it, µW; `None`: the profile's `tx`.
    pub tx_uw: Option<u64>,
    /// Power while receiving it, µW; `None`: the profile's `rx`.
    pub rx_uw: Option<u64>,
    /// Where the numbers come from (citation or stated assumption).
    pub source: String,
}

/// Power model of one wireless NIC: per-state power, transitions, and their provenance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceProfile {
    name: String,
    description: String,
    source: String,
    phy: Option<String>,
    power_uw: [u64; RadioState::COUNT],
    transitions: Vec<Transition>,
    ppdu: Vec<PpduPower>,
    derived: BTreeMap<String, String>,
}

/// Error loading a profile: where (origin, line, column, key) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProfileError {
    /// The TOML text is malformed or a value is invalid.
    Invalid {
        /// File name or other origin of the text.
        origin: String,
        /// 1-based line, if known.
        line: Option<usize>,
        /// 1-based column (in characters), if known.
        column: Option<usize>,
        /// Dotted key path (e.g. `power_mw.tx`, `transition[1].duration_us`), if known.
        key: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// No built-in profile has this name.
    UnknownProfile {
        /// The name asked for.
        name: String,
        /// The names that exist.
        valid: Vec<String>,
    },
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProfileError::Invalid {
                origin,
                line,
                column,
                key,
                message,
            } => {
                write!(f, "{origin}")?;
                if let Some(l) = line {
                    write!(f, ": line {l}")?;
                    if let Some(c) = column {
                        write!(f, ", column {c}")?;
                    }
                }
                if let Some(k) = key {
                    write!(f, ": key `{k}`")?;
                }
                write!(f, ": {message}")
            }
            ProfileError::UnknownProfile { name, valid } => write!(
                f,
                "unknown device profile `{name}`; valid profiles: {}",
                valid.join(", ")
            ),
        }
    }
}

impl std::error::Error for ProfileError {}

// ---- the file format, as parsed (spans kept so that validation errors can point at lines) ----

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProfile {
    name: String,
    description: String,
    source: String,
    #[serde(default)]
    phy: Option<String>,
    power_mw: RawPowers,
    #[serde(default)]
    transition: Vec<RawTransition>,
    #[serde(default)]
    ppdu_power: Vec<RawPpduPower>,
    #[serde(default)]
    derived: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPpduPower {
    width_mhz: Spanned<i64>,
    nss: Spanned<i64>,
    #[serde(default)]
    tx_mw: Option<Spanned<f64>>,
    #[serde(default)]
    rx_mw: Option<Spanned<f64>>,
    source: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPowers {
    off: Spanned<f64>,
    sleep: Spanned<f64>,
    idle: Spanned<f64>,
    /// The high-throughput awake mode; absent: the same as `idle`.
    #[serde(default)]
    idle_high: Option<Spanned<f64>>,
    rx: Spanned<f64>,
    tx: Spanned<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTransition {
    from: Spanned<String>,
    to: Spanned<String>,
    duration_us: Spanned<f64>,
    power_mw: Spanned<f64>,
    source: String,
}

/// 1-based (line, column) of a byte offset in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    // Step back to a char boundary so slicing cannot panic on odd spans.
    let mut o = offset;
    while !text.is_char_boundary(o) {
        o -= 1;
    }
    let before = &text[..o];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Dotted path of the key whose value sits on `line` (1-based), from the table headers above it.
fn key_path_at(text: &str, line: usize, field_hint: Option<&str>) -> Option<String> {
    let mut table: Option<String> = None;
    let mut array_counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut key_on_line = None;
    for (i, l) in text.lines().enumerate().take(line) {
        let t = l.trim();
        if let Some(inner) = t.strip_prefix("[[").and_then(|r| r.split("]]").next()) {
            let name = inner.trim().to_string();
            let n = array_counts.entry(name.clone()).or_insert(0);
            table = Some(format!("{name}[{n}]"));
            *n += 1;
        } else if let Some(inner) = t.strip_prefix('[').and_then(|r| r.split(']').next()) {
            table = Some(inner.trim().to_string());
        } else if i + 1 == line {
            key_on_line = t
                .split_once('=')
                .map(|(k, _)| k.trim().trim_matches('"').to_string());
        }
    }
    let key = field_hint.map(str::to_string).or(key_on_line);
    match (table, key) {
        (Some(t), Some(k)) => Some(format!("{t}.{k}")),
        (None, Some(k)) => Some(k),
        (Some(t), None) => Some(t),
        (None, None) => None,
    }
}

/// The backticked field name in serde's "unknown field `x`" / "missing field `x`" messages.
fn field_in_message(msg: &str) -> Option<&str> {
    ["unknown field `", "missing field `"]
        .iter()
        .find_map(|p| msg.find(p).map(|i| &msg[i + p.len()..]))
        .and_then(|rest| rest.split('`').next())
}

fn err_at(
    origin: &str,
    text: &str,
    span: Option<Range<usize>>,
    key: Option<String>,
    message: String,
) -> ProfileError {
    let (line, column) = match span {
        Some(s) => {
            let (l, c) = line_col(text, s.start);
            (Some(l), Some(c))
        }
        None => (None, None),
    };
    ProfileError::Invalid {
        origin: origin.to_string(),
        line,
        column,
        key,
        message,
    }
}

/// Checks a float quantity and converts it to an integer in 1/1000 of its unit.
fn milli_units(
    v: &Spanned<f64>,
    max: f64,
    what: &str,
    key: &str,
    origin: &str,
    text: &str,
) -> Result<u64, ProfileError> {
    let x = *v.get_ref();
    let bad = |m: String| {
        Err(err_at(
            origin,
            text,
            Some(v.span()),
            Some(key.to_string()),
            m,
        ))
    };
    if !x.is_finite() {
        return bad(format!("{what} must be a finite number, got {x}"));
    }
    if x < 0.0 {
        return bad(format!("{what} must not be negative, got {x}"));
    }
    if x > max {
        return bad(format!("{what} {x} is implausibly large (limit {max})"));
    }
    Ok((x * 1000.0).round() as u64)
}

impl DeviceProfile {
    /// Parses and validates a profile from TOML text; `origin` (e.g. a file name) prefixes errors.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<DeviceProfile, ProfileError> {
        let raw: RawProfile = toml::from_str(text).map_err(|e| {
            let span = e.span();
            let msg = e.message().trim().to_string();
            let key = span
                .clone()
                .and_then(|s| key_path_at(text, line_col(text, s.start).0, field_in_message(&msg)));
            err_at(origin, text, span, key, msg)
        })?;
        let whole = Some(0..0);
        if raw.name.trim().is_empty() {
            return Err(err_at(
                origin,
                text,
                whole,
                Some("name".into()),
                "name must not be empty".into(),
            ));
        }
        if raw.source.trim().is_empty() {
            return Err(err_at(
                origin,
                text,
                whole,
                Some("source".into()),
                "source must cite where the numbers come from".into(),
            ));
        }

        let mut raw = raw;
        let p = &raw.power_mw;
        let mut power_uw = [0u64; RadioState::COUNT];
        for (st, v) in [
            (RadioState::Off, &p.off),
            (RadioState::Sleep, &p.sleep),
            (RadioState::Idle, &p.idle),
            (RadioState::Rx, &p.rx),
            (RadioState::Tx, &p.tx),
        ] {
            let key = format!("power_mw.{}", st.as_str());
            power_uw[st.index()] = milli_units(v, MAX_POWER_MW, "power (mW)", &key, origin, text)?;
        }
        match &p.idle_high {
            Some(v) => {
                let high = milli_units(v, MAX_POWER_MW, "power (mW)", "power_mw.idle_high", origin, text)?;
                power_uw[RadioState::IdleHigh.index()] = high;
            }
            None => {
                power_uw[RadioState::IdleHigh.index()] = power_uw[RadioState::Idle.index()];
                raw.derived.entry("power_mw.idle_high".into()).or_insert_with(|| {
                    "= idle: the profile gives no separate high-throughput awake power".into()
                });
            }
        }

        let mut transitions: Vec<Transition> = Vec::with_capacity(raw.transition.len());
        for (i, t) in raw.transition.iter().enumerate() {
            let k = |f: &str| format!("transition[{i}].{f}");
            let state = |s: &Spanned<String>, f: &str| -> Result<RadioState, ProfileError> {
                s.get_ref()
                    .parse::<RadioState>()
                    .map_err(|e| err_at(origin, text, Some(s.span()), Some(k(f)), e.to_string()))
            };
            let from = state(&t.from, "from")?;
            let to = state(&t.to, "to")?;
            // Only dormant <-> Idle transitions mean anything to the meter: awake states switch
            // for free, and a dormant state is always left through Idle (see the meter docs).
            let ok = (from.is_dormant() && to == RadioState::Idle)
                || (from == RadioState::Idle && to.is_dormant());
            if !ok {
                return Err(err_at(
                    origin,
                    text,
                    Some(t.from.span()),
                    Some(k("from")),
                    format!(
                        "transition {from} -> {to} not supported: transitions must go between a \
                         dormant state (off, sleep) and idle"
                    ),
                ));
            }
            if transitions.iter().any(|x| x.from == from && x.to == to) {
                return Err(err_at(
                    origin,
                    text,
                    Some(t.from.span()),
                    Some(k("from")),
                    format!("transition {from} -> {to} defined twice"),
                ));
            }
            let duration_ns = milli_units(
                &t.duration_us,
                MAX_DURATION_US,
                "duration (us)",
                &k("duration_us"),
                origin,
                text,
            )?;
            let power = milli_units(
                &t.power_mw,
                MAX_POWER_MW,
                "power (mW)",
                &k("power_mw"),
                origin,
                text,
            )?;
            transitions.push(Transition {
                from,
                to,
                duration: Duration::from_nanos(duration_ns),
                power_uw: power,
                source: t.source.clone(),
            });
        }

        let ppdu = ppdu_powers(&raw.ppdu_power, origin, text)?;
        Ok(DeviceProfile {
            name: raw.name,
            description: raw.description,
            source: raw.source,
            phy: raw.phy,
            power_uw,
            transitions,
            ppdu,
            derived: raw.derived,
        })
    }

    /// Short identifier, e.g. `atheros-ar5004`.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// One-line human description of the card.
    pub fn description(&self) -> &str {
        &self.description
    }
    /// Citation: paper, table or datasheet the numbers come from.
    pub fn source(&self) -> &str {
        &self.source
    }
    /// PHY the card was measured with (free text), if the source says.
    pub fn phy(&self) -> Option<&str> {
        self.phy.as_deref()
    }
    /// Power drawn in `state`, in microwatts.
    pub fn power_uw(&self, state: RadioState) -> u64 {
        self.power_uw[state.index()]
    }
    /// Power drawn in `state`, in milliwatts (for display).
    pub fn power_mw(&self, state: RadioState) -> f64 {
        self.power_uw(state) as f64 / 1000.0
    }
    /// All transitions the profile defines.
    pub fn transitions(&self) -> &[Transition] {
        &self.transitions
    }
    /// The transition `from` -> `to`, if defined.
    pub fn transition(&self, from: RadioState, to: RadioState) -> Option<&Transition> {
        self.transitions
            .iter()
            .find(|t| t.from == from && t.to == to)
    }
    /// Notes on derived or assumed values, keyed by the value they explain.
    pub fn derived(&self) -> &BTreeMap<String, String> {
        &self.derived
    }
    /// The per-(width, spatial streams) PPDU powers (`[[ppdu_power]]`), in file order.
    pub fn ppdu_powers(&self) -> &[PpduPower] {
        &self.ppdu
    }

    /// Power drawn in `state` while sending or receiving a PPDU `width_mhz` wide with `nss`
    /// spatial streams, µW: the `[[ppdu_power]]` entry for exactly that width and NSS when the
    /// profile has one that gives this direction, else the profile's single power for `state`
    /// (always so for states other than `tx` and `rx`).
    pub fn ppdu_power_uw(&self, state: RadioState, width_mhz: u16, nss: u8) -> u64 {
        let given = self.ppdu.iter().find(|p| p.width_mhz == width_mhz && p.nss == nss).and_then(|p| match state {
            RadioState::Tx => p.tx_uw,
            RadioState::Rx => p.rx_uw,
            _ => None,
        });
        given.unwrap_or(self.power_uw[state.index()])
    }

    /// A profile with the given per-state powers (µW, indexed by [`RadioState::index`]) and no
    /// transition costs, for formats that have neither (EnergyBox's Wi-Fi files).
    pub fn from_powers(
        name: &str,
        description: &str,
        source: &str,
        power_uw: [u64; RadioState::COUNT],
        derived: BTreeMap<String, String>,
    ) -> DeviceProfile {
        DeviceProfile {
            name: name.to_string(),
            description: description.to_string(),
            source: source.to_string(),
            phy: None,
            power_uw,
            transitions: Vec::new(),
            ppdu: Vec::new(),
            derived,
        }
    }

    /// The same profile with the transition `from` → `to` taking `duration` at `power_uw`
    /// (replacing the profile's own, if it has one): a scenario's override, e.g. a cost per
    /// off → on cycle the profile's source does not give. Errors as the profile file's: the
    /// transition must go between a dormant state and idle, within the same bounds.
    pub fn with_transition(&self, from: RadioState, to: RadioState, duration: Duration, power_uw: u64, source: &str) -> Result<DeviceProfile, String> {
        if !((from.is_dormant() && to == RadioState::Idle) || (from == RadioState::Idle && to.is_dormant())) {
            return Err(format!("transition {from} -> {to} not supported: transitions must go between a dormant state (off, sleep) and idle"));
        }
        if duration.as_nanos() as f64 > MAX_DURATION_US * 1e3 {
            return Err(format!("duration {duration} is longer than the largest a profile accepts (one hour)"));
        }
        if power_uw as f64 > MAX_POWER_MW * 1e3 {
            return Err(format!("power {power_uw} µW is above the largest a profile accepts (1 MW)"));
        }
        let mut p = self.clone();
        p.transitions.retain(|t| !(t.from == from && t.to == to));
        p.transitions.push(Transition { from, to, duration, power_uw, source: source.to_string() });
        Ok(p)
    }

    /// The same profile with instantaneous, free wake-ups from sleep (seed 000's idealised
    /// PSM, which it credits with no early wake-up cost).
    pub fn without_wakeup_cost(&self) -> DeviceProfile {
        let mut p = self.clone();
        p.transitions.retain(|t| !(t.from == RadioState::Sleep && t.to == RadioState::Idle));
        p
    }
}

/// The `[[ppdu_power]]` entries, checked: a width of [`PPDU_WIDTHS_MHZ`], 1 to
/// [`MAX_PPDU_NSS`] streams, at least one of `tx_mw`/`rx_mw`, a source, no (width, NSS) twice.
fn ppdu_powers(raw: &[RawPpduPower], origin: &str, text: &str) -> Result<Vec<PpduPower>, ProfileError> {
    let mut out: Vec<PpduPower> = Vec::with_capacity(raw.len());
    for (i, e) in raw.iter().enumerate() {
        let k = |f: &str| format!("ppdu_power[{i}].{f}");
        let bad = |span: Range<usize>, f: &str, m: String| Err(err_at(origin, text, Some(span), Some(k(f)), m));
        let width = *e.width_mhz.get_ref();
        let Some(&width_mhz) = PPDU_WIDTHS_MHZ.iter().find(|&&w| i64::from(w) == width) else {
            return bad(e.width_mhz.span(), "width_mhz", format!("channel width {width} MHz: must be one of 20, 40, 80, 160"));
        };
        let nss = *e.nss.get_ref();
        if !(1..=i64::from(MAX_PPDU_NSS)).contains(&nss) {
            return bad(e.nss.span(), "nss", format!("{nss} spatial streams: must be 1 to {MAX_PPDU_NSS}"));
        }
        let nss = nss as u8;
        if e.tx_mw.is_none() && e.rx_mw.is_none() {
            return bad(e.width_mhz.span(), "tx_mw", "an entry needs tx_mw, rx_mw or both".into());
        }
        if e.source.get_ref().trim().is_empty() {
            return bad(e.source.span(), "source", "source must cite where the numbers come from".into());
        }
        if out.iter().any(|p| p.width_mhz == width_mhz && p.nss == nss) {
            return bad(e.width_mhz.span(), "width_mhz", format!("{width_mhz} MHz with {nss} spatial streams given twice"));
        }
        let power = |v: &Option<Spanned<f64>>, f: &str| -> Result<Option<u64>, ProfileError> {
            v.as_ref().map(|v| milli_units(v, MAX_POWER_MW, "power (mW)", &k(f), origin, text)).transpose()
        };
        out.push(PpduPower {
            width_mhz,
            nss,
            tx_uw: power(&e.tx_mw, "tx_mw")?,
            rx_uw: power(&e.rx_mw, "rx_mw")?,
            source: e.source.get_ref().clone(),
        });
    }
    Ok(out)
}

/// The built-in profiles: (name, TOML text). Names equal the file stems in `profiles/`.
const BUILTIN: &[(&str, &str)] = &[
    (
        "wavelan-dsss",
        include_str!("../../../../profiles/wavelan-dsss.toml"),
    ),
    (
        "atheros-ar5004",
        include_str!("../../../../profiles/atheros-ar5004.toml"),
    ),
    (
        "wavelan-turbo-2mbps",
        include_str!("../../../../profiles/wavelan-turbo-2mbps.toml"),
    ),
    ("orinoco", include_str!("../../../../profiles/orinoco.toml")),
    (
        "aironet-340",
        include_str!("../../../../profiles/aironet-340.toml"),
    ),
    (
        "aironet-4800",
        include_str!("../../../../profiles/aironet-4800.toml"),
    ),
    (
        "aironet-350",
        include_str!("../../../../profiles/aironet-350.toml"),
    ),
    (
        "intel-w2011",
        include_str!("../../../../profiles/intel-w2011.toml"),
    ),
    (
        "dlink-dwl650",
        include_str!("../../../../profiles/dlink-dwl650.toml"),
    ),
    (
        "compaq-wl110",
        include_str!("../../../../profiles/compaq-wl110.toml"),
    ),
    (
        "samsung-galaxy-s2",
        include_str!("../../../../profiles/samsung-galaxy-s2.toml"),
    ),
    ("nexus-one", include_str!("../../../../profiles/nexus-one.toml")),
    ("htc-magic", include_str!("../../../../profiles/htc-magic.toml")),
    (
        "intel-5300-1x1",
        include_str!("../../../../profiles/intel-5300-1x1.toml"),
    ),
];

fn parse_builtin(name: &str, text: &str) -> Result<DeviceProfile, ProfileError> {
    DeviceProfile::from_toml_str(text, &format!("profiles/{name}.toml (built-in)"))
}

/// Names of the built-in profiles, in a stable order.
pub fn builtin_profile_names() -> Vec<&'static str> {
    BUILTIN.iter().map(|(n, _)| *n).collect()
}

/// All built-in profiles, parsed. (They are checked by tests, so none is ever skipped.)
pub fn builtin_profiles() -> Vec<DeviceProfile> {
    BUILTIN
        .iter()
        .filter_map(|(n, t)| parse_builtin(n, t).ok())
        .collect()
}

/// The built-in profile called `name`, if any.
pub fn builtin_profile(name: &str) -> Option<DeviceProfile> {
    find_builtin_profile(name).ok()
}

/// The built-in profile called `name`, or an error listing the valid names.
pub fn find_builtin_profile(name: &str) -> Result<DeviceProfile, ProfileError> {
    match BUILTIN.iter().find(|(n, _)| *n == name) {
        Some((n, t)) => parse_builtin(n, t),
        None => Err(ProfileError::UnknownProfile {
            name: name.to_string(),
            valid: BUILTIN.iter().map(|(n, _)| n.to_string()).collect(),
        }),
    }
}

/// True if `spec` names a profile file rather than a built-in profile: it ends in `.toml` or
/// contains a path separator (built-in names have neither).
pub fn is_profile_path(spec: &str) -> bool {
    spec.ends_with(".toml") || spec.contains('/') || spec.contains(std::path::MAIN_SEPARATOR)
}

/// Where the profile `spec` is read from: `spec` itself if absolute, else `spec` under
/// `base_dir` (a scenario's directory) when given, else as given (the current directory).
pub fn profile_path(spec: &str, base_dir: Option<&std::path::Path>) -> std::path::PathBuf {
    let p = std::path::Path::new(spec);
    match base_dir {
        Some(d) if p.is_relative() => d.join(p),
        _ => p.to_path_buf(),
    }
}

/// The profile `spec` names: a built-in profile's name, or the path of a profile TOML file
/// ([`is_profile_path`]; relative paths under `base_dir`, see [`profile_path`]). A file that
/// cannot be read or is invalid is an error naming the file (and line and key).
pub fn resolve_profile(spec: &str, base_dir: Option<&std::path::Path>) -> Result<DeviceProfile, ProfileError> {
    if !is_profile_path(spec) {
        return find_builtin_profile(spec);
    }
    let path = profile_path(spec, base_dir);
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(&path).map_err(|e| ProfileError::Invalid {
        origin: origin.clone(),
        line: None,
        column: None,
        key: None,
        message: format!("cannot read profile: {e}"),
    })?;
    DeviceProfile::from_toml_str(&text, &origin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use RadioState::*;

    #[test]
    fn a_transition_override_replaces_or_adds_and_is_checked() {
        let p = builtin_profile("aironet-340").unwrap();
        let before = p.transitions().len();
        let q = p.with_transition(Sleep, Idle, Duration::from_millis(2), 500_000, "test").unwrap();
        assert_eq!(q.transitions().len(), before, "replaces the profile's sleep -> idle");
        assert_eq!(q.transition(Sleep, Idle).unwrap().energy_fj(), 2_000_000 * 500_000);
        let r = q.with_transition(Off, Idle, Duration::from_millis(565), 1_770_000, "test").unwrap();
        assert_eq!(r.transitions().len(), before + 1, "adds off -> idle");
        assert!(p.with_transition(Rx, Idle, Duration::from_millis(1), 1, "t").unwrap_err().contains("not supported"));
        assert!(p.with_transition(Off, Idle, Duration::from_secs(3601), 1, "t").unwrap_err().contains("one hour"));
        assert!(p.with_transition(Off, Idle, Duration::from_millis(1), 2_000_000_000_000, "t").unwrap_err().contains("1 MW"));
    }

    #[test]
    fn every_builtin_parses_and_cites_a_source() {
        assert_eq!(builtin_profiles().len(), BUILTIN.len());
        for (stem, text) in BUILTIN {
            let p = parse_builtin(stem, text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(p.name(), *stem, "profile name must equal its file stem");
            assert!(!p.source().trim().is_empty(), "{stem}: empty source");
            assert!(
                !p.description().trim().is_empty(),
                "{stem}: empty description"
            );
            assert!(
                !p.derived().is_empty(),
                "{stem}: says nothing about derived values"
            );
            for t in p.transitions() {
                assert!(
                    !t.source.trim().is_empty(),
                    "{stem}: transition without source"
                );
            }
            // Every source used here orders tx >= rx >= idle >= sleep >= off (seed 001's card
            // included: its derived tx/rx are idle plus a positive increment).
            let w = |s| p.power_uw(s);
            assert!(
                w(Tx) >= w(Rx) && w(Rx) >= w(Idle),
                "{stem}: tx >= rx >= idle violated"
            );
            assert!(
                w(Idle) >= w(Sleep) && w(Sleep) >= w(Off),
                "{stem}: idle >= sleep >= off violated"
            );
        }
    }

    #[test]
    fn builtin_values_match_the_papers() {
        let p = builtin_profile("wavelan-dsss").unwrap();
        assert_eq!(
            [
                p.power_uw(Idle),
                p.power_uw(Rx),
                p.power_uw(Tx),
                p.power_uw(Sleep)
            ],
            [1_319_000, 1_425_000, 1_675_000, 177_000]
        );
        let up = p.transition(Sleep, Idle).unwrap();
        assert_eq!(
            (up.duration, up.power_uw),
            (Duration::from_millis(2), 1_319_000)
        );

        let a = builtin_profile("atheros-ar5004").unwrap();
        assert_eq!(
            [
                a.power_uw(Tx),
                a.power_uw(Rx),
                a.power_uw(Idle),
                a.power_uw(Sleep)
            ],
            [1_400_000, 900_000, 800_000, 16_000]
        );
        let down = a.transition(Idle, Sleep).unwrap();
        assert_eq!(
            (down.duration, down.power_uw),
            (Duration::from_micros(1), 800_000)
        );
        let up = a.transition(Sleep, Idle).unwrap();
        assert_eq!(
            (up.duration, up.power_uw),
            (Duration::from_millis(1), 1_400_000)
        );

        // Seed 003 Table 1: (tx, rx, sleep) mW, idle = 0.82 rx.
        for (n, tx, rx, sl) in [
            ("orinoco", 1425, 925, 45),
            ("aironet-340", 1750, 1250, 50),
            ("aironet-4800", 2450, 1400, 25),
            ("aironet-350", 2250, 1350, 85),
            ("intel-w2011", 1750, 850, 50),
            ("dlink-dwl650", 1425, 925, 45),
            ("compaq-wl110", 1425, 925, 45),
        ] {
            let p = builtin_profile(n).unwrap();
            assert_eq!(p.power_uw(Tx), tx * 1000, "{n}");
            assert_eq!(p.power_uw(Rx), rx * 1000, "{n}");
            assert_eq!(p.power_uw(Sleep), sl * 1000, "{n}");
            assert_eq!(p.power_uw(Idle), rx * 820, "{n}: idle = 0.82 rx");
            assert!(
                p.derived().contains_key("power_mw.idle"),
                "{n}: idle must be marked derived"
            );
        }
        let t = builtin_profile("wavelan-turbo-2mbps").unwrap();
        assert_eq!(t.power_uw(Off), 0);
        assert!(t.transitions().is_empty());

        // The phone and 802.11n profiles: (sleep, idle, idle_high, rx, tx) mW as their sources
        // give them (EnergyBox's S2 file, PowerTutor's Nexus One and HTC Magic constants,
        // Halperin 2010 via ns-3).
        for (n, pw) in [
            ("samsung-galaxy-s2", [30.0, 250.0, 450.0, 450.0, 450.0]),
            ("nexus-one", [34.37, 404.46, 404.46, 404.46, 404.46]),
            ("htc-magic", [38.554, 733.7631, 733.7631, 733.7631, 733.7631]),
            ("intel-5300-1x1", [100.0, 820.0, 820.0, 940.0, 1140.0]),
        ] {
            let p = builtin_profile(n).unwrap();
            let got = [Sleep, Idle, IdleHigh, Rx, Tx].map(|s| p.power_uw(s));
            assert_eq!(got, pw.map(|mw: f64| (mw * 1000.0).round() as u64), "{n}");
            assert!(p.transitions().is_empty() && p.ppdu_powers().is_empty(), "{n}: the sources give neither");
            for k in ["power_mw.off", "transition", "ppdu_power"] {
                assert!(p.derived().contains_key(k), "{n}: says nothing about {k}");
            }
        }
    }

    const PPDU: &str = r#"
[[ppdu_power]]
width_mhz = 40
nss = 2
tx_mw = 500.0
rx_mw = 250.0
source = "made up"

[[ppdu_power]]
width_mhz = 80
nss = 1
rx_mw = 220.5
source = "made up"
"#;

    #[test]
    fn ppdu_powers_parse_and_fall_back_to_the_single_powers() {
        let p = DeviceProfile::from_toml_str(&format!("{GOOD}{PPDU}"), "ppdu.toml").unwrap();
        assert_eq!(p.ppdu_powers().len(), 2);
        assert_eq!(p.ppdu_power_uw(Tx, 40, 2), 500_000);
        assert_eq!(p.ppdu_power_uw(Rx, 40, 2), 250_000);
        assert_eq!(p.ppdu_power_uw(Rx, 80, 1), 220_500);
        // No tx_mw at 80 MHz / 1 SS, no entry at all at 20 MHz / 1 SS: the single powers.
        assert_eq!(p.ppdu_power_uw(Tx, 80, 1), 300_000);
        assert_eq!((p.ppdu_power_uw(Tx, 20, 1), p.ppdu_power_uw(Rx, 20, 1)), (300_000, 200_000));
        // Other states never take a PPDU power.
        assert_eq!(p.ppdu_power_uw(Idle, 40, 2), 100_000);
    }

    #[test]
    fn bad_ppdu_powers_are_reported_with_line_and_key() {
        let text = format!("{GOOD}{PPDU}");
        let e = err(&text.replace("width_mhz = 40", "width_mhz = 30"));
        assert!(e.contains("line 20") && e.contains("ppdu_power[0].width_mhz") && e.contains("20, 40, 80, 160"), "{e}");
        let e = err(&text.replace("nss = 1\n", "nss = 9\n"));
        assert!(e.contains("line 28") && e.contains("ppdu_power[1].nss") && e.contains("1 to 8"), "{e}");
        let e = err(&text.replace("rx_mw = 220.5", "rx_mw = -1"));
        assert!(e.contains("line 29") && e.contains("ppdu_power[1].rx_mw") && e.contains("negative"), "{e}");
        let e = err(&text.replace("tx_mw = 500.0\nrx_mw = 250.0\n", ""));
        assert!(e.contains("ppdu_power[0].tx_mw") && e.contains("tx_mw, rx_mw or both"), "{e}");
        let e = err(&text.replace("width_mhz = 80", "width_mhz = 40").replace("nss = 1\n", "nss = 2\n"));
        assert!(e.contains("line 27") && e.contains("given twice"), "{e}");
        let e = err(&text.replace("nss = 2", "nss = 2\ncolour = 1"));
        assert!(e.contains("line 22") && e.contains("ppdu_power[0].colour"), "{e}");
        let e = err(&text.replace("rx_mw = 250.0\nsource = \"made up\"", "rx_mw = 250.0\nsource = \" \""));
        assert!(e.contains("line 24") && e.contains("ppdu_power[0].source"), "{e}");
    }

    #[test]
    fn profiles_resolve_by_name_or_by_path() {
        let dir = std::env::temp_dir().join(format!("wattlab-profile-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("sub/mine.toml"), GOOD).unwrap();
        assert!(is_profile_path("mine.toml") && is_profile_path("sub/mine") && !is_profile_path("orinoco"));
        assert_eq!(resolve_profile("orinoco", Some(&dir)).unwrap(), builtin_profile("orinoco").unwrap());
        let p = resolve_profile("sub/mine.toml", Some(&dir)).unwrap();
        assert_eq!((p.name(), p.power_uw(Sleep)), ("t", 10_500));
        let abs = dir.join("sub/mine.toml");
        assert_eq!(resolve_profile(abs.to_str().unwrap(), None).unwrap(), p);
        let e = resolve_profile("missing.toml", Some(&dir)).unwrap_err().to_string();
        assert!(e.contains("missing.toml") && e.contains("cannot read profile"), "{e}");
        std::fs::write(dir.join("bad.toml"), GOOD.replace("tx = 300.0", "tx = -3")).unwrap();
        let e = resolve_profile("bad.toml", Some(&dir)).unwrap_err().to_string();
        assert!(e.contains("bad.toml: line 10") && e.contains("power_mw.tx"), "{e}");
        assert!(resolve_profile("nope", Some(&dir)).unwrap_err().to_string().contains("unknown device profile"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn unknown_builtin_lists_valid_names() {
        let e = find_builtin_profile("wavelan").unwrap_err().to_string();
        assert!(
            e.contains("`wavelan`") && e.contains("atheros-ar5004") && e.contains("orinoco"),
            "{e}"
        );
        assert!(builtin_profile("nope").is_none());
        assert_eq!(builtin_profile_names().len(), BUILTIN.len());
    }

    const GOOD: &str = r#"name = "t"
description = "test card"
source = "made up"

[power_mw]
off = 0
sleep = 10.5
idle = 100.0
rx = 200.0
tx = 300.0

[[transition]]
from = "sleep"
to = "idle"
duration_us = 2.5
power_mw = 100.0
source = "made up"
"#;

    #[test]
    fn good_profile_converts_units_exactly() {
        let p = DeviceProfile::from_toml_str(GOOD, "good.toml").unwrap();
        assert_eq!(p.power_uw(Sleep), 10_500);
        assert_eq!(p.power_uw(Off), 0);
        let t = p.transition(Sleep, Idle).unwrap();
        assert_eq!(t.duration, Duration::from_nanos(2500));
        assert_eq!(t.energy_fj(), 2500 * 100_000);
        assert!(p.phy().is_none() && p.derived().keys().eq(["power_mw.idle_high"]));
        assert_eq!(p.power_uw(RadioState::IdleHigh), p.power_uw(RadioState::Idle));
    }

    fn err(text: &str) -> String {
        DeviceProfile::from_toml_str(text, "bad.toml")
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn unknown_key_is_reported_with_line_and_key() {
        let e = err(&GOOD.replace("rx = 200.0", "rx = 200.0\nrxx = 1.0"));
        assert!(e.starts_with("bad.toml: line 10"), "{e}");
        assert!(
            e.contains("power_mw.rxx") && e.contains("unknown field"),
            "{e}"
        );
        let e = err(&GOOD.replace(
            "source = \"made up\"\n\n",
            "source = \"made up\"\ncolour = 1\n\n",
        ));
        assert!(e.contains("line 4") && e.contains("`colour`"), "{e}");
    }

    #[test]
    fn negative_or_non_finite_values_are_rejected() {
        let e = err(&GOOD.replace("tx = 300.0", "tx = -300.0"));
        assert!(
            e.contains("line 10") && e.contains("power_mw.tx") && e.contains("negative"),
            "{e}"
        );
        let e = err(&GOOD.replace("duration_us = 2.5", "duration_us = -1"));
        assert!(
            e.contains("line 15") && e.contains("transition[0].duration_us"),
            "{e}"
        );
        let e = err(&GOOD.replace("idle = 100.0", "idle = nan"));
        assert!(
            e.contains("line 8") && e.contains("power_mw.idle") && e.contains("finite"),
            "{e}"
        );
        let e = err(&GOOD.replace("rx = 200.0", "rx = inf"));
        assert!(e.contains("line 9") && e.contains("finite"), "{e}");
    }

    #[test]
    fn wrong_type_is_reported_with_line_and_key() {
        let e = err(&GOOD.replace("sleep = 10.5", "sleep = \"low\""));
        assert!(e.contains("line 7") && e.contains("power_mw.sleep"), "{e}");
        let e = err(&GOOD.replace("to = \"idle\"", "to = \"awake\""));
        assert!(
            e.contains("line 14") && e.contains("transition[0].to") && e.contains("awake"),
            "{e}"
        );
    }

    #[test]
    fn bad_transitions_and_missing_fields_are_rejected() {
        let e = err(&GOOD.replace("from = \"sleep\"", "from = \"rx\""));
        assert!(e.contains("line 13") && e.contains("not supported"), "{e}");
        let dup = format!("{GOOD}\n{}", &GOOD[GOOD.find("[[transition]]").unwrap()..]);
        assert!(err(&dup).contains("defined twice"));
        let e = err(&GOOD.replace("tx = 300.0\n", ""));
        assert!(e.contains("missing field") && e.contains("tx"), "{e}");
        let e = err(&GOOD.replace("source = \"made up\"\n\n[power", "source = \" \"\n\n[power"));
        assert!(e.contains("key `source`"), "{e}");
        assert!(err("this is not toml").starts_with("bad.toml"));
    }
}
