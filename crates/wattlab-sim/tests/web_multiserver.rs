//! The multi-server page model (`third_party` of a web flow): a page's embedded objects come
//! from its site and from third-party servers, each on its own path with its own RTT. Objects
//! per server add up, the connection limit holds per server, the client's agent caches every
//! server of a page, the same seed gives the same tables, and bad settings are refused with
//! their key and line.

use std::collections::{BTreeMap, BTreeSet};
use wattlab_sim::{BuildOptions, RunOutput};

#[path = "support/web.rs"]
mod web_scenario;
use web_scenario::{error, line_of, Server, Web, MAX_CONN};

/// Two sites (RTT 20 and 60 ms behind the AP) and a pool of three third-party servers (RTT
/// 10, 80 and 120 ms; the last with 1 % loss towards the client).
fn scenario(third_party: &str, power_save: &str) -> String {
    let servers = [
        Server { name: "site0", delay: "10ms", link: "" },
        Server { name: "site1", delay: "30ms", link: "" },
        Server { name: "cdn", delay: "5ms", link: "" },
        Server { name: "ads", delay: "40ms", link: "" },
        Server { name: "stats", delay: "60ms", link: r#"a_to_b = { loss = { model = "bernoulli", p = 0.01 } }"# },
    ];
    Web {
        name: "web-ms",
        seed: 3,
        servers: &servers,
        client: r#"radio = { profile = "wavelan-dsss", policies = ["always-on"] }"#,
        wireless: &format!("power_save = \"{power_save}\""),
        pages: 12,
        subsites: 3,
        objects_mean: 8,
        flow: third_party,
    }
    .toml()
}

/// The pool of third-party servers: one to three per page, half of the embedded objects.
const POOL: &str = r#"third_party = { servers = ["cdn", "ads", "stats"], hosts = { min = 1, max = 3 }, share = 0.5 }"#;

fn run(text: &str) -> RunOutput {
    web_scenario::run(text, &BuildOptions { timeseries: false, ..Default::default() })
}

#[test]
fn objects_spread_over_servers_add_up_and_respect_the_limit_per_server() {
    let out = run(&scenario(POOL, "cam"));
    let (p, o) = (&out.pages, &out.objects);
    let f = &out.summary.flows[0];
    assert!(f.completed && out.summary.completed, "every page completes, the lossy server's too");
    let n = o.page.len();
    assert_eq!(n as u32, p.objects.iter().sum::<u32>());
    let responses: u64 = o.response_bytes.iter().sum();
    assert_eq!(f.bytes_delivered, responses);
    assert_eq!(f.target_bytes, Some(responses));
    let pool: BTreeSet<&str> = ["cdn", "ads", "stats"].into();
    let mut per_server: BTreeMap<&str, usize> = BTreeMap::new();
    for i in 0..n {
        *per_server.entry(&o.server[i]).or_default() += 1;
        if o.object[i] == 0 {
            assert_eq!(o.server[i], o.site[i], "the HTML comes from the page's site");
        } else {
            assert!(o.server[i] == o.site[i] || pool.contains(o.server[i].as_str()), "object {i} from {}", o.server[i]);
        }
    }
    // Objects per server add up to the objects, and every pool member served some.
    assert_eq!(per_server.values().sum::<usize>(), n);
    assert!(pool.iter().all(|s| per_server.get(s).copied().unwrap_or(0) > 0), "{per_server:?}");
    let third: usize = pool.iter().map(|s| per_server[s]).sum();
    let embedded = o.object.iter().filter(|&&k| k > 0).count();
    let share = third as f64 / embedded as f64;
    eprintln!("{n} objects, per server {per_server:?}, third-party share of embedded objects {share:.2}");
    assert!((0.3..0.7).contains(&share), "share {share} far from 0.5");
    // The pages table's `servers` is the distinct servers of each page's objects.
    for (k, &s) in p.servers.iter().enumerate() {
        let distinct: BTreeSet<&str> = (0..n).filter(|&i| o.page[i] == k as u32).map(|i| o.server[i].as_str()).collect();
        assert_eq!(s as usize, distinct.len(), "page {k}");
    }
    assert!(p.servers.iter().any(|&s| s >= 3), "{:?}", p.servers);
    // At most MAX_CONN connections per server (they persist), and more than MAX_CONN in all:
    // the limit is per host, not per page.
    let mut conns: BTreeMap<&str, BTreeSet<u32>> = BTreeMap::new();
    for i in 0..n {
        conns.entry(&o.server[i]).or_default().insert(o.connection[i].unwrap());
    }
    for (s, c) in &conns {
        assert!(c.len() as u32 <= MAX_CONN, "{s}: {} connections", c.len());
    }
    let all: usize = conns.values().map(|c| c.len()).sum();
    assert_eq!(all as u32, f.web().unwrap().connections);
    assert!(all as u32 > MAX_CONN * 2, "{all} connections over {} servers", conns.len());
    // Requests outstanding at once per server never exceed the limit (one per connection).
    for (s, _) in &conns {
        for i in (0..n).filter(|&i| o.server[i] == *s) {
            let t = o.request_s[i];
            let busy = (0..n).filter(|&j| o.server[j] == *s && o.request_s[j] <= t && o.done_s[j] > t).count();
            assert!(busy as u32 <= MAX_CONN, "{s} at {t}: {busy} outstanding");
        }
    }
    // A far server's object takes longer to its first byte than a near one's (mixed RTTs).
    let first_byte = |s: &str| {
        let v: Vec<f64> = (0..n).filter(|&i| o.server[i] == s && !o.reused[i]).map(|i| o.first_byte_s[i] - o.request_s[i]).collect();
        v.iter().copied().fold(f64::INFINITY, f64::min)
    };
    assert!(first_byte("cdn") >= 0.010 && first_byte("cdn") < 0.080, "cdn {}", first_byte("cdn"));
    assert!(first_byte("stats") >= 0.120, "stats {}", first_byte("stats"));
}

#[test]
fn the_same_pages_and_sizes_as_the_single_server_model() {
    // The servers are drawn from their own stream: the objects' sizes do not change.
    let single = run(&scenario("", "cam"));
    let multi = run(&scenario(POOL, "cam"));
    assert_eq!(single.objects.size, multi.objects.size);
    assert_eq!(single.pages.site, multi.pages.site);
    assert!(single.objects.server.iter().zip(&single.objects.site).all(|(a, b)| a == b));
    assert!(single.pages.servers.iter().all(|&s| s == 1));
    assert!(multi.objects.server.iter().zip(&multi.objects.site).any(|(a, b)| a != b));
    // Share 0: every object from its site, exactly the single-server run.
    let none = run(&scenario(&POOL.replace("share = 0.5", "share = 0.0"), "cam"));
    assert_eq!(serde_json::to_string(&none.objects).unwrap(), serde_json::to_string(&single.objects).unwrap());
}

#[test]
fn same_seed_same_tables() {
    let a = run(&scenario(POOL, "cam"));
    let b = run(&scenario(POOL, "cam"));
    let json = |o: &RunOutput| (serde_json::to_string(&o.pages).unwrap(), serde_json::to_string(&o.objects).unwrap(), o.summary.to_json());
    assert_eq!(json(&a), json(&b));
    let c = run(&scenario(POOL, "cam").replace("seed = 3", "seed = 4"));
    assert_ne!(serde_json::to_string(&a.objects.server).unwrap(), serde_json::to_string(&c.objects.server).unwrap());
}

#[test]
fn the_agent_caches_every_server_of_a_page() {
    let out = run(&scenario(POOL, "cc"));
    assert!(out.summary.completed);
    let a = &out.summary.agents[0].stats;
    let p = &out.pages;
    // The cache is flushed at every page: the first lookup of each of a page's servers misses.
    let first_lookups: u64 = p.servers.iter().map(|&s| s as u64).sum();
    eprintln!("cache hits {} misses {} max servers {}; {first_lookups} (page, server) pairs", a.rtt_cache_hits, a.rtt_cache_misses, a.rtt_cache_servers_max);
    assert!(a.rtt_cache_misses >= first_lookups, "{} misses < {first_lookups}", a.rtt_cache_misses);
    assert!(a.rtt_cache_hits > 0);
    assert!(a.rtt_cache_servers_max >= 3, "servers cached at once: {}", a.rtt_cache_servers_max);
    assert_eq!(a.rtt_cache_hits + a.rtt_cache_misses, a.connections + out.objects.page.len() as u64, "one lookup per SYN and per request");
    // Without the cache nothing is looked up.
    let off = run(&scenario(POOL, "cc").replace("power_save = \"cc\"", "power_save = \"cc\"\nagent = { rtt_cache = false }"));
    let b = &off.summary.agents[0].stats;
    assert_eq!((b.rtt_cache_hits, b.rtt_cache_misses, b.rtt_cache_servers_max), (0, 0, 0));
}

#[test]
fn an_explicit_list_names_each_objects_server() {
    let text = scenario(POOL, "cam").replace("pages = 12\n", "").replace(
        "subsites = 3\n",
        "page_list = [{ site = \"site1\", objects = [\"12KB\", 3400, 800, 900], from = [\"site1\", \"cdn\", \"stats\", \"cdn\"] }, { site = \"site0\", objects = [5000] }]\n",
    );
    let out = run(&text);
    assert!(out.summary.completed);
    assert_eq!(out.objects.server, vec!["site1", "cdn", "stats", "cdn", "site0"]);
    assert_eq!(out.pages.servers, vec![3, 1]);
}

#[test]
fn bad_settings_name_their_key_and_line() {
    let cases: [(&str, &str, &str); 7] = [
        (r#"third_party = { servers = [] }"#, "flow[0].third_party.servers", "at least one"),
        (r#"third_party = { servers = ["cdn", "cdn"] }"#, "flow[0].third_party.servers", "twice"),
        (r#"third_party = { servers = ["cdn", "site0"] }"#, "flow[0].third_party.servers", "also a site"),
        (r#"third_party = { servers = ["cdn"], hosts = { max = 2 } }"#, "flow[0].third_party.hosts.max", "at most the pool's 1"),
        (r#"third_party = { servers = ["cdn", "ads"], hosts = { min = 2, max = 1 } }"#, "flow[0].third_party.hosts.min", "at most `max`"),
        (r#"third_party = { servers = ["cdn"], share = 1.5 }"#, "flow[0].third_party.share", "[0, 1]"),
        (r#"third_party = { servers = ["cdn"], popularity = -1 }"#, "flow[0].third_party.popularity", "Zipf"),
    ];
    for (extra, key, words) in cases {
        let text = scenario(extra, "cam");
        let e = error(&text);
        assert_eq!(e.key.as_deref(), Some(key), "{extra}: {e}");
        assert!(e.message.contains(words), "{extra}: {e}");
        assert_eq!(e.line, line_of(&text, "third_party"), "{e}");
    }
    let e = error(&scenario(r#"third_party = { servers = ["cdn", "nowhere"] }"#, "cam"));
    assert!(e.message.contains("unknown node `nowhere`"), "{e}");
    let list = |from: &str| {
        scenario(POOL, "cam")
            .replace("pages = 12\n", "")
            .replace("subsites = 3\n", &format!("page_list = [{{ site = \"site1\", objects = [100, 200], from = {from} }}]\n"))
    };
    let e = error(&list(r#"["site1"]"#));
    assert_eq!(e.key.as_deref(), Some("flow[0].page_list[0].from"), "{e}");
    assert!(e.message.contains("1 servers for 2 objects"), "{e}");
    assert!(error(&list(r#"["cdn", "cdn"]"#)).message.contains("main HTML comes from the page's site"));
    assert!(error(&list(r#"["site1", "moon"]"#)).message.contains("neither one of"));
}
