//! `wattlab-live`: the processes of a live run, each started inside one network namespace by
//! `wattlab live run` (see `docs/live.md`). Every subcommand writes a JSON report and exits 0,
//! or prints one error line and exits 1; SIGINT/SIGTERM end the long-running ones cleanly.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use wattlab_live::apps::{self, SocketTcp};
use wattlab_live::plan::{self, LivePolicy};
use wattlab_live::payload::{self, Payload};
use wattlab_live::psna_host;
use wattlab_live::wwp_host::{self, WwpHostConfig, WwpHostReport, WwpRole};
use wattlab_live::{client_agent, echo_host, emu, host, nfqueue, tcp_flow, tunnel_host, web};

#[derive(Parser)]
#[command(name = "wattlab-live", version, about = "wattlab's live testbed processes (started by `wattlab live run`)")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The scenario, the policy and overrides, as `wattlab run` takes them.
#[derive(Args)]
struct ScenarioArgs {
    /// Scenario TOML file.
    #[arg(long)]
    scenario: PathBuf,
    /// Radio policy of the run: always-on, cc, psm, adaptive-psm[:timeout=Tms],
    /// twt:interval=Ims,duration=Dus[,offset=Ous] (the simulator's power_save names), psna
    /// (default: psna for a PSNA flow, always-on otherwise).
    #[arg(long, value_parser = parse_policy)]
    policy: Option<LivePolicy>,
    /// Scenario overrides, KEY=VALUE (as `wattlab run --set`); repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
}

/// The socket options of one end of the download.
#[derive(Args)]
struct TcpArgs {
    /// Linux congestion control module.
    #[arg(long, default_value = "reno")]
    cc: String,
    /// Largest advertised receive window (TCP_WINDOW_CLAMP), bytes.
    #[arg(long)]
    window_clamp: Option<u32>,
    /// SO_RCVBUF/SO_SNDBUF size, bytes.
    #[arg(long)]
    buffer: Option<usize>,
    /// Give up after this many seconds without progress (0 < S <= 86400).
    #[arg(long, default_value_t = 30.0, value_parser = parse_idle_timeout)]
    idle_timeout: f64,
}

/// The payload of a run: its length and key (see `wattlab_live::payload`).
#[derive(Args)]
struct PayloadArgs {
    /// Length of the payload, bytes.
    #[arg(long)]
    bytes: u64,
    /// Key of the payload's pseudo-random stream (the scenario's seed).
    #[arg(long)]
    payload_key: u64,
}

/// A `--policy` value (see [`LivePolicy`]'s `FromStr`).
fn parse_policy(s: &str) -> Result<LivePolicy, String> {
    s.parse()
}

/// A timeout in seconds: finite, above 0 and at most a day.
fn parse_idle_timeout(s: &str) -> Result<f64, String> {
    let v: f64 = s.trim().parse().map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if !(v > 0.0 && v <= 86_400.0) {
        return Err(format!("{s} s is out of range (0 < S <= 86400)"));
    }
    Ok(v)
}

