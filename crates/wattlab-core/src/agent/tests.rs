//! The agent driven by synthetic packet sequences: a scripted server at 60 ms RTT whose
//! packets arrive 0.6 ms apart, and a client TCP that ACKs every second segment.

use super::*;
use crate::packet::{Endpoint, TcpHeader, TcpOptions, Timestamps};
use std::net::Ipv4Addr;

const RTT_MS: f64 = 60.0;
const MSS: u32 = 1448;
const CLIENT: Endpoint = Endpoint::new(Ipv4Addr::new(10, 0, 0, 2), 50_000);
const SERVER: Endpoint = Endpoint::new(Ipv4Addr::new(10, 0, 0, 1), 80);
const SERVER_ISN: u32 = 7_000;

fn ms(t: f64) -> Time {
    Time((t * 1e6).round() as u64)
}

/// A scripted client/server pair around an agent.
struct Harness {
    agent: CcAgent,
    client: Endpoint,
    /// Client TSvals sent, with their times (for the server's echoes).
    sent_ts: Vec<(f64, u32)>,
    /// Next server sequence number.
    seq: u32,
    /// Client's next sequence number.
    cseq: u32,
    /// Packets the client TCP has received but not yet ACKed (delayed ACK: every second).
    unacked: u32,
    /// Windows of the client ACKs as they left the agent (None: dropped).
    windows: Vec<Option<u16>>,
    /// Packets the agent injected, with their times.
    injected: Vec<(f64, Packet)>,
    radio: Vec<(f64, RadioCommand)>,
}

impl Harness {
    fn new(cfg: AgentConfig) -> Harness {
        Harness::with_client(cfg, CLIENT)
    }

    fn with_client(cfg: AgentConfig, client: Endpoint) -> Harness {
        Harness {
            agent: CcAgent::new(cfg).unwrap(),
            client,
            sent_ts: Vec::new(),
            seq: SERVER_ISN + 1,
            cseq: 1_001,
            unacked: 0,
            windows: Vec::new(),
            injected: Vec::new(),
            radio: Vec::new(),
        }
    }

    fn tcp(
        &self,
        from_client: bool,
        seq: u32,
        ack: u32,
        flags: TcpFlags,
        payload: u32,
        ts: Timestamps,
    ) -> Packet {
        let (s, d) = if from_client {
            (self.client, SERVER)
        } else {
            (SERVER, self.client)
        };
        let h = TcpHeader {
            src_port: s.port,
            dst_port: d.port,
            seq,
            ack,
            flags,
            window: 65_535,
            options: TcpOptions {
                timestamps: Some(ts),
                ..TcpOptions::default()
            },
        };
        Packet::tcp(s.addr, d.addr, h, payload)
    }

    fn client_ts(&mut self, t: f64) -> Timestamps {
        let v = t.floor() as u32 + 1;
        self.sent_ts.push((t, v));
        Timestamps {
            tsval: v,
            tsecr: (t.floor() as u32) + 50_000,
        }
    }

    /// The TSval the server echoes at time `t`: the latest client TSval sent half an RTT
    /// earlier... a full RTT before arrival, as the server saw it.
    fn echo(&self, t: f64) -> u32 {
        self.sent_ts
            .iter()
            .rev()
            .find(|(s, _)| *s <= t - RTT_MS + 1e-9)
            .map(|x| x.1)
            .unwrap_or(0)
    }

    /// The client sends `p` at `t` (through the agent); returns the window that left.
    fn client_send(&mut self, t: f64, mut p: Packet) -> Option<u16> {
        self.run_until(t);
        let v = self.agent.on_outgoing(ms(t), &mut p);
        self.collect(t);
        (v == Verdict::Pass).then(|| p.tcp_header().unwrap().window)
    }

    /// A server packet reaches the client at `t`. The radio is updated only by `settle`,
    /// once the client's reactions at that instant are known (as a host does).
    fn server_send(&mut self, t: f64, p: Packet) -> Verdict {
        self.run_until(t);
        let v = self.agent.on_incoming(ms(t), &p);
        while let Some(p) = self.agent.poll_transmit() {
            self.injected.push((t, p));
        }
        v
    }

    fn collect(&mut self, t: f64) {
        while let Some(p) = self.agent.poll_transmit() {
            self.injected.push((t, p));
        }
        self.settle(t);
    }

    fn settle(&mut self, t: f64) {
        while let Some(c) = self.agent.poll_radio(ms(t)) {
            self.radio.push((t, c));
        }
    }

