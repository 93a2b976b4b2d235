//! Airtime: the radio intervals one captured packet costs the client.
//!
//! A capture gives a time and an IP length per packet; the radio's work comes from the PHY:
//!
//! - **sent** (captured when the stack hands it to the driver, at `t`): contention (DIFS plus
//!   the mean backoff, CWmin/2 slots) from `t` (or from when the radio is free, if it is still
//!   busy: the analyzer defers it), then the data frame, SIFS, and the AP's MAC ACK;
//! - **received** (captured once the frame is in, at `t`): the data frame ends at `t`, then
//!   SIFS and our MAC ACK;
//! - group-addressed frames (broadcast, multicast) are not acknowledged.
//!
//! Data frames carry the MAC header, LLC/SNAP and FCS around the IP packet
//! ([`wattlab_core::wlan::phy::DATA_OVERHEAD_BYTES`]); ACKs go at the control rate. A packet
//! longer than the MTU (a capture taken above segmentation offload) is costed as that many
//! full frames back to back. The `link` model instead charges `ip_len × 8 / rate` with no
//! MAC exchange, exactly what the simulator's `[[wireless]]` hop charges, for cross-checks.
//! The `instant` model gives a packet no airtime at all: it only marks an instant of activity,
//! as EnergyBox's Wi-Fi engine sees packets (the radio's power is that of the state the packet
//! falls in).

use std::fmt;

use wattlab_core::energy::Activity;
use wattlab_core::wlan::phy::{find_phy, PhyFormat, PhyProfile, PHY_PROFILES};
use wattlab_core::{Duration, Time};

/// The largest IP packet one 802.11 data frame carries here (Ethernet's MTU).
pub const FRAME_MTU: u32 = 1500;

/// How packet sizes become radio intervals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Airtime {
    /// 802.11 frame exchanges on `phy` at `rate_kbps`.
    Phy {
        /// PHY timings.
        phy: PhyProfile,
        /// Data rate, kb/s.
        rate_kbps: u32,
    },
    /// A plain link: `ip_len × 8 / rate`, no MAC exchange (the simulator's `[[wireless]]` hop).
    Link {
        /// Rate, bits per second.
        rate_bps: u64,
    },
    /// No airtime: each packet is an instant of activity at its capture time (EnergyBox).
    Instant,
}

/// Direction of a packet as the client's radio sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Sent by the client.
    Up,
    /// Received by the client.
    Down,
}

/// Up to eight radio intervals of one packet (four per frame exchange, at most two frames
/// are kept inline; longer packets are walked frame by frame by [`Airtime::for_each`]).
pub type Interval = (Time, Time, Activity);

impl Airtime {
    /// The default: 802.11g at 54 Mb/s.
    pub fn default_phy() -> Airtime {
        Airtime::parse("802.11g@54").expect("built-in PHY")
    }

    /// Parses `PHY@RATE` (RATE in Mb/s, e.g. `802.11a@24`, `802.11b@5.5`; without `@RATE`
    /// the PHY's highest rate), `link@RATE` (Mb/s) or `instant`.
    pub fn parse(spec: &str) -> Result<Airtime, String> {
        if spec.trim() == "instant" {
            return Ok(Airtime::Instant);
        }
        let (name, rate) = match spec.split_once('@') {
            Some((n, r)) => (n.trim(), Some(r.trim())),
            None => (spec.trim(), None),
        };
        let mbps = |r: &str| -> Result<f64, String> {
            let x: f64 = r
                .trim_end_matches("Mbps")
                .trim_end_matches("Mb/s")
                .parse()
                .map_err(|_| format!("PHY `{spec}`: rate `{r}` is not a number of Mb/s"))?;
            if !(x.is_finite() && x > 0.0 && x <= 100_000.0) {
                return Err(format!("PHY `{spec}`: rate {r} Mb/s is out of range (0.001 to 100000 Mb/s)"));
            }
            Ok(x)
        };
        if name == "link" {
            let r = rate.ok_or_else(|| format!("PHY `{spec}`: `link` needs a rate, e.g. link@20"))?;
            let x = mbps(r)?;
            // Below 1 kb/s a rate rounds towards 0 b/s (issue 16: link@1e-9 divided by zero).
            if x < 0.001 {
                return Err(format!("PHY `{spec}`: rate {r} Mb/s is out of range (0.001 to 100000 Mb/s)"));
            }
            return Ok(Airtime::Link { rate_bps: (x * 1e6).round() as u64 });
        }
        // "802.11a" and "80211a" both name the built-in 802.11a (`find_phy`).
        // A capture is timed per packet at one non-HT rate: HT/VHT/HE PPDUs (MCS, aggregation)
        // are not modelled here, so only the legacy PHYs are offered.
        let legacy: Vec<&str> = PHY_PROFILES.iter().filter(|p| p.format == PhyFormat::Legacy).map(|p| p.name).collect();
        let phy = find_phy(name).filter(|p| p.format == PhyFormat::Legacy).ok_or_else(|| match find_phy(name) {
            Some(p) => format!("PHY `{name}`: a capture's airtime is modelled for the legacy PHYs only ({}); {} PPDUs are not", legacy.join(", "), p.name),
            None => format!("unknown PHY `{name}`; valid: {}, link@RATE, instant", legacy.join(", ")),
        })?;
        let rate_kbps = match rate {
            Some(r) => phy.check_rate((mbps(r)? * 1000.0).round() as u32).map_err(|e| e.to_string())?,
            None => *phy.rates_kbps.iter().max().expect("a PHY has rates"),
        };
        Ok(Airtime::Phy { phy, rate_kbps })
    }