#[derive(Subcommand)]
enum Command {
    /// Print the payload's length and SHA-256 as JSON, or with --dump the payload itself.
    Payload {
        #[command(flatten)]
        payload: PayloadArgs,
        /// Write the payload's bytes to stdout instead.
        #[arg(long)]
        dump: bool,
    },
    /// Print what a live run of the scenario does (JSON): path, TCP settings, radio, the flow's
    /// kind; for a scenario with a [[tunnel]], the tunnel's path, settings and flows (kind
    /// `tunnel`).
    Plan {
        #[command(flatten)]
        scenario: ScenarioArgs,
    },
    /// Run the link/AP emulator on an NFQUEUE of the `ap` namespace's FORWARD chain.
    Emulate {
        #[command(flatten)]
        scenario: ScenarioArgs,
        /// NFQUEUE number the FORWARD rule queues to.
        #[arg(long)]
        queue: u16,
        /// The AP's interface towards the client (packets entering on it go up).
        #[arg(long)]
        client_iface: String,
        /// Write the power-saving station's radio schedule here (CSV), with `--policy psm`, `adaptive-psm` or `twt`.
        #[arg(long)]
        transitions: Option<PathBuf>,
        /// Take the station's radio switches from this Unix datagram socket (PSNA's mobile).
        #[arg(long)]
        radio_socket: Option<PathBuf>,
        /// Write the report (JSON) here on exit.
        #[arg(long)]
        report: PathBuf,
    },
    /// Run the client-centered agent on an NFQUEUE of the client namespace.
    Agent {
        #[command(flatten)]
        scenario: ScenarioArgs,
        /// NFQUEUE number the client's INPUT/OUTPUT rules queue to.
        #[arg(long)]
        queue: u16,
        /// The client's address (packets from it are outgoing).
        #[arg(long)]
        client_addr: Ipv4Addr,
        /// Firewall mark of the agent's own packets (the rules let marked packets by).
        #[arg(long, default_value_t = 0x574c)]
        mark: u32,
        /// Radio transitions CSV (`time_ns,state`).
        #[arg(long)]
        transitions: PathBuf,
        /// Agent event log CSV (`time_ns,conn,event`).
        #[arg(long)]
        events: PathBuf,
        /// Bind a Unix datagram socket here for a web client's hints (new page, response length).
        #[arg(long)]
        hints: Option<PathBuf>,
        /// Write the report (JSON) here on exit.
        #[arg(long)]
        report: PathBuf,
    },
    /// The server of the scenario's `web` flow: serves the plan's objects over every
    /// connection the browser opens, until all were served and the browser closed.
    WebServe {
        #[command(flatten)]
        scenario: ScenarioArgs,
        /// Address and port to listen on.
        #[arg(long)]
        listen: SocketAddr,
        /// End after this many seconds whatever the state (0 < S <= 86400).
        #[arg(long, value_parser = parse_idle_timeout)]
        time_limit: f64,
        /// Write the report (JSON) here.
        #[arg(long)]
        report: PathBuf,
    },
    /// The browser of the scenario's `web` flow: its pages, connections and think times.
    WebFetch {
        #[command(flatten)]
        scenario: ScenarioArgs,
        /// Server address and port.
        #[arg(long)]
        connect: SocketAddr,
        /// Send the agent's hints to its Unix socket here.
        #[arg(long)]
        hints: Option<PathBuf>,
        /// Give up after this many seconds without progress outside think times (0 < S <= 86400).
        #[arg(long, default_value_t = 30.0, value_parser = parse_idle_timeout)]
        idle_timeout: f64,
        /// End after this many seconds whatever the state (0 < S <= 86400).
        #[arg(long, value_parser = parse_idle_timeout)]
        time_limit: f64,
        /// Write the report (JSON) here.
        #[arg(long)]
        report: PathBuf,
    },
    /// Stream the run's payload to the first client after reading its request.
    Serve {
        /// Address and port to listen on.
        #[arg(long)]
        listen: SocketAddr,
        #[command(flatten)]
        payload: PayloadArgs,
        /// Bytes of request to read first.
        #[arg(long, default_value_t = 100)]
        request: u64,
        /// Reset the connection (RST) after sending this many bytes: a fixed host that aborts.
        #[arg(long)]
        abort_after: Option<u64>,
        #[command(flatten)]
        tcp: TcpArgs,
        /// Write the report (JSON) here.
        #[arg(long)]
        report: PathBuf,
    },
    /// Receive what the first client sends, to its FIN, and report its length and SHA-256.
    Sink {
        /// Address and port to listen on.
        #[arg(long)]
        listen: SocketAddr,
        #[command(flatten)]
        tcp: TcpArgs,
        /// Write the report (JSON) here.
        #[arg(long)]
        report: PathBuf,
    },
    /// The PSNA daemon of the scenario's psna-read/psna-send flow (seed 001), on the AP.
    PsnaDaemon {
        #[command(flatten)]
        scenario: ScenarioArgs,
        /// Address and port of the daemon's UDP socket.
        #[arg(long)]
        bind: SocketAddr,
        /// End after this many seconds (0 < S <= 86400); SIGTERM ends it before.
        #[arg(long, value_parser = parse_idle_timeout)]
        time_limit: f64,
        /// Write the report (JSON) here on exit.
        #[arg(long)]
        report: PathBuf,
    },
    /// The PSNA mobile of the scenario's flow: one read or send through the daemon.
    PsnaMobile {
        #[command(flatten)]
        scenario: ScenarioArgs,
        /// Address of the mobile's UDP socket (port 0: any).
        #[arg(long)]
        bind: SocketAddr,
        /// The daemon's UDP address.
        #[arg(long)]
        daemon: SocketAddr,
        /// The fixed host's address (port: the flow's).
        #[arg(long)]
        fh: std::net::Ipv4Addr,
        /// Send the radio's switches to the emulator's Unix socket here.
        #[arg(long)]
        radio_socket: Option<PathBuf>,
        /// Write the radio schedule here (CSV `time_ns,state`).
        #[arg(long)]
        transitions: PathBuf,
        /// End after this many seconds whatever the state (0 < S <= 86400).
        #[arg(long, value_parser = parse_idle_timeout)]
        time_limit: f64,
        /// Write the report (JSON) here on exit.
        #[arg(long)]
        report: PathBuf,
    },
    /// One end of the scenario's `wwp-bulk` flow on a UDP socket (WWP, seed 004).
    Wwp {
        #[command(flatten)]
        scenario: ScenarioArgs,
        /// Which end: the sender connects to --peer and sends the payload; the receiver answers.
        #[arg(long, value_enum)]
        role: WwpRoleArg,
        /// Local address and port to bind (port 0: any).
        #[arg(long)]
        bind: SocketAddr,
        /// The receiver's address and port (sender only).
        #[arg(long)]
        peer: Option<SocketAddr>,
        /// Start at this Unix time in ns (sender; the flow's start on the emulator's clock).
        #[arg(long)]
        start_at_unix_ns: Option<u64>,
        /// End after this many seconds whatever the state (0 < S <= 86400).
        #[arg(long, value_parser = parse_idle_timeout)]
        time_limit: f64,
        /// The 12-bit initial sequence number (default: clock-based).
        #[arg(long, value_parser = clap::value_parser!(u16).range(0..4096))]
        isn: Option<u16>,
        /// Write the report (JSON) here on exit.
        #[arg(long)]
        report: PathBuf,
    },
    /// One end of the stop-and-wait echo (the smallest engine) on a UDP socket: the server
    /// echoes whoever writes; the client sends --count requests to --peer, one at a time.
    Echo {
        /// Local address and port (port 0: any).
        #[arg(long)]
        bind: SocketAddr,
        /// The server's address and port: makes this end the client.
        #[arg(long)]
        peer: Option<SocketAddr>,
        /// Requests to have echoed (client).
        #[arg(long, default_value_t = 10)]
        count: u32,
        /// Bytes per datagram, the 8-byte header included (8..=65507).
        #[arg(long, default_value_t = 64)]
        size: usize,
        /// Wait between an echo and the next request, ms (0: at once).
        #[arg(long, default_value_t = 0.0, value_parser = parse_ms_or_zero)]
        interval_ms: f64,
        /// Retransmission timeout, ms.
        #[arg(long, default_value_t = 1000.0, value_parser = parse_ms)]
        rto_ms: f64,
        /// Retransmissions of one request before the client gives up.
        #[arg(long, default_value_t = 5)]
        max_retries: u32,
        /// End after this many seconds whatever the state (0 < S <= 86400).
        #[arg(long, value_parser = parse_idle_timeout)]
        time_limit: f64,
        /// Write the report (JSON) here on exit.
        #[arg(long)]
        report: PathBuf,
    },
    /// One end of the SCTP tunnel (seed 002 Ch. 4) on a TUN device and UDP port 9899.
    Tunnel {
        /// Which end: the client's (sends the U-APSD triggers) or the AP's (mirrored tags and TSNs).
        #[arg(long, value_enum)]
        role: TunnelRoleArg,
        /// The TUN device (created beforehand with `ip tuntap add NAME mode tun`).
        #[arg(long)]
        tun: String,
        /// Local UDP address and port.
        #[arg(long)]
        bind: SocketAddr,
        /// The other end's UDP address and port.
        #[arg(long)]
        peer: SocketAddr,
        /// Burst size m.
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
        burst: u32,
        /// Inlet timeout, ms (from the first buffered packet).
        #[arg(long, default_value_t = 20.0, value_parser = parse_ms)]
        inlet_timeout_ms: f64,
        /// Client only: explicit U-APSD triggers (Eqs. 4.15-4.17) with this t_min, ms.
        #[arg(long, value_parser = parse_ms)]
        trigger_min_ms: Option<f64>,
        /// Trigger t_max, ms (the beacon interval).
        #[arg(long, default_value_t = 102.4, value_parser = parse_ms)]
        trigger_max_ms: f64,
        /// End after this many seconds whatever the state (0 < S <= 86400).
        #[arg(long, value_parser = parse_idle_timeout)]
        time_limit: f64,
        /// Write the report (JSON) here on exit.
        #[arg(long)]
        report: PathBuf,
    },
    /// The emulator of a tunnel run: NFQUEUE of the `ap` namespace, the tunnel's UDP packets on
    /// the hop (U-APSD at the AP), the inner packets on the wired link.
    EmulateTunnel {
        /// NFQUEUE number the rules queue to.
        #[arg(long)]
        queue: u16,
        /// The AP's interface towards the client.
        #[arg(long)]
        client_iface: String,
        /// The AP's TUN device.
        #[arg(long)]
        tun_iface: String,
        /// Wired link rate, bit/s, and one-way delay, µs.
        #[arg(long)]
        wired_rate: u64,
        /// Wired link one-way delay, µs.
        #[arg(long)]
        wired_delay_us: u64,
        /// Wireless hop rate, bit/s.
        #[arg(long)]
        hop_rate: u64,
        /// Per-frame airtime overhead of the hop, µs.
        #[arg(long)]
        hop_overhead_us: u64,
        /// Beacon interval, µs.
        #[arg(long, default_value_t = 102_400)]
        beacon_us: u64,
        /// No U-APSD: the AP forwards at once (the always-on run).
        #[arg(long)]
        cam: bool,
        /// Seed of the channels' random streams.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Write the station's radio schedule here (CSV).
        #[arg(long)]
        transitions: Option<PathBuf>,
        /// Write the report (JSON) here on exit.
        #[arg(long)]
        report: PathBuf,
    },
    /// One end of a tunnel-scenario TCP flow: the receiver listens and reads at a rate, the
    /// sender connects and streams the payload; both hash what they moved.
    Flow {
        /// `recv` (listen on --addr) or `send` (connect to --addr).
        #[arg(long, value_enum)]
        role: FlowRoleArg,
        /// Address and port.
        #[arg(long)]
        addr: SocketAddr,
        /// Receiver: read rate, bytes/s.
        #[arg(long, default_value_t = 112_500.0)]
        rate: f64,
        /// Sender: stream for this many seconds.
        #[arg(long, default_value_t = 10.0)]
        duration: f64,
        #[command(flatten)]
        payload: PayloadArgs,
        /// End after this many seconds whatever the state (0 < S <= 86400).
        #[arg(long, value_parser = parse_idle_timeout)]
        time_limit: f64,
        /// Write the report (JSON) here.
        #[arg(long)]
        report: PathBuf,
    },
    /// Download from a `serve`: send the request, read to the end, hash what arrived.
    Fetch {
        /// Server address and port.
        #[arg(long)]
        connect: SocketAddr,
        /// Bytes of request to send.
        #[arg(long, default_value_t = 100)]
        request: u64,
        #[command(flatten)]
        tcp: TcpArgs,
        /// Write the report (JSON) here.
        #[arg(long)]
        report: PathBuf,
    },
}