    /// Fire every agent timer up to `t`.
    fn run_until(&mut self, t: f64) {
        for _ in 0..10_000 {
            match self.agent.poll_timeout() {
                Some(d) if d <= ms(t) => {
                    self.agent.handle_timeout(d);
                    self.collect(d.as_nanos() as f64 / 1e6);
                }
                _ => return,
            }
        }
        panic!("timer loop did not settle");
    }

    fn handshake(&mut self, t: f64) {
        let ts = self.client_ts(t);
        let syn = self.tcp(true, self.cseq - 1, 0, TcpFlags::SYN, 0, ts);
        self.client_send(t, syn);
        let t2 = t + RTT_MS;
        let e = self.echo(t2);
        let synack = self.tcp(
            false,
            SERVER_ISN,
            self.cseq,
            TcpFlags::SYN | TcpFlags::ACK,
            0,
            Timestamps { tsval: 1, tsecr: e },
        );
        assert_eq!(self.server_send(t2, synack), Verdict::Pass);
        let ts = self.client_ts(t2);
        let mut ack = self.tcp(true, self.cseq, self.seq, TcpFlags::ACK, 0, ts);
        self.agent.on_outgoing(ms(t2), &mut ack); // same instant as the request: no settling
                                                  // The request.
        let ts = self.client_ts(t2);
        let req = self.tcp(
            true,
            self.cseq,
            self.seq,
            TcpFlags::ACK | TcpFlags::PSH,
            100,
            ts,
        );
        self.client_send(t2, req);
        self.cseq += 100;
    }

    /// `n` data packets arriving from `t`, 0.6 ms apart; the client ACKs every second one.
    /// Returns the time of the last packet.
    fn burst(&mut self, t: f64, n: u32) -> f64 {
        let mut now = t;
        for k in 0..n {
            now = t + 0.6 * k as f64;
            let e = self.echo(now);
            let p = self.tcp(
                false,
                self.seq,
                self.cseq,
                TcpFlags::ACK,
                MSS,
                Timestamps {
                    tsval: 2000 + now as u32,
                    tsecr: e,
                },
            );
            self.seq = self.seq.wrapping_add(MSS);
            if self.server_send(now, p) == Verdict::Drop {
                continue;
            }
            self.unacked += 1;
            if self.unacked == 2 {
                self.ack_now(now);
            }
            self.settle(now);
        }
        now
    }

    fn ack_now(&mut self, t: f64) {
        self.unacked = 0;
        let ts = self.client_ts(t);
        let ack = self.tcp(true, self.cseq, self.seq, TcpFlags::ACK, 0, ts);
        let w = self.client_send(t, ack);
        self.windows.push(w);
    }

    fn server_pure_ack(&mut self, t: f64) -> Verdict {
        let e = self.echo(t);
        let p = self.tcp(
            false,
            self.seq,
            self.cseq,
            TcpFlags::ACK,
            0,
            Timestamps {
                tsval: 2000 + t as u32,
                tsecr: e,
            },
        );
        let v = self.server_send(t, p);
        self.settle(t);
        v
    }

    /// A stage of four packets from `t` whose second is lost: the client sends duplicate
    /// ACKs (the connection recovers), and the retransmission arrives one RTT later, at the
    /// returned time, before the client's ACK of it.
    fn stage_of_four_with_the_second_lost_and_repaired(&mut self, t: f64) -> f64 {
        let lost_seq = self.seq.wrapping_add(MSS);
        for k in 0..4u32 {
            let now = t + 0.6 * k as f64;
            let p = self.tcp(false, self.seq, self.cseq, TcpFlags::ACK, MSS, Timestamps { tsval: 2000 + now as u32, tsecr: self.echo(now) });
            self.seq = self.seq.wrapping_add(MSS);
            if k == 1 {
                continue;
            }
            self.server_send(now, p);
            self.settle(now);
            let ts = self.client_ts(now + 0.01);
            let ack = self.tcp(true, self.cseq, lost_seq, TcpFlags::ACK, 0, ts);
            self.client_send(now + 0.01, ack);
        }
        assert!(matches!(self.conn().phase, Phase::Recovering), "{:?}", self.conn().phase);
        let rt = t + RTT_MS;
        let p = self.tcp(false, lost_seq, self.cseq, TcpFlags::ACK, MSS, Timestamps { tsval: 2100, tsecr: self.echo(rt) });
        self.server_send(rt, p);
        self.settle(rt);
        rt
    }

    fn conn(&self) -> &TrackedConn {
        &self.agent.connections()[0]
    }

    fn events(&mut self) -> Vec<AgentEvent> {
        std::iter::from_fn(|| self.agent.poll_event()).collect()
    }

