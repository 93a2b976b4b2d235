//! A host's transmit path (`node.tx_time`): the server's packets leave one per `tx_time`, what
//! waits stays in the socket (so a queue behind the host no longer overflows from a window sent
//! at once), ACKs that arrive meanwhile are processed between the segments, and 0 is today's
//! behaviour to the byte.

use pcap_file::pcap::PcapReader;
use std::fs::File;
use wattlab_core::wire::decode_ethernet;
use wattlab_sim::{BuildOptions, Simulation};

/// A 10 Gb/s wired link with a 5-packet queue in front of a 20 Mb/s hop, Linux's TCP (IW10):
/// without pacing, the first window alone overflows the wired queue.
const SCENARIO: &str = r#"
[[node]]
name = "server"
kind = "host"
TX
[[node]]
name = "ap"
kind = "ap"
[[node]]
name = "client"
kind = "host"
[[link]]
a = "server"
b = "ap"
rate = "10Gbps"
delay = "20ms"
queue = { packets = 5 }
[[wireless]]
ap = "ap"
station = "client"
rate = "20Mbps"
[[flow]]
kind = "bulk-download"
client = "client"
server = "server"
bytes = "1MB"
tcp = { profile = "linux" }
"#;

struct Run {
    completion_s: f64,
    delivered: u64,
    wired_drops: u64,
    /// Departure times (ns) of the server's data segments on its link, in order.
    data_times: Vec<u64>,
    summary_json: String,
}

fn run(tx: &str, tag: &str) -> Run {
    let dir = std::env::temp_dir().join(format!("wattlab-txpath-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let opts = BuildOptions { out_dir: Some(dir.clone()), pcaps: vec!["server:eth0".into()], ..Default::default() };
    let text = SCENARIO.replace("TX", tx);
    let sim = Simulation::from_toml(&text, "tx_path.toml", Some(1), &[], &opts).expect("scenario builds");
    let out = sim.run().expect("run succeeds");
    let flow = &out.summary.flows[0];
    let wired = out.summary.links.iter().find(|l| l.name.starts_with("server")).expect("the wired link");
    let mut reader = PcapReader::new(File::open(dir.join("server-eth0.pcap")).unwrap()).unwrap();
    let mut data_times = Vec::new();
    while let Some(pkt) = reader.next_packet() {
        let pkt = pkt.unwrap();
        let p = decode_ethernet(&pkt.data).unwrap();
        if p.src.octets() == [10, 0, 0, 1] && p.payload_len > 0 {
            data_times.push(pkt.timestamp.as_nanos() as u64);
        }
    }
    let summary_json = serde_json::to_string(&out.summary.flows).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    Run {
        completion_s: flow.completion_time_s.expect("completed"),
        delivered: flow.bytes_delivered,
        wired_drops: wired.stats.queue_drops,
        data_times,
        summary_json,
    }
}

#[test]
fn a_paced_host_sends_one_packet_per_tx_time_and_keeps_the_rest() {
    let off = run("", "off");
    let on = run(r#"tx_time = "200us""#, "on");
    assert_eq!((off.delivered, on.delivered), (1_000_000, 1_000_000));
    // Unpaced, a window leaves at the 10 Gb/s line rate (1.2 µs per 1500 B): the 5-packet queue
    // overflows in slow start.
    let min_gap = |t: &[u64]| t.windows(2).map(|w| w[1] - w[0]).min().unwrap();
    assert!(min_gap(&off.data_times) < 2_000, "unpaced gaps {} ns", min_gap(&off.data_times));
    assert!(off.wired_drops > 0, "the unpaced window overflows the wired queue");
    // Paced: never two data segments closer than 200 µs, and nothing is dropped at the link
    // (what waits stays in the socket).
    assert!(min_gap(&on.data_times) >= 200_000, "paced gaps {} ns", min_gap(&on.data_times));
    assert_eq!(on.wired_drops, 0);
    // 200 µs per packet caps the rate at 1448 B / 200 µs = 58 Mb/s, above the 20 Mb/s hop: the
    // download is not slower than the hop allows.
    assert!(on.completion_s < off.completion_s * 1.2, "{} s against {} s", on.completion_s, off.completion_s);
}

#[test]
fn a_slow_path_limits_the_rate() {
    // 1 ms per packet: at most 1448 B/ms (11.6 Mb/s), below the 20 Mb/s hop: 1 MB takes at
    // least 691 segments × 1 ms.
    let on = run(r#"tx_time = "1ms""#, "slow");
    assert_eq!(on.delivered, 1_000_000);
    assert!(on.completion_s > 0.691, "{} s", on.completion_s);
    assert!(on.data_times.windows(2).all(|w| w[1] - w[0] >= 1_000_000));
}

#[test]
fn a_zero_tx_time_is_the_unpaced_run() {
    let off = run("", "zero-a");
    let zero = run(r#"tx_time = "0s""#, "zero-b");
    assert_eq!(off.summary_json, zero.summary_json);
    assert_eq!(off.data_times, zero.data_times);
}

#[test]
fn an_out_of_range_tx_time_names_the_node_and_line() {
    let text = SCENARIO.replace("TX", r#"tx_time = "2ms""#);
    let err = match Simulation::from_toml(&text, "tx_path.toml", Some(1), &[], &BuildOptions::default()) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("a 2 ms tx_time must be refused"),
    };
    assert!(err.contains("node[0].tx_time"), "{err}");
    assert!(err.contains("out of range"), "{err}");
    assert!(err.contains(":5:") || err.contains("line 5"), "{err}");
}
