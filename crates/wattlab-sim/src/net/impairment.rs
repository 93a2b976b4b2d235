//! Per-direction impairments: packet loss processes and delay jitter.
//!
//! A loss process is asked once per packet; a jitter process adds a random extra delay to the
//! propagation delay. Both draw from the direction's own RNG stream (see [`crate::rng`]).

use crate::rng::StreamRng;
use rand::Rng;
use rand_distr::{Distribution, Gamma};
use wattlab_core::Duration;

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
}

impl LossProcess {
    /// Decide whether the next packet is lost.
    pub fn next_lost(&mut self, rng: &mut StreamRng) -> bool {
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
    pub fn sample(&self, rng: &mut StreamRng) -> Duration {
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
        let lost = (0..n).filter(|_| l.next_lost(&mut rng)).count() as f64;
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
        let seq: Vec<bool> = (0..n).map(|_| l.next_lost(&mut rng)).collect();
        let rate = seq.iter().filter(|&&x| x).count() as f64 / n as f64;
        assert!((rate - expect).abs() < 0.01, "{rate}");
        // Mean burst length of a geometric sojourn in B is 1/0.10 = 10 packets.
        let bursts = seq.windows(2).filter(|w| !w[0] && w[1]).count() as f64;
        let mean_burst = rate * n as f64 / bursts;
        assert!((mean_burst - 10.0).abs() < 0.5, "{mean_burst}");
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
