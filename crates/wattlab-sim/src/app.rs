//! Applications: bulk download, bulk upload, UDP constant bit rate, ping and web browsing
//! (whose state lives in `crate::web`).
//!
//! Applications talk to TCP only through the sans-IO connection API (`send`, `read`, `close`)
//! and keep their own progress in a [`FlowRecord`], which becomes a row of the summary.

use wattlab_core::tcp::TcpConnection;
use wattlab_core::{Duration, Time};

/// Index of an application in the simulation.
pub type AppId = u32;

/// Progress and outcome of one flow (one `[[flow]]` of the scenario).
#[derive(Clone, Debug, Default)]
pub struct FlowRecord {
    /// Name in reports.
    pub name: String,
    /// `bulk-download`, `bulk-upload`, `udp-cbr`, `ping` or `web`.
    pub kind: &'static str,
    /// Sending node (of the bulk data).
    pub sender: String,
    /// Receiving node.
    pub receiver: String,
    /// Bytes the flow must deliver (None: runs until stopped).
    pub target_bytes: Option<u64>,
    /// When the flow starts.
    pub start: Time,
    /// When the connection was established (TCP).
    pub connected_at: Option<Time>,
    /// When the receiving application had every byte.
    pub completed_at: Option<Time>,
    /// Application bytes delivered to the receiving application.
    pub bytes_delivered: u64,
    /// Connection that sends the bulk data (TCP).
    pub data_conn: Option<u32>,
    /// Connection that receives the bulk data (TCP).
    pub recv_conn: Option<u32>,
    /// Datagrams sent (UDP).
    pub datagrams_sent: u64,
    /// Datagrams received (UDP).
    pub datagrams_received: u64,
    /// Ping: when each request left (index = sequence number).
    pub ping_sent: Vec<Time>,
    /// Ping: round-trip time of each answered request, in order of arrival.
    pub rtts: Vec<Duration>,
    /// Web: index of the flow's state in `Simulation::webs`.
    pub web: Option<u32>,
}

/// Reads a TCP receive buffer at a limited rate, with an optional pause.
///
/// The credit grows at `rate` while not paused, capped at one receive buffer so an idle reader
/// cannot store up an unbounded burst.
#[derive(Clone, Debug)]
pub struct Reader {
    rate_bps: Option<u64>,
    pause: Option<(Time, Time)>,
    /// Credit in bit-nanoseconds / 1e9 (i.e. bits × 1e9), exact integer arithmetic.
    credit: u128,
    cap: u128,
    last: Time,
}

/// Granularity of a rate-limited reader: it wakes when it can read this much (or everything).
const READ_CHUNK: u64 = 1460;

impl Reader {
    /// A reader with an optional rate limit and pause window (absolute times).
    pub fn new(rate_bps: Option<u64>, pause: Option<(Time, Time)>, buffer: u64, start: Time) -> Self {
        Reader { rate_bps, pause, credit: 0, cap: buffer as u128 * 8 * 1_000_000_000, last: start }
    }

    fn paused(&self, now: Time) -> bool {
        matches!(self.pause, Some((a, b)) if now >= a && now < b)
    }

    /// Read what the rate allows; returns bytes read and when to try again (if data remains).
    pub fn read(&mut self, now: Time, conn: &mut TcpConnection) -> (u64, Option<Time>) {
        let paused = self.paused(now);
        if let Some(rate) = self.rate_bps {
            // Credit does not accrue during a pause: subtract its overlap with [last, now).
            let elapsed = now.saturating_since(self.last).0;
            let paused_overlap = match self.pause {
                Some((a, b)) => now.min(b).saturating_since(self.last.max(a)).0,
                None => 0,
            };
            let from = elapsed - paused_overlap.min(elapsed);
            self.credit = (self.credit + rate as u128 * from as u128).min(self.cap);
        }
        self.last = now;
        if paused {
            let resume = self.pause.map(|(_, b)| b);
            return (0, if conn.readable() > 0 { resume } else { None });
        }
        let avail = conn.readable();
        let allowed = match self.rate_bps {
            None => avail,
            Some(_) => ((self.credit / 8_000_000_000) as u64).min(avail),
        };
        let n = if allowed > 0 { conn.read(allowed) } else { 0 };
        if self.rate_bps.is_some() {
            self.credit -= n as u128 * 8_000_000_000;
        }
        let left = conn.readable();
        let next = match (left, self.rate_bps) {
            (0, _) => None,
            (_, None) => Some(now),
            (left, Some(rate)) => {
                let want = left.min(READ_CHUNK) as u128 * 8_000_000_000;
                let missing = want.saturating_sub(self.credit);
                Some(now + Duration((missing.div_ceil(rate as u128)) as u64).max(Duration(1)))
            }
        };
        (n, next)
    }

