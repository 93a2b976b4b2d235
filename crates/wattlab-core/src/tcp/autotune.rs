//! Receive-window autotuning as Linux 6.18 runs it (option `autotune`): the window a receiver
//! advertises starts near 64 KB and grows with what the application reads per RTT.
//!
//! The model (Linux 6.18's `tcp_input.c`: `tcp_init_buffer_space`, `tcp_grow_window`,
//! `tcp_rcv_space_adjust` / `tcp_rcvbuf_grow`, `tcp_rcv_rtt_update`; `net.ipv4.tcp_rmem =
//! 4096 131072 33554432`, `tcp_moderate_rcvbuf = 1`), in window bytes:
//! - Memory turns into window at Linux's default scaling ratio of 1/2 (`tcp_win_from_space`,
//!   `TCP_DEFAULT_SCALING_RATIO`). Linux refines it from len/truesize of the first full-sized
//!   segment (`tcp_measure_rcv_mss`: `scaling_ratio`, in 1/256) and moves the clamp to the
//!   buffer's window at that ratio (`tcp_set_window_clamp`, which also raises `rcv_ssthresh` to
//!   min(rcv_wnd, clamp)). The simulator has no skb truesize: with `scaling_ratio = Some(r)`
//!   the first in-order segment longer than the initial `rcv_mss` (536 B) sets the ratio to
//!   r/256 and does that; `None` keeps 1/2 throughout (see [`Autotune::with_scaling_ratio`]).
//! - Start: the buffer is `tcp_rmem[1]` = 128 KiB, 64 KiB of window; the SYN offers that
//!   rounded down to whole MSS and at most 65535 (64240 B for MSS 1460,
//!   `tcp_select_initial_window`); the clamp keeps one MSS in reserve (65536 − MSS,
//!   `tcp_init_buffer_space`), and `rcv_ssthresh` (the window actually offered) starts there.
//! - Every in-order segment of at least 128 B raises `rcv_ssthresh` by max(2·advmss, 2·len),
//!   up to the clamp (`tcp_grow_window`; the truesize test passes for full segments);
//!   a segment that raised it is ACKed at once (`icsk_ack.quick |= 1`; the connection does
//!   this when `quick_ack` is on), so while the window grows every segment is ACKed.
//! - Once per receiver RTT (the smallest timestamp echo delay, `tcp_rcv_rtt_update` with
//!   timestamps; without them, the time to receive one window, `tcp_rcv_rtt_measure`), if the
//!   application read more in that RTT (`copied`) than the last measurement (`space`): the
//!   clamp grows to rcvwin = 2·copied + 2·(2·copied)·(copied − space)/space, plus the
//!   out-of-order span, at most `tcp_rmem[2]`'s window (16 MiB), and `space` = copied
//!   (`tcp_rcvbuf_grow`: twice what was read, as "DRS is always one RTT late", and room for a
//!   sender that keeps growing at the rate it just did; the second term is commit
//!   aa251c84636c "tcp: fix too slow tcp_rcvbuf_grow() action", a 6.18-rc regression fix
//!   merged in 6.18; without it a slow-start sender is window-limited to ×√2 per RTT).
//! - The window offered is min(rcv_ssthresh, clamp) less unread bytes, and never more than
//!   `recv_buffer` (the scenario's ceiling).
//!
//! Linux measures at each `recvmsg`; the model measures at each in-order arrival with the bytes
//! the application has read by then. With the default reader (everything read as it arrives)
//! the two agree; with a `reader` rate the bytes read are what count, as in Linux.

use crate::time::{Duration, Time};

/// `net.ipv4.tcp_rmem[1]`: the initial receive buffer (bytes of memory).
pub const TCP_RMEM_DEFAULT: u64 = 131_072;
/// `net.ipv4.tcp_rmem[2]`: the largest buffer autotuning grows to, 32 MiB since Linux 6.16.
pub const TCP_RMEM_MAX: u64 = 32 << 20;
/// Linux's `tcp_grow_window` acts on segments of at least this many bytes.
pub const GROW_MIN_LEN: u32 = 128;

/// Window bytes a buffer of `space` bytes of memory holds (scaling ratio 1/2).
pub const fn win_from_space(space: u64) -> u64 {
    space / 2
}