    /// Calls `f` with each radio interval of a packet of `ip_len` bytes captured at `t`,
    /// in time order; `group` is true for a broadcast or multicast destination (no MAC ACK).
    /// Allocation-free.
    pub fn for_each(&self, t: Time, dir: Direction, ip_len: u32, group: bool, mut f: impl FnMut(Interval)) {
        match *self {
            Airtime::Instant => match dir {
                Direction::Up => f((t, t, Activity::Tx)),
                Direction::Down => f((t, t, Activity::Rx)),
            },
            Airtime::Link { rate_bps } => {
                let d = Duration::transmission(ip_len as u64, rate_bps);
                match dir {
                    Direction::Up => f((t, t + d, Activity::Tx)),
                    Direction::Down => f((t - d, t, Activity::Rx)),
                }
            }
            Airtime::Phy { phy, rate_kbps } => {
                let frames = ip_len.div_ceil(FRAME_MTU).max(1);
                let last = ip_len - (frames - 1) * FRAME_MTU;
                let full = phy.data_duration(FRAME_MTU.min(ip_len), rate_kbps);
                // One frame (the usual case): the tail is the frame.
                let tail = if frames == 1 { full } else { phy.data_duration(last, rate_kbps) };
                let ack = if group { Duration::ZERO } else { phy.ack_duration(rate_kbps) };
                let sifs = if group { Duration::ZERO } else { phy.sifs };
                let contention = phy.difs() + phy.mean_backoff(phy.cw_min);
                match dir {
                    Direction::Up => {
                        let mut s = t;
                        for k in 0..frames {
                            let data = if k + 1 == frames { tail } else { full };
                            s = emit_exchange(s, contention, (data, Activity::Tx), sifs, (ack, Activity::Rx), &mut f);
                        }
                    }
                    Direction::Down => {
                        // The frames end at t: walk back to where the first one started.
                        let per = sifs + ack;
                        let total = Duration::from_nanos((full + per).as_nanos() * (frames - 1) as u64) + tail;
                        let mut s = t - total;
                        for k in 0..frames {
                            let data = if k + 1 == frames { tail } else { full };
                            s = emit_exchange(s, Duration::ZERO, (data, Activity::Rx), sifs, (ack, Activity::Tx), &mut f);
                        }
                    }
                }
            }
        }
    }

    /// How long before its capture time a received packet of `ip_len` bytes starts on the
    /// air (its frames and, between them, their ACK exchanges).
    pub fn lead_of(&self, ip_len: u32, group: bool) -> Duration {
        let mut first = None;
        let t = Time(u64::MAX / 2);
        self.for_each(t, Direction::Down, ip_len, group, |(s, _, _)| {
            first.get_or_insert(s);
        });
        t - first.unwrap_or(t)
    }

    /// The longest lead of any packet up to `ip_len` bytes (see [`Airtime::lead_of`]).
    pub fn lead(&self, ip_len: u32) -> Duration {
        self.lead_of(ip_len, false)
    }

    /// A beacon's airtime on this PHY (its lowest basic rate); zero for `link` and `instant`.
    pub fn beacon(&self) -> Duration {
        match self {
            Airtime::Phy { phy, .. } => wattlab_core::energy::PsmParams::for_phy(phy).beacon_listen,
            Airtime::Link { .. } | Airtime::Instant => Duration::ZERO,
        }
    }
}

/// Emits contention (if any), a frame, SIFS and its ACK from `s`; returns where it ends.
fn emit_exchange(
    s: Time,
    contention: Duration,
    frame: (Duration, Activity),
    sifs: Duration,
    ack: (Duration, Activity),
    f: &mut impl FnMut(Interval),
) -> Time {
    let mut t = s;
    for (d, kind) in [(contention, Activity::Wait), frame, (sifs, Activity::Wait), ack] {
        if d > Duration::ZERO {
            f((t, t + d, kind));
            t += d;
        }
    }
    t
}

