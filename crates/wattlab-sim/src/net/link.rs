//! Links: DropTail queues, transmitters, propagation pipes and shared wireless media.
//!
//! A link direction is a [`Channel`]: packets wait in a DropTail queue, are serialized one at
//! a time at the channel rate (plus a fixed per-frame overhead on the simple wireless hop),
//! may be lost by the direction's loss process, and then travel the propagation delay (plus
//! jitter) in a FIFO pipe. A [`Medium`] makes two channels share one transmitter slot: the
//! half-duplex wireless hop, where the AP and its station take turns.

use super::impairment::{Jitter, LossProcess};
use crate::rng::{RngStreams, StreamRng};
use serde::Serialize;
use std::collections::VecDeque;
use wattlab_core::{Duration, Packet, Time};

/// Index of a channel (one direction of a link) in the simulation.
pub type ChannelId = u32;
/// Index of an interface in the simulation.
pub type IfaceId = u32;

/// Capacity of a DropTail queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    /// At most this many packets.
    Packets(u32),
    /// At most this many bytes (IP length).
    Bytes(u64),
}

/// What a link needs to know of a packet it carries: its IP length (queue limits in bytes,
/// serialization time, byte counters). Lets the live emulator reuse [`Channel`] for its own
/// packet handles.
pub trait LinkPacket {
    /// IP length in bytes.
    fn ip_len(&self) -> u32;
}

impl LinkPacket for Packet {
    fn ip_len(&self) -> u32 {
        Packet::ip_len(self)
    }
}

/// Packets a queue has room for before it first grows.
const INITIAL_QUEUE_CAPACITY: usize = 16;

/// A first-in first-out queue that drops arrivals when full.
#[derive(Debug)]
pub struct DropTailQueue<P = Packet> {
    items: VecDeque<P>,
    bytes: u64,
    limit: QueueLimit,
}

impl<P: LinkPacket> DropTailQueue<P> {
    /// An empty queue with the given limit. It reserves room for a few packets and grows
    /// (by doubling, a handful of times per queue) as far as its traffic needs: memory follows
    /// what is queued, not the limit times the number of links.
    pub fn new(limit: QueueLimit) -> Self {
        let cap = match limit {
            QueueLimit::Packets(n) => n as usize,
            QueueLimit::Bytes(b) => (b / 1500) as usize + 1,
        };
        DropTailQueue { items: VecDeque::with_capacity(cap.min(INITIAL_QUEUE_CAPACITY)), bytes: 0, limit }
    }

    /// Enqueue `p` unless the queue is full; returns false if it was dropped.
    pub fn offer(&mut self, p: P) -> bool {
        self.try_offer(p).is_ok()
    }

    /// Enqueue `p` unless the queue is full; gives `p` back if it does not fit.
    pub fn try_offer(&mut self, p: P) -> Result<(), P> {
        let fits = match self.limit {
            QueueLimit::Packets(n) => self.items.len() < n as usize,
            QueueLimit::Bytes(b) => self.bytes + p.ip_len() as u64 <= b,
        };
        if !fits {
            return Err(p);
        }
        self.bytes += p.ip_len() as u64;
        self.items.push_back(p);
        Ok(())
    }

    /// Dequeue the head packet.
    pub fn pop(&mut self) -> Option<P> {
        let p = self.items.pop_front()?;
        self.bytes -= p.ip_len() as u64;
        Some(p)
    }

    /// Packets queued.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True if nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Bytes queued.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The queue's capacity.
    pub fn limit(&self) -> QueueLimit {
        self.limit
    }
}

/// Counters of one channel.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ChannelStats {
    /// Packets that finished transmission.
    pub packets_sent: u64,
    /// IP bytes that finished transmission.
    pub bytes_sent: u64,
    /// Packets dropped because the queue was full.
    pub queue_drops: u64,
    /// Packets lost by the loss process.
    pub losses: u64,
    /// Packets delivered to the far end.
    pub packets_delivered: u64,
    /// Largest queue length seen, in packets.
    pub max_queue_packets: u64,
    /// Time the transmitter was busy.
    pub busy_ns: u64,
}

