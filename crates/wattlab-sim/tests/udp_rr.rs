//! `udp-rr` end to end: losses and round-trip times over a lossy link, the socket table, and
//! what a capture shows (real UDP with the application header, real ICMP echo for ping).

use std::process::Command;
use wattlab_sim::{BuildOptions, RunOutput, Simulation};

#[path = "support/two_hosts.rs"]
mod two_hosts;
use two_hosts::scenario;

fn run(text: &str, pcap_dir: Option<&std::path::Path>) -> RunOutput {
    let opts = BuildOptions {
        out_dir: pcap_dir.map(|d| d.to_path_buf()),
        pcaps: if pcap_dir.is_some() { vec!["c:eth0".into()] } else { vec![] },
        timeseries: false,
        ..Default::default()
    };
    Simulation::from_toml(text, "udp-rr.toml", Some(7), &[], &opts).expect("scenario builds").run().expect("run succeeds")
}

fn flow_json(out: &RunOutput, i: usize) -> serde_json::Value {
    serde_json::to_value(&out.summary.flows[i]).unwrap()
}

#[test]
fn losses_and_round_trip_times_over_a_lossy_link() {
    let flow = "[[flow]]\nkind = \"udp-rr\"\nname = \"rr\"\nfrom = \"c\"\nto = \"s\"\ncount = 400\nrequest = \"100B\"\nresponse = \"1000B\"\ntimeout = \"200ms\"";
    let out = run(&scenario(0.1, flow), None);
    let f = flow_json(&out, 0);
    let n = |k: &str| f[k].as_u64().unwrap_or_else(|| panic!("{k}: {f}"));
    assert_eq!((f["kind"].as_str(), f["completed"].as_bool()), (Some("udp-rr"), Some(true)), "{f}");
    assert_eq!(n("requests"), 400);
    assert_eq!(n("requests"), n("responses") + n("lost"));
    assert_eq!(n("served"), n("responses"), "the way back loses nothing");
    // 10 % of the requests are lost, give or take the binomial spread (σ = 6).
    assert!((20..=60).contains(&n("lost")), "{f}");
    assert_eq!(n("lost"), out.summary.links[0].stats.losses, "every loss is a request: {:?}", out.summary.links[0]);
    // RTT = 2 × 10 ms + the two serializations: (128 + 1028) B at 100 Mb/s = 92.48 µs.
    let rtt = 20.0 + 0.09248;
    for k in ["rtt_mean_ms", "rtt_p50_ms", "rtt_p99_ms"] {
        let v = f[k].as_f64().unwrap();
        assert!((v - rtt).abs() < 1e-6, "{k} = {v}, want {rtt}");
    }
    // Closed loop: a lost request costs its timeout, an answered one its RTT.
    let done = f["completion_time_s"].as_f64().unwrap();
    let want = n("responses") as f64 * rtt / 1e3 + n("lost") as f64 * 0.2;
    assert!((done - want).abs() < 1e-6, "completion {done} s, want {want} s");

    // The socket table: the client and the server, counting what crossed the link.
    let t = &out.sockets;
    assert_eq!((t.protocol.as_slice(), t.node.as_slice()), (&["udp", "udp"][..], &["s".to_string(), "c".to_string()][..]));
    let (server, client) = (0, 1); // the server binds first
    assert_eq!((t.packets_out[client], t.bytes_out[client]), (400, 400 * 128));
    assert_eq!((t.packets_in[server], t.packets_out[server]), (n("served"), n("served")));
    assert_eq!((t.packets_in[client], t.bytes_in[client]), (n("responses"), n("responses") * 1028));
    assert_eq!(t.drops, vec![0, 0]);
    assert_eq!(t.remote, vec![None, None]);
    assert_eq!(t.local[server], "10.0.0.2:9007", "{t:?}");
}

#[test]
fn an_open_loop_keeps_its_pace_and_stops_with_its_duration() {
    let flow = "[[flow]]\nkind = \"udp-rr\"\nfrom = \"c\"\nto = \"s\"\ninterval = \"5ms\"\nduration = \"1s\"\ncount = 1000000";
    let out = run(&scenario(0.0, flow), None);
    let f = flow_json(&out, 0);
    assert_eq!((f["requests"].as_u64(), f["lost"].as_u64()), (Some(200), Some(0)), "{f}");
    // The last request leaves at 0.995 s and returns one RTT later: 2 × 10 ms and two 92-byte
    // datagrams at 100 Mb/s.
    let done = f["completion_time_s"].as_f64().unwrap();
    assert!((done - (0.995 + 0.020 + 2.0 * 7.36e-6)).abs() < 1e-9, "{done}");
}

