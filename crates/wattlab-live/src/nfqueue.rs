//! NFQUEUE plumbing shared by the emulator and the agent: open and bind a queue, wait for
//! packets or a deadline, and stop on SIGINT/SIGTERM.

use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Kernel-side queue length: packets the emulator holds wait in the kernel until their verdict
/// (a 60 ms path at 100 Mb/s holds ~500; the default 1024 would drop under bursts).
const QUEUE_MAX_LEN: u32 = 16_384;

/// An NFQUEUE bound to one queue number, non-blocking.
pub struct BoundQueue {
    /// The queue.
    pub queue: nfq::Queue,
    /// Its number.
    pub num: u16,
    /// The queue's netlink socket, to wait on with `ppoll` (the `nfq` crate does not expose it).
    fd: RawFd,
}

impl BoundQueue {
    /// Opens queue `num`, copying at most `copy_range` bytes of each packet to userspace.
    pub fn open(num: u16, copy_range: u16) -> Result<BoundQueue, String> {
        let (mut queue, fd) = open_with_fd()?;
        queue.bind(num).map_err(|e| format!("cannot bind NFQUEUE {num}: {e}"))?;
        queue.set_copy_range(num, copy_range).map_err(|e| format!("NFQUEUE {num}: copy range: {e}"))?;
        queue.set_queue_max_len(num, QUEUE_MAX_LEN).map_err(|e| format!("NFQUEUE {num}: queue length: {e}"))?;
        queue.set_nonblocking(true);
        Ok(BoundQueue { queue, num, fd })
    }

    /// Waits until a packet is queued or `timeout` passes (or a signal arrives).
    pub fn wait(&self, timeout: std::time::Duration) {
        let mut pfd = libc::pollfd { fd: self.fd, events: libc::POLLIN, revents: 0 };
        let ts = libc::timespec { tv_sec: timeout.as_secs() as libc::time_t, tv_nsec: timeout.subsec_nanos() as libc::c_long };
        // SAFETY: one valid pollfd, a valid timespec, no signal mask change.
        unsafe { libc::ppoll(&mut pfd, 1, &ts, std::ptr::null()) };
    }

    /// As [`BoundQueue::wait`], waking also when `extra` (another socket) is readable.
    pub fn wait_also(&self, extra: RawFd, timeout: std::time::Duration) {
        let mut pfd = [
            libc::pollfd { fd: self.fd, events: libc::POLLIN, revents: 0 },
            libc::pollfd { fd: extra, events: libc::POLLIN, revents: 0 },
        ];
        let ts = libc::timespec { tv_sec: timeout.as_secs() as libc::time_t, tv_nsec: timeout.subsec_nanos() as libc::c_long };
        // SAFETY: two valid pollfds, a valid timespec, no signal mask change.
        unsafe { libc::ppoll(pfd.as_mut_ptr(), 2, &ts, std::ptr::null()) };
    }

    /// The next queued packet, if any (never blocks).
    pub fn try_recv(&mut self) -> Result<Option<nfq::Message>, String> {
        match self.queue.recv() {
            Ok(m) => Ok(Some(m)),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Ok(None),
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => Ok(None),
            Err(e) => Err(format!("NFQUEUE {}: receive: {e}", self.num)),
        }
    }

    /// Gives `msg` its verdict.
    pub fn verdict(&mut self, msg: nfq::Message) -> Result<(), String> {
        self.queue.verdict(msg).map_err(|e| format!("NFQUEUE {}: verdict: {e}", self.num))
    }
}

/// Opens an `nfq::Queue` and finds its socket: `socket(2)` returns the lowest free descriptor,
/// so the descriptor just freed by a probe is the queue's (checked: a netfilter netlink socket).
fn open_with_fd() -> Result<(nfq::Queue, RawFd), String> {
    let probe = std::fs::File::open("/dev/null").map_err(|e| format!("/dev/null: {e}"))?;
    let fd = probe.as_raw_fd();
    drop(probe);
    let queue = nfq::Queue::open().map_err(|e| format!("cannot open an NFQUEUE socket (root? nfnetlink_queue?): {e}"))?;
    let opt = |name| {
        let mut v: libc::c_int = 0;
        let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        // SAFETY: a c_int out-parameter with its length.
        let r = unsafe { libc::getsockopt(fd, libc::SOL_SOCKET, name, (&mut v as *mut libc::c_int).cast(), &mut len) };
        (r == 0).then_some(v)
    };
    if opt(libc::SO_DOMAIN) != Some(libc::AF_NETLINK) || opt(libc::SO_PROTOCOL) != Some(libc::NETLINK_NETFILTER) {
        return Err("cannot find the NFQUEUE socket's descriptor".into());
    }
    Ok((queue, fd))
}

/// Tells the orchestrator (on stdout) that this process is ready for traffic.
pub fn announce_ready() {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "ready");
    let _ = out.flush();
}

/// A flag set by SIGINT or SIGTERM: the processes finish their logs and exit cleanly.
pub fn stop_flag() -> Result<Arc<AtomicBool>, String> {
    let flag = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&flag)).map_err(|e| format!("cannot handle signal {sig}: {e}"))?;
    }
    Ok(flag)
}

/// Why a host's loop must end now, if it must: `stopped` (the stop flag), `time-limit` (`now`
/// reached `limit`) or `count-limit` (`count` reached `max`); the report's outcome.
pub fn loop_end(flag: &AtomicBool, now: wattlab_core::Time, limit: wattlab_core::Time, count: u64, max: u64) -> Option<&'static str> {
    if stopped(flag) {
        Some("stopped")
    } else if now >= limit {
        Some("time-limit")
    } else if count >= max {
        Some("count-limit")
    } else {
        None
    }
}

/// True once a stop signal arrived.
pub fn stopped(flag: &AtomicBool) -> bool {
    flag.load(Ordering::Relaxed)
}

/// Runs this process under SCHED_FIFO (priority 20) so that other work on the machine (the
/// capture, the test runner, the TCP endpoints) cannot delay its verdicts by milliseconds;
/// returns whether the kernel allowed it (root may be refused inside some containers).
pub fn realtime_priority() -> bool {
    let param = libc::sched_param { sched_priority: 20 };
    // SAFETY: pid 0 = this thread's process, a valid sched_param.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) == 0 }
}

/// Lets the kernel wake us within 1 µs of a deadline instead of the default 50 µs slack.
pub fn tight_timer_slack() {
    // SAFETY: prctl with PR_SET_TIMERSLACK takes a plain integer.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1000 as libc::c_ulong, 0, 0, 0) };
}
