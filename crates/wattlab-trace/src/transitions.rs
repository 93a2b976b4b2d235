//! Radio transitions recorded elsewhere (an agent, a simulator run, a live testbed), for the
//! `replay` policy: a CSV with a header and one row per state change.
//!
//! Columns: the time, `time_s` (seconds, decimal) or `time_ns` (integer nanoseconds), on the
//! capture's clock (Unix epoch, as pcap timestamps are); and `state`: any radio state name
//! (`off`, `sleep`, `idle`, `idle_high`, `rx`, `tx`) or `awake`/`doze`. Only dormant vs awake
//! matters (and `idle_high`): the activity comes from the capture. Optional `policy` and
//! `node` columns select rows when a file holds several timelines, as the simulator's
//! `timeseries_radio.csv` does; other columns are ignored. Rows must be in time order.

use std::path::Path;

use wattlab_core::energy::RadioState;
use wattlab_core::Time;

/// Distinct values of an unselected `policy` or `node` column named in an error.
const NAMED_VALUES: usize = 5;

/// Which rows of a transitions file to use.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowFilter {
    /// Keep rows whose `policy` column equals this.
    pub policy: Option<String>,
    /// Keep rows whose `node` column equals this.
    pub node: Option<String>,
}

/// Reads `path` into sorted `(instant, state)` changes.
pub fn load_transitions(path: &Path, filter: &RowFilter) -> Result<Vec<(Time, RadioState)>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: cannot read transitions: {e}", path.display()))?;
    read_transitions(file, &path.display().to_string(), filter)
}