    /// When a paused reader resumes, if it is paused now.
    pub fn resume_time(&self, now: Time) -> Option<Time> {
        self.pause.filter(|_| self.paused(now)).map(|(_, b)| b)
    }
}

/// What an application is and its state.
#[derive(Clone, Debug)]
pub enum App {
    /// Client of a bulk download: sends a request, reads the response.
    DownloadClient {
        /// Flow index.
        flow: usize,
        /// Request size.
        request: u64,
        /// Reader of the response.
        reader: Reader,
    },
    /// Server of a bulk download: reads the request, sends the response, closes.
    DownloadServer {
        /// Flow index.
        flow: usize,
        /// Request size to wait for.
        request: u64,
        /// Response size.
        response: u64,
        /// Request bytes read so far.
        got: u64,
        /// Response queued.
        responded: bool,
    },
    /// Client of a bulk upload: sends everything, closes.
    UploadClient {
        /// Flow index.
        flow: usize,
        /// Bytes to send.
        bytes: u64,
    },
    /// Server of a bulk upload: reads.
    UploadServer {
        /// Flow index.
        flow: usize,
        /// Reader.
        reader: Reader,
    },
    /// UDP constant-bit-rate source.
    CbrSource {
        /// Flow index.
        flow: usize,
        /// Gap between datagrams.
        interval: Duration,
        /// Payload per datagram.
        size: u32,
        /// Stop sending at this time.
        stop: Time,
        /// Source port.
        src_port: u16,
        /// Destination port.
        dst_port: u16,
    },
    /// Ping: sends `count` echo requests over UDP, one per `interval`.
    PingSource {
        /// Flow index.
        flow: usize,
        /// Gap between requests.
        interval: Duration,
        /// UDP payload of a request.
        size: u32,
        /// Requests to send.
        count: u32,
        /// Source port (replies come back to it).
        src_port: u16,
        /// Destination port (the echo responder).
        dst_port: u16,
    },
    /// Browser of a web flow; its state is `Simulation::webs[web]` (see `crate::web`).
    WebClient {
        /// Flow index.
        flow: usize,
        /// Index into `Simulation::webs`.
        web: u32,
    },
    /// HTTP server of one site of a web flow: answers every connection from the client.
    WebServer {
        /// Flow index.
        flow: usize,
        /// Index into `Simulation::webs`.
        web: u32,
    },
}

/// How long a ping flow waits for replies after its last request.
pub const PING_WAIT: Duration = Duration::from_secs(2);

impl App {
    /// The flow this application belongs to.
    pub fn flow(&self) -> usize {
        match self {
            App::DownloadClient { flow, .. }
            | App::DownloadServer { flow, .. }
            | App::UploadClient { flow, .. }
            | App::UploadServer { flow, .. }
            | App::CbrSource { flow, .. }
            | App::PingSource { flow, .. }
            | App::WebClient { flow, .. }
            | App::WebServer { flow, .. } => *flow,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reader_credit_is_capped_and_pause_stops_accrual() {
        let r = Reader::new(Some(8_000), Some((Time::from_secs_f64(1.0), Time::from_secs_f64(3.0))), 1000, Time::ZERO);
        assert!(r.resume_time(Time::from_secs_f64(2.0)) == Some(Time::from_secs_f64(3.0)));
        assert!(r.resume_time(Time::from_secs_f64(0.5)).is_none());
        assert_eq!(r.cap, 1000u128 * 8 * 1_000_000_000);
    }
}