/// What one direction of a link does to packets: its rate, queue, delay and impairments.
#[derive(Clone, Debug)]
pub struct ChannelParams {
    /// Serialization rate, bits per second.
    pub rate_bps: u64,
    /// Fixed per-frame overhead added to the serialization time.
    pub overhead: Duration,
    /// Propagation delay.
    pub delay: Duration,
    /// Capacity of the transmit queue (packets waiting, not the one being serialized).
    pub queue: QueueLimit,
    /// Loss process, applied when a packet finishes serialization.
    pub loss: LossProcess,
    /// Extra propagation delay per packet.
    pub jitter: Jitter,
    /// Let jitter reorder packets (otherwise they leave the pipe in order).
    pub reorder: bool,
}

/// One direction of a link, carrying packets of type `P` (the simulator's [`Packet`] by default).
pub struct Channel<P = Packet> {
    /// Report name, e.g. `wired:server->ap`.
    pub name: String,
    /// Transmitting interface.
    pub from: IfaceId,
    /// Receiving interface.
    pub to: IfaceId,
    /// Serialization rate.
    pub rate_bps: u64,
    /// Fixed per-frame overhead added to the serialization time.
    pub overhead: Duration,
    /// Propagation delay.
    pub delay: Duration,
    /// Transmit queue.
    pub queue: DropTailQueue<P>,
    /// The packet being serialized, if any.
    pub in_tx: Option<P>,
    /// When the current transmission ends.
    pub tx_end: Time,
    /// Packets propagating, with their arrival times (non-decreasing unless `reorder`).
    pub pipe: VecDeque<(Time, P)>,
    /// Arrival time of the last packet put in the pipe (keeps FIFO order under jitter).
    pub last_arrival: Time,
    /// Loss process and its stream.
    pub loss: LossProcess,
    /// RNG stream of the loss process.
    pub loss_rng: StreamRng,
    /// Jitter process.
    pub jitter: Jitter,
    /// RNG stream of the jitter process.
    pub jitter_rng: StreamRng,
    /// Allow jitter to reorder packets.
    pub reorder: bool,
    /// Shared medium this channel transmits on, if half-duplex.
    pub medium: Option<u32>,
    /// Power-managed `[[wireless]]` hop this channel belongs to (None: no power management).
    pub hop: Option<u32>,
    /// Counters.
    pub stats: ChannelStats,
}

impl<P: LinkPacket> Channel<P> {
    /// An idle channel `name` from `from` to `to`, on no medium and no power-managed hop; its
    /// loss and jitter draw from the streams `loss:{name}` and `jitter:{name}` of `streams`.
    pub fn new(name: String, from: IfaceId, to: IfaceId, params: ChannelParams, streams: &RngStreams) -> Self {
        let ChannelParams { rate_bps, overhead, delay, queue, loss, jitter, reorder } = params;
        Channel {
            loss_rng: streams.stream(&format!("loss:{name}")),
            jitter_rng: streams.stream(&format!("jitter:{name}")),
            name,
            from,
            to,
            rate_bps,
            overhead,
            delay,
            queue: DropTailQueue::new(queue),
            in_tx: None,
            tx_end: Time::ZERO,
            pipe: VecDeque::new(),
            last_arrival: Time::ZERO,
            loss,
            jitter,
            reorder,
            medium: None,
            hop: None,
            stats: ChannelStats::default(),
        }
    }

    /// The parameters this channel was made with (its loss process in its current state).
    pub fn params(&self) -> ChannelParams {
        ChannelParams {
            rate_bps: self.rate_bps,
            overhead: self.overhead,
            delay: self.delay,
            queue: self.queue.limit(),
            loss: self.loss.clone(),
            jitter: self.jitter.clone(),
            reorder: self.reorder,
        }
    }

    /// Serialization time of `p` on this channel.
    pub fn airtime(&self, p: &P) -> Duration {
        self.overhead + Duration::transmission(p.ip_len() as u64, self.rate_bps)
    }

    /// True if the transmitter has something to send and is not sending.
    pub fn ready(&self) -> bool {
        self.in_tx.is_none() && !self.queue.is_empty()
    }

