//! A recorded radio state timeline costed by the one meter ([`RadioMeter`]): its energy, the
//! energy per owner and the energy up to instants ([`super::marks`]), for a host that holds a
//! timeline rather than a meter (Python's analyses of a run's radio series).
//!
//! Replaying a timeline through a fresh meter gives exactly what a meter that saw the same
//! changes gives: the same transition legs carved from dormant intervals, the same clipping of
//! short ones, the same attribution of a wake-up to the owner that needed the radio awake. (A
//! meter whose timeline elides repeated cycles, e.g. PSM beacons costed in closed form, logs
//! less than it costs; replaying its log costs what the log shows.)

use super::marks::MarkEnergy;
use super::meter::{RadioMeter, RunEnergy};
use super::profile::DeviceProfile;
use super::state::RadioState;
use crate::time::Time;
use std::fmt;

/// Why a timeline cannot be costed (the message names the row).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimelineError(pub String);

impl fmt::Display for TimelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TimelineError {}

/// Costs the timeline `changes` (`(instant, state entered)`, in time order; the first row is
/// the start and the initial state) up to `end` with `profile`.
///
/// `owners`, if given (one per row), says whose each interval is: the result's `by_owner`
/// then holds each owner's energy (fJ) as [`RadioMeter::set_state_owned`] charges it. Each of
/// `instants` (any order) gets a mark: its energy up to the instant, in the order given
/// (`None` after `end`; 0 at or before the start).
pub fn cost_timeline(
    profile: &DeviceProfile,
    changes: &[(Time, RadioState)],
    owners: Option<&[u32]>,
    instants: &[Time],
    end: Time,
) -> Result<RunEnergy, TimelineError> {
    let Some(&(start, initial)) = changes.first() else {
        return Err(TimelineError("the timeline is empty: it needs at least its start and initial state".into()));
    };
    if let Some(o) = owners {
        if o.len() != changes.len() {
            return Err(TimelineError(format!("{} owners for {} timeline rows: give one per row", o.len(), changes.len())));
        }
    }
    if let Some(i) = changes.windows(2).position(|w| w[1].0 < w[0].0) {
        return Err(TimelineError(format!(
            "row {}: time goes backwards ({} ns after {} ns): the timeline must be in time order",
            i + 1,
            changes[i + 1].0.as_nanos(),
            changes[i].0.as_nanos()
        )));
    }
    if end < start {
        return Err(TimelineError(format!("the end ({} ns) is before the timeline's start ({} ns)", end.as_nanos(), start.as_nanos())));
    }
    // Changes after the end are outside what is costed (a host may log a frame that ends later).
    let changes = &changes[..changes.partition_point(|c| c.0 <= end)];
    let owner = |i: usize| owners.map_or(0, |o| o[i]);
    let mut meter = RadioMeter::new(profile, start, initial);
    if owners.is_some() {
        meter.enable_attribution();
        meter.set_state_owned(start, initial, owner(0));
    }
    if !instants.is_empty() {
        meter.enable_marks();
    }
    // Marks are placed as the replay reaches them, so none is ever placed behind the meter.
    let mut order: Vec<usize> = (0..instants.len()).collect();
    order.sort_by_key(|&i| instants[i]);
    let mut ids = vec![0u32; instants.len()];
    let mut next = 0;
    for (i, &(t, state)) in changes.iter().enumerate().skip(1) {
        while next < order.len() && instants[order[next]] <= t {
            ids[order[next]] = meter.mark(instants[order[next]]);
            next += 1;
        }
        meter.set_state_owned(t, state, owner(i));
    }
    for &k in &order[next..] {
        ids[k] = meter.mark(instants[k]);
    }
    let mut run = meter.run_energy(end);
    let by_id = std::mem::take(&mut run.marks);
    run.marks = ids.iter().map(|&id| by_id[id as usize]).collect::<Vec<MarkEnergy>>();
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::energy::builtin_profile;
    use crate::time::Duration;
    use RadioState::*;

    fn us(x: u64) -> Time {
        Time::ZERO + Duration::from_micros(x)
    }

    /// The meter's hand-computed fixture (meter.rs) replayed as a timeline: same total.
    #[test]
    fn replay_equals_the_meter() {
        let p = builtin_profile("wavelan-dsss").unwrap();
        let rows = [
            (us(0), Idle),
            (us(1_000_000), Rx),
            (us(1_002_500), Tx),
            (us(1_003_700), Sleep),
            (us(1_303_700), Idle),
            (us(1_313_700), Rx),
            (us(1_314_700), Sleep),
            (us(1_315_700), Idle),
            (us(1_415_700), Off),
            (us(1_515_700), Tx),
            (us(1_516_000), Sleep),
        ];
        let r = cost_timeline(&p, &rows, None, &[], us(2_000_000)).unwrap();
        assert_eq!(r.report.total_energy_nj, 1_613_961_000);
        assert_eq!(r.report.short_dormant_intervals, 1);
        assert!(r.marks.is_empty() && r.by_owner.is_empty());
    }

    /// Energy up to instants, given out of order: the wake-up leg (2 ms at idle power, carved
    /// from the end of the sleep) is paid by an instant inside it pro rata.
    #[test]
    fn marks_in_the_order_given() {
        let p = builtin_profile("wavelan-dsss").unwrap(); // idle 1319, sleep 177 mW
        let rows = [(us(0), Idle), (us(10_000), Sleep), (us(20_000), Idle)];
        let at = [us(20_000), us(0), us(19_000), us(30_000), us(15_000), us(40_000)];
        let r = cost_timeline(&p, &rows, None, &at, us(30_000)).unwrap();
        let nj: Vec<Option<u64>> = r.marks.iter().map(|m| m.energy_nj).collect();
        let idle = 1_319u64; // nJ per µs
        let e10 = 10_000 * idle;
        let e18 = e10 + 8_000 * 177; // sleep up to the up leg at 18 ms
        assert_eq!(
            nj,
            [
                Some(e18 + 2_000 * idle),
                Some(0),
                Some(e18 + 1_000 * idle),
                Some(e18 + 2_000 * idle + 10_000 * idle),
                Some(e10 + 5_000 * 177),
                None,
            ]
        );
        assert_eq!(r.marks[3].energy_nj, Some(r.report.total_energy_nj));
    }

    /// Owners: the wake-up is charged to the owner of the interval it ends in (whoever needed
    /// the radio awake); the owners' energies add up to the total.
    #[test]
    fn owners_pay_their_wake_ups() {
        let p = builtin_profile("wavelan-dsss").unwrap();
        let rows = [(us(0), Idle), (us(10_000), Sleep), (us(20_000), Idle), (us(25_000), Idle)];
        let r = cost_timeline(&p, &rows, Some(&[0, 0, 1, 2]), &[], us(30_000)).unwrap();
        let fj = |nj: u64| u128::from(nj) * 1_000_000;
        assert_eq!(r.by_owner, [fj(10_000 * 1_319 + 8_000 * 177), fj(2_000 * 1_319 + 5_000 * 1_319), fj(5_000 * 1_319)]);
        assert_eq!(r.by_owner.iter().sum::<u128>(), r.report.total_energy_fj);
    }

    #[test]
    fn bad_timelines_are_refused_with_the_row() {
        let p = builtin_profile("wavelan-dsss").unwrap();
        assert!(cost_timeline(&p, &[], None, &[], us(1)).unwrap_err().0.contains("empty"));
        let back = [(us(0), Idle), (us(5), Sleep), (us(3), Idle)];
        assert!(cost_timeline(&p, &back, None, &[], us(9)).unwrap_err().0.starts_with("row 2: time goes backwards"));
        let rows = [(us(1), Idle), (us(5), Sleep)];
        assert!(cost_timeline(&p, &rows, None, &[], us(0)).unwrap_err().0.contains("before the timeline's start"));
        assert!(cost_timeline(&p, &rows, Some(&[0]), &[], us(9)).unwrap_err().0.contains("1 owners for 2"));
        // A change after the end is not costed: idle from 1 to 4 µs.
        assert_eq!(cost_timeline(&p, &rows, None, &[], us(4)).unwrap().report.total_energy_nj, 3 * 1_319);
    }
}
