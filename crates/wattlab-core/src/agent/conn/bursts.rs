//! Shaping and end-of-burst detection (seed 000 mechanisms 4–9): closed/open ACKs, the window
//! estimate, fixed/dynamic/active detection with the adaptive probe delay D, the saturation and
//! loss reversions, lost open ACKs, and the agent's own segments (open ACKs, probes).

use super::{Out, Phase, Shape, TrackedConn};
use crate::agent::estimators::clamp;
use crate::agent::{AgentConfig, AgentEventKind, BurstDetection, BurstEnd, RevertReason};
use crate::packet::{Packet, TcpFlags, TcpHeader, TcpOptions, Timestamps, Transport};
use crate::tcp::seq;
use crate::time::{Duration, Time};

impl TrackedConn {
    /// How long data the server sent under an open window can keep arriving after the first
    /// closed ACK: one RTT, with two deviations of margin.
    pub(super) fn drain_time(&self) -> Duration {
        self.srtt() + Duration(2 * self.rtt.var().0)
    }

    /// When the burst released at `open_at` can first arrive: one minimum RTT later, less
    /// `wake_var_factor` deviations (the minimum of a few samples overestimates the path's
    /// base RTT when the RTT varies).
    pub(super) fn burst_expected(&self, open_at: Time, cfg: &AgentConfig) -> Time {
        let margin = Duration((self.rtt.var().0 as f64 * cfg.wake_var_factor) as u64);
        Time((open_at + self.min_rtt()).0.saturating_sub(margin.0))
    }

    /// Quiet time after the last data packet that ends a burst: RTT/2 while a probe is
    /// outstanding (the seed's bound for a lost probe), else the passive threshold.
    pub(super) fn burst_threshold(&self, cfg: &AgentConfig, probe_outstanding: bool) -> Duration {
        if probe_outstanding {
            return self.half_rtt();
        }
        match self.detection {
            BurstDetection::Fixed(t) => t,
            BurstDetection::Dynamic | BurstDetection::Active => {
                let missing = self.window_estimate.saturating_sub(self.burst_packets);
                let t = self
                    .ia
                    .threshold(missing)
                    .unwrap_or(self.idle_threshold(cfg))
                    .max(Duration((self.rtt.var().0 as f64 * cfg.dynamic_var_floor) as u64));
                clamp(t, Duration::from_micros(500), self.half_rtt())
            }
        }
    }

    pub(super) fn burst_packet(
        &mut self,
        now: Time,
        shape: Shape,
        gap: Option<Duration>,
        echo: Option<u32>,
        out: &mut Out,
    ) {
        match shape {
            Shape::Waiting { probe, .. } => {
                self.burst_packets = 1;
                self.burst_lossy = false;
                self.phase = Phase::Shaping(Shape::Receiving { probe });
            }
            Shape::Receiving { probe } => {
                self.burst_packets += 1;
                if let Some(g) = gap {
                    self.ia.sample(g);
                }
                // Data sent after the server saw the probe (it echoes the probe's TSval): the
                // probe response rides on this packet, which ends the burst.
                if let (Some(_), Some(p), Some(e)) = (probe, self.probe_tsval, echo) {
                    if seq::ge(e, p) {
                        self.end_burst(
                            now,
                            BurstEnd::ProbeResponse {
                                piggyback: true,
                                gap: Duration::ZERO,
                            },
                            out,
                        );
                    }
                }
            }
            Shape::AfterOpen { .. } => {
                // Data of the previous burst after its probe response: the probe was early.
                out.stats.late_packets += 1;
                if self.detection == BurstDetection::Active && !self.grew_this_round {
                    self.grow_probe_delay(now, out);
                }
            }
        }
    }

    /// A pure ACK from the server: the response to our window probe.
    pub(super) fn on_server_ack(&mut self, now: Time, h: &TcpHeader, out: &mut Out) {
        let Phase::Shaping(shape) = self.phase else {
            return;
        };
        let probe = match shape {
            Shape::Receiving { probe: Some(t) } | Shape::Waiting { probe: Some(t), .. } => t,
            _ => return,
        };
        out.stats.probe_responses += 1;
        if matches!(shape, Shape::Waiting { .. }) {
            // Answered before any data: the open ACK released nothing (lost?). Resend it.
            let _ = probe;
            self.send_open_ack(now, true, out);
            return;
        }
        let _ = h;
        let gap = self
            .last_data_at
            .map(|t| now.saturating_since(t))
            .unwrap_or(Duration::ZERO);
        self.end_burst(
            now,
            BurstEnd::ProbeResponse {
                piggyback: false,
                gap,
            },
            out,
        );
    }

