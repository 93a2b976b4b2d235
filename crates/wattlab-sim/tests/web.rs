//! The web-browsing workload end to end: pages complete, objects arrive whole, persistent
//! connections are limited per site and reused across pages, think times are respected, and
//! the same seed gives the same tables.

use pcap_file::pcap::PcapReader;
use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use wattlab_core::packet::TcpFlags;
use wattlab_core::wire::decode_ethernet;
use wattlab_sim::{BuildOptions, RunOutput};

#[path = "support/web.rs"]
mod web_scenario;
use web_scenario::{error, line_of, Server, Web, MAX_CONN};

/// Two sites behind the AP (20 and 45 ms), five pages; `flow_extra` ends the flow.
fn scenario(flow_extra: &str) -> String {
    let servers = [
        Server { name: "site0", delay: "20ms", link: "" },
        Server { name: "site1", delay: "45ms", link: "" },
    ];
    Web { name: "web-test", seed: 7, servers: &servers, client: "", wireless: "", pages: 5, subsites: 2, objects_mean: 6, flow: flow_extra }
        .toml()
}

fn run(text: &str, pcap_dir: Option<&std::path::Path>) -> RunOutput {
    let opts = BuildOptions {
        out_dir: pcap_dir.map(|d| d.to_path_buf()),
        pcaps: if pcap_dir.is_some() { vec!["client:wlan0".into()] } else { vec![] },
        timeseries: false,
        ..Default::default()
    };
    web_scenario::run(text, &opts)
}