/// Reads transitions CSV text from `input`; `origin` names it in errors.
pub fn read_transitions(
    input: impl std::io::Read,
    origin: &str,
    filter: &RowFilter,
) -> Result<Vec<(Time, RadioState)>, String> {
    let mut rdr = csv::ReaderBuilder::new().trim(csv::Trim::All).from_reader(input);
    let headers = rdr
        .headers()
        .map_err(|e| format!("{origin}: line 1: cannot read the CSV header: {e}"))?
        .clone();
    let col = |name: &str| headers.iter().position(|h| h == name);
    let (time_col, nanos) = match (col("time_ns"), col("time_s")) {
        (Some(i), _) => (i, true),
        (None, Some(i)) => (i, false),
        (None, None) => {
            return Err(format!(
                "{origin}: line 1: no time column: expected `time_s` or `time_ns` (columns: {})",
                headers.iter().collect::<Vec<_>>().join(", ")
            ))
        }
    };
    let state_col = col("state").ok_or_else(|| {
        format!("{origin}: line 1: no `state` column (columns: {})", headers.iter().collect::<Vec<_>>().join(", "))
    })?;
    let selectors = [("policy", &filter.policy), ("node", &filter.node)];
    let mut select = Vec::new();
    for (name, want) in selectors {
        match (col(name), want) {
            (Some(i), Some(w)) => select.push((i, w.clone(), name)),
            (None, Some(w)) => {
                return Err(format!("{origin}: line 1: cannot select {name} `{w}`: the file has no `{name}` column"))
            }
            _ => {}
        }
    }
    let mut out: Vec<(Time, RadioState)> = Vec::new();
    // Distinct values of unselected `policy`/`node` columns: more than one is ambiguous. Only
    // the first few are kept (to name them), so a file of a million distinct values is read in
    // linear time.
    let mut seen: Vec<(&str, usize, Vec<String>)> = selectors
        .iter()
        .filter(|(n, w)| w.is_none() && col(n).is_some())
        .map(|(n, _)| (*n, col(n).unwrap(), Vec::new()))
        .collect();
    for (k, rec) in rdr.records().enumerate() {
        let line = k + 2;
        let rec = rec.map_err(|e| format!("{origin}: line {line}: {e}"))?;
        if select.iter().any(|(i, w, _)| rec.get(*i) != Some(w.as_str())) {
            continue;
        }
        for (_, i, vals) in &mut seen {
            let v = rec.get(*i).unwrap_or("");
            if vals.len() <= NAMED_VALUES && !vals.iter().any(|x| x == v) {
                vals.push(v.to_string());
            }
        }
        let field = |i: usize, name: &str| {
            rec.get(i).ok_or_else(|| format!("{origin}: line {line}: field `{name}` is missing"))
        };
        let t_text = field(time_col, if nanos { "time_ns" } else { "time_s" })?;
        let t = if nanos {
            t_text.parse::<u64>().map(Time).map_err(|_| ())
        } else {
            t_text
                .parse::<f64>()
                .map_err(|_| ())
                .and_then(|x| if (0.0..1.8e10).contains(&x) { Ok(Time((x * 1e9).round() as u64)) } else { Err(()) })
        }
        .map_err(|_| {
            format!(
                "{origin}: line {line}: field `{}`: `{t_text}` is not a time ({})",
                if nanos { "time_ns" } else { "time_s" },
                if nanos { "integer nanoseconds" } else { "seconds ≥ 0" }
            )
        })?;
        let s_text = field(state_col, "state")?;
        let state = match s_text {
            "awake" | "wake" | "cam" => RadioState::Idle,
            "doze" | "asleep" | "psm" => RadioState::Sleep,
            other => other.parse::<RadioState>().map_err(|e| format!("{origin}: line {line}: field `state`: {e} (or awake, doze)"))?,
        };
        if let Some(&(prev, _)) = out.last() {
            if t < prev {
                return Err(format!("{origin}: line {line}: field `time`: rows go back in time ({t} after {prev})"));
            }
        }
        out.push((t, state));
    }
    for (name, _, vals) in &seen {
        if vals.len() > 1 {
            let more = if vals.len() > NAMED_VALUES { ", ..." } else { "" };
            return Err(format!(
                "{origin}: the `{name}` column holds several timelines ({}{more}); choose one with replay:{name}=NAME",
                vals[..vals.len().min(NAMED_VALUES)].join(", ")
            ));
        }
    }
    if out.is_empty() {
        return Err(format!("{origin}: no transitions{}", if select.is_empty() { "" } else { " match the selection" }));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, f: &RowFilter) -> Result<Vec<(Time, RadioState)>, String> {
        read_transitions(text.as_bytes(), "t.csv", f)
    }

    #[test]
    fn reads_seconds_nanoseconds_and_selects_rows() {
        let v = read("time_s,state\n0.5,sleep\n1.25,awake\n", &RowFilter::default()).unwrap();
        assert_eq!(v, vec![(Time(500_000_000), RadioState::Sleep), (Time(1_250_000_000), RadioState::Idle)]);
        let v = read("time_ns,state,extra\n7,doze,x\n", &RowFilter::default()).unwrap();
        assert_eq!(v, vec![(Time(7), RadioState::Sleep)]);
        let sim = "node,policy,time_s,state\nclient,always-on,0,idle\nclient,cc,0.1,sleep\nclient,cc,0.2,rx\n";
        let f = RowFilter { policy: Some("cc".into()), node: None };
        assert_eq!(read(sim, &f).unwrap().len(), 2);
        let e = read(sim, &RowFilter::default()).unwrap_err();
        assert!(e.contains("several timelines") && e.contains("always-on, cc"), "{e}");
    }

    #[test]
    fn errors_name_the_line_and_field() {
        let f = RowFilter::default();
        let e = read("t,state\n", &f).unwrap_err();
        assert!(e.contains("line 1") && e.contains("time_s"), "{e}");
        let e = read("time_s,state\n0.1,sleep\nsoon,idle\n", &f).unwrap_err();
        assert!(e.contains("line 3") && e.contains("`time_s`"), "{e}");
        let e = read("time_s,state\n0.1,napping\n", &f).unwrap_err();
        assert!(e.contains("line 2") && e.contains("napping"), "{e}");
        let e = read("time_s,state\n0.2,sleep\n0.1,idle\n", &f).unwrap_err();
        assert!(e.contains("line 3") && e.contains("back in time"), "{e}");
        let e = read("time_s,state\n", &f).unwrap_err();
        assert!(e.contains("no transitions"), "{e}");
        let e = read("time_s,state\n1,sleep\n", &RowFilter { policy: Some("cc".into()), node: None }).unwrap_err();
        assert!(e.contains("no `policy` column"), "{e}");
    }

    /// Issue 16: hostile transitions files are refused with the line and field, or read in
    /// linear time.
    #[test]
    fn hostile_rows_are_refused_or_read_in_linear_time() {
        let f = RowFilter::default();
        for (text, want) in [
            ("time_s,state\nNaN,sleep\n", "line 2: field `time_s`: `NaN` is not a time"),
            ("time_s,state\ninf,sleep\n", "line 2"),
            ("time_s,state\n-1,sleep\n", "seconds ≥ 0"),
            ("time_s,state\n1e300,sleep\n", "line 2"),
            ("time_ns,state\n-5,sleep\n", "integer nanoseconds"),
            ("time_ns,state\n99999999999999999999999,sleep\n", "integer nanoseconds"),
            ("time_s,state\n5,sleep\n1,idle\n", "line 3: field `time`: rows go back in time"),
            ("time_s,state\n1,sleep,extra,fields\n", "line 2"),
            ("time_s,state\n\u{0},\u{0}\n", "line 2"),
        ] {
            let e = read(text, &f).unwrap_err();
            assert!(e.contains(want), "{text:?}: {e}");
        }
        // The largest u64 is a time (far in the future), not an overflow.
        assert_eq!(read("time_ns,state\n18446744073709551615,sleep\n", &f).unwrap(), vec![(Time(u64::MAX), RadioState::Sleep)]);
        // A million rows in order: read in well under a second (release), 16 bytes each.
        let start = std::time::Instant::now();
        let mut big = String::from("time_ns,state\n");
        for k in 0..1_000_000u64 {
            big.push_str(&format!("{},{}\n", 1_000 * k, if k % 2 == 0 { "sleep" } else { "idle" }));
        }
        assert_eq!(read(&big, &f).unwrap().len(), 1_000_000);
        // 200,000 distinct nodes: ambiguous, refused after one linear pass (it was quadratic).
        let mut nodes = String::from("node,time_ns,state\n");
        for k in 0..200_000u64 {
            nodes.push_str(&format!("n{k},{k},sleep\n"));
        }
        let e = read(&nodes, &f).unwrap_err();
        assert!(e.contains("several timelines (n0, n1, n2, n3, n4, ...)"), "{e}");
        assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
    }
}