/// Linux's `TCP_MSS_DEFAULT`: the receiver's `icsk_ack.rcv_mss` before it has seen data
/// (`tcp_initialize_rcv_mss`); a longer segment is the one `tcp_measure_rcv_mss` measures.
pub const RCV_MSS_INITIAL: u32 = 536;

/// Window bytes a buffer of `space` bytes holds at scaling ratio `ratio`/256
/// (`tcp_win_from_space`: space · ratio >> 8).
pub const fn win_from_space_at(space: u64, ratio: u8) -> u64 {
    (space * ratio as u64) >> 8
}

/// Autotuning state of one receiver.
#[derive(Clone, Debug)]
pub struct Autotune {
    /// MSS we advertised (Linux's advmss, without options).
    advmss: u32,
    /// The scenario's ceiling on the window (`recv_buffer`).
    ceiling: u64,
    /// Window actually offered at most (Linux's rcv_ssthresh).
    rcv_ssthresh: u64,
    /// Largest window for the current buffer (Linux's window_clamp).
    clamp: u64,
    /// Bytes read in the last measured RTT (rcvq_space.space).
    space: u64,
    /// Bytes read when the current measurement began, and when.
    space_seq: u64,
    space_time: Option<Time>,
    /// Receiver's RTT estimate (smallest sample).
    rtt: Option<Duration>,
    /// Without timestamps: the window-based measurement (position to reach, since when).
    win_seq: u64,
    win_time: Option<Time>,
    /// Measurements that grew the clamp.
    grows: u32,
    /// The scaling ratio (1/256) the first full-sized segment sets; `None`: 1/2 throughout.
    scaling_ratio: Option<u8>,
    /// The first full-sized segment has set the ratio (Linux measures it once per rcv_mss).
    ratio_set: bool,
}

impl Autotune {
    /// A receiver advertising MSS `advmss` with the window ceiling `ceiling` (bytes).
    pub fn new(advmss: u32, ceiling: u64) -> Self {
        let advmss = advmss.max(1);
        let space = win_from_space(TCP_RMEM_DEFAULT);
        let clamp = space.saturating_sub(advmss as u64).max(2 * advmss as u64);
        let rcv_wnd = Self::initial_window_for(advmss);
        let rcv_ssthresh = rcv_wnd.min(clamp);
        Autotune {
            advmss,
            ceiling,
            rcv_ssthresh,
            clamp,
            space: rcv_ssthresh.min(rcv_wnd).min(10 * advmss as u64),
            space_seq: 0,
            space_time: None,
            rtt: None,
            win_seq: 0,
            win_time: None,
            grows: 0,
            scaling_ratio: None,
            ratio_set: false,
        }
    }

    /// The same receiver whose first full-sized segment sets the scaling ratio to `ratio`/256
    /// (Linux's measured len/truesize; `None` keeps 1/2, the model without it).
    pub fn with_scaling_ratio(mut self, ratio: Option<u8>) -> Self {
        self.scaling_ratio = ratio.filter(|&r| r > 0);
        self
    }

    /// Window bytes of a buffer of `space` bytes at the ratio in force.
    fn win_of(&self, space: u64) -> u64 {
        match self.scaling_ratio {
            Some(r) if self.ratio_set => win_from_space_at(space, r),
            _ => win_from_space(space),
        }
    }

    /// Linux's `tcp_measure_rcv_mss` on the first segment longer than the initial rcv_mss:
    /// the ratio becomes r/256 and `tcp_set_window_clamp` moves the clamp to the buffer's
    /// window (`tcp_rmem[1]` until the first growth), raising `rcv_ssthresh` to
    /// min(rcv_wnd, clamp) when the clamp grows, lowering it to the clamp when it shrinks.
    fn set_scaling_ratio(&mut self, len: u32, rcv_wnd: u64) {
        if self.ratio_set || self.scaling_ratio.is_none() || len <= RCV_MSS_INITIAL.min(self.advmss) {
            return;
        }
        self.ratio_set = true;
        if self.grows > 0 {
            return; // the buffer has grown: the clamp already follows the reads
        }
        let clamp = self.win_of(TCP_RMEM_DEFAULT);
        if clamp < self.clamp {
            self.rcv_ssthresh = self.rcv_ssthresh.min(clamp);
        } else {
            self.rcv_ssthresh = self.rcv_ssthresh.max(rcv_wnd.min(clamp));
        }
        self.clamp = clamp;
    }