/// The two ends of the tunnel.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum TunnelRoleArg {
    /// The wireless client's end.
    Client,
    /// The AP's end.
    Ap,
}

/// The two ends of a tunnel-scenario flow.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum FlowRoleArg {
    /// Connects and sends.
    Send,
    /// Listens and reads.
    Recv,
}

/// Milliseconds: finite, 0 < ms <= 60000.
fn parse_ms(s: &str) -> Result<f64, String> {
    let v: f64 = s.trim().parse().map_err(|_| format!("`{s}` is not a number of milliseconds"))?;
    if !(v > 0.0 && v <= 60_000.0) {
        return Err(format!("{s} ms is out of range (0 < ms <= 60000)"));
    }
    Ok(v)
}

/// Milliseconds: finite, 0 <= ms <= 60000.
fn parse_ms_or_zero(s: &str) -> Result<f64, String> {
    if s.trim().parse::<f64>().is_ok_and(|v| v == 0.0) {
        return Ok(0.0);
    }
    parse_ms(s)
}

/// The interface index of `name` in this namespace.
fn ifindex(name: &str) -> Result<u32, String> {
    let c = std::ffi::CString::new(name).map_err(|_| "bad interface name".to_string())?;
    // SAFETY: a NUL-terminated name.
    let i = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if i == 0 {
        return Err(format!("no interface `{name}` in this namespace"));
    }
    Ok(i)
}