    /// Queue `p` for transmission (DropTail): counts a queue drop and gives `p` back if full.
    pub fn enqueue(&mut self, p: P) -> Result<(), P> {
        if let Err(p) = self.queue.try_offer(p) {
            self.stats.queue_drops += 1;
            return Err(p);
        }
        self.stats.max_queue_packets = self.stats.max_queue_packets.max(self.queue.len() as u64);
        Ok(())
    }

    /// Start serializing the head of the queue at `now`: returns when the transmission ends
    /// and the packet being sent (None if the queue is empty).
    pub fn start_tx(&mut self, now: Time) -> Option<(Time, &P)> {
        let p = self.queue.pop()?;
        let airtime = self.airtime(&p);
        self.tx_end = now + airtime;
        self.stats.busy_ns += airtime.0;
        Some((self.tx_end, self.in_tx.insert(p)))
    }

    /// The transmission in progress ends at `now`: the packet goes into the pipe (`Ok`, its
    /// arrival time at the far end) or is lost (`Err`, the packet). None if nothing was sent.
    pub fn finish_tx(&mut self, now: Time) -> Option<Result<Time, P>> {
        let p = self.in_tx.take()?;
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += p.ip_len() as u64;
        Some(self.propagate(now, p))
    }

    /// Put a packet that finished transmission into the pipe, unless the loss process takes
    /// it: returns its arrival time at the far end, or gives the lost packet back.
    pub fn propagate(&mut self, now: Time, p: P) -> Result<Time, P> {
        if self.loss.next_lost(now, &mut self.loss_rng) {
            self.stats.losses += 1;
            return Err(p);
        }
        let mut at = now + self.delay + self.jitter.sample(&mut self.jitter_rng);
        if self.reorder {
            let pos = self.pipe.iter().rposition(|(t, _)| *t <= at).map_or(0, |i| i + 1);
            self.pipe.insert(pos, (at, p));
        } else {
            at = at.max(self.last_arrival);
            self.pipe.push_back((at, p));
        }
        self.last_arrival = self.last_arrival.max(at);
        Ok(at)
    }
}

/// A transmitter slot shared by two channels (half-duplex wireless hop).
#[derive(Debug)]
pub struct Medium {
    /// The channels sharing the medium.
    pub channels: [ChannelId; 2],
    /// Channel currently transmitting.
    pub busy_with: Option<ChannelId>,
    /// Which channel gets the medium on a tie (alternates, so neither side starves).
    pub next_turn: usize,
}

impl Medium {
    /// Choose which ready channel transmits next: the one whose turn it is, else the other.
    pub fn pick(&mut self, ready: [bool; 2]) -> Option<ChannelId> {
        let first = self.next_turn;
        for k in [first, 1 - first] {
            if ready[k] {
                self.next_turn = 1 - k;
                return Some(self.channels[k]);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;
    use wattlab_core::packet::UdpHeader;

    fn pkt(len: u32) -> Packet {
        Packet::udp(Ipv4Addr::LOCALHOST, Ipv4Addr::LOCALHOST, UdpHeader::default(), len - 28)
    }

    #[test]
    fn droptail_limits_by_packets_and_bytes() {
        let mut q = DropTailQueue::new(QueueLimit::Packets(2));
        assert!(q.offer(pkt(100)) && q.offer(pkt(100)));
        assert!(!q.offer(pkt(100)));
        let mut q = DropTailQueue::new(QueueLimit::Bytes(250));
        assert!(q.offer(pkt(100)) && q.offer(pkt(100)));
        assert!(!q.offer(pkt(100)));
        assert_eq!(q.bytes(), 200);
        q.pop();
        assert!(q.offer(pkt(150)));
        assert_eq!(q.bytes(), 250);
    }

    #[test]
    fn medium_alternates_on_ties() {
        let mut m = Medium { channels: [7, 9], busy_with: None, next_turn: 0 };
        assert_eq!(m.pick([true, true]), Some(7));
        assert_eq!(m.pick([true, true]), Some(9));
        assert_eq!(m.pick([true, false]), Some(7));
        assert_eq!(m.pick([false, false]), None);
    }
}