    /// The window offered on the SYN: the initial buffer's window rounded down to whole MSS,
    /// at most 65535 (`tcp_select_initial_window`).
    pub fn initial_window_for(advmss: u32) -> u64 {
        let space = win_from_space(TCP_RMEM_DEFAULT);
        let m = advmss.max(1) as u64;
        (space / m * m).min(65_535)
    }

    /// Largest window to offer now (before unread bytes are taken off).
    #[inline]
    pub fn window_limit(&self) -> u64 {
        self.rcv_ssthresh.min(self.clamp).min(self.ceiling)
    }

    /// Linux's window_clamp (grows with the reads).
    pub fn clamp(&self) -> u64 {
        self.clamp
    }

    /// Linux's rcv_ssthresh.
    pub fn rcv_ssthresh(&self) -> u64 {
        self.rcv_ssthresh
    }

    /// The receiver's RTT estimate.
    pub fn rtt(&self) -> Option<Duration> {
        self.rtt
    }

    /// Measurements that grew the buffer.
    pub fn grows(&self) -> u32 {
        self.grows
    }

    /// The connection is established: the first RTT's count of reads starts (Linux's
    /// `tcp_init_buffer_space` stamps `rcvq_space`).
    /// `advmss` is the MSS less the timestamp option when both ends use it (Linux takes 12 B
    /// off `advmss` then): the clamp's one-segment reserve and the first `space` use it.
    pub fn on_established(&mut self, now: Time, read: u64, advmss: u32) {
        let advmss = advmss.max(1);
        if advmss != self.advmss {
            let rcv_wnd = Self::initial_window_for(self.advmss);
            self.advmss = advmss;
            self.clamp = win_from_space(TCP_RMEM_DEFAULT).saturating_sub(advmss as u64).max(2 * advmss as u64);
            self.rcv_ssthresh = self.rcv_ssthresh.min(self.clamp).max(rcv_wnd.min(self.clamp));
            self.space = self.rcv_ssthresh.min(rcv_wnd).min(10 * advmss as u64);
        }
        self.space_time = Some(now);
        self.space_seq = read;
    }

    fn rtt_sample(&mut self, sample: Duration) {
        let s = sample.max(Duration::from_micros(1));
        self.rtt = Some(self.rtt.map_or(s, |r| r.min(s)));
    }

    /// An in-order segment of `len` bytes arrived at `now`; `ts_echo_age` is now − TSecr when
    /// it carried a timestamp echo, `rcv_nxt` the position after it and `rcv_wnd` the window
    /// we last offered (the window-based RTT measurement without timestamps). Returns true
    /// when the segment raised `rcv_ssthresh` (Linux then ACKs it at once: `tcp_grow_window`
    /// sets `icsk_ack.quick |= 1`).
    pub fn on_data(&mut self, now: Time, len: u32, ts_echo_age: Option<Duration>, rcv_nxt: u64, rcv_wnd: u64) -> bool {
        if !self.ratio_set && self.scaling_ratio.is_some() {
            self.set_scaling_ratio(len, rcv_wnd);
        }
        match ts_echo_age {
            Some(age) if len >= self.advmss.min(536) => self.rtt_sample(age),
            Some(_) => {}
            None => {
                if let Some(t) = self.win_time {
                    if rcv_nxt < self.win_seq {
                        return self.grow_window(len);
                    }
                    self.rtt_sample(now.saturating_since(t));
                }
                self.win_seq = rcv_nxt + rcv_wnd;
                self.win_time = Some(now);
            }
        }
        self.grow_window(len)
    }

    /// Linux's `tcp_grow_window`: true when `rcv_ssthresh` grew.
    fn grow_window(&mut self, len: u32) -> bool {
        if len < GROW_MIN_LEN {
            return false;
        }
        // Linux's room is min(window_clamp, tcp_space) − rcv_ssthresh; the ceiling stands for
        // the buffer's limit (tcp_space), so growth stops where the window does.
        let room = self.clamp.min(self.ceiling).saturating_sub(self.rcv_ssthresh);
        let incr = (2 * self.advmss as u64).max(2 * len as u64);
        self.rcv_ssthresh += room.min(incr);
        room > 0
    }

