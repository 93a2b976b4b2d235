//! Time series sampled during a run (cwnd, windows, queues, radio states), stored by column.

use serde::Serialize;
use wattlab_core::tcp::TcpConnection;
use wattlab_core::Time;

/// Sampled series: three tables stored by column. Each table's fields are its DataFrame's
/// columns, in order, named with their units (`wattlab-py` converts any such struct
/// generically: a field added here appears in Python with no other change).
#[derive(Clone, Debug, Default, Serialize)]
pub struct TimeSeries {
    /// Sender state of every flow, every sample interval.
    pub flows: FlowSeries,
    /// Queue length of every channel (link direction), every sample interval.
    pub queues: QueueSeries,
    /// State changes of every radio under every policy or mode.
    pub radio: RadioSeries,
}

/// Flow samples, by column.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FlowSeries {
    /// Time (s).
    pub time_s: Vec<f64>,
    /// Flow index (as in `RunOutput::flow_names`; Python shows the name).
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
}

/// Queue samples, by column.
#[derive(Clone, Debug, Default, Serialize)]
pub struct QueueSeries {
    /// Time (s).
    pub time_s: Vec<f64>,
    /// Channel index (as in `RunOutput::channel_names`; Python shows the link's name).
    pub link: Vec<u32>,
    /// Queue length (packets).
    pub packets: Vec<u32>,
    /// Queue length (bytes).
    pub bytes: Vec<u64>,
}

/// Radio state changes, by column.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RadioSeries {
    /// Node name.
    pub node: Vec<String>,
    /// Accounting policy or power mode.
    pub policy: Vec<String>,
    /// Time (s).
    pub time_s: Vec<f64>,
    /// The state entered.
    pub state: Vec<&'static str>,
}

impl TimeSeries {
    /// Append a sample of a flow's sender state.
    pub fn push_flow(&mut self, t: Time, flow: u32, snd: &TcpConnection, advertised: u32, delivered: u64) {
        let f = &mut self.flows;
        f.time_s.push(t.as_secs_f64());
        f.flow.push(flow);
        f.cwnd.push(snd.cwnd());
        f.ssthresh.push(snd.ssthresh());
        f.peer_window.push(snd.peer_window());
        f.advertised_window.push(advertised);
        f.in_flight.push(snd.bytes_in_flight());
        f.srtt_ms.push(snd.srtt().map(|d| d.as_secs_f64() * 1e3).unwrap_or(f64::NAN));
        f.rto_ms.push(snd.rto().as_secs_f64() * 1e3);
        f.delivered.push(delivered);
    }

    /// Append a sample of a channel's queue.
    pub fn push_queue(&mut self, t: Time, channel: u32, packets: u32, bytes: u64) {
        let q = &mut self.queues;
        q.time_s.push(t.as_secs_f64());
        q.link.push(channel);
        q.packets.push(packets);
        q.bytes.push(bytes);
    }
}