impl fmt::Display for Airtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Airtime::Phy { phy, rate_kbps } => {
                write!(f, "{}@{}", phy.name, *rate_kbps as f64 / 1000.0)
            }
            Airtime::Link { rate_bps } => write!(f, "link@{}", *rate_bps as f64 / 1e6),
            Airtime::Instant => f.write_str("instant"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(a: &Airtime, t: Time, dir: Direction, len: u32, group: bool) -> Vec<Interval> {
        let mut v = Vec::new();
        a.for_each(t, dir, len, group, |i| v.push(i));
        v
    }

    #[test]
    fn an_80211a_exchange_by_hand() {
        // 802.11a at 54 Mb/s: 1500 B IP + 36 B overhead = 1536 B = 12288 bits;
        // symbols = ceil((16 + 12288 + 6) / 216) = 57, so 20 + 4·57 = 248 us. The ACK (14 B) at
        // 24 Mb/s: ceil((16 + 112 + 6)/96) = 2 symbols, 28 us. SIFS 16 us, DIFS 34 us,
        // backoff 15/2 slots of 9 us = 67.5 us.
        let a = Airtime::parse("802.11a@54").unwrap();
        let us = |x: u64| Duration::from_nanos(x);
        let t = Time(1_000_000_000);
        let up = collect(&a, t, Direction::Up, 1500, false);
        let w = us(34_000 + 67_500);
        assert_eq!(
            up,
            vec![
                (t, t + w, Activity::Wait),
                (t + w, t + w + us(248_000), Activity::Tx),
                (t + w + us(248_000), t + w + us(264_000), Activity::Wait),
                (t + w + us(264_000), t + w + us(292_000), Activity::Rx),
            ]
        );
        let down = collect(&a, t, Direction::Down, 1500, false);
        assert_eq!(down[0], (t - us(248_000), t, Activity::Rx));
        assert_eq!(down[2], (t + us(16_000), t + us(44_000), Activity::Tx));
        // Group-addressed: no ACK, no SIFS.
        assert_eq!(collect(&a, t, Direction::Down, 1500, true), vec![(t - us(248_000), t, Activity::Rx)]);
        assert_eq!(a.lead(1500), us(248_000));
    }

    #[test]
    fn oversize_packets_are_several_frames_ending_at_the_capture_time() {
        let a = Airtime::parse("802.11g").unwrap();
        let t = Time(5_000_000_000);
        let v = collect(&a, t, Direction::Down, 4000, false);
        let rx: Vec<_> = v.iter().filter(|i| i.2 == Activity::Rx).collect();
        assert_eq!(rx.len(), 3);
        assert_eq!(rx[2].1, t);
        // Contiguous: each interval starts where the previous ended.
        assert!(v.windows(2).all(|w| w[0].1 == w[1].0));
        let up = collect(&a, t, Direction::Up, 4000, false);
        assert_eq!(up.iter().filter(|i| i.2 == Activity::Tx).count(), 3);
        assert_eq!(up[0].0, t);
    }

    #[test]
    fn link_model_and_parse_errors() {
        let a = Airtime::parse("link@20").unwrap();
        let t = Time(1_000_000);
        // 1500 B at 20 Mb/s = 600 us.
        assert_eq!(collect(&a, t, Direction::Up, 1500, false), vec![(t, t + Duration::from_micros(600), Activity::Tx)]);
        assert_eq!(a.to_string(), "link@20");
        assert_eq!(Airtime::parse("802.11b@5.5").unwrap().to_string(), "802.11b@5.5");
        // No airtime: the packet is an instant at its capture time, in either direction.
        let i = Airtime::parse("instant").unwrap();
        assert_eq!(i.to_string(), "instant");
        assert_eq!(collect(&i, t, Direction::Down, 1500, false), vec![(t, t, Activity::Rx)]);
        assert_eq!(collect(&i, t, Direction::Up, 9000, false), vec![(t, t, Activity::Tx)]);
        assert_eq!(i.lead(9000), Duration::ZERO);
        for (bad, want) in [
            ("802.11z", "unknown PHY"),
            ("802.11a@55", "no rate"),
            ("link", "needs a rate"),
            ("link@fast", "not a number"),
            ("802.11a@-1", "out of range"),
            ("link@1e-9", "out of range (0.001 to 100000 Mb/s)"),
            ("link@0", "out of range"),
            ("link@nan", "out of range"),
            ("link@inf", "out of range"),
            ("link@1e300", "out of range"),
            ("802.11g@1e-9", "has no rate"),
        ] {
            let e = Airtime::parse(bad).unwrap_err();
            assert!(e.contains(want), "{bad}: {e}");
        }
    }
}