    /// Open ACKs injected: (time, ack, window).
    fn open_acks(&self) -> Vec<(f64, u32, u16)> {
        self.injected
            .iter()
            .filter_map(|(t, p)| {
                let h = p.tcp_header().unwrap();
                (h.window > 0 && h.seq == self.cseq).then_some((*t, h.ack, h.window))
            })
            .collect()
    }

    /// Window probes injected (zero-length, one before the client's next sequence number).
    fn probes(&self) -> Vec<f64> {
        self.injected
            .iter()
            .filter(|(_, p)| p.tcp_header().unwrap().seq == self.cseq.wrapping_sub(1))
            .map(|(t, _)| *t)
            .collect()
    }

    /// Slow start: stages of 2, 4, 8, 16 and 20 packets one RTT apart; the last stage does
    /// not double, so shaping begins and the next flight is the first shaped burst.
    fn slow_start(&mut self) -> f64 {
        self.handshake(0.0);
        let mut t = 2.0 * RTT_MS;
        for n in [2, 4, 8, 16, 20] {
            let end = self.burst(t, n);
            if self.unacked > 0 {
                self.ack_now(end + 0.05);
            }
            t += RTT_MS;
        }
        self.run_until(t - 5.0);
        assert_eq!(
            self.conn().phase,
            Phase::Shaping(Shape::Waiting {
                open_at: self.conn_shape_open_at(),
                expect_at: self.conn_shape_expect_at(),
                resend_at: self.conn_shape_resend_at(),
                probe: None
            })
        );
        t
    }

    fn conn_shape_open_at(&self) -> Time {
        match self.conn().phase {
            Phase::Shaping(Shape::Waiting { open_at, .. }) => open_at,
            p => panic!("not waiting: {p:?}"),
        }
    }
    fn conn_shape_expect_at(&self) -> Time {
        match self.conn().phase {
            Phase::Shaping(Shape::Waiting { expect_at, .. }) => expect_at,
            p => panic!("not waiting: {p:?}"),
        }
    }
    fn conn_shape_resend_at(&self) -> Time {
        match self.conn().phase {
            Phase::Shaping(Shape::Waiting { resend_at, .. }) => resend_at,
            p => panic!("not waiting: {p:?}"),
        }
    }
}

fn active() -> AgentConfig {
    AgentConfig::default()
}

fn dynamic() -> AgentConfig {
    AgentConfig {
        detection: BurstDetection::Dynamic,
        ..AgentConfig::default()
    }
}

#[test]
fn slow_start_stages_are_tracked_and_slept_between() {
    let mut h = Harness::new(active());
    h.slow_start();
    let ev = h.events();
    let stages: Vec<u32> = ev
        .iter()
        .filter_map(|e| match e.kind {
            AgentEventKind::StageEnded { packets, .. } => Some(packets),
            _ => None,
        })
        .collect();
    assert_eq!(stages, vec![2, 4, 8, 16, 20]);
    assert!(ev.iter().any(|e| e.kind == AgentEventKind::ShapingStarted));
    // The radio slept between stages (each stage lasts < 10 ms of a 60 ms RTT)...
    let sleeps = h
        .radio
        .iter()
        .filter(|(_, c)| matches!(c, RadioCommand::Sleep { .. }))
        .count();
    assert!(sleeps >= 4, "slept {sleeps} times");
    // ...and was awake whenever a stage's packets arrived: nothing dropped.
    assert_eq!(h.agent.stats().dropped_asleep, 0);
    // During slow start the ACKs pass unchanged (open).
    assert!(h.windows.iter().all(|w| *w == Some(65_535)));
}

#[test]
fn closed_acks_inside_a_window_and_an_open_ack_at_its_end() {
    let mut h = Harness::new(dynamic());
    let t = h.slow_start();
    h.windows.clear();
    let end = h.burst(t, 22);
    // Every ACK inside the burst advertised a zero window.
    assert_eq!(h.windows.len(), 11);
    assert!(h.windows.iter().all(|w| *w == Some(0)), "{:?}", h.windows);
    // The burst ends by the dynamic threshold; the open ACK acknowledges all 22 packets and
    // advertises the real window.
    h.run_until(end + 20.0);
    let opens = h.open_acks();
    assert_eq!(opens.len(), 1, "{opens:?}");
    let (at, ack, wnd) = opens[0];
    assert!(
        at > end && at < end + 10.0,
        "open ACK {:.2} ms after the last packet",
        at - end
    );
    assert_eq!(ack, h.seq);
    assert!(wnd > 0);
    assert_eq!(h.agent.stats().closed_acks, 11);
    assert_eq!(
        h.conn().window_estimate,
        23,
        "W = packets of the last window + 1"
    );
}

