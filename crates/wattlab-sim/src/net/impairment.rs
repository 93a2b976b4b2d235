//! Per-direction impairments: packet loss processes and delay jitter.
//!
//! A loss process is asked once per packet; a jitter process adds a random extra delay to the
//! propagation delay. Both draw from the direction's own RNG stream (see [`crate::rng`]).
//! Seed 004's VDROP is [`LossProcess::EveryNth`] and its VDELAY a uniform [`Jitter`] from 0
//! with reordering allowed.

use crate::rng::StreamRng;
use rand::Rng;
use rand_distr::{Distribution, Gamma};
use wattlab_core::{Duration, Time};

/// A packet loss process.
#[derive(Clone, Debug)]
pub enum LossProcess {
    /// No loss.
    None,
    /// Each packet lost independently with probability `p`.
    Bernoulli {
        /// Loss probability per packet.
        p: f64,
    },
    /// Two-state Gilbert–Elliott chain, stepped once per packet.
    GilbertElliott {
        /// Probability of moving good → bad before a packet.
        p_good_to_bad: f64,
        /// Probability of moving bad → good before a packet.
        p_bad_to_good: f64,
        /// Loss probability in the good state.
        loss_good: f64,
        /// Loss probability in the bad state.
        loss_bad: f64,
        /// Current state.
        bad: bool,
    },
    /// Deterministic drop of every `n`-th packet (seed 004's VDROP), counting only the packets
    /// that pass while the dropper is on; optionally on and off in alternating phases.
    EveryNth {
        /// Drop one packet in `n` (20 % is every 5th).
        n: u32,
        /// On/off phases; `None` keeps the dropper on throughout.
        phases: Option<Phases>,
        /// Packets seen while on, modulo `n`.
        count: u32,
    },
}

/// Alternating on and off phases of a dropper, starting `offset` into an on phase at time 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Phases {
    /// Length of an on (dropping) phase.
    pub on: Duration,
    /// Length of an off (no-drop) phase.
    pub off: Duration,
    /// How far into the cycle (which starts with an on phase) time 0 falls.
    pub offset: Duration,
}

impl Phases {
    /// Whether the dropper is on at `now`.
    pub fn is_on(&self, now: Time) -> bool {
        let cycle = self.on.0 + self.off.0;
        cycle == 0 || (now.0 % cycle + self.offset.0 % cycle) % cycle < self.on.0
    }
}

impl LossProcess {
    /// Decide whether the packet passing at `now` is lost.
    // The test for no loss is inlined (every packet on every link asks), the draws are not.
    #[inline]
    pub fn next_lost(&mut self, now: Time, rng: &mut StreamRng) -> bool {
        if let LossProcess::None = self {
            return false;
        }
        self.draw_lost(now, rng)
    }

    /// [`LossProcess::next_lost`] for a process that may lose packets.
    #[inline(never)]
    fn draw_lost(&mut self, now: Time, rng: &mut StreamRng) -> bool {
        match self {
            LossProcess::None => false,
            LossProcess::Bernoulli { p } => *p > 0.0 && rng.random::<f64>() < *p,
            LossProcess::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad, bad } => {
                let flip = if *bad { *p_bad_to_good } else { *p_good_to_bad };
                if rng.random::<f64>() < flip {
                    *bad = !*bad;
                }
                let p = if *bad { *loss_bad } else { *loss_good };
                p > 0.0 && rng.random::<f64>() < p
            }
            LossProcess::EveryNth { n, phases, count } => {
                if phases.is_some_and(|ph| !ph.is_on(now)) {
                    return false;
                }
                *count = (*count + 1) % *n;
                *count == 0
            }
        }
    }

    /// Long-run loss probability (for reports and model comparisons).
    pub fn mean_loss(&self) -> f64 {
        match self {
            LossProcess::None => 0.0,
            LossProcess::Bernoulli { p } => *p,
            LossProcess::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad, .. } => {
                let denom = p_good_to_bad + p_bad_to_good;
                if denom == 0.0 {
                    return *loss_good;
                }
                let pi_bad = p_good_to_bad / denom;
                (1.0 - pi_bad) * loss_good + pi_bad * loss_bad
            }
            // The rate of the on phase, as seed 004 reports it (not the average over phases).
            LossProcess::EveryNth { n, .. } => 1.0 / *n as f64,
        }
    }
}

/// Extra delay added to a direction's propagation delay, per packet.
#[derive(Clone, Debug)]
pub enum Jitter {
    /// No extra delay.
    None,
    /// Uniform extra delay in `[min, max]`.
    Uniform {
        /// Smallest extra delay.
        min: Duration,
        /// Largest extra delay.
        max: Duration,
    },
    /// Gamma-distributed extra delay (seed 000's peak-hour RTT model).
    Gamma {
        /// The distribution, with scale in seconds.
        dist: Gamma<f64>,
        /// Mean k·θ, kept for reports.
        mean: Duration,
    },
}

impl Jitter {
    /// A gamma jitter with the given shape and scale; `None` if the parameters are invalid.
    pub fn gamma(shape: f64, scale: Duration) -> Option<Jitter> {
        let mean = Duration::from_secs_f64(shape * scale.as_secs_f64());
        Gamma::new(shape, scale.as_secs_f64()).ok().map(|dist| Jitter::Gamma { dist, mean })
    }