    pub(super) fn start_shaping(&mut self, now: Time, shape: Shape, out: &mut Out) {
        self.phase = Phase::Shaping(shape);
        self.burst_lossy = false;
        self.open_ack = None;
        if !self.shaped {
            self.shaped = true;
            out.stats.shaped_connections += 1;
            out.log(now, self.id, AgentEventKind::ShapingStarted);
        }
    }

    /// The released window has arrived: estimate W, test saturation and losses, adapt D, and
    /// release the next window with an open ACK.
    pub(super) fn end_burst(&mut self, now: Time, why: BurstEnd, out: &mut Out) {
        let packets = self.burst_packets;
        self.drain_until = None;
        out.stats.bursts += 1;
        out.log(now, self.id, AgentEventKind::BurstEnded { packets, why });
        self.window_estimate = packets + 1;
        self.lossy_run = if self.burst_lossy {
            self.lossy_run + 1
        } else {
            0
        };
        if self.lossy_run >= out.cfg.lossy_windows_to_revert {
            self.revert(now, RevertReason::NoInOrderWindow, out);
            return;
        }
        if let Some(rate) = out.cfg.link_rate_bps {
            let bdp = rate as f64 * self.min_rtt().as_secs_f64() / 8.0;
            let w = self.window_estimate as f64 * self.mss_seen.max(1) as f64;
            self.saturated_run = if w >= out.cfg.saturation_fraction * bdp {
                self.saturated_run + 1
            } else {
                0
            };
            if self.saturated_run >= out.cfg.saturation_bursts {
                self.revert(now, RevertReason::Saturated, out);
                return;
            }
        }
        if self.detection == BurstDetection::Active {
            let ceiling = self.half_rtt().max(out.cfg.probe_delay_floor);
            if self.probe_delay.d == Duration::ZERO {
                let w = self.window_estimate as u64 * self.mss_seen.max(1) as u64;
                self.probe_delay.init(
                    w,
                    out.cfg.server_rate_bps,
                    out.cfg.probe_delay_floor,
                    ceiling,
                );
            }
            match why {
                BurstEnd::ProbeResponse {
                    piggyback: true, ..
                } => self.grow_probe_delay(now, out),
                BurstEnd::ProbeResponse {
                    piggyback: false,
                    gap,
                } => {
                    let step = self.probe_delay.clean_burst(
                        gap,
                        out.cfg.clean_bursts_to_shrink,
                        out.cfg.probe_delay_floor,
                    );
                    if step {
                        out.log(
                            now,
                            self.id,
                            AgentEventKind::ProbeDelay {
                                d: self.probe_delay.d,
                            },
                        );
                    }
                }
                BurstEnd::ProbeLost => {
                    out.stats.probes_lost += 1;
                    if self.probe_delay.d >= ceiling {
                        self.switch_to_dynamic(now, out);
                    }
                }
                BurstEnd::Threshold => {}
            }
        }
        self.grew_this_round = false;
        self.send_open_ack(now, false, out);
    }

    pub(super) fn grow_probe_delay(&mut self, now: Time, out: &mut Out) {
        self.grew_this_round = true;
        let ceiling = self.half_rtt().max(out.cfg.probe_delay_floor);
        if self.probe_delay.grow(out.cfg.probe_delay_step, ceiling) {
            out.log(
                now,
                self.id,
                AgentEventKind::ProbeDelay {
                    d: self.probe_delay.d,
                },
            );
        } else {
            self.switch_to_dynamic(now, out);
        }
    }

    pub(super) fn switch_to_dynamic(&mut self, now: Time, out: &mut Out) {
        if self.detection != BurstDetection::Dynamic {
            self.detection = BurstDetection::Dynamic;
            out.stats.switched_to_dynamic += 1;
            out.log(now, self.id, AgentEventKind::SwitchedToDynamic);
        }
    }