/// A channel of the tunnel run's path: rate, overhead, delay, a 1000-packet DropTail queue,
/// no loss or jitter (the tunnel scenario's path).
fn tunnel_channel(rate: u64, overhead_us: u64, delay_us: u64) -> emu::model::ChannelParams {
    use emu::model::{ChannelParams, Jitter, LossProcess, QueueLimit};
    use wattlab_core::Duration as D;
    ChannelParams {
        rate_bps: rate,
        overhead: D::from_micros(overhead_us),
        delay: D::from_micros(delay_us),
        queue: QueueLimit::Packets(1000),
        loss: LossProcess::None,
        jitter: Jitter::None,
        reorder: false,
    }
}

/// `tunnel`: one end of the SCTP tunnel.
#[allow(clippy::too_many_arguments)]
fn run_tunnel(role: TunnelRoleArg, tun: &str, bind: SocketAddr, peer: SocketAddr, burst: u32, inlet_ms: f64, trigger_min: Option<f64>, trigger_max: f64, limit: f64) -> Result<tunnel_host::TunnelHostReport, String> {
    use wattlab_core::tunnel::{TriggerConfig, TunnelConfig};
    use wattlab_core::Duration as D;
    let ms = |v: f64| D::from_nanos((v * 1e6) as u64);
    let client = TunnelConfig {
        burst,
        inlet_timeout: ms(inlet_ms),
        trigger: trigger_min.map(|t| TriggerConfig { t_min: ms(t), t_max: ms(trigger_max), ..TriggerConfig::default() }),
        // Pre-established (docs/tunnel.md, "Live"): the emulated U-APSD holds the AP's INIT ACK
        // and COOKIE ACK until the client's next uplink frame, and a client in the handshake has
        // nothing to send but T1's retransmissions: the netns run took 3 s to establish.
        handshake: false,
        ..TunnelConfig::default()
    };
    let endpoint = match role {
        TunnelRoleArg::Client => client,
        TunnelRoleArg::Ap => TunnelConfig { trigger: None, ..client.mirrored() },
    };
    endpoint.validate()?;
    let stop = nfqueue::stop_flag()?;
    nfqueue::tight_timer_slack();
    let dev = tunnel_host::open_tun(tun)?;
    let sock = host::bind(bind)?;
    let cfg = tunnel_host::TunnelHostConfig { tun: tun.to_string(), bind, peer, endpoint, time_limit: Duration::from_secs_f64(limit) };
    tunnel_host::run(dev, sock, &cfg, &stop, nfqueue::announce_ready)
}

