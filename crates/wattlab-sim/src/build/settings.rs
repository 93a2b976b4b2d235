//! Settings of links and hops: queue limits and impairments.

use crate::net::impairment::{Jitter, LossProcess, Phases};
use crate::net::link::QueueLimit;
use crate::scenario::{DirectionConfig, JitterConfig, LossConfig, QueueConfig};

/// A queue's limit from its settings.
pub(crate) fn queue_limit(q: &QueueConfig) -> Result<QueueLimit, String> {
    match (q.packets, q.bytes) {
        (Some(0), _) => Err("queue capacity must be at least 1 packet".into()),
        (Some(n), None) => Ok(QueueLimit::Packets(n)),
        (None, Some(b)) if b.bytes() >= 1500 => Ok(QueueLimit::Bytes(b.bytes())),
        (None, Some(_)) => Err("queue capacity in bytes must hold at least one 1500-byte packet".into()),
        (Some(_), Some(_)) => Err("give the queue capacity in packets or in bytes, not both".into()),
        (None, None) => Ok(QueueLimit::Packets(100)),
    }
}

fn probability(p: f64, what: &str) -> Result<f64, String> {
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(format!("{what} = {p} is not a probability in [0, 1]"))
    }
}

/// The loss process of a `loss` table, its probabilities checked.
pub(crate) fn loss_process(l: Option<&LossConfig>) -> Result<LossProcess, String> {
    Ok(match l {
        None => LossProcess::None,
        Some(LossConfig::Bernoulli { p }) => LossProcess::Bernoulli { p: probability(*p, "loss.p")? },
        Some(LossConfig::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad }) => {
            LossProcess::GilbertElliott {
                p_good_to_bad: probability(*p_good_to_bad, "loss.p_good_to_bad")?,
                p_bad_to_good: probability(*p_bad_to_good, "loss.p_bad_to_good")?,
                loss_good: probability(*loss_good, "loss.loss_good")?,
                loss_bad: probability(*loss_bad, "loss.loss_bad")?,
                bad: false,
            }
        }
        Some(LossConfig::EveryNth { n, on, off, offset }) => {
            if *n < 2 {
                return Err(format!("loss.n = {n}: every-nth drops one packet in n, so n must be at least 2"));
            }
            let phases = match (on, off) {
                (None, None) if offset.is_none() => None,
                (None, _) => return Err("loss.off and loss.offset need loss.on (the dropping phase)".into()),
                (Some(on), off) => {
                    let off = off.map_or(on.get(), |o| o.get());
                    if on.0 == 0 {
                        return Err("loss.on must be longer than 0s".into());
                    }
                    Some(Phases { on: on.get(), off, offset: offset.map_or(Default::default(), |o| o.get()) })
                }
            };
            LossProcess::EveryNth { n: *n, phases, count: 0 }
        }
    })
}

/// The loss and jitter of one direction.
pub(crate) fn impairments(d: &DirectionConfig) -> Result<(LossProcess, Jitter), String> {
    let loss = loss_process(d.loss.as_ref())?;
    let jitter = match &d.jitter {
        None => Jitter::None,
        Some(JitterConfig::Constant { value }) => Jitter::Uniform { min: value.get(), max: value.get() },
        Some(JitterConfig::Uniform { min, max }) => {
            if max < min {
                return Err("jitter.max is smaller than jitter.min".into());
            }
            Jitter::Uniform { min: min.get(), max: max.get() }
        }
        Some(JitterConfig::Gamma { shape, scale }) => {
            if !(*shape > 0.0 && shape.is_finite()) || scale.0 == 0 {
                return Err(format!("gamma jitter needs shape > 0 and scale > 0 (got shape {shape})"));
            }
            Jitter::gamma(*shape, scale.get()).ok_or("invalid gamma parameters")?
        }
    };
    Ok((loss, jitter))
}
