//! Time series sampled during a run (cwnd, windows, queues, radio states), stored by column.

use serde::Serialize;
use wattlab_core::tcp::TcpConnection;
use wattlab_core::Time;

/// Sampled series, stored by column (ready for DataFrames).
#[derive(Clone, Debug, Default, Serialize)]
pub struct TimeSeries {
    /// Flow samples: time (s).
    pub flow_time_s: Vec<f64>,
    /// Flow samples: flow index.
    pub flow: Vec<u32>,
    /// Congestion window of the data sender (bytes).
    pub cwnd: Vec<u32>,
    /// Slow-start threshold (bytes).
    pub ssthresh: Vec<u32>,
    /// Receiver window as the data sender last saw it (bytes).
    pub peer_window: Vec<u32>,
    /// Window the receiver currently advertises (bytes).
    pub advertised_window: Vec<u32>,
    /// Bytes in flight.
    pub in_flight: Vec<u32>,
    /// Smoothed RTT (ms; NaN before the first sample).
    pub srtt_ms: Vec<f64>,
    /// Current retransmission timeout of the data sender (ms).
    pub rto_ms: Vec<f64>,
    /// Application bytes delivered to the receiver so far.
    pub delivered: Vec<u64>,
    /// Queue samples: time (s).
    pub queue_time_s: Vec<f64>,
    /// Queue samples: channel index.
    pub channel: Vec<u32>,
    /// Queue length (packets).
    pub queue_packets: Vec<u32>,
    /// Queue length (bytes).
    pub queue_bytes: Vec<u64>,
    /// Radio state changes: node name.
    pub radio_node: Vec<String>,
    /// Radio state changes: accounting policy.
    pub radio_policy: Vec<String>,
    /// Radio state changes: time (s).
    pub radio_time_s: Vec<f64>,
    /// Radio state changes: the state entered.
    pub radio_state: Vec<&'static str>,
}

impl TimeSeries {
    /// Append a sample of a flow's sender state.
    pub fn push_flow(&mut self, t: Time, flow: u32, snd: &TcpConnection, advertised: u32, delivered: u64) {
        self.flow_time_s.push(t.as_secs_f64());
        self.flow.push(flow);
        self.cwnd.push(snd.cwnd());
        self.ssthresh.push(snd.ssthresh());
        self.peer_window.push(snd.peer_window());
        self.advertised_window.push(advertised);
        self.in_flight.push(snd.bytes_in_flight());
        self.srtt_ms.push(snd.srtt().map(|d| d.as_secs_f64() * 1e3).unwrap_or(f64::NAN));
        self.rto_ms.push(snd.rto().as_secs_f64() * 1e3);
        self.delivered.push(delivered);
    }

    /// Append a sample of a channel's queue.
    pub fn push_queue(&mut self, t: Time, channel: u32, packets: u32, bytes: u64) {
        self.queue_time_s.push(t.as_secs_f64());
        self.channel.push(channel);
        self.queue_packets.push(packets);
        self.queue_bytes.push(bytes);
    }
}

