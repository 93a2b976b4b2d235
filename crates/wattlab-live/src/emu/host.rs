//! The emulator's NFQUEUE host: in the `ap` namespace, iptables queues every forwarded packet
//! to us; the [`PathEmulator`] decides when each one reaches the far end of the emulated path
//! (or that it is lost), and we give the kernel its verdict then: accept forwards it at once
//! over the veth, drop discards it. Packets wait in the kernel meanwhile, so nothing is
//! copied beyond the headers.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::net::UnixDatagram;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use serde::Serialize;

use super::model::{Direction, Fate, PathEmulator, PathParams, PathStats};
use crate::clock::LiveClock;
use crate::nfqueue::{stopped, BoundQueue};

/// Bytes of each packet copied to userspace: enough for the IPv4 header's length field.
const COPY_RANGE: u16 = 64;

/// Counters of the host around the model.
#[derive(Clone, Debug, Default, Serialize)]
pub struct EmuHostCounters {
    /// Packets received from the kernel.
    pub packets: u64,
    /// Verdicts given later than the model's delivery time by more than 1 ms.
    pub late_over_1ms: u64,
    /// Mean lateness of verdicts behind the model's delivery times, in µs.
    pub late_mean_us: f64,
    /// Largest lateness, in µs.
    pub late_max_us: f64,
    /// Packets the model dropped (queue full or lost).
    pub dropped: u64,
    /// Packets still held when the run stopped (dropped).
    pub held_at_stop: u64,
    /// Radio on/off messages from the station's host (`--radio-socket`).
    pub radio_messages: u64,
}

/// The emulator's report at the end of a run.
#[derive(Debug, Serialize)]
pub struct EmuReport {
    /// The model's per-channel counters.
    pub path: PathStats,
    /// The host's counters.
    pub host: EmuHostCounters,
}

/// IP length of a queued packet (the header's total length; the kernel's length otherwise).
fn ip_len(msg: &nfq::Message) -> u32 {
    match msg.get_payload() {
        [b0, _, hi, lo, ..] if b0 >> 4 == 4 => u32::from(u16::from_be_bytes([*hi, *lo])),
        _ => msg.get_original_len() as u32,
    }
}

/// Where a queued packet goes: forwarded packets (both interfaces known) cross the whole path,
/// up if they entered on the client's interface; packets for the AP itself (INPUT: no output
/// interface) or from it (OUTPUT: no input interface) cross only the client's or the server's
/// side. With the SCTP tunnel (`tun`, the AP's TUN device), the tunnel's UDP packets are the
/// AP's own (hop only), and the inner packets it forwards between its TUN device and the server
/// cross the wired link only.
fn direction(indev: u32, outdev: u32, client: u32, tun: Option<u32>) -> Direction {
    match (indev, outdev) {
        (i, _) if Some(i) == tun => Direction::ApToServer,
        (_, o) if Some(o) == tun => Direction::ServerToAp,
        (0, o) if o == client => Direction::ApToClient,
        (0, _) => Direction::ApToServer,
        (i, 0) if i == client => Direction::ClientToAp,
        (_, 0) => Direction::ServerToAp,
        (i, _) if i == client => Direction::Up,
        _ => Direction::Down,
    }
}

/// The station's radio switches, sent by its host (PSNA's mobile) as one-byte datagrams
/// (`1` on, `0` off) to a Unix socket: out of band, as a PM bit would be, and never delayed
/// by the emulated path.
struct RadioSocket(UnixDatagram);

impl RadioSocket {
    fn bind(path: &Path) -> Result<RadioSocket, String> {
        let _ = std::fs::remove_file(path);
        let s = UnixDatagram::bind(path).map_err(|e| format!("{}: {e}", path.display()))?;
        s.set_nonblocking(true).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(RadioSocket(s))
    }

    /// The next switch received, if any (bounded: the socket's buffer).
    fn try_recv(&self) -> Option<bool> {
        let mut b = [0u8; 16];
        loop {
            match self.0.recv(&mut b) {
                Ok(n) if n >= 1 => return Some(b[0] == b'1'),
                Ok(_) => continue,
                Err(_) => return None,
            }
        }
    }
}