#[test]
fn probe_goes_d_after_the_open_ack_and_its_response_ends_the_burst() {
    let mut h = Harness::new(active());
    let t = h.slow_start();
    let end = h.burst(t, 22);
    h.run_until(end + 30.0);
    let (open_at, _, _) = h.open_acks()[0];
    let d = h.conn().probe_delay.d;
    // D = W / B = 23 × 1448 B / 100 Mb/s = 2.66 ms, raised to the 3 ms floor.
    assert_eq!(d, Duration::from_millis(3));
    let probes = h.probes();
    assert_eq!(probes.len(), 1);
    assert!(
        (probes[0] - open_at - 3.0).abs() < 1e-6,
        "probe {:.3} ms after the open ACK",
        probes[0] - open_at
    );
    // The probe is followed by a closed ACK, and the radio sleeps until the next burst.
    let closed_after_probe = h
        .injected
        .iter()
        .filter(|(t, p)| *t == probes[0] && p.tcp_header().unwrap().window == 0)
        .count();
    assert_eq!(closed_after_probe, 2, "probe and closed ACK");
    assert!(!h.agent.is_awake());
    // Next burst one RTT after the open ACK, then the probe response right behind it.
    let t2 = open_at + RTT_MS;
    let end2 = h.burst(t2, 23);
    assert!(
        h.open_acks().len() == 1,
        "no open ACK before the probe response"
    );
    h.server_pure_ack(end2 + 0.1);
    let opens = h.open_acks();
    assert_eq!(opens.len(), 2);
    assert!(
        (opens[1].0 - (end2 + 0.1)).abs() < 1e-6,
        "the response ends the burst at once"
    );
    let ev = h.events();
    assert!(ev.iter().any(|e| matches!(
        e.kind,
        AgentEventKind::BurstEnded {
            packets: 23,
            why: BurstEnd::ProbeResponse {
                piggyback: false,
                ..
            }
        }
    )));
    assert_eq!(h.agent.stats().dropped_asleep, 0);
}

/// Runs shaped bursts of 22 packets for `n` rounds; the probe response follows the burst
/// by 0.2 ms, or precedes its last `late` packets.
fn shaped_rounds(h: &mut Harness, mut t: f64, n: usize, late: u32) -> f64 {
    for _ in 0..n {
        let open_at = h.open_acks().last().map(|o| o.0).unwrap();
        t = open_at + RTT_MS;
        let end = h.burst(t, 22 - late);
        h.server_pure_ack(end + 0.2);
        if late > 0 {
            h.burst(end + 0.3, late);
        }
        h.run_until(end + 1.0);
    }
    t
}

#[test]
fn d_grows_on_a_mid_burst_response_and_shrinks_after_ten_clean_bursts() {
    let mut h = Harness::new(active());
    let t = h.slow_start();
    let end = h.burst(t, 22);
    h.run_until(end + 30.0);
    let d0 = h.conn().probe_delay.d;
    // The probe response arrives before the last two packets: D + 1 ms.
    let t = shaped_rounds(&mut h, t, 1, 2);
    let d1 = h.conn().probe_delay.d;
    assert_eq!(d1, d0 + Duration::from_millis(1));
    assert!(h.agent.stats().late_packets >= 2);
    // Ten clean bursts, each with a 0.2 ms gap before the response: D −= 0.1 ms.
    shaped_rounds(&mut h, t, 10, 0);
    let d2 = h.conn().probe_delay.d;
    assert_eq!(
        d2,
        d1 - Duration::from_micros(100),
        "D shrinks by half the mean gap"
    );
    assert_eq!(h.conn().detection, BurstDetection::Active);
}

#[test]
fn reverts_to_plain_tcp_on_saturation() {
    // 2 Mb/s × 60 ms = 15 kB: a 22-packet window (32 kB) saturates the link.
    let mut h = Harness::new(AgentConfig {
        link_rate_bps: Some(2_000_000),
        ..active()
    });
    let t = h.slow_start();
    let end = h.burst(t, 22);
    h.run_until(end + 30.0);
    shaped_rounds(&mut h, t, 2, 0);
    assert!(
        matches!(h.conn().phase, Phase::Reverted(RevertReason::Saturated)),
        "{:?}",
        h.conn().phase
    );
    let opens_at_revert = h.open_acks().len();
    // The window is left open: the last injected packet opens it.
    let last = h.injected.last().unwrap().1;
    assert!(last.tcp_header().unwrap().window > 0);
    // From now on the ACKs pass unchanged and the radio stays awake.
    h.windows.clear();
    let t2 = h.open_acks().last().unwrap().0 + RTT_MS;
    h.burst(t2, 22);
    assert!(h.windows.iter().all(|w| *w == Some(65_535)));
    assert_eq!(h.open_acks().len(), opens_at_revert);
    assert!(h.agent.is_awake());
}