/// The two ends of a WWP flow.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum WwpRoleArg {
    /// The paper's A: connects and sends.
    Sender,
    /// The paper's B: listens and receives.
    Receiver,
}

/// Sleeps until Unix time `at_ns` (at most `cap`), waking every 20 ms for the stop flag.
fn sleep_until_unix(at_ns: u64, cap: Duration, stop: &std::sync::atomic::AtomicBool) {
    let end = std::time::Instant::now() + cap;
    loop {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos() as u64;
        if now >= at_ns || nfqueue::stopped(stop) || std::time::Instant::now() >= end {
            return;
        }
        std::thread::sleep(Duration::from_nanos(at_ns - now).min(Duration::from_millis(20)));
    }
}

/// `wwp`: one end of the scenario's WWP flow.
fn run_wwp(s: &ScenarioArgs, role: WwpRoleArg, bind: SocketAddr, peer: Option<SocketAddr>, start_at: Option<u64>, limit: f64, isn: Option<u16>) -> Result<WwpHostReport, String> {
    let spec = plan::load_resolved(&s.scenario, s.policy, &s.overrides)?.0;
    let flow = spec.wwp.as_ref().ok_or("the scenario's flow is not a wwp-bulk flow")?;
    let stop = nfqueue::stop_flag()?;
    nfqueue::tight_timer_slack();
    let limit = Duration::from_secs_f64(limit);
    let role = match role {
        WwpRoleArg::Receiver => WwpRole::Receiver,
        WwpRoleArg::Sender => WwpRole::Sender {
            peer: peer.ok_or("the sender needs --peer")?,
            payload_key: spec.seed,
            bytes: flow.bytes,
            duration: flow.duration.map(|d| Duration::from_nanos(d.0)),
            message: flow.message as usize,
        },
    };
    let sock = host::bind(bind)?;
    let mut cfg = WwpHostConfig::new(role, flow.config.clone());
    cfg.isn = isn;
    cfg.time_limit = limit;
    if let Some(at) = start_at {
        nfqueue::announce_ready();
        sleep_until_unix(at, limit, &stop);
        wwp_host::run(sock, &cfg, &stop, || {})
    } else {
        wwp_host::run(sock, &cfg, &stop, nfqueue::announce_ready)
    }
}

