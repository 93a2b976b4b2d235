//! Slow-start tracking (seed 000 Fig. 2, mechanism 3): a stage opens with its first data
//! packet and ends after T_idle of quiet past its predicted end; the next one is predicted from
//! the stage's first and last ACK and SRTT ± VAR; stages that stop doubling end slow start.

use super::{Out, Shape, TrackedConn};
use crate::agent::estimators::clamp;
use crate::agent::{AgentConfig, AgentEventKind};
use crate::time::{Duration, Time};

impl TrackedConn {
    /// T_idle: the largest gap seen inside a stage, scaled, but never below four RTT
    /// deviations: RTT variation spreads a flight's packets (each is delayed on its own), and
    /// until the spread has been seen only the deviation tells how much.
    pub(super) fn idle_threshold(&self, cfg: &AgentConfig) -> Duration {
        let t = Duration((self.stages.max_gap.0 as f64 * cfg.idle_gap_factor) as u64).max(Duration(4 * self.rtt.var().0));
        clamp(t, cfg.idle_floor, self.half_rtt().max(cfg.idle_floor))
    }

    pub(super) fn stage_packet(&mut self, now: Time, gap: Option<Duration>, out: &mut Out) {
        let s = &mut self.stages;
        if !s.open {
            s.open = true;
            s.stage += 1;
            s.prev_count = s.count;
            s.count = 0;
            s.first_ack = None;
            s.last_ack = None;
            s.expiration = s.next_end;
        } else if let Some(g) = gap {
            s.max_gap = s.max_gap.max(g);
        }
        s.count += 1;
        // A stage far longer than twice the last one: the stages have merged into a stream
        // (the next window starts before this one ends, Fig. 2 C5): shape it now.
        if out.cfg.shaping && s.stage >= 2 && s.count > 2 * s.prev_count + 2 {
            let packets = s.count;
            self.drain_until = Some(now + self.drain_time());
            self.start_shaping(now, Shape::Receiving { probe: None }, out);
            self.burst_packets = packets;
        }
    }

    /// A slow-start stage is over: predict the next one (start = first ACK + SRTT − VAR,
    /// end = last ACK + SRTT + VAR) and decide whether slow start has ended.
    pub(super) fn end_stage(&mut self, now: Time, out: &mut Out) {
        let srtt = self.srtt();
        let k = Duration((self.rtt.var().0 as f64 * out.cfg.stage_var_factor) as u64);
        let s = &mut self.stages;
        s.open = false;
        let first = s.first_ack.or(self.last_data_at).unwrap_or(now);
        let last = s.last_ack.or(self.last_data_at).unwrap_or(now);
        s.next_start = Some(Time((first + srtt).0.saturating_sub(k.0)));
        s.next_end = Some(last + srtt + k);
        let (stage, count, prev) = (s.stage, s.count, s.prev_count);
        out.log(
            now,
            self.id,
            AgentEventKind::StageEnded {
                stage,
                packets: count,
            },
        );
        let not_doubling =
            stage >= 2 && (count as f64) < out.cfg.doubling_fraction * 2.0 * prev as f64;
        if out.cfg.shaping && not_doubling {
            // The stage already released by these (open) ACKs becomes the first shaped burst.
            let expect_at = self.stages.next_start.unwrap_or(now);
            self.window_estimate = count + 1;
            let resend_at = last + srtt + srtt;
            self.start_shaping(
                now,
                Shape::Waiting {
                    open_at: last,
                    expect_at,
                    resend_at,
                    probe: None,
                },
                out,
            );
        }
    }
}