    /// Release the next window: ACK everything received, advertise the real window.
    pub(super) fn send_open_ack(&mut self, now: Time, resent: bool, out: &mut Out) {
        let shift = self.shift();
        let edge = self.right_edge.unwrap_or(self.rcv_nxt);
        let wnd = (edge.wrapping_sub(self.rcv_nxt) as i32).max(0) as u32;
        let field = (wnd >> shift).min(65_535) as u16;
        let Some(p) = self.make_segment(now, self.snd_nxt, field, out.cfg.ts_clock_hz) else {
            return;
        };
        out.tx.push_back(p);
        self.open_ack = Some((
            self.rcv_nxt,
            self.rcv_nxt.wrapping_add((field as u32) << shift),
        ));
        if resent {
            out.stats.open_acks_resent += 1;
        } else {
            out.stats.open_acks += 1;
        }
        out.log(now, self.id, AgentEventKind::OpenAck { resent });
        let expect_at = self.burst_expected(now, out.cfg);
        let srtt = self.srtt();
        self.phase = Phase::Shaping(if resent {
            // Something went wrong (lost open ACK, slow server): stay awake until data comes.
            Shape::Waiting {
                open_at: now,
                expect_at: now,
                resend_at: now + srtt,
                probe: None,
            }
        } else if self.detection == BurstDetection::Active {
            Shape::AfterOpen {
                open_at: now,
                probe_due: now + self.probe_delay.d,
            }
        } else {
            Shape::Waiting {
                open_at: now,
                expect_at,
                resend_at: now + srtt + srtt,
                probe: None,
            }
        });
    }

    /// D after the open ACK: a zero-length out-of-order segment (the window probe), then a
    /// closed ACK so a server that had not finished the burst stops until the next open ACK.
    pub(super) fn send_probe(&mut self, now: Time, open_at: Time, out: &mut Out) {
        let hz = out.cfg.ts_clock_hz;
        let Some(probe) = self.make_segment(now, self.snd_nxt.wrapping_sub(1), 0, hz) else {
            return;
        };
        out.tx.push_back(probe);
        if let Some(closed) = self.make_segment(now, self.snd_nxt, 0, hz) {
            out.tx.push_back(closed);
        }
        out.stats.probes += 1;
        out.stats.closed_acks += 1;
        out.log(
            now,
            self.id,
            AgentEventKind::ProbeSent {
                d: self.probe_delay.d,
            },
        );
        let srtt = self.srtt();
        self.phase = Phase::Shaping(Shape::Waiting {
            open_at,
            expect_at: self.burst_expected(open_at, out.cfg),
            resend_at: open_at + srtt + srtt,
            probe: Some(now),
        });
    }

    /// Plain TCP for good; a closed window is opened first so the server is never left stuck.
    pub(super) fn revert(&mut self, now: Time, why: RevertReason, out: &mut Out) {
        if matches!(self.phase, Phase::Shaping(_)) {
            self.send_open_ack(now, false, out);
        }
        self.phase = Phase::Reverted(why);
        out.stats.reverted += 1;
        out.log(now, self.id, AgentEventKind::Reverted { why });
    }

    /// An ACK from the client to the server, stamped by the client's timestamp clock.
    pub(super) fn make_segment(&mut self, now: Time, seq_no: u32, window: u16, hz: u64) -> Option<Packet> {
        let mut p = self.template?;
        let t = p.tcp_header()?;
        let timestamps = self.ts_ok.then(|| Timestamps {
            tsval: self.clock.estimate(now, hz),
            tsecr: self.ts_recent,
        });
        if let Some(ts) = timestamps {
            self.rtt.on_sent(now, ts.tsval);
            self.probe_tsval = Some(ts.tsval); // the latest stamp: echoes at or after it post-date it
        }
        let h = TcpHeader {
            src_port: t.src_port,
            dst_port: t.dst_port,
            seq: seq_no,
            ack: self.rcv_nxt,
            flags: TcpFlags::ACK,
            window,
            options: TcpOptions {
                timestamps,
                ..TcpOptions::default()
            },
        };
        p.transport = Transport::Tcp(h);
        p.payload_len = 0;
        Some(p)
    }
}