    /// Draw the extra delay for one packet.
    // The test for no jitter is inlined (every packet on every link asks), the draws are not.
    #[inline]
    pub fn sample(&self, rng: &mut StreamRng) -> Duration {
        if let Jitter::None = self {
            return Duration::ZERO;
        }
        self.draw(rng)
    }

    /// [`Jitter::sample`] for a link with jitter.
    #[inline(never)]
    fn draw(&self, rng: &mut StreamRng) -> Duration {
        match self {
            Jitter::None => Duration::ZERO,
            Jitter::Uniform { min, max } => {
                if max <= min {
                    *min
                } else {
                    Duration(rng.random_range(min.0..=max.0))
                }
            }
            Jitter::Gamma { dist, .. } => Duration::from_secs_f64(dist.sample(rng)),
        }
    }

    /// Mean extra delay.
    pub fn mean(&self) -> Duration {
        match self {
            Jitter::None => Duration::ZERO,
            Jitter::Uniform { min, max } => Duration((min.0 + max.0) / 2),
            Jitter::Gamma { mean, .. } => *mean,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::RngStreams;

    #[test]
    fn bernoulli_loss_rate_converges() {
        let mut rng = RngStreams::new(1).stream("t");
        let mut l = LossProcess::Bernoulli { p: 0.01 };
        let n = 200_000;
        let lost = (0..n).filter(|_| l.next_lost(Time::ZERO, &mut rng)).count() as f64;
        assert!((lost / n as f64 - 0.01).abs() < 0.001, "{}", lost / n as f64);
    }

    #[test]
    fn gilbert_elliott_matches_stationary_loss_and_is_bursty() {
        let mut rng = RngStreams::new(2).stream("t");
        // Seed 003's chain: P(G→B)=0.05, P(B→G)=0.10; lose everything in B.
        let mut l = LossProcess::GilbertElliott {
            p_good_to_bad: 0.05,
            p_bad_to_good: 0.10,
            loss_good: 0.0,
            loss_bad: 1.0,
            bad: false,
        };
        let expect = l.mean_loss();
        assert!((expect - 1.0 / 3.0).abs() < 1e-12);
        let n = 300_000;
        let seq: Vec<bool> = (0..n).map(|_| l.next_lost(Time::ZERO, &mut rng)).collect();
        let rate = seq.iter().filter(|&&x| x).count() as f64 / n as f64;
        assert!((rate - expect).abs() < 0.01, "{rate}");
        // Mean burst length of a geometric sojourn in B is 1/0.10 = 10 packets.
        let bursts = seq.windows(2).filter(|w| !w[0] && w[1]).count() as f64;
        let mean_burst = rate * n as f64 / bursts;
        assert!((mean_burst - 10.0).abs() < 0.5, "{mean_burst}");
    }

    #[test]
    fn every_nth_drops_exactly_every_nth_packet() {
        let mut rng = RngStreams::new(4).stream("t");
        for (n, expect) in [(5u32, [4usize, 9, 14]), (3, [2, 5, 8]), (20, [19, 39, 59])] {
            let mut l = LossProcess::EveryNth { n, phases: None, count: 0 };
            let lost: Vec<usize> = (0..3 * n as usize).filter(|_| l.next_lost(Time::ZERO, &mut rng)).collect();
            assert_eq!(lost, expect, "n = {n}");
            assert_eq!(l.mean_loss(), 1.0 / n as f64);
        }
    }

    #[test]
    fn every_nth_drops_only_in_on_phases() {
        let mut rng = RngStreams::new(5).stream("t");
        let s = Duration::from_secs;
        let phases = Phases { on: s(10), off: s(10), offset: Duration::ZERO };
        let mut l = LossProcess::EveryNth { n: 5, phases: Some(phases), count: 0 };
        // One packet every 100 ms for 40 s: 100 per phase, 20 dropped in each on phase.
        let lost: Vec<u64> =
            (0..400u64).filter(|&i| l.next_lost(Time(i * 100_000_000), &mut rng)).collect();
        assert_eq!(lost.len(), 40);
        assert!(lost.iter().all(|&i| (i / 100) % 2 == 0), "a drop in an off phase: {lost:?}");
        // An offset of half a cycle starts in the off phase.
        let late = Phases { offset: s(10), ..phases };
        assert!(!late.is_on(Time::ZERO) && late.is_on(Time(s(10).0)));
        let quarter = Phases { offset: s(5), ..phases };
        assert!(quarter.is_on(Time(s(4).0)) && !quarter.is_on(Time(s(5).0)));
    }

    #[test]
    fn gamma_jitter_mean() {
        let mut rng = RngStreams::new(3).stream("t");
        let j = Jitter::gamma(2.0, Duration::from_millis(3)).unwrap();
        let n = 100_000;
        let sum: f64 = (0..n).map(|_| j.sample(&mut rng).as_secs_f64()).sum();
        assert!((sum / n as f64 - 0.006).abs() < 0.0002);
        assert_eq!(j.mean(), Duration::from_millis(6));
        assert!(Jitter::gamma(-1.0, Duration::from_millis(1)).is_none());
    }
}