#[test]
fn open_ack_is_resent_after_two_rtts_then_every_rtt() {
    let mut h = Harness::new(dynamic());
    let t = h.slow_start();
    let end = h.burst(t, 22);
    h.run_until(end + 20.0);
    let (open_at, _, _) = h.open_acks()[0];
    // The open ACK is lost: nothing arrives.
    h.run_until(open_at + 4.0 * RTT_MS + 1.0);
    let opens = h.open_acks();
    assert!(opens.len() >= 3, "{opens:?}");
    let srtt = h.conn().rtt.srtt().unwrap().as_secs_f64() * 1e3;
    assert!(
        (opens[1].0 - open_at - 2.0 * srtt).abs() < 1e-3,
        "first resend after 2·SRTT: {:.2} ms",
        opens[1].0 - open_at
    );
    assert!(
        (opens[2].0 - opens[1].0 - srtt).abs() < 1e-3,
        "then every SRTT"
    );
    assert_eq!(h.agent.stats().open_acks_resent as usize, opens.len() - 1);
    // The agent is awake waiting for the burst, so the server's data gets through.
    assert!(h.agent.is_awake());
    let last = h.burst(opens.last().unwrap().0 + RTT_MS, 5);
    assert!(last > 0.0);
    assert_eq!(h.agent.stats().dropped_asleep, 0);
}

#[test]
fn packets_arriving_while_asleep_are_dropped() {
    let mut h = Harness::new(active());
    let t = h.slow_start();
    let end = h.burst(t, 22);
    h.run_until(end + 10.0); // open ACK + probe: asleep until the next burst
    assert!(!h.agent.is_awake());
    let v = h.server_pure_ack(end + 12.0);
    assert_eq!(v, Verdict::Drop);
    assert_eq!(h.agent.stats().dropped_asleep, 1);
}

#[test]
fn packets_a_host_shows_received_are_never_dropped_and_wake_the_radio() {
    // An 802.11 BSS (modern-phone, web, 802.11ax, seed 3): the agent ended stage 1 and asked
    // for sleep while an A-MPDU of the next packets was on the air; the MAC, which dozes only
    // once the exchange is over, delivered them, and the agent dropped all twelve.
    let mut h = Harness::new(active());
    let t = h.slow_start();
    let end = h.burst(t, 22);
    h.run_until(end + 10.0);
    assert!(!h.agent.is_awake());
    let e = h.echo(end + 12.0);
    let p = h.tcp(false, h.seq, h.cseq, TcpFlags::ACK, MSS, Timestamps { tsval: 2100, tsecr: e });
    h.agent.on_received(ms(end + 12.0), &p);
    h.settle(end + 12.0);
    assert_eq!(h.agent.stats().dropped_asleep, 0);
    assert!(matches!(h.conn().phase, Phase::Shaping(Shape::Receiving { .. })), "the agent saw the packet: {:?}", h.conn().phase);
    assert!(h.agent.is_awake(), "data of a burst needs the radio: {:?}", h.radio.last());
    assert_eq!(h.radio.last().unwrap().1, RadioCommand::Wake);
}