/// The live spec of a scenario with a `web` flow, its page plan and its Linux congestion control.
fn web_plan(s: &ScenarioArgs) -> Result<(wattlab_sim::live_spec::LiveSpec, wattlab_sim::live_spec::WebLiveFlow, String), String> {
    let spec = plan::load_resolved(&s.scenario, s.policy, &s.overrides)?.0;
    let flow = spec.web.clone().ok_or("the scenario's flow is not a web flow")?;
    let cc = plan::linux_cc(spec.tcp.congestion_control)?.to_string();
    Ok((spec, flow, cc))
}

/// The largest window a receiver with `tcp`'s settings advertises (64 KiB without scaling).
fn window_clamp(tcp: &wattlab_core::tcp::TcpConfig) -> u32 {
    if tcp.window_scale.is_some() { tcp.recv_buffer } else { tcp.recv_buffer.min(65_535) }
}

fn socket_tcp(t: &TcpArgs) -> SocketTcp {
    SocketTcp { cc: t.cc.clone(), window_clamp: t.window_clamp, buffer: t.buffer }
}

fn write_report(path: &Path, value: &impl serde::Serialize) -> Result<(), String> {
    let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))
}

/// `payload`: the digest as JSON, or the bytes themselves with `dump`.
fn print_payload(p: &PayloadArgs, dump: bool) -> Result<(), String> {
    if dump {
        let mut out = std::io::stdout().lock();
        std::io::copy(&mut Payload::new(p.payload_key, p.bytes), &mut out).map_err(|e| format!("writing the payload: {e}"))?;
        return Ok(());
    }
    let digest = serde_json::json!({"bytes": p.bytes, "key": p.payload_key, "sha256": payload::sha256(p.payload_key, p.bytes)});
    println!("{digest}");
    Ok(())
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Plan { scenario: s } => {
            let plan = plan::describe(&s.scenario, s.policy, &s.overrides)?;
            println!("{}", serde_json::to_string_pretty(&plan).map_err(|e| e.to_string())?);
            Ok(())
        }
        Command::Emulate { scenario: s, queue, client_iface, transitions, radio_socket, report } => {
            let spec = plan::load_resolved(&s.scenario, s.policy, &s.overrides)?.0;
            let name = std::ffi::CString::new(client_iface.clone()).map_err(|_| "bad interface name".to_string())?;
            // SAFETY: a NUL-terminated name.
            let ifindex = unsafe { libc::if_nametoindex(name.as_ptr()) };
            if ifindex == 0 {
                return Err(format!("no interface `{client_iface}` in this namespace"));
            }
            let stop = nfqueue::stop_flag()?;
            nfqueue::tight_timer_slack();
            if !nfqueue::realtime_priority() {
                eprintln!("wattlab-live: warning: no real-time priority; verdicts may be late under load");
            }
            let r = emu::host::run(queue, ifindex, None, plan::path_params(&spec), transitions.as_deref(), radio_socket.as_deref(), &stop)?;
            write_report(&report, &r)
        }
        Command::Agent { scenario: s, queue, client_addr, mark, transitions, events, hints, report } => {
            let spec = plan::load(&s.scenario, LivePolicy::Cc, &s.overrides)?;
            let cfg = spec.agent.ok_or("the scenario has no agent (power_save = \"cc\")")?;
            let stop = nfqueue::stop_flag()?;
            nfqueue::tight_timer_slack();
            if !nfqueue::realtime_priority() {
                eprintln!("wattlab-live: warning: no real-time priority; timers may be late under load");
            }
            let logs = client_agent::AgentLogs { transitions: &transitions, events: &events, hints: hints.as_deref() };
            let r = client_agent::run(queue, client_addr, mark, cfg, &logs, &stop)?;
            write_report(&report, &r)
        }
        Command::Payload { payload: p, dump } => print_payload(&p, dump),
        Command::WebServe { scenario: s, listen, time_limit, report } => {
            let (_, flow, cc) = web_plan(&s)?;
            // The server's socket options as the bulk server's (`serve`): the module only.
            let tcp = SocketTcp { cc, window_clamp: None, buffer: None };
            let stop = nfqueue::stop_flag()?;
            let r = web::serve(listen, &flow, &tcp, Duration::from_secs_f64(time_limit), &stop)?;
            write_report(&report, &r)
        }
        Command::WebFetch { scenario: s, connect, hints, idle_timeout, time_limit, report } => {
            let (spec, flow, cc) = web_plan(&s)?;
            // As `fetch`: the scenario's receive buffer is the largest advertised window.
            let tcp = SocketTcp { cc, window_clamp: Some(window_clamp(&spec.tcp)), buffer: Some(spec.tcp.recv_buffer as usize) };
            let stop = nfqueue::stop_flag()?;
            let cfg = web::FetchConfig {
                server: connect,
                tcp,
                limit: Duration::from_secs_f64(time_limit),
                idle: Duration::from_secs_f64(idle_timeout),
                hints: hints.as_deref(),
            };
            let r = web::fetch(&flow, &cfg, &stop)?;
            write_report(&report, &r)
        }
        Command::Serve { listen, payload: p, request, abort_after, tcp, report } => {
            let idle = Duration::from_secs_f64(tcp.idle_timeout);
            let r = apps::serve(listen, Payload::new(p.payload_key, p.bytes), request, &socket_tcp(&tcp), idle, abort_after)?;
            write_report(&report, &r)
        }
        Command::Sink { listen, tcp, report } => {
            let r = apps::sink(listen, &socket_tcp(&tcp), Duration::from_secs_f64(tcp.idle_timeout))?;
            write_report(&report, &r)
        }
        Command::PsnaDaemon { scenario: s, bind, time_limit, report } => {
            let spec = plan::load_resolved(&s.scenario, s.policy, &s.overrides)?.0;
            let flow = spec.psna.as_ref().ok_or("the scenario's flow is not a psna-read or psna-send flow")?;
            let cc = plan::linux_cc(spec.tcp.congestion_control)?.to_string();
            let cfg = psna_host::DaemonHostConfig {
                daemon: flow.configs.daemon.clone(),
                request: spec.request,
                // As the `fetch` client's: the scenario's receive buffer is the largest window.
                tcp: SocketTcp { cc, window_clamp: Some(window_clamp(&spec.tcp)), buffer: Some(spec.tcp.recv_buffer as usize) },
                time_limit: Duration::from_secs_f64(time_limit),
                max_datagrams: 10_000_000,
            };
            let stop = nfqueue::stop_flag()?;
            nfqueue::tight_timer_slack();
            let sock = host::bind(bind)?;
            let r = psna_host::run_daemon(sock, &cfg, &stop, nfqueue::announce_ready)?;
            write_report(&report, &r)
        }
        Command::PsnaMobile { scenario: s, bind, daemon, fh, radio_socket, transitions, time_limit, report } => {
            let spec = plan::load_resolved(&s.scenario, s.policy, &s.overrides)?.0;
            let flow = spec.psna.as_ref().ok_or("the scenario's flow is not a psna-read or psna-send flow")?;
            let cfg = psna_host::MobileHostConfig {
                daemon,
                fh: std::net::SocketAddrV4::new(fh, spec.port),
                read: flow.read,
                bytes: spec.bytes,
                payload_key: spec.seed,
                mobile: flow.configs.mobile.clone(),
                first_id: psna_host::fresh_transfer_id(),
                radio_socket,
                transitions,
                time_limit: Duration::from_secs_f64(time_limit),
                max_datagrams: 10_000_000,
            };
            let stop = nfqueue::stop_flag()?;
            nfqueue::tight_timer_slack();
            let sock = host::bind(bind)?;
            let r = psna_host::run_mobile(sock, &cfg, &stop)?;
            write_report(&report, &r)
        }
        Command::Wwp { scenario: s, role, bind, peer, start_at_unix_ns, time_limit, isn, report } => {
            let r = run_wwp(&s, role, bind, peer, start_at_unix_ns, time_limit, isn)?;
            write_report(&report, &r)
        }
        Command::Echo { bind, peer, count, size, interval_ms, rto_ms, max_retries, time_limit, report } => {
            let ms = |v: f64| wattlab_core::Duration::from_nanos((v * 1e6) as u64);
            let cfg = wattlab_core::echo::EchoConfig { count, size, interval: ms(interval_ms), rto: ms(rto_ms), max_retries };
            let stop = nfqueue::stop_flag()?;
            nfqueue::tight_timer_slack();
            let sock = host::bind(bind)?;
            let r = echo_host::run(sock, peer, cfg, Duration::from_secs_f64(time_limit), &stop, nfqueue::announce_ready)?;
            write_report(&report, &r)
        }
        Command::Tunnel { role, tun, bind, peer, burst, inlet_timeout_ms, trigger_min_ms, trigger_max_ms, time_limit, report } => {
            let r = run_tunnel(role, &tun, bind, peer, burst, inlet_timeout_ms, trigger_min_ms, trigger_max_ms, time_limit)?;
            write_report(&report, &r)
        }
        Command::EmulateTunnel { queue, client_iface, tun_iface, wired_rate, wired_delay_us, hop_rate, hop_overhead_us, beacon_us, cam, seed, transitions, report } => {
            let (client, tun) = (ifindex(&client_iface)?, ifindex(&tun_iface)?);
            let wired = tunnel_channel(wired_rate, 0, wired_delay_us);
            let hop = tunnel_channel(hop_rate, hop_overhead_us, 0);
            let params = emu::model::PathParams {
                wired_down: wired.clone(),
                hop_down: hop.clone(),
                hop_up: hop,
                wired_up: wired,
                half_duplex: true,
                // U-APSD's beacon interval; none (and no holding) for an always-on client.
                psm_beacon: (!cam).then(|| wattlab_core::Duration::from_micros(beacon_us)),
                uapsd: !cam,
                mode: None,
                seed,
                names: None,
            };
            let stop = nfqueue::stop_flag()?;
            nfqueue::tight_timer_slack();
            if !nfqueue::realtime_priority() {
                eprintln!("wattlab-live: warning: no real-time priority; verdicts may be late under load");
            }
            let r = emu::host::run(queue, client, Some(tun), params, transitions.as_deref(), None, &stop)?;
            write_report(&report, &r)
        }
        Command::Flow { role, addr, rate, duration, payload: p, time_limit, report } => {
            let limit = Duration::from_secs_f64(time_limit);
            if !(rate > 0.0 && rate.is_finite() && duration > 0.0 && duration.is_finite()) {
                return Err("--rate and --duration must be positive".into());
            }
            let r = match role {
                FlowRoleArg::Recv => tcp_flow::receive(addr, rate, limit, nfqueue::announce_ready)?,
                FlowRoleArg::Send => tcp_flow::send(addr, p.payload_key, p.bytes, Duration::from_secs_f64(duration), limit)?,
            };
            write_report(&report, &r)
        }
        Command::Fetch { connect, request, tcp, report } => {
            let idle = Duration::from_secs_f64(tcp.idle_timeout);
            let r = apps::fetch(connect, request, &socket_tcp(&tcp), idle)?;
            write_report(&report, &r)
        }
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("wattlab-live: error: {e}");
            ExitCode::FAILURE
        }
    }
}