/// Runs the emulated path on NFQUEUE `queue_num` until `stop` is set. Packets that entered
/// the AP on interface index `client_ifindex` go up, all others down (see [`direction`] for
/// the AP's own packets and the tunnel's, `tun_ifindex`). With `transitions`, the PSM station's schedule is written there
/// (`time_ns,state`, Unix-epoch ns). With `radio_socket`, the station's host switches its
/// radio there (see [`RadioSocket`]).
pub fn run(queue_num: u16, client_ifindex: u32, tun_ifindex: Option<u32>, params: PathParams, transitions: Option<&Path>, radio_socket: Option<&Path>, stop: &AtomicBool) -> Result<EmuReport, String> {
    let clock = LiveClock::start();
    let mut queue = BoundQueue::open(queue_num, COPY_RANGE)?;
    let radio = radio_socket.map(RadioSocket::bind).transpose()?;
    // The model's time 0 (the scenario's: loss phases, beacons), on the capture's clock, for
    // processes that must start at a scenario time (a WWP flow's `start`).
    let origin = clock.now();
    println!("origin_unix_ns {}", clock.unix_ns(origin));
    crate::nfqueue::announce_ready();
    let mut emu: PathEmulator<nfq::Message> = PathEmulator::new(params, origin);
    let mut log = match transitions {
        Some(p) => {
            let mut w = BufWriter::new(File::create(p).map_err(|e| format!("{}: {e}", p.display()))?);
            writeln!(w, "time_ns,state").map_err(|e| format!("{}: {e}", p.display()))?;
            Some((w, p))
        }
        None => None,
    };
    let mut host = EmuHostCounters::default();
    let (mut late_sum_ns, mut verdicts, mut dropped) = (0u64, 0u64, 0u64);
    while !stopped(stop) {
        queue.wait(clock.timeout_until(emu.poll_timeout(), std::time::Duration::from_millis(20)));
        // Radio switches first: the mobile switches on before it sends.
        while let Some(on) = radio.as_ref().and_then(RadioSocket::try_recv) {
            host.radio_messages += 1;
            emu.set_station_radio(clock.now(), on);
        }
        while let Some(msg) = queue.try_recv()? {
            host.packets += 1;
            let dir = direction(msg.get_indev(), msg.get_outdev(), client_ifindex, tun_ifindex);
            let len = ip_len(&msg);
            emu.offer(clock.now(), dir, len, msg);
        }
        let now = clock.now();
        emu.handle_timeout(now);
        while let Some((mut msg, fate, at)) = emu.poll_output() {
            if fate == Fate::Deliver {
                let late = now.0.saturating_sub(at.0);
                late_sum_ns += late;
                verdicts += 1;
                host.late_max_us = host.late_max_us.max(late as f64 / 1e3);
                host.late_over_1ms += u64::from(late > 1_000_000);
                msg.set_verdict(nfq::Verdict::Accept);
            } else {
                dropped += 1;
                msg.set_verdict(nfq::Verdict::Drop);
            }
            queue.verdict(msg)?;
        }
        while let Some((t, awake)) = emu.poll_radio() {
            if let Some((w, p)) = log.as_mut() {
                let state = if awake { "awake" } else { "doze" };
                writeln!(w, "{},{state}", clock.unix_ns(t)).map_err(|e| format!("{}: {e}", p.display()))?;
            }
        }
    }
    if let Some((mut w, p)) = log {
        w.flush().map_err(|e| format!("{}: {e}", p.display()))?;
    }
    if verdicts > 0 {
        host.late_mean_us = late_sum_ns as f64 / verdicts as f64 / 1e3;
    }
    let stats = emu.stats().clone();
    // Whatever is still held dies with the run (the kernel drops it when the queue closes).
    host.dropped = dropped;
    host.held_at_stop = host.packets.saturating_sub(verdicts + dropped);
    Ok(EmuReport { path: stats, host })
}