#[test]
fn a_response_completed_by_the_repair_is_finished_and_the_next_request_is_seen() {
    // modern-phone web 802.11ax seed 3: the tail of an object was lost; the retransmission
    // filled the hole and the client's cumulative ACK covered the whole response, but the
    // agent, counting only the retransmission, went on shaping a response that was over (open
    // ACKs resent every RTT), missed the next request on the connection and, taking the next
    // object's size from the old response's start, declared it finished at its first packet
    // and slept with no wake-up: the page never completed.
    let mut h = Harness::new(active());
    h.handshake(0.0);
    let resp_start = h.seq;
    h.agent.expect_response(ms(RTT_MS), CLIENT, SERVER, 6 * MSS as u64);
    let mut t = 2.0 * RTT_MS;
    let end = h.burst(t, 2);
    h.ack_now(end + 0.05);
    t += RTT_MS;
    // Stage 2, the response's last four packets: the second is lost, then repaired.
    let rt = h.stage_of_four_with_the_second_lost_and_repaired(t);
    assert_eq!(h.seq.wrapping_sub(resp_start), 6 * MSS);
    let ts = h.client_ts(rt + 0.01);
    let ack = h.tcp(true, h.cseq, h.seq, TcpFlags::ACK, 0, ts);
    assert_eq!(h.client_send(rt + 0.01, ack), Some(65_535), "the last ACK passes with its real window");
    assert_eq!(h.conn().phase, Phase::Finished);
    assert_eq!(h.radio.last().unwrap().1, RadioCommand::Sleep { until: None });
    h.run_until(rt + 10.0 * RTT_MS);
    assert_eq!(h.agent.stats().open_acks_resent, 0);
    // The next request on the connection starts a new response.
    let rq = rt + 500.0;
    let ts = h.client_ts(rq);
    let req = h.tcp(true, h.cseq, h.seq, TcpFlags::ACK | TcpFlags::PSH, 100, ts);
    h.client_send(rq, req);
    h.cseq += 100;
    assert!(matches!(h.conn().phase, Phase::AwaitResponse { .. }), "{:?}", h.conn().phase);
    h.agent.expect_response(ms(rq), CLIENT, SERVER, 2 * MSS as u64);
    assert!(matches!(h.conn().phase, Phase::AwaitResponse { .. }), "not finished before a byte came");
    // The site's cached response time lets it sleep, but only until the response is due.
    assert!(h.agent.is_awake() || h.agent.poll_timeout().is_some(), "{:?}", h.radio.last());
}

#[test]
fn sleeps_only_when_every_connection_is_idle() {
    let mut h = Harness::new(active());
    h.handshake(0.0);
    // A second connection to another site, opened at 70 ms: its SYN-ACK is outstanding
    // (no cache entry), so it needs the radio awake.
    let other = Endpoint::new(Ipv4Addr::new(10, 0, 0, 9), 80);
    let mut syn = h.tcp(
        true,
        5_000,
        0,
        TcpFlags::SYN,
        0,
        Timestamps {
            tsval: 11,
            tsecr: 0,
        },
    );
    syn.dst = other.addr;
    h.client_send(70.0, syn);
    // Connection 0 receives its first stage and goes idle between stages...
    let end = h.burst(2.0 * RTT_MS, 2);
    // With a single RTT sample VAR is RTT/2, so T_idle is at its RTT/2 ceiling.
    h.run_until(end + 20.0);
    assert_eq!(h.agent.connections()[0].status(ms(end + 20.0)), Status::Active);
    h.run_until(end + 31.0);
    assert_eq!(
        h.agent.connections()[0].status(ms(end + 31.0)),
        Status::Idle
    );
    // ...but connection 1 still waits for its SYN-ACK: no sleep at all so far.
    assert!(h.agent.is_awake());
    let ev = h.events();
    assert!(
        !h.radio
            .iter()
            .any(|(_, c)| matches!(c, RadioCommand::Sleep { .. })),
        "{:?} {:?}",
        h.radio,
        ev
    );
    // The SYN-ACK arrives; connection 1 is open with nothing requested: both idle → sleep
    // until connection 0's next stage.
    let mut synack = h.tcp(
        false,
        9_000,
        5_001,
        TcpFlags::SYN | TcpFlags::ACK,
        0,
        Timestamps {
            tsval: 5,
            tsecr: 11,
        },
    );
    synack.src = other.addr;
    h.server_send(end + 32.0, synack);
    h.settle(end + 32.0);
    assert!(!h.agent.is_awake());
    let until = match h.radio.last().unwrap().1 {
        RadioCommand::Sleep { until } => until.unwrap(),
        c => panic!("{c:?}"),
    };
    let expected = h.agent.connections()[0].stages.next_start.unwrap();
    assert_eq!(until, expected - AgentConfig::default().wake_guard);
}