    /// The application has read `read` bytes in all at `now`; `ooo_span` is how far beyond
    /// rcv_nxt out-of-order data reaches. Once per RTT, grows the clamp (`tcp_rcv_space_adjust`).
    pub fn on_read(&mut self, now: Time, read: u64, ooo_span: u64) {
        let Some(start) = self.space_time else {
            return self.on_established(now, read, self.advmss);
        };
        let Some(rtt) = self.rtt else { return };
        if now.saturating_since(start) < rtt {
            return;
        }
        let copied = read - self.space_seq;
        if copied > self.space {
            let old = self.space.max(1);
            self.space = copied;
            let rcvwin = 2 * copied;
            let grow = rcvwin.saturating_mul(copied - old) / old;
            let want = rcvwin.saturating_add(2 * grow).saturating_add(ooo_span).min(self.win_of(TCP_RMEM_MAX));
            if want > self.clamp {
                self.clamp = want;
                self.grows += 1;
            }
        }
        self.space_seq = read;
        self.space_time = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sender that doubles what it sends per RTT (slow start) as far as the window lets it,
    /// against a receiver whose application reads at once; returns the window limit at the
    /// start of each RTT.
    fn slow_start_windows(rtts: usize, ceiling: u64, cwnd0: u64) -> Vec<u64> {
        let mss = 1448u64;
        let rtt = Duration::from_millis(60);
        let mut a = Autotune::new(1460, ceiling);
        let mut now = Time::from_secs_f64(1.0);
        a.on_established(now - rtt, 0, 1460);
        let (mut rcv_nxt, mut read) = (0u64, 0u64);
        let mut cwnd = cwnd0 * mss;
        let mut out = Vec::new();
        for _ in 0..rtts {
            out.push(a.window_limit());
            let send = cwnd.min(a.window_limit()) / mss;
            for i in 0..send {
                let at = now + Duration::from_micros(100 * i);
                rcv_nxt += mss;
                a.on_data(at, mss as u32, Some(rtt), rcv_nxt, a.window_limit());
                read += mss;
                a.on_read(at, read, 0);
            }
            cwnd += send * mss; // slow start: +1 MSS per MSS ACKed
            now += rtt;
        }
        out
    }

    #[test]
    fn starts_at_linux_initial_window() {
        assert_eq!(Autotune::initial_window_for(1460), 64_240); // 44 x 1460, Linux's SYN window
        assert_eq!(Autotune::initial_window_for(1448), 65_160); // 45 x 1448
        let a = Autotune::new(1460, 1 << 30);
        assert_eq!(a.clamp(), 65_536 - 1460);
        assert_eq!(a.window_limit(), 64_076);
    }

    #[test]
    fn window_roughly_doubles_per_rtt_then_stops_at_the_ceiling() {
        let w = slow_start_windows(14, 8 << 20, 10);
        // IW10 doubling fits 64 KB for three RTTs (10, 20, 40 segments): no growth needed.
        assert_eq!(w[..3], [64_076; 3], "{w:?}");
        // Then the window stays ahead of slow start: about ×2 per RTT (Linux 6.18's
        // tcp_rcvbuf_grow with its slow-start term; without it ×√2).
        for pair in w[3..9].windows(2) {
            let g = pair[1] as f64 / pair[0] as f64;
            assert!((1.6..=2.2).contains(&g), "growth {g:.2} per RTT: {w:?}");
        }
        assert_eq!(*w.last().unwrap(), 8 << 20, "capped at the ceiling: {w:?}");
    }

    #[test]
    fn clamp_follows_the_6_18_kernel_trace() {
        // tcp_rcvbuf_grow events of a live client (6.18.44, 61 ms RTT, timestamps: advmss
        // 1448): space 14480, then copied 15928, 30408, 55400 per RTT; window_clamp 82944
        // (its veth scaling ratio 0.63), 171389, 292929. The model's ratio 1/2 changes only
        // the first clamp (65536 − 1448); the growth rule gives the kernel's numbers to
        // within its rounding.
        let mut a = Autotune::new(1460, 1 << 30);
        let t0 = Time::from_secs_f64(1.0);
        let rtt = Duration::from_millis(61);
        a.on_established(t0, 0, 1448);
        a.on_data(t0 + rtt, 1448, Some(rtt), 1448, 64_000);
        let (mut read, mut t, mut clamps) = (0, t0, Vec::new());
        for copied in [15_928u64, 30_408, 55_400] {
            t += rtt;
            read += copied;
            a.on_read(t, read, 0);
            clamps.push(a.clamp());
        }
        assert_eq!(clamps[0], 65_536 - 1448, "2·15928 + growth stays under the first clamp");
        assert!(clamps[1].abs_diff(171_389) <= 4, "{clamps:?}");
        assert!(clamps[2].abs_diff(292_929) <= 8, "{clamps:?}");
    }

    /// `scaling_ratio = Some(162)` (the testbed's veth): the first full-sized segment moves the
    /// clamp to 131072·162/256 = 82944, the kernel trace's first window_clamp, raises
    /// rcv_ssthresh to the offered window and lets it grow to the clamp (live: 81920 offered
    /// after 6 segments); a shorter first segment (≤ 536 B) does not measure; `None` keeps
    /// 65536 − MSS.
    #[test]
    fn measured_scaling_ratio_moves_the_first_clamp() {
        let t0 = Time::from_secs_f64(1.0);
        let grow = |ratio: Option<u8>, first_len: u32| {
            let mut a = Autotune::new(1460, 1 << 30).with_scaling_ratio(ratio);
            a.on_established(t0, 0, 1448);
            a.on_data(t0, first_len, None, first_len as u64, 64_512);
            let after_first = (a.clamp(), a.rcv_ssthresh());
            for i in 2..=8u64 {
                a.on_data(t0, 1448, None, i * 1448, 64_512);
            }
            (after_first, a.window_limit())
        };
        let ((clamp, ssthresh), limit) = grow(Some(162), 1448);
        assert_eq!(clamp, 82_944);
        assert_eq!(ssthresh, 64_512 + 2 * 1448, "raised to rcv_wnd, then grown by this segment");
        assert_eq!(limit, 82_944);
        assert_eq!(grow(None, 1448), ((65_536 - 1448, 65_536 - 1448), 65_536 - 1448));
        assert_eq!(grow(Some(162), 500).0 .0, 65_536 - 1448, "a short segment does not measure");
        assert_eq!(grow(Some(0), 1448), grow(None, 1448), "0 is no ratio");
        // A ratio below 1/2 shrinks the clamp and rcv_ssthresh with it.
        assert_eq!(grow(Some(100), 1448).1, 131_072 * 100 / 256);
    }

    #[test]
    fn capped_at_tcp_rmem_max_window() {
        let w = slow_start_windows(20, 1 << 30, 10);
        assert_eq!(*w.last().unwrap(), win_from_space(TCP_RMEM_MAX));
    }

    #[test]
    fn idle_reader_does_not_grow_the_clamp() {
        let mut a = Autotune::new(1460, 1 << 30);
        let rtt = Duration::from_millis(50);
        let mut now = Time::from_secs_f64(1.0);
        a.on_established(now, 0, 1460);
        let mut rcv_nxt = 0;
        for _ in 0..200 {
            rcv_nxt += 1448;
            a.on_data(now, 1448, Some(rtt), rcv_nxt, 64_000);
            a.on_read(now, 0, 0); // nothing read
            now += Duration::from_millis(5);
        }
        assert_eq!(a.clamp(), 65_536 - 1460);
        assert_eq!(a.grows(), 0);
    }

    #[test]
    fn rtt_without_timestamps_is_the_time_to_fill_a_window() {
        let mut a = Autotune::new(1460, 1 << 30);
        let t0 = Time::from_secs_f64(1.0);
        a.on_data(t0, 1448, None, 1448, 60_000);
        a.on_data(t0 + Duration::from_millis(30), 1448, None, 30_000, 60_000);
        assert_eq!(a.rtt(), None);
        a.on_data(t0 + Duration::from_millis(80), 1448, None, 61_448, 60_000);
        assert_eq!(a.rtt(), Some(Duration::from_millis(80)));
    }
}