#[test]
fn five_pages_over_two_sites() {
    let dir = std::env::temp_dir().join(format!("wattlab-web-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = run(&scenario(""), Some(&dir));
    let (p, o) = (&out.pages, &out.objects);
    let f = &out.summary.flows[0];
    assert_eq!(f.kind, "web");
    assert!(f.completed && out.summary.completed, "the flow must complete");
    assert_eq!((f.web().unwrap().pages, f.web().unwrap().pages_done), (5, 5));
    assert_eq!(p.page, vec![0, 1, 2, 3, 4]);
    let sites: BTreeSet<&str> = p.site.iter().map(|s| s.as_str()).collect();
    assert_eq!(sites.len(), 2, "both sites visited with seed 7: {:?}", p.site);

    // Every object was requested and read whole; the flow delivered exactly the responses.
    let n = o.page.len();
    assert_eq!(n as u32, p.objects.iter().sum::<u32>());
    assert!(n > 10, "{n} objects");
    for i in 0..n {
        assert!(o.request_s[i] <= o.first_byte_s[i] && o.first_byte_s[i] <= o.done_s[i], "object {i}");
        assert_eq!(o.response_bytes[i], o.size[i] + 250);
    }
    let responses: u64 = o.response_bytes.iter().sum();
    assert_eq!(f.bytes_delivered, responses);
    assert_eq!(f.target_bytes, Some(responses));
    for (k, &b) in p.bytes.iter().enumerate() {
        let body: u64 = (0..n).filter(|&i| o.page[i] == k as u32).map(|i| o.size[i]).sum();
        assert_eq!(b, body, "page {k} bytes");
    }
    // The HTML (object 0) is complete before any embedded object of its page is requested.
    for i in 0..n {
        if o.object[i] > 0 {
            let html = (0..n).find(|&j| o.page[j] == o.page[i] && o.object[j] == 0).unwrap();
            assert!(o.request_s[i] >= o.done_s[html]);
        }
    }

    // Connections: at most MAX_CONN per site, as the client's SYNs on the air show too.
    let mut per_site: BTreeMap<&str, BTreeSet<u32>> = BTreeMap::new();
    for i in 0..n {
        per_site.entry(&o.site[i]).or_default().insert(o.connection[i].unwrap());
    }
    for (site, conns) in &per_site {
        assert!(conns.len() as u32 <= MAX_CONN, "{site}: {} connections", conns.len());
    }
    let mut reader = PcapReader::new(File::open(dir.join("client-wlan0.pcap")).unwrap()).unwrap();
    let mut syns: BTreeMap<[u8; 4], u32> = BTreeMap::new();
    while let Some(pkt) = reader.next_packet() {
        let pkt = pkt.unwrap();
        let pk = decode_ethernet(&pkt.data).unwrap();
        let h = *pk.tcp_header().unwrap();
        if pk.src.octets() == [10, 0, 0, 4] && h.flags.contains(TcpFlags::SYN) && !h.flags.contains(TcpFlags::ACK) {
            *syns.entry(pk.dst.octets()).or_default() += 1;
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    let total_syns: u32 = syns.values().sum();
    eprintln!("{n} objects, {total_syns} SYNs {syns:?}, {} connections", f.web().unwrap().connections);
    assert!(syns.values().all(|&s| s <= MAX_CONN), "SYNs per server: {syns:?}");
    assert_eq!(total_syns, f.web().unwrap().connections, "one SYN per connection (no SYN was lost)");
    assert!((total_syns as usize) < n, "{total_syns} SYNs for {n} objects: connections must be reused");
    // Reuse across pages: some object rides a connection opened for an earlier page.
    let first_page: BTreeMap<u32, u32> = (0..n).rev().map(|i| (o.connection[i].unwrap(), o.page[i])).collect();
    assert!((0..n).any(|i| first_page[&o.connection[i].unwrap()] < o.page[i]), "no connection reused across pages");
    assert!((0..n).all(|i| o.reused[i] == ((0..i).any(|j| o.connection[j] == o.connection[i]))));
    // Concurrency: within 1..=MAX_CONN, and the embedded objects did overlap.
    assert!(o.concurrency.iter().all(|&c| (1..=MAX_CONN).contains(&c)));
    assert!(o.concurrency.contains(&MAX_CONN));

    // Think times: the next page starts exactly the drawn think time after the last ends.
    for k in 1..p.page.len() {
        let gap = p.start_s[k] - p.end_s[k - 1];
        assert!(gap >= p.think_s[k - 1] - 1e-9, "page {k}: gap {gap} < think {}", p.think_s[k - 1]);
        assert!((gap - p.think_s[k - 1]).abs() < 1e-6);
        assert!(p.think_s[k - 1] >= 0.5);
    }
    let last_end = p.end_s[4];
    assert!((f.completion_time_s.unwrap() - last_end).abs() < 1e-9);
}

#[test]
fn same_seed_same_tables_other_seed_other_pages() {
    let a = run(&scenario(""), None);
    let b = run(&scenario(""), None);
    let json = |o: &RunOutput| {
        (serde_json::to_string(&o.pages).unwrap(), serde_json::to_string(&o.objects).unwrap(), o.summary.to_json())
    };
    assert_eq!(json(&a), json(&b));
    let c = run(&scenario("").replace("seed = 7", "seed = 8"), None);
    assert_ne!(serde_json::to_string(&a.objects.size).unwrap(), serde_json::to_string(&c.objects.size).unwrap());
}

#[test]
fn an_explicit_page_list_is_fetched_in_order() {
    let text = scenario("").replace("pages = 5\n", "").replace(
        "subsites = 2\n",
        "page_list = [{ site = \"site1\", objects = [\"12KB\", 3400, 800] }, { site = \"site0\", objects = [5000], think = \"2s\" }, { site = \"site1\", objects = [1000, 1000] }]\n",
    );
    let out = run(&text, None);
    assert!(out.summary.completed);
    assert_eq!(out.pages.site, vec!["site1", "site0", "site1"]);
    assert_eq!(out.objects.size, vec![12_000, 3_400, 800, 5_000, 1_000, 1_000]);
    assert!((out.pages.start_s[2] - out.pages.end_s[1] - 2.0).abs() < 1e-9);
    // Page 2 returns to site1: its connections from page 0 are still open and reused.
    assert!(out.objects.reused[4] && out.objects.reused[5]);
    assert_eq!(out.pages.new_connections, vec![2, 1, 0]);
}

#[test]
fn bad_settings_name_file_line_and_key() {
    let text = scenario("pagez = 3");
    let e = error(&text);
    assert!(e.message.contains("unknown field `pagez`"), "{e}");
    assert_eq!(e.origin, "web.toml");
    assert!(e.key.as_deref().unwrap().starts_with("flow[0]"), "{e}");

    let text = scenario("").replace("max_connections = 2", "max_connections = 40");
    let e = error(&text);
    assert_eq!(e.key.as_deref(), Some("flow[0].max_connections"));
    assert_eq!(e.line, line_of(&text, "max_connections = 40"));
    assert!(e.message.contains("1..=16"), "{e}");

    let text = scenario("").replace("shape = 1.5", "shape = 0.8");
    let e = error(&text);
    assert_eq!(e.key.as_deref(), Some("flow[0].think.shape"));
    assert_eq!(e.line, line_of(&text, "think = "));
    // Located at the value itself (line and column), not only the flow's line.
    let col = text.lines().nth(e.line.unwrap() - 1).unwrap().find("0.8").unwrap() + 1;
    assert_eq!(e.to_string(), format!("web.toml:{}:{col}: key `flow[0].think.shape`: {}", e.line.unwrap(), e.message));

    let text = scenario("object_size = { mean = \"4KB\", shap = 1.2 }");
    assert!(error(&text).message.contains("unknown field `shap`"));

    let text = scenario("").replace("pages = 5", "pages = 0");
    assert_eq!(error(&text).key.as_deref(), Some("flow[0].pages"));

    let text = scenario("").replace("[\"site0\", \"site1\"]", "[\"site0\", \"site9\"]");
    let e = error(&text);
    assert!(e.message.contains("unknown node `site9`"), "{e}");
    assert_eq!(e.line, line_of(&text, "servers = "));

    // A bulk download from the same client to the same server port would be taken by the
    // web server's listener.
    let text = scenario("") + "[[flow]]\nkind = \"bulk-download\"\nclient = \"client\"\nserver = \"site0\"\nbytes = \"10kB\"\n";
    let e = error(&text);
    assert_eq!(e.key.as_deref(), Some("flow[0].port"), "{e}");
    let ok = scenario("port = 8080") + "[[flow]]\nkind = \"bulk-download\"\nclient = \"client\"\nserver = \"site0\"\nbytes = \"10kB\"\n";
    let out = run(&ok, None);
    assert!(out.summary.completed && out.summary.flows[1].bytes_delivered == 10_000);
}