#[test]
fn bad_settings_name_their_key() {
    for (extra, key) in [("request = \"4B\"", "request"), ("interval = \"0s\"", "interval"), ("timeout = \"0s\"", "timeout"), ("rate = \"1Mbps\"", "rate")] {
        let flow = format!("[[flow]]\nkind = \"udp-rr\"\nfrom = \"c\"\nto = \"s\"\n{extra}");
        let e = Simulation::from_toml(&scenario(0.0, &flow), "x.toml", None, &[], &BuildOptions::default()).err().expect("refused");
        assert!(e.to_string().contains(key), "{key}: {e}");
    }
}

/// The capture shows real UDP carrying the 8-byte header, and ping as ICMP echo; tcpdump (when
/// installed) decodes both.
#[test]
fn captures_show_the_header_and_icmp_echo() {
    let dir = std::env::temp_dir().join(format!("wattlab-udp-rr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let flows = "[[flow]]\nkind = \"udp-rr\"\nfrom = \"c\"\nto = \"s\"\ncount = 2\nrequest = \"100B\"\nresponse = \"300B\"\n\
                 [[flow]]\nkind = \"ping\"\nfrom = \"c\"\nto = \"s\"\ncount = 2\ninterval = \"100ms\"\nport = 4660";
    let out = run(&scenario(0.0, flows), Some(&dir));
    let path = &out.pcap_files[0];
    let mut r = pcap_file::pcap::PcapReader::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut udp_headers = Vec::new();
    let mut echoes = Vec::new();
    while let Some(pkt) = r.next_packet() {
        let data = pkt.unwrap().data.into_owned();
        let p = etherparse::SlicedPacket::from_ethernet(&data).unwrap();
        match p.transport {
            Some(etherparse::TransportSlice::Udp(u)) => udp_headers.push(u.payload()[..8].to_vec()),
            Some(etherparse::TransportSlice::Icmpv4(i)) => echoes.push(i.icmp_type()),
            t => panic!("unexpected {t:?}"),
        }
    }
    use etherparse::{IcmpEchoHeader, Icmpv4Type};
    assert_eq!(udp_headers, vec![vec![1, 0, 1, 44, 0, 0, 0, 0], vec![2, 0, 1, 44, 0, 0, 0, 0], vec![1, 0, 1, 44, 0, 0, 0, 1], vec![2, 0, 1, 44, 0, 0, 0, 1]]);
    let (req, rep) = (|seq| Icmpv4Type::EchoRequest(IcmpEchoHeader { id: 4660, seq }), |seq| Icmpv4Type::EchoReply(IcmpEchoHeader { id: 4660, seq }));
    assert_eq!(echoes, vec![req(0), rep(0), req(1), rep(1)]);
    let ping = flow_json(&out, 1);
    assert_eq!(ping["rtt_ms"].as_array().map(Vec::len), Some(2), "{ping}");
    let protocols: Vec<&str> = out.sockets.protocol.clone();
    assert_eq!(protocols, ["udp", "udp", "icmp"]);

    match Command::new("tcpdump").args(["-nn", "-v", "-r"]).arg(path).output() {
        Ok(o) => {
            let text = String::from_utf8_lossy(&o.stdout);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            assert!(text.contains("10.0.0.1.30000 > 10.0.0.2.9007: UDP, length 100"), "{text}");
            assert!(text.contains("10.0.0.2.9007 > 10.0.0.1.30000: UDP, length 300"), "{text}");
            assert!(text.contains("10.0.0.1 > 10.0.0.2: ICMP echo request, id 4660, seq 1, length 64"), "{text}");
            assert!(text.contains("10.0.0.2 > 10.0.0.1: ICMP echo reply, id 4660, seq 0, length 64"), "{text}");
            assert!(!text.contains("bad") && !text.contains("incorrect"), "{text}");
        }
        Err(e) => eprintln!("skipping the tcpdump cross-check: {e}"),
    }
    std::fs::remove_dir_all(&dir).ok();
}