#[test]
fn rtt_cache_lets_a_second_connection_sleep_through_setup() {
    let mut h = Harness::new(active());
    h.handshake(0.0);
    h.burst(2.0 * RTT_MS, 2);
    h.ack_now(2.0 * RTT_MS + 1.0);
    let bytes = 2 * MSS as u64;
    h.agent.expect_response(ms(121.0), CLIENT, SERVER, bytes);
    assert_eq!(h.conn().phase, Phase::Finished);
    // A second connection to the same site sleeps right after its SYN, until the cached
    // SYN → SYN-ACK time (capped by the site's minimum RTT) minus the guard.
    let mut h2 = h;
    h2.client = Endpoint::new(CLIENT.addr, 50_001);
    let ts = h2.client_ts(200.0);
    let syn = h2.tcp(true, 1, 0, TcpFlags::SYN, 0, ts);
    let before = *h2.agent.stats();
    h2.client_send(200.0, syn);
    assert!(!h2.agent.is_awake(), "asleep during the cached handshake");
    // The SYN's look-up counts as a hit.
    assert_eq!((h2.agent.stats().rtt_cache_hits, h2.agent.stats().rtt_cache_misses), (before.rtt_cache_hits + 1, before.rtt_cache_misses));
    match h2.radio.last().unwrap().1 {
        RadioCommand::Sleep { until: Some(u) } => assert_eq!(u, ms(200.0 + RTT_MS - 1.0)),
        c => panic!("{c:?}"),
    }
    // Without the cache (flushed between pages) it stays awake.
    h2.agent.flush_site_cache();
    h2.client = Endpoint::new(CLIENT.addr, 50_002);
    let ts = h2.client_ts(300.0);
    let syn = h2.tcp(true, 1, 0, TcpFlags::SYN, 0, ts);
    let before = *h2.agent.stats();
    h2.client_send(300.0, syn);
    assert!(h2.agent.is_awake());
    // After the flush the look-up misses.
    assert_eq!((h2.agent.stats().rtt_cache_hits, h2.agent.stats().rtt_cache_misses), (before.rtt_cache_hits, before.rtt_cache_misses + 1));
}

#[test]
fn a_loss_passes_duplicate_acks_open_and_shaping_resumes_after_the_repair() {
    let mut h = Harness::new(dynamic());
    let t = h.slow_start();
    // First shaped burst with packet 5 lost.
    h.windows.clear();
    let lost_seq = h.seq + 4 * MSS;
    for k in 0..22u32 {
        let now = t + 0.6 * k as f64;
        let e = h.echo(now);
        let p = h.tcp(
            false,
            h.seq,
            h.cseq,
            TcpFlags::ACK,
            MSS,
            Timestamps {
                tsval: 2000 + now as u32,
                tsecr: e,
            },
        );
        h.seq = h.seq.wrapping_add(MSS);
        if p.tcp_header().unwrap().seq == lost_seq {
            continue;
        }
        h.server_send(now, p);
        h.settle(now);
        // The client TCP: ACKs in order every second packet; duplicate ACKs after the hole.
        let ts = h.client_ts(now + 0.01);
        let ack_no = if k < 4 { h.seq } else { lost_seq };
        if k < 4 && k % 2 == 0 {
            continue;
        }
        let ack = h.tcp(true, h.cseq, ack_no, TcpFlags::ACK, 0, ts);
        let w = h.client_send(now + 0.01, ack);
        h.windows.push(w);
    }
    assert!(matches!(h.conn().phase, Phase::Recovering));
    assert_eq!(h.windows[0], Some(0), "closed before the loss");
    assert!(
        h.windows.iter().skip(2).all(|w| *w == Some(65_535)),
        "duplicate ACKs pass open: {:?}",
        h.windows
    );
    assert!(h.agent.is_awake());
    // The retransmission fills the hole; the cumulative ACK goes out closed and shaping resumes.
    let rt = t + 0.6 * 22.0 + RTT_MS;
    let p = h.tcp(
        false,
        lost_seq,
        h.cseq,
        TcpFlags::ACK,
        MSS,
        Timestamps {
            tsval: 2100,
            tsecr: h.echo(rt),
        },
    );
    h.server_send(rt, p);
    h.settle(rt);
    let ts = h.client_ts(rt + 0.01);
    let ack = h.tcp(true, h.cseq, h.seq, TcpFlags::ACK, 0, ts);
    assert_eq!(h.client_send(rt + 0.01, ack), Some(0));
    assert!(matches!(
        h.conn().phase,
        Phase::Shaping(Shape::Receiving { .. })
    ));
    // Data the server sent under the open window may arrive for one RTT after the first
    // closed ACK: the burst is not declared over before that.
    h.run_until(rt + RTT_MS - 5.0);
    assert!(h.open_acks().is_empty(), "still draining");
    h.run_until(rt + 2.0 * RTT_MS);
    assert_eq!(
        h.open_acks().last().unwrap().1,
        h.seq,
        "the open ACK covers the repaired window"
    );
}

