//! Issue 2, test 3 end to end: a receiver that stops reading drives the window to zero, the
//! sender probes with growing intervals (seen in the pcap the simulator writes), and when the
//! application reads again the transfer completes with every byte.

use pcap_file::pcap::PcapReader;
use std::fs::File;
use wattlab_core::packet::TcpFlags;
use wattlab_core::wire::decode_ethernet;
use wattlab_sim::{BuildOptions, Simulation};

const SCENARIO: &str = r#"
[[node]]
name = "server"
kind = "host"
[[node]]
name = "ap"
kind = "ap"
[[node]]
name = "client"
kind = "host"
[[link]]
a = "server"
b = "ap"
rate = "100Mbps"
delay = "20ms"
[[wireless]]
ap = "ap"
station = "client"
rate = "20Mbps"
[[flow]]
kind = "bulk-download"
client = "client"
server = "server"
bytes = "1MB"
reader = { pause = ["0.5s", "12s"] }
"#;

#[test]
fn zero_window_persist_probes_back_off_and_transfer_completes() {
    let dir = std::env::temp_dir().join(format!("wattlab-persist-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let opts = BuildOptions { out_dir: Some(dir.clone()), pcaps: vec!["server:eth0".into()], timeseries: false, ..Default::default() };
    let sim = Simulation::from_toml(SCENARIO, "persist.toml", Some(1), &[], &opts).expect("scenario builds");
    let out = sim.run().expect("run succeeds");
    let flow = &out.summary.flows[0];
    assert!(flow.completed, "transfer must complete after reading resumes");
    assert_eq!(flow.bytes_delivered, 1_000_000);
    assert!(flow.completion_time_s.unwrap() > 12.0);

    // Probes: zero-length ACK-only segments from the server with an old sequence number.
    let mut reader = PcapReader::new(File::open(dir.join("server-eth0.pcap")).unwrap()).unwrap();
    let mut max_seq_end: u32 = 0;
    let mut probe_times = Vec::new();
    let mut zero_windows = 0;
    while let Some(pkt) = reader.next_packet() {
        let pkt = pkt.unwrap();
        let p = decode_ethernet(&pkt.data).unwrap();
        let h = *p.tcp_header().unwrap();
        if p.src.octets() == [10, 0, 0, 1] {
            let end = h.seq.wrapping_add(h.seq_len(p.payload_len));
            if p.payload_len == 0 && h.flags == TcpFlags::ACK && max_seq_end != 0 && h.seq == max_seq_end.wrapping_sub(1) {
                probe_times.push(pkt.timestamp.as_secs_f64());
            }
            if p.payload_len > 0 || h.flags.contains(TcpFlags::SYN) {
                max_seq_end = max_seq_end.max(end);
            }
        } else if h.window == 0 {
            zero_windows += 1;
        }
    }
    assert!(zero_windows >= 1, "the client must advertise a zero window");
    // The sender's counter also counts persist-timer sends of data into a window smaller
    // than a segment; the capture shows the pure probes.
    assert!(probe_times.len() as u64 <= flow.tcp().persist_probes, "probes at {probe_times:?}");
    assert!(probe_times.len() >= 4, "probes: {probe_times:?}");
    let gaps: Vec<f64> = probe_times.windows(2).map(|w| w[1] - w[0]).collect();
    for g in gaps.windows(2) {
        // Exponential backoff: each interval doubles (within a millisecond of timer granularity).
        assert!((g[1] / g[0] - 2.0).abs() < 0.01, "intervals do not double: {gaps:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
