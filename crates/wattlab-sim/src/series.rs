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
    /// Slow-start threshold (bytes); missing until the first loss sets one (the core's
    /// "infinite" `u32::MAX` is not a number of bytes).
    pub ssthresh: Vec<Option<u32>>,
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

/// Bytes one cell costs in Python: converted to a numpy array or a list of `str`
/// references (8 bytes), then copied once more into the DataFrame's own block.
pub const PYTHON_CELL_BYTES: usize = 16;

/// Bytes a flow sample costs, for the cost estimate: its Rust columns (f64 ×3, u32 ×6, u64)
/// and their Python copy.
pub const FLOW_ROW_BYTES: f64 = (3 * 8 + 6 * 4 + 8 + 10 * PYTHON_CELL_BYTES) as f64;
/// Bytes a queue sample costs: its Rust columns (f64, u32 ×2, u64) and their Python copy.
pub const QUEUE_ROW_BYTES: f64 = (8 + 2 * 4 + 8 + 4 * PYTHON_CELL_BYTES) as f64;
/// Bytes a radio state change costs: the meter's log entry (16), the Rust row (two `String`s
/// with their heap blocks, an f64, a `&str`) and its Python copy.
pub const RADIO_ROW_BYTES: f64 = (16 + 2 * (24 + 32) + 8 + 16 + 4 * PYTHON_CELL_BYTES) as f64;

/// Room for `n` more values in `v` (amortized growth), or an error instead of an aborted
/// process when the memory is not there.
fn room<T>(v: &mut Vec<T>, n: usize) -> Result<(), std::collections::TryReserveError> {
    if v.capacity() - v.len() < n {
        v.try_reserve(n)?;
    }
    Ok(())
}

impl TimeSeries {
    /// Makes room for one sample of `flows` flows and `queues` queues, so the pushes that
    /// follow do not allocate; an error says the memory ran out (the run ends with it).
    pub fn reserve_sample(&mut self, flows: usize, queues: usize) -> Result<(), String> {
        let f = &mut self.flows;
        let q = &mut self.queues;
        let ok = room(&mut f.time_s, flows)
            .and(room(&mut f.flow, flows))
            .and(room(&mut f.cwnd, flows))
            .and(room(&mut f.ssthresh, flows))
            .and(room(&mut f.peer_window, flows))
            .and(room(&mut f.advertised_window, flows))
            .and(room(&mut f.in_flight, flows))
            .and(room(&mut f.srtt_ms, flows))
            .and(room(&mut f.rto_ms, flows))
            .and(room(&mut f.delivered, flows))
            .and(room(&mut q.time_s, queues))
            .and(room(&mut q.link, queues))
            .and(room(&mut q.packets, queues))
            .and(room(&mut q.bytes, queues));
        ok.map_err(|_| {
            format!(
                "out of memory for the time series after {} flow and {} queue samples: raise [output] sample_interval, \
                 shorten the run or leave time series off",
                f.time_s.len(),
                q.time_s.len()
            )
        })
    }

    /// Append a sample of a flow's sender state.
    pub fn push_flow(&mut self, t: Time, flow: u32, snd: &TcpConnection, advertised: u32, delivered: u64) {
        let f = &mut self.flows;
        f.time_s.push(t.as_secs_f64());
        f.flow.push(flow);
        f.cwnd.push(snd.cwnd());
        f.ssthresh.push(Some(snd.ssthresh()).filter(|&s| s != u32::MAX));
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