#[test]
fn a_loss_in_slow_start_starts_shaping_after_the_repair_and_counts_it_once() {
    // Seen live at 1 % loss: the connection went from slow start through a repair straight to
    // shaping, and `shaped_connections` stayed 0 while the agent shaped every window.
    let mut h = Harness::new(active());
    h.handshake(0.0);
    let mut t = 2.0 * RTT_MS;
    let end = h.burst(t, 2);
    h.ack_now(end + 0.05);
    t += RTT_MS;
    // Stage 2: the second of four packets is lost, then repaired.
    let rt = h.stage_of_four_with_the_second_lost_and_repaired(t);
    let ts = h.client_ts(rt + 0.01);
    let ack = h.tcp(true, h.cseq, h.seq, TcpFlags::ACK, 0, ts);
    assert_eq!(h.client_send(rt + 0.01, ack), Some(0), "the repair's ACK goes out closed");
    assert!(matches!(h.conn().phase, Phase::Shaping(_)));
    assert_eq!(h.agent.stats().shaped_connections, 1);
    let started = h.events().iter().filter(|e| e.kind == AgentEventKind::ShapingStarted).count();
    assert_eq!(started, 1);
}

#[test]
fn finished_connections_let_the_radio_sleep_with_no_wake_up() {
    let mut h = Harness::new(active());
    h.handshake(0.0);
    h.agent
        .expect_response(ms(100.0), CLIENT, SERVER, 3 * MSS as u64);
    let end = h.burst(2.0 * RTT_MS, 3);
    h.ack_now(end + 0.05);
    assert_eq!(h.conn().phase, Phase::Finished);
    assert!(!h.agent.is_awake());
    assert_eq!(
        h.radio.last().unwrap().1,
        RadioCommand::Sleep { until: None }
    );
    assert_eq!(h.agent.poll_timeout(), None);
}

/// A UDP datagram between the client and the server (`to_client`: arriving).
fn udp(to_client: bool) -> Packet {
    use crate::packet::UdpHeader;
    let (s, d) = if to_client { (SERVER, CLIENT) } else { (CLIENT, SERVER) };
    Packet::udp(s.addr, d.addr, UdpHeader { src_port: s.port, dst_port: d.port }, 1000)
}

#[test]
fn non_tcp_packets_hold_the_radio_up_for_the_hold_then_it_sleeps() {
    let mut h = Harness::new(active());
    // Nothing to shape: the radio sleeps at once (until the client next sends).
    h.settle(0.0);
    assert!(!h.agent.is_awake());
    // A datagram the client sends wakes it (the host woke the NIC to send it) and holds it up
    // 100 ms, which an answer arriving within that time finds awake.
    let mut p = udp(false);
    assert_eq!(h.agent.on_outgoing(ms(10.0), &mut p), Verdict::Pass);
    h.settle(10.0);
    assert!(h.agent.is_awake());
    assert_eq!(h.agent.poll_timeout(), Some(ms(110.0)));
    assert_eq!(h.agent.on_incoming(ms(60.0), &udp(true)), Verdict::Pass);
    h.settle(60.0);
    // The arrival extends the hold to 160 ms; then the radio sleeps.
    h.run_until(159.0);
    assert!(h.agent.is_awake());
    h.run_until(160.0);
    assert!(!h.agent.is_awake());
    assert_eq!(h.radio.last(), Some(&(160.0, RadioCommand::Sleep { until: None })));
    assert_eq!(h.agent.stats().dropped_asleep, 0);
}

#[test]
fn an_open_session_keeps_the_radio_awake_and_wakes_it() {
    let mut h = Harness::new(active());
    h.settle(0.0);
    assert!(!h.agent.is_awake());
    // A stream to the client starts: the radio wakes before its first datagram, whatever
    // the TCP connections would allow, and stays awake while the stream runs.
    h.agent.open_session();
    h.settle(5.0);
    assert_eq!(h.radio.last(), Some(&(5.0, RadioCommand::Wake)));
    h.run_until(5_000.0);
    assert!(h.agent.is_awake() && h.agent.open_sessions() == 1);
    assert_eq!(h.agent.on_incoming(ms(4_000.0), &udp(true)), Verdict::Pass);
    // Closed at 6 s: awake for the hold (late datagrams), then asleep.
    h.agent.close_session(ms(6_000.0));
    h.settle(6_000.0);
    h.run_until(6_099.0);
    assert!(h.agent.is_awake());
    h.run_until(6_100.0);
    assert!(!h.agent.is_awake());
}

#[test]
fn invalid_configuration_is_rejected_with_the_field_named() {
    let e = CcAgent::new(AgentConfig {
        saturation_fraction: 1.5,
        ..AgentConfig::default()
    })
    .unwrap_err();
    assert!(e.0.contains("saturation_fraction"));
    let e = CcAgent::new(AgentConfig {
        detection: BurstDetection::Fixed(Duration::ZERO),
        ..AgentConfig::default()
    })
    .unwrap_err();
    assert!(e.0.contains("fixed"));
}
